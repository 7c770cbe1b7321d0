/*
 * A worker thread's start, stop and sleep (worker.h), for every background thread
 * of fs/ and mount/. Tested by tests/unit/test_k8s_base_worker.c.
 */
#include "k8s/base/worker.h"
#include "k8s/base/invariant.h"

#include <errno.h>

void worker_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
}

void worker_init(struct worker *w)
{
	pthread_mutex_init(&w->mu, NULL);
	worker_cond_init(&w->cond);
	w->running = false;
	w->stop = false;
}

void worker_destroy(struct worker *w)
{
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cond);
}

int worker_start(struct worker *w, void *(*fn)(void *), void *arg)
{
	int ret = 0;

	pthread_mutex_lock(&w->mu);
	if (w->stop)
		ret = -ESHUTDOWN;
	else if (!w->running) {
		ret = -pthread_create(&w->thread, NULL, fn, arg);
		w->running = ret == 0;
	}
	pthread_mutex_unlock(&w->mu);
	return ret;
}

bool worker_stop(struct worker *w)
{
	bool running;

	pthread_mutex_lock(&w->mu);
	w->stop = true;
	running = w->running;
	w->running = false;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
	if (running)
		pthread_join(w->thread, NULL);
	return running;
}

struct timespec worker_deadline(int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

void worker_sleep(struct worker *w, int64_t ms)
{
	struct timespec until = worker_deadline(ms);

	assert(mutex_is_held(&w->mu));   /* a wait on a mutex not held is undefined */
	pthread_cond_timedwait(&w->cond, &w->mu, &until);
}
