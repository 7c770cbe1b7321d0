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

#endif
