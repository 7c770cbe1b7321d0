/*
 * The cluster's training runtimes listed now (runtimes_list.h): two LISTs, the
 * ClusterTrainingRuntimes and the namespace's TrainingRuntimes.
 */
#include "fs/base/runtimes_list.h"
#include "k8s/api/api.h"

#include <errno.h>

#define TRAINER_API "/apis/trainer.kubeflow.org/v1alpha1"

const struct k8s_resource runtimes_cluster = {TRAINER_API, "clustertrainingruntimes", false};
const struct k8s_resource runtimes_local = {TRAINER_API, "trainingruntimes", true};

int runtimes_list(struct k8s_client *c, const char *ns, struct runtimes *out,
                  struct k8s_error *err)
{
	json_t *list = NULL;
	int rc;

	runtimes_clear(out);
	out->served = out->known = false;
	out->error[0] = '\0';
	rc = k8s_get(c, &runtimes_cluster, NULL, NULL, &list, err);
	if (rc && err->code == 404) {
		out->known = true;   /* no Trainer here: nothing to list */
		return 0;
	}
	if (rc == 0)
		rc = runtimes_add_list(out, list, true);
	json_decref(list);
	list = NULL;
	/* the namespace's own: a viewer that may not list them still sees the cluster's */
	if (rc == 0 && k8s_get(c, &runtimes_local, ns, NULL, &list, err) == 0)
		rc = runtimes_add_list(out, list, false);
	json_decref(list);
	if (rc == 0) {
		out->served = out->known = true;
		k8s_error_clear(err);
	} else if (rc == -ENOMEM) {
		k8s_error_set(err, ENOMEM, "out of memory listing the training runtimes");
	}
	return rc;
}

