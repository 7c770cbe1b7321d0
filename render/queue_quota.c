/*
 * A Kueue queue's quota as the tree shows it (docs/tree.md, "Queues"): the GPUs of
 * a ClusterQueue's headline with its cohort and borrowing, and the table of every
 * resource its quota names, flavor by flavor (nominalQuota, borrowingLimit,
 * lendingLimit, and status.flavorsUsage's total and borrowed), as `kubectl
 * describe clusterqueue` lists them; a LocalQueue's use of each; the tree of
 * cohorts the ClusterQueues borrow within; and a Workload's priority with its
 * class (a WorkloadPriorityClass or a PriorityClass).
 *
 * Quantities are printed as the API server wrote them ("1Ti", "500m"), never
 * summed or converted, so that they read as kubectl's do.
 *
 * Pure; called by render/queues.c and render/job_info.c; tested by
 * tests/unit/test_render_queues.c.
 */
#include "render/queue_quota.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An absent limit: kubectl's word for a field that is not set. */
#define QUOTA_NONE "<none>"

static const char *or_none(const char *q)
{
	return q && *q ? q : QUOTA_NONE;
}

void render_cq_headline(struct strbuf *sb, const struct clusterqueue *c)
{
	if (!c->gpu_quota_named)
		strbuf_puts(sb, "no GPU quota");
	else if (c->gpus_borrowed)
		strbuf_printf(sb, "%d/%d GPUs used (%d borrowed)", c->gpus_used, c->gpu_quota,
		              c->gpus_borrowed);
	else
		strbuf_printf(sb, "%d/%d GPUs used", c->gpus_used, c->gpu_quota);
	if (!*c->cohort)
		return;
	strbuf_puts(sb, "; cohort ");
	render_put_oneline(sb, c->cohort, 256);
	if (c->borrowing)
		strbuf_puts(sb, ", borrowing from it");
}

void render_cq_quota(struct strbuf *sb, const struct clusterqueue *c)
{
	struct render_table t;

	strbuf_puts(sb, "  Quota:");
	if (!c->n_quotas) {
		strbuf_puts(sb, " none\n");
		return;
	}
	strbuf_putc(sb, '\n');
	render_table_init(&t, 7);
	render_table_add(&t, (const char *[]){"FLAVOR", "RESOURCE", "NOMINAL", "BORROWING LIMIT",
	                                      "LENDING LIMIT", "USED", "BORROWED"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < c->n_quotas; i++) {
		const struct kueue_quota *q = &c->quotas[i];

		render_table_add(&t, (const char *[]){q->flavor, q->resource, or_none(q->nominal),
		                                      or_none(q->borrowing_limit),
		                                      or_none(q->lending_limit), q->used,
		                                      q->borrowed});
	}
	render_table_render(sb, &t, "    ");
	render_table_free(&t);
}

const char *render_cq_nominal(const struct clusterqueue *c, const char *flavor,
                              const char *resource)
{
	for (size_t i = 0; c && i < c->n_quotas; i++)
		if (strcmp(c->quotas[i].flavor, flavor) == 0 &&
		    strcmp(c->quotas[i].resource, resource) == 0)
			return c->quotas[i].nominal;
	return "";
}

void render_lq_usage(struct strbuf *sb, const struct localqueue *l, const struct clusterqueue *c)
{
	struct render_table t;

	strbuf_puts(sb, "  Used:");
	if (!l->n_usage) {
		strbuf_puts(sb, " none\n");
		return;
	}
	strbuf_putc(sb, '\n');
	render_table_init(&t, 4);
	render_table_add(&t, (const char *[]){"FLAVOR", "RESOURCE", "USED", "QUOTA(ClusterQueue)"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < l->n_usage; i++) {
		const struct kueue_quota *q = &l->usage[i];

		render_table_add(&t, (const char *[]){q->flavor, q->resource, q->used,
		                                      or_none(render_cq_nominal(c, q->flavor, q->resource))});
	}
	render_table_render(sb, &t, "    ");
	render_table_free(&t);
}

/* A hostile server's loop of parentNames (a -> b -> a) ends here. */
#define COHORT_DEPTH_MAX 16

struct cohort_tree {
	const char **names;          /* every cohort, once */
	size_t n;
	const struct clusterqueue *const *cqs;
	size_t n_cqs;
	const struct kueue_cohort *const *cohorts;
	size_t n_cohorts;
};

static void tree_add(struct cohort_tree *t, const char *name)
{
	if (!*name)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->names[i], name) == 0)
			return;
	t->names[t->n++] = name;
}

/* name's parent: its Cohort object's parentName, "" for a root or a cohort with no
 * object (Kueue makes such a cohort a root). */
static const char *parent_of(const struct cohort_tree *t, const char *name)
{
	for (size_t i = 0; i < t->n_cohorts; i++)
		if (strcmp(t->cohorts[i]->meta.name, name) == 0)
			return t->cohorts[i]->parent;
	return "";
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The cohorts whose parent is parent, and theirs below them, indented by depth. */
static void put_cohorts(struct strbuf *sb, const struct cohort_tree *t, const char *parent,
                        int depth)
{
	for (size_t i = 0; i < t->n && depth < COHORT_DEPTH_MAX; i++) {
		const char *name = t->names[i];
		const char *sep = ": ";

		if (strcmp(parent_of(t, name), parent) != 0 || strcmp(name, parent) == 0)
			continue;
		strbuf_printf(sb, "%*s", 2 + 2 * depth, "");
		render_put_oneline(sb, name, 256);
		for (size_t j = 0; j < t->n_cqs; j++) {
			if (strcmp(t->cqs[j]->cohort, name) != 0)
				continue;
			strbuf_puts(sb, sep);
			render_put_oneline(sb, t->cqs[j]->meta.name, 256);
			sep = ", ";
		}
		strbuf_putc(sb, '\n');
		put_cohorts(sb, t, name, depth + 1);
	}
}

void render_cohort_tree(struct strbuf *sb, const struct clusterqueue *const *cqs, size_t n_cqs,
                        const struct kueue_cohort *const *cohorts, size_t n_cohorts)
{
	struct cohort_tree t = {NULL, 0, cqs, n_cqs, cohorts, n_cohorts};
	size_t cap = n_cqs + 2 * n_cohorts;

	if (!cap || !(t.names = calloc(cap, sizeof(*t.names))))
		return;
	for (size_t i = 0; i < n_cqs; i++)
		tree_add(&t, cqs[i]->cohort);
	for (size_t i = 0; i < n_cohorts; i++) {
		tree_add(&t, cohorts[i]->meta.name);
		tree_add(&t, cohorts[i]->parent);
	}
	if (t.n) {
		qsort(t.names, t.n, sizeof(*t.names), cmp_name);
		strbuf_puts(sb, "\nCohorts:\n");
		put_cohorts(sb, &t, "", 0);
	}
	free(t.names);
}

const char *render_workload_priority(const struct workload *w, char *buf, size_t size)
{
	if (*w->priority_class)
		snprintf(buf, size, "%s (%d)", w->priority_class, w->priority);
	else
		snprintf(buf, size, "%d", w->priority);
	return buf;
}
