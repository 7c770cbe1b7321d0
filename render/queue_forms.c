/*
 * cluster/queues.json, queues/list.json and their YAML twins: the queue tables of
 * render/queues.c as documents, for scripts (docs/tree.md, "JSON and YAML forms").
 *
 * kueuectl's `list clusterqueue|localqueue -o json|yaml` prints the objects
 * themselves (a List of ClusterQueues, as kubectl get), whose facts are already in
 * the API server's JSON; these documents hold what the tables hold, computed once
 * (GPUs summed over flavors, jobs in the order of the line, places counted from 1).
 * Where a fact is a field of Kueue's objects it keeps that field's name
 * (pendingWorkloads, admittedWorkloads, cohort, queueingStrategy, nominalQuota,
 * borrowingLimit, lendingLimit, clusterQueue, creationTimestamp), so the parity test
 * compares them key by key with kueuectl's items.
 *
 * One array per file: a ClusterQueue (or LocalQueue) per item, in the table's order,
 * with its quota (or use) of every flavor and resource and its jobs, admitted and
 * waiting. Numbers are numbers (a GPU figure is null where the table says <none>: a
 * quota that names no GPU); quantities stay the strings Kubernetes writes ("1Ti");
 * times are RFC 3339 ("" when unknown) with the age in seconds beside.
 *
 * Pure (v->now); written by render/form_write.c. Called through fs/base/places.c;
 * tested by tests/unit/test_render_queues.c.
 */
#include "render/queue_forms.h"
#include "render/form_write.h"
#include "render/queue_quota.h"

#include <stdlib.h>
#include <string.h>

#include "k8s/base/timefmt.h"

static void created(struct form *f, const struct obj_meta *m, int64_t now)
{
	char t[32];

	render_form_string(f, "creationTimestamp",
	                   m->created ? time_format_rfc3339(m->created, t, sizeof(t)) : "");
	render_form_int(f, "age", m->created ? now - m->created : 0);
}

/* A GPU figure of a queue: null when its ClusterQueue's quota names no GPU. */
static void gpus(struct form *f, const char *key, const struct clusterqueue *c, int n)
{
	if (c && !c->gpu_quota_named)
		render_form_null(f, key);
	else
		render_form_int(f, key, n);
}

/* A limit of the quota: null when there is none. */
static void limit(struct form *f, const char *key, const char *q)
{
	render_form_string_or_null(f, key, *q ? q : NULL);
}

/* A job of a queue: the columns of its Admitted or Waiting table. */
static void member(struct form *f, const struct queue_member *m, bool admitted)
{
	const struct workload *w = m->w;
	char trainer[64];

	render_form_object(f, NULL);
	if (!admitted) {
		if (m->pos >= 0)
			render_form_int(f, "place", m->pos + 1);
		else
			render_form_null(f, "place");
	}
	render_form_string(f, "namespace", w->meta.namespace);
	render_form_string(f, "job", render_workload_job(w));
	render_form_string(f, "workload", w->meta.name);
	render_form_string(f, "trainer", render_workload_trainer(w, trainer, sizeof(trainer)));
	render_form_string(f, "localQueue", w->queue);
	render_form_int(f, "gpus", render_workload_gpus(w));
	render_form_int(f, "priority", w->priority);
	render_form_string(f, "priorityClass", w->priority_class);
	if (admitted) {
		render_form_comma_list(f, "flavors", w->flavors);
	} else {
		render_form_string(f, "state", render_workload_state(w));
		render_form_string(f, "why", render_workload_why_waiting(w));
	}
	render_form_end(f);
}

static void members(struct form *f, const struct queue_view *v, const char *cq,
                    const struct localqueue *lq)
{
	for (int admitted = 1; admitted >= 0; admitted--) {
		struct queue_member *m;
		size_t n;

		if (render_queue_members(v, cq, lq, admitted, &m, &n) != 0)
			f->failed = true;
		render_form_array(f, admitted ? "admitted" : "waiting");
		for (size_t i = 0; i < n; i++)
			member(f, &m[i], admitted);
		render_form_end(f);
		free(m);
	}
}

