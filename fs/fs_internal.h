/*
 * What the files of fs/ share and mount/ does not see:
 *
 *   fs.c        struct fs: creation, options, the cache hook, shutdown
 *   inode.c     the inode table (inode.h)
 *   naming.c    job directory names and order (naming.h)
 *   places.c    the table of the tree's places (places.h)
 *   model.c     the path model: (parent node, name) → child node; listings
 *   view.c      gathering a job's or node's objects from the cache for render/
 *   content.c   a node's text and attributes; snapshots for open handles
 *   logfile.c   log files: follow streams per inode, sizes, waiting reads
 *   logkeep.c   kept logs: copies on disk of terminated containers' logs (logkeep.h)
 *   logkeeper.c the keeper thread: fetches each terminated container's log once
 *   notify.c    the notifier thread: cache changes and log appends → kernel
 *   ops.c       the FUSE low-level operations
 *   dirs.c      opendir snapshots, readdir and readdirplus
 *   staging.c   submit/'s in-memory files and outcomes (staging.h)
 *   submit.c    the FUSE operations of submit/ and rmdir of jobs/NAME (submit.h)
 *   submit_run.c  one submission: spec → dry run → objects, undone on failure
 *   log.c       messages to stderr or syslog (fs_log)
 *
 * Lock order: inode->lock, then the cache's read lock; the inode table's mutex and
 * the notifier queue's mutex are leaves. No FUSE notification is sent while any of
 * them is held, and never from a request handler (notify.c sends them all).
 */
#ifndef ARENAFS_FS_FS_INTERNAL_H
#define ARENAFS_FS_FS_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fs/fs.h"
#include "fs/inode.h"
#include "fs/log.h"
#include "fs/node.h"
#include "fs/places.h"
#include "k8s/objects.h"
#include "render/render.h"
#include "util/strbuf.h"

#define FS_LISTING_NS_MAX 64     /* namespaces whose jobs/ mtime is tracked */

struct fs_notifier;
struct log_memo_table;
struct logkeep;
struct logkeeper;
struct staging;

struct fs {
	struct fs_options opts;
	struct inode_table *inodes;
	struct k8s_client *client;
	struct k8s_cache *cache;
	const struct k8s_config *cfg;
	bool served[JOB_KIND_COUNT];
	const char *namespace;       /* the configured one: jobs/ */
	struct staging *staging;     /* submit/'s contents */
	struct fuse_session *se;
	struct fs_notifier *notifier;
	bool no_opendir;             /* the kernel opens directories itself (dirs.c) */
	struct log_memo_table *log_memo; /* what was read of each log (logfile.c) */
	struct logstream_registry *streams; /* the log streams open now */
	struct logkeep *keep;        /* kept logs (keep_logs), NULL when off */
	struct logkeeper *keeper;    /* the thread that keeps them */
	int64_t started;             /* mount time: mtime of the static places */
	uid_t uid;
	gid_t gid;

	/* When a listing last changed (mtime of jobs/, nodes/, namespaces/). */
	pthread_mutex_t listing_lock;
	struct {
		char ns[64];
		int64_t mtime;
	} jobs_mtime[FS_LISTING_NS_MAX];
	size_t n_jobs_mtime;
	int64_t nodes_mtime;
	int64_t namespaces_mtime;

	/* Open handles: the kernel sends no release for files still open when the
	 * daemon stops (SIGTERM with tail -f running), so fs_free frees them. */
	pthread_mutex_t handles_lock;
	struct fs_handle *handles;
};

int64_t fs_now(void);
int64_t fs_listing_mtime(struct fs *fs, enum fs_type type, const char *ns);
void fs_listing_touch(struct fs *fs, enum fs_type type, const char *ns, int64_t when);

/* ---- model.c (all under the cache's read lock) ---- */

/* The child of parent called name: 0 with *out filled (caller clears), -ENOENT. */
int model_lookup(struct fs *fs, const struct fs_node *parent, const char *name,
		 struct fs_node *out);
