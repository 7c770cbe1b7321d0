/*
 * render/job_times.c's face: when a job started and ended, as Arena counts them,
 * the facts that info (job_info.c), why (why.c), the tables (job_tables.c) and
 * fs/'s view and model (whether a job has ended) share. Apart from info and why,
 * which both use them, so that neither calls into the other for them.
 * Pure: no I/O, no locks, no clock. Tested by tests/unit/test_render_job_times.c.
 */
#ifndef ARENAFS_RENDER_JOB_TIMES_H
#define ARENAFS_RENDER_JOB_TIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "render/render.h"

/* SUCCEEDED or FAILED: nothing more will run. */
bool render_job_ended(const struct job_view *v);

/* When the job's clock starts for Duration: status.startTime, else (MPI, TrainJob,
 * which Arena times from creation) the creation time; 0 when unknown. */
int64_t render_job_start(const struct job_view *v);

/* When the job ended, or 0 while it runs. */
int64_t render_job_end(const struct job_view *v);

/* Arena's Duration: from render_job_start to the end, or to v->now; a job not started
 * counts from its creation (Arena: 0s); 0 when neither is known. */
int64_t render_job_duration(const struct job_view *v);

#endif
