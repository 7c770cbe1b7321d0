/*
 * Kubeflow Trainer's runtimes listed now, blocking: what the file `runtimes`
 * polls (fs/tree/runtimes.c) and what a submission refused for naming a missing
 * runtime lists in its error (fs/submit/submit_run.c). In fs/base/ because both
 * rooms use it and submit/ may not reach into tree/ (docs/architecture.md).
 *
 * No locks; one request at a time on the client. Tested through
 * tests/integration/test_tree_runtimes.py and test_submit_errors.py.
 */
#ifndef ARENAFS_FS_BASE_RUNTIMES_LIST_H
#define ARENAFS_FS_BASE_RUNTIMES_LIST_H

#include "k8s/error.h"
#include "k8s/http/client.h"
#include "k8s/api/api.h"
#include "render/runtimes.h"

/* Trainer's two runtime resources: ClusterTrainingRuntimes, and a namespace's
 * TrainingRuntimes. */
extern const struct k8s_resource runtimes_cluster, runtimes_local;

/* Lists the runtimes now: out->served false when the cluster serves none (404).
 * 0, or -errno with err filled; out is cleared first. */
int runtimes_list(struct k8s_client *c, const char *ns, struct runtimes *out,
                  struct k8s_error *err);

#endif
