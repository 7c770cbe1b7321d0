/*
 * The JSON and YAML forms of the job tables and of info, for scripts and notebooks:
 * cluster/list.json and .yaml (`arena list -o json|yaml`), list-all.* (`list -A`),
 * top-job.* (`arena top job`) and jobs/NAME/info.* (`arena get NAME`).
 *
 * The document is Arena 0.15's (pkg/apis/types/training.go TrainingJobInfo, built by
 * pkg/training/get_advanced.go BuildJobInfo): the same keys, nesting and value
 * formats — duration and each instance's age "123s", creationTimestamp Unix seconds
 * (the job's: Arena's StartTime(), see arena_created; an instance's: its creation), priority "N/A"
 * when it has none, tensorboard "" when none, nodeIP and node "N/A" while an instance
 * is Pending, gpuMetrics {} (arenafs reads no Prometheus), allocatedGPUs a number
 * even where the table prints N/A. The lists are arrays of it, in the tables' order;
 * get is one. Arena's YAML names the untagged fields by Go's lower-cased name
 * (modelname, modelversion, modelsource), so the YAML form does too. Values are
 * the tables' (status, duration, GPUs: the same functions), so a table and its form
 * never disagree.
 *
 * arenafs's extra keys, after Arena's: "why" (the why file's line) and "queue"
 * (Kueue's: {name, clusterQueue, workload}, or null).
 *
 * JSON as Go's json.MarshalIndent with four spaces, then a newline; YAML through
 * render/yaml_emit.c. Pure: ages from each view's now. Called through fs/base/places.c;
 * tested by tests/unit/test_render_job_forms.c.
 */
#include "render/job_forms.h"
#include "render/gpus.h"
#include "render/job_info.h"
#include "render/job_times.h"
#include "render/job_tables.h"
#include "render/pods.h"
#include "render/status.h"
#include "render/tensorboard.h"
#include "render/text.h"
#include "render/why.h"
#include "render/yaml_emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool render_form_put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

#define put render_form_put       /* the lines below are all puts */

static json_t *seconds(int64_t s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llds", (long long)s);
	return json_string(buf);
}

/* sb's text up to its first newline, as a JSON string (NULL: no memory or not
 * UTF-8); frees sb. */
static json_t *first_line(struct strbuf *sb)
{
	json_t *s = !strbuf_ok(sb) ? NULL
	            : sb->buf      ? json_stringn(sb->buf, strcspn(sb->buf, "\n"))
	                           : json_string("");

	strbuf_free(sb);
	return s;
}

static json_t *instance(const struct job_view *v, const struct pod *p, bool chief)
{
	json_t *o = json_object();
	char status[128];
	bool pending = p->phase == POD_PENDING;
	bool ok = o && put(o, "ip", json_string(p->pod_ip ? p->pod_ip : "")) &&
	          put(o, "status", json_string(render_pod_status_word(p, status, sizeof(status)))) &&
	          put(o, "name", json_string(p->meta.name)) &&
	          put(o, "age", seconds(render_pod_age(p, v->now))) &&
	          put(o, "node", json_string(pending || !p->node_name ? RENDER_NA : p->node_name)) &&
	          put(o, "nodeIP", json_string(pending || !p->host_ip ? RENDER_NA : p->host_ip)) &&
	          put(o, "chief", json_boolean(chief)) &&
	          put(o, "requestGPUs", json_integer(p->gpus)) &&
	          put(o, "gpuMetrics", json_object()) &&
	          put(o, "creationTimestamp", json_integer(p->meta.created));

	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static int pod_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct pod *const *)a)->meta.name,
	              (*(const struct pod *const *)b)->meta.name);
}

