/*
 * Training jobs (every kind of kinds.h) → struct job: conditions, replica specs
 * with their GPUs and images, replica statuses, times, priority, the spec
 * annotation and a compact dump of the object for job.json.
 *
 * The training-operator kinds share one shape (spec.<kind>ReplicaSpecs,
 * spec.runPolicy, status.replicaStatuses), as does et-operator's TrainingJob
 * (etReplicaSpecs); TrainJob has spec.trainer and status.jobsStatus instead
 * (Kubeflow Trainer v1alpha1); Volcano, Spark and Ray each have their own (the
 * kind's `shape`, kinds.h). The kinds whose status is one string (Volcano's
 * state.phase...) keep it in job->state. A TrainJob's status.trainerStatus (what
 * its script reported: progress, time left, metrics) goes to job->trainer.
 * No I/O, no locks.
 */
#include "k8s/objects/decode.h"

#include "k8s/base/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define TRAINJOB_REPLICA_TYPE "Node" /* what the tree calls TrainJob's one replica */
#define RAY_HEAD_TYPE "Head"           /* and Ray's head group, Spark's two roles */
#define SPARK_DRIVER_TYPE "Driver"
#define SPARK_EXECUTOR_TYPE "Executor"

/* obj at a dotted path ("state.phase"), or NULL. */
static const json_t *dec_path(const json_t *obj, const char *path)
{
	char key[64];

	while (obj && path && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path = dot ? dot + 1 : NULL;
	}
	return obj;
}

static const json_t *first_container(const json_t *template)
{
	return json_array_get(json_object_get(json_object_get(template, "spec"), "containers"), 0);
}

static int template_gpus(const json_t *template)
{
	const json_t *c;
	size_t i;
	int sum = 0;

	json_array_foreach(json_object_get(json_object_get(template, "spec"), "containers"), i, c)
	    sum += dec_container_gpus(c);
	return sum;
}

/* One replica from a pod template; type borrows from the JSON. */
static void fill_replica(struct job_replica *r, const char *type, int replicas,
                         const json_t *tpl)
{
	r->type = (char *)type;
	r->replicas = replicas;
	r->gpus = template_gpus(tpl);
	r->image = dec_str(first_container(tpl), "image");
}

/* spec.<replica_field>: {"Worker": {replicas, template}, ...} in the object's order. */
static int dec_replica_specs(struct scratch *s, const json_t *specs, const json_t *status,
                             struct job *j)
{
	const json_t *statuses = json_object_get(status, "replicaStatuses");
	const char *type;
	json_t *rs;
	size_t n = 0;

	if (!json_is_object(specs) || json_object_size(specs) == 0)
		return 0;
	j->replicas = scratch_alloc(s, json_object_size(specs) * sizeof(struct job_replica));
	if (!j->replicas)
		return -1;
	json_object_foreach((json_t *)specs, type, rs)
	{
		struct job_replica *r = &j->replicas[n];
		const json_t *tpl = json_object_get(rs, "template");
		const json_t *st = json_object_get(statuses, type);

		if (!json_is_object(rs))
			continue;
		fill_replica(r, type, dec_int(rs, "replicas", 1), tpl);
		r->active = dec_int(st, "active", 0);
		r->succeeded = dec_int(st, "succeeded", 0);
		r->failed = dec_int(st, "failed", 0);
		n++;
	}
	j->n_replicas = n;
	return 0;
}

/* TrainJob: one replica, the trainer's nodes; status from its JobSet's jobs. */
static int dec_trainer(struct scratch *s, const json_t *spec, const json_t *status, struct job *j)
{
	const json_t *trainer = json_object_get(spec, "trainer");
	const json_t *res = json_object_get(trainer, "resourcesPerNode");
	const json_t *js;
	struct job_replica *r;
	size_t i;

	if (!json_is_object(trainer))
		return 0;
	r = j->replicas = scratch_alloc(s, sizeof(struct job_replica));
	if (!r)
		return -1;
	j->n_replicas = 1;
	r->type = TRAINJOB_REPLICA_TYPE;
	r->replicas = dec_int(trainer, "numNodes", 1);
	r->gpus =
	    dec_count_quantity(json_object_get(json_object_get(res, "limits"), "nvidia.com/gpu"));
	r->image = dec_str(trainer, "image");
	json_array_foreach(json_object_get(status, "jobsStatus"), i, js)
	{
		r->active += dec_int(js, "active", 0);
		r->succeeded += dec_int(js, "succeeded", 0);
		r->failed += dec_int(js, "failed", 0);
	}
	return 0;
}

