/*
 * Pods → struct pod: containers and init containers with their states (and the
 * previous instance's), the scheduler's complaint, GPUs, and which training job
 * the pod belongs to — the matching rules the cache's pods-of-job index relies
 * on (docs/k8s-cache.md, "Pod → job").
 *
 * No I/O, no locks of its own. Called by the cache's reflectors and by tests.
 */
#include "k8s/objects/decode.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *first_label(const struct kv_list *l, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *v = kv_get(l, *keys);

		if (v && *v)
			return v;
	}
	return NULL;
}

static const struct owner_ref *controller_of(const struct meta_more *m)
{
	for (size_t i = 0; i < m->n_owners; i++)
		if (m->owners[i].controller)
			return &m->owners[i];
	return NULL;
}

static int kind_by_operator(const char *op)
{
	if (!op)
		return -1;
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info((enum job_kind)k);

		if (ki->operator_name && strcmp(ki->operator_name, op) == 0)
			return k;
	}
	return -1;
}

static bool is_batch_job(const struct owner_ref *o)
{
	return o && strcmp(o->kind, "Job") == 0 && strcmp(o->api_version, "batch/v1") == 0;
}

/* mpi-operator v2beta1 runs the launcher as a batch Job named NAME-launcher. */
static bool is_mpi_launcher_job(const struct owner_ref *o, const char *job)
{
	size_t n = strlen(job);

	return is_batch_job(o) && strncmp(o->name, job, n) == 0 &&
	       strcmp(o->name + n, "-launcher") == 0;
}

/*
 * The kinds no kubeflow label names (kinds.h pod_label): their operator's label
 * (volcano.sh/job-name...), else Arena's app=<type> and release=<name>, which its
 * charts put on every pod of the job — but not on a TensorBoard's (role=tensorboard),
 * which carries them too.
 */
static bool label_found_job(const struct meta_more *m, struct pod *p)
{
	const char *app = kv_get(&m->labels, "app");
	const char *release = kv_get(&m->labels, "release");
	const char *role = kv_get(&m->labels, "role");
	const char *v;
	int k;

	for (k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info((enum job_kind)k);

		if (ki->pod_label && (v = kv_get(&m->labels, ki->pod_label)) && *v) {
			p->job_name = (char *)v;
			p->job_kind = k;
			return true;
		}
	}
	if (!app || !release || !*release || (role && strcmp(role, "tensorboard") == 0))
		return false;
	k = kinds_by_type(app, NULL);
	if (k < 0 || !kinds_info((enum job_kind)k)->pod_label)
		return false;
	p->job_name = (char *)release;
	p->job_kind = k;
	return true;
}

/*
 * Which job a pod belongs to (objects.h, struct pod): the controller reference
 * when it is a job kind; else the operators' labels, newest first. The older
 * `job-name` label is also what batch/v1 Jobs put on their pods, so it counts
 * only for pods no batch Job controls.
 */
static void pod_match_job(const struct meta_more *m, struct pod *p)
{
	static const char *const TF_OLD[] = {"tf-job-name", NULL};
	static const char *const PYTORCH_OLD[] = {"pytorch-job-name", NULL};
	static const char *const ANY_OLD[] = {"mpi-job-name", NULL};
	const struct owner_ref *ctl = controller_of(m);
	const char *v;
	int k;

	p->job_name = NULL;
	p->job_kind = -1;
	if (ctl && (k = kinds_by_api(ctl->api_version, ctl->kind)) >= 0) {
		p->job_name = ctl->name;
		p->job_kind = k;
		return;
	}
	v = kv_get(&m->labels, "training.kubeflow.org/job-name");
	if (v && *v) {
		p->job_name = (char *)v;
		p->job_kind =
		    kind_by_operator(kv_get(&m->labels, "training.kubeflow.org/operator-name"));
		if (p->job_kind < 0 && is_mpi_launcher_job(ctl, v))
			p->job_kind = JOB_MPIJOB_V2;
		return;
	}
	if ((v = kv_get(&m->labels, "jobset.sigs.k8s.io/jobset-name")) && *v) {
		p->job_name = (char *)v; /* Trainer names the JobSet after its TrainJob */
		p->job_kind = JOB_TRAINJOB;
		return;
	}
	if (label_found_job(m, p))
		return;
	if ((v = first_label(&m->labels, TF_OLD))) {
		p->job_name = (char *)v;
		p->job_kind = JOB_TFJOB;
	} else if ((v = first_label(&m->labels, PYTORCH_OLD))) {
		p->job_name = (char *)v;
		p->job_kind = JOB_PYTORCHJOB;
	} else if ((v = first_label(&m->labels, ANY_OLD))) {
		p->job_name = (char *)v; /* v1 or v2beta1: whichever the cluster serves */
	} else if ((v = kv_get(&m->labels, "job-name")) && *v && !is_batch_job(ctl)) {
		p->job_name = (char *)v;
	}
}

