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

/* A Workload in a queue, for the queue files: admitted ones by when, waiting ones in
 * the order of the line (render_queue_members). */
struct queue_member {
	const struct workload *w;
	const struct queue_place *place;  /* its place in line, NULL when not known */
	int pos;                          /* its place in the queue's line shown, 0-based
	                                     (-1: none known) */
	int64_t since;                    /* admitted: when its quota was reserved */
};

/* The Workloads of a queue not finished, admitted or waiting, in the files' order: of
 * ClusterQueue cq (lq NULL: admitted there, or waiting in one of its LocalQueues), or
 * of LocalQueue lq. *out to free (also on failure); -1: no memory. */
int render_queue_members(const struct queue_view *v, const char *cq, const struct localqueue *lq,
                         bool admitted, struct queue_member **out, size_t *n);
/* A Workload's job (its owner's name, else the Workload's), its GPUs (admitted: its
 * admission's, else what it asks), its job's trainer (the Arena name of its kind, else
 * the owner's kind upper-cased, else N/A; buf holds it) and the WHY column (an evicted
 * or preempted Workload's condition's message, else why it waits). */
const char *render_workload_job(const struct workload *w);
int render_workload_gpus(const struct workload *w);
const char *render_workload_trainer(const struct workload *w, char *buf, size_t size);
const char *render_workload_why_waiting(const struct workload *w);
/* The ClusterQueue of v called name, or NULL. */
const struct clusterqueue *render_queue_cq_named(const struct queue_view *v, const char *name);

/* cluster/queues: every ClusterQueue, a table, then each one's jobs, admitted and
 * waiting in line. */
void render_queues_cluster(struct strbuf *sb, const struct queue_view *v);
/* queues/list: a namespace's LocalQueues (v->lqs), likewise. */
void render_queues_local(struct strbuf *sb, const struct queue_view *v);

#endif