struct model_entry {
	char *name;
	struct fs_node node;
};
/* The entries of a directory, in listing order; *out malloc'd (model_free). */
int model_list(struct fs *fs, const struct fs_node *dir, struct model_entry **out, size_t *n);
void model_free(struct model_entry *e, size_t n);
/* Whether dir has a child called name now; takes the cache's read lock itself. */
bool model_has_child(struct fs *fs, const struct fs_node *dir, const char *name);
/* The `exists` of the places that come and go (places.c). */
bool model_job_has_tensorboard(struct fs *fs, const struct fs_node *job_dir);
bool model_pod_has_previous(struct fs *fs, const struct fs_node *pod_dir);
/* Whether a pod directory stands for a pod that is gone but whose log is kept (it then
 * holds only `logs`); *finished (may be NULL): when that container finished. */
bool model_pod_kept(struct fs *fs, const struct fs_node *pod_dir, int64_t *finished);
/* The job, pod or node a node stands for, when it still exists with its identity. */
const struct job *model_job(struct fs *fs, const struct fs_node *node);
const struct pod *model_pod(struct fs *fs, const struct fs_node *node);
const struct node *model_node(struct fs *fs, const struct fs_node *node);

/* ---- view.c (under the cache's read lock) ---- */

enum {
	VIEW_PODS = 1,
	VIEW_SERVICES = 2,
	VIEW_NODES = 4,
	VIEW_EVENTS = 8,
	VIEW_KEPT = 16,     /* the pods gone whose logs are kept (v.kept_pods) */
	VIEW_ALL = 31
};
struct fs_job_view {
	struct job_view v;
	const struct pod **pods;
	const struct service **services;
	const struct node **nodes;
	const struct event **events;
	struct logkeep_entry **kept;     /* VIEW_KEPT: what v.kept_pods points into */
	size_t n_kept;
	const char **kept_names;
};
int view_job(struct fs *fs, const struct job *job, unsigned want, struct fs_job_view *out);
void view_job_free(struct fs_job_view *jv);
/* One node_view per node (by name), each with its pods; *out malloc'd (view_nodes_free). */
int view_nodes(struct fs *fs, const struct node *only, struct node_view **out, size_t *n);
void view_nodes_free(struct node_view *v, size_t n);
/* The mtime of what a pod's files show: its latest transition. */
int64_t view_pod_mtime(const struct pod *p, int64_t now);

/* ---- content.c ---- */

/*
 * Makes a regular, non-log file's text current (re-rendering when the cache changed
 * since, or always for volatile files): its length, hash and mtime, and in->text
 * itself when it is small (CONTENT_KEEP_MAX). Sets *changed when the text differs
 * from the one before. Takes in->lock and the cache's read lock itself. -ENOENT
 * when the object is gone.
 */
#define CONTENT_KEEP_MAX 256
int content_refresh(struct fs *fs, struct fs_inode *in, bool *changed);
/*
 * The same with in->lock held by the caller; keep: in->text is set however large
 * (an open takes its snapshot). A kept text is only sure to be there until in->lock
 * is released: any other refresh (a getattr, the notifier) may drop a large one, so
 * an open takes its reference before unlocking.
 */
int content_refresh_locked(struct fs *fs, struct fs_inode *in, bool keep, bool *changed);
/* The attributes of in (refreshing its content first); 0 or -errno. */
int content_stat(struct fs *fs, struct fs_inode *in, struct stat *st);
/* Attributes from a node alone for types that need no content (directories). */
void content_stat_static(struct fs *fs, enum fs_type type, struct stat *st);
/* The attribute and entry timeouts of a node's replies. */
double content_attr_timeout(struct fs *fs, enum fs_type type);
double content_entry_timeout(struct fs *fs, enum fs_type type);
double content_negative_timeout(struct fs *fs, enum fs_type parent_type);

/* ---- logfile.c ---- */

/* Opens a log inode: starts or joins the stream of its container instance and waits
 * (log_wait_ms) for the first bytes, or for a finished container's whole log. A pending
 * container has no stream yet: the file is empty until it starts (logfile_poke). 0 or
 * -errno. */
int logfile_open(struct fs *fs, struct fs_inode *in);
ssize_t logfile_read(struct fs *fs, struct fs_inode *in, char *buf, size_t size, off_t off);
void logfile_release(struct fs *fs, struct fs_inode *in);
/* Size and mtime for getattr, from what was read of the log and from the cache; never
 * asks the cluster (the size is 0 until the log was read: logfile.c says why). */
