/*
 * Names and order of the entries of jobs/: the one rule that turns Kubernetes
 * job names into directory names, and its inverse.
 *
 * A name held by one kind in the namespace is the job's name as it stands
 * (jobs/mnist). A name held by several kinds (a TFJob and a PyTorchJob both
 * called mnist) appears once per kind as NAME.TYPE (jobs/mnist.tfjob,
 * jobs/mnist.pytorchjob), TYPE being the kind's spec type (kinds.h). The
 * training-operator's names are DNS-1035 labels, so they hold no dot and
 * NAME.TYPE can never be another job's plain name.
 *
 * Order: newest first (creationTimestamp), as `arena list` prints; ties by
 * directory name.
 *
 * Pure (no cache, no locks): the caller hands in the jobs, or a function that
 * finds one. Tested by tests/unit/test_fs_naming.c.
 */
#ifndef ARENAFS_FS_NAMING_H
#define ARENAFS_FS_NAMING_H

#include <stddef.h>

#include "k8s/objects/objects.h"

struct fs_job_name {
	const struct job *job;
	char *display;               /* the directory name, owned */
};

/*
 * The directory names of the jobs of one namespace, sorted as jobs/ lists them.
 * *out is malloc'd (naming_free it); returns 0 or -ENOMEM.
 */
int naming_list_jobs(const struct job *const *jobs, size_t n, struct fs_job_name **out);
void naming_free(struct fs_job_name *names, size_t n);

/* Finds the job of that kind and name in the namespace at hand, or NULL. */
typedef const struct job *(*naming_find_fn)(void *arg, int kind, const char *name);

/* The job a directory name stands for, or NULL when it stands for none. */
const struct job *naming_find_job(const char *display, naming_find_fn find, void *arg);

/* The directory name of job, given how many kinds hold its name; malloc'd or NULL. */
char *naming_display(const struct job *job, size_t holders);

#endif