static const char *const REPLICA_TYPE_LABELS[] = {
    "training.kubeflow.org/replica-type",
    "replica-type",
    "tf-replica-type",
    "pytorch-replica-type",
    "jobset.sigs.k8s.io/replicatedjob-name",
    "training-job-role",    /* et-operator: launcher, worker */
    "volcano.sh/task-spec", /* Volcano: the task's name */
    "spark-role",           /* Spark: driver, executor */
    "ray.io/node-type",     /* KubeRay: head, worker */
    NULL,
};
static const char *const REPLICA_INDEX_LABELS[] = {
    "training.kubeflow.org/replica-index",
    "replica-index",
    "tf-replica-index",
    "pytorch-replica-index",
    "batch.kubernetes.io/job-completion-index",
    NULL,
};

/* Lowercase copy when needed (the operators write lowercase; old ones did not). */
static char *lowercase(struct scratch *s, const char *v)
{
	char *out;

	for (const char *c = v; *c; c++)
		if (isupper((unsigned char)*c))
			goto copy;
	return (char *)v;
copy:
	out = scratch_strdup(s, v);
	for (char *c = out; c && *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return out ? out : "";
}

static void pod_replica(struct scratch *s, const struct meta_more *m, struct pod *p)
{
	const char *t = first_label(&m->labels, REPLICA_TYPE_LABELS);
	const char *idx = first_label(&m->labels, REPLICA_INDEX_LABELS);
	const char *role = kv_get(&m->labels, "training.kubeflow.org/job-role");

	p->job_role = (char *)(role ? role : "");
	/* mpi-operator v2beta1 sets only job-role (launcher|worker). */
	if (!t && role && (strcmp(role, "launcher") == 0 || strcmp(role, "worker") == 0))
		t = role;
	p->replica_type = t ? lowercase(s, t) : "";
	p->replica_index = -1;
	if (idx) {
		char *end;
		long v = strtol(idx, &end, 10);

		if (*idx && !*end && v >= 0 && v < 1000000)
			p->replica_index = (int)v;
	}
}

static void dec_state(const json_t *st, struct container_state *out)
{
	const json_t *w = json_object_get(st, "waiting");
	const json_t *r = json_object_get(st, "running");
	const json_t *t = json_object_get(st, "terminated");

	memset(out, 0, sizeof(*out));
	out->reason = out->message = out->container_id = "";
	if (json_is_object(t)) {
		out->kind = CONTAINER_TERMINATED;
		out->reason = dec_str(t, "reason");
		out->message = dec_str(t, "message");
		out->exit_code = dec_int(t, "exitCode", 0);
		out->started = dec_time(t, "startedAt");
		out->finished = dec_time(t, "finishedAt");
		out->container_id = dec_str(t, "containerID");
	} else if (json_is_object(r)) {
		out->kind = CONTAINER_RUNNING;
		out->started = dec_time(r, "startedAt");
	} else if (json_is_object(w)) {
		out->kind = CONTAINER_WAITING;
		out->reason = dec_str(w, "reason");
		out->message = dec_str(w, "message");
	}
}

static const json_t *status_named(const json_t *statuses, const char *name)
{
	const json_t *st;
	size_t i;

	json_array_foreach(statuses, i, st)
	{
		const char *n = json_string_value(json_object_get(st, "name"));

		if (n && strcmp(n, name) == 0)
			return st;
	}
	return NULL;
}

static int dec_containers(struct scratch *s, const json_t *specs, const json_t *statuses,
                          struct container **out, size_t *n_out)
{
	const json_t *c;
	size_t i, n = 0;

	*out = NULL;
	*n_out = 0;
	if (!json_is_array(specs) || json_array_size(specs) == 0)
		return 0;
	*out = scratch_alloc(s, json_array_size(specs) * sizeof(struct container));
	if (!*out)
		return -1;
	json_array_foreach(specs, i, c)
	{
		struct container *ct = &(*out)[n];
		const json_t *st;

		if (!json_is_object(c) || !*dec_str(c, "name"))
			continue;
		ct->name = dec_str(c, "name");
		ct->image = dec_str(c, "image");
		ct->gpus = dec_container_gpus(c);
		st = status_named(statuses, ct->name);
		ct->ready = json_is_true(json_object_get(st, "ready"));
		ct->restart_count = dec_int(st, "restartCount", 0);
		ct->container_id = dec_str(st, "containerID");
		dec_state(json_object_get(st, "state"), &ct->state);
		dec_state(json_object_get(st, "lastState"), &ct->last_state);
		n++;
	}
	*n_out = n;
	return 0;
}

static enum pod_phase dec_phase(const char *s)
{
	static const char *const NAMES[] = {
	    [POD_PENDING] = "Pending", [POD_RUNNING] = "Running", [POD_SUCCEEDED] = "Succeeded",
	    [POD_FAILED] = "Failed",   [POD_UNKNOWN] = "Unknown",
	};

	if (!*s)
		return POD_PENDING; /* the API server defaults a new pod's phase to Pending */
	for (int i = POD_PENDING; i <= POD_UNKNOWN; i++)
		if (strcmp(s, NAMES[i]) == 0)
			return (enum pod_phase)i;
	return POD_UNKNOWN;
}

/* PodScheduled=False carries the scheduler's "0/3 nodes are available: ..." */
static char *dec_unschedulable(const json_t *status)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(status, "conditions"), i, c)
	{
		if (strcmp(dec_str(c, "type"), "PodScheduled") == 0 &&
		    strcmp(dec_str(c, "status"), "False") == 0) {
			char *msg = dec_str(c, "message");

			return *msg ? msg : dec_str(c, "reason");
		}
	}
	return "";
}

