/*
 * Every attempt of a pod's main container (attempts.c): instances/POD/attempts/N/,
 * gathered from the pod in the cache (its restartCount, state and lastState) and
 * the copies kept on disk (fs/logs/logkeep.h), kept or dropped. Under the cache's
 * read lock. Called by model.c (names; model_attempts for content.c's info); tested through
 * tests/unit/test_fs_model.c and the integration tests (test_tree_attempts.py).
 */
#ifndef ARENAFS_FS_TREE_ATTEMPTS_H
#define ARENAFS_FS_TREE_ATTEMPTS_H

#include <stddef.h>

#include "fs/base/fs_struct.h"
#include "k8s/objects/objects.h"
#include "render/attempt.h"

struct attempts {
	struct attempt_view *v;          /* oldest first: v[i].number increasing */
	size_t n;
	struct logkeep_entry **kept;     /* what v's strings point into, with the cache's */
	size_t n_kept;
};

/* The attempts of a pod of job (pod_uid; pod: the pod in the cache, NULL once gone),
 * alive or gone with its logs kept; nothing without job or pod_uid. 0 or -ENOMEM;
 * attempts_free() either way. model_attempts (model.h) finds the three for a node. */
int attempts_of(struct fs *fs, const struct job *job, const struct pod *pod, const char *pod_uid,
		struct attempts *out);
void attempts_free(struct attempts *a);
/* The attempt numbered number, or NULL. */
const struct attempt_view *attempts_find(const struct attempts *a, int number);

#endif
