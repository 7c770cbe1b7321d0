/*
 * Kueue's queues as the tree shows them (docs/tree.md, "Queues"):
 *
 * - a Workload's state word from its conditions: Finished → FINISHED; Preempted,
 *   or Evicted for preemption → PREEMPTED; Evicted → EVICTED (Kueue resets both to
 *   False when it reserves quota again); not Admitted → QUEUED; else ADMITTED;
 * - a job's word while Kueue holds it (QUEUED, PREEMPTED, EVICTED: status.c puts it
 *   before the operator's SUSPENDED, which Kueue's suspend also brings);
 * - why's sentence for such a job: its LocalQueue and ClusterQueue, its place in
 *   line (the visibility API's positions, which Kueue counts from 0 and the tree
 *   from 1; none while Kueue holds it out of line as inadmissible), how long it
 *   has waited and Kueue's own message (the QuotaReserved condition's, e.g.
 *   "couldn't assign flavors to pod set worker: insufficient unused quota for
 *   nvidia.com/gpu in flavor default-flavor, 4 more needed");
 * - cluster/queues and queues/list: a table of the queues (kueuectl list
 *   clusterqueue's and list localqueue's facts, with their GPU quota and use),
 *   then each queue's quota of every resource (render/queue_quota.c) and its
 *   jobs, admitted (with the flavors they were given), and waiting in the order
 *   of the line, with their priority.
 *
 * Pure (now passed in); called by render/status.c, render/why.c and
 * fs/tree/content.c; tested by tests/unit/test_render_queues.c and fuzzed by
 * tests/fuzz/fuzz_render.c.
 */
#include "render/queues.h"
#include "render/queue_quota.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kueue's messages are made single-line and cut as why's are. */
#define QUEUE_MSG_MAX 512

static const struct job_condition *wl_cond(const struct workload *w, const char *type)
{
	for (size_t i = 0; i < w->n_conditions; i++)
		if (strcmp(w->conditions[i].type, type) == 0)
			return &w->conditions[i];
	return NULL;
}

static bool wl_true(const struct workload *w, const char *type)
{
	const struct job_condition *c = wl_cond(w, type);

	return c && c->status;
}

const char *render_workload_state(const struct workload *w)
{
	const struct job_condition *ev = wl_cond(w, "Evicted");

	if (wl_true(w, "Finished"))
		return "FINISHED";
	if (wl_true(w, "Preempted") || (ev && ev->status && strcmp(ev->reason, "Preempted") == 0))
		return "PREEMPTED";
	if (ev && ev->status)
		return "EVICTED";
	if (!wl_true(w, "Admitted"))
		return "QUEUED";
	return "ADMITTED";
}

const char *render_queue_word(const struct job_queue *q)
{
	const char *s;

	if (!q || !q->workload)
		return NULL;
	s = render_workload_state(q->workload);
	return strcmp(s, "FINISHED") == 0 || strcmp(s, "ADMITTED") == 0 ? NULL : s;
}

/* ---- why ---- */

static void put_msg(struct strbuf *sb, const char *msg)
{
	render_put_oneline(sb, msg, QUEUE_MSG_MAX);
}

static void put_ago(struct strbuf *sb, int64_t t, int64_t now)
{
	char d[32];

	strbuf_puts(sb, t ? render_short_duration(now - t, d, sizeof(d)) : "a while");
}

/* Kueue keeps a Workload it cannot admit as things stand (its LocalQueue stopped,
 * inactive or missing, its ClusterQueue stopped or missing) out of its line, with
 * QuotaReserved False for reason Inadmissible: no place in line will come until
 * that changes (seen on the real Kueue v0.17: a LocalQueue stopped with
 * HoldAndDrain; its visibility API lists none of its Workloads). */
static bool inadmissible(const struct workload *w)
{
	const struct job_condition *qr = wl_cond(w, "QuotaReserved");

	return qr && !qr->status && strcmp(qr->reason, "Inadmissible") == 0;
}

