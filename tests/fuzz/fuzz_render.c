/*
 * libFuzzer target: objects → text (render/). The input is JSON
 * {"job": {...}, "pods": [...], "nodes": [...], "events": [...], "pvcs": [...], "log": "...",
 *  "prometheus": {a /api/v1/query answer}};
 * "log" stands for a failed instance's kept log, whose end why quotes (why must
 * stay lines without control characters, in UTF-8, whatever it holds); "prometheus"
 * for the GPU figures of jobs/NAME/gpus and instances/POD/gpus; what decodes
 * becomes a job view, a node view and a data view, and every job, node and data/
 * file is rendered from it (and the tables of jobs), as the tree would show them;
 * each pod's main container's state and last state as instances/POD/attempts/N/info;
 * and the whole input as YAML (render/yaml_emit.c: spec.yaml of a foreign job,
 * and each document of check/NAME/objects.yaml); its "clusterqueues",
 * "localqueues", "workloads" and "cohorts" as cluster/queues and queues/list and
 * their forms (render/queues.c, render/queue_quota.c, render/queue_forms.c). The
 * JSON forms (list.json, info.json, top.json, data/list.json, queues.json,
 * progress.json, metrics.json, ...) must each be one JSON document, whatever the
 * input (abort otherwise); their YAML twins are rendered too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/gpumetrics.h"
#include "k8s/objects/objects.h"
#include "render/render.h"
#include "render/attempt.h"
#include "render/data.h"
#include "render/why.h"
#include "render/job_files.h"
#include "render/progress.h"
#include "render/suspend_note.h"
#include "render/events.h"
#include "render/gpus.h"
#include "render/node_info.h"
#include "render/job_info.h"
#include "render/job_forms.h"
#include "render/job_tables.h"
#include "render/node_forms.h"
#include "render/status.h"
#include "render/yaml_emit.h"
#include "render/queue_forms.h"
#include "render/queues.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/textsafe.h"

#define MAX_ITEMS 64

/* Unicode's bidirectional controls in UTF-8 (Bidi_Control: U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069), listed here apart from textsafe.c. */
static const char *const BIDI[] = {"\xD8\x9C",     "\xE2\x80\x8E", "\xE2\x80\x8F", "\xE2\x80\xAA",
                                   "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE",
                                   "\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9"};

/* why, its quoted log included, is lines without control characters, in UTF-8
 * (docs/tree.md), whatever the log holds (NUL, escape sequences, bidirectional
 * overrides): each line is what the sanitizer makes of it, and holds no
 * bidirectional control (checked apart: a sanitizer that let one through would
 * leave the line as it found it). */
static void why_lines_are_safe(const struct job_view *v)
{
	struct strbuf why = STRBUF_INIT, safe = STRBUF_INIT;
	const char *line;

	render_job_why(&why, v);
	for (line = strbuf_str(&why); *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		strbuf_reset(&safe);
		textsafe_line(&safe, line, n);
		if (safe.len != n || memcmp(strbuf_str(&safe), line, n) != 0)
			abort();
		for (size_t i = 0; i < sizeof(BIDI) / sizeof(BIDI[0]); i++)
			if (memmem(line, n, BIDI[i], strlen(BIDI[i])))
				abort();
		line += n + (nl != NULL);
	}
	strbuf_free(&why);
	strbuf_free(&safe);
}

static void check_form(struct strbuf *sb);

/* The queue files of the input's Kueue objects, and their forms. */
static void render_queue_files(json_t *root, struct strbuf *sb)
{
	const struct clusterqueue *cqs[MAX_ITEMS];
	const struct localqueue *lqs[MAX_ITEMS];
	const struct workload *wls[MAX_ITEMS];
	const struct kueue_cohort *cos[MAX_ITEMS];
	size_t ncq = 0, nlq = 0, nwl = 0, nco = 0, i;
	json_t *item;

	json_array_foreach(json_object_get(root, "clusterqueues"), i, item)
		if (ncq < MAX_ITEMS && (cqs[ncq] = clusterqueue_decode(item)))
			ncq++;
	json_array_foreach(json_object_get(root, "localqueues"), i, item)
		if (nlq < MAX_ITEMS && (lqs[nlq] = localqueue_decode(item)))
			nlq++;
	json_array_foreach(json_object_get(root, "workloads"), i, item)
		if (nwl < MAX_ITEMS && (wls[nwl] = workload_decode(item)))
			nwl++;
	json_array_foreach(json_object_get(root, "cohorts"), i, item)
		if (nco < MAX_ITEMS && (cos[nco] = cohort_decode(item)))
			nco++;
	struct queue_view qv = {cqs, ncq, lqs, nlq, wls, nwl, NULL, 0, true, true, 1764669600,
	                        cos, nco};

	render_queues_cluster(sb, &qv);
	render_queues_local(sb, &qv);
	strbuf_reset(sb);
	render_queues_cluster_json(sb, &qv);
	check_form(sb);
	render_queues_local_json(sb, &qv);
	check_form(sb);
	render_queues_cluster_yaml(sb, &qv);
	render_queues_local_yaml(sb, &qv);
	strbuf_reset(sb);
	for (i = 0; i < ncq; i++)
		clusterqueue_free((struct clusterqueue *)cqs[i]);
	for (i = 0; i < nlq; i++)
		localqueue_free((struct localqueue *)lqs[i]);
	for (i = 0; i < nwl; i++)
		workload_free((struct workload *)wls[i]);
	for (i = 0; i < nco; i++)
		cohort_free((struct kueue_cohort *)cos[i]);
}

