/*
 * The GPU figures the tree shows (instances/POD/gpus, jobs/NAME/gpus), kept as
 * one snapshot of one Prometheus query for every pod (k8s/api/prometheus.h),
 * fetched when a file that shows them is opened and the snapshot is older than
 * GPU_METRICS_TTL_S, and shared by every file rendered meanwhile: a walk that
 * reads 10,000 of them costs one query. A failed or empty lookup is kept as
 * long, with its reason, so that a cluster without Prometheus is not asked
 * again at every read.
 *
 * Locks: the snapshot's mutex (a leaf, held only to swap or take a reference)
 * and the fetch mutex (one query at a time; readers that find a fetch under way
 * wait for its answer). Neither is held with the cache's lock; content.c calls
 * gpu_metrics_get under an inode's lock, before taking the cache's. While the
 * cache says the API server cannot be reached, Prometheus (asked through it) is not
 * asked: the snapshot says so at once.
 * Made and freed by fs.c. Tests: tests/integration/test_tree_gpu_metrics.py.
 */
#ifndef ARENAFS_FS_TREE_GPUMETRICS_H
#define ARENAFS_FS_TREE_GPUMETRICS_H

#include <stdbool.h>

#include "fs/base/fs_struct.h"
#include "k8s/objects/gpumetrics.h"

#define GPU_METRICS_TTL_S 5

struct gpu_metrics_keeper;

int gpu_metrics_keeper_new(struct fs *fs, struct gpu_metrics_keeper **out);
void gpu_metrics_keeper_free(struct gpu_metrics_keeper *k);
/* Would gpu_metrics_get wait for Prometheus: the snapshot is stale and its last
 * refresh asked one (or prometheus=URL names one)? ops.c then runs the open or stat on
 * a network thread, so that reads the cache answers never wait behind a query. Where
 * none was found, the next lookup is the cache's alone: no wait, no thread hop (reads
 * of info stay off the network pool, where writers may be waiting). */
bool gpu_metrics_would_wait(struct gpu_metrics_keeper *k);
/* A snapshot no older than GPU_METRICS_TTL_S (fetching one if need be), referenced
 * (gpu_metrics_unref), never NULL but when memory runs out. */
struct gpu_metrics *gpu_metrics_get(struct gpu_metrics_keeper *k);

#endif
