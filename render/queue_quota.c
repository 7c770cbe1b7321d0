/*
 * A Kueue queue's quota as the tree shows it (docs/tree.md, "Queues"): the GPUs of
 * a ClusterQueue's headline with its cohort and borrowing, and the table of every
 * resource its quota names, flavor by flavor (nominalQuota, borrowingLimit,
 * lendingLimit, and status.flavorsUsage's total and borrowed), as `kubectl
 * describe clusterqueue` lists them; a LocalQueue's use of each; and a Workload's
 * priority with its class (a WorkloadPriorityClass or a PriorityClass).
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

/* c's nominal quota of flavor and resource, or "" when it names none. */
static const char *nominal_of(const struct clusterqueue *c, const char *flavor,
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
		                                      or_none(nominal_of(c, q->flavor, q->resource))});
	}
	render_table_render(sb, &t, "    ");
	render_table_free(&t);
}

const char *render_workload_priority(const struct workload *w, char *buf, size_t size)
{
	if (*w->priority_class)
		snprintf(buf, size, "%s (%d)", w->priority_class, w->priority);
	else
		snprintf(buf, size, "%d", w->priority);
	return buf;
}
