/*
 * render/tensorboard.c's face: jobs/NAME/tensorboard_url (tensorboard.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_TENSORBOARD_H
#define ARENAFS_RENDER_TENSORBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* The TensorBoard URL + "\n"; returns false (nothing appended) when the job has none. */
bool render_job_tensorboard_url(struct strbuf *sb, const struct job_view *v);

#endif
