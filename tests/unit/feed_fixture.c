/* A cache feed made by hand for the unit tests (feed_fixture.h). */
#include "tests/unit/feed_fixture.h"
#include "k8s/cache/store.h"

#include <stdlib.h>
#include <string.h>

void fx_feed_init(struct cache_feed *f, struct k8s_client *client, cache_change_fn fn, void *arg)
{
	memset(f, 0, sizeof(*f));
	f->client = client;
	f->config_ns = (char *)"default";
	f->store = store_new(f->config_ns, f);
	f->on_change = fn;
	f->arg = arg;
	f->watch_timeout_s = 300;
	atomic_init(&f->epochs, 0);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	f->started = true;
	f->health.connected = true;
}

void fx_feed_free(struct cache_feed *f)
{
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	for (struct reflector *r = f->reflectors; r; r = r->next)
		atomic_store(&r->cancel, true);
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	for (struct reflector *r = f->reflectors, *next; r; r = next) {
		next = r->next;
		if (r->joinable)
			pthread_join(r->thread, NULL);
		free(r);
	}
	store_free(f->store);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
}
