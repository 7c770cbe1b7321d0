/*
 * The tables of jobs Arena prints, one file each, for `cat` and `watch`:
 * cluster/list (`arena list`: the mount's namespace), cluster/list-all
 * (`arena list -A`: every namespace, a NAMESPACE column first) and
 * cluster/top-job (`arena top job`: the mount's namespace, with its footer).
 *
 * Columns and values are Arena 0.15's (pkg/training/list.go
 * DisplayTrainingJobList, top_job.go displayWithNoMetric):
 * - TRAINER: the kind upper-cased (info's Trainer);
 * - DURATION (top job calls it AGE): info's Duration, in the short form;
 * - GPU(Requested), GPU(Allocated): the GPU accounting of gpus.c; `arena list`
 *   prints N/A allocated unless the job is PENDING or RUNNING, `top job` the
 *   number always;
 * - NODE: the main instance's (Arena's chief) host IP — Arena prints the node's
 *   address under that name — or N/A while it is Pending or when there is none;
 * - top job's footer: "Total Allocated/Requested GPUs of Training Jobs: A/R",
 *   summed over the RUNNING jobs only, after a blank line.
 * After Arena's columns, arenafs's own, which Arena has not: PROGRESS, a TrainJob's
 * last reported percentage (progress.h's cell: one word, N/A when none), and in
 * top job GPU(DutyCycle), the mean duty cycle of the GPUs the job's running pods
 * hold, from Prometheus (the figure of jobs/NAME/gpus; N/A without one). Last, so
 * that a script counting Arena's columns from the left, or comparing them by name,
 * reads them where Arena has them.
 *
 * Order: `arena list` newest first by creation, as jobs/ lists them (ties by
 * namespace, name, type); Arena sorts TFJobs by start time and the others by
 * creation, unstably. `top job`: most GPUs requested first, then that order.
 *
 * Pure: durations come from each view's now. Tested by
 * tests/unit/test_render_job_tables.c.
 */
#include "render/job_tables.h"
#include "render/gpus.h"
#include "render/job_times.h"
#include "render/pods.h"
#include "render/progress.h"
#include "render/render.h"
#include "render/status.h"
#include "render/table.h"
#include "render/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/kinds.h"

enum jobs_table { TABLE_LIST, TABLE_LIST_ALL, TABLE_TOP };

#define LIST_COLS 8 /* Arena's 7, then PROGRESS */
#define TOP_COLS 9  /* and GPU(DutyCycle) */

/* One job and what its order needs, worked out once. */
struct jobs_row {
	const struct job_view *v;
	int requested;
};

static int by_listing(const struct jobs_row *x, const struct jobs_row *y)
{
	const struct job *a = x->v->job, *b = y->v->job;
	int c;

	if (a->meta.created != b->meta.created)
		return a->meta.created > b->meta.created ? -1 : 1;
	if ((c = strcmp(a->meta.namespace, b->meta.namespace)) != 0)
		return c;
	if ((c = strcmp(a->meta.name, b->meta.name)) != 0)
		return c;
	return strcmp(kinds_info(a->kind)->type, kinds_info(b->kind)->type);
}

static int cmp_list(const void *a, const void *b)
{
	return by_listing(a, b);
}

static int cmp_top(const void *a, const void *b)
{
	const struct jobs_row *x = a, *y = b;

	if (x->requested != y->requested)
		return x->requested > y->requested ? -1 : 1;
	return by_listing(x, y);
}

/* Arena's NODE: the chief's status.hostIP, N/A while it is Pending (get_advanced.go). */
static const char *main_host_ip(const struct job_view *v)
{
	int i = render_job_main_pod(v);
	const struct pod *p = i >= 0 ? v->pods[i] : NULL;

	if (!p || p->phase == POD_PENDING || !p->host_ip[0])
		return RENDER_NA;
	return p->host_ip;
}

/* top job's GPU(DutyCycle): the mean of the duty cycles Prometheus has for the GPUs
 * of the job's pods that run and hold GPUs (those jobs/NAME/gpus sums), as Arena
 * prints one ("87.0%"); N/A when it has none (no Prometheus: jobs/NAME/gpus says why). */
