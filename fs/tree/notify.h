/*
 * The notifier thread (notify.c): cache changes and log growth -> the kernel's
 * notifications, the eviction of inodes beyond the limit. Made, started and stopped
 * by fs.c and ops.c's init; the rooms below the tree reach it through `up`.
 */
#ifndef ARENAFS_FS_TREE_NOTIFY_H
#define ARENAFS_FS_TREE_NOTIFY_H

#include "fs/base/fs_struct.h"
#include "fs/base/fuse.h"
#include "fs/base/inode.h"
#include "k8s/cache/cache.h"

int notify_new(struct fs *fs, struct fs_notifier **out);
void notify_start(struct fs_notifier *n, struct fuse_session *se);
void notify_stop(struct fs_notifier *n);
void notify_free(struct fs_notifier *n);
/* The cache's on_change (any thread; copies what it needs). */
void notify_cache_change(void *arg, const struct cache_change *change);
/* A log inode grew: tell the kernel its attributes changed (coalesced). */
void notify_log_grew(struct fs_notifier *n, struct fs_inode *in);
/* The kernel's entry parent/name stands for an inode that is no longer there: it is
 * told to look again (inval_entry), by the thread, after the request that moved it. */
void notify_name_gone(struct fs_notifier *n, uint64_t parent, const char *name);
/* The inode table passed its limit (inode_table_set_limit's over): evict soon. */
void notify_inodes_over(void *notifier);
/* Blocks until every log-growth notice queued so far for in was sent, or timeout_ms. */
void notify_wait_log(struct fs_notifier *n, struct fs_inode *in, int timeout_ms);

#endif
