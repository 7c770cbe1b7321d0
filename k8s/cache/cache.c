/*
 * The watch-fed cache (see cache.h): start-up (first lists, the namespace
 * strategy), stop, the change callback and the health summary: the feed that
 * keeps the store current. The list+watch loop itself is reflector.c; the
 * lookups are the store's own (store_query.c).
 *
 * Start-up order: namespaces first (their list decides where per-namespace
 * watches go when cluster-wide listing is forbidden), then nodes, pods, services, claims,
 * events and every served job kind, whose first lists run in parallel threads.
 * Used by mount/ (start, stop) and fs/ (health).
 *
 * One unit with reflector.c and queuepoll.c (the three share cache_impl.h, the
 * feed's private insides): this file starts and stops the threads that feed the
 * store (reflector_spawn_locked under f->lock; queue_poll_start/stop), and they
 * hand back each change and health (cache_deliver, cache_health_update_locked,
 * cache_trim_memory). The calls run both ways on purpose: the feed owns its
 * threads' lives, the threads report to the feed. A table of callbacks between
 * them would hide the same circle behind pointers, with one implementation on
 * each side (tests/tools/check_layers.py's ONE_UNIT).
 */
#include "k8s/cache/cache_impl.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"
#include <syslog.h>

/* ---- health ---- */

void cache_health_update_locked(struct cache_feed *f)
{
	const char *why = NULL;
	bool ok, unreachable = false;

	if (!f->started)
		return;
	for (struct reflector *r = f->reflectors; r && !why; r = r->next)
		if (r->state == REFLECTOR_FAILED) {
			why = r->last_error;
			unreachable = r->unreachable;
		}
	ok = why == NULL;
	f->health.unreachable = unreachable;
	if (ok != f->health.connected) {
		f->health.connected = ok;
		f->health.since = (int64_t)time(NULL);
		store_bump(f->store);
	} else if (!ok && strcmp(why, f->health.last_error) != 0) {
		store_bump(f->store);
	}
	snprintf(f->health.last_error, sizeof(f->health.last_error), "%s", ok ? "" : why);
}

void cache_get_health(struct k8s_cache *c, struct cache_health *out)
{
	struct cache_feed *f = store_feed(c);

	pthread_mutex_lock(&f->lock);
	*out = f->health;
	pthread_mutex_unlock(&f->lock);
}

bool cache_forbidden(struct k8s_cache *c, enum cache_object_type type, const char *ns,
		     char *why, size_t size)
{
	struct cache_feed *f = store_feed(c);
	const struct reflector *wide = NULL, *own = NULL;

	if (!f)
		return false;
	pthread_mutex_lock(&f->lock);
	for (const struct reflector *r = f->reflectors; r; r = r->next) {
		if (r->type != type)
			continue;
		if (!r->ns[0])
			wide = r;
		else if (ns && strcmp(r->ns, ns) == 0)
			own = r;
	}
	/* refused in ns itself, or cluster-wide with no watch of ns to stand in */
	if (own && !own->forbidden[0])
		own = NULL, wide = NULL;
	else if (!own && wide && !wide->forbidden[0])
		wide = NULL;
	if (own || wide)
		snprintf(why, size, "%s", own ? own->forbidden : wide->forbidden);
	pthread_mutex_unlock(&f->lock);
	return own || wide;
}

/* ---- changes ---- */

/* Per-namespace mode follows the namespace list: a new namespace gets its
 * reflectors, a deleted one's stop (their threads are joined by cache_stop). */
static void namespace_changed(struct cache_feed *f, const struct cache_change *ch)
{
	pthread_mutex_lock(&f->lock);
	if (ch->type == CACHE_ADDED) {
		for (int t = 0; t <= CACHE_NAMESPACE; t++)
			for (int k = -1; k < JOB_KIND_COUNT; k++)
				if (f->per_namespace[t][k + 1])
					reflector_spawn_locked(f, (enum cache_object_type)t, k,
					                       ch->name);
	} else if (ch->type == CACHE_DELETED) {
		for (struct reflector *r = f->reflectors; r; r = r->next) {
			if (r->ns[0] && strcmp(r->ns, ch->name) == 0 &&
			    strcmp(r->ns, f->config_ns) != 0) {
				atomic_store(&r->cancel, true);
				r->state = REFLECTOR_GONE;
			}
		}
		pthread_cond_broadcast(&f->cond);
		cache_health_update_locked(f);
	}
	pthread_mutex_unlock(&f->lock);
}