static const char *duty_cycle(const struct job_view *v, char *buf, size_t size)
{
	const struct gpu_metrics *m = v->gpu_metrics;
	double sum = 0;
	size_t n = 0;

	if (!m || m->error[0])
		return RENDER_NA;
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];
		const struct gpu_sample *s;
		size_t k;

		if (p->gpus <= 0 || p->phase != POD_RUNNING || p->meta.deleted)
			continue;
		k = gpu_metrics_of_pod(m, p->meta.namespace, p->meta.name, &s);
		for (size_t j = 0; j < k; j++)
			if (s[j].duty >= 0) {
				sum += s[j].duty;
				n++;
			}
	}
	if (!n)
		return RENDER_NA;
	snprintf(buf, size, "%.1f%%", sum / (double)n);
	return buf;
}

static void add_row(struct render_table *t, enum jobs_table kind, const struct jobs_row *r)
{
	const struct job_view *v = r->v;
	const char *status = render_job_status_word(v);
	char duration[32], requested[16], allocated[16], progress[32], duty[32];
	const char *cells[TOP_COLS], **c = cells;
	bool holding = strcmp(status, "PENDING") == 0 || strcmp(status, "RUNNING") == 0;

	snprintf(requested, sizeof(requested), "%d", r->requested);
	if (kind == TABLE_TOP || holding)
		snprintf(allocated, sizeof(allocated), "%d", render_job_gpus_allocated(v));
	else
		snprintf(allocated, sizeof(allocated), "%s", RENDER_NA);
	if (kind == TABLE_LIST_ALL)
		*c++ = v->job->meta.namespace;
	*c++ = v->job->meta.name;
	*c++ = status;
	*c++ = job_trainer_name(v->job);
	*c++ = render_short_duration(render_job_duration(v), duration, sizeof(duration));
	*c++ = requested;
	*c++ = allocated;
	*c++ = main_host_ip(v);
	*c++ = render_progress_cell(v, progress, sizeof(progress));
	if (kind == TABLE_TOP)
		*c++ = duty_cycle(v, duty, sizeof(duty));
	render_table_add(t, cells);
}

static void render_jobs(struct strbuf *sb, const struct job_view *jobs, size_t n,
                        enum jobs_table kind)
{
	static const char *const head[] = {"NAMESPACE",      "NAME",           "STATUS",
	                                   "TRAINER",        "DURATION",       "GPU(Requested)",
	                                   "GPU(Allocated)", "NODE",         "PROGRESS",
	                                   "GPU(DutyCycle)"};
	const char *header[TOP_COLS];
	struct jobs_row *rows = NULL;
	long long total_requested = 0, total_allocated = 0;
	size_t ncols = kind == TABLE_LIST_ALL ? LIST_COLS + 1 : kind == TABLE_TOP ? TOP_COLS : LIST_COLS;
	struct render_table t;

	memcpy(header, kind == TABLE_LIST_ALL ? head : head + 1, ncols * sizeof(*header));
	if (kind == TABLE_TOP)
		header[3] = "AGE";     /* the same duration, under top job's name */
	render_table_init(&t, ncols);
	if (n && !(rows = calloc(n, sizeof(*rows)))) {
		sb->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].v = &jobs[i];
		rows[i].requested = render_job_gpus_requested(&jobs[i]);
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), kind == TABLE_TOP ? cmp_top : cmp_list);
	render_table_add(&t, header);
	for (size_t i = 0; i < n; i++) {
		add_row(&t, kind, &rows[i]);
		if (strcmp(render_job_status_word(rows[i].v), "RUNNING") == 0) {
			total_requested += rows[i].requested;
			total_allocated += render_job_gpus_allocated(rows[i].v);
		}
	}
	render_table_render(sb, &t, "");
	if (kind == TABLE_TOP)
		strbuf_printf(sb, "\nTotal Allocated/Requested GPUs of Training Jobs: %lld/%lld\n",
		              total_allocated, total_requested);
out:
	render_table_free(&t);
	free(rows);
}

int render_jobs_order(const struct job_view *jobs, size_t n, bool most_gpus_first,
                      const struct job_view **out)
{
	struct jobs_row *rows = n ? calloc(n, sizeof(*rows)) : NULL;

	if (n && !rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rows[i].v = &jobs[i];
		rows[i].requested = render_job_gpus_requested(&jobs[i]);
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), most_gpus_first ? cmp_top : cmp_list);
	for (size_t i = 0; i < n; i++)
		out[i] = rows[i].v;
	free(rows);
	return 0;
}

void render_jobs_list(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	render_jobs(sb, jobs, n, TABLE_LIST);
}

void render_jobs_list_all(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	render_jobs(sb, jobs, n, TABLE_LIST_ALL);
}

void render_jobs_top(struct strbuf *sb, const struct job_view *jobs, size_t n)
{
	render_jobs(sb, jobs, n, TABLE_TOP);
}
