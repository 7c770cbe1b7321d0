/*
 * The training runtimes the tree shows in `runtimes` (runtimes.c): a
 * snapshot of Kubeflow Trainer's ClusterTrainingRuntimes and the mount's
 * namespace's TrainingRuntimes, listed at start and again every
 * RUNTIMES_POLL_MS by a thread of its own (runtimes change as rarely as an
 * administrator installs one; a watch per kind would cost two streams for
 * that). Each list is runtimes_list (fs/base/runtimes_list.h).
 *
 * Locks: the snapshot's own mutex, a leaf (taken by content.c under the
 * inode lock and the cache's read lock; never held across a request).
 * Made, started and stopped by fs.c. Test: tests/integration/test_tree_runtimes.py.
 */
#ifndef ARENAFS_FS_TREE_RUNTIMES_H
#define ARENAFS_FS_TREE_RUNTIMES_H

#include <stdint.h>

#include "fs/base/fs_struct.h"
#include "k8s/error.h"
#include "k8s/base/strbuf.h"
#include "render/runtimes.h"

#define RUNTIMES_POLL_MS 10000

struct runtimes_poller;

int runtimes_poller_new(struct fs *fs, struct runtimes_poller **out);
/* Starts the thread (fs attached: its client and namespace set). -errno. */
int runtimes_poller_start(struct runtimes_poller *p);
void runtimes_poller_stop(struct runtimes_poller *p);
void runtimes_poller_free(struct runtimes_poller *p);
/* render(sb, snapshot, now) under the snapshot's lock. */
void runtimes_poller_render(struct runtimes_poller *p, struct strbuf *sb, int64_t now,
                            void (*render)(struct strbuf *, const struct runtimes *, int64_t));

#endif
