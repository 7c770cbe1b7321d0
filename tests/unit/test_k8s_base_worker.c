/* Tests k8s/base/worker.c: one thread per worker, stopped and joined once, no start
 * after a stop, and a sleep that a signal ends early. */
#include "k8s/base/worker.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdatomic.h>

struct counted {
	struct worker w;
	atomic_int started;
};

static void *count_main(void *arg)
{
	struct counted *c = arg;

	atomic_fetch_add(&c->started, 1);
	pthread_mutex_lock(&c->w.mu);
	while (!c->w.stop) {
		worker_sleep(&c->w, 60000);
	}
	pthread_mutex_unlock(&c->w.mu);
	return NULL;
}

TEST(worker_runs_one_thread_until_stopped)
{
	struct counted c = {.started = 0};

	worker_init(&c.w);
	CHECK_INT_EQ(worker_start(&c.w, count_main, &c), 0);
	CHECK_INT_EQ(worker_start(&c.w, count_main, &c), 0);     /* already running */
	while (atomic_load(&c.started) == 0)
		;                          /* it may stop before its first sleep, or in it */
	CHECK(worker_stop(&c.w));          /* wakes a 60 s sleep, joins */
	CHECK_INT_EQ(atomic_load(&c.started), 1);
	CHECK(!c.w.running);
	CHECK(!worker_stop(&c.w));         /* a second stop has nothing to join */
	CHECK_INT_EQ(worker_start(&c.w, count_main, &c), -ESHUTDOWN);
	CHECK_INT_EQ(atomic_load(&c.started), 1);
	worker_destroy(&c.w);
}

TEST(worker_deadline_is_ms_ahead_on_the_monotonic_clock)
{
	struct timespec now, at;

	clock_gettime(CLOCK_MONOTONIC, &now);
	at = worker_deadline(1500);
	CHECK(at.tv_nsec >= 0 && at.tv_nsec < 1000000000);
	CHECK((at.tv_sec - now.tv_sec) * 1000 + (at.tv_nsec - now.tv_nsec) / 1000000 >= 1500);
}
