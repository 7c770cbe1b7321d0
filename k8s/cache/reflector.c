/*
 * One reflector: the thread that keeps one kind of object (in one namespace, or
 * cluster-wide) in the store, as client-go's reflector does (docs/k8s-cache.md,
 * "Reflectors"):
 *
 *   LIST in pages of 500, then WATCH from the list's resourceVersion with
 *   bookmarks and a random 5–10 min timeoutSeconds; a clean end re-watches from
 *   the last resourceVersion; 410 Gone (the HTTP status or an ERROR event), 504
 *   "Too large resource version" (the server's history started again below
 *   ours: an etcd restore) and a version the server cannot parse (400, or
 *   kube-apiserver's 500 "resourceVersion: Invalid value") list again and
 *   sweep what the new list lacks; any other failure probes the server
 *   with a one-item list and re-watches. Both wait a capped, jittered, doubling
 *   backoff first, which starts again only after 2 min without a failure.
 *
 * A watch resumes only from an event it applied or a bookmark, and only from a
 * version the server can parse: an object of another kind, with a name no file
 * can have or with no valid resourceVersion is skipped, counted in the health,
 * and not resumed from (client-go skips another kind the same way).
 *
 * The first list is a consistent read (no resourceVersion): client-go's
 * resourceVersion=0 would be served from the API server's watch cache, which
 * ignores limit, so 50,000 pods would come in one answer of hundreds of MiB.
 *
 * Watch events are applied from the stream callback (the client's transport
 * thread); lists from this thread. Spawned by cache.c, and by a reflector that
 * hands its kind over to per-namespace reflectors.
 *
 * One unit with cache.c and queuepoll.c (cache_impl.h): cache.c spawns it, and it
 * calls cache.c back with what it applied and its health (cache_deliver,
 * cache_health_update_locked, cache_trim_memory): cache.c's header says why the
 * calls run both ways.
 */
#include "k8s/cache/cache_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "k8s/cache/listparse.h"
#include "k8s/cache/oversize.h"
#include "k8s/http/status.h"
#include "k8s/http/streamget.h"
#include "k8s/http/urlpath.h"
#include "k8s/cache/watchparse.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

enum watch_stop { STOP_NONE, STOP_GONE, STOP_ERROR_EVENT, STOP_PARSE };

/* What one watch came to. RELIST: 410 or 504, the history moved on (not an
 * outage); REFUSED: a resourceVersion the server cannot parse (rv_refused), so
 * it is dropped with a list. */
enum watch_result {
	WATCH_REWATCH,
	WATCH_RELIST,
	WATCH_REFUSED,
	WATCH_FAILED,
	WATCH_IDLE,
	WATCH_CANCELLED
};

struct watch_run {
	struct reflector *r;
	struct watch_parser parser;
	enum watch_stop stop;
	struct k8s_error err; /* ERROR event or parse error */
};

static const char *type_plural(const struct reflector *r)
{
	switch (r->type) {
	case CACHE_JOB:
		return kinds_info((enum job_kind)r->kind)->plural;
	case CACHE_POD:
		return "pods";
	case CACHE_NODE:
		return "nodes";
	case CACHE_SERVICE:
		return "services";
	case CACHE_EVENT:
		return "events";
	case CACHE_PVC:
		return "persistentvolumeclaims";
	case CACHE_WORKLOAD:
		return "workloads";
	case CACHE_LOCALQUEUE:
		return "localqueues";
	case CACHE_CLUSTERQUEUE:
		return "clusterqueues";
	case CACHE_COHORT:
		return "cohorts";
	case CACHE_QUEUE_LINE:
		return "pendingworkloads";
	case CACHE_OWNED:
		return owned_kinds(r->kind)->plural;
	case CACHE_NAMESPACE:
		return "namespaces";
	}
	return "?";
}

/* The kind every object of the collection has: a watch event names it (list
 * items of the core kinds do not, their list does). */
static const char *type_kind(const struct reflector *r)
{
	switch (r->type) {
	case CACHE_JOB:
		return kinds_info((enum job_kind)r->kind)->kind_name;
	case CACHE_POD:
		return "Pod";
	case CACHE_NODE:
		return "Node";
	case CACHE_SERVICE:
		return "Service";
	case CACHE_EVENT:
		return "Event";
	case CACHE_PVC:
		return "PersistentVolumeClaim";
	case CACHE_WORKLOAD:
		return "Workload";
	case CACHE_LOCALQUEUE:
		return "LocalQueue";
	case CACHE_CLUSTERQUEUE:
		return "ClusterQueue";
	case CACHE_COHORT:
		return "Cohort";
	case CACHE_QUEUE_LINE:
		return "PendingWorkloadsSummary";
	case CACHE_OWNED:
		return owned_kinds(r->kind)->kind_name;
	case CACHE_NAMESPACE:
		return "Namespace";
	}
	return "?";
}

