/*
 * A pool of threads for FUSE requests that wait on the network (netpool.h): a
 * queue under one mutex, threads made on demand and ended when idle. Detached
 * threads: netpool_stop waits on a count, not on joins, so that a thread that
 * ends while idle needs nobody to reap it.
 *
 * Locks: p->mu (a leaf) guards the queue and the counts; work runs without it.
 * Tested by tests/unit/test_fs_netpool.c.
 */
#include "fs/base/netpool.h"
#include "k8s/base/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct work {
	void (*fn)(void *);
	void *arg;
	struct work *next;
};

struct netpool {
	pthread_mutex_t mu;
	pthread_cond_t more;     /* work queued, or stopping (CLOCK_MONOTONIC) */
	pthread_cond_t ended;    /* a thread ended */
	struct work *head, *tail;
	size_t max, threads, idle, queued, busy, peak;
	bool stopping;
};

static _Thread_local bool on_pool;

bool netpool_on_pool(void)
{
	return on_pool;
}

int netpool_new(size_t max_threads, struct netpool **out)
{
	struct netpool *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	worker_cond_init(&p->more);
	pthread_cond_init(&p->ended, NULL);
	p->max = max_threads ? max_threads : NETPOOL_THREADS_MAX;
	return 0;
}

/* The next work, waiting at most NETPOOL_IDLE_MS for it; NULL: the thread ends. */
static struct work *take_locked(struct netpool *p)
{
	struct timespec until = worker_deadline(NETPOOL_IDLE_MS);
	struct work *w;

	while (!p->head && !p->stopping) {
		int rc;

		p->idle++;
		rc = pthread_cond_timedwait(&p->more, &p->mu, &until);
		p->idle--;
		if (rc == ETIMEDOUT && !p->head)
			return NULL;
	}
	w = p->head;
	if (w) {
		p->head = w->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
	}
	return w;
}

static void *pool_main(void *arg)
{
	struct netpool *p = arg;
	struct work *w;

	on_pool = true;
	pthread_mutex_lock(&p->mu);
	while ((w = take_locked(p))) {
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		w->fn(w->arg);
		free(w);
		pthread_mutex_lock(&p->mu);
		p->busy--;
	}
	p->threads--;
	pthread_cond_broadcast(&p->ended);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* One more thread when every thread is busy and the cap allows. Under p->mu. */
static void grow_locked(struct netpool *p)
{
	pthread_attr_t attr;
	pthread_t t;

	if (p->idle >= p->queued || p->threads >= p->max)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, pool_main, p) == 0) {
		p->threads++;
		if (p->threads > p->peak)
			p->peak = p->threads;
	}
	pthread_attr_destroy(&attr);
}

int netpool_run(struct netpool *p, void (*fn)(void *), void *arg)
{
	struct work *w = malloc(sizeof(*w));
	int rc = 0;

	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->next = NULL;
	pthread_mutex_lock(&p->mu);
	if (p->stopping) {
		rc = -ESHUTDOWN;
	} else {
		if (p->tail)
			p->tail->next = w;
		else
			p->head = w;
		p->tail = w;
		p->queued++;
		grow_locked(p);
		if (p->threads == 0) {
			/* no thread could be made: the caller answers itself */
			p->head = p->tail = NULL;
			p->queued = 0;
			rc = -EAGAIN;
		} else {
			pthread_cond_signal(&p->more);
		}
	}
	pthread_mutex_unlock(&p->mu);
	if (rc)
		free(w);
	return rc;
}

void netpool_get_stats(struct netpool *p, struct netpool_stats *out)
{
	pthread_mutex_lock(&p->mu);
	out->threads = p->threads;
	out->busy = p->busy;
	out->queued = p->queued;
	out->peak = p->peak;
	pthread_mutex_unlock(&p->mu);
}

void netpool_stop(struct netpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	pthread_cond_broadcast(&p->more);
	/* the threads take what is queued before they see stopping */
	while (p->threads > 0)
		pthread_cond_wait(&p->ended, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void netpool_free(struct netpool *p)
{
	if (!p)
		return;
	netpool_stop(p);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->ended);
	free(p);
}