/* A JSON form's text: rendered whole (the decoders hand it only valid UTF-8), one JSON
 * document. Empties sb. */
static void check_form(struct strbuf *sb)
{
	json_t *doc;

	if (!strbuf_ok(sb))
		abort();
	doc = json_loadb(sb->buf ? sb->buf : "", sb->len, 0, NULL);
	if (!doc)
		abort();
	json_decref(doc);
	strbuf_reset(sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* NUL allowed, as a watch's objects are read (watchparse.c), and a log may hold it */
	json_t *root = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
	const struct pod *pods[MAX_ITEMS];
	const struct k8s_node *nodes[MAX_ITEMS];
	const struct event *events[MAX_ITEMS];
	const struct pvc *pvcs[MAX_ITEMS];
	struct job *job = NULL;
	struct job_view v = {0};
	struct progress_point pts[2];
	struct node_view nv[MAX_ITEMS];
	struct strbuf sb = STRBUF_INIT;
	size_t np = 0, nn = 0, ne = 0, nc = 0, i;
	json_t *item;
	struct gpu_metrics *gpu;

	if (!root)
		return 0;
	/* what a Prometheus answered, whatever it holds; a refused answer keeps its reason */
	if ((gpu = gpu_metrics_new()))
		(void)gpu_metrics_decode(gpu, json_object_get(root, "prometheus"));
	for (int k = 0; k < JOB_KIND_COUNT && !job; k++)
		job = job_decode(json_object_get(root, "job"), (enum job_kind)k);
	json_array_foreach(json_object_get(root, "pods"), i, item)
		if (np < MAX_ITEMS && (pods[np] = pod_decode(item)))
			np++;
	json_array_foreach(json_object_get(root, "nodes"), i, item)
		if (nn < MAX_ITEMS && (nodes[nn] = node_decode(item)))
			nn++;
	json_array_foreach(json_object_get(root, "events"), i, item)
		if (ne < MAX_ITEMS && (events[ne] = event_decode(item)))
			ne++;
	json_array_foreach(json_object_get(root, "pvcs"), i, item)
		if (nc < MAX_ITEMS && (pvcs[nc] = pvc_decode(item)))
			nc++;
	/* the claims with the job (mounting any of them) twice, as data/list shows them */
	render_data_list(&sb, &(struct data_view){pvcs, nc, (const struct job *const[]){job, job},
	                                          job ? 2 : 0, 1764669600, NULL, "default"});
	/* and as when they may not be listed, the reason any bytes (a job's message) */
	render_data_list(&sb, &(struct data_view){pvcs, nc, NULL, 0, 1764669600,
	                                          job && job->n_conditions
	                                                  ? job->conditions[0].message : "",
	                                          job ? job->meta.namespace : NULL});
	strbuf_reset(&sb);
	render_data_list_json(&sb, &(struct data_view){pvcs, nc, (const struct job *const[]){job, job},
	                                               job ? 2 : 0, 1764669600, NULL, "default"});
	check_form(&sb);
	render_data_list_yaml(&sb, &(struct data_view){pvcs, nc, NULL, 0, 1764669600, NULL, ""});
	strbuf_reset(&sb);
	for (i = 0; i < nn; i++)
		nv[i] = (struct node_view){nodes[i], pods, np, 1764669600, NULL};
	if (job) {
		v = (struct job_view){.job = job, .pods = pods, .n_pods = np, .nodes = nodes,
		                      .n_nodes = nn, .events = events, .n_events = ne,
		                      .failed_log_tail = json_string_value(json_object_get(root, "log")),
		                      .failed_log_tail_len = json_string_length(json_object_get(root, "log")),
		                      .now = 1764669600};
		render_job_status(&sb, &v);
		render_job_info(&sb, &v);
		render_job_why(&sb, &v);
		why_lines_are_safe(&v);
		render_job_events(&sb, &v);
		render_job_gpus(&sb, &v);
		v.gpu_metrics = gpu;
		render_job_gpus(&sb, &v);
		/* info's GPUs: block and why's idle GPUs, from the fuzzed answer */
		render_job_info(&sb, &v);
		render_job_why(&sb, &v);
		v.gpu_metrics = NULL;
		render_job_progress(&sb, &v);
		render_job_metrics(&sb, &v);
		/* progress over a history: the point twice, the second as a later report */
		if (render_progress_point(job, &pts[0]) == 1) {
			pts[1] = pts[0];
			pts[1].updated += RENDER_PROGRESS_STALE;
			v.reports = pts;
			v.n_reports = 2;
			render_job_progress(&sb, &v);
			v.reports = NULL;
			v.n_reports = 0;
			free(pts[0].text);
		}
		render_job_suspend(&sb, job);
		/* the job's conditions' reason as a refused suspend's (any bytes, one line) */
		if (job->n_conditions)
			render_suspend_note(&sb, &(struct suspend_note){job->start_time, true,
			                                                job->conditions[0].message});
		/* the tables of jobs, with the job twice (ties in every order key) */
		render_jobs_list(&sb, (const struct job_view[]){v, v}, 2);
		render_jobs_list_all(&sb, &v, 1);
		render_jobs_top(&sb, (const struct job_view[]){v, v}, 2);
		v.gpu_metrics = gpu;
		render_jobs_top(&sb, &v, 1);
		v.gpu_metrics = NULL;
		strbuf_reset(&sb);
		/* their forms and info's */
		render_job_info_json(&sb, &v);
		check_form(&sb);
		render_jobs_list_json(&sb, (const struct job_view[]){v, v}, 2);
		check_form(&sb);
		render_jobs_top_json(&sb, (const struct job_view[]){v, v}, 2);
		check_form(&sb);
		render_job_progress_json(&sb, &v);
		check_form(&sb);
		render_job_metrics_json(&sb, &v);
		check_form(&sb);
		render_job_info_yaml(&sb, &v);
		render_jobs_list_yaml(&sb, (const struct job_view[]){v, v}, 2);
		render_job_progress_yaml(&sb, &v);
		render_job_metrics_yaml(&sb, &v);
		strbuf_reset(&sb);
	}
	for (i = 0; i < np; i++) {
		render_pod_status(&sb, pods[i]);
		render_pod_gpus_metrics(&sb, pods[i], gpu);
		/* its containers' states and last states as attempts (any reason, any times) */
		for (size_t k = 0; k < pods[i]->n_containers; k++) {
			const struct container *c = &pods[i]->containers[k];
			const struct container_state *st[2] = {&c->state, &c->last_state};

			for (int s = 0; s < 2; s++)
				render_attempt_info(&sb, &(struct attempt_view){
					.number = c->restart_count + 1 - s, .of = c->restart_count + 1,
					.container = c->name, .running = st[s]->kind == CONTAINER_RUNNING,
					.known = st[s]->kind == CONTAINER_TERMINATED,
					.exit_code = st[s]->exit_code, .reason = st[s]->reason,
					.started = st[s]->started, .finished = st[s]->finished,
					.log = (enum attempt_log)((unsigned)c->restart_count % 5),
					.size = (uint64_t)st[s]->finished, .dropped = st[s]->started,
					.keep_logs = (uint64_t)c->gpus << 20, .now = 1764669600});
		}
	}
	if (nn) {
		render_cluster_top(&sb, nv, nn);
		render_cluster_gpus(&sb, nv, nn);
		for (i = 0; i < nn; i++) {
			render_node_info(&sb, &nv[i]);
			nv[i].gpu_metrics = gpu;   /* arena top node -d with the answer's figures */
			render_node_info(&sb, &nv[i]);
			nv[i].gpu_metrics = NULL;
		}
		strbuf_reset(&sb);
		render_cluster_top_json(&sb, nv, nn);
		check_form(&sb);
		render_cluster_top_yaml(&sb, nv, nn);
	}
	strbuf_reset(&sb);
	render_queue_files(root, &sb);
	render_yaml_emit(&sb, root);
	strbuf_free(&sb);
	gpu_metrics_unref(gpu);
	if (job)
		job_free(job);
	for (i = 0; i < np; i++)
		pod_free((struct pod *)pods[i]);
	for (i = 0; i < nn; i++)
		node_free((struct k8s_node *)nodes[i]);
	for (i = 0; i < ne; i++)
		event_free((struct event *)events[i]);
	for (i = 0; i < nc; i++)
		pvc_free((struct pvc *)pvcs[i]);
	json_decref(root);
	return 0;
}
