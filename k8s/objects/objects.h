/*
 * The compact objects the cache keeps and render/ reads: only the fields the
 * tree shows, decoded once from the API server's JSON (objects_decode.c), so
 * that 50,000 pods fit in little memory and render/ never touches JSON paths.
 *
 * Times are Unix seconds, 0 when absent. Strings are owned by the object and
 * never NULL unless the comment says so ("" when absent). Objects are immutable
 * once published in the cache: a change replaces the object, so a reader holding
 * the cache's read lock sees one consistent version.
 *
 * Memory: a decoded object is one allocation (struct, arrays, strings), and the
 * strings that repeat across objects (namespaces, label keys and values, images,
 * node and owner names) are shared, reference-counted copies (objpack.h). So only
 * the *_free() functions may free a decoded object, and they only free decoded
 * ones: an object built by hand (tests of render/) is the builder's to free.
 */
#ifndef ARENAFS_K8S_OBJECTS_H
#define ARENAFS_K8S_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "k8s/objects/kinds.h"

struct kv {
	char *key;
	char *value;
};

struct kv_list {
	struct kv *items;
	size_t n;
};

/* The value for key, or NULL. */
const char *kv_get(const struct kv_list *l, const char *key);

/* Is name one of the items of list, a comma-joined string ("a,b")? Inline: pure,
 * for the decoders and render/ alike. */
static inline bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	/* names of objects hold no comma, so a comma always separates */
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Labels and annotations keep only what the tree reads, and owner references none
 * (the decoders read them all first: a pod's job, a node's roles): in a cluster of
 * 50,000 pods every byte per object is 50 KB. */
struct obj_meta {
	char *name;
	char *namespace;             /* "" for cluster-scoped objects */
	char *uid;
	char *resource_version;
	int64_t created;             /* creationTimestamp */
	int64_t deleted;             /* deletionTimestamp; 0 when not being deleted */
	/* Only the labels the tree uses (LABELS_KEPT in objects_decode.c): release and
	 * role, which make a Service a job's TensorBoard; Kueue's queue; those Arena
	 * finds Prometheus by. */
	struct kv_list labels;
	/* Only the annotations the tree uses (ANNOTATIONS_KEPT in objects_decode.c):
	 * arenafs.io/spec, arenafs.io/code, requestGPUsOfJobOwner,
	 * kubectl.kubernetes.io/default-container. */
	struct kv_list annotations;
};

/* ---- training jobs (every kind of kinds.h) ---- */

struct job_condition {
	char *type;                  /* Created, Running, Restarting, Succeeded, Failed, ... */
	bool status;                 /* "True" */
	char *reason;
	char *message;
	int64_t last_transition;
};

/* One entry of *ReplicaSpecs (or TrainJob's trainer: type "Node"; a Volcano task;
 * Spark's "Driver" and "Executor"; Ray's "Head" and each worker group). */
struct job_replica {
	char *type;                  /* as in the spec: "Worker", "PS", "Chief", "Master", "Launcher" */
	int replicas;                /* default 1 */
	int gpus;                    /* nvidia.com/gpu limits of one replica's containers, summed */
	char *image;                 /* first container's image */
	/* status.replicaStatuses[type] */
	int active, succeeded, failed;
};

/* One of status.trainerStatus.metrics: both strings as the training script sent them. */
struct job_metric {
	char *name;                  /* "loss", "eval_accuracy" (1..64 characters) */
	char *value;                 /* "0.231" */
};

/* A TrainJob's status.trainerStatus (Kubeflow Trainer v2.2, feature gate
 * TrainJobStatus): what its training script last reported through the status
 * server. Every other kind, and a TrainJob that never reported, has reported false. */
struct job_trainer_status {
	bool reported;               /* status.trainerStatus is there */
	int progress;                /* progressPercentage 0..100, -1 when not sent */
	int64_t remaining;           /* estimatedRemainingSeconds, -1 when not sent */
	int64_t updated;             /* lastUpdatedTime, 0 when absent */
	struct job_metric *metrics;  /* in the order sent */
	size_t n_metrics;
};

