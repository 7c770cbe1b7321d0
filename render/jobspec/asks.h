/*
 * What a job object asks of the cluster beyond itself, read from the object the
 * spec compiler built (or a user's manifest): the PriorityClasses its pod
 * templates name, the Kueue LocalQueue it is labelled for, the Trainer runtime a
 * TrainJob refers to. fs/submit/submit_run.c asks the cluster whether each exists
 * before anything is made; these say what to ask about, so that fs/ reads no
 * JSON path (docs/architecture.md).
 *
 * Pure: no I/O, no locks. Strings returned point into the object. Tested by
 * tests/unit/test_jobspec_asks.c.
 */
#ifndef ARENAFS_SPEC_ASKS_H
#define ARENAFS_SPEC_ASKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The distinct priorityClassName values anywhere in job, at most max of them, in
 * the order met, into names; how many. */
size_t spec_priority_classes(const json_t *job, const char **names, size_t max);

/* The LocalQueue job is labelled for (kueue.x-k8s.io/queue-name), or NULL. */
const char *spec_queue_of(const json_t *job);

/* A TrainJob's runtimeRef: true, with *kind ("ClusterTrainingRuntime",
 * "TrainingRuntime", or NULL when not given) and *name, when job is a TrainJob
 * naming a runtime; false otherwise. */
bool spec_runtime_of(const json_t *job, const char **kind, const char **name);

#endif
