/*
 * jobs/NAME/info: the job's why line (why.c) and a blank line, then
 * `arena get NAME` (pkg/training/get.go printSingleJobHelper), laid out as Arena prints it — the aligned header, the Instances table, the
 * Tensorboard block — plus one block Arena lacks, in its style: "Pending
 * Instances:", why each Pending pod waits (the scheduler's message, the waiting
 * container's reason), in info because a pending pod's log is empty.
 *
 * Values, and where they depart from Arena 0.15 (docs/tree.md says the same):
 * - Duration: from status.startTime (MPI and TrainJob: creation, as Arena times
 *   MPI) to completionTime, or to the final condition's transition, or to now.
 *   A job not started (held in a Kueue queue, suspended) counts from its
 *   creation: how long it has waited, as its why line says, where Arena prints
 *   0s. Printed as Arena's short form (618s → "10m").
 * - Priority: Arena's (the pods' class), and where the job's Kueue Workload has a
 *   class of its own (a WorkloadPriorityClass), that class, kind and value too.
 * - CreateTime is metadata.creationTimestamp (Arena printed startTime under that
 *   name, 1970 for a job not started). EndTime: when it ended, "N/A" before
 *   (Arena leaves it blank). Times are UTC, "2006-01-02 15:04:05".
 * - Instances by name (the API server's order, which Arena showed); AGE is each
 *   pod's own (Arena's instance "age": pending time while Pending, else running
 *   time — its text table repeated the job's duration); IS_CHIEF marks the main
 *   instance (pods.c); NODE is N/A while the pod is Pending.
 * - Pods of an ended job that are gone but whose logs arenafs kept (keep_logs) are
 *   named under the table: their logs are read from those copies.
 * - The GPUs block is `arena get -g`'s (render/job_gpus.c), right after the
 *   instances as in Arena, with Prometheus's figures when fs/ asked for them.
 * - A TrainJob's header gains Progress (progress.c's line) and, when its script
 *   reported metrics, a Metrics block follows Data.
 * - No trailing blanks ("available on: " loses its space).
 *
 * Pure: every age comes from v->now. Tested by tests/unit/test_render_job_info.c.
 */
#include "render/job_info.h"
#include "render/job_gpus.h"
#include "render/job_times.h"
#include "render/why.h"
#include "render/pods.h"
#include "render/progress.h"
#include "render/render.h"
#include "render/status.h"
#include "render/table.h"
#include "render/tensorboard.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arena's instance age (pkg/apis/utils GetDurationOfPod): how long a Pending pod has
 * waited; else how long its containers ran, from the first start to the last finish
 * (to now while it runs or has not finished). */
int64_t render_pod_age(const struct pod *p, int64_t now)
{
	int64_t start = 0, end = 0;

	if (p->phase == POD_PENDING)
		return p->meta.created ? now - p->meta.created : 0;
	if (p->phase == POD_UNKNOWN)
		return 0;
	for (size_t i = 0; i < p->n_init_containers + p->n_containers; i++) {
		const struct container_state *st =
		    i < p->n_init_containers ? &p->init_containers[i].state
		                             : &p->containers[i - p->n_init_containers].state;

		if (st->kind != CONTAINER_RUNNING && st->kind != CONTAINER_TERMINATED)
			continue;
		if (st->started && (!start || st->started < start))
			start = st->started;
		if (st->kind == CONTAINER_TERMINATED && st->finished > end)
			end = st->finished;
	}
	if (!start)
		start = p->start_time ? p->start_time : p->meta.created;
	if (p->phase == POD_RUNNING || !end)
		return now - start;
	return end - start;
}

/* Priority: the pods' PriorityClass, as Arena shows it; where Kueue holds the job
 * under a class of its Workload's own (a WorkloadPriorityClass, by the job's label
 * kueue.x-k8s.io/priority-class), that class, its kind and value besides
 * (docs/tree.md, "Queues"). */
static const char *info_priority(const struct job_view *v, char *buf, size_t size)
{
	const char *pod = v->job->priority_class;
	const struct workload *w = v->queue.workload;

	if (!w || !*w->priority_class || strcmp(w->priority_class, pod) == 0)
		return *pod ? pod : RENDER_NA;
	snprintf(buf, size, "%s%s%s (%s, %d)", pod, *pod ? "; Kueue: " : "", w->priority_class,
	         *w->priority_kind ? w->priority_kind : "priority class", w->priority);
	return buf;
}

