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
 * JSON as Go's json.MarshalIndent with four spaces, then a newline; YAML in
 * render/yaml_emit.c's layout; both written by render/form_write.c, value by value.
 * Pure: ages from each view's now. Called through fs/base/places.c; tested by
 * tests/unit/test_render_job_tables.c (and test_render_form_write.c, the writer).
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
#include "render/form_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void seconds(struct form *f, const char *key, int64_t s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llds", (long long)s);
	render_form_string(f, key, buf);
}

/* sb's text up to its first newline, as a string; frees sb. */
static void first_line(struct form *f, const char *key, struct strbuf *sb)
{
	if (!strbuf_ok(sb))
		f->failed = true;
	else
		render_form_stringn(f, key, sb->buf ? sb->buf : "",
		                    sb->buf ? strcspn(sb->buf, "\n") : 0);
	strbuf_free(sb);
}

static void instance(struct form *f, const struct job_view *v, const struct pod *p, bool chief)
{
	char status[128];
	bool pending = p->phase == POD_PENDING;

	render_form_object(f, NULL);
	render_form_string(f, "ip", p->pod_ip ? p->pod_ip : "");
	render_form_string(f, "status", render_pod_status_word(p, status, sizeof(status)));
	render_form_string(f, "name", p->meta.name);
	seconds(f, "age", render_pod_age(p, v->now));
	render_form_string(f, "node", pending || !p->node_name ? RENDER_NA : p->node_name);
	render_form_string(f, "nodeIP", pending || !p->host_ip ? RENDER_NA : p->host_ip);
	render_form_bool(f, "chief", chief);
	render_form_int(f, "requestGPUs", p->gpus);
	render_form_object(f, "gpuMetrics");
	render_form_end(f);
	render_form_int(f, "creationTimestamp", p->meta.created);
	render_form_end(f);
}

static int pod_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct pod *const *)a)->meta.name,
	              (*(const struct pod *const *)b)->meta.name);
}

/* The instances by name, as info lists them (Arena: the API server's order). */
static void instances(struct form *f, const struct job_view *v)
{
	int main_pod = render_job_main_pod(v);
	const struct pod *chief = main_pod >= 0 ? v->pods[main_pod] : NULL;
	const struct pod **pods = v->n_pods ? malloc(v->n_pods * sizeof(*pods)) : NULL;

	if (v->n_pods && !pods) {
		f->failed = true;
		return;
	}
	if (v->n_pods) {
		memcpy(pods, v->pods, v->n_pods * sizeof(*pods));
		qsort(pods, v->n_pods, sizeof(*pods), pod_by_name);
	}
	render_form_array(f, "instances");
	for (size_t i = 0; i < v->n_pods; i++)
		instance(f, v, pods[i], pods[i] == chief);
	render_form_end(f);
	free(pods);
}

static void tensorboard(struct form *f, const struct job_view *v)
{
	struct strbuf url = STRBUF_INIT;

	render_job_tensorboard_url(&url, v);
	first_line(f, "tensorboard", &url);
}

static void why(struct form *f, const struct job_view *v)
{
	struct strbuf line = STRBUF_INIT;

	render_job_why(&line, v);
	first_line(f, "why", &line);
}

/* Kueue's queue of the job, as info's Queue line says it; null when Kueue has none. */
static void queue(struct form *f, const struct job_view *v)
{
	const struct workload *w = v->queue.workload;

	if (!w) {
		render_form_null(f, "queue");
		return;
	}
	render_form_object(f, "queue");
	render_form_string(f, "name", w->queue);
	render_form_string(f, "clusterQueue", *w->cluster_queue ? w->cluster_queue
	                                      : v->queue.lq   ? v->queue.lq->cluster_queue
	                                                      : "");
	render_form_string(f, "workload", w->meta.name);
	render_form_end(f);
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

/* Arena's TrainingJobInfo of v as an object, with arenafs's extra keys; YAML: the keys
 * Arena's YAML gives the fields without a yaml tag (modelname, ...). */
static void job_form(struct form *f, const struct job_view *v)
{
	const struct job *job = v->job;
	int main_pod = render_job_main_pod(v);

	render_form_object(f, NULL);
	render_form_string(f, "uuid", job->meta.uid ? job->meta.uid : "");
	render_form_string(f, "name", job->meta.name);
	render_form_string(f, "namespace", job->meta.namespace);
	seconds(f, "duration", render_job_duration(v));
	render_form_string(f, "status", render_job_status_word(v));
	render_form_string(f, "trainer", job_type_name(job));
	tensorboard(f, v);
	render_form_string(f, "chiefName", main_pod >= 0 ? v->pods[main_pod]->meta.name : "");
	instances(f, v);
	render_form_string(f, "priority", job->priority_class[0] ? job->priority_class : RENDER_NA);
	render_form_int(f, "requestGPUs", render_job_gpus_requested(v));
	render_form_int(f, "allocatedGPUs", render_job_gpus_allocated(v));
	render_form_int(f, "creationTimestamp", arena_created(job));
	render_form_string(f, f->yaml ? "modelname" : "modelName", "");
	render_form_string(f, f->yaml ? "modelversion" : "modelVersion", "");
	render_form_string(f, f->yaml ? "modelsource" : "modelSource", "");
	why(f, v);
	queue(f, v);
	render_form_end(f);
}

static void job_document(struct strbuf *sb, const struct job_view *v, bool yaml)
{
	struct form f;

	render_form_init(&f, sb, yaml);
	job_form(&f, v);
	render_form_finish(&f);
}

static void jobs_form(struct strbuf *sb, const struct job_view *jobs, size_t n, bool top,
                      bool yaml)
{
	const struct job_view **order = n ? malloc(n * sizeof(*order)) : NULL;
	struct form f;

	render_form_init(&f, sb, yaml);
	if ((n && !order) || render_jobs_order(jobs, n, top, order) != 0) {
		f.failed = true;
	} else {
		render_form_array(&f, NULL);
		for (size_t i = 0; i < n; i++)
			job_form(&f, order[i]);
		render_form_end(&f);
	}
	render_form_finish(&f);
	free(order);
}

void render_job_info_json(struct strbuf *sb, const struct job_view *v)
{
	job_document(sb, v, false);
}

void render_job_info_yaml(struct strbuf *sb, const struct job_view *v)
{
	job_document(sb, v, true);
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
