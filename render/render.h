/*
 * render/: pure functions from cached objects to the text of each file of the
 * tree. No I/O, no locks, no clocks (the caller passes `now`): each is
 * unit-tested alone in tests/unit/test_render_*.c.
 *
 * The caller (fs/) gathers a view under the cache's read lock, calls one
 * function, and keeps the text. Every function appends to sb; formats are
 * documented in docs/tree.md. Only objects → text: the other direction, a
 * user's spec → objects, is spec/ (render/spec/spec.h).
 */
#ifndef ARENAFS_RENDER_RENDER_H
#define ARENAFS_RENDER_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/auth/config.h"
#include "k8s/cache/health.h"
#include "k8s/objects/objects.h"
#include "k8s/base/strbuf.h"

/* What keeping logs (keep_logs, fs/logkeep.h) is up against: the budget the disk
 * left, and the last failure to keep a log. */
struct logs_kept_state {
	uint64_t budget;             /* bytes that may be kept now */
	uint64_t asked;              /* keep_logs */
	int err;                     /* errno of the last log not kept, 0: the last was kept */
	int64_t since;               /* when err began (Unix seconds) */
	char log[200];               /* that log: "NS/POD" */
	char dir[512];               /* where they are kept */
};

/* A job and everything its files are made from. */
struct job_view {
	const struct job *job;
	const struct pod *const *pods;          /* the job's pods (cache_pods_of_job) */
	size_t n_pods;
	const struct service *const *services;  /* labelled release=<job> */
	size_t n_services;
	const struct node *const *nodes;        /* all nodes: TensorBoard's node IP */
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
	 * when it is at hand without a request (arenafs kept it: keep_logs); else NULL. */
	const char *failed_log_tail;
	int64_t now;
};

/* A node and the pods bound to it. */
struct node_view {
	const struct node *node;
	const struct pod *const *pods;
	size_t n_pods;
	int64_t now;
};

/* ---- jobs ---- */

/* Arena's status word ("RUNNING"), the one function behind every file that shows it. */
const char *render_job_status_word(const struct job_view *v);
/* SUCCEEDED or FAILED: nothing more will run. */
bool render_job_ended(const struct job_view *v);
void render_job_status(struct strbuf *sb, const struct job_view *v);    /* "RUNNING\n" */
void render_job_type(struct strbuf *sb, const struct job *job);         /* "tfjob\n" */
/* jobs/NAME/suspend: "1\n" when the job's spec asks its operator to suspend it, else
 * "0\n" (also for a kind that cannot be suspended): what was asked, not what was done,
 * which status says (SUSPENDED). */
void render_job_suspend(struct strbuf *sb, const struct job *job);
void render_job_info(struct strbuf *sb, const struct job_view *v);      /* arena get */
/* The one reason the job is where it is, one line (why.c); it also heads info. A
 * failed job's line is followed by the end of its log, when v->failed_log_tail has it. */
void render_job_why(struct strbuf *sb, const struct job_view *v);
/* The container instance a failed job's why names: the first to fail, in the pod's
 * current instance (*previous false) or the one before a restart (true). */
bool render_job_why_failure(const struct job_view *v, const struct pod **pod,
                            const struct container **c, bool *previous);
void render_job_events(struct strbuf *sb, const struct job_view *v);    /* oldest first */
void render_job_gpus(struct strbuf *sb, const struct job_view *v);
/* Arena's GPU sums (gpus.c): requested = the requestGPUsOfJobOwner annotation, else the
 * pods' nvidia.com/gpu limits; allocated = limits of started, uncompleted pods. */
int render_job_gpus_requested(const struct job_view *v);
int render_job_gpus_allocated(const struct job_view *v);
/* The TensorBoard URL + "\n"; returns false (nothing appended) when the job has none. */
bool render_job_tensorboard_url(struct strbuf *sb, const struct job_view *v);
/* The arenafs.io/spec annotation, else the object as YAML. */
void render_job_spec_yaml(struct strbuf *sb, const struct job *job);
void render_job_json(struct strbuf *sb, const struct job *job);          /* pretty JSON + "\n" */
/* Index into v->pods of the main instance (chief/master/launcher/worker-0), or -1. */
int render_job_main_pod(const struct job_view *v);
/* Start of the job's life for st_mtime of its files: the latest of creation, start,
 * completion and condition transitions, and of its pods' creation, start, deletion and
 * container transitions (status and info follow the pods); never later than v->now. */