static bool type_namespaced(enum cache_object_type t)
{
	return t != CACHE_NODE && t != CACHE_NAMESPACE && t != CACHE_CLUSTERQUEUE &&
	       t != CACHE_COHORT;
}

/* Kueue's kinds are CRDs that may be absent or go: a 404 is "not served", as a job's.
 * So are JobSets; batch Jobs are always served, but a server that does not (a
 * fake one) loses a job's events of them only, not the mount. */
static bool type_is_crd(enum cache_object_type t)
{
	return t == CACHE_JOB || t == CACHE_WORKLOAD || t == CACHE_LOCALQUEUE ||
	       t == CACHE_CLUSTERQUEUE || t == CACHE_COHORT || t == CACHE_OWNED;
}

/* The API group of a reflector's CRD, for messages. */
static const char *type_group(const struct reflector *r)
{
	if (r->type == CACHE_JOB)
		return kinds_info((enum job_kind)r->kind)->group;
	if (r->type == CACHE_OWNED)
		return owned_kinds(r->kind)->group;
	return KUEUE_GROUP;
}

static int collection_path(const struct reflector *r, struct strbuf *sb, struct k8s_error *err)
{
	char api[128];

	if (r->type == CACHE_JOB) {
		const struct job_kind_info *ki = kinds_info((enum job_kind)r->kind);

		snprintf(api, sizeof(api), "/apis/%s/%s", ki->group, ki->version);
	} else if (r->type == CACHE_OWNED) {
		snprintf(api, sizeof(api), "/apis/%s/%s", owned_kinds(r->kind)->group,
		         owned_kinds(r->kind)->version);
	} else if (type_is_crd(r->type)) {
		snprintf(api, sizeof(api), "/apis/%s/%s", KUEUE_GROUP, r->feed->kueue.version);
	} else {
		snprintf(api, sizeof(api), "/api/v1");
	}
	return urlpath_resource(sb, api, r->ns[0] ? r->ns : NULL, type_plural(r), NULL, NULL, err);
}

/* Can s be one file name of the tree? Only a broken or hostile server sends a
 * name with "/" or NUL, ".", "..", or one longer than a file name may be: the
 * kernel would refuse the whole directory listing that held it. */
static bool file_name_ok(const json_t *s)
{
	const char *v = json_string_value(s);
	size_t n = json_string_length(s);

	if (!v || n == 0 || n > 255 || strlen(v) != n)
		return false;
	return strcmp(v, ".") != 0 && strcmp(v, "..") != 0 && !strchr(v, '/');
}

/* A readable form of a hostile name: bytes outside printable ASCII become '?'. */
static void printable(char *out, size_t size, const json_t *s)
{
	const char *v = json_string_value(s);
	size_t n = v ? json_string_length(s) : 0, i;

	for (i = 0; i < n && i + 1 < size && i < 80; i++)
		out[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
	out[i] = '\0';
}

static void note_skipped(struct reflector *r, const json_t *name, const json_t *ns,
                         const char *why)
{
	struct cache_feed *f = r->feed;
	char *last = f->health.skipped_last, n[96], s[96];
	int len;

	printable(n, sizeof(n), name);
	printable(s, sizeof(s), ns);
	pthread_mutex_lock(&f->lock);
	f->health.skipped++;
	/* a long one is cut: health shows its start */
	if (ns)
		len = snprintf(last, sizeof(f->health.skipped_last), "%s \"%s\" in %s, %s",
		               type_plural(r), n, s, why);
	else
		len = snprintf(last, sizeof(f->health.skipped_last), "%s \"%s\", %s",
		               type_plural(r), n, why);
	if (len < 0)
		last[0] = '\0';
	/* cluster/health says so: texts made before must be made again */
	store_bump(f->store);
	pthread_mutex_unlock(&f->lock);
}

/*
 * Can obj be cached? Not when it is of another kind than the collection's, when
 * its name or namespace cannot be a file name, or (watched: a watch event, which
 * the watch would resume from) when its resourceVersion is not one the server
 * can parse. Such an object is counted in the health, never cached.
 */
static bool fits(struct reflector *r, const json_t *obj, bool watched)
{
	const json_t *md = json_object_get(obj, "metadata");
	const json_t *name = json_object_get(md, "name");
	const json_t *ns = type_namespaced(r->type) ? json_object_get(md, "namespace") : NULL;
	const json_t *kind = json_object_get(obj, "kind");
	const json_t *rv = json_object_get(md, "resourceVersion");
	char why[128], text[64];

	if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), type_kind(r)) != 0)) {
		printable(text, sizeof(text), kind);
		snprintf(why, sizeof(why), "of kind %s", text);
	} else if (!file_name_ok(name) || (ns && !file_name_ok(ns))) {
		snprintf(why, sizeof(why), "a name no file can have");
	} else if (watched && !watch_rv_valid(json_string_value(rv))) {
		printable(text, sizeof(text), rv);
		snprintf(why, sizeof(why), "resourceVersion \"%s\", which is no version", text);
	} else {
		return true;
	}
	note_skipped(r, name, ns, why);
	return false;
}

