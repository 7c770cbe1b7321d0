/*
 * May these credentials create jobs in a namespace (access.c): a
 * SelfSubjectAccessReview asked on a FUSE worker, never under a lock, and kept.
 */
#ifndef ARENAFS_FS_SUBMIT_ACCESS_H
#define ARENAFS_FS_SUBMIT_ACCESS_H

#include <stddef.h>
#include "fs/base/fs_struct.h"

#define ACCESS_WHY_MAX 512

int access_new(struct access_cache **out);
void access_free(struct access_cache *c);
/* 0 when the credentials may create jobs in ns (or that cannot be told now), else
 * -EACCES with why filled (one line, for namespaces/NS/submit/error). Kept a while. */
int access_create_jobs(struct fs *fs, const char *ns, char *why, size_t size);
/* Asks again next time (a submission in ns was refused with 403). */
void access_forget(struct fs *fs, const char *ns);

#endif