struct job {
	struct obj_meta meta;
	enum job_kind kind;
	bool deepspeed;              /* an ETJob labelled app=deepspeedjob: Arena's
	                                DeepSpeedJob (job_type_name, job_trainer_name) */
	char *api_version;
	struct job_condition *conditions;  /* in the order the API server lists them */
	size_t n_conditions;
	struct job_replica *replicas;
	size_t n_replicas;
	int64_t start_time;          /* status.startTime (the kind's start_field) */
	int64_t completion_time;     /* status.completionTime (the kind's end_field) */
	char *state;                 /* the kind's state_field ("" when absent), for the
	                                kinds whose status is one state string */
	bool suspend;                /* the kind's suspend_field is true: asked to stop (the
	                                operator's Suspended condition says when it has) */
	char *priority_class;        /* runPolicy.schedulingPolicy.priorityClass, else the
	                                pod templates' priorityClassName, else "" */
	char *claims;                /* the PersistentVolumeClaims its pod templates mount,
	                                comma-joined in the order the spec names them
	                                (list_has), or "" */
	char *spec_annotation;       /* the arenafs.io/spec annotation, or NULL */
	char *code_annotation;       /* the arenafs.io/code annotation (the files the job
	                                shipped, fs/code/codeindex.h), or NULL */
	struct job_trainer_status trainer;  /* TrainJob's progress, time left, metrics */
	char *raw_json;              /* the whole object as the API server sent it (compact
	                                JSON), for job.json and spec.yaml; without
	                                metadata.managedFields, as kubectl get -o json */
};

/* ---- pods ---- */

enum pod_phase { POD_PENDING, POD_RUNNING, POD_SUCCEEDED, POD_FAILED, POD_UNKNOWN };

enum container_state_kind { CONTAINER_NONE, CONTAINER_WAITING, CONTAINER_RUNNING, CONTAINER_TERMINATED };

/* Fields in the order that leaves no padding (the structs of pods are the bulk of
 * the cache). */
struct container_state {
	enum container_state_kind kind;
	int exit_code;               /* terminated only */
	char *reason;                /* waiting/terminated reason: ContainerCreating, Completed, Error */
	char *message;
	char *container_id;          /* terminated containerID, or "" */
	int64_t started;             /* running/terminated startedAt */
	int64_t finished;            /* terminated finishedAt */
};

struct container {
	char *name;
	char *image;
	char *container_id;          /* current instance ("containerd://..."), "" before it starts */
	int gpus;                    /* resources.limits["nvidia.com/gpu"] */
	/* status.containerStatuses[name]; state.kind == CONTAINER_NONE before the kubelet reports */
	int restart_count;
	bool ready;
	struct container_state state;
	struct container_state last_state;  /* lastState: the previous instance, kind NONE if none */
};

struct pod {
	struct obj_meta meta;
	/* The job this pod belongs to, found from the controller ownerReference, else the
	 * operators' labels (training.kubeflow.org/job-name, job-name, tf-job-name,
	 * jobset.sigs.k8s.io/jobset-name...). job_name NULL: not a training job's pod. */
	char *job_name;
	int job_kind;                /* enum job_kind, or -1 when only a label names the job and
	                                the kind cannot be told (see cache_pods_of_job) */
	int replica_index;           /* -1 when absent */
	char *replica_type;          /* lowercase: "worker", "ps", "chief", "master", "launcher", or "" */
	char *job_role;              /* training.kubeflow.org/job-role: "master", "launcher", ... or "" */
	char *node_name;             /* spec.nodeName, "" while unscheduled */
	char *pod_ip;
	char *host_ip;
	enum pod_phase phase;
	int gpus;                    /* Σ containers' nvidia.com/gpu limits */
	char *reason;                /* status.reason (Evicted, ...), or "" */
	char *message;               /* status.message, or "" */
	char *unschedulable;         /* PodScheduled=False's message, or "" */
	int64_t start_time;          /* status.startTime */
	char *priority_class;
	char *restart_policy;
	struct container *containers;
	size_t n_containers;
	struct container *init_containers;
	size_t n_init_containers;
};

/* ---- nodes ---- */

struct k8s_node {
	struct obj_meta meta;
	bool ready;                  /* condition Ready=True */
	bool unschedulable;          /* spec.unschedulable */
	char *internal_ip;           /* status.addresses InternalIP, or "" */
	char *roles;                 /* from node-role.kubernetes.io/ROLE labels, comma-joined
	                                and sorted; "" when none */
	int gpu_capacity;            /* status.capacity["nvidia.com/gpu"] */
	int gpu_allocatable;         /* status.allocatable["nvidia.com/gpu"] */
	char *cpu_capacity;          /* as the API writes it: "32" */
	char *memory_capacity;       /* "131072Mi" */
};

/* ---- services ---- */

struct service {
	struct obj_meta meta;
	char *type;                  /* ClusterIP, NodePort, LoadBalancer */
	char *cluster_ip;
	int port;                    /* spec.ports[0].port, 0 if none */
	int node_port;               /* spec.ports[0].nodePort, 0 if none */
	char *lb_ingress;            /* status.loadBalancer.ingress[0].ip (or hostname), or "" */
};

/* ---- events ---- */

