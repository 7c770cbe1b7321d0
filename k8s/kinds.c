/*
 * The table of training-job kinds (see kinds.h). Facts from the CRDs of
 * training-operator 1.9 (kubeflow.org/v1), mpi-operator (kubeflow.org/v2beta1)
 * and Kubeflow Trainer (trainer.kubeflow.org/v1alpha1), and from Arena (the
 * `arena submit` type aliases, the Trainer column). Discovery lives in
 * discovery.c.
 */
#include "k8s/kinds.h"

#include <stddef.h>
#include <string.h>

static const struct job_kind_info KINDS[JOB_KIND_COUNT] = {
	{JOB_TFJOB, "tfjob", "TFJob", "kubeflow.org", "v1", "tfjobs", "tfReplicaSpecs",
	 "tensorflow", "tfjob-controller", "TFJOB"},
	{JOB_PYTORCHJOB, "pytorchjob", "PyTorchJob", "kubeflow.org", "v1", "pytorchjobs",
	 "pytorchReplicaSpecs", "pytorch", "pytorchjob-controller", "PYTORCHJOB"},
	{JOB_MPIJOB, "mpijob", "MPIJob", "kubeflow.org", "v1", "mpijobs", "mpiReplicaSpecs", "mpi",
	 "mpijob-controller", "MPIJOB"},
	{JOB_MPIJOB_V2, "mpijob", "MPIJob", "kubeflow.org", "v2beta1", "mpijobs", "mpiReplicaSpecs",
	 "mpi", "mpi-operator", "MPIJOB"},
	{JOB_XGBOOSTJOB, "xgboostjob", "XGBoostJob", "kubeflow.org", "v1", "xgboostjobs",
	 "xgbReplicaSpecs", "xgboost", "xgboostjob-controller", "XGBOOSTJOB"},
	{JOB_PADDLEJOB, "paddlejob", "PaddleJob", "kubeflow.org", "v1", "paddlejobs",
	 "paddleReplicaSpecs", "paddle", "paddlejob-controller", "PADDLEJOB"},
	{JOB_JAXJOB, "jaxjob", "JAXJob", "kubeflow.org", "v1", "jaxjobs", "jaxReplicaSpecs", "jax",
	 "jaxjob-controller", "JAXJOB"},
	{JOB_TRAINJOB, "trainjob", "TrainJob", "trainer.kubeflow.org", "v1alpha1", "trainjobs", NULL,
	 "node", NULL, "TRAINJOB"},
};

/* Arena's short names for its types (arena submit tf|pytorch|mpi ...). */
static const struct {
	const char *alias;
	const char *type;
} ALIASES[] = {
	{"tf", "tfjob"},         {"pytorch", "pytorchjob"}, {"mpi", "mpijob"},
	{"xgboost", "xgboostjob"}, {"paddle", "paddlejob"}, {"jax", "jaxjob"},
};

const struct job_kind_info *kinds_info(enum job_kind kind)
{
	if ((int)kind < 0 || kind >= JOB_KIND_COUNT)
		return NULL;
	return &KINDS[kind];
}

int kinds_by_type(const char *type, const bool served[JOB_KIND_COUNT])
{
	if (!type)
		return -1;
	for (size_t i = 0; i < sizeof(ALIASES) / sizeof(ALIASES[0]); i++)
		if (strcmp(type, ALIASES[i].alias) == 0)
			type = ALIASES[i].type;
	if (strcmp(type, "mpijob") == 0)
		return served && served[JOB_MPIJOB_V2] && !served[JOB_MPIJOB] ? JOB_MPIJOB_V2 : JOB_MPIJOB;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (strcmp(type, KINDS[k].type) == 0)
			return k;
	return -1;
}

int kinds_by_api(const char *api_version, const char *kind_name)
{
	if (!api_version || !kind_name)
		return -1;
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = &KINDS[k];
		size_t glen = strlen(ki->group);

		if (strcmp(kind_name, ki->kind_name) == 0 && strncmp(api_version, ki->group, glen) == 0 &&
		    api_version[glen] == '/' && strcmp(api_version + glen + 1, ki->version) == 0)
			return k;
	}
	return -1;
}
