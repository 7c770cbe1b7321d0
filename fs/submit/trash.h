/*
 * The trash at the mount's top, `.Trash-UID/` (docs/tree.md, "The trash"): the
 * freedesktop.org trash that JupyterLab's Delete (send2trash) and a GIO file
 * manager's Delete key use on a mount, made by them (mkdir) and then served here.
 * Its `files/` holds deleted jobs: renaming `jobs/NAME` there deletes the job as
 * `rmdir jobs/NAME` does (submit_delete_job) and keeps its spec; renaming it back
 * resubmits that spec (submit_run). Its `info/` keeps, in memory, the `.trashinfo`
 * files the trashers write. Everything else there is refused with an errno that
 * says why, and nothing is left half-made.
 *
 * The operations answer the request themselves, as submit.h's do; ops.c and dirs.c
 * call them for the trash's inodes (fs_type_is_trash) and for `.Trash-UID` at the
 * root, after refusing what may not be changed (readonly: EROFS; another user than
 * the mounting one: EACCES). The renames are trash_moves.h's. Everything is
 * answered with zero timeouts: the kernel asks again each time.
 *
 * Tested by tests/integration/test_tree_trash.py (send2trash, gio trash, restore,
 * emptying) and test_jupyterlab.py (JupyterLab's default Delete); the store by
 * tests/unit/test_fs_trashstore.c.
 */
#ifndef ARENAFS_FS_SUBMIT_TRASH_H
#define ARENAFS_FS_SUBMIT_TRASH_H

#include <stdbool.h>
#include <sys/stat.h>

#include "fs/base/fs_struct.h"
#include "fs/base/fuse.h"
#include "fs/base/inode.h"

/* Is name `.Trash-UID` at the root, and is it there now (made)? */
bool trash_is_name(struct fs *fs, const char *name);
bool trash_made(struct fs *fs);

/* parent: the root (name `.Trash-UID`) or a trash directory; in: a trash inode. */
void trash_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
void trash_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in);
void trash_setattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *attr,
		   int to_set);
/* The entries of a trash directory, for opendir's snapshot (dirs.c). */
int trash_list(struct fs *fs, struct fs_inode *dir, struct fs_entry **out, size_t *n);
void trash_mkdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
void trash_create(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  struct fuse_file_info *fi);
void trash_open(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi);
void trash_read(struct fs *fs, fuse_req_t req, struct fs_inode *in, size_t size, off_t off);
void trash_write(struct fs *fs, fuse_req_t req, struct fs_inode *in, const char *buf,
		 size_t size, off_t off);
/* Frees the handle of fi and its pin of the inode. */
void trash_release(struct fs *fs, fuse_req_t req, struct fuse_file_info *fi);
/* unlink (dir false) or rmdir of parent/name. */
void trash_remove(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  bool dir);
#endif