struct event {
	struct obj_meta meta;
	char *involved_kind;
	char *involved_name;
	char *involved_uid;
	char *type;                  /* Normal, Warning */
	char *reason;
	char *message;
	char *source;                /* source.component, else reportingController */
	int count;                   /* at least 1 */
	int64_t first_seen;          /* firstTimestamp, else eventTime, else creation */
	int64_t last_seen;           /* lastTimestamp, else first_seen */
};

/* ---- what a job owns between it and its pods (jobs/NAME/events) ---- */

/* The kinds of object that stand between a job and its pods: an MPIJob v2beta1's
 * launcher batch Job, a TrainJob's JobSet and the JobSet's batch Jobs. */
enum owned_kind { OWNED_BATCH_JOB, OWNED_JOBSET, OWNED_KIND_COUNT };

struct owned_kind_info {
	const char *kind_name;       /* "Job", "JobSet": an event's involvedObject.kind */
	const char *group, *version, *plural;
};

const struct owned_kind_info *owned_kinds(int kind);

/* A batch Job or a JobSet, by its owner: only what the owner chain needs. */
struct owned {
	struct obj_meta meta;
	int kind;                    /* enum owned_kind */
	char *owner_kind;            /* its controller ownerReference ("MPIJob", "JobSet",
	                                "TrainJob"), "" when it has none */
	char *owner_name;
	char *owner_uid;
};

/* ---- persistent volume claims (data/) ---- */

struct pvc {
	struct obj_meta meta;
	char *phase;                 /* status.phase: Pending, Bound, Lost ("" when absent) */
	char *capacity;              /* status.capacity.storage once bound, else "" */
	char *requested;             /* spec.resources.requests.storage, or "" */
	char *access_modes;          /* spec.accessModes, comma-joined as the API lists
	                                them ("ReadWriteOnce,ReadOnlyMany"), or "" */
	char *storage_class;         /* spec.storageClassName, or "" */
	char *volume;                /* spec.volumeName: the PersistentVolume, or "" */
	char *description;           /* the `description` annotation (Arena's), or "" */
	char *owner;                 /* the `owner` annotation (Arena's), or "" */
};

/* ---- Kueue (kueue.x-k8s.io): queues of jobs, docs/tree.md "Queues" ---- */

/* The resource whose quota and use the tree shows. */
#define KUEUE_GPU "nvidia.com/gpu"

/* A Workload: Kueue's record of one job in a queue (its owner), with its conditions
 * (QuotaReserved, Admitted, Evicted, Preempted, Requeued, Finished, ...). */
struct workload {
	struct obj_meta meta;
	char *queue;                 /* spec.queueName: its LocalQueue, or "" */
	char *owner_kind;            /* its controller ownerReference: the job ("TFJob") */
	char *owner_name;
	char *owner_uid;             /* "" when it has none */
	char *cluster_queue;         /* status.admission.clusterQueue: "" before quota is reserved */
	struct job_condition *conditions;
	size_t n_conditions;
	int gpus;                    /* what it asks: podSets' count × their template's GPUs */
	int admitted_gpus;           /* status.admission's nvidia.com/gpu resourceUsage */
	char *flavors;               /* the flavors of its admission's podSetAssignments,
	                                comma-joined once each (list_has), or "" */
	int priority;                /* spec.priority, 0 when absent */
	char *priority_class;        /* v1beta2 spec.priorityClassRef.name (v1beta1
	                                spec.priorityClassName), "" when none */
	char *priority_kind;         /* its kind: "WorkloadPriorityClass" or "PriorityClass"
	                                (v1beta1: from priorityClassSource), "" when none */
	bool active;                 /* spec.active (absent: true) */
};

/* One resource of one flavor of a ClusterQueue's quota, with its use (status.flavorsUsage),
 * or, of a LocalQueue, its use alone. Quantities as the API server writes them
 * ("128", "1Ti", "500m"), as kubectl describe shows them: never summed. */
struct kueue_quota {
	char *flavor;
	char *resource;
	char *nominal;               /* nominalQuota ("0" when absent); "" for a LocalQueue */
	char *borrowing_limit;       /* borrowingLimit, "" when there is none (no limit) */
	char *lending_limit;         /* lendingLimit, "" when there is none */
	char *used;                  /* flavorsUsage's total, "0" when not listed */
	char *borrowed;              /* flavorsUsage's borrowed (from the cohort), "0" likewise */
};

/* A LocalQueue: a namespace's door to a ClusterQueue. */
struct localqueue {
	struct obj_meta meta;
	char *cluster_queue;         /* spec.clusterQueue */
	char *stop_policy;           /* spec.stopPolicy: None, Hold, HoldAndDrain ("" absent) */
	int pending;                 /* status.pendingWorkloads */
	int reserving;               /* status.reservingWorkloads */
	int admitted;                /* status.admittedWorkloads */
	int gpus_used;               /* status.flavorsUsage (v1beta1: flavorUsage), GPUs summed */
	struct kueue_quota *usage;   /* that list: every flavor and resource, used only */
	size_t n_usage;
};

