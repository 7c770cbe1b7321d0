/*
 * Directory entries of submit/ made once their copy is over (submit_defer.c, one
 * thread). Fed by submit.c, waited on by ops.c's lookup of jobs/NAME.
 */
#ifndef ARENAFS_FS_SUBMIT_SUBMIT_DEFER_H
#define ARENAFS_FS_SUBMIT_SUBMIT_DEFER_H

#include <stdbool.h>
#include <sys/types.h>
#include "fs/base/fs_struct.h"
#include "fs/submit/staging.h"

struct staging_submission;

int submit_defer_new(struct fs *fs, struct submit_defer **out);
/* Queues a checked submission of a directory entry (sub is taken over and cleared),
 * to be made in namespace ns (NULL: the mount's) once its copy is over; with
 * check (check/'s entry), dry-run with its code instead, its answers recorded. */
int submit_defer_add(struct submit_defer *d, const char *ns, bool check,
                     struct staging_submission *sub);
#define SUBMIT_DEFER_WAIT_MS 10000 /* a lookup of jobs/NAME waiting for NAME's copy to end */

/* Waits, at most timeout_ms, while the job NAME of namespace ns waits to be made;
 * whether it waited. asker (the thread that looks, 0: unknown) is done copying
 * into NAME if it wrote there: a script that copies a folder and then reads
 * jobs/NAME/status goes on running, and its copy is over once it asks. */
bool submit_defer_wait(struct submit_defer *d, const char *ns, const char *name,
		       int timeout_ms, pid_t asker);
/* Stops the thread; what still waits is dropped (logged), nothing made. */
void submit_defer_stop(struct submit_defer *d);
void submit_defer_free(struct submit_defer *d);

#endif