static void info_header(struct strbuf *sb, const struct job_view *v)
{
	const struct job *job = v->job;
	char duration[32], created[32], ended[32], queue[800], prio[600];
	int64_t end = render_job_end(v);
	struct render_table t;
	struct strbuf progress = STRBUF_INIT;

	render_table_init(&t, 2);
	render_table_add(&t, (const char *[]){"Name:", job->meta.name});
	render_table_add(&t, (const char *[]){"Status:", render_job_status_word(v)});
	render_table_add(&t, (const char *[]){"Namespace:", job->meta.namespace});
	render_table_add(&t, (const char *[]){"Priority:", info_priority(v, prio, sizeof(prio))});
	render_table_add(&t, (const char *[]){"Trainer:", job_trainer_name(job)});
	/* added by arenafs: the Kueue queue it is in (docs/tree.md, "Queues") */
	if (v->queue.workload) {
		const struct workload *w = v->queue.workload;
		const char *cq = *w->cluster_queue ? w->cluster_queue
		                 : v->queue.lq    ? v->queue.lq->cluster_queue
		                                  : "";

		snprintf(queue, sizeof(queue), "%s (ClusterQueue %s), Workload %s",
		         *w->queue ? w->queue : RENDER_NA, *cq ? cq : RENDER_NA, w->meta.name);
		render_table_add(&t, (const char *[]){"Queue:", queue});
	}
	render_table_add(&t, (const char *[]){"Duration:",
	                                      render_short_duration(render_job_duration(v), duration,
	                                                            sizeof(duration))});
	render_table_add(
	    &t, (const char *[]){"CreateTime:",
	                         render_time_or_na(job->meta.created, created, sizeof(created))});
	render_table_add(
	    &t, (const char *[]){"EndTime:", render_time_or_na(end, ended, sizeof(ended))});
	/* added by arenafs: what a TrainJob's script reports (jobs/NAME/progress) */
	if (render_progress_line(&progress, v))
		render_table_add(&t, (const char *[]){"Progress:", progress.buf ? progress.buf : ""});
	if (!strbuf_ok(&progress))
		sb->oom = true;
	render_table_render(sb, &t, "");
	render_table_free(&t);
	strbuf_free(&progress);
}

static int pod_cmp_name(const void *a, const void *b)
{
	return strcmp((*(const struct pod *const *)a)->meta.name,
	              (*(const struct pod *const *)b)->meta.name);
}

