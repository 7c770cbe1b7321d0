/*
 * FUSE requests handed to the network threads (netops.c over fs/base/netpool.h):
 * each function copies what the request's arguments point to (the name, the
 * written bytes, the file info) and runs the operation fn again with the copies
 * on a thread of fs->netpool, which answers the request. 0 when handed over;
 * -errno when it could not be (out of memory, the pool stopping): the caller then
 * goes on and answers on its own thread, as before there was a pool.
 *
 * An operation hands itself over, before it has changed or answered anything,
 * when it is about to wait for the cluster (ops.c says which do); on the pool
 * (netpool_on_pool) it never hands itself over again. Called by ops.c.
 */
#ifndef ARENAFS_FS_NETOPS_H
#define ARENAFS_FS_NETOPS_H

#include "fs/base/fuse.h"
#include "fs/base/fs_struct.h"

typedef void (*netops_name_fn)(fuse_req_t, fuse_ino_t, const char *);
typedef void (*netops_file_fn)(fuse_req_t, fuse_ino_t, struct fuse_file_info *);
typedef void (*netops_setattr_fn)(fuse_req_t, fuse_ino_t, struct stat *, int,
                                  struct fuse_file_info *);
typedef void (*netops_write_fn)(fuse_req_t, fuse_ino_t, const char *, size_t, off_t,
                                struct fuse_file_info *);
typedef void (*netops_read_fn)(fuse_req_t, fuse_ino_t, size_t, off_t, struct fuse_file_info *);
typedef void (*netops_create_fn)(fuse_req_t, fuse_ino_t, const char *, mode_t,
                                 struct fuse_file_info *);
typedef void (*netops_mkdir_fn)(fuse_req_t, fuse_ino_t, const char *, mode_t);
typedef void (*netops_rename_fn)(fuse_req_t, fuse_ino_t, const char *, fuse_ino_t, const char *,
                                 unsigned int);

/* lookup, unlink, rmdir */
int netops_name(struct fs *fs, netops_name_fn fn, fuse_req_t req, fuse_ino_t parent,
                const char *name);
/* getattr, open, flush, release (fi may be NULL for getattr) */
int netops_file(struct fs *fs, netops_file_fn fn, fuse_req_t req, fuse_ino_t ino,
                struct fuse_file_info *fi);
int netops_setattr(struct fs *fs, netops_setattr_fn fn, fuse_req_t req, fuse_ino_t ino,
                   const struct stat *attr, int to_set, struct fuse_file_info *fi);
int netops_write(struct fs *fs, netops_write_fn fn, fuse_req_t req, fuse_ino_t ino,
                 const char *buf, size_t size, off_t off, struct fuse_file_info *fi);
int netops_read(struct fs *fs, netops_read_fn fn, fuse_req_t req, fuse_ino_t ino, size_t size,
                off_t off, struct fuse_file_info *fi);
int netops_create(struct fs *fs, netops_create_fn fn, fuse_req_t req, fuse_ino_t parent,
                  const char *name, mode_t mode, struct fuse_file_info *fi);
int netops_mkdir(struct fs *fs, netops_mkdir_fn fn, fuse_req_t req, fuse_ino_t parent,
                 const char *name, mode_t mode);
int netops_rename(struct fs *fs, netops_rename_fn fn, fuse_req_t req, fuse_ino_t parent,
                  const char *name, fuse_ino_t newparent, const char *newname,
                  unsigned int flags);

#endif
