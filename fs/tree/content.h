/*
 * A node's text and attributes (content.c): rendering through the row of its
 * place, snapshots for open handles, the kernel's timeouts, lookup entries.
 */
#ifndef ARENAFS_FS_TREE_CONTENT_H
#define ARENAFS_FS_TREE_CONTENT_H

#include <stdbool.h>
#include <sys/stat.h>
#include "fs/base/fs_struct.h"
#include "fs/base/fuse.h"
#include "fs/base/inode.h"
#include "fs/base/node.h"

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
 * The same with inode_lock(in) held by the caller; hold: in->text is set however large
 * (an open takes its snapshot). A held text is only sure to be there until inode_lock(in)
 * is released: any other refresh (a getattr, the notifier) may drop a large one, so
 * an open takes its reference before unlocking.
 */
int content_refresh_locked(struct fs *fs, struct fs_inode *in, bool hold, bool *changed);
/*
 * The text a read at off of a PLACE_GROWS file's handle gets, referenced (the caller
 * puts it): the latest, rendered now, when it extends the handle's text *held or
 * the read is at 0 (tail reading anew after "file truncated"), which then becomes
 * the handle's; else *held, so that a reader midway through sees one version. Takes
 * inode_lock(in), which also guards *held's swap against a read beside it.
 */
struct fs_text *content_follow(struct fs *fs, struct fs_inode *in, struct fs_text **held,
			       off_t off);
/* The attributes of in (refreshing its content first); 0 or -errno. */
int content_stat(struct fs *fs, struct fs_inode *in, struct stat *st);
/* Attributes from a node alone for types that need no content (directories). */
void content_stat_static(struct fs *fs, enum fs_type type, struct stat *st);
/* The attribute and entry timeouts of a node's replies. */
double content_attr_timeout(struct fs *fs, enum fs_type type);
double content_negative_timeout(struct fs *fs, enum fs_type parent_type);

/* Fills a fuse_entry_param for in (pinned) after a successful lookup: its attributes,
 * timeouts and which of its names that come and go are there (ops.c, dirs.c). */
int content_fill_entry(struct fs *fs, struct fs_inode *in, struct fuse_entry_param *e);

#endif