/* status.trainerStatus, when there (dec_trainer_status's caller keeps it for
 * every kind: only a TrainJob has one). Metrics borrow their strings from the JSON. */
static int dec_trainer_status(struct scratch *s, const json_t *status,
                              struct job_trainer_status *t)
{
	const json_t *ts = json_object_get(status, "trainerStatus");
	const json_t *m;
	size_t i, n;

	t->progress = -1;
	t->remaining = -1;
	if (!json_is_object(ts))
		return 0;
	t->reported = true;
	if (json_is_integer(json_object_get(ts, "progressPercentage")))
		t->progress = dec_int(ts, "progressPercentage", -1);
	if (json_is_integer(json_object_get(ts, "estimatedRemainingSeconds")))
		t->remaining = json_integer_value(json_object_get(ts, "estimatedRemainingSeconds"));
	t->updated = dec_time(ts, "lastUpdatedTime");
	n = json_array_size(json_object_get(ts, "metrics"));
	if (!n)
		return 0;
	t->metrics = scratch_alloc(s, n * sizeof(struct job_metric));
	if (!t->metrics)
		return -1;
	json_array_foreach(json_object_get(ts, "metrics"), i, m)
	{
		if (!json_is_string(json_object_get(m, "name")))
			continue;
		t->metrics[t->n_metrics].name = (char *)json_string_value(json_object_get(m, "name"));
		t->metrics[t->n_metrics++].value = dec_str(m, "value");
	}
	return 0;
}

/* Volcano: spec.tasks[] {name, replicas, template}; status.taskStatusCount is
 * per pod phase, not kept. */
static int dec_tasks(struct scratch *s, const json_t *spec, struct job *j)
{
	const json_t *tasks = json_object_get(spec, "tasks");
	const json_t *t;
	size_t i, n = 0;

	if (!json_is_array(tasks) || json_array_size(tasks) == 0)
		return 0;
	j->replicas = scratch_alloc(s, json_array_size(tasks) * sizeof(struct job_replica));
	if (!j->replicas)
		return -1;
	json_array_foreach(tasks, i, t)
	{
		if (!json_is_object(t))
			continue;
		fill_replica(&j->replicas[n++], dec_str(t, "name"), dec_int(t, "replicas", 1),
		             json_object_get(t, "template"));
	}
	j->n_replicas = n;
	return 0;
}

/* Spark: one driver and spec.executor.instances executors, one image for both
 * (a role's own image wins); GPUs as the operator's gpu: {name, quantity}. */
static int dec_spark(struct scratch *s, const json_t *spec, struct job *j)
{
	static const struct {
		const char *field, *type;
	} ROLES[] = {{"driver", SPARK_DRIVER_TYPE}, {"executor", SPARK_EXECUTOR_TYPE}};
	size_t n = 0;

	j->replicas = scratch_alloc(s, 2 * sizeof(struct job_replica));
	if (!j->replicas)
		return -1;
	for (size_t i = 0; i < 2; i++) {
		const json_t *role = json_object_get(spec, ROLES[i].field);
		const json_t *gpu = json_object_get(role, "gpu");
		struct job_replica *r = &j->replicas[n];

		if (!json_is_object(role))
			continue;
		r->type = (char *)ROLES[i].type;
		r->replicas = i == 0 ? 1 : dec_int(role, "instances", 1);
		if (strcmp(dec_str(gpu, "name"), "nvidia.com/gpu") == 0)
			r->gpus = dec_int(gpu, "quantity", 0);
		r->image = dec_str(role, "image");
		if (!*r->image)
			r->image = dec_str(spec, "image");
		n++;
	}
	j->n_replicas = n;
	return 0;
}

