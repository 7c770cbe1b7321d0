/*
 * The threads that wait for the cluster on behalf of FUSE requests (netpool.c):
 * a request that may wait on the network (an access review, a PATCH, a POST, a
 * DELETE, a ConfigMap's GET, a log's first bytes) is handed here and answered
 * from one of these threads, so that libfuse's own workers (ten at most by
 * default) go back to reading the kernel's queue at once. Reads the cache can
 * answer never queue behind a slow server, however many writers wait
 * (docs/reliability.md, "Reads while writers wait").
 *
 * Threads start when work comes and none is idle, up to NETPOOL_THREADS_MAX;
 * beyond that, work waits in the pool's queue (first come, first served), never
 * on a FUSE worker. An idle thread ends after NETPOOL_IDLE_MS.
 *
 * Called by fs/ops.c (and dirs.c through it); the pool's mutex is a leaf, never
 * held while work runs. Tested by tests/unit/test_fs_netpool.c and, through the
 * mount, tests/integration/test_reads_while_writers_wait.py.
 */
#ifndef ARENAFS_FS_BASE_NETPOOL_H
#define ARENAFS_FS_BASE_NETPOOL_H

#include <stdbool.h>
#include <stddef.h>

#define NETPOOL_THREADS_MAX 64
#define NETPOOL_IDLE_MS     10000

struct netpool;

struct netpool_stats {
	size_t threads;   /* alive now */
	size_t busy;      /* running work now */
	size_t queued;    /* waiting for a thread */
	size_t peak;      /* most threads alive at once */
};

int netpool_new(size_t max_threads, struct netpool **out);
/* Runs fn(arg) on a thread of the pool: 0, or -errno (out of memory, stopped), in
 * which case fn was not run and the caller must answer its request itself. */
int netpool_run(struct netpool *p, void (*fn)(void *), void *arg);
/* Whether the calling thread is one of the pool's (work it runs is not handed on). */
bool netpool_on_pool(void);
void netpool_get_stats(struct netpool *p, struct netpool_stats *out);
/* Refuses new work, waits until the queued and running work is done and the
 * threads have ended. The pool's work must not wait for what stops after it. */
void netpool_stop(struct netpool *p);
void netpool_free(struct netpool *p);

#endif