static void *decode(struct reflector *r, json_t *obj, bool watched)
{
	if (!fits(r, obj, watched))
		return NULL;
	switch (r->type) {
	case CACHE_JOB:
		return job_decode(obj, (enum job_kind)r->kind);
	case CACHE_POD:
		return pod_decode(obj);
	case CACHE_NODE:
		return node_decode(obj);
	case CACHE_SERVICE:
		return service_decode(obj);
	case CACHE_EVENT:
		return event_decode(obj);
	case CACHE_PVC:
		return pvc_decode(obj);
	case CACHE_WORKLOAD:
		return workload_decode(obj);
	case CACHE_LOCALQUEUE:
		return localqueue_decode(obj);
	case CACHE_CLUSTERQUEUE:
		return clusterqueue_decode(obj);
	case CACHE_COHORT:
		return cohort_decode(obj);
	case CACHE_QUEUE_LINE:
		return NULL; /* polled, never listed: queuepoll.c */
	case CACHE_OWNED:
		return owned_decode(obj, (enum owned_kind)r->kind);
	case CACHE_NAMESPACE:
		return namespace_decode(obj);
	}
	return NULL;
}

static bool cancelled(struct reflector *r)
{
	return atomic_load(&r->cancel);
}

/*
 * An object over the parsers' limit (16 MiB): only its first bytes were read.
 * It is left out, and said so by name (cluster/health, the daemon's log once per
 * object); a copy of it held from before goes, which no longer says what the
 * cluster holds. Its kind's list or watch goes on past it.
 */
static int on_oversize(struct reflector *r, const char *prefix, size_t len, size_t bytes,
                       bool in_event)
{
	struct oversize o;
	struct store_change ch;
	char why[128], said[sizeof(r->oversize_said)];
	json_t *name, *ns;

	oversize_identify(prefix, len, in_event, bytes, &o);
	snprintf(why, sizeof(why), "%.1f MiB, larger than the %u MiB arenafs holds of one object",
	         (double)bytes / (1 << 20), LISTPARSE_ITEM_MAX >> 20);
	name = json_string(o.name[0] ? o.name : "(no name in its first bytes)");
	ns = type_namespaced(r->type) && o.ns[0] ? json_string(o.ns) : NULL;
	note_skipped(r, name, ns, why);
	snprintf(said, sizeof(said), "%s/%s", o.ns, o.name);
	if (strcmp(said, r->oversize_said) != 0) {
		say(LOG_WARNING, "%s \"%s\"%s%s: %s; left out, the rest of %s is watched",
		    type_plural(r), o.name[0] ? o.name : "?", o.ns[0] ? " in " : "", o.ns, why,
		    type_plural(r));
		memcpy(r->oversize_said, said, sizeof(said));
	}
	if (o.name[0] && (!in_event || strcmp(o.type, "ERROR") != 0) &&
	    store_remove(r->feed->store, r->type, r->kind, o.ns, o.name, &ch) == 1)
		cache_deliver(r->feed, &ch);
	json_decref(name);
	json_decref(ns);
	return 0;
}

static int on_list_oversize(void *arg, const char *prefix, size_t len, size_t bytes)
{
	return on_oversize(arg, prefix, len, bytes, false);
}

/* ---- health ---- */

static void set_state(struct reflector *r, enum reflector_state s, const char *verb,
                      const struct k8s_error *err)
{
	struct cache_feed *f = r->feed;

	pthread_mutex_lock(&f->lock);
	if (r->state != REFLECTOR_GONE || s == REFLECTOR_GONE) {
		r->state = s;
		/* a long message is cut: health shows its start */
		if (s == REFLECTOR_FAILED && err &&
		    snprintf(r->last_error, sizeof(r->last_error), "%s %s: %s", verb, r->what,
		             err->message) < 0)
			r->last_error[0] = '\0';
		else if (s != REFLECTOR_FAILED)
			r->last_error[0] = '\0';
		r->unreachable = s == REFLECTOR_FAILED && err && k8s_error_unreachable(err);
		cache_health_update_locked(f);
	}
	pthread_mutex_unlock(&f->lock);
}

