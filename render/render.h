/*
 * render/: pure functions from cached objects to the text of each file of the
 * tree. No I/O, no locks, no clocks (the caller passes `now`): each is
 * unit-tested alone in tests/unit/test_render_*.c.
 *
 * The caller (fs/) gathers a view under the cache's read lock, calls one
 * function, and keeps the text. Every function appends to sb; formats are
 * documented in docs/tree.md. Only objects → text: the other direction, a
 * user's spec → objects, is spec/ (render/jobspec/spec.h).
 *
 * This header holds the views every renderer is handed; each file's functions are
 * in its own header (render/status.h for status.c, ...), so that a file's includes
 * say which renderers it uses.
 */
#ifndef ARENAFS_RENDER_RENDER_H
#define ARENAFS_RENDER_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/auth/config.h"
#include "k8s/cache/health.h"
#include "k8s/objects/gpumetrics.h"
#include "k8s/objects/objects.h"
#include "k8s/base/strbuf.h"

/* What keeping logs (keep_logs, fs/logs/logkeep.h) is up against: the budget the disk
 * left, and the last failure to keep a log. */
struct logs_kept_state {
	uint64_t budget;             /* bytes that may be kept now */
	uint64_t asked;              /* keep_logs */
	int err;                     /* errno of the last log not kept, 0: the last was kept */
	int64_t since;               /* when err began (Unix seconds) */
	char log[200];               /* that log: "NS/POD" */
	char dir[512];               /* where they are kept */
};

/* Kueue's word on a job (docs/tree.md, "Queues"): its Workload, the queues it is in
 * and its place in line. workload NULL: Kueue has none for it (no Kueue, no queue
 * label, or not made yet). */
struct job_queue {
	const struct workload *workload;
	const struct localqueue *lq;        /* its LocalQueue, NULL when not in the cache */
	const struct clusterqueue *cq;      /* its ClusterQueue (the admission's, else its
	                                       LocalQueue's), or NULL */
	const struct queue_place *place;    /* its place in line, NULL when not known */
	bool visibility;                    /* the visibility API is served (else no place) */
};

struct progress_point;

/* A job and everything its files are made from. */
struct job_view {
	const struct job *job;
	const struct pod *const *pods;          /* the job's pods (cache_pods_of_job) */
	size_t n_pods;
	const struct service *const *services;  /* labelled release=<job> */
	size_t n_services;
	const struct k8s_node *const *nodes;        /* all nodes: TensorBoard's node IP */
	size_t n_nodes;
	const struct event *const *events;      /* of the job and of its pods, any order */
	size_t n_events;
	/* Pods of the ended job that are gone but whose logs arenafs kept (keep_logs), by
	 * name: instances/ still has them, with their logs. */
	const char *const *kept_pods;
	size_t n_kept_pods;
	/* NULL, or keeping logs fails (err set): why a job's logs may be gone */
	const struct logs_kept_state *keep;
	/* The end of the log of the instance why names as failed (render_job_why_failure),
	 * when it is at hand without a request (arenafs kept it: keep_logs); else NULL.
	 * Bytes as the container wrote them (NUL and what is not UTF-8 included): its
	 * length says where it ends. */
	const char *failed_log_tail;
	size_t failed_log_tail_len;
	struct job_queue queue;                 /* always gathered (a lookup in an index) */
	/* Prometheus's GPU figures (places with PLACE_GPU_METRICS), else NULL */
	const struct gpu_metrics *gpu_metrics;
	/* The reports the mount has seen of the job, oldest first (render/progress.h's
	 * points, jobs/NAME/progress: fs/tree/reports.c keeps them), else NULL: its last */
	const struct progress_point *reports;
	size_t n_reports;
	int64_t now;
};

/* A node and the pods bound to it. */
struct node_view {
	const struct k8s_node *node;
	const struct pod *const *pods;
	size_t n_pods;
	int64_t now;
	/* Prometheus's GPU figures (places with PLACE_GPU_METRICS), else NULL */
	const struct gpu_metrics *gpu_metrics;
};

#endif
