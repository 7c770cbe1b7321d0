/*
 * Which training-job kinds (kinds.h) the cluster serves, asked of the API
 * server's discovery documents at start-up (mount/) and by the test tools.
 * Apart from kinds.h because it needs the HTTP client and the table does not.
 */
#ifndef ARENAFS_K8S_DISCOVERY_H
#define ARENAFS_K8S_DISCOVERY_H

#include <stdbool.h>

#include "k8s/error.h"
#include "k8s/objects/kinds.h"

struct k8s_client;

/*
 * Asks discovery (/apis, /apis/G/V) which kinds the cluster serves; fills
 * served[]. A missing group is simply not served (not an error); an error is
 * returned only when the API server cannot be asked at all.
 */
int kinds_discover(struct k8s_client *c, bool served[JOB_KIND_COUNT], struct k8s_error *err);

/*
 * Does the cluster serve Kueue (kueue.x-k8s.io with workloads, localqueues and
 * clusterqueues) and its visibility API? Fills out ("" where not). The newest
 * version both know is taken: v1beta2, else v1beta1. A cluster without Kueue is
 * no error; one whose /apis cannot be read is.
 */
int kueue_discover(struct k8s_client *c, struct kueue_api *out, struct k8s_error *err);

#endif