/* Cheap: only takes the lock when the state changes. */
static void mark_ok(struct reflector *r)
{
	enum reflector_state s;

	pthread_mutex_lock(&r->feed->lock);
	s = r->state;
	pthread_mutex_unlock(&r->feed->lock);
	if (s != REFLECTOR_OK && s != REFLECTOR_STARTING && s != REFLECTOR_GONE)
		set_state(r, REFLECTOR_OK, NULL, NULL);
}

/*
 * One more failure in a row: the next wait doubles. The count starts again only
 * when the last failure is WATCH_BACKOFF_RESET_MS old (client-go's backoff
 * manager forgets after 2 min without a backoff), never at an event: a server
 * that sends one good event and then garbage would be re-watched every 250 ms
 * for ever.
 */
static void note_failure(struct reflector *r)
{
	int64_t now = time_monotonic_ms();

	if (r->failures > 0 && now - r->last_failure_ms >= WATCH_BACKOFF_RESET_MS)
		r->failures = 0;
	if (r->failures < WATCH_BACKOFF_STEPS)
		r->failures++;
	r->last_failure_ms = now;
	r->backoff_due = true;
}

/* Sleeps the backoff for the current failure count; false when cancelled. */
static bool backoff_wait(struct reflector *r)
{
	struct cache_feed *f = r->feed;
	int64_t delay = WATCH_BACKOFF_INITIAL_MS;
	struct timespec until;

	for (int i = 1; i < r->failures && delay < WATCH_BACKOFF_MAX_MS; i++)
		delay *= 2;
	if (delay > WATCH_BACKOFF_MAX_MS)
		delay = WATCH_BACKOFF_MAX_MS;
	delay = delay / 2 + rand_r(&r->seed) % (delay / 2 + 1);
	until = time_realtime_after_ms(delay);
	pthread_mutex_lock(&f->lock);
	while (!f->stopping && !cancelled(r))
		if (pthread_cond_timedwait(&f->cond, &f->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&f->lock);
	return !cancelled(r);
}

static int get_json(struct reflector *r, const char *path, json_t **out, struct k8s_error *err)
{
	return k8s_stream_get_json(r->feed->client, path, &r->cancel, LIST_BODY_MAX, out, err);
}

/* ---- LIST ---- */

/* Returns store_put's answer: 0 or 1 when it is in the store, -ENOMEM. */
static int apply_put(struct reflector *r, void *obj)
{
	struct store_change ch;
	int rc = store_put(r->feed->store, r->type, obj, r->epoch, &ch);

	if (rc == 1)
		cache_deliver(r->feed, &ch);
	return rc;
}

/* The next watch resumes from obj's resourceVersion, when the server can parse it
 * (else it would refuse every re-watch from it). */
static void copy_rv(struct reflector *r, const json_t *obj)
{
	const char *rv =
	    json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));

	if (watch_rv_valid(rv) && strlen(rv) < sizeof(r->rv))
		memcpy(r->rv, rv, strlen(rv) + 1);
}

/* One page of a list as it downloads: its items go into the store one by one. */
struct list_run {
	struct reflector *r;
	struct list_parser parser;
	struct k8s_error err; /* the parser's, when it stopped the transfer */
	bool failed;
};

static int on_list_item(void *arg, json_t *item)
{
	struct reflector *r = arg;
	void *obj = decode(r, item, false);

	if (obj)
		apply_put(r, obj);
	return 0;
}

static int on_list_data(void *arg, const char *data, size_t len)
{
	struct list_run *l = arg;

	atomic_store(&l->r->list_progress_ms, time_monotonic_ms());
	if (listparse_feed(&l->parser, data, len, &l->err) == 0)
		return 0;
	l->failed = true;
	return 1;
}

/*
 * GETs one page (cont: the continue token, or NULL for the first) and puts its
 * items into the store while it arrives (on the transport thread, as a watch's
 * events), so that decoding overlaps the download and no page is ever held whole.
 * *rest: the page without its items (metadata: resourceVersion, continue).
 */
