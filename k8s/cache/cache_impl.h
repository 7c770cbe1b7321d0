/*
 * The insides of the watch-fed cache's feed: what keeps the store (store.h)
 * current. Shared by cache.c (start, stop, health, the change callback) and
 * reflector.c (one thread per watched kind and scope) and queuepoll.c (Kueue's
 * lines): the three are one unit, whose calls run both ways (cache.c's header
 * says why). Not a public header: the tree uses cache.h.
 *
 * Locks: f->lock (a mutex) guards the reflector list, every reflector's health
 * fields, the health summary and the start-up counters; it is never held while
 * waiting for the network, nor while waiting for the store's readers-writer lock
 * (a reader holding that may ask for the health, which takes f->lock).
 * Order: the store's lock, then f->lock: f->lock must be acquired *after* the
 * store's lock, never before it. Each field below says what guards it: "set
 * once" (before any thread of the feed starts, read-only after), "under
 * f->lock", "the thread's own" (its reflector thread alone), or atomic.
 */
#ifndef ARENAFS_K8S_CACHE_IMPL_H
#define ARENAFS_K8S_CACHE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "k8s/cache/cache.h"
#include "k8s/cache/store.h"

/* client-go's reflector: WATCH timeoutSeconds random in [5 min, 10 min]. */
#define WATCH_TIMEOUT_MIN_S      300
#define WATCH_TIMEOUT_MAX_S      600
/* A watch that ends sooner than this with no event is treated as a failure. */
#define WATCH_MIN_HEALTHY_MS     1000
/* Reconnect backoff: doubles from the initial value up to the cap, each wait picked
 * at random in [half, full] so that many clients do not come back in step. It
 * starts again only after this long without a failure (client-go: 2 min). */
#define WATCH_BACKOFF_INITIAL_MS 250
#define WATCH_BACKOFF_MAX_MS     30000
#define WATCH_BACKOFF_RESET_MS   120000
/* Failures counted in a row at most: 250 ms doubled 7 times is past the cap. */
#define WATCH_BACKOFF_STEPS      8
/* kubectl pages lists by 500. */
#define LIST_PAGE_LIMIT          500
/* Start-up retries of a first list answered 429 or 5xx before cache_start gives up. */
#define START_LIST_ATTEMPTS      3
/* A LIST page is a few MiB; more than this is not a page of a sane server. */
#define LIST_BODY_MAX            (512u << 20)

#define CACHE_NS_MAX   64       /* a namespace is a DNS-1123 label: at most 63 */
#define CACHE_RV_MAX   128
#define CACHE_WHAT_MAX 160

enum reflector_state {
	REFLECTOR_STARTING,          /* before its first list is done */
	REFLECTOR_OK,                /* listing or watching, last request fine */
	REFLECTOR_FAILED,            /* the last list, probe or watch failed; retrying */
	REFLECTOR_GONE,              /* stopped for good: forbidden, not served, replaced by
	                                per-namespace reflectors, or its namespace went away */
};

struct reflector {
	struct reflector *next;      /* f->reflectors, under f->lock */
	/* set once by reflector_spawn_locked, before its thread starts */
	struct cache_feed *feed;
	enum cache_object_type type;
	int kind;                    /* job kind for CACHE_JOB, else -1 */
	char ns[CACHE_NS_MAX];       /* "" cluster-wide (or cluster-scoped) */
	char what[CACHE_WHAT_MAX];   /* "pods", "tfjobs in team-a": for messages */
	pthread_t thread;            /* under f->lock (set at spawn, joined by feed_stop) */
	bool joinable;               /* under f->lock: feed_stop joins each thread once */
	atomic_bool cancel;          /* atomic: set by cache_stop or when its namespace goes */
	_Atomic int64_t list_progress_ms; /* monotonic time the bytes of a list last came
	                                     (0: none yet): start-up's no-progress deadline */

	/* the thread's own */
	char rv[CACHE_RV_MAX];       /* last resourceVersion seen */
	uint32_t epoch;              /* mark of the current list (store_sweep) */
	unsigned seed;
	int failures;                /* in a row (note_failure), for the backoff */
	int64_t last_failure_ms;     /* monotonic time of the last one */
	bool backoff_due;            /* a failure was noted: wait before the next request */
	size_t watch_events;         /* events applied and bookmarks of the current watch */
	bool unreadable;             /* the last answer could not be read: disconnected until
	                                a list or a watch is read again (not a probe) */
	char oversize_said[2 * 256 + 2]; /* ns/name of the last object too large to hold
	                                    that was logged: each relist says it once */

	/* under f->lock (the health reads them for cluster/health) */
	enum reflector_state state;
	bool first_list_done;
	struct k8s_error first_err;  /* why the first list failed (cache_start reports it) */
	char last_error[512];
	bool unreachable;            /* the last failure had no answer (K8S_REASON_UNREACHABLE) */
	char forbidden[512];         /* its first list's 403, the server's words; "" if none */
};

/* Reached from the store by store_feed(); the store from here by f->store. */
struct cache_feed {
	/* set once, in cache_start, before any reflector starts */
	struct k8s_client *client;
	struct k8s_cache *store;     /* what it fills, the handle readers hold */
	char *config_ns;             /* the store borrows it */
	cache_change_fn on_change;
	void *arg;
	bool served[JOB_KIND_COUNT];
	struct kueue_api kueue;      /* cache_options.kueue */
	int watch_timeout_s;         /* cache_options.watch_timeout_s; 0: random */
	/* the lines' poller (queuepoll.c), or NULL: set by cache_start once the first
	 * lists are done, cleared by cache_stop, both on the mount's thread */
	struct queue_poll *poll;
	atomic_uint epochs;          /* atomic: source of list epochs */

	pthread_mutex_t lock;        /* after the store's lock, never before it */
	pthread_cond_t cond;         /* with lock: start-up progress, stop, backoff wake-ups */
	/* under lock, all that follows */
	bool stopping;               /* no reflector is spawned once set */
	struct reflector *reflectors;
	int pending_first_lists;     /* reflectors whose first list is not done; >= 0 */
	/* per type: true once its cluster-wide list answered 403 (watch per namespace) */
	bool per_namespace[CACHE_NAMESPACE + 1][JOB_KIND_COUNT + 1];
	bool namespaces_listed;      /* the namespace reflector's first list succeeded */
	struct cache_health health;
	bool started;                /* cache_start returned: health is maintained */
};

/* Adds a reflector and starts its thread (f->lock held by the caller). Returns it, or
 * NULL when out of memory or threads; the caller decides what that means. */
struct reflector *reflector_spawn_locked(struct cache_feed *f, enum cache_object_type type,
					 int kind, const char *ns);

/* Health bookkeeping (f->lock held): recomputes f->health from the reflectors. */
void cache_health_update_locked(struct cache_feed *f);

/* Returns memory freed after big lists to the system (glibc's malloc_trim). */
void cache_trim_memory(void);

/* Hands a store change to the callback and releases it (no lock held). Namespace
 * changes also start or stop per-namespace reflectors. */
void cache_deliver(struct cache_feed *f, struct store_change *ch);

/* The poller of Kueue's lines (queuepoll.c): started once the first lists are done,
 * when the visibility API is served; stopped before the reflectors. */
struct queue_poll;
int queue_poll_start(struct cache_feed *f, int interval_ms, struct queue_poll **out);
void queue_poll_stop(struct queue_poll *p);

#endif
