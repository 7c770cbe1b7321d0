/*
 * When a listing last changed (listing.c): the mtime of jobs/, nodes/ and
 * namespaces/, touched by the notifier, read by content.c. Under struct fs's
 * listing_lock (a leaf).
 */
#ifndef ARENAFS_FS_TREE_LISTING_H
#define ARENAFS_FS_TREE_LISTING_H

#include <stdint.h>
#include "fs/base/fs_struct.h"
#include "fs/base/node.h"

/* When a listing last changed; FS_JOBS_DIR with ns NULL: the latest of every namespace's. */
int64_t fs_listing_mtime(struct fs *fs, enum fs_type type, const char *ns);
void fs_listing_touch(struct fs *fs, enum fs_type type, const char *ns, int64_t when);

#endif
