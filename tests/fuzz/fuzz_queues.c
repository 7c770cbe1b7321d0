/*
 * libFuzzer target: Kueue's objects → text (render/queues.c). The input is JSON
 * {"workloads": [...], "localqueues": [...], "clusterqueues": [...],
 *  "lines": [{"namespace": NS, "localqueue": LQ, "summary": {...}}], "job": {...}};
 * what decodes becomes a queue view, rendered as cluster/queues and queues/list,
 * and each Workload is the job's (with each line's first place) for status, why and
 * info, as the tree would show a job Kueue holds. Seeds: tests/fuzz/corpus/fuzz_queues.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"
#include "render/job_info.h"
#include "render/queues.h"
#include "render/render.h"
#include "render/status.h"
#include "render/why.h"

#define MAX_ITEMS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *root = json_loadb((const char *)data, size, 0, NULL);
	const struct workload *wls[MAX_ITEMS];
	const struct localqueue *lqs[MAX_ITEMS];
	const struct clusterqueue *cqs[MAX_ITEMS];
	const struct queue_line *lines[MAX_ITEMS];
	struct strbuf sb = STRBUF_INIT;
	size_t nw = 0, nl = 0, nc = 0, nli = 0, i;
	struct job *job = NULL;
	json_t *item;

	if (!root)
		return 0;
	json_array_foreach(json_object_get(root, "workloads"), i, item)
		if (nw < MAX_ITEMS && (wls[nw] = workload_decode(item)))
			nw++;
	json_array_foreach(json_object_get(root, "localqueues"), i, item)
		if (nl < MAX_ITEMS && (lqs[nl] = localqueue_decode(item)))
			nl++;
	json_array_foreach(json_object_get(root, "clusterqueues"), i, item)
		if (nc < MAX_ITEMS && (cqs[nc] = clusterqueue_decode(item)))
			nc++;
	json_array_foreach(json_object_get(root, "lines"), i, item)
		if (nli < MAX_ITEMS &&
		    (lines[nli] = queue_line_decode(
		         json_object_get(item, "summary"),
		         json_string_value(json_object_get(item, "namespace")),
		         json_string_value(json_object_get(item, "localqueue")))))
			nli++;
	for (int k = 0; k < JOB_KIND_COUNT && !job; k++)
		job = job_decode(json_object_get(root, "job"), (enum job_kind)k);

	for (int kueue = 0; kueue < 2; kueue++) {
		struct queue_view v = {cqs, nc, lqs, nl, wls, nw, lines, nli, kueue, kueue,
		                       1764669600, NULL, 0};

		render_queues_cluster(&sb, &v);
		render_queues_local(&sb, &v);
		strbuf_reset(&sb);
	}
	for (i = 0; i < nw; i++) {
		struct job_queue q = {wls[i], nl ? lqs[0] : NULL, nc ? cqs[0] : NULL,
		                      nli && lines[0]->n_places ? &lines[0]->places[0] : NULL,
		                      i % 2 == 0};

		render_workload_state(wls[i]);
		render_queue_why(&sb, &q, 1764669600);
		if (job) {
			struct job_view v = {.job = job, .queue = q, .now = 1764669600};

			render_job_status(&sb, &v);
			render_job_why(&sb, &v);
			render_job_info(&sb, &v);
		}
		strbuf_reset(&sb);
	}
	strbuf_free(&sb);
	if (job)
		job_free(job);
	for (i = 0; i < nw; i++)
		workload_free((struct workload *)wls[i]);
	for (i = 0; i < nl; i++)
		localqueue_free((struct localqueue *)lqs[i]);
	for (i = 0; i < nc; i++)
		clusterqueue_free((struct clusterqueue *)cqs[i]);
	for (i = 0; i < nli; i++)
		queue_line_free((struct queue_line *)lines[i]);
	json_decref(root);
	return 0;
}
