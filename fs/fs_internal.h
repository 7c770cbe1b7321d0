/*
 * What the files of fs/ share and mount/ does not see:
 *
 *   fs.c        struct fs: creation, options, the cache hook, shutdown
 *   inode.c     the inode table (inode.h)
 *   naming.c    job directory names and order (naming.h)
 *   places.c    the table of the tree's places (places.h)
 *   model.c     the path model: (parent node, name) → child node; listings
 *   view.c      gathering a job's, the jobs' or a node's objects from the cache for render/
 *   content.c   a node's text and attributes; snapshots for open handles
 *   logfile.c   log files: follow streams per inode, sizes, waiting reads
 *   logkeep.c   kept logs: copies on disk of terminated containers' logs (logkeep.h)
 *   logkeeper.c the keeper thread: fetches each terminated container's log once
 *   notify.c    the notifier thread: cache changes and log appends → kernel
 *   ops.c       the FUSE low-level operations
 *   dirs.c      opendir snapshots, readdir and readdirplus
 *   staging.c   a submit/'s in-memory files and outcomes (staging.h)
 *   areas.c     the staging tree of each namespace's submit/
 *   access.c    may these credentials create jobs in a namespace (asked, then kept)
 *   submit.c    the FUSE operations of submit/ and rmdir of jobs/NAME (submit.h)
 *   submit_run.c  one submission: spec → dry run → objects, undone on failure
 *   submit_defer.c  directory entries: made once their copy is over (one thread)
 *   codeindex.c the arenafs.io/code annotation → the files of code/ (codeindex.h, pure)
 *   codetree.c  the path model of jobs/NAME/code/, from the annotation alone
 *   codefetch.c code/'s bytes: the job's ConfigMap, fetched once and kept
 *   log.c       messages to stderr or syslog (fs_log)
 *
 * Lock order: inode_lock, then the cache's read lock; the inode table's mutex, the
 * notifier queue's mutex and code/'s two (codetree.c's memo, codefetch.c's store)
 * are leaves. No FUSE notification is sent while any of
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

struct code_store;
struct codetree_memo;
struct fs_notifier;
struct access_cache;
struct log_memo_table;
struct logkeep;
struct logkeeper;
struct staging;
struct submit_defer;
struct submit_areas;

struct fs {
	struct fs_options opts;
	struct inode_table *inodes;
	struct k8s_client *client;
	struct k8s_cache *cache;
	const struct k8s_config *cfg;
	bool served[JOB_KIND_COUNT];
	const char *namespace;       /* the configured one: jobs/, submit/ */
	struct submit_areas *areas;  /* the contents of submit/ and namespaces/NS/submit/ */
	struct access_cache *access; /* who may create jobs where (access.c) */
	struct submit_defer *defer;  /* directory entries waiting for their copy's end */
	struct fuse_session *se;
	struct fs_notifier *notifier;
	bool no_opendir;             /* the kernel opens directories itself (dirs.c) */
	struct log_memo_table *log_memo; /* what was read of each log (logfile.c) */
	struct logstream_registry *streams; /* the log streams open now */
	struct codetree_memo *code_memo;  /* parsed code annotations (codetree.c) */
	struct code_store *code_store;    /* code/'s bytes kept (codefetch.c) */
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
/* When a listing last changed; FS_JOBS_DIR with ns NULL: the latest of every namespace's. */
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
/* Which of dir's names that come and go exist now (bits as place_optional_mask);
 * takes the cache's read lock itself. */
unsigned model_extras(struct fs *fs, const struct fs_node *dir);
/* The `exists` of the places that come and go (places.c). */
bool model_job_has_code(struct fs *fs, const struct fs_node *job_dir);
bool model_job_has_tensorboard(struct fs *fs, const struct fs_node *job_dir);
bool model_pod_has_previous(struct fs *fs, const struct fs_node *pod_dir);
/* Whether a pod directory stands for a pod that is gone but whose log is kept (it then
 * holds only `logs`); *finished (may be NULL): when that container finished. */
