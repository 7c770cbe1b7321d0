/*
 * A worker thread's life, written once: its lock, its wake-up condition (on the
 * monotonic clock, so that setting the date moves no deadline), the stop flag it
 * polls, and the start and stop every background thread of arenafs needs (the
 * notifier, the log keeper, the deferred submissions, the mount and kubeconfig
 * watches). The owner embeds a struct worker, keeps what its thread works on under
 * w->mu, and signals w->cond when it queues work.
 *
 * Locks: w->mu guards running, stop and the owner's queue; worker_start and
 * worker_stop take it themselves (never call them with it held).
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_WORKER_H
#define ARENAFS_K8S_BASE_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;        /* CLOCK_MONOTONIC: work queued, or stop */
	bool running;               /* started and not yet joined (mu) */
	bool stop;                  /* the thread returns once it sees it (mu) */
};

void worker_init(struct worker *w);
void worker_destroy(struct worker *w);
/* Starts fn(arg) unless it runs already: 0, or -ESHUTDOWN once stopped, or
 * pthread_create's -errno. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg);
/* Sets stop, wakes the thread and joins it; whether it was running. */
bool worker_stop(struct worker *w);
/* With w->mu held: waits on w->cond at most ms (returns early when woken). */
void worker_sleep(struct worker *w, int64_t ms);
/* The monotonic time ms from now, for pthread_cond_timedwait on a condition made
 * with worker_cond_init. */
struct timespec worker_deadline(int64_t ms);
/* A condition on CLOCK_MONOTONIC, for the owner's other waits. */
void worker_cond_init(pthread_cond_t *c);

#endif