/* "LocalQueue Q (ClusterQueue C)" and the place in line. */
static void put_where(struct strbuf *sb, const struct job_queue *q)
{
	const struct workload *w = q->workload;
	const char *cq = *w->cluster_queue ? w->cluster_queue : q->lq ? q->lq->cluster_queue : "";

	strbuf_puts(sb, "LocalQueue ");
	render_put_oneline(sb, *w->queue ? w->queue : RENDER_NA, 256);
	if (*cq) {
		strbuf_puts(sb, " (ClusterQueue ");
		render_put_oneline(sb, cq, 256);
		strbuf_putc(sb, ')');
	} else if (*w->queue && !q->lq) {
		strbuf_puts(sb, ", which does not exist");
	}
	if (q->place)
		strbuf_printf(sb, ", place %d in line (%d in its LocalQueue)", q->place->position_cq + 1,
		              q->place->position_lq + 1);
	else if (inadmissible(w))
		strbuf_puts(sb, ", held out of line (inadmissible)");
	else if (!q->visibility)
		strbuf_puts(sb, ", place in line unknown (Kueue's visibility API is not served)");
	else
		strbuf_puts(sb, ", place in line not known yet");
}

/* Kueue's own word on why the Workload waits: the QuotaReserved condition's message
 * while it has no quota, else the Admitted one's (admission checks). */
static const char *wait_message(const struct workload *w)
{
	const struct job_condition *qr = wl_cond(w, "QuotaReserved");
	const struct job_condition *ad = wl_cond(w, "Admitted");

	if (!w->active)
		return "the Workload is deactivated (spec.active: false); it waits until it is "
		       "activated again";
	if (qr && !qr->status && *qr->message)
		return qr->message;
	if (qr && qr->status && ad && *ad->message)
		return ad->message;
	if (qr && qr->status)
		return "quota reserved; waiting for its admission checks";
	return "it has not been looked at yet";
}

/* The WHY column: an evicted or preempted Workload's own condition's message, else
 * why it waits. */
const char *render_workload_why_waiting(const struct workload *w)
{
	const char *s = render_workload_state(w);
	const struct job_condition *c = NULL;

	if (strcmp(s, "PREEMPTED") == 0)
		c = wl_true(w, "Preempted") ? wl_cond(w, "Preempted") : wl_cond(w, "Evicted");
	else if (strcmp(s, "EVICTED") == 0)
		c = wl_cond(w, "Evicted");
	return c && *c->message ? c->message : wait_message(w);
}

bool render_queue_why(struct strbuf *sb, const struct job_queue *q, int64_t now)
{
	const char *word = render_queue_word(q);
	const struct workload *w;
	const struct job_condition *c;

	if (!word)
		return false;
	w = q->workload;
	if (strcmp(word, "QUEUED") == 0) {
		c = wl_cond(w, "QuotaReserved");
		strbuf_puts(sb, "Queued in ");
		put_where(sb, q);
		strbuf_puts(sb, ", waiting ");
		put_ago(sb, c && !c->status && c->last_transition ? c->last_transition
		                                                  : w->meta.created, now);
		strbuf_puts(sb, ": Kueue says: ");
		put_msg(sb, wait_message(w));
	} else {
		bool preempted = strcmp(word, "PREEMPTED") == 0;
		const struct job_condition *why = preempted && wl_true(w, "Preempted")
		                                      ? wl_cond(w, "Preempted")
		                                      : wl_cond(w, "Evicted");

		strbuf_puts(sb, preempted ? "Preempted by Kueue " : "Evicted by Kueue ");
		put_ago(sb, why ? why->last_transition : 0, now);
		strbuf_puts(sb, " ago");
		if (!preempted && why && *why->reason) {
			strbuf_puts(sb, " (");
			render_put_oneline(sb, why->reason, 128);
			strbuf_putc(sb, ')');
		}
		strbuf_puts(sb, ", back in ");
		put_where(sb, q);
		if (why && *why->message) {
			strbuf_puts(sb, ": Kueue says: ");
			put_msg(sb, why->message);
		}
	}
	/* a message that ends its own sentence gets no second period */
	strbuf_puts(sb, sb->len && sb->buf && sb->buf[sb->len - 1] == '.' ? "\n" : ".\n");
	return true;
}

/* ---- the queue files ---- */