/* current: the container's own ID. A terminated state names the same instance (78
 * bytes, in most pods of a busy cluster): it shares that copy. */
static void state_layout(struct container_state *st, const char *current, struct packer *pk)
{
	pack_str(pk, &st->reason, true);
	pack_str(pk, &st->message, false);
	pack_str_shared(pk, &st->container_id, current);
}

static void containers_layout(struct container *cs, size_t n, struct packer *pk)
{
	for (size_t i = 0; i < n; i++) {
		pack_str(pk, &cs[i].name, true);
		pack_str(pk, &cs[i].image, true);
		pack_str(pk, &cs[i].container_id, false);
		state_layout(&cs[i].state, cs[i].container_id, pk);
		state_layout(&cs[i].last_state, NULL, pk);
	}
}

static void pod_layout(void *obj, struct packer *pk)
{
	struct pod *p = obj;

	meta_layout(&p->meta, pk);
	pack_array(pk, (void **)&p->containers, p->n_containers, sizeof(struct container));
	pack_array(pk, (void **)&p->init_containers, p->n_init_containers,
	           sizeof(struct container));
	pack_str(pk, &p->job_name, true);
	pack_str(pk, &p->replica_type, true);
	pack_str(pk, &p->job_role, true);
	pack_str(pk, &p->node_name, true);
	pack_str(pk, &p->pod_ip, false);
	pack_str(pk, &p->host_ip, true);
	pack_str(pk, &p->reason, true);
	pack_str(pk, &p->message, false);
	pack_str(pk, &p->unschedulable, true);
	pack_str(pk, &p->priority_class, true);
	pack_str(pk, &p->restart_policy, true);
	containers_layout(p->containers, p->n_containers, pk);
	containers_layout(p->init_containers, p->n_init_containers, pk);
}

struct pod *pod_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	struct meta_more more;
	struct pod tmp;
	struct pod *p = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, &more))
		goto out;
	pod_match_job(&more, &tmp);
	pod_replica(&s, &more, &tmp);
	tmp.node_name = dec_str(spec, "nodeName");
	tmp.priority_class = dec_str(spec, "priorityClassName");
	tmp.restart_policy = dec_str(spec, "restartPolicy");
	tmp.pod_ip = dec_str(status, "podIP");
	tmp.host_ip = dec_str(status, "hostIP");
	tmp.phase = dec_phase(dec_str(status, "phase"));
	tmp.reason = dec_str(status, "reason");
	tmp.message = dec_str(status, "message");
	tmp.unschedulable = dec_unschedulable(status);
	tmp.start_time = dec_time(status, "startTime");
	if (dec_containers(&s, json_object_get(spec, "containers"),
	                   json_object_get(status, "containerStatuses"), &tmp.containers,
	                   &tmp.n_containers) ||
	    dec_containers(&s, json_object_get(spec, "initContainers"),
	                   json_object_get(status, "initContainerStatuses"), &tmp.init_containers,
	                   &tmp.n_init_containers))
		goto out;
	for (size_t i = 0; i < tmp.n_containers; i++)
		tmp.gpus += tmp.containers[i].gpus;
	if (!s.oom)
		p = pack_object(&tmp, sizeof(tmp), pod_layout);
out:
	scratch_free(&s);
	return p;
}

void pod_free(struct pod *p)
{
	pack_free(p, pod_layout);
}
