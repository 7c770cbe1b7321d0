/*
 * Names and order of the entries of jobs/: the one rule that turns Kubernetes
 * job names into directory names, and its inverse.
 *
 * A job's directory name is its name as it stands (jobs/mnist), or NAME.TYPE
 * (jobs/mnist.tfjob), TYPE being its kind's spec type (kinds.h), when either
 *   - several kinds hold NAME in the namespace (a TFJob and a PyTorchJob both
 *     called mnist: mnist.tfjob and mnist.pytorchjob), or
 *   - NAME itself ends in ".TYPE" for a TYPE of the table (a RayJob called
 *     mnist.tfjob, as RayJob, SparkApplication, Volcano Job and TrainJob names may
 *     hold dots: mnist.tfjob.rayjob, whatever else exists).
 * So a directory name ending in ".TYPE" is always a suffixed name, and the part
 * before it is the job's name; any other directory name is a plain one. Hence
 * every name of a directory is unique (no assumption on what names the cluster
 * holds), and a name only ever stands for one object: mnist.tfjob is the TFJob
 * mnist or nothing, mnist the one job called mnist or nothing.
 *
 * A directory name longer than NAMING_NAME_MAX bytes (a suffixed name of more than
 * 244 bytes) is not listed: no file name may be that long (statfs says 255).
 *
 * Order: newest first (creationTimestamp), as `arena list` prints; ties by
 * directory name, which is unique, so the order is total.
 *
 * Pure (no cache, no locks): the caller hands in the jobs, or a function that
 * finds one. Tested by tests/unit/test_fs_naming.c.
 */
#ifndef ARENAFS_FS_NAMING_H
#define ARENAFS_FS_NAMING_H

#include <stddef.h>

#include "k8s/objects/objects.h"

#define NAMING_NAME_MAX 255

struct fs_job_name {
	const struct job *job;
	char *display;               /* the directory name, owned */
};

/*
 * The directory names of the jobs of one namespace (at most one job per kind and
 * name, as the cache holds them), sorted as jobs/ lists them. *out is malloc'd
 * (naming_free it with the count). Returns how many names there are (jobs whose
 * name cannot be listed left out) or -ENOMEM.
 */
int naming_list_jobs(const struct job *const *jobs, size_t n, struct fs_job_name **out);
void naming_free(struct fs_job_name *names, size_t n);

/* Finds the job of that kind and name in the namespace at hand, or NULL. */
typedef const struct job *(*naming_find_fn)(void *arg, int kind, const char *name);

/* The job a directory name stands for, or NULL when it stands for none. */
const struct job *naming_find_job(const char *display, naming_find_fn find, void *arg);

/* The directory name of job, given how many kinds hold its name; malloc'd or NULL.
 * It may be longer than NAMING_NAME_MAX: such a name is not listed. */
char *naming_display(const struct job *job, size_t holders);

#endif
