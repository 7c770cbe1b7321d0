/*
 * GPU figures from a Prometheus query answer (gpumetrics.c): per pod and GPU,
 * the duty cycle and the memory used and total, read from either metric family
 * clusters export: NVIDIA dcgm-exporter's (DCGM_FI_DEV_GPU_UTIL percent,
 * DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE MiB; labels namespace, pod, gpu)
 * or Arena's (nvidia_gpu_duty_cycle percent, nvidia_gpu_memory_used_bytes and
 * nvidia_gpu_memory_total_bytes; labels namespace_name, pod_name, minor_number),
 * each GPU's node (DCGM's Hostname, Arena's node_name) and, from the same query,
 * the most its duty cycle reached over the last GPU_IDLE_WINDOW (the idle GPUs
 * `why` names).
 * A snapshot is immutable once decoded and shared by reference count
 * (fs/tree/gpumetrics.c keeps the latest; render/gpus.c reads it).
 * Pure: no I/O, no locks. Test: tests/unit/test_gpumetrics.c.
 */
#ifndef ARENAFS_K8S_OBJECTS_GPUMETRICS_H
#define ARENAFS_K8S_OBJECTS_GPUMETRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The metric names of both families, as one regular expression for __name__. */
#define GPU_METRICS_NAMES                                                                     \
	"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE|nvidia_gpu_duty_cycle|"   \
	"nvidia_gpu_memory_used_bytes|nvidia_gpu_memory_total_bytes"

/* The window of the duty cycle's maximum (PromQL max_over_time), in seconds and as
 * PromQL writes it, and the label the query puts on those series: a GPU whose
 * duty cycle stayed near 0 that long is idle (render/gpus.h, GPU_IDLE_DUTY_MAX). */
#define GPU_IDLE_WINDOW_S 600
#define GPU_IDLE_WINDOW "10m"
#define GPU_METRICS_MAX_LABEL "arenafs_duty_max_over"

/* The query: both families' figures now, and their duty cycles' maximum over the
 * window, as series without a name carrying GPU_METRICS_MAX_LABEL (`or` keeps both:
 * their label sets never match). */
#define GPU_METRICS_QUERY                                                                     \
	"{__name__=~\"" GPU_METRICS_NAMES "\"} or label_replace(max_over_time({__name__=~"        \
	"\"DCGM_FI_DEV_GPU_UTIL|nvidia_gpu_duty_cycle\"}[" GPU_IDLE_WINDOW "]), \""              \
	GPU_METRICS_MAX_LABEL "\", \"" GPU_IDLE_WINDOW "\", \"\", \"\")"

/* One GPU: a pod's (ns and pod set), or a node's that no pod holds (ns and pod "").
 * Memory in MiB; a figure not reported is negative. */
struct gpu_sample {
	char *ns;
	char *pod;
	char *node;                  /* DCGM's Hostname, Arena's node_name; NULL: not said */
	int gpu;                     /* the device index (DCGM's gpu, Arena's minor_number) */
	double duty;                 /* percent */
	double duty_max;             /* the most over GPU_IDLE_WINDOW; negative: not said */
	double used_mib;
	double total_mib;
	double free_mib;             /* DCGM's: total = used + free */
};

struct gpu_metrics {
	atomic_int refs;
	int64_t fetched;             /* when the query was answered (0: never) */
	/* why there are none: "" when the query was answered, else a line such as
	 * "no Prometheus found (looked for ...)" */
	char error[512];
	char source[256];            /* where they came from: "service NS/NAME:PORT" or the URL */
	struct gpu_sample *s;        /* by namespace, pod, (a node's own: node,) gpu */
	size_t n;
	struct gpu_sample **by_node; /* the samples that name a node, by node, gpu, ns, pod */
	size_t n_by_node;
};

/* A new empty snapshot (refs 1), or NULL. */
struct gpu_metrics *gpu_metrics_new(void);
struct gpu_metrics *gpu_metrics_ref(struct gpu_metrics *m);
void gpu_metrics_unref(struct gpu_metrics *m);

/* Fills m (new: no samples yet) with the samples of a /api/v1/query answer
 * ({"status":"success","data":{"result":[...]}}), sorted. 0, -EINVAL (not a success vector: m->error says
 * why) or -ENOMEM. */
int gpu_metrics_decode(struct gpu_metrics *m, const json_t *answer);

/* The GPUs of pod ns/name, in index order (a binary search: a walk of every pod's
 * file costs O(log n) each): *first points into m->s; returns how many. */
size_t gpu_metrics_of_pod(const struct gpu_metrics *m, const char *ns, const char *name,
                          const struct gpu_sample **first);

/* The GPUs Prometheus has of node name, by index, then namespace and pod (a GPU two
 * pods share appears once per pod): *first points into m->by_node; returns how many. */
size_t gpu_metrics_of_node(const struct gpu_metrics *m, const char *name,
                           struct gpu_sample *const **first);

#endif
