/*
 * Tests k8s/cache/reflector.c against the scripted server of testsrv.c: one
 * reflector of nodes, spawned on a feed made by hand (cache_impl.h), lists, then
 * watches from the list's resourceVersion; what it lists and what the watch adds
 * land in the store and reach the change hook through cache.c's cache_deliver;
 * and an object of another kind is skipped, counted in the health, not stored.
 * Failures, backoff and 410 Gone are tested against kubesim
 * (tests/integration/test_k8s_cache*.py): the scripted server serves one
 * connection at a time, in order.
 */
#include "k8s/cache/cache_impl.h"
#include "tests/unit/feed_fixture.h"
#include "k8s/cache/store.h"
#include "k8s/http/client.h"
#include "k8s/base/timefmt.h"
#include "tests/unit/harness.h"
#include "tests/unit/testsrv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define WAIT_MAX_MS 20000   /* catches a hang only: the machine may be loaded */

#define NODE(name, rv)                                                                             \
	"{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name "\","           \
	"\"uid\":\"uid-" name "\",\"resourceVersion\":\"" rv "\","                                 \
	"\"creationTimestamp\":\"2026-12-01T10:00:00Z\"},\"status\":{}}"

struct seen {
	pthread_mutex_t mu;
	char added[256];       /* names added, space-separated, in order */
};

static void on_change(void *arg, const struct cache_change *c)
{
	struct seen *s = arg;

	pthread_mutex_lock(&s->mu);
	if (c->object == CACHE_NODE && c->type == CACHE_ADDED &&
	    strlen(s->added) + strlen(c->name) + 2 < sizeof(s->added)) {
		strcat(s->added, c->name);
		strcat(s->added, " ");
	}
	pthread_mutex_unlock(&s->mu);
}

struct fixture {
	struct testsrv srv;
	struct k8s_client *client;
	struct cache_feed f;
	struct seen seen;
	struct reflector *r;
};

/* A feed over the scripted server with one reflector of nodes (cluster-scoped). */
static void fixture_start(struct fixture *x, const struct testsrv_response *script, int n)
{
	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->seen.mu, NULL);
	CHECK_INT_EQ(testsrv_start(&x->srv), 0);
	for (int i = 0; i < n; i++)
		x->srv.script[i] = script[i];
	x->srv.n_script = n;
	CHECK_INT_EQ(testsrv_client(&x->srv, &x->client), 0);
	fx_feed_init(&x->f, x->client, on_change, &x->seen);
	pthread_mutex_lock(&x->f.lock);
	x->r = reflector_spawn_locked(&x->f, CACHE_NODE, -1, "");
	pthread_mutex_unlock(&x->f.lock);
	CHECK(x->r != NULL);
}

static void fixture_stop(struct fixture *x)
{
	fx_feed_free(&x->f);
	k8s_client_free(x->client);
	testsrv_stop(&x->srv);
	pthread_mutex_destroy(&x->seen.mu);
}

/* Waits (WAIT_MAX_MS at most: a hang) until the store holds n nodes. */
static void wait_nodes(struct fixture *x, size_t n)
{
	int64_t deadline = time_monotonic_ms() + WAIT_MAX_MS;

	while (store_count(x->f.store, CACHE_NODE) < n && time_monotonic_ms() < deadline)
		usleep(10000);
}

TEST(reflector_lists_then_watches_from_the_lists_version)
{
	static const struct testsrv_response script[] = {
	    {200, "Content-Type: application/json\r\n",
	     "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"10\"},"
	     "\"items\":[" NODE("node-a", "7") "]}"},
	    {200, "Content-Type: application/json\r\n", NULL, 0,
	     {"{\"type\":\"ADDED\",\"object\":" NODE("node-b", "11") "}\n", NULL}, 0, true},
	};
	struct fixture x;

	fixture_start(&x, script, 2);
	wait_nodes(&x, 2);
	CHECK_INT_EQ(store_count(x.f.store, CACHE_NODE), 2);
	/* the list asked a page of 500; the watch resumed from the list's version */
	CHECK(strncmp(x.srv.seen[0], "GET /api/v1/nodes?", 18) == 0);
	CHECK_STR_CONTAINS(strtok(x.srv.seen[0], "\r"), "limit=500");
	CHECK_STR_CONTAINS(strtok(x.srv.seen[1], "\r"), "watch=");
	CHECK_STR_CONTAINS(x.srv.seen[1], "resourceVersion=10");
	pthread_mutex_lock(&x.seen.mu);
	CHECK_STR_EQ(x.seen.added, "node-a node-b ");
	pthread_mutex_unlock(&x.seen.mu);
	pthread_mutex_lock(&x.f.lock);
	CHECK(x.r->first_list_done);
	CHECK_INT_EQ(x.r->state, REFLECTOR_OK);
	CHECK_INT_EQ(x.f.pending_first_lists, 0);
	pthread_mutex_unlock(&x.f.lock);
	fixture_stop(&x);
}

TEST(reflector_skips_an_object_of_another_kind)
{
	static const struct testsrv_response script[] = {
	    {200, "Content-Type: application/json\r\n",
	     "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"10\"},"
	     "\"items\":[" NODE("node-a", "7") ","
	     "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"intruder\",\"resourceVersion\":\"8\"}}]}"},
	    {200, "Content-Type: application/json\r\n", NULL, 0, {NULL}, 0, true},
	};
	struct fixture x;
	int64_t deadline;
	bool done = false;

	fixture_start(&x, script, 2);
	deadline = time_monotonic_ms() + WAIT_MAX_MS;
	while (!done && time_monotonic_ms() < deadline) {
		pthread_mutex_lock(&x.f.lock);
		done = x.r->first_list_done;
		pthread_mutex_unlock(&x.f.lock);
		if (!done)
			usleep(10000);
	}
	CHECK(done);
	CHECK_INT_EQ(store_count(x.f.store, CACHE_NODE), 1);
	pthread_mutex_lock(&x.f.lock);
	CHECK_INT_EQ(x.f.health.skipped, 1);
	CHECK_STR_CONTAINS(x.f.health.skipped_last, "intruder");
	CHECK_STR_CONTAINS(x.f.health.skipped_last, "of kind Pod");
	pthread_mutex_unlock(&x.f.lock);
	pthread_mutex_lock(&x.seen.mu);
	CHECK_STR_EQ(x.seen.added, "node-a ");
	pthread_mutex_unlock(&x.seen.mu);
	fixture_stop(&x);
}