void logfile_stat(struct fs *fs, struct fs_inode *in, uint64_t *size, int64_t *mtime);
/* The cache says the container may have started: attach a stream an open file waits for. */
void logfile_poke(struct fs *fs, struct fs_inode *in);
/* Called by the inode table when in is freed. */
void logfile_free(struct fs_inode *in);
/* What was read of each container's log, beyond its inodes' lives (fs_new, fs_free). */
int logfile_memo_new(struct log_memo_table **out);
void logfile_memo_free(struct log_memo_table *t);
/* Drops every stream (fs_stop). */
void logfile_stop_all(struct fs *fs);

/* ---- logkeeper.c ---- */

int logkeeper_new(struct fs *fs, struct logkeeper **out);
/* Starts the thread (fs->keep set): pods changed from now on are looked at. -errno. */
int logkeeper_start(struct logkeeper *kp);
/* A pod of a job changed (the cache's hook, any thread): look at it soon. */
void logkeeper_pod_changed(struct logkeeper *kp, const char *ns, const char *pod);
/* Stops the thread and drops its fetches (fs_stop: before the client and cache go). */
void logkeeper_stop(struct logkeeper *kp);
void logkeeper_free(struct logkeeper *kp);

/* ---- notify.c ---- */

int notify_new(struct fs *fs, struct fs_notifier **out);
void notify_start(struct fs_notifier *n, struct fuse_session *se);
void notify_stop(struct fs_notifier *n);
void notify_free(struct fs_notifier *n);
/* The cache's on_change (any thread; copies what it needs). */
void notify_cache_change(void *arg, const struct cache_change *change);
/* A log inode grew: tell the kernel its attributes changed (coalesced). */
void notify_log_grew(struct fs_notifier *n, struct fs_inode *in);
/* The inode table passed its limit (inode_table_set_limit's over): evict soon. */
void notify_inodes_over(void *notifier);
/* Blocks until every log-growth notice queued so far for in was sent, or timeout_ms. */
void notify_wait_log(struct fs_notifier *n, struct fs_inode *in, int timeout_ms);

/* ---- dirs.c ---- */

void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi);
void dirs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi);
void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* Frees the listing a directory's inode kept (the inode is being freed). */
void dirs_inode_free(struct fs_inode *in);

/* ---- submit_run.c (blocking: on a FUSE worker, never under a lock) ---- */

#define SUBMIT_CACHE_WAIT_MS 3000    /* a made or deleted job shows in the tree before the reply */

/* Parses, validates, dry-runs and creates the objects of a spec; nothing is left
 * behind on failure. 0 or -errno with err's message for the submission's `error`. */
int submit_run(struct fs *fs, const char *text, size_t len, const char *default_name,
	       struct k8s_error *err);
/* Waits until the cache has (present) or no longer has the job (of that uid, when not
 * NULL), at most timeout_ms; whether it came to be. */
bool submit_wait_job(struct fs *fs, const char *ns, int kind, const char *name, const char *uid,
		     bool present, int timeout_ms);

/* ---- ops.c ---- */

/* What fi->fh points to, for every open file (submit/'s too, see submit.h). */
struct fs_handle {
	struct fs_inode *in;         /* pinned while open */
	struct fs_text *text;        /* regular files: the snapshot read from */
	bool log;                    /* a log file (logfile.c) */
	bool cached;                 /* reads go through the page cache (counted in
	                                in->cached_opens) */
	struct fs_handle *prev, *next; /* fs->handles: what a stop frees if no release came */
	void *priv;                  /* submit.c's own state */
};

/* A zeroed handle for in (not pinned here), listed in fs->handles; NULL on ENOMEM. */
struct fs_handle *fs_handle_new(struct fs *fs, struct fs_inode *in);
/* Unlists h, drops its text and frees it (the caller puts h->in first). */
void fs_handle_free(struct fs *fs, struct fs_handle *h);

/* Fills a fuse_entry_param for in (pinned) after a successful lookup. */
int ops_fill_entry(struct fs *fs, struct fs_inode *in, struct fuse_entry_param *e);

#endif