/* What the Trainer column calls the Workload's job: its kind's Arena name, else the
 * owner's kind upper-cased (a batch Job: JOB), else N/A. */
const char *render_workload_trainer(const struct workload *w, char *buf, size_t size)
{
	size_t i;

	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (strcmp(kinds_info(k)->kind_name, w->owner_kind) == 0)
			return kinds_info(k)->trainer;
	if (!*w->owner_kind)
		return RENDER_NA;
	for (i = 0; w->owner_kind[i] && i + 1 < size; i++)
		buf[i] = (char)(w->owner_kind[i] >= 'a' && w->owner_kind[i] <= 'z'
		                    ? w->owner_kind[i] - 'a' + 'A'
		                    : w->owner_kind[i]);
	buf[i] = '\0';
	return buf;
}

static const struct queue_place *queue_place_of(const struct queue_view *v, const struct workload *w)
{
	for (size_t i = 0; i < v->n_lines; i++) {
		const struct queue_line *l = v->lines[i];

		if (strcmp(l->meta.namespace, w->meta.namespace) != 0 ||
		    strcmp(l->meta.name, w->queue) != 0)
			continue;
		for (size_t j = 0; j < l->n_places; j++)
			if (strcmp(l->places[j].workload, w->meta.name) == 0)
				return &l->places[j];
	}
	return NULL;
}

/* Waiting: by place in line, those without one last by priority (high first), then
 * creation, as Kueue's BestEffortFIFO orders them; then name. Admitted: by when. */
static int member_cmp(const void *a, const void *b)
{
	const struct queue_member *x = a, *y = b;

	if ((x->pos < 0) != (y->pos < 0))
		return x->pos < 0 ? 1 : -1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->w->priority != y->w->priority)
		return x->w->priority > y->w->priority ? -1 : 1;
	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	if (x->w->meta.created != y->w->meta.created)
		return x->w->meta.created < y->w->meta.created ? -1 : 1;
	int c = strcmp(x->w->meta.namespace, y->w->meta.namespace);

	return c ? c : strcmp(x->w->meta.name, y->w->meta.name);
}

/* Does w belong to the queue: a ClusterQueue (lq NULL: admitted there, or waiting
 * in one of its LocalQueues) or a LocalQueue? */
static bool member_of(const struct queue_view *v, const struct workload *w, const char *cq,
                      const struct localqueue *lq)
{
	if (lq)
		return strcmp(w->meta.namespace, lq->meta.namespace) == 0 &&
		       strcmp(w->queue, lq->meta.name) == 0;
	if (*w->cluster_queue)
		return strcmp(w->cluster_queue, cq) == 0;
	for (size_t i = 0; i < v->n_lqs; i++)
		if (strcmp(v->lqs[i]->meta.namespace, w->meta.namespace) == 0 &&
		    strcmp(v->lqs[i]->meta.name, w->queue) == 0)
			return strcmp(v->lqs[i]->cluster_queue, cq) == 0;
	return false;
}

int render_queue_members(const struct queue_view *v, const char *cq, const struct localqueue *lq,
                         bool admitted, struct queue_member **out, size_t *n)
{
	struct queue_member *m = calloc(v->n_workloads ? v->n_workloads : 1, sizeof(*m));

	*out = m;
	*n = 0;
	if (!m)
		return -1;
	for (size_t i = 0; i < v->n_workloads; i++) {
		const struct workload *w = v->workloads[i];
		const char *s = render_workload_state(w);
		const struct job_condition *qr = wl_cond(w, "QuotaReserved");

		if (strcmp(s, "FINISHED") == 0 || (strcmp(s, "ADMITTED") == 0) != admitted ||
		    !member_of(v, w, cq, lq))
			continue;
		m[*n] = (struct queue_member){.w = w, .place = queue_place_of(v, w), .pos = -1};
		if (admitted)
			m[*n].since = qr ? qr->last_transition : 0;
		else if (m[*n].place)
			m[*n].pos = lq ? m[*n].place->position_lq : m[*n].place->position_cq;
		(*n)++;
	}
	if (*n > 1)
		qsort(m, *n, sizeof(*m), member_cmp);
	return 0;
}

