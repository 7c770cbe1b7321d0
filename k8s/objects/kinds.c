/*
 * The table of training-job kinds (see kinds.h). Facts from the CRDs of
 * training-operator 1.9 (kubeflow.org/v1), mpi-operator (kubeflow.org/v2beta1),
 * Kubeflow Trainer (trainer.kubeflow.org/v1alpha1), et-operator, Volcano, the
 * Spark operator and KubeRay, and from Arena (the `arena submit` type aliases,
 * the Trainer column, how each of its trainers words a status). Discovery lives in
 * discovery.c.
 */
#include "k8s/objects/kinds.h"

#include <stddef.h>
#include <string.h>

/* Arena 0.15 (pkg/training/trainer_*.go, GetStatus): the state values each kind's
 * trainer names; any other value Arena prints as it is, except the ETJob's (RUNNING).
 * The empty state (a job its operator has not seen yet) is PENDING: Arena says so
 * for a RayJob and prints nothing for the others. */
static const struct job_state_word ET_WORDS[] = {
    {"Succeeded", "SUCCEEDED"}, {"Failed", "FAILED"}, {"Scaling", "SCALING"}, {NULL, NULL}};
static const struct job_state_word VOLCANO_WORDS[] = {
    {"Completed", "SUCCEEDED"}, {"Failed", "FAILED"}, {"Pending", "PENDING"},
    {"Inqueue", "SUBMITTED"},   {"Running", "RUNNING"}, {"", "PENDING"}, {NULL, NULL}};
static const struct job_state_word SPARK_WORDS[] = {
    {"COMPLETED", "SUCCEEDED"}, {"FAILED", "FAILED"},   {"PENDING_RERUN", "PENDING"},
    {"SUBMITTED", "SUBMITTED"}, {"RUNNING", "RUNNING"}, {"", "PENDING"}, {NULL, NULL}};
static const struct job_state_word RAY_WORDS[] = {{"", "PENDING"}, {NULL, NULL}};

/* The training-operator kinds (kubeflow.org/v1) differ only in these. */
#define OPERATOR_KIND(k, t, kn, pl, rf, ctr, op, tr)                                              \
	[k] = {.kind = k, .type = t, .kind_name = kn, .group = "kubeflow.org", .version = "v1",     \
	 .plural = pl, .replica_field = rf, .container = ctr, .operator_name = op,                  \
	 .trainer = tr, .shape = REPLICAS_MAP, .status_rule = STATUS_CONDITIONS,                    \
	 .start_field = "startTime", .end_field = "completionTime",                    \
	 .suspend_field = "runPolicy.suspend"}

