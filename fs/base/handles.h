/*
 * Open files' handles (handles.c): what fi->fh points to, listed in struct fs so
 * that fs_free frees those the kernel never released. Used by ops.c and submit.c.
 * Lock: fs->handles_lock (a leaf).
 */
#ifndef ARENAFS_FS_BASE_HANDLES_H
#define ARENAFS_FS_BASE_HANDLES_H

#include <stdbool.h>
#include "fs/base/fs_struct.h"
#include "fs/base/inode.h"

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


#endif
