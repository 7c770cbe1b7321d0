/*
 * render/job_tables.c's face: cluster/list, list-all and top-job (arena list, list -A,
 * top job) (job_tables.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_JOB_TABLES_H
#define ARENAFS_RENDER_JOB_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_jobs_list(struct strbuf *sb, const struct job_view *jobs, size_t n);     /* arena list */

void render_jobs_list_all(struct strbuf *sb, const struct job_view *jobs, size_t n); /* list -A */

void render_jobs_top(struct strbuf *sb, const struct job_view *jobs, size_t n);  /* arena top job */

/* The order of the tables (newest first; most_gpus_first: top job's) into out[n], which
 * the caller gives; 0 or -ENOMEM. The JSON and YAML forms (job_forms.c) list in it. */
int render_jobs_order(const struct job_view *jobs, size_t n, bool most_gpus_first,
                      const struct job_view **out);

#endif