/* Ray: spec.rayClusterSpec's head group (one pod) and worker groups. */
static int dec_ray(struct scratch *s, const json_t *spec, struct job *j)
{
	const json_t *cluster = json_object_get(spec, "rayClusterSpec");
	const json_t *head = json_object_get(cluster, "headGroupSpec");
	const json_t *workers = json_object_get(cluster, "workerGroupSpecs");
	const json_t *g;
	size_t i, n = 0;

	if (!json_is_object(cluster))
		return 0;
	j->replicas = scratch_alloc(s, (1 + json_array_size(workers)) * sizeof(struct job_replica));
	if (!j->replicas)
		return -1;
	if (json_is_object(head))
		fill_replica(&j->replicas[n++], RAY_HEAD_TYPE, 1, json_object_get(head, "template"));
	json_array_foreach(workers, i, g)
	{
		if (!json_is_object(g))
			continue;
		fill_replica(&j->replicas[n++], dec_str(g, "groupName"), dec_int(g, "replicas", 1),
		             json_object_get(g, "template"));
	}
	j->n_replicas = n;
	return 0;
}

static int dec_replicas(struct scratch *s, const struct job_kind_info *ki, const json_t *spec,
                        const json_t *status, struct job *j)
{
	switch (ki->shape) {
	case REPLICAS_MAP:
		return dec_replica_specs(s, json_object_get(spec, ki->replica_field), status, j);
	case REPLICAS_TRAINER:
		return dec_trainer(s, spec, status, j);
	case REPLICAS_TASKS:
		return dec_tasks(s, spec, j);
	case REPLICAS_SPARK:
		return dec_spark(s, spec, j);
	case REPLICAS_RAY:
		return dec_ray(s, spec, j);
	}
	return 0;
}

/* runPolicy.schedulingPolicy.priorityClass, else the first template's class. */
static char *dec_priority(const json_t *spec, const struct job_kind_info *ki)
{
	const json_t *sp = json_object_get(json_object_get(spec, "runPolicy"), "schedulingPolicy");
	const char *type;
	json_t *rs;
	char *pc = dec_str(sp, "priorityClass");

	if (*pc || !ki->replica_field)
		return pc;
	json_object_foreach(json_object_get(spec, ki->replica_field), type, rs)
	{
		pc = dec_str(json_object_get(json_object_get(rs, "template"), "spec"),
		             "priorityClassName");
		if (*pc)
			return pc;
	}
	return "";
}

/*
 * The object as compact JSON, without metadata.managedFields: the server's
 * bookkeeping of who set which field, often half the object, which `kubectl get
 * -o json` hides too (--show-managed-fields=false).
 */
static char *dump_without_managed_fields(struct scratch *s, json_t *obj)
{
	json_t *md = json_object_get(obj, "metadata");
	json_t *top = NULL, *md2 = NULL;
	char *text, *out = NULL;

	if (json_object_get(md, "managedFields")) {
		top = json_copy(obj); /* shallow: shares the children */
		md2 = json_copy(md);
		if (!top || !md2 || json_object_del(md2, "managedFields") ||
		    json_object_set(top, "metadata", md2))
			goto out;
		obj = top;
	}
	text = json_dumps(obj, JSON_COMPACT);
	if (text) {
		out = scratch_strdup(s, text);
		free(text);
	}
out:
	json_decref(md2);
	json_decref(top);
	if (!out)
		s->oom = true;
	return out;
}

/* Depth enough for every kind's pod templates (spec.pytorchReplicaSpecs.Worker.
 * template.spec.volumes[i].persistentVolumeClaim is 7 deep; JobSet's 9). */
#define CLAIM_DEPTH_MAX 16

/* Appends to sb, once each, the claimName of every persistentVolumeClaim volume
 * source found under v: whatever the kind, its pod templates hold them there. */
static void find_claims(const json_t *v, int depth, struct strbuf *sb)
{
	const char *key, *name;
	const json_t *x;
	size_t i;

	if (depth > CLAIM_DEPTH_MAX)
		return;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			find_claims(x, depth + 1, sb);
		return;
	}
	json_object_foreach((json_t *)v, key, x) {
		name = strcmp(key, "persistentVolumeClaim") == 0
		           ? json_string_value(json_object_get(x, "claimName"))
		           : NULL;
		if (!name) {
			find_claims(x, depth + 1, sb);
		} else if (*name && !list_has(strbuf_str(sb), name)) {
			if (sb->len)
				strbuf_putc(sb, ',');
			strbuf_puts(sb, name);
		}
	}
}

/* The job's claims, comma-joined (struct job's claims), on s. */
static char *dec_claims(struct scratch *s, const json_t *spec)
{
	struct strbuf sb = STRBUF_INIT;

	find_claims(spec, 0, &sb);
	return dec_take(s, &sb);
}