void cache_deliver(struct cache_feed *f, struct store_change *ch)
{
	if (ch->type == CACHE_NAMESPACE)
		namespace_changed(f, &ch->change);
	if (f->on_change)
		f->on_change(f->arg, &ch->change);
	store_change_release(ch);
}

/* ---- start and stop ---- */

void cache_trim_memory(void)
{
#ifdef __GLIBC__
	/* The lists parsed many MiB of JSON in several threads' malloc arenas; what was
	 * freed stays mapped unless handed back (measured: 61 → 35 MiB at 27,000 objects). */
	malloc_trim(0);
#endif
}

/* When r's first list gives up: at the deadline, or, when its bytes have been
 * coming, once nothing came for idle_ms after it. */
static int64_t list_gives_up_at(const struct reflector *r, int64_t deadline, int idle_ms)
{
	int64_t progress = atomic_load(&r->list_progress_ms);

	if (progress && idle_ms > 0 && progress + idle_ms > deadline)
		return progress + idle_ms;
	return deadline;
}

static int list_gave_up(const struct reflector *r, int64_t now, int timeout_ms,
                        struct k8s_error *err)
{
	int64_t progress = atomic_load(&r->list_progress_ms);

	if (!progress)
		return k8s_error_set(err, ETIMEDOUT, "cannot list %s: no answer within %d ms",
		                     r->what, timeout_ms);
	return k8s_error_set(err, ETIMEDOUT, "cannot list %s: it stopped: nothing more of it "
	                     "came for %lld ms", r->what, (long long)(now - progress));
}

/* Until every first list is done, or one of them gives up (list_gives_up_at;
 * deadline in monotonic ms, 0: never): -ETIMEDOUT naming it. */
static int wait_first_lists_locked(struct cache_feed *f, int64_t deadline, int timeout_ms,
                                   int idle_ms, struct k8s_error *err)
{
	while (f->pending_first_lists > 0) {
		int64_t now = time_monotonic_ms(), next = deadline;
		struct timespec until;
		bool first = true;

		if (!deadline) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		for (const struct reflector *r = f->reflectors; r; r = r->next) {
			int64_t at;

			if (r->first_list_done)
				continue;
			at = list_gives_up_at(r, deadline, idle_ms);
			if (at <= now)
				return list_gave_up(r, now, timeout_ms, err);
			if (first || at < next)
				next = at;
			first = false;
		}
		/* f->cond runs on CLOCK_REALTIME; the deadline is checked on the monotonic clock */
		until = time_realtime_after_ms(next > now ? next - now : 1);
		pthread_cond_timedwait(&f->cond, &f->lock, &until);
	}
	return 0;
}

static int first_error_locked(struct cache_feed *f, struct k8s_error *err)
{
	for (struct reflector *r = f->reflectors; r; r = r->next) {
		if (r->first_err.err) {
			if (err)
				*err = r->first_err;
			return -r->first_err.err;
		}
	}
	return 0;
}

static int spawn_or_fail(struct cache_feed *f, enum cache_object_type type, int kind,
                         struct k8s_error *err)
{
	int rc;

	if (reflector_spawn_locked(f, type, kind, ""))
		return 0;
	rc = first_error_locked(f, err); /* the thread could not be started */
	return rc ? rc : k8s_error_set(err, ENOMEM, "cannot start the cache: out of memory");
}

/* Stops the reflectors, then frees the store and the feed. */
static void feed_stop(struct cache_feed *f)
{
	struct reflector *r, *next;

	/* the poller puts into the store and reads it: it goes first */
	queue_poll_stop(f->poll);
	f->poll = NULL;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	for (r = f->reflectors; r; r = r->next)
		atomic_store(&r->cancel, true);
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	/* Threads may have spawned others until they saw stopping: join until none is left. */
	for (;;) {
		pthread_t t;
		bool found = false;

		pthread_mutex_lock(&f->lock);
		for (r = f->reflectors; r && !found; r = r->next) {
			if (r->joinable) {
				r->joinable = false;
				atomic_store(&r->cancel, true);
				t = r->thread;
				found = true;
			}
		}
		pthread_mutex_unlock(&f->lock);
		if (!found)
			break;
		pthread_join(t, NULL);
	}
	for (r = f->reflectors; r; r = next) {
		next = r->next;
		free(r);
	}
	store_free(f->store);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f->config_ns);
	free(f);
}

