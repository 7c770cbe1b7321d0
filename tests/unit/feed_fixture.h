/*
 * A cache feed made by hand, as cache_start makes it (k8s/cache/cache_impl.h), for
 * the unit tests of the feed's three files (test_k8s_cache.c, test_k8s_reflector.c,
 * test_k8s_queuepoll.c): its store, lock and change hook, and no thread.
 */
#ifndef ARENAFS_TEST_FEED_FIXTURE_H
#define ARENAFS_TEST_FEED_FIXTURE_H

#include "k8s/cache/cache_impl.h"

/* f over client (may be NULL), its store's configured namespace "default", the
 * change hook fn(arg); health connected, started. */
void fx_feed_init(struct cache_feed *f, struct k8s_client *client, cache_change_fn fn, void *arg);
/* As cache_stop: stopping, every reflector cancelled, joined if it runs, freed; the
 * store freed. The client is the caller's. */
void fx_feed_free(struct cache_feed *f);

#endif
