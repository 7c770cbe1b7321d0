/*
 * Tests k8s/cache/cache.c's feed without a server: the health summary from the
 * reflectors' states (cluster/health's source), what cache_forbidden says for a
 * namespace (RBAC's 403s shown as absent, docs/tree.md), and cache_deliver: a
 * change reaches the hook, and a namespace's deletion stops its per-namespace
 * reflectors. Reflectors are made by hand (cache_impl.h), no thread runs;
 * reflector.c's lists and watches: test_k8s_reflector.c. cache_start is tested
 * through kubesim (tests/integration/test_k8s_cache.py).
 */
#include "k8s/cache/cache_impl.h"
#include "tests/unit/feed_fixture.h"
#include "k8s/cache/store.h"
#include "tests/unit/harness.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct feed {
	struct cache_feed f;
	int changes;
	char last[64];
};

static void on_change(void *arg, const struct cache_change *c)
{
	struct feed *x = arg;

	x->changes++;
	snprintf(x->last, sizeof(x->last), "%s %d", c->name, c->type);
}

static void feed_init(struct feed *x)
{
	memset(x, 0, sizeof(*x));
	fx_feed_init(&x->f, NULL, on_change, x);
}

/* A reflector as reflector_spawn_locked leaves it, with no thread. */
static struct reflector *add(struct feed *x, enum cache_object_type type, const char *ns,
			     enum reflector_state state)
{
	struct reflector *r = calloc(1, sizeof(*r)), **tail = &x->f.reflectors;

	r->feed = &x->f;
	r->type = type;
	r->kind = -1;
	snprintf(r->ns, sizeof(r->ns), "%s", ns);
	r->state = state;
	while (*tail)
		tail = &(*tail)->next;
	*tail = r;
	return r;
}

TEST(cache_health_is_down_while_a_reflector_fails)
{
	struct feed x;
	struct cache_health h;
	struct reflector *pods;
	uint64_t gen;

	feed_init(&x);
	add(&x, CACHE_NODE, "", REFLECTOR_OK);
	pods = add(&x, CACHE_POD, "", REFLECTOR_OK);
	pthread_mutex_lock(&x.f.lock);
	cache_health_update_locked(&x.f);
	pthread_mutex_unlock(&x.f.lock);
	cache_get_health(x.f.store, &h);
	CHECK(h.connected);
	CHECK_STR_EQ(h.last_error, "");

	/* one watch fails: down, with its reason, and the texts made before are stale */
	gen = cache_generation(x.f.store);
	pthread_mutex_lock(&x.f.lock);
	pods->state = REFLECTOR_FAILED;
	snprintf(pods->last_error, sizeof(pods->last_error), "watch pods: connection refused");
	cache_health_update_locked(&x.f);
	pthread_mutex_unlock(&x.f.lock);
	cache_get_health(x.f.store, &h);
	CHECK(!h.connected);
	CHECK_STR_EQ(h.last_error, "watch pods: connection refused");
	CHECK(h.since > 0);
	CHECK(cache_generation(x.f.store) > gen);

	/* it comes back: up again, no reason */
	pthread_mutex_lock(&x.f.lock);
	pods->state = REFLECTOR_OK;
	cache_health_update_locked(&x.f);
	pthread_mutex_unlock(&x.f.lock);
	cache_get_health(x.f.store, &h);
	CHECK(h.connected);
	CHECK_STR_EQ(h.last_error, "");
	fx_feed_free(&x.f);
}

TEST(cache_forbidden_where_no_watch_stands_in)
{
	struct feed x;
	struct reflector *wide;
	char why[128] = "";

	feed_init(&x);
	wide = add(&x, CACHE_PVC, "", REFLECTOR_GONE);
	snprintf(wide->forbidden, sizeof(wide->forbidden), "persistentvolumeclaims is forbidden");
	/* refused cluster-wide, no watch of team-a: forbidden there, in the server's words */
	CHECK(cache_forbidden(x.f.store, CACHE_PVC, "team-a", why, sizeof(why)));
	CHECK_STR_EQ(why, "persistentvolumeclaims is forbidden");
	/* a watch of team-a of its own stands in */
	add(&x, CACHE_PVC, "team-a", REFLECTOR_OK);
	CHECK(!cache_forbidden(x.f.store, CACHE_PVC, "team-a", why, sizeof(why)));
	/* another type is not concerned */
	CHECK(!cache_forbidden(x.f.store, CACHE_POD, "team-a", why, sizeof(why)));
	fx_feed_free(&x.f);
}

TEST(cache_deliver_passes_a_change_and_a_gone_namespace_stops_its_watches)
{
	struct feed x;
	struct reflector *team, *mine;
	struct store_change ch = {
	    {CACHE_NAMESPACE, CACHE_DELETED, "", "team-a", -1, NULL, NULL, NULL, NULL},
	    CACHE_NAMESPACE, NULL};

	feed_init(&x);
	team = add(&x, CACHE_POD, "team-a", REFLECTOR_OK);
	mine = add(&x, CACHE_POD, "default", REFLECTOR_OK);
	cache_deliver(&x.f, &ch);
	CHECK_INT_EQ(x.changes, 1);
	CHECK_STR_EQ(x.last, "team-a 2");
	CHECK(atomic_load(&team->cancel));
	CHECK_INT_EQ(team->state, REFLECTOR_GONE);
	/* the mount's own namespace is watched whatever the namespace list says */
	CHECK(!atomic_load(&mine->cancel));
	CHECK_INT_EQ(mine->state, REFLECTOR_OK);
	fx_feed_free(&x.f);
}
