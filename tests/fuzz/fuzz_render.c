/*
 * libFuzzer target: objects → text (render/). The input is JSON
 * {"job": {...}, "pods": [...], "nodes": [...], "events": [...], "pvcs": [...], "log": "..."};
 * "log" stands for a failed instance's kept log, whose end why quotes; what decodes
 * becomes a job view, a node view and a data view, and every job, node and data/
 * file is rendered from it (and the tables of jobs), as the tree would show them;
 * each pod's main container's state and last state as instances/POD/attempts/N/info;
 * and the whole input as YAML (render/yaml_emit.c: spec.yaml of a foreign job,
 * and each document of check/NAME/objects.yaml). The JSON forms (list.json, info.json,
 * top.json, data/list.json, ...) must each be one JSON document, whatever the input
 * (abort otherwise); their YAML twins are rendered too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/objects.h"
#include "render/render.h"
#include "render/attempt.h"
#include "render/data.h"
#include "render/why.h"
#include "render/job_files.h"
#include "render/suspend_note.h"
#include "render/events.h"
#include "render/gpus.h"
#include "render/job_info.h"
#include "render/job_forms.h"
#include "render/job_tables.h"
#include "render/node_forms.h"
#include "render/status.h"
#include "render/yaml_emit.h"
#include "k8s/base/strbuf.h"

#define MAX_ITEMS 64

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
	json_t *root = json_loadb((const char *)data, size, 0, NULL);
	const struct pod *pods[MAX_ITEMS];
	const struct k8s_node *nodes[MAX_ITEMS];
	const struct event *events[MAX_ITEMS];
	const struct pvc *pvcs[MAX_ITEMS];
	struct job *job = NULL;
	struct job_view v = {0};
	struct node_view nv[MAX_ITEMS];
	struct strbuf sb = STRBUF_INIT;
	size_t np = 0, nn = 0, ne = 0, nc = 0, i;
	json_t *item;

	if (!root)
		return 0;
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
		nv[i] = (struct node_view){nodes[i], pods, np, 1764669600};
	if (job) {
		v = (struct job_view){.job = job, .pods = pods, .n_pods = np, .nodes = nodes,
		                      .n_nodes = nn, .events = events, .n_events = ne,
		                      .failed_log_tail = json_string_value(json_object_get(root, "log")),
		                      .now = 1764669600};
		render_job_status(&sb, &v);
		render_job_info(&sb, &v);
		render_job_why(&sb, &v);
		render_job_events(&sb, &v);
		render_job_gpus(&sb, &v);
		render_job_suspend(&sb, job);
		/* the job's conditions' reason as a refused suspend's (any bytes, one line) */
		if (job->n_conditions)
			render_suspend_note(&sb, &(struct suspend_note){job->start_time, true,
			                                                job->conditions[0].message});
		/* the tables of jobs, with the job twice (ties in every order key) */
		render_jobs_list(&sb, (const struct job_view[]){v, v}, 2);
		render_jobs_list_all(&sb, &v, 1);
		render_jobs_top(&sb, (const struct job_view[]){v, v}, 2);
		strbuf_reset(&sb);
		/* their forms and info's */
		render_job_info_json(&sb, &v);
		check_form(&sb);
		render_jobs_list_json(&sb, (const struct job_view[]){v, v}, 2);
		check_form(&sb);
		render_jobs_top_json(&sb, (const struct job_view[]){v, v}, 2);
		check_form(&sb);
		render_job_info_yaml(&sb, &v);
		render_jobs_list_yaml(&sb, (const struct job_view[]){v, v}, 2);
		strbuf_reset(&sb);
	}
	for (i = 0; i < np; i++) {
		render_pod_status(&sb, pods[i]);
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
		for (i = 0; i < nn; i++)
			render_node_info(&sb, &nv[i]);
		strbuf_reset(&sb);
		render_cluster_top_json(&sb, nv, nn);
		check_form(&sb);
		render_cluster_top_yaml(&sb, nv, nn);
	}
	strbuf_reset(&sb);
	render_yaml_emit(&sb, root);
	strbuf_free(&sb);
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
