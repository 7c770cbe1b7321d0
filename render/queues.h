/*
 * render/queues.c's face: Kueue's queues as text (cluster/queues, queues/list), a
 * Workload's state word, and the sentence that says why a job waits in a queue
 * (docs/tree.md, "Queues").
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_QUEUES_H
#define ARENAFS_RENDER_QUEUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* Everything a queue file is made from: the queues, the Workloads in them, their
 * lines (the visibility API's places) and the jobs they are of. */
struct queue_view {
	const struct clusterqueue *const *cqs;   /* by name */
	size_t n_cqs;
	const struct localqueue *const *lqs;     /* by namespace and name */
	size_t n_lqs;
	const struct workload *const *workloads; /* any order */
	size_t n_workloads;
	const struct queue_line *const *lines;   /* any order */
	size_t n_lines;
	bool kueue;                              /* Kueue is served (else: says so) */
	bool visibility;                         /* its visibility API is */
	int64_t now;
	const struct kueue_cohort *const *cohorts; /* the Cohort objects, any order */
	size_t n_cohorts;
};

/* A Workload's state, from its conditions alone: FINISHED, PREEMPTED, EVICTED,
 * QUEUED (no quota yet, or waiting for admission checks) or ADMITTED. */
const char *render_workload_state(const struct workload *w);

/* The job's status word as Kueue has it: QUEUED, PREEMPTED or EVICTED while its
 * Workload is so (and the job has not ended), else NULL (the job's own word). */
const char *render_queue_word(const struct job_queue *q);

/* why's sentence for a job Kueue holds (render_queue_word not NULL): which queues,
 * its place in line, and Kueue's own message. False (nothing appended) otherwise. */
bool render_queue_why(struct strbuf *sb, const struct job_queue *q, int64_t now);

/* cluster/queues: every ClusterQueue, a table, then each one's jobs, admitted and
 * waiting in line. */
void render_queues_cluster(struct strbuf *sb, const struct queue_view *v);
/* queues/list: a namespace's LocalQueues (v->lqs), likewise. */
void render_queues_local(struct strbuf *sb, const struct queue_view *v);

#endif