static void info_instances(struct strbuf *sb, const struct job_view *v, const struct pod **pods,
                           const struct pod *chief)
{
	struct render_table t;

	render_table_init(&t, 6);
	render_table_add(
	    &t, (const char *[]){"NAME", "STATUS", "AGE", "IS_CHIEF", "GPU(Requested)", "NODE"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = pods[i];
		char status[128], age[32], gpus[16];
		bool pending = p->phase == POD_PENDING || !p->node_name[0];

		snprintf(gpus, sizeof(gpus), "%d", p->gpus);
		render_table_add(
		    &t,
		    (const char *[]){
		        p->meta.name, render_pod_status_word(p, status, sizeof(status)),
		        render_short_duration(render_pod_age(p, v->now), age, sizeof(age)),
		        p == chief ? "true" : "false", gpus, pending ? RENDER_NA : p->node_name});
	}
	strbuf_puts(sb, "\nInstances:\n");
	render_table_render(sb, &t, "  ");
	render_table_free(&t);
	if (v->n_kept_pods) {
		/* arenafs kept their logs (keep_logs): instances/ still has them */
		strbuf_puts(sb, v->n_pods ? "  (gone, their logs kept by arenafs:"
		                          : "  (none: the pods of this finished job are gone; logs "
		                            "and instances/POD/logs read the copies arenafs kept of "
		                            "their logs:");
		for (size_t i = 0; i < v->n_kept_pods; i++)
			strbuf_printf(sb, " %s", v->kept_pods[i]);
		strbuf_puts(sb, ")\n");
	} else if (v->n_pods == 0 && render_job_ended(v) && v->keep && v->keep->err) {
		/* not "their logs with them": arenafs meant to keep them and could not */
		strbuf_printf(sb, "  (none: the pods of this finished job are gone; logs are not "
		                  "being kept: %s (cluster/health); logs reads fail with ENODATA)\n",
		              strerror(v->keep->err));
	} else if (v->n_pods == 0 && render_job_ended(v)) {
		strbuf_puts(sb, "  (none: the pods of this finished job are gone, and their logs "
		                "with them; logs reads fail with ENODATA)\n");
	}
}

/* Why a Pending pod waits: the scheduler's verdict, else the first waiting init
 * container or container with a reason, else the pod's own reason. */
static void pending_reason(const struct pod *p, const char **reason, const char **message)
{
	*reason = NULL;
	*message = "";
	if (p->unschedulable[0]) {
		*reason = "Unschedulable";
		*message = p->unschedulable;
		return;
	}
	for (size_t i = 0; i < p->n_init_containers + p->n_containers; i++) {
		const struct container_state *st =
		    i < p->n_init_containers ? &p->init_containers[i].state
		                             : &p->containers[i - p->n_init_containers].state;

		if (st->kind == CONTAINER_WAITING && st->reason[0] &&
		    strcmp(st->reason, "PodInitializing") != 0) {
			*reason = st->reason;
			*message = st->message;
			return;
		}
	}
	if (p->reason[0]) {
		*reason = p->reason;
		*message = p->message;
	}
}

static void info_pending(struct strbuf *sb, const struct job_view *v, const struct pod **pods)
{
	struct render_table t;

	render_table_init(&t, 3);
	render_table_add(&t, (const char *[]){"NAME", "REASON", "MESSAGE"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < v->n_pods; i++) {
		const char *reason, *message;
		char status[128];

		if (pods[i]->phase != POD_PENDING || pods[i]->meta.deleted)
			continue;
		pending_reason(pods[i], &reason, &message);
		if (!reason)
			reason = render_pod_status_word(pods[i], status, sizeof(status));
		render_table_add(&t, (const char *[]){pods[i]->meta.name, reason, message});
	}
	if (t.nrows > 2) {
		strbuf_puts(sb, "\nPending Instances:\n");
		render_table_render(sb, &t, "  ");
	} else if (t.oom) {
		sb->oom = true;
	}
	render_table_free(&t);
}

/* The claims the job's templates mount, one a line: where its data is (data/list
 * says each one's state). Nothing for a job that mounts none. */
static void info_data(struct strbuf *sb, const struct job_view *v)
{
	const char *p = v->job->claims;

	if (!*p)
		return;
	strbuf_puts(sb, "\nData:\n");
	while (*p) {
		size_t len = strcspn(p, ",");

		strbuf_puts(sb, "  ");
		strbuf_append(sb, p, len);
		strbuf_putc(sb, '\n');
		p += len + (p[len] == ',');
	}
}

/* added by arenafs: every metric a TrainJob's script reported (jobs/NAME/metrics) */
static void info_metrics(struct strbuf *sb, const struct job_view *v)
{
	struct strbuf m = STRBUF_INIT;

	if (!v->job->trainer.n_metrics)
		return;
	render_job_metrics(&m, v);
	strbuf_puts(sb, "\nMetrics:\n");
	for (const char *line = m.buf; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);

		strbuf_puts(sb, "  ");
		strbuf_append(sb, line, n);
		line += n;
	}
	if (!strbuf_ok(&m))
		sb->oom = true;
	strbuf_free(&m);
}

static void info_tensorboard(struct strbuf *sb, const struct job_view *v)
{
	struct strbuf url = STRBUF_INIT;

	if (render_job_tensorboard_url(&url, v)) {
		strbuf_puts(sb, "\nTensorboard:\n  Your tensorboard will be available on:\n  ");
		strbuf_append(sb, url.buf, url.len);
	}
	if (!strbuf_ok(&url))
		sb->oom = true;
	strbuf_free(&url);
}

void render_job_info(struct strbuf *sb, const struct job_view *v)
{
	const struct pod **pods = NULL;
	int main_pod = render_job_main_pod(v);

	if (v->n_pods) {
		pods = malloc(v->n_pods * sizeof(*pods));
		if (!pods) {
			sb->oom = true;
			return;
		}
		memcpy(pods, v->pods, v->n_pods * sizeof(*pods));
		qsort(pods, v->n_pods, sizeof(*pods), pod_cmp_name);
	}
	/* the answer to "why is it where it is" first, then Arena's report */
	render_job_why(sb, v);
	strbuf_putc(sb, '\n');
	info_header(sb, v);
	info_instances(sb, v, pods, main_pod >= 0 ? v->pods[main_pod] : NULL);
	render_job_info_gpus(sb, v, pods);
	info_pending(sb, v, pods);
	info_data(sb, v);
	info_metrics(sb, v);
	info_tensorboard(sb, v);
	free(pods);
}