static int list_page(struct reflector *r, const char *cont, json_t **rest, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct list_run l = {.r = r, .failed = false};
	struct k8s_stream_request req = {NULL, NULL, on_list_data, &l, &r->cancel, NULL};
	char limit[16];
	bool bad_body = false;
	int rc = collection_path(r, &path, err);

	*rest = NULL;
	if (rc == 0) {
		snprintf(limit, sizeof(limit), "%d", LIST_PAGE_LIMIT);
		urlpath_add_query(&path, "limit", limit);
		if (cont)
			urlpath_add_query(&path, "continue", cont);
		if (!strbuf_ok(&path))
			rc = k8s_error_set(err, ENOMEM, "out of memory");
	}
	if (rc) {
		strbuf_free(&path);
		return rc;
	}
	req.path = strbuf_str(&path);
	k8s_error_clear(&l.err);
	listparse_init(&l.parser, LIST_BODY_MAX, on_list_item, r);
	listparse_on_oversize(&l.parser, on_list_oversize);
	rc = k8s_stream_run(r->feed->client, &req, err);
	if (l.failed && !cancelled(r)) {
		*err = l.err;
		rc = -l.err.err;
		bad_body = true;
	} else if (rc == 0) {
		rc = listparse_finish(&l.parser, rest, err);
		bad_body = rc != 0;
	}
	if (bad_body) {
		k8s_error_prefix(err, "the answer to GET %s: ", req.path);
		r->unreadable = true;
	}
	listparse_free(&l.parser);
	strbuf_free(&path);
	return rc;
}

/* Removes this reflector's objects not marked with r->epoch, and says so. */
static void sweep(struct reflector *r)
{
	struct store_change *gone = NULL;
	size_t n = store_sweep(r->feed->store, r->type, r->kind,
	                       type_namespaced(r->type) && r->ns[0] ? r->ns : NULL, r->epoch,
	                       &gone);

	for (size_t i = 0; i < n; i++)
		cache_deliver(r->feed, &gone[i]);
	free(gone);
}

