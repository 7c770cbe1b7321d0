/*
 * render/gpus.c's face: GPU accounting, a job's and a node's gpus, cluster/top and
 * gpus (gpus.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_GPUS_H
#define ARENAFS_RENDER_GPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* "ALLOCATED/REQUESTED", then, while it holds GPUs, one line of their figures
 * from v->gpu_metrics (docs/tree.md, "GPU figures"). */
void render_job_gpus(struct strbuf *sb, const struct job_view *v);

/* instances/POD/gpus: the pod's GPU count, then, while it runs with GPUs, a table of
 * each GPU's duty cycle and memory from m (NULL: none asked), or why there is none. */
void render_pod_gpus_metrics(struct strbuf *sb, const struct pod *pod,
                             const struct gpu_metrics *m);

/* A pod whose GPUs Prometheus may have figures of: running, holding GPUs (Arena asks
 * only for the Running pods of a RUNNING job). */
bool render_pod_shows_gpu_metrics(const struct pod *pod);

/* Why there is no figure of n GPUs in m, into buf ("not asked", m->error, "Prometheus
 * (SOURCE) has no figures of its GPUs"); NULL when there are figures (n > 0). */
const char *render_gpu_metrics_missing(const struct gpu_metrics *m, size_t n, char *buf,
                                       size_t size);

/* A GPU's cells as Arena prints them: "87.0%" and "5120.0/16384.0(MiB)" (N/A for a
 * figure not reported). */
void render_gpu_cells(const struct gpu_sample *s, char *duty, size_t duty_size, char *mem,
                      size_t mem_size);

/* Arena's GPU sums (gpus.c): requested = the requestGPUsOfJobOwner annotation, else the
 * pods' nvidia.com/gpu limits; allocated = limits of started, uncompleted pods. */
int render_job_gpus_requested(const struct job_view *v);

int render_job_gpus_allocated(const struct job_view *v);

void render_node_gpus(struct strbuf *sb, const struct node_view *v);    /* "3/8\n" */

/* Σ nvidia.com/gpu limits of the node's pods that are not Succeeded, Failed or being deleted. */
int render_node_gpus_allocated(const struct node_view *v);

/* A GPU node: one with nvidia.com/gpu capacity; its unhealthy GPUs: capacity − allocatable. */
bool render_node_has_gpus(const struct k8s_node *n);
int render_node_gpus_unhealthy(const struct k8s_node *n);


void render_cluster_top(struct strbuf *sb, const struct node_view *nodes, size_t n);

void render_cluster_gpus(struct strbuf *sb, const struct node_view *nodes, size_t n);

/* qsort's order of const struct pod *: by namespace, then name. */
int render_pod_cmp_ns_name(const void *a, const void *b);

/* Arena's IsCompletedPod: Succeeded, Failed or being deleted. */
bool render_pod_is_completed(const struct pod *pod);

#endif
