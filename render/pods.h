/*
 * render/pods.c's face: an instance's files, the main pod and the main container
 * (pods.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_PODS_H
#define ARENAFS_RENDER_PODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* Index into v->pods of the main instance (chief/master/launcher/worker-0), or -1. */
int render_job_main_pod(const struct job_view *v);

void render_pod_node(struct strbuf *sb, const struct pod *pod);         /* "node-1\n" or "N/A\n" */

void render_pod_ip(struct strbuf *sb, const struct pod *pod);

void render_pod_gpus(struct strbuf *sb, const struct pod *pod);

/* Index of the container whose log is the pod's `logs`: the default-container annotation,
 * else the job kind's framework container, else the first. -1 when none. */
int render_pod_main_container(const struct pod *pod);

#endif