int cache_start(struct k8s_client *client, const struct cache_options *opts, struct k8s_cache **out,
                struct k8s_error *err)
{
	static const enum cache_object_type CORE[] = {CACHE_NODE, CACHE_POD, CACHE_SERVICE,
	                                              CACHE_EVENT, CACHE_PVC};
	struct cache_feed *f = calloc(1, sizeof(*f));
	int64_t deadline = opts->first_lists_timeout_ms > 0
	                       ? time_monotonic_ms() + opts->first_lists_timeout_ms
	                       : 0;
	int rc = 0;

	*out = NULL;
	if (!f)
		return k8s_error_set(err, ENOMEM, "cannot start the cache: out of memory");
	f->client = client;
	f->on_change = opts->on_change;
	f->arg = opts->arg;
	memcpy(f->served, opts->served, sizeof(f->served));
	f->kueue = opts->kueue;
	f->watch_timeout_s = opts->watch_timeout_s;
	f->config_ns = strdup(opts->namespace && *opts->namespace ? opts->namespace : "default");
	f->store = store_new(f->config_ns, f);
	atomic_init(&f->epochs, 0);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (!f->config_ns || !f->store) {
		rc = k8s_error_set(err, ENOMEM, "cannot start the cache: out of memory");
		goto fail;
	}

	pthread_mutex_lock(&f->lock);
	rc = spawn_or_fail(f, CACHE_NAMESPACE, -1, err);
	if (rc == 0)
		rc = wait_first_lists_locked(f, deadline, opts->first_lists_timeout_ms,
		                             opts->first_lists_idle_ms, err);
	if (rc == 0) {
		f->namespaces_listed = f->reflectors->state == REFLECTOR_OK;
		rc = first_error_locked(f, err);
	}
	for (size_t i = 0; rc == 0 && i < sizeof(CORE) / sizeof(CORE[0]); i++)
		rc = spawn_or_fail(f, CORE[i], -1, err);
	for (int k = 0; rc == 0 && k < JOB_KIND_COUNT; k++)
		if (f->served[k])
			rc = spawn_or_fail(f, CACHE_JOB, k, err);
	/* what stands between a job and its pods, for its events: not served (no JobSet
	 * CRD), its reflector ends quietly */
	for (int k = 0; rc == 0 && k < OWNED_KIND_COUNT; k++)
		rc = spawn_or_fail(f, CACHE_OWNED, k, err);
	/* Kueue's objects, where it is served: absent, nothing is watched and its files
	 * are empty (docs/tree.md, "Queues") */
	for (int t = CACHE_WORKLOAD; rc == 0 && f->kueue.version[0] && t <= CACHE_COHORT; t++)
		rc = spawn_or_fail(f, (enum cache_object_type)t, -1, err);
	/* on a failure, feed_stop cancels the lists still under way */
	if (rc == 0)
		rc = wait_first_lists_locked(f, deadline, opts->first_lists_timeout_ms,
		                             opts->first_lists_idle_ms, err);
	if (rc == 0)
		rc = first_error_locked(f, err);
	if (rc == 0) {
		f->started = true;
		f->health.connected = true;
		f->health.since = (int64_t)time(NULL);
		cache_health_update_locked(f);
	}
	pthread_mutex_unlock(&f->lock);
	if (rc)
		goto fail;
	if (f->kueue.version[0] && f->kueue.visibility[0] &&
	    queue_poll_start(f, opts->queue_poll_ms, &f->poll) < 0)
		say(LOG_WARNING, "no places in Kueue's queues: cannot start the poller's thread");
	cache_trim_memory();
	*out = f->store;
	return 0;
fail:
	feed_stop(f);
	return rc;
}

void cache_kueue(struct k8s_cache *c, struct kueue_api *out)
{
	struct cache_feed *f = store_feed(c);

	if (f)
		*out = f->kueue;
	else
		memset(out, 0, sizeof(*out));
}

void cache_stop(struct k8s_cache *c)
{
	if (c)
		feed_stop(store_feed(c));
}
