/*
 * render/job_forms.c's face: the JSON and YAML forms of arena list, list -A, top job
 * and get (cluster/list.json, list.yaml, list-all.*, top-job.*, jobs/NAME/info.*).
 * Pure: no I/O, no locks, no clock (each view's now).
 */
#ifndef ARENAFS_RENDER_JOB_FORMS_H
#define ARENAFS_RENDER_JOB_FORMS_H

#include <stdbool.h>
#include <stddef.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_job_info_json(struct strbuf *sb, const struct job_view *v);   /* get -o json */
void render_job_info_yaml(struct strbuf *sb, const struct job_view *v);   /* get -o yaml */

/* arena list -o json|yaml, and list -A's (Arena's -A adds no key: each has its namespace) */
void render_jobs_list_json(struct strbuf *sb, const struct job_view *jobs, size_t n);
void render_jobs_list_yaml(struct strbuf *sb, const struct job_view *jobs, size_t n);
void render_jobs_top_json(struct strbuf *sb, const struct job_view *jobs, size_t n);
void render_jobs_top_yaml(struct strbuf *sb, const struct job_view *jobs, size_t n);

#endif