static void cluster_queue(struct form *f, const struct queue_view *v, const struct clusterqueue *c)
{
	render_form_object(f, NULL);
	render_form_string(f, "name", c->meta.name);
	render_form_string(f, "cohort", c->cohort);
	render_form_string(f, "queueingStrategy", c->strategy);
	gpus(f, "gpuQuota", c, c->gpu_quota);
	gpus(f, "gpusUsed", c, c->gpus_used);
	gpus(f, "gpusBorrowed", c, c->gpus_borrowed);
	render_form_int(f, "pendingWorkloads", c->pending);
	render_form_int(f, "admittedWorkloads", c->admitted);
	render_form_bool(f, "active", c->active);
	render_form_string(f, "inactiveReason", c->inactive_reason);
	created(f, &c->meta, v->now);
	render_form_array(f, "quota");
	for (size_t i = 0; i < c->n_quotas; i++) {
		const struct kueue_quota *q = &c->quotas[i];

		render_form_object(f, NULL);
		render_form_string(f, "flavor", q->flavor);
		render_form_string(f, "resource", q->resource);
		render_form_string(f, "nominalQuota", q->nominal);
		limit(f, "borrowingLimit", q->borrowing_limit);
		limit(f, "lendingLimit", q->lending_limit);
		render_form_string(f, "used", q->used);
		render_form_string(f, "borrowed", q->borrowed);
		render_form_end(f);
	}
	render_form_end(f);
	members(f, v, c->meta.name, NULL);
	render_form_end(f);
}

static void local_queue(struct form *f, const struct queue_view *v, const struct localqueue *l)
{
	const struct clusterqueue *c = render_queue_cq_named(v, l->cluster_queue);

	render_form_object(f, NULL);
	render_form_string(f, "name", l->meta.name);
	render_form_string(f, "namespace", l->meta.namespace);
	render_form_string(f, "clusterQueue", l->cluster_queue);
	/* the ClusterQueue's, shared: unknown (null) while it is not in the cache */
	if (c)
		gpus(f, "gpuQuota", c, c->gpu_quota);
	else
		render_form_null(f, "gpuQuota");
	gpus(f, "gpusUsed", c, l->gpus_used);
	render_form_int(f, "pendingWorkloads", l->pending);
	render_form_int(f, "admittedWorkloads", l->admitted);
	created(f, &l->meta, v->now);
	render_form_array(f, "usage");
	for (size_t i = 0; i < l->n_usage; i++) {
		const struct kueue_quota *q = &l->usage[i];

		render_form_object(f, NULL);
		render_form_string(f, "flavor", q->flavor);
		render_form_string(f, "resource", q->resource);
		render_form_string(f, "used", q->used);
		limit(f, "nominalQuota", render_cq_nominal(c, q->flavor, q->resource));
		render_form_end(f);
	}
	render_form_end(f);
	members(f, v, l->cluster_queue, l);
	render_form_end(f);
}

static void queues_form(struct strbuf *sb, const struct queue_view *v, bool local, bool yaml)
{
	struct form f;

	render_form_init(&f, sb, yaml);
	render_form_array(&f, NULL);
	for (size_t i = 0; i < (local ? v->n_lqs : v->n_cqs); i++) {
		if (local)
			local_queue(&f, v, v->lqs[i]);
		else
			cluster_queue(&f, v, v->cqs[i]);
	}
	render_form_end(&f);
	render_form_finish(&f);
}

void render_queues_cluster_json(struct strbuf *sb, const struct queue_view *v)
{
	queues_form(sb, v, false, false);
}

void render_queues_cluster_yaml(struct strbuf *sb, const struct queue_view *v)
{
	queues_form(sb, v, false, true);
}

void render_queues_local_json(struct strbuf *sb, const struct queue_view *v)
{
	queues_form(sb, v, true, false);
}

void render_queues_local_yaml(struct strbuf *sb, const struct queue_view *v)
{
	queues_form(sb, v, true, true);
}