int64_t render_job_mtime(const struct job_view *v);
/* The mtime of what a pod's files show: its latest transition, never later than now. */
int64_t render_pod_mtime(const struct pod *p, int64_t now);

/* ---- tables of jobs (job_tables.c), each job with its pods ---- */

void render_jobs_list(struct strbuf *sb, const struct job_view *jobs, size_t n);     /* arena list */
void render_jobs_list_all(struct strbuf *sb, const struct job_view *jobs, size_t n); /* list -A */
void render_jobs_top(struct strbuf *sb, const struct job_view *jobs, size_t n);  /* arena top job */

/* ---- instances (pods) ---- */

/* kubectl's STATUS column word: Running, Completed, ContainerCreating, Init:0/1,
 * CrashLoopBackOff, Terminating, Pending, Error... */
const char *render_pod_status_word(const struct pod *pod, char *buf, size_t size);
void render_pod_status(struct strbuf *sb, const struct pod *pod);       /* word + "\n" */
void render_pod_node(struct strbuf *sb, const struct pod *pod);         /* "node-1\n" or "N/A\n" */
void render_pod_ip(struct strbuf *sb, const struct pod *pod);
void render_pod_gpus(struct strbuf *sb, const struct pod *pod);
/* Index of the container whose log is the pod's `logs`: the default-container annotation,
 * else the job kind's framework container, else the first. -1 when none. */
int render_pod_main_container(const struct pod *pod);

/* ---- nodes ---- */

void render_node_gpus(struct strbuf *sb, const struct node_view *v);    /* "3/8\n" */
/* Σ nvidia.com/gpu limits of the node's pods that are not Succeeded, Failed or being deleted. */
int render_node_gpus_allocated(const struct node_view *v);
void render_node_info(struct strbuf *sb, const struct node_view *v);    /* arena top node -d */
void render_node_status(struct strbuf *sb, const struct node *node);    /* Ready / NotReady */
void render_node_ip(struct strbuf *sb, const struct node *node);
void render_node_role(struct strbuf *sb, const struct node *node);

/* ---- cluster ---- */

void render_cluster_top(struct strbuf *sb, const struct node_view *nodes, size_t n);
void render_cluster_gpus(struct strbuf *sb, const struct node_view *nodes, size_t n);
void render_cluster_context(struct strbuf *sb, const struct k8s_config *cfg);
void render_cluster_health(struct strbuf *sb, const struct cache_health *h);
/* For files that show the cluster's state: nothing while connected, else one
 * paragraph saying the state is the one last seen, since when and why. */
void render_stale_note(struct strbuf *sb, const struct cache_health *h);
/* cluster/health's line on kept logs (keep_logs): nothing while they are kept as
 * asked, else whether they are being kept, why not, and the budget the disk left. */
void render_logs_kept_line(struct strbuf *sb, const struct logs_kept_state *s);
void render_readme(struct strbuf *sb);

/* ---- data/ ---- */

/* A namespace's claims, by name, and its jobs (any order), which mount them. */
struct data_view {
	const struct pvc *const *pvcs;
	size_t n_pvcs;
	const struct job *const *jobs;
	size_t n_jobs;
	int64_t now;
};
/* data/list: the claims as a table (`arena data list`'s columns and more). */
void render_data_list(struct strbuf *sb, const struct data_view *v);

/* An rmdir's delete that outlived the rmdir (fs/submit/deletes.h): under way, or failed. */
struct delete_note {
	int64_t asked;      /* when rmdir asked (seconds, UTC) */
	int64_t ended;      /* when it failed; 0 while under way */
	const char *reason; /* why it failed (an API server's message: made single-line) */
};
/* The paragraph jobs/NAME/info ends with for such a delete. */
void render_delete_note(struct strbuf *sb, const struct delete_note *n);

/* The last write of jobs/NAME/suspend that was refused (fs/submit/suspend.h). */
struct suspend_note {
	int64_t at;         /* when (seconds, UTC) */
	bool on;            /* it asked to suspend (else to resume) */
	const char *reason; /* why (an API server's message: made single-line) */
};
/* The paragraph jobs/NAME/info ends with after such a refusal. */
void render_suspend_note(struct strbuf *sb, const struct suspend_note *n);

#endif