static void job_layout(void *obj, struct packer *pk)
{
	struct job *j = obj;

	meta_layout(&j->meta, pk);
	pack_array(pk, (void **)&j->conditions, j->n_conditions, sizeof(struct job_condition));
	pack_array(pk, (void **)&j->replicas, j->n_replicas, sizeof(struct job_replica));
	pack_str(pk, &j->api_version, true);
	pack_str(pk, &j->priority_class, true);
	pack_str(pk, &j->state, true);
	pack_str(pk, &j->claims, true);
	pack_str(pk, &j->raw_json, false);
	pack_array(pk, (void **)&j->trainer.metrics, j->trainer.n_metrics,
	           sizeof(struct job_metric));
	for (size_t i = 0; i < j->trainer.n_metrics; i++) {
		pack_str(pk, &j->trainer.metrics[i].name, true);
		pack_str(pk, &j->trainer.metrics[i].value, false);
	}
	for (size_t i = 0; i < j->n_conditions; i++) {
		pack_str(pk, &j->conditions[i].type, true);
		pack_str(pk, &j->conditions[i].reason, true);
		pack_str(pk, &j->conditions[i].message, false);
	}
	for (size_t i = 0; i < j->n_replicas; i++) {
		pack_str(pk, &j->replicas[i].type, true);
		pack_str(pk, &j->replicas[i].image, true);
	}
	/* spec_annotation and code_annotation are not fields of their own: they point at
	 * the annotations' values (set after packing), so they are neither copied nor
	 * released here. */
}

struct job *job_decode(json_t *obj, enum job_kind kind)
{
	const struct job_kind_info *ki = kinds_info(kind);
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	const char *obj_kind = json_string_value(json_object_get(obj, "kind"));
	struct job tmp;
	struct job *j = NULL;
	int rc;

	memset(&tmp, 0, sizeof(tmp));
	if (!ki || (obj_kind && strcmp(obj_kind, ki->kind_name) != 0) ||
	    dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.kind = kind;
	/* the one label read before the others are dropped (Arena tells its DeepSpeedJob
	 * from its ETJob, both et-operator TrainingJobs, by it) */
	tmp.deepspeed = kind == JOB_ETJOB &&
	                json_is_string(dec_path(obj, "metadata.labels.app")) &&
	                strcmp(json_string_value(dec_path(obj, "metadata.labels.app")),
	                       "deepspeedjob") == 0;
	tmp.api_version = dec_str(obj, "apiVersion");
	tmp.start_time = ki->start_field ? dec_time(status, ki->start_field) : 0;
	tmp.completion_time = ki->end_field ? dec_time(status, ki->end_field) : 0;
	tmp.state = "";
	if (ki->state_field && json_is_string(dec_path(status, ki->state_field)))
		tmp.state = (char *)json_string_value(dec_path(status, ki->state_field));
	tmp.priority_class = dec_priority(spec, ki);
	tmp.suspend = ki->suspend_field && json_is_true(dec_path(spec, ki->suspend_field));
	rc = dec_condition_list(&s, status, &tmp.conditions, &tmp.n_conditions);
	if (!rc)
		rc = dec_replicas(&s, ki, spec, status, &tmp);
	if (!rc)
		rc = dec_trainer_status(&s, status, &tmp.trainer);
	if (rc)
		goto out;
	tmp.claims = dec_claims(&s, spec);
	tmp.raw_json = dump_without_managed_fields(&s, obj);
	if (s.oom)
		goto out;
	j = pack_object(&tmp, sizeof(tmp), job_layout);
	if (j) {
		j->spec_annotation = (char *)kv_get(&j->meta.annotations, "arenafs.io/spec");
		j->code_annotation = (char *)kv_get(&j->meta.annotations, "arenafs.io/code");
	}
out:
	scratch_free(&s);
	return j;
}

void job_free(struct job *j)
{
	pack_free(j, job_layout);
}

const char *job_type_name(const struct job *j)
{
	return j->deepspeed ? "deepspeedjob" : kinds_info(j->kind)->type;
}

const char *job_trainer_name(const struct job *j)
{
	return j->deepspeed ? "DEEPSPEEDJOB" : kinds_info(j->kind)->trainer;
}
