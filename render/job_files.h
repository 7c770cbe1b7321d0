/*
 * render/job_files.c's face: a job's type, job.json and spec.yaml, and its files'
 * mtime (job_files.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_JOB_FILES_H
#define ARENAFS_RENDER_JOB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_job_type(struct strbuf *sb, const struct job *job);         /* "tfjob\n" */
/* jobs/NAME/suspend: "1\n" when the job's spec asks its operator to suspend it, else
 * "0\n" (also for a kind that cannot be suspended): what was asked, not what was done,
 * which status says (SUSPENDED). */
void render_job_suspend(struct strbuf *sb, const struct job *job);

/* The arenafs.io/spec annotation, else the object as YAML. */
void render_job_spec_yaml(struct strbuf *sb, const struct job *job);

void render_job_json(struct strbuf *sb, const struct job *job);          /* pretty JSON + "\n" */

/* Start of the job's life for st_mtime of its files: the latest of creation, start,
 * completion and condition transitions, a TrainJob's last progress report, and of its
 * pods' creation, start, deletion and container transitions (status and info follow
 * the pods); never later than v->now. */
int64_t render_job_mtime(const struct job_view *v);

/* The mtime of what a pod's files show: its latest transition, never later than now. */
int64_t render_pod_mtime(const struct pod *p, int64_t now);

#endif
