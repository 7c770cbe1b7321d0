/*
 * render/queue_quota.c's face: what a Kueue queue's quota names, every resource of
 * every flavor with its borrowing, and a Workload's priority, as text (docs/tree.md,
 * "Queues").
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_QUEUE_QUOTA_H
#define ARENAFS_RENDER_QUEUE_QUOTA_H

#include <stddef.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"

/* After "ClusterQueue NAME: ": its GPUs ("8/8 GPUs used", "6/4 GPUs used (2
 * borrowed)", or "no GPU quota" when no flavor's quota names nvidia.com/gpu), then
 * its cohort and whether it borrows from it. */
void render_cq_headline(struct strbuf *sb, const struct clusterqueue *c);

/* "  Quota:" and a table of every flavor and resource of c's quota: nominal,
 * borrowing and lending limits, used and borrowed, as the API server writes them. */
void render_cq_quota(struct strbuf *sb, const struct clusterqueue *c);

/* "  Used:" and a table of every flavor and resource l uses, with its ClusterQueue's
 * nominal quota of each (c may be NULL: not in the cache). */
void render_lq_usage(struct strbuf *sb, const struct localqueue *l, const struct clusterqueue *c);

/* "Cohorts:" and the tree of cohorts: each cohort (named by a ClusterQueue, a
 * Cohort object or its parentName) under its parent, with its ClusterQueues;
 * nothing when there is none. cqs by name. */
void render_cohort_tree(struct strbuf *sb, const struct clusterqueue *const *cqs, size_t n_cqs,
                        const struct kueue_cohort *const *cohorts, size_t n_cohorts);

/* c's nominal quota of flavor and resource, or "" when it names none (c may be NULL). */
const char *render_cq_nominal(const struct clusterqueue *c, const char *flavor,
                              const char *resource);
/* A Workload's priority: "CLASS (VALUE)" when it has a class, else "VALUE". */
const char *render_workload_priority(const struct workload *w, char *buf, size_t size);

#endif
