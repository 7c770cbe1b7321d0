/*
 * fs/: the tree of docs/tree.md on libfuse's low-level API. mount/ creates one
 * struct fs, hands its change hook to cache_start(), attaches the cache, and runs
 * a FUSE session with fs_lowlevel_ops() and the fs as userdata.
 *
 * Order of use (mount/main.c):
 *   fs_new → fs_cache_hook (into cache_options) → cache_start → fs_attach →
 *   fuse_session_new(fs_lowlevel_ops(), fs) → fs_set_session → mount → loop →
 *   fs_stop → unmount → fuse_session_destroy → cache_stop → fs_free.
 * The notifier thread starts in the FUSE init callback (after any daemonizing
 * fork) and stops in fs_stop.
 */
#ifndef ARENAFS_FS_FS_H
#define ARENAFS_FS_FS_H

#define FUSE_USE_VERSION 314

#include <stdbool.h>
#include <stdint.h>

#include <fuse_lowlevel.h>

#include "k8s/cache/cache.h"
#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/objects/kinds.h"

/* Defaults of struct fs_options (the man page docs/arenafs.1 documents them). */
/* The notifier tells the kernel of every change as it happens; these are its
 * safety net. Once they expire, a file read again costs a LOOKUP and a GETATTR
 * more: reading the status of 10,000 jobs twice a few seconds apart made 58k
 * requests the second time with 1 s, 20k with 30 s. */
#define FS_ATTR_TIMEOUT_DEFAULT 30.0     /* files */
#define FS_ENTRY_TIMEOUT_DEFAULT 30.0    /* names that come and go: jobs, pods, nodes */
#define FS_AGES_TIMEOUT 1.0              /* attributes of files that show ages: they change
                                            with the clock alone, which no notice tells */
#define FS_NEGATIVE_TIMEOUT 1.0          /* a name that may appear (tensorboard_url) */
#define FS_STATIC_TIMEOUT_DEFAULT 60.0   /* the fixed skeleton: README, cluster/, jobs/, ... */
#define FS_LOG_WAIT_MS_DEFAULT 2000      /* open() of a log waits this long for its first bytes */
#define FS_MAX_INODES_DEFAULT 32768      /* inodes kept for the kernel beyond those in use (inode.h) */
/* Bytes of terminated containers' logs kept on disk (docs/tree.md, "Logs kept after
 * their pods"): a few hundred training logs of a MiB, a small part of a disk. */
#define FS_KEEP_LOGS_DEFAULT (256ull << 20)

struct fs_options {
	double attr_timeout;
	double entry_timeout;
	double static_timeout;
	int log_wait_ms;
	size_t max_inodes;           /* 0: no limit */
	bool readonly;               /* no submitting or deleting: EROFS */
	bool allow_other;            /* then only the mounting uid may change anything */
	uint64_t keep_logs;          /* bytes of logs kept on disk; 0: none kept */
	const char *keep_dir;        /* where (…/arenafs/logs); NULL: none kept */
};

struct fs;

void fs_options_default(struct fs_options *o);

int fs_new(const struct fs_options *opts, struct fs **out);
/* Sets co->on_change and co->arg so that cache changes reach the notifier. */
void fs_cache_hook(struct fs *fs, struct cache_options *co);
/* The cluster the tree shows; all must outlive the fs. */
void fs_attach(struct fs *fs, struct k8s_client *client, struct k8s_cache *cache,
	       const struct k8s_config *cfg, const bool served[JOB_KIND_COUNT]);

const struct fuse_lowlevel_ops *fs_lowlevel_ops(void);
void fs_set_session(struct fs *fs, struct fuse_session *se);

/* After the session loop returned, before unmounting: stops the notifier and
 * closes every log stream, so the cache and client can be freed next. */
void fs_stop(struct fs *fs);
void fs_free(struct fs *fs);

#endif
