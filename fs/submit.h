/*
 * The seam where submitting (issue 5) plugs into the tree: submit/ and everything
 * below it, and rmdir of jobs/NAME (arena delete), are served by these
 * operations when fs_set_submit_ops() installed them. Until then the tree is
 * read-only: every write answers EROFS, and submit/ is an empty directory.
 *
 * Each operation gets the request and answers it itself, as a libfuse low-level
 * operation does; the inodes passed in are pinned for the call. The submit code
 * makes its inodes with inode_table_child() (types FS_SUBMIT_SUBDIR and
 * FS_SUBMIT_FILE, below the FS_SUBMIT_DIR inode) and replies entries with ops_fill_entry()-like attributes
 * of its own. ops.c has already refused writes in readonly mode (EROFS) and, with
 * allow_other, writes by other users than the mounting one (EACCES).
 *
 * Files the submit operations open must set fi->fh to a struct fs_handle
 * (fs_internal.h) whose `in` is the pinned inode (state of their own in `priv`):
 * read, write, flush and release are routed by that inode's type; their release
 * frees the handle and puts the inode.
 *
 * A NULL operation answers as the read-only tree does (ENOENT for lookups,
 * EROFS for writes).
 */
#ifndef ARENAFS_FS_SUBMIT_H
#define ARENAFS_FS_SUBMIT_H

#include "fs/fs_internal.h"

struct fs_submit_ops {
	/* parent: FS_SUBMIT_DIR or FS_SUBMIT_SUBDIR; in: any submit type */
	void (*lookup)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
	void (*getattr)(struct fs *fs, fuse_req_t req, struct fs_inode *in);
	void (*setattr)(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *attr,
			int to_set, struct fuse_file_info *fi);
	/* The entries of a directory of submit/, for opendir's snapshot (dirs.c). */
	int (*list)(struct fs *fs, struct fs_inode *dir, struct model_entry **out, size_t *n);
	void (*mkdir)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		      mode_t mode);
	void (*create)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi);
	void (*open)(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi);
	void (*read)(struct fs *fs, fuse_req_t req, struct fs_inode *in, size_t size, off_t off,
		     struct fuse_file_info *fi);
	void (*write)(struct fs *fs, fuse_req_t req, struct fs_inode *in, const char *buf,
		      size_t size, off_t off, struct fuse_file_info *fi);
	void (*flush)(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi);
	void (*release)(struct fs *fs, fuse_req_t req, struct fs_inode *in,
			struct fuse_file_info *fi);
	void (*unlink)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
	void (*rmdir)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
	void (*rename)(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		       struct fs_inode *newparent, const char *newname, unsigned int flags);
	/* rmdir jobs/NAME (or namespaces/NS/jobs/NAME): job is the FS_JOB_DIR inode. */
	void (*rmdir_job)(struct fs *fs, fuse_req_t req, struct fs_inode *jobs_dir,
			  struct fs_inode *job);
};

static inline bool fs_type_is_submit(enum fs_type t)
{
	return t == FS_SUBMIT_DIR || t == FS_SUBMIT_SUBDIR || t == FS_SUBMIT_FILE;
}

#endif
