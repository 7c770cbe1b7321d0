/*
 * struct fs: one mount's state, shared by every sub-room of fs/ (tree/, logs/,
 * code/, submit/ and the operations at fs/'s root). Each sub-room's own state
 * hangs off it as an opaque pointer, made and freed by fs.c; its fields are
 * read, never reassigned, after fs_attach(). mount/ sees only fs.h.
 *
 * The rooms below the tree (logs/, code/) never include the tree: what they ask
 * of the path model, the views and the notifier goes through `up`, which fs.c
 * fills in fs_new() (docs/architecture.md, "The house").
 *
 * Locks, written on each field below as "guarded by" (libfuse's passthrough_hp
 * style): most fields are set by fs_new()/fs_attach() before the session runs and
 * only read after ("set once"), so they need no lock. listing_lock guards the
 * listing mtimes (tree/listing.c), handles_lock the handle list (handles.c); both
 * are leaves: take no lock while holding one. They may be taken under the cache's
 * read lock and under an inode's lock (docs/architecture.md, "Locks, and their
 * order"). The sub-rooms' objects (areas, defer, notifier, ...) lock themselves:
 * their own headers say how.
 */
#ifndef ARENAFS_FS_BASE_FS_STRUCT_H
#define ARENAFS_FS_BASE_FS_STRUCT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fs/base/node.h"
#include "fs/base/options.h"
#include "k8s/objects/kinds.h"

#define FS_LISTING_NS_MAX 64     /* namespaces whose jobs/ mtime is tracked */

struct access_cache;
struct cache_change;
struct code_store;
struct codetree_memo;
struct fs;
struct fs_handle;
struct fs_inode;
struct fs_notifier;
struct fuse_session;
struct job;
struct k8s_cache;
struct k8s_client;
struct k8s_config;
struct log_memo_table;
struct logkeep;
struct logkeeper;
struct runtimes_poller;
struct gpu_metrics_keeper;
struct logstream_registry;
struct pod;
struct submit_areas;
struct submit_defer;
struct fs_deletes;
struct trashstore;
struct netpool;
struct notes;

/* The tree's answers the rooms below it need, each under the cache's read lock. */
struct fs_upcalls {
	/* The job a node stands for, when it still exists with its identity (model_job). */
	const struct job *(*job)(struct fs *fs, const struct fs_node *node);
	/* The main pod of a job (render_job_main_pod over its view), or NULL. */
	const struct pod *(*job_main_pod)(struct fs *fs, const struct job *job);
	/* A finished job without pods: its log is gone with them (view.c). */
	bool (*job_ended_without_pods)(struct fs *fs, const struct job *job);
	/* The notifier: a log inode grew; wait until what was told of it is sent;
	 * a cache change to act on as if the cache had made it. Any thread, no lock. */
	void (*log_grew)(struct fs *fs, struct fs_inode *in);
	void (*log_wait)(struct fs *fs, struct fs_inode *in, int timeout_ms);
	void (*changed)(struct fs *fs, const struct cache_change *change);
	/* The notifier: the kernel's entry parent/name no longer stands for the inode it
	 * holds (a job's folder moved into the trash): it looks again, after the request.
	 * Any thread, no lock. */
	void (*name_gone)(struct fs *fs, uint64_t parent, const char *name);
};

struct fs {
	/* Set once, before the session runs (fs_new, fs_attach); read by any thread. */
	struct fs_options opts;
	struct inode_table *inodes;  /* locks itself (inode.h) */
	struct k8s_client *client;
	struct k8s_cache *cache;
	const struct k8s_config *cfg;
	bool served[JOB_KIND_COUNT];
	const char *namespace;       /* the configured one: jobs/, submit/ */
	struct submit_areas *areas;  /* the contents of submit/ and namespaces/NS/submit/ */
	struct submit_areas *check_areas; /* check/ and namespaces/NS/check/: dry runs only */
	struct access_cache *access; /* who may create jobs where (access.c) */
	struct submit_defer *defer;  /* directory entries waiting for their copy's end */
	struct fs_deletes *deletes;  /* rmdir's DELETEs under way, and those that failed late */
	struct notes *suspends;      /* the last refused write of each job's suspend */
	struct trashstore *trash;    /* .Trash-UID/: the deleted jobs kept (trashstore.h) */
	char trash_name[32];         /* ".Trash-UID", UID the mount's owner's */
	struct netpool *netpool;     /* the threads requests wait for the cluster on (netops.h) */
	struct fuse_session *se;     /* set once by fs_attach, before init */
	struct fs_notifier *notifier;
	/* Set once in the session's init (ops.c), which the kernel answers before it
	 * sends any request that reads it. */
	bool no_opendir;             /* the kernel opens directories itself (dirs.c) */
	struct log_memo_table *log_memo; /* what was read of each log (logfile.c) */
	struct logstream_registry *streams; /* the log streams open now */
	struct codetree_memo *code_memo;  /* parsed code annotations (codetree.c) */
	struct code_store *code_store;    /* code/'s bytes kept (codefetch.c) */
	struct logkeep *kept_logs;   /* kept logs (keep_logs), NULL when off */
	struct logkeeper *keeper;    /* the thread that keeps them */
	struct runtimes_poller *runtimes; /* the file runtimes: Trainer's, polled */
	struct gpu_metrics_keeper *gpu_metrics; /* Prometheus's GPU figures, asked when read */
	int64_t started;             /* mount time: mtime of the static places */
	uid_t uid;
	gid_t gid;

	/* When a listing last changed (mtime of jobs/, nodes/, namespaces/): written by
	 * the reflectors' change hook (notify_cache_change), read by FUSE workers. */
	pthread_mutex_t listing_lock;      /* a leaf */
	struct {
		char ns[64];
		int64_t mtime;
	} jobs_mtime[FS_LISTING_NS_MAX];   /* guarded by listing_lock */
	size_t n_jobs_mtime;               /* guarded by listing_lock; <= FS_LISTING_NS_MAX */
	int64_t nodes_mtime;               /* guarded by listing_lock */
	int64_t namespaces_mtime;          /* guarded by listing_lock */

	/* Open handles: the kernel sends no release for files still open when the
	 * daemon stops (SIGTERM with tail -f running), so fs_free frees them. */
	pthread_mutex_t handles_lock;      /* a leaf */
	struct fs_handle *handles;         /* guarded by handles_lock (but in fs_free, alone) */

	/* What the sub-rooms below the tree call back into it for (fs.c wires them):
	 * set once in fs_new. */
	struct fs_upcalls up;
};

#endif