/* The jobs of one queue: "  Admitted:" and "  Waiting, in line:" tables. */
static void put_members(struct strbuf *sb, const struct queue_view *v, const char *cq,
                        const struct localqueue *lq)
{
	char tr[64], pos[16], gpus[16], prio[300];

	for (int admitted = 1; admitted >= 0; admitted--) {
		struct queue_member *part;
		struct render_table t;
		size_t k;

		if (render_queue_members(v, cq, lq, admitted, &part, &k) != 0) {
			strbuf_puts(sb, "  (out of memory)\n");
			return;
		}
		strbuf_puts(sb, admitted ? "  Admitted:" : "  Waiting, in line:");
		if (!k) {
			strbuf_puts(sb, " none\n");
			free(part);
			continue;
		}
		strbuf_putc(sb, '\n');
		if (admitted) {
			render_table_init(&t, 7);
			render_table_add(&t, (const char *[]){"NAMESPACE", "JOB", "TRAINER",
			                                      "LOCALQUEUE", "GPU", "PRIORITY",
			                                      "FLAVOR"});
		} else {
			render_table_init(&t, 9);
			render_table_add(&t, (const char *[]){"PLACE", "NAMESPACE", "JOB", "TRAINER",
			                                      "LOCALQUEUE", "GPU", "PRIORITY", "STATE",
			                                      "WHY"});
		}
		render_table_add_rule(&t);
		for (size_t i = 0; i < k; i++) {
			const struct workload *w = part[i].w;

			snprintf(gpus, sizeof(gpus), "%d", render_workload_gpus(w));
			render_workload_priority(w, prio, sizeof(prio));
			if (admitted) {
				render_table_add(&t, (const char *[]){w->meta.namespace,
				                                      render_workload_job(w),
				                                      render_workload_trainer(w, tr, sizeof(tr)),
				                                      w->queue, gpus, prio,
				                                      *w->flavors ? w->flavors
				                                                  : RENDER_NA});
				continue;
			}
			if (part[i].pos >= 0)
				snprintf(pos, sizeof(pos), "%d", part[i].pos + 1);
			else
				snprintf(pos, sizeof(pos), "%s", RENDER_NA);
			render_table_add(&t, (const char *[]){pos, w->meta.namespace,
			                                      render_workload_job(w),
			                                      render_workload_trainer(w, tr, sizeof(tr)),
			                                      w->queue, gpus, prio, render_workload_state(w),
			                                      render_workload_why_waiting(w)});
		}
		render_table_render(sb, &t, "    ");
		render_table_free(&t);
		free(part);
	}
}

const char *render_workload_job(const struct workload *w)
{
	return *w->owner_name ? w->owner_name : w->meta.name;
}

int render_workload_gpus(const struct workload *w)
{
	/* admitted: what its admission gave; else what it asks */
	return w->admitted_gpus && strcmp(render_workload_state(w), "ADMITTED") == 0
	           ? w->admitted_gpus
	           : w->gpus;
}

static void put_no_kueue(struct strbuf *sb, const struct queue_view *v, const char *what)
{
	if (!v->kueue)
		strbuf_printf(sb, "No %s: this cluster has no Kueue (kueue.x-k8s.io is not served).\n",
		              what);
	else
		strbuf_printf(sb, "No %s.\n", what);
}

static const char *count(int n, char *buf, size_t size)
{
	snprintf(buf, size, "%d", n);
	return buf;
}

/* A GPU column's cell: <none> for a ClusterQueue whose quota names no GPU (its 0
 * is not a quota of 0 GPUs), else the count. */
static const char *gpu_count(const struct clusterqueue *c, int n, char *buf, size_t size)
{
	return c && !c->gpu_quota_named ? "<none>" : count(n, buf, size);
}

