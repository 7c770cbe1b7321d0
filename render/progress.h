/*
 * A TrainJob's progress as its training script reports it (progress.c): the lines
 * of jobs/NAME/progress (one per report the mount has seen), info's Progress row,
 * the PROGRESS cell of the tables of jobs, and jobs/NAME/metrics.
 * From status.trainerStatus (Kubeflow Trainer v2.2, feature gate TrainJobStatus),
 * which the controller writes when the script POSTs to its status server (the
 * Kubeflow SDK's update_trainjob_status). Pure: `now` comes in the view. Callers: fs/ (the places
 * table's rows; fs/tree/content.c for their mtime and the points fs/tree/reports.c
 * keeps), render/job_info.c, render/job_tables.c. Test: tests/unit/test_render_progress.c.
 */
#ifndef ARENAFS_RENDER_PROGRESS_H
#define ARENAFS_RENDER_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"
#include "render/render.h"

/* A report older than this, of a job still running, says it has gone quiet. */
#define RENDER_PROGRESS_STALE 600

/* One report as a line of jobs/NAME/progress shows it: the history fs/tree/reports.c
 * keeps of the reports the mount has seen is made of these. */
struct progress_point {
	int64_t updated;   /* lastUpdatedTime; 0: none, or not reported */
	bool reported;     /* false: the TrainJob had not reported yet */
	char *text;        /* its figures, "42% · about 45m left · loss 0.231", or the
	                      words of no report yet; owned by the point's keeper */
};

/* The point of job's last report into *out (out->text malloc'd, the caller's): 1;
 * 0 for a kind that never reports (nothing made); -ENOMEM. */
int render_progress_point(const struct job *job, struct progress_point *out);

/* jobs/NAME/progress: the points v->reports (oldest first; none: the job's last
 * report alone), one line each, "2026-12-07 14:32:10  42% · about 45m left · loss
 * 0.231", and a line "... stale: no report in 10m" after a quiet spell. Written so
 * that a new report only appends: tail -f prints it. A kind that cannot report says
 * so in one line. */
void render_job_progress(struct strbuf *sb, const struct job_view *v);
/* The last report with its age, without the newline, for info's Progress row:
 * "42% · about 45m left · loss 0.231 · updated 12s ago" (false: the kind cannot
 * report, and info has no row). */
bool render_progress_line(struct strbuf *sb, const struct job_view *v);
/* The PROGRESS cell of cluster/list, list-all and top-job, one word: "42%",
 * "42%(stale)" (no report in RENDER_PROGRESS_STALE while running), or N/A (no
 * percentage reported, or a kind that cannot). Into buf; returns buf or RENDER_NA. */
const char *render_progress_cell(const struct job_view *v, char *buf, size_t size);
/* progress's and metrics's st_mtime: when the script last reported (lastUpdatedTime,
 * never after now); the job's (render_job_mtime) before it reports. */
int64_t render_job_report_mtime(const struct job_view *v);
/* jobs/NAME/metrics: "name value" per reported metric, by name; "# ..." when none. */
void render_job_metrics(struct strbuf *sb, const struct job_view *v);

/* progress.json and .yaml, metrics.json and .yaml: the same facts as documents
 * (progress.c's header says their keys). */
void render_job_progress_json(struct strbuf *sb, const struct job_view *v);
void render_job_progress_yaml(struct strbuf *sb, const struct job_view *v);
void render_job_metrics_json(struct strbuf *sb, const struct job_view *v);
void render_job_metrics_yaml(struct strbuf *sb, const struct job_view *v);

#endif
