/*
 * May these credentials create jobs in a namespace, or patch a kind of job there
 * (access.c): a SelfSubjectAccessReview asked on a FUSE worker, never under a lock,
 * and kept. Called by submit.c (namespaces/NS/submit/) and suspend.c (the mode and
 * the write of jobs/NAME/suspend).
 */
#ifndef ARENAFS_FS_SUBMIT_ACCESS_H
#define ARENAFS_FS_SUBMIT_ACCESS_H

#include <stdbool.h>
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
/* 0 when the credentials may patch jobs of kind in ns (or that cannot be told now),
 * else -EACCES with why filled (one line, for jobs/NAME/info's note). Kept a while:
 * a stat of jobs/NAME/suspend asks once per kind and namespace, not once per stat. */
int access_patch_jobs(struct fs *fs, const char *ns, int kind, char *why, size_t size);
/* Whether access_patch_jobs would answer without asking the cluster (a kept
 * answer, or a cluster that cannot be reached): the stat needs no network thread. */
bool access_patch_known(struct fs *fs, const char *ns, int kind);
/* Asks again next time (a PATCH of that kind in ns was refused with 403). */
void access_forget_patch(struct fs *fs, const char *ns, int kind);

#endif