/* The instances by name, as info lists them (Arena: the API server's order). */
static json_t *instances(const struct job_view *v)
{
	int main_pod = render_job_main_pod(v);
	const struct pod *chief = main_pod >= 0 ? v->pods[main_pod] : NULL;
	const struct pod **pods = v->n_pods ? malloc(v->n_pods * sizeof(*pods)) : NULL;
	json_t *a = json_array();
	bool ok = a && (pods || !v->n_pods);

	if (ok && v->n_pods) {
		memcpy(pods, v->pods, v->n_pods * sizeof(*pods));
		qsort(pods, v->n_pods, sizeof(*pods), pod_by_name);
	}
	for (size_t i = 0; ok && i < v->n_pods; i++)
		ok = json_array_append_new(a, instance(v, pods[i], pods[i] == chief)) == 0;
	free(pods);
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *tensorboard(const struct job_view *v)
{
	struct strbuf url = STRBUF_INIT;

	render_job_tensorboard_url(&url, v);
	return first_line(&url);
}

static json_t *why(const struct job_view *v)
{
	struct strbuf line = STRBUF_INIT;

	render_job_why(&line, v);
	return first_line(&line);
}

/* Kueue's queue of the job, as info's Queue line says it; null when Kueue has none. */
static json_t *queue(const struct job_view *v)
{
	const struct workload *w = v->queue.workload;
	const char *cq;
	json_t *o;

	if (!w)
		return json_null();
	cq = *w->cluster_queue ? w->cluster_queue : v->queue.lq ? v->queue.lq->cluster_queue : "";
	o = json_object();
	if (o && put(o, "name", json_string(w->queue)) && put(o, "clusterQueue", json_string(cq)) &&
	    put(o, "workload", json_string(w->meta.name)))
		return o;
	json_decref(o);
	return NULL;
}

/* The job's creationTimestamp as Arena prints it: its StartTime(), which is
 * status.startTime for a TFJob (0 before it) and metadata.creationTimestamp for every
 * other kind Arena reads (trainer_pytorch.go, trainer_mpi.go, ...). The two are often
 * in the same second, so taking one for the other passed most runs and failed some.
 * Kinds Arena does not read (TrainJob, XGBoost, ...) get their creation too. */
static int64_t arena_created(const struct job *job)
{
	return job->kind == JOB_TFJOB ? job->start_time : job->meta.created;
}

/* Arena's TrainingJobInfo of v as a JSON object, with arenafs's extra keys; yaml: the
 * keys Arena's YAML gives the fields without a yaml tag (modelname, ...). NULL: no
 * memory. */
static json_t *render_job_form(const struct job_view *v, bool yaml)
{
	const struct job *job = v->job;
	int main_pod = render_job_main_pod(v);
	json_t *o = json_object();
	bool ok =
	    o && put(o, "uuid", json_string(job->meta.uid ? job->meta.uid : "")) &&
	    put(o, "name", json_string(job->meta.name)) &&
	    put(o, "namespace", json_string(job->meta.namespace)) &&
	    put(o, "duration", seconds(render_job_duration(v))) &&
	    put(o, "status", json_string(render_job_status_word(v))) &&
	    put(o, "trainer", json_string(job_type_name(job))) &&
	    put(o, "tensorboard", tensorboard(v)) &&
	    put(o, "chiefName", json_string(main_pod >= 0 ? v->pods[main_pod]->meta.name : "")) &&
	    put(o, "instances", instances(v)) &&
	    put(o, "priority", json_string(job->priority_class[0] ? job->priority_class : RENDER_NA)) &&
	    put(o, "requestGPUs", json_integer(render_job_gpus_requested(v))) &&
	    put(o, "allocatedGPUs", json_integer(render_job_gpus_allocated(v))) &&
	    put(o, "creationTimestamp", json_integer(arena_created(job))) &&
	    put(o, yaml ? "modelname" : "modelName", json_string("")) &&
	    put(o, yaml ? "modelversion" : "modelVersion", json_string("")) &&
	    put(o, yaml ? "modelsource" : "modelSource", json_string("")) &&
	    put(o, "why", why(v)) && put(o, "queue", queue(v));

	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

void render_form_emit(struct strbuf *sb, json_t *doc, bool yaml)
{
	char *text;

	if (!doc) {
		sb->oom = true;
		return;
	}
	if (yaml) {
		render_yaml_emit(sb, doc);
	} else if ((text = json_dumps(doc, JSON_INDENT(4) | JSON_PRESERVE_ORDER))) {
		strbuf_puts(sb, text);
		strbuf_putc(sb, '\n');
		free(text);
	} else {
		sb->oom = true;
	}
	json_decref(doc);
}

static void jobs_form(struct strbuf *sb, const struct job_view *jobs, size_t n, bool top,
                      bool yaml)
{
	const struct job_view **order = n ? malloc(n * sizeof(*order)) : NULL;
	json_t *a = json_array();
	bool ok = a && (order || !n) && render_jobs_order(jobs, n, top, order) == 0;

	for (size_t i = 0; ok && i < n; i++)
		ok = json_array_append_new(a, render_job_form(order[i], yaml)) == 0;
	free(order);
	if (!ok) {
		json_decref(a);
		a = NULL;
	}
	render_form_emit(sb, a, yaml);
}

void render_job_info_json(struct strbuf *sb, const struct job_view *v)
{
	render_form_emit(sb, render_job_form(v, false), false);
}

void render_job_info_yaml(struct strbuf *sb, const struct job_view *v)
{
	render_form_emit(sb, render_job_form(v, true), true);
}

void render_jobs_list_json(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	jobs_form(sb, jobs, n, false, false);
}

void render_jobs_list_yaml(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	jobs_form(sb, jobs, n, false, true);
}

void render_jobs_top_json(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	jobs_form(sb, jobs, n, true, false);
}

void render_jobs_top_yaml(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	jobs_form(sb, jobs, n, true, true);
}