static const struct job_kind_info KINDS[JOB_KIND_COUNT] = {
    OPERATOR_KIND(JOB_TFJOB, "tfjob", "TFJob", "tfjobs", "tfReplicaSpecs", "tensorflow",
                  "tfjob-controller", "TFJOB"),
    OPERATOR_KIND(JOB_PYTORCHJOB, "pytorchjob", "PyTorchJob", "pytorchjobs",
                  "pytorchReplicaSpecs", "pytorch", "pytorchjob-controller", "PYTORCHJOB"),
    [JOB_MPIJOB] = {.kind = JOB_MPIJOB, .type = "mpijob", .kind_name = "MPIJob",
                    .group = "kubeflow.org", .version = "v1", .plural = "mpijobs",
                    .replica_field = "mpiReplicaSpecs", .container = "mpi",
                    .operator_name = "mpijob-controller", .trainer = "MPIJOB",
                    .shape = REPLICAS_MAP, .status_rule = STATUS_MPI_LAUNCHER,
                    .start_field = "startTime", .end_field = "completionTime",
                    .suspend_field = "runPolicy.suspend"},
    [JOB_MPIJOB_V2] = {.kind = JOB_MPIJOB_V2, .type = "mpijob", .kind_name = "MPIJob",
                       .group = "kubeflow.org", .version = "v2beta1", .plural = "mpijobs",
                       .replica_field = "mpiReplicaSpecs", .container = "mpi",
                       .operator_name = "mpi-operator", .trainer = "MPIJOB",
                       .shape = REPLICAS_MAP, .status_rule = STATUS_MPI_LAUNCHER,
                       .start_field = "startTime", .end_field = "completionTime",
                       .suspend_field = "runPolicy.suspend"},
    OPERATOR_KIND(JOB_XGBOOSTJOB, "xgboostjob", "XGBoostJob", "xgboostjobs", "xgbReplicaSpecs",
                  "xgboost", "xgboostjob-controller", "XGBOOSTJOB"),
    OPERATOR_KIND(JOB_PADDLEJOB, "paddlejob", "PaddleJob", "paddlejobs", "paddleReplicaSpecs",
                  "paddle", "paddlejob-controller", "PADDLEJOB"),
    OPERATOR_KIND(JOB_JAXJOB, "jaxjob", "JAXJob", "jaxjobs", "jaxReplicaSpecs", "jax",
                  "jaxjob-controller", "JAXJOB"),
    [JOB_TRAINJOB] = {.kind = JOB_TRAINJOB, .type = "trainjob", .kind_name = "TrainJob",
                      .group = "trainer.kubeflow.org", .version = "v1alpha1",
                      .plural = "trainjobs", .container = "node", .trainer = "TRAINJOB",
                      .shape = REPLICAS_TRAINER, .status_rule = STATUS_TRAINJOB,
                      .start_field = "startTime", .end_field = "completionTime",
                      .suspend_field = "suspend"},
    /* et-operator's TrainingJob: Arena's ETJob (app=etjob) and DeepSpeedJob
     * (app=deepspeedjob) are both this CRD, told apart by that label only. */
    [JOB_ETJOB] = {.kind = JOB_ETJOB, .type = "etjob", .kind_name = "TrainingJob",
                   .group = "kai.alibabacloud.com", .version = "v1alpha1",
                   .plural = "trainingjobs", .replica_field = "etReplicaSpecs", .container = "",
                   .trainer = "ETJOB", .read_only = true, .shape = REPLICAS_MAP,
                   .status_rule = STATUS_STATE_CHIEF, .state_field = "phase",
                   .state_words = ET_WORDS, .start_field = "startTime",
                   .end_field = "completionTime", .pod_label = "training-job-name"},
    [JOB_VOLCANOJOB] = {.kind = JOB_VOLCANOJOB, .type = "volcanojob", .kind_name = "Job",
                        .group = "batch.volcano.sh", .version = "v1alpha1", .plural = "jobs",
                        .container = "", .trainer = "VOLCANOJOB", .read_only = true,
                        .shape = REPLICAS_TASKS, .status_rule = STATUS_STATE,
                        .state_field = "state.phase", .state_words = VOLCANO_WORDS,
                        .pod_label = "volcano.sh/job-name"},
    [JOB_SPARKJOB] = {.kind = JOB_SPARKJOB, .type = "sparkjob", .kind_name = "SparkApplication",
                      .group = "sparkoperator.k8s.io", .version = "v1beta2",
                      .plural = "sparkapplications", .container = "spark-kubernetes-driver",
                      .trainer = "SPARKJOB", .read_only = true, .shape = REPLICAS_SPARK,
                      .status_rule = STATUS_STATE, .state_field = "applicationState.state",
                      .state_words = SPARK_WORDS, .start_field = "lastSubmissionAttemptTime",
                      .end_field = "terminationTime",
                      .pod_label = "sparkoperator.k8s.io/app-name"},
    [JOB_RAYJOB] = {.kind = JOB_RAYJOB, .type = "rayjob", .kind_name = "RayJob",
                    .group = "ray.io", .version = "v1", .plural = "rayjobs", .container = "",
                    .trainer = "RAYJOB", .read_only = true, .shape = REPLICAS_RAY,
                    .status_rule = STATUS_STATE, .state_field = "jobStatus",
                    .state_words = RAY_WORDS, .start_field = "startTime", .end_field = "endTime",
                    .pod_label = "ray.io/originated-from-cr-name"},
};

/* Arena's short names for its types (arena submit tf|pytorch|mpi ...). */
static const struct {
	const char *alias;
	const char *type;
} ALIASES[] = {
	{"tf", "tfjob"},         {"pytorch", "pytorchjob"}, {"mpi", "mpijob"},
	{"xgboost", "xgboostjob"}, {"paddle", "paddlejob"}, {"jax", "jaxjob"},
	/* Arena's types of the kinds listed read-only */
	{"deepspeedjob", "etjob"}, {"et", "etjob"}, {"volcano", "volcanojob"},
	{"spark", "sparkjob"}, {"sparkapplication", "sparkjob"}, {"ray", "rayjob"},
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
