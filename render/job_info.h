/*
 * render/job_info.c's face: jobs/NAME/info (arena get) and the job facts it and the
 * tables share (job_info.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_JOB_INFO_H
#define ARENAFS_RENDER_JOB_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* SUCCEEDED or FAILED: nothing more will run. */
bool render_job_ended(const struct job_view *v);

void render_job_info(struct strbuf *sb, const struct job_view *v);      /* arena get */

/* When the job's clock starts for Duration: status.startTime, else (MPI, TrainJob,
 * which Arena times from creation) the creation time; 0 when unknown. */
int64_t render_job_start(const struct job_view *v);

/* When the job ended, or 0 while it runs. */
int64_t render_job_end(const struct job_view *v);

/* Arena's Duration: from render_job_start to the end, or to v->now; 0 before the start. */
int64_t render_job_duration(const struct job_view *v);

/* Arena's instance age (GetDurationOfPod): a Pending pod's wait, else its containers'
 * run, from the first start to the last finish or to now. */
int64_t render_pod_age(const struct pod *p, int64_t now);

#endif