/* Lists everything into the store and sweeps what the list lacks. */
static int reflector_list(struct reflector *r, struct k8s_error *err)
{
	struct cache_feed *f = r->feed;
	char *cont = NULL;
	int rc;

	r->epoch = atomic_fetch_add(&f->epochs, 1) + 1;
	/* the version of this list, or none: a watch without one starts from the
	 * server's newest state and sends it whole */
	r->rv[0] = '\0';
	for (;;) {
		json_t *root = NULL;
		const char *next;
		bool more;

		rc = list_page(r, cont, &root, err);
		if (rc == -ESTALE && cont) {
			/* the continue token expired (410 Expired): start the list again */
			free(cont);
			cont = NULL;
			r->epoch = atomic_fetch_add(&f->epochs, 1) + 1;
			continue;
		}
		if (rc)
			goto out;
		copy_rv(r, root);
		next = json_string_value(
		    json_object_get(json_object_get(root, "metadata"), "continue"));
		more = next && *next;
		free(cont);
		cont = more ? strdup(next) : NULL;
		json_decref(root); /* next pointed into it */
		if (more && !cont) {
			rc = k8s_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
		r->unreadable = false;
		mark_ok(r);
		if (!cont)
			break;
		if (cancelled(r)) {
			rc = k8s_error_set(err, ECANCELED, "cancelled");
			goto out;
		}
	}
	sweep(r);
out:
	free(cont);
	return rc;
}

/* ---- WATCH ---- */

/* "Too large resource version: 5000, current: 12" (504 Timeout, cause
 * ResourceVersionTooLarge; the message is what older servers send too). */
static bool rv_too_large(const struct k8s_error *e)
{
	return e->code == 504 && strstr(e->message, "Too large resource version") != NULL;
}

/* A watch refused for its resourceVersion: a 400, or kube-apiserver's own answer
 * to a version it cannot parse (1.32 to 1.37: a 500 without a reason whose message
 * is its storage's field error, `resourceVersion: Invalid value: "abc":
 * strconv.ParseUint: …`; test_conformance_real.py on both releases). */
static bool rv_refused(const struct k8s_error *e)
{
	return e->code == 400 ||
	       (e->code == 500 && strstr(e->message, "resourceVersion: Invalid value") != NULL);
}

/* Applies one event. Only an event applied, or a bookmark, moves the version the
 * next watch resumes from on and counts as the watch's progress. */
static int on_event(void *arg, const struct watch_event *ev)
{
	struct watch_run *w = arg;
	struct reflector *r = w->r;
	const json_t *md = json_object_get(ev->object, "metadata");
	struct store_change ch;
	void *obj;

	switch (ev->type) {
	case WATCH_ADDED:
	case WATCH_MODIFIED:
		obj = decode(r, ev->object, true);
		if (!obj || apply_put(r, obj) < 0)
			return 0;
		break;
	case WATCH_DELETED: {
		const char *ns = json_string_value(json_object_get(md, "namespace"));
		const char *name = json_string_value(json_object_get(md, "name"));

		if (!fits(r, ev->object, true))
			return 0;
		if (store_remove(r->feed->store, r->type, r->kind, ns ? ns : "", name, &ch) == 1)
			cache_deliver(r->feed, &ch);
		break;
	}
	case WATCH_BOOKMARK:
		if (!watch_rv_valid(json_string_value(json_object_get(md, "resourceVersion"))))
			return 0;
		break;
	case WATCH_ERROR:
		if (watch_event_is_gone(ev)) {
			w->stop = STOP_GONE;
		} else {
			w->stop = STOP_ERROR_EVENT;
			k8s_status_from_json(ev->object, 0, &w->err);
		}
		return 1;
	}
	copy_rv(r, ev->object);
	if (r->watch_events++ == 0) {
		r->unreadable = false;
		mark_ok(r);
	}
	return 0;
}

static int on_watch_oversize(void *arg, const char *prefix, size_t len, size_t bytes)
{
	struct watch_run *w = arg;

	return on_oversize(w->r, prefix, len, bytes, true);
}

static int on_watch_data(void *arg, const char *data, size_t len)
{
	struct watch_run *w = arg;
	int rc = watchparse_feed(&w->parser, data, len, on_event, w, &w->err);

	if (rc < 0)
		w->stop = STOP_PARSE;
	return rc != 0;
}

static enum watch_result reflector_watch(struct reflector *r, struct k8s_error *err)
{
	struct watch_run w = {.r = r};
	struct strbuf path = STRBUF_INIT;
	struct k8s_stream_request req = {NULL, NULL, on_watch_data, &w, &r->cancel, NULL};
	char timeout[16];
	int64_t started;
	int rc;

	k8s_error_clear(&w.err);
	rc = collection_path(r, &path, err);
	if (rc)
		return WATCH_FAILED;
	snprintf(timeout, sizeof(timeout), "%d",
	         r->feed->watch_timeout_s > 0
	             ? r->feed->watch_timeout_s
	             : WATCH_TIMEOUT_MIN_S +
	                   rand_r(&r->seed) % (WATCH_TIMEOUT_MAX_S - WATCH_TIMEOUT_MIN_S + 1));
	urlpath_add_query(&path, "watch", "true");
	urlpath_add_query(&path, "resourceVersion", r->rv);
	urlpath_add_query(&path, "allowWatchBookmarks", "true");
	urlpath_add_query(&path, "timeoutSeconds", timeout);
	if (!strbuf_ok(&path)) {
		strbuf_free(&path);
		k8s_error_set(err, ENOMEM, "out of memory");
		return WATCH_FAILED;
	}
	req.path = strbuf_str(&path);
	watchparse_init(&w.parser, 0);
	watchparse_on_oversize(&w.parser, on_watch_oversize);
	r->watch_events = 0;
	started = time_monotonic_ms();
	rc = k8s_stream_run(r->feed->client, &req, err);
	if (rc == 0 && watchparse_finish(&w.parser, on_event, &w, &w.err) < 0)
		w.stop = w.stop == STOP_NONE ? STOP_PARSE : w.stop;
	watchparse_free(&w.parser);
	strbuf_free(&path);

	if (cancelled(r))
		return WATCH_CANCELLED;
	if (w.stop == STOP_GONE || rc == -ESTALE)
		return WATCH_RELIST;
	/* A version the server cannot parse: a re-watch from it would be refused
	 * again. client-go lists again after any such error. */
	if (rc && rv_refused(err))
		return WATCH_REFUSED;
	if (w.stop == STOP_ERROR_EVENT && rv_refused(&w.err)) {
		*err = w.err;
		return WATCH_REFUSED;
	}
	/* The server has never reached our version: its history started again (an
	 * etcd restore, a new cluster at the same address). Only a new list helps. */
	if ((rc && rv_too_large(err)) || (w.stop == STOP_ERROR_EVENT && rv_too_large(&w.err)))
		return WATCH_RELIST;
	if (w.stop == STOP_ERROR_EVENT || w.stop == STOP_PARSE) {
		/* an answer that cannot be read is an outage until one is read again */
		r->unreadable = r->unreadable || w.stop == STOP_PARSE;
		*err = w.err;
		return WATCH_FAILED;
	}
	if (rc == -ETIMEDOUT)
		return WATCH_IDLE;
	if (rc)
		return WATCH_FAILED;
	if (r->watch_events == 0 && time_monotonic_ms() - started < WATCH_MIN_HEALTHY_MS) {
		k8s_error_set(err, EIO,
		              "the server closed the watch after %lld ms without an event",
		              (long long)(time_monotonic_ms() - started));
		return WATCH_FAILED;
	}
	/* a watch read to its clean end: the server's answers can be read */
	r->unreadable = false;
	mark_ok(r);
	return WATCH_REWATCH;
}

/* After a failure: does the server answer a one-item list? */
static int reflector_probe(struct reflector *r, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	json_t *root = NULL;
	int rc = collection_path(r, &path, err);

	if (rc == 0) {
		urlpath_add_query(&path, "limit", "1");
		rc = strbuf_ok(&path) ? get_json(r, strbuf_str(&path), &root, err)
		                      : k8s_error_set(err, ENOMEM, "out of memory");
	}
	json_decref(root);
	strbuf_free(&path);
	return rc;
}

/* ---- the thread ---- */

/*
 * A CRD deleted while it is watched (kubectl delete crd) is not an outage: its kind
 * is no longer served. Its objects leave the store as a list of none would sweep
 * them, the reflector stops (GONE) and the cluster stays connected; a server that
 * does not answer is still an outage. The API server ends such a watch, and the
 * probe, list or re-watch after it gets the 404.
 */
static bool kind_went_away(struct reflector *r, const struct k8s_error *err)
{
	if (!type_is_crd(r->type) || err->code != 404 || cancelled(r))
		return false;
	r->epoch = atomic_fetch_add(&r->feed->epochs, 1) + 1;
	sweep(r);
	say(LOG_NOTICE, "%s.%s%s%s: no longer served (the CRD was removed); not watched",
	    type_plural(r), type_group(r),
	    r->ns[0] ? " in " : "", r->ns);
	set_state(r, REFLECTOR_GONE, NULL, NULL);
	return true;
}

/* A failure: FAILED, and the backoff before the next try; true when the kind went
 * away instead (the thread ends). */
static bool failed(struct reflector *r, const char *verb, const struct k8s_error *err)
{
	if (kind_went_away(r, err))
		return true;
	set_state(r, REFLECTOR_FAILED, verb, err);
	note_failure(r);
	return false;
}

static bool retryable_at_start(const struct k8s_error *err)
{
	return err->code == 429 || err->code >= 500;
}

/* Cluster-wide listing is forbidden: one reflector per namespace instead
 * (cache.h), for the namespaces the cache knows, else the configured one. The
 * names are copied out of the store first: f->lock is never held while waiting
 * for the store's lock (readers may ask for health while holding it). */
static void switch_to_namespaces(struct reflector *r)
{
	struct cache_feed *f = r->feed;
	const char **names = NULL;
	char **copies = NULL;
	size_t n = 0, have = 0;
	bool listed;

	pthread_mutex_lock(&f->lock);
	f->per_namespace[r->type][r->kind + 1] = true;
	listed = f->namespaces_listed;
	pthread_mutex_unlock(&f->lock);
	if (listed) {
		cache_read_lock(f->store);
		n = store_namespace_names(f->store, &names);
		copies = n ? calloc(n, sizeof(*copies)) : NULL;
		for (size_t i = 0; copies && i < n; i++)
			if ((copies[have] = strdup(names[i])))
				have++;
		cache_read_unlock(f->store);
		free(names);
	}
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < have; i++)
		reflector_spawn_locked(f, r->type, r->kind, copies[i]);
	if (!have)
		reflector_spawn_locked(f, r->type, r->kind, f->config_ns);
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < have; i++)
		free(copies[i]);
	free(copies);
}

