/*
 * Tests k8s/cache/queuepoll.c against the scripted server of testsrv.c: with a
 * Workload waiting in LocalQueue user-queue, one round of the poller asks Kueue's
 * visibility API for that queue's line, puts it in the store (cluster/queues and
 * why read it from there, docs/tree.md "Queues") and tells the change hook; a
 * failed request keeps the line as it was. The feed is made by hand
 * (cache_impl.h); the poller over kubesim: tests/integration/test_tree_queues.py.
 */
#include "k8s/cache/cache_impl.h"
#include "tests/unit/feed_fixture.h"
#include "k8s/cache/store.h"
#include "k8s/base/timefmt.h"
#include "k8s/http/client.h"
#include "tests/unit/harness.h"
#include "tests/unit/kueue_fixture.h"
#include "tests/unit/testsrv.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define WAIT_MAX_MS 20000   /* catches a hang only: the machine may be loaded */

#define LINE "{\"kind\":\"PendingWorkloadsSummary\",\"items\":[{\"metadata\":{\"name\":" \
	"\"tfjob-big-1a2b3\"},\"positionInClusterQueue\":1,\"positionInLocalQueue\":0," \
	"\"priority\":5}]}"

struct poller {
	struct testsrv srv;
	struct k8s_client *client;
	struct cache_feed f;
	atomic_int lines_told;       /* changes of CACHE_QUEUE_LINE the hook saw */
	struct queue_poll *p;
};

static void on_change(void *arg, const struct cache_change *c)
{
	struct poller *x = arg;

	if (c->object == CACHE_QUEUE_LINE && strcmp(c->name, "user-queue") == 0)
		atomic_fetch_add(&x->lines_told, 1);
}

/* A feed with one waiting Workload (and, with held, the line the store holds from an
 * earlier round), and a poller of one round (the next is a minute away) over the
 * scripted server answering response. */
static void poller_start(struct poller *x, struct testsrv_response response, const char *held)
{
	struct store_change ch;

	memset(x, 0, sizeof(*x));
	CHECK_INT_EQ(testsrv_start(&x->srv), 0);
	x->srv.script[0] = response;
	x->srv.n_script = 1;
	CHECK_INT_EQ(testsrv_client(&x->srv, &x->client), 0);
	fx_feed_init(&x->f, x->client, on_change, x);
	snprintf(x->f.kueue.version, sizeof(x->f.kueue.version), "v1beta2");
	snprintf(x->f.kueue.visibility, sizeof(x->f.kueue.visibility), "v1beta1");
	CHECK_INT_EQ(store_put(x->f.store, CACHE_WORKLOAD, fx_workload(WL_QUEUED), 0, &ch), 1);
	store_change_release(&ch);
	if (held) {
		CHECK_INT_EQ(store_put(x->f.store, CACHE_QUEUE_LINE,
				       fx_line("default", "user-queue", held), 0, &ch), 1);
		store_change_release(&ch);
	}
	CHECK_INT_EQ(queue_poll_start(&x->f, 60000, &x->p), 0);
}

static void poller_stop(struct poller *x)
{
	queue_poll_stop(x->p);
	fx_feed_free(&x->f);
	k8s_client_free(x->client);
	testsrv_stop(&x->srv);
}

/* Waits (WAIT_MAX_MS at most: a hang) until the server has answered n requests. */
static void wait_requests(struct poller *x, int n)
{
	int64_t deadline = time_monotonic_ms() + WAIT_MAX_MS;

	while (atomic_load(&x->srv.requests) < n && time_monotonic_ms() < deadline)
		usleep(10000);
}

TEST(queuepoll_puts_the_line_of_a_queue_with_a_workload_waiting)
{
	struct poller x;
	const struct queue_line *line;
	int64_t deadline;

	poller_start(&x, (struct testsrv_response){200, "Content-Type: application/json\r\n", LINE},
		     NULL);
	wait_requests(&x, 1);
	deadline = time_monotonic_ms() + WAIT_MAX_MS;
	while (atomic_load(&x.lines_told) < 1 && time_monotonic_ms() < deadline)
		usleep(10000);
	CHECK_STR_CONTAINS(strtok(x.srv.seen[0], "\r"),
			   "GET /apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/default/"
			   "localqueues/user-queue/pendingworkloads");
	CHECK_INT_EQ(atomic_load(&x.lines_told), 1);
	cache_read_lock(x.f.store);
	line = cache_queue_line(x.f.store, "default", "user-queue");
	CHECK(line && line->n_places == 1);
	if (line && line->n_places == 1) {
		CHECK_STR_EQ(line->places[0].workload, "tfjob-big-1a2b3");
		CHECK_INT_EQ(line->places[0].position_cq, 1);
	}
	cache_read_unlock(x.f.store);
	poller_stop(&x);
}

TEST(queuepoll_keeps_the_line_it_cannot_read)
{
	struct poller x;
	const struct queue_line *line;

	/* 403: these credentials may not see the line now; the one held stays, as it was */
	poller_start(&x, (struct testsrv_response){
	    403, "Content-Type: application/json\r\n",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
	    "\"forbidden\",\"reason\":\"Forbidden\",\"code\":403}"}, LINE);
	wait_requests(&x, 1);
	queue_poll_stop(x.p);      /* joined: its round, sweep included, is over */
	x.p = NULL;
	CHECK_INT_EQ(atomic_load(&x.lines_told), 0);   /* no change to tell */
	cache_read_lock(x.f.store);
	line = cache_queue_line(x.f.store, "default", "user-queue");
	CHECK(line && line->n_places == 1);
	if (line && line->n_places == 1)
		CHECK_STR_EQ(line->places[0].workload, "tfjob-big-1a2b3");
	cache_read_unlock(x.f.store);
	poller_stop(&x);
}
