/*
 * render/job_info.c's face: jobs/NAME/info (arena get). When a job started and
 * ended, which info, why and the tables share, is render/job_times.h's.
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_JOB_INFO_H
#define ARENAFS_RENDER_JOB_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_job_info(struct strbuf *sb, const struct job_view *v);      /* arena get */

/* Arena's instance age (GetDurationOfPod): a Pending pod's wait, else its containers'
 * run, from the first start to the last finish or to now. */
int64_t render_pod_age(const struct pod *p, int64_t now);

#endif
