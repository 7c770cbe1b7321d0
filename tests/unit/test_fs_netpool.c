/* Tests fs/base/netpool.c: work runs on threads of the pool (never the caller's),
 * blocked work does not hold back work queued after it while the cap allows a
 * thread, the cap holds, and a stop waits for what was queued. */
#include "fs/base/netpool.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool open;
	atomic_int ran, on_pool, blocked;
};

static void gate_init(struct gate *g)
{
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->open = false;
	atomic_init(&g->ran, 0);
	atomic_init(&g->on_pool, 0);
	atomic_init(&g->blocked, 0);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->mu);
}

/* Work that waits for the gate, as a request waits for a slow server. */
static void blocked_work(void *arg)
{
	struct gate *g = arg;

	atomic_fetch_add(&g->blocked, 1);
	pthread_mutex_lock(&g->mu);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->mu);
	pthread_mutex_unlock(&g->mu);
	atomic_fetch_add(&g->ran, 1);
}

static void quick_work(void *arg)
{
	struct gate *g = arg;

	if (netpool_on_pool())
		atomic_fetch_add(&g->on_pool, 1);
	atomic_fetch_add(&g->ran, 1);
}

TEST(netpool_runs_quick_work_while_other_work_is_blocked)
{
	struct netpool *p;
	struct gate slow, quick;
	struct netpool_stats st;

	gate_init(&slow);
	gate_init(&quick);
	CHECK_INT_EQ(netpool_new(8, &p), 0);
	CHECK(!netpool_on_pool());
	for (int i = 0; i < 5; i++)
		CHECK_INT_EQ(netpool_run(p, blocked_work, &slow), 0);
	while (atomic_load(&slow.blocked) < 5)
		usleep(1000);
	CHECK_INT_EQ(netpool_run(p, quick_work, &quick), 0);
	while (atomic_load(&quick.ran) < 1)
		usleep(1000);                    /* ran though five are blocked */
	CHECK_INT_EQ(atomic_load(&quick.on_pool), 1);
	netpool_get_stats(p, &st);
	CHECK(st.threads >= 6 && st.threads <= 8);
	gate_open(&slow);
	netpool_stop(p);                         /* waits for the blocked ones */
	CHECK_INT_EQ(atomic_load(&slow.ran), 5);
	CHECK_INT_EQ(netpool_run(p, quick_work, &quick), -ESHUTDOWN);
	netpool_free(p);
}

TEST(netpool_queues_beyond_its_cap_and_runs_everything)
{
	struct netpool *p;
	struct gate slow;
	struct netpool_stats st;

	gate_init(&slow);
	CHECK_INT_EQ(netpool_new(2, &p), 0);
	for (int i = 0; i < 6; i++)
		CHECK_INT_EQ(netpool_run(p, blocked_work, &slow), 0);
	while (atomic_load(&slow.blocked) < 2)
		usleep(1000);
	netpool_get_stats(p, &st);
	CHECK_INT_EQ((int)st.threads, 2);
	CHECK_INT_EQ((int)st.queued, 4);
	gate_open(&slow);
	netpool_stop(p);
	CHECK_INT_EQ(atomic_load(&slow.ran), 6);
	netpool_get_stats(p, &st);
	CHECK_INT_EQ((int)st.peak, 2);
	netpool_free(p);
}
