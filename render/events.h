/*
 * render/events.c's face: jobs/NAME/events (events.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_EVENTS_H
#define ARENAFS_RENDER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_job_events(struct strbuf *sb, const struct job_view *v);    /* oldest first */

#endif
