/*
 * The training-job kinds arenafs knows: one static table of facts (group,
 * version, plural, replica-spec field, framework container).
 *
 * The table is data about Kubernetes, shared by k8s/ (what to watch), render/
 * (type names), spec/ (manifests) and fs/ (directory names). Pure, no I/O: which
 * of the kinds the cluster serves is asked by kinds_discover() (discovery.h).
 */
#ifndef ARENAFS_K8S_KINDS_H
#define ARENAFS_K8S_KINDS_H

#include <stdbool.h>

enum job_kind {
	JOB_TFJOB,
	JOB_PYTORCHJOB,
	JOB_MPIJOB,          /* kubeflow.org/v1 (training-operator) */
	JOB_MPIJOB_V2,       /* kubeflow.org/v2beta1 (mpi-operator); same CRD name as v1's */
	JOB_XGBOOSTJOB,
	JOB_PADDLEJOB,
	JOB_JAXJOB,
	JOB_TRAINJOB,        /* trainer.kubeflow.org/v1alpha1 */
	/* Listed read-only, as Arena lists them where their CRDs exist: */
	JOB_ETJOB,           /* kai.alibabacloud.com/v1alpha1 TrainingJob (also Arena's DeepSpeedJob) */
	JOB_VOLCANOJOB,      /* batch.volcano.sh/v1alpha1 Job */
	JOB_SPARKJOB,        /* sparkoperator.k8s.io/v1beta2 SparkApplication */
	JOB_RAYJOB,          /* ray.io/v1 RayJob */
	JOB_KIND_COUNT
};

/* How a kind's status becomes Arena's word (render/status.c). */
enum job_status_rule {
	STATUS_CONDITIONS,    /* training-operator: the conditions Succeeded, Failed, Running, Queuing */
	STATUS_MPI_LAUNCHER,  /* the conditions, else the launcher pod */
	STATUS_TRAINJOB,      /* the conditions Complete, Failed, Suspended, else the pods */
	STATUS_STATE,         /* one state string (job->state) through the kind's state_words */
	STATUS_STATE_CHIEF,   /* the same, but PENDING while the launcher pod is missing or
	                         Pending (Arena's ETJob and DeepSpeedJob) */
};

/* How the replicas are laid out in the spec (k8s/objects/job_decode.c). */
enum job_replica_shape {
	REPLICAS_MAP,         /* spec.<replica_field>: {TYPE: {replicas, template}} */
	REPLICAS_TRAINER,     /* TrainJob's spec.trainer: one replica "Node" */
	REPLICAS_TASKS,       /* Volcano's spec.tasks: [{name, replicas, template}] */
	REPLICAS_SPARK,       /* spec.driver and spec.executor (instances), spec.image */
	REPLICAS_RAY,         /* spec.rayClusterSpec: headGroupSpec and workerGroupSpecs[] */
};

/* A kind's state value → Arena's word (a value not listed is shown as it is). */
struct job_state_word {
	const char *state;
	const char *word;
};

struct job_kind_info {
	enum job_kind kind;
	const char *type;            /* "tfjob": the spec's `type`, the `type` file, directory suffix */
	const char *kind_name;       /* "TFJob" */
	const char *group;           /* "kubeflow.org" */
	const char *version;         /* "v1" */
	const char *plural;          /* "tfjobs" */
	const char *replica_field;   /* "tfReplicaSpecs"; NULL for TrainJob */
	const char *container;       /* "tensorflow": the container the operator requires */
	const char *operator_name;   /* value of training.kubeflow.org/operator-name, or NULL */
	const char *trainer;         /* what arena get prints as Trainer: "TFJOB" */
	bool read_only;              /* listed, never submitted (no small spec, no manifest) */
	enum job_replica_shape shape;
	enum job_status_rule status_rule;
	/* STATUS_STATE*: where the state is under .status ("state.phase"), and its words,
	 * ended by {NULL, NULL} */
	const char *state_field;
	const struct job_state_word *state_words;
	const char *start_field;     /* under .status: "startTime", or NULL (creation) */
	const char *end_field;       /* under .status: "completionTime", or NULL */
	const char *pod_label;       /* the operator's label naming the job on its pods, for
	                                kinds whose pods no kubeflow label names; or NULL */
	const char *suspend_field;   /* under .spec, the boolean its operator honours to stop
	                                the job and keep it ("runPolicy.suspend", TrainJob's
	                                "suspend"); NULL: the kind cannot be suspended here */
};

/* Kueue, where the cluster has it (kueue_discover, k8s/api/discovery.h): the
 * version of kueue.x-k8s.io to read (v1beta2, else v1beta1; "" without Kueue) and
 * of its visibility API (visibility.kueue.x-k8s.io: "" when not served). */
#define KUEUE_GROUP "kueue.x-k8s.io"
/* The label that puts a job in a LocalQueue (what Kueue reads; the spec's `queue:`). */
#define KUEUE_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define KUEUE_VISIBILITY_GROUP "visibility.kueue.x-k8s.io"
struct kueue_api {
	char version[16];
	char visibility[16];
};

/* The row for a kind; never NULL for a valid enum value. */
const struct job_kind_info *kinds_info(enum job_kind kind);
/* The kind for a spec `type` ("tfjob", also "tf"), or -1. Both MPI kinds answer "mpijob":
 * pass the served set to pick the one the cluster has (NULL: v1). */
int kinds_by_type(const char *type, const bool served[JOB_KIND_COUNT]);
/* The kind for apiVersion + kind of a manifest, or -1. */
int kinds_by_api(const char *api_version, const char *kind_name);

#endif