bool model_pod_kept(struct fs *fs, const struct fs_node *pod_dir, int64_t *finished);
/* The job, pod or node a node stands for, when it still exists with its identity. */
const struct job *model_job(struct fs *fs, const struct fs_node *node);
const struct pod *model_pod(struct fs *fs, const struct fs_node *node);
const struct node *model_node(struct fs *fs, const struct fs_node *node);

/* ---- codetree.c (under the cache's read lock, but the memo's life) ---- */

int codetree_memo_new(struct codetree_memo **out);
void codetree_memo_free(struct codetree_memo *m);
/* Whether a job (its directory's node) has code/: an annotation that parses. */
bool codetree_has_code(struct fs *fs, const struct fs_node *job_dir);
/* The child of code/ or of a directory below it called name; 0 or -ENOENT, -ENOMEM. */
int codetree_lookup(struct fs *fs, const struct fs_node *dir, const char *name,
		    struct fs_node *out);
/* A directory of code/ (code/ itself too), by name; *out as model_list's. */
int codetree_list(struct fs *fs, const struct fs_node *dir, struct model_entry **out, size_t *n);
/* Whether a directory of code/ (code/ itself too) still is one. */
bool codetree_dir_exists(struct fs *fs, const struct fs_node *dir);
/* What a file of code/ is, from the annotation, with where its bytes are. */
struct codetree_file {
	char ns[256];
	char job[256];
	char uid[128];
	char configmap[256];
	char key[256];
	uint64_t size;
	unsigned perm;               /* st_mode's permission bits (code_file_perm) */
	int64_t mtime;               /* the job's creation: the code never changes */
};
/* 0, or -ENOENT when the job or the file is gone or the node shows another version
 * of it (its identity). */
int codetree_file(struct fs *fs, const struct fs_node *node, struct codetree_file *out);
/* A directory of code/: the job's creation, or -ENOENT. */
int codetree_dir_mtime(struct fs *fs, const struct fs_node *dir, int64_t *mtime);

/* ---- codefetch.c (blocking: at open, never under a lock) ---- */

int codefetch_new(struct code_store **out);
void codefetch_free(struct code_store *s);
/* The bytes of a file of code/, a reference (fs_text_put). 0; -ENODATA (the ConfigMap
 * is gone), -EACCES, -ETIMEDOUT, -EIO (unreachable, not this job's, or unlike the
 * annotation: never other bytes than its size), -ENOMEM. */
int codefetch_text(struct fs *fs, const struct codetree_file *f, struct fs_text **out);

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
	struct logs_kept_state keep;     /* what v.keep points to, when keeping fails */
};
int view_job(struct fs *fs, const struct job *job, unsigned want, struct fs_job_view *out);
void view_job_free(struct fs_job_view *jv);
/* Every job of ns (NULL: of every namespace the tree shows) whose kind is served, each
 * with its pods and one now; *out malloc'd (view_jobs_free). */
int view_jobs(struct fs *fs, const char *ns, struct job_view **out, size_t *n);
void view_jobs_free(struct job_view *v, size_t n);
/* One node_view per node (by name), each with its pods; *out malloc'd (view_nodes_free). */
int view_nodes(struct fs *fs, const struct node *only, struct node_view **out, size_t *n);
void view_nodes_free(struct node_view *v, size_t n);
/* The mtime of what a pod's files show: its latest transition. */
int64_t view_pod_mtime(const struct pod *p, int64_t now);

/* ---- content.c ---- */

/*
 * Makes a regular, non-log file's text current (re-rendering when the cache changed
 * since, or always for volatile files): its length, hash and mtime, and in->text
 * itself when it is small (CONTENT_KEEP_MAX; a larger one is kept for an open, and
 * a job's, pod's or node's leaves at its close, ops.c). Sets *changed when the text differs
 * from the one before. Takes inode_lock(in) and the cache's read lock itself. -ENOENT
 * when the object is gone.
 */
