/*
 * render/status.c's face: the job and pod status words, the one mapping every file
 * uses (status.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_STATUS_H
#define ARENAFS_RENDER_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* Arena's status word ("RUNNING"), the one function behind every file that shows it. */
const char *render_job_status_word(const struct job_view *v);

void render_job_status(struct strbuf *sb, const struct job_view *v);    /* "RUNNING\n" */

/* kubectl's STATUS column word: Running, Completed, ContainerCreating, Init:0/1,
 * CrashLoopBackOff, Terminating, Pending, Error... */
const char *render_pod_status_word(const struct pod *pod, char *buf, size_t size);

void render_pod_status(struct strbuf *sb, const struct pod *pod);       /* word + "\n" */

#endif
