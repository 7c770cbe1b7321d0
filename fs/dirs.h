/*
 * Directory operations (dirs.c): opendir snapshots, readdir and readdirplus.
 * Called through fs_lowlevel_ops() (ops.c) and by fs.c when an inode is freed.
 */
#ifndef ARENAFS_FS_DIRS_H
#define ARENAFS_FS_DIRS_H

#include "fs/base/fuse.h"
#include "fs/base/inode.h"

void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi);
void dirs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi);
void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* Frees the listing a directory's inode kept (the inode is being freed). */
void dirs_inode_free(struct fs_inode *in);

#endif