#define CONTENT_KEEP_MAX 256
int content_refresh(struct fs *fs, struct fs_inode *in, bool *changed);
/*
 * The same with inode_lock(in) held by the caller; keep: in->text is set however large
 * (an open takes its snapshot). A kept text is only sure to be there until inode_lock(in)
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

/* ---- areas.c ---- */

int areas_new(struct submit_areas **out);
void areas_free(struct submit_areas *a);
/*
 * The staging tree of namespace ns' submit/ (submit/ itself for the mount's
 * namespace, else namespaces/NS/submit/). NULL when it has none yet and !create,
 * or on ENOMEM. A tree lives until the unmount: the kernel's inodes name its nodes.
 */
struct staging *areas_get(struct submit_areas *a, const char *ns, bool create);

/* ---- access.c (blocking: on a FUSE worker, never under a lock) ---- */

#define ACCESS_WHY_MAX 512

int access_new(struct access_cache **out);
void access_free(struct access_cache *c);
/* 0 when the credentials may create jobs in ns (or that cannot be told now), else
 * -EACCES with why filled (one line, for namespaces/NS/submit/error). Kept a while. */
int access_create_jobs(struct fs *fs, const char *ns, char *why, size_t size);
/* Asks again next time (a submission in ns was refused with 403). */
void access_forget(struct fs *fs, const char *ns);

/* ---- submit_run.c (blocking: on a FUSE worker, never under a lock) ---- */

#define SUBMIT_CACHE_WAIT_MS 3000    /* a made or deleted job shows in the tree before the reply */

struct staging_code;

/* The job a submission made, for submit/NAME/status to follow it. */
struct submit_made {
	char ns[64];
	int kind; /* enum job_kind */
	char name[64];
	char uid[64];
};

struct submit_request {
	const char *ns;                   /* where to create; NULL: the mount's namespace */
	const char *text;                 /* the spec */
	size_t len;
	const char *default_name;         /* the staging entry's name */
	bool check_only;                  /* parse, validate and dry-run: nothing is made */
	const struct staging_code *code;  /* local code to ship with it, or NULL */
	struct submit_made *made;         /* when not NULL: which job was made */
};

/* Parses, validates, dry-runs and creates the objects of a spec; nothing is left
 * behind on failure. 0 or -errno with err's message for the submission's `error`;
 * on success rq->made (when not NULL) says which job was made. */
int submit_run(struct fs *fs, const struct submit_request *rq, struct k8s_error *err);
/* "submit/" or "namespaces/NS/submit/": where namespace ns' submissions go, for the log. */
void submit_area_path(struct fs *fs, const char *ns, char *buf, size_t size);
/* Lets submit/ENTRY/status of st follow the job a submission made (submit.c). */
void submit_note_made(struct fs *fs, struct staging *st, const char *entry,
		      const struct submit_made *made);

/* ---- submit_defer.c ---- */

struct staging_submission;

int submit_defer_new(struct fs *fs, struct submit_defer **out);
/* Queues a checked submission of a directory entry (sub is taken over and cleared),
 * to be made in namespace ns (NULL: the mount's) once the entry is quiet. */
int submit_defer_add(struct submit_defer *d, const char *ns, struct staging_submission *sub);
#define SUBMIT_DEFER_WAIT_MS 10000 /* a lookup of jobs/NAME waiting for NAME's copy to end */

/* Waits, at most timeout_ms, while the job NAME of namespace ns waits to be made;
 * whether it waited. */
bool submit_defer_wait(struct submit_defer *d, const char *ns, const char *name,
		       int timeout_ms);
/* Stops the thread; what still waits is dropped (logged), nothing made. */
void submit_defer_stop(struct submit_defer *d);
void submit_defer_free(struct submit_defer *d);

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