/* A ClusterQueue: quotas per flavor, shared by its LocalQueues. */
struct clusterqueue {
	struct obj_meta meta;
	char *cohort;                /* spec.cohortName (v1beta1: spec.cohort), or "" */
	char *strategy;              /* spec.queueingStrategy: BestEffortFIFO, StrictFIFO */
	char *stop_policy;           /* spec.stopPolicy, or "" */
	bool active;                 /* the Active condition is True */
	char *inactive_reason;       /* else its message (reason when none), "" when active */
	int gpu_quota;               /* the nominalQuota of nvidia.com/gpu over its flavors */
	bool gpu_quota_named;        /* some flavor's quota names nvidia.com/gpu (0 or more) */
	int gpus_used;               /* status.flavorsUsage's GPUs, summed */
	int gpus_borrowed;           /* their borrowed, summed */
	bool borrowing;              /* some resource's borrowed is not 0 */
	struct kueue_quota *quotas;  /* spec.resourceGroups' flavors × resources, in order,
	                                each with its status.flavorsUsage */
	size_t n_quotas;
	int pending;                 /* status.pendingWorkloads */
	int reserving;               /* status.reservingWorkloads */
	int admitted;                /* status.admittedWorkloads */
};

/* A Cohort (kueue.x-k8s.io Cohort): a node of the tree of cohorts ClusterQueues
 * borrow within; a cohort a ClusterQueue names needs no object of its own. */
struct kueue_cohort {
	struct obj_meta meta;
	char *parent;                /* spec.parentName, or "" (a root) */
};

/* One pending Workload of a LocalQueue's line, as Kueue's visibility API gives it. */
struct queue_place {
	char *workload;              /* the Workload's name (namespace: the line's) */
	int position_cq;             /* positionInClusterQueue, 0-based as Kueue gives it */
	int position_lq;             /* positionInLocalQueue */
	int priority;
};

/* A LocalQueue's pending Workloads in order (the cache's poller asks Kueue's
 * visibility API: GET .../namespaces/NS/localqueues/LQ/pendingworkloads). meta's
 * name is the LocalQueue's; its resourceVersion a hash of the places. */
struct queue_line {
	struct obj_meta meta;
	struct queue_place *places;
	size_t n_places;
};

/* ---- namespaces (added for the cache's per-namespace watches) ---- */

struct k8s_namespace {
	struct obj_meta meta;
	char *phase;                 /* status.phase: Active, Terminating */
};

/*
 * Decoding from the API server's JSON (objects_decode.c). Each returns a new
 * object the caller owns, or NULL when obj is not a valid object of that kind.
 * job_decode keeps a compact dump of obj in raw_json.
 */
struct job *job_decode(json_t *obj, enum job_kind kind);
struct pod *pod_decode(json_t *obj);
struct k8s_node *node_decode(json_t *obj);
struct service *service_decode(json_t *obj);
struct event *event_decode(json_t *obj);
struct k8s_namespace *namespace_decode(json_t *obj);
struct owned *owned_decode(json_t *obj, enum owned_kind kind);
struct pvc *pvc_decode(json_t *obj);
struct workload *workload_decode(json_t *obj);
struct localqueue *localqueue_decode(json_t *obj);
struct clusterqueue *clusterqueue_decode(json_t *obj);
struct kueue_cohort *cohort_decode(json_t *obj);
/* A pendingworkloads answer (visibility.kueue.x-k8s.io PendingWorkloadsSummary) for
 * LocalQueue lq of ns. */
struct queue_line *queue_line_decode(json_t *obj, const char *ns, const char *lq);

void job_free(struct job *j);
/* What the `type` file and Arena's Trainer column call j: its kind's, except for
 * Arena's DeepSpeedJob (an ETJob by its CRD): "deepspeedjob", "DEEPSPEEDJOB". */
const char *job_type_name(const struct job *j);
const char *job_trainer_name(const struct job *j);
void pod_free(struct pod *p);
void node_free(struct k8s_node *n);
void service_free(struct service *s);
void event_free(struct event *e);
void namespace_free(struct k8s_namespace *n);
void owned_free(struct owned *o);
void pvc_free(struct pvc *p);
void workload_free(struct workload *w);
void localqueue_free(struct localqueue *q);
void clusterqueue_free(struct clusterqueue *q);
void cohort_free(struct kueue_cohort *c);
void queue_line_free(struct queue_line *l);

#endif
