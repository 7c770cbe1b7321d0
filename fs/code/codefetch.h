/*
 * The bytes of code/'s files (codefetch.c): the job's ConfigMap, fetched once at
 * the first open and kept. Called by ops.c at open, never under a lock.
 */
#ifndef ARENAFS_FS_CODE_CODEFETCH_H
#define ARENAFS_FS_CODE_CODEFETCH_H

#include "fs/base/fs_struct.h"
#include "fs/base/inode.h"
#include "fs/code/codetree.h"

int codefetch_new(struct code_store **out);
void codefetch_free(struct code_store *s);
/* The bytes of a file of code/, a reference (fs_text_put). 0; -ENODATA (the ConfigMap
 * is gone), -EACCES, -ETIMEDOUT, -EIO (unreachable, not this job's, or unlike the
 * annotation: never other bytes than its size), -ENOMEM. */
int codefetch_text(struct fs *fs, const struct codetree_file *f, struct fs_text **out);

#endif