static void first_list_done(struct reflector *r, const struct k8s_error *err)
{
	struct cache_feed *f = r->feed;

	pthread_mutex_lock(&f->lock);
	if (err) {
		r->first_err = *err;
		k8s_error_prefix(&r->first_err, "cannot list %s: ", r->what);
	}
	if (!r->first_list_done) {
		r->first_list_done = true;
		f->pending_first_lists--;
		pthread_cond_broadcast(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
}

/*
 * The first list. Returns true to go on watching; false when the reflector is done
 * (forbidden, not served, replaced, or a start-up failure cache_start reports).
 */
static bool reflector_first_list(struct reflector *r)
{
	struct k8s_error err;
	bool started;
	int rc;

	for (int attempt = 1;; attempt++) {
		k8s_error_clear(&err);
		rc = reflector_list(r, &err);
		if (rc == 0 || cancelled(r) || attempt >= START_LIST_ATTEMPTS ||
		    !retryable_at_start(&err))
			break;
		r->failures = attempt;
		if (!backoff_wait(r))
			break;
	}
	r->failures = 0;
	if (rc == 0) {
		set_state(r, REFLECTOR_OK, NULL, NULL);
		first_list_done(r, NULL);
		return true;
	}
	if (cancelled(r)) {
		first_list_done(r, NULL);
		return false;
	}
	if (err.code == 403) {
		/* what cache_forbidden tells a file that would otherwise look empty */
		const char *msg = err.message[0] ? err.message : "403 Forbidden";
		size_t n = strnlen(msg, sizeof(r->forbidden) - 1);

		pthread_mutex_lock(&r->feed->lock);
		memcpy(r->forbidden, msg, n);
		r->forbidden[n] = '\0';
		pthread_mutex_unlock(&r->feed->lock);
	}
	if (err.code == 403 && type_namespaced(r->type) && !r->ns[0]) {
		switch_to_namespaces(r);
		set_state(r, REFLECTOR_GONE, NULL, NULL);
		first_list_done(r, NULL);
		return false;
	}
	if (err.code == 403 || (err.code == 404 && type_is_crd(r->type))) {
		/* not ours to see (nodes/ stays empty), or the CRD went away */
		set_state(r, REFLECTOR_GONE, NULL, NULL);
		first_list_done(r, NULL);
		return false;
	}
	pthread_mutex_lock(&r->feed->lock);
	started = r->feed->started;
	pthread_mutex_unlock(&r->feed->lock);
	if (!started) {
		set_state(r, REFLECTOR_FAILED, "list", &err);
		first_list_done(r, &err);
		return false;
	}
	/* started later (a new namespace): keep trying like any broken list */
	set_state(r, REFLECTOR_FAILED, "list", &err);
	first_list_done(r, NULL);
	note_failure(r);
	return true;
}

static void *reflector_main(void *arg)
{
	struct reflector *r = arg;
	bool need_list = false;
	struct k8s_error err;

	if (!reflector_first_list(r))
		return NULL;
	need_list = r->backoff_due;
	while (!cancelled(r)) {
		k8s_error_clear(&err);
		if (r->backoff_due) {
			/* after a failure: wait; then, unless a list asks anyway, make
			 * sure the server answers */
			if (!backoff_wait(r))
				break;
			r->backoff_due = false;
			if (!need_list) {
				if (reflector_probe(r, &err) != 0) {
					if (cancelled(r) || failed(r, "watch", &err))
						break;
					continue;
				}
				/* an answer means the server is up, not that its watch can
				 * be read: that one stays disconnected until it is */
				if (!r->unreadable)
					mark_ok(r);
			}
		}
		if (need_list) {
			if (reflector_list(r, &err) != 0) {
				if (cancelled(r) || failed(r, "list", &err))
					break;
				continue;
			}
			need_list = false;
			cache_trim_memory();
		}
		switch (reflector_watch(r, &err)) {
		case WATCH_CANCELLED:
		case WATCH_REWATCH:
			break;
		case WATCH_REFUSED:
			if (failed(r, "watch", &err))
				return NULL;
			need_list = true;
			break;
		case WATCH_RELIST:
			/* the history moved on, not an outage; a server that says so
			 * to every watch is still backed off */
			need_list = true;
			note_failure(r);
			break;
		case WATCH_FAILED:
			if (type_is_crd(r->type) && err.code != 404 && !r->unreadable) {
				/* the probe decides, as after silence: a CRD's watch
				 * also ends when the CRD goes, which is no outage; an
				 * answer that cannot be read is one, whatever the probe */
				note_failure(r);
				break;
			}
			if (failed(r, "watch", &err))
				return NULL;
			break;
		case WATCH_IDLE:
			/* silence is not yet an outage: the probe decides */
			note_failure(r);
			break;
		}
	}
	return NULL;
}

struct reflector *reflector_spawn_locked(struct cache_feed *f, enum cache_object_type type,
                                         int kind, const char *ns)
{
	struct reflector *r, **tail;

	if (f->stopping)
		return NULL;
	if (strlen(ns) >= CACHE_NS_MAX)
		return NULL;
	for (r = f->reflectors; r; r = r->next)
		if (r->type == type && r->kind == kind && strcmp(r->ns, ns) == 0 &&
		    r->state != REFLECTOR_GONE)
			return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->feed = f;
	r->type = type;
	r->kind = type == CACHE_JOB || type == CACHE_OWNED ? kind : -1;
	memcpy(r->ns, ns, strlen(ns) + 1);
	snprintf(r->what, sizeof(r->what), "%s%s%s", type_plural(r), *ns ? " in " : "", ns);
	atomic_init(&r->cancel, false);
	r->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)r;
	r->state = REFLECTOR_STARTING;
	for (tail = &f->reflectors; *tail; tail = &(*tail)->next)
		;
	*tail = r;
	f->pending_first_lists++;
	if (pthread_create(&r->thread, NULL, reflector_main, r) != 0) {
		r->state = REFLECTOR_GONE;
		r->first_list_done = true;
		f->pending_first_lists--;
		k8s_error_set(&r->first_err, EAGAIN, "cannot list %s: cannot start a thread",
		              r->what);
		return NULL;
	}
	r->joinable = true;
	return r;
}
