/*
 * render/job_gpus.c's face: a job's GPU figures where info and why show them:
 * info's GPUs: block (arena get -g) and why's idle GPUs.
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_JOB_GPUS_H
#define ARENAFS_RENDER_JOB_GPUS_H

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* A GPU is idle when its duty cycle stayed under this (percent) for the whole of
 * GPU_IDLE_WINDOW_S (k8s/objects/gpumetrics.h). */
#define GPU_IDLE_DUTY_MAX 1.0

/* info's "GPUs:" block, as `arena get -g NAME` prints it (pkg/training/get.go
 * displayGPUUsage): a row per GPU of each instance of pods (v's pods, in info's
 * order), then "Allocated/Requested GPUs of Job: A/R"; with a line saying why when
 * an instance that runs holding GPUs has no figures. Nothing for a job that asks no
 * GPU or succeeded (as Arena), nor when v->gpu_metrics is NULL (not asked). */
void render_job_info_gpus(struct strbuf *sb, const struct job_view *v,
                          const struct pod *const *pods);

/* why's clause for a running job whose GPUs sat idle: "; but its 4 GPUs have been idle
 * (0% duty cycle) for at least 10m" (or "2 of its 4 GPUs"); nothing when none did,
 * or v->gpu_metrics cannot say. */
void render_job_idle_gpus(struct strbuf *sb, const struct job_view *v);

#endif
