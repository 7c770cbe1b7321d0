/*
 * The job files that are the object itself: type, job.json, spec.yaml, suspend; and the
 * st_mtime the tree gives a job's files.
 *
 * - job.json is `kubectl get -o json`: the object as the API server sent it, keys
 *   sorted (kubectl prints custom resources from a map), four-space indent,
 *   metadata.managedFields left out (kubectl hides them since 1.21), reals in
 *   their shortest exact form.
 * - spec.yaml is the arenafs.io/spec annotation (the small spec a job was submitted
 *   with, as written), else the object as YAML, made to be created again: status
 *   and the fields the API server sets (uid, resourceVersion, generation,
 *   creationTimestamp, deletion*, managedFields, selfLink) are left out, so
 *   `cp jobs/X/spec.yaml submit/Y.yaml` makes job Y (the name in submit/ wins over
 *   metadata.name); job.json has all.
 *
 * Pure. Tested by tests/unit/test_render_job_files.c.
 */
#include "render/job_files.h"
#include "render/render.h"
#include "render/text.h"

#include <string.h>

#include "render/yaml_emit.h"

/* What the API server fills in and refuses (or ignores) on create. */
static const char *const SERVER_METADATA[] = {
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
};

void render_job_type(struct strbuf *sb, const struct job *job)
{
	strbuf_puts(sb, job_type_name(job));
	strbuf_putc(sb, '\n');
}

void render_job_suspend(struct strbuf *sb, const struct job *job)
{
	strbuf_puts(sb, job->suspend ? "1\n" : "0\n");
}

/* The object from raw_json, or NULL (no raw text, or not JSON: never from the decoder). */
static json_t *job_object(const struct job *job)
{
	json_t *obj = job->raw_json ? json_loads(job->raw_json, 0, NULL) : NULL;

	if (obj && !json_is_object(obj)) {
		json_decref(obj);
		obj = NULL;
	}
	return obj;
}

/* The most digits any real in v needs to read back exactly. */
static int max_real_digits(const json_t *v)
{
	int max = 1;
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_real(v))
		return render_real_digits(json_real_value(v));
	if (json_is_object(v))
		json_object_foreach((json_t *)v, key, item)
		{
			int d = max_real_digits(item);

			max = d > max ? d : max;
		}
	if (json_is_array(v))
		json_array_foreach(v, i, item)
		{
			int d = max_real_digits(item);

			max = d > max ? d : max;
		}
	return max;
}

void render_job_json(struct strbuf *sb, const struct job *job)
{
	json_t *obj = job_object(job);
	char *text;

	if (!obj) {
		strbuf_puts(sb, job->raw_json && *job->raw_json ? job->raw_json : "{}");
		strbuf_putc(sb, '\n');
		return;
	}
	json_object_del(json_object_get(obj, "metadata"), "managedFields");
	text = json_dumps(obj, JSON_INDENT(4) | JSON_SORT_KEYS |
	                           JSON_REAL_PRECISION(max_real_digits(obj)));
	if (!text) {
		sb->oom = true;
	} else {
		strbuf_puts(sb, text);
		strbuf_putc(sb, '\n');
	}
	free(text);
	json_decref(obj);
}

void render_job_spec_yaml(struct strbuf *sb, const struct job *job)
{
	json_t *obj, *meta;
	size_t len;

	if (job->spec_annotation && *job->spec_annotation) {
		len = strlen(job->spec_annotation);
		strbuf_append(sb, job->spec_annotation, len);
		if (job->spec_annotation[len - 1] != '\n')
			strbuf_putc(sb, '\n');
		return;
	}
	obj = job_object(job);
	if (!obj) {
		strbuf_puts(sb, "{}\n");
		return;
	}
	json_object_del(obj, "status");
	meta = json_object_get(obj, "metadata");
	for (size_t i = 0; i < sizeof(SERVER_METADATA) / sizeof(SERVER_METADATA[0]); i++)
		json_object_del(meta, SERVER_METADATA[i]);
	render_yaml_emit(sb, obj);
	json_decref(obj);
}

static void latest(int64_t *t, int64_t candidate)
{
	if (candidate > *t)
		*t = candidate;
}

/* deletionTimestamp is when the grace period ends, which is often still to come: an
 * mtime is never later than now. */
static int64_t deletion(int64_t deleted, int64_t now)
{
	return deleted && now && deleted > now ? now : deleted;
}

static void latest_of_container(int64_t *t, const struct container *c)
{
	latest(t, c->state.started);
	latest(t, c->state.finished);
	latest(t, c->last_state.started);
	latest(t, c->last_state.finished);
}

int64_t render_job_mtime(const struct job_view *v)
{
	const struct job *job = v->job;
	int64_t t = job->meta.created;

	latest(&t, job->start_time);
	latest(&t, job->completion_time);
	latest(&t, deletion(job->meta.deleted, v->now));
	for (size_t i = 0; i < job->n_conditions; i++)
		latest(&t, job->conditions[i].last_transition);
	/* progress and metrics, info's Progress: when the script last reported (its
	 * pod's clock, which may run ahead of ours) */
	latest(&t, job->trainer.updated < v->now ? job->trainer.updated : v->now);
	/* The status word and info also follow the pods (a Pending pod makes a RUNNING
	 * job PENDING): their creation, start, deletion and container transitions. */
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];

		latest(&t, p->meta.created);
		latest(&t, p->start_time);
		latest(&t, deletion(p->meta.deleted, v->now));
		for (size_t c = 0; c < p->n_containers; c++)
			latest_of_container(&t, &p->containers[c]);
		for (size_t c = 0; c < p->n_init_containers; c++)
			latest_of_container(&t, &p->init_containers[c]);
	}
	return t;
}

/* ---- a pod's files (fs/ gives them this mtime) ---- */

static int64_t pod_later(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t container_mtime(const struct container *c, int64_t t)
{
	t = pod_later(t, c->state.started);
	t = pod_later(t, c->state.finished);
	return pod_later(t, c->last_state.finished);
}

int64_t render_pod_mtime(const struct pod *p, int64_t now)
{
	int64_t t = pod_later(p->meta.created, p->start_time);

	t = pod_later(t, p->meta.deleted);
	for (size_t i = 0; i < p->n_containers; i++)
		t = container_mtime(&p->containers[i], t);
	for (size_t i = 0; i < p->n_init_containers; i++)
		t = container_mtime(&p->init_containers[i], t);
	/* a deletion timestamp lies in the future by the grace period */
	return t > now ? now : t;
}