void render_queues_cluster(struct strbuf *sb, const struct queue_view *v)
{
	struct render_table t;
	char q[16], u[16], p[16], a[16], age[32];

	render_table_init(&t, 9);
	render_table_add(&t, (const char *[]){"NAME", "COHORT", "STRATEGY", "GPU(Quota)",
	                                      "GPU(Used)", "PENDING", "ADMITTED", "ACTIVE", "AGE"});
	for (size_t i = 0; i < v->n_cqs; i++) {
		const struct clusterqueue *c = v->cqs[i];

		render_table_add(
		    &t, (const char *[]){c->meta.name, *c->cohort ? c->cohort : "<none>",
		                         *c->strategy ? c->strategy : RENDER_NA,
		                         gpu_count(c, c->gpu_quota, q, sizeof(q)),
		                         gpu_count(c, c->gpus_used, u, sizeof(u)),
		                         count(c->pending, p, sizeof(p)),
		                         count(c->admitted, a, sizeof(a)),
		                         c->active ? "True" : "False",
		                         c->meta.created ? render_short_duration(
		                                               v->now - c->meta.created, age,
		                                               sizeof(age))
		                                         : "<unknown>"});
	}
	render_table_render(sb, &t, "");
	render_table_free(&t);
	if (!v->n_cqs) {
		put_no_kueue(sb, v, "ClusterQueues");
		return;
	}
	for (size_t i = 0; i < v->n_cqs; i++) {
		const struct clusterqueue *c = v->cqs[i];

		strbuf_puts(sb, "\nClusterQueue ");
		render_put_oneline(sb, c->meta.name, 256);
		strbuf_puts(sb, ": ");
		render_cq_headline(sb, c);
		if (!c->active && *c->inactive_reason) {
			strbuf_puts(sb, "; inactive: ");
			put_msg(sb, c->inactive_reason);
		}
		strbuf_puts(sb, "\n");
		render_cq_quota(sb, c);
		put_members(sb, v, c->meta.name, NULL);
	}
	render_cohort_tree(sb, v->cqs, v->n_cqs, v->cohorts, v->n_cohorts);
}

const struct clusterqueue *render_queue_cq_named(const struct queue_view *v, const char *name)
{
	for (size_t j = 0; j < v->n_cqs; j++)
		if (strcmp(v->cqs[j]->meta.name, name) == 0)
			return v->cqs[j];
	return NULL;
}

void render_queues_local(struct strbuf *sb, const struct queue_view *v)
{
	struct render_table t;
	char q[16], u[16], p[16], a[16], age[32];

	render_table_init(&t, 7);
	render_table_add(&t, (const char *[]){"NAME", "CLUSTERQUEUE", "GPU(Quota)", "GPU(Used)",
	                                      "PENDING", "ADMITTED", "AGE"});
	for (size_t i = 0; i < v->n_lqs; i++) {
		const struct localqueue *l = v->lqs[i];
		const struct clusterqueue *c = render_queue_cq_named(v, l->cluster_queue);
		render_table_add(
		    &t, (const char *[]){l->meta.name, *l->cluster_queue ? l->cluster_queue : RENDER_NA,
		                         c ? gpu_count(c, c->gpu_quota, q, sizeof(q)) : RENDER_NA,
		                         gpu_count(c, l->gpus_used, u, sizeof(u)),
		                         count(l->pending, p, sizeof(p)),
		                         count(l->admitted, a, sizeof(a)),
		                         l->meta.created ? render_short_duration(
		                                               v->now - l->meta.created, age,
		                                               sizeof(age))
		                                         : "<unknown>"});
	}
	render_table_render(sb, &t, "");
	render_table_free(&t);
	if (!v->n_lqs) {
		put_no_kueue(sb, v, "LocalQueues in this namespace");
		return;
	}
	for (size_t i = 0; i < v->n_lqs; i++) {
		const struct localqueue *l = v->lqs[i];
		const struct clusterqueue *c = render_queue_cq_named(v, l->cluster_queue);

		strbuf_puts(sb, "\nLocalQueue ");
		render_put_oneline(sb, l->meta.name, 256);
		strbuf_puts(sb, " (ClusterQueue ");
		render_put_oneline(sb, *l->cluster_queue ? l->cluster_queue : RENDER_NA, 256);
		if (c && !c->gpu_quota_named)
			strbuf_puts(sb, "): no GPU quota\n");
		else
			strbuf_printf(sb, "): %d GPUs used\n", l->gpus_used);
		render_lq_usage(sb, l, c);
		put_members(sb, v, l->cluster_queue, l);
	}
}
