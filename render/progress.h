/*
 * A TrainJob's progress as its training script reports it (progress.c): the one
 * line of jobs/NAME/progress (also info's Progress row), and jobs/NAME/metrics.
 * From status.trainerStatus (Kubeflow Trainer v2.2, feature gate TrainJobStatus),
 * which the controller writes when the script POSTs to its status server (the
 * Kubeflow SDK's update_trainjob_status). Pure: `now` comes in the view. Callers: fs/ (the places
 * table's rows, and fs/tree/content.c for their mtime), render/job_info.c. Test:
 * tests/unit/test_render_progress.c.
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

/* jobs/NAME/progress: "42% · about 45m left · loss 0.231 · updated 12s ago\n"; a
 * job that reports nothing says so, and which kinds can. */
void render_job_progress(struct strbuf *sb, const struct job_view *v);
/* The same facts without the newline, for info's Progress row (false: the kind
 * cannot report, and info has no row). */
bool render_progress_line(struct strbuf *sb, const struct job_view *v);
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
