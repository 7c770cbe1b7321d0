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

#include <stdbool.h>
#include <stdint.h>

#include "fs/base/fuse.h"
#include "fs/base/options.h"
#include "k8s/cache/cache.h"
#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/objects/kinds.h"

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
