/*
 * The poller of Kueue's lines: where each pending Workload stands in its
 * LocalQueue and ClusterQueue. Kueue gives the order only through its visibility
 * API (an aggregated API, not a CRD: no watch), so one thread asks it every
 * interval (2 s), once per LocalQueue that has a Workload waiting:
 *
 *   GET /apis/visibility.kueue.x-k8s.io/V/namespaces/NS/localqueues/LQ/pendingworkloads
 *
 * and puts each answer in the store as a struct queue_line (CACHE_QUEUE_LINE,
 * named after the LocalQueue), whose version is a hash of its places: a line that
 * did not change is no change, one that did goes to the change hook like a watch
 * event, so the tree's files refresh. Lines of queues with no Workload waiting
 * are swept. A file's read never makes a request (docs/tree.md, "Queues").
 *
 * A failed request (403: these credentials may not see the line; 503: Kueue's
 * visibility server is down) keeps that line as it was, and says so once in
 * the daemon's log; a LocalQueue that is gone (404) has no line, and nothing is
 * said; a queue's position is a help, not the cluster's health,
 * which this poller never touches. Started and stopped by cache.c; its thread is
 * the one in docs/architecture.md's table ("queue poller").
 *
 * One unit with cache.c and reflector.c (cache_impl.h): cache.c starts and stops
 * it, and it hands each line that changed to cache.c's cache_deliver, as a
 * reflector does: cache.c's header says why the calls run both ways.
 */
#include "k8s/cache/cache_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/worker.h"
#include "k8s/http/client.h"
#include "k8s/http/urlpath.h"

#define QUEUE_POLL_MS 2000
/* The most LocalQueues asked in one round: more waits for the next rounds. */
#define QUEUE_POLL_MAX 256

struct queue_poll {
	struct worker w;
	struct cache_feed *f;
	int interval_ms;
	int last_err;                /* the errno last said in the log (say it once) */
};

struct target {
	char ns[CACHE_NS_MAX];
	char lq[256];
};

/* Is the Workload waiting for quota (not admitted, not finished)? */
static bool waiting(const struct workload *w)
{
	for (size_t i = 0; i < w->n_conditions; i++) {
		const struct job_condition *c = &w->conditions[i];

		if (c->status && (strcmp(c->type, "QuotaReserved") == 0 ||
		                  strcmp(c->type, "Finished") == 0))
			return false;
	}
	return w->queue[0] != '\0';
}

/* The LocalQueues with a Workload waiting, each once; under the read lock. */
static size_t targets(struct cache_feed *f, struct target *out, size_t max)
{
	const struct workload **w = NULL;
	size_t n, k = 0;

	cache_read_lock(f->store);
	n = cache_workloads(f->store, NULL, &w);
	for (size_t i = 0; i < n && k < max; i++) {
		bool seen = false;

		if (!waiting(w[i]) || strlen(w[i]->meta.namespace) >= sizeof(out->ns) ||
		    strlen(w[i]->queue) >= sizeof(out->lq))
			continue;
		for (size_t j = 0; j < k && !seen; j++)
			seen = strcmp(out[j].ns, w[i]->meta.namespace) == 0 &&
			       strcmp(out[j].lq, w[i]->queue) == 0;
		if (!seen) {
			snprintf(out[k].ns, sizeof(out[k].ns), "%s", w[i]->meta.namespace);
			snprintf(out[k].lq, sizeof(out[k].lq), "%s", w[i]->queue);
			k++;
		}
	}
	cache_read_unlock(f->store);
	free(w);
	return k;
}

/* One LocalQueue's line, asked and stored; false when the request failed (and the
 * line is kept as it was). A LocalQueue that is gone (404, its namespace deleted)
 * has no line: true, and the sweep takes the one held. */
static bool poll_one(struct queue_poll *p, const struct target *t, uint32_t epoch)
{
	struct cache_feed *f = p->f;
	struct strbuf path = STRBUF_INIT;
	struct k8s_error err;
	struct queue_line *line;
	struct store_change ch;
	json_t *doc = NULL;
	char api[96];
	int rc;

	k8s_error_clear(&err);
	snprintf(api, sizeof(api), "/apis/%s/%s", KUEUE_VISIBILITY_GROUP, f->kueue.visibility);
	rc = urlpath_resource(&path, api, t->ns, "localqueues", t->lq, "pendingworkloads", &err);
	if (rc == 0)
		rc = k8s_get_json(f->client, strbuf_str(&path), &doc, &err);
	strbuf_free(&path);
	if (rc == -ENOENT)
		return true;     /* the LocalQueue is gone (404): its line goes with it, unsaid */
	if (rc) {
		if (p->last_err != -rc)
			say(LOG_NOTICE, "the line of queue %s/%s cannot be read (kept as it was): %s",
			    t->ns, t->lq, err.message);
		p->last_err = -rc;
		return false;
	}
	p->last_err = 0;
	line = queue_line_decode(doc, t->ns, t->lq);
	json_decref(doc);
	if (line && store_put(f->store, CACHE_QUEUE_LINE, line, epoch, &ch) == 1)
		cache_deliver(f, &ch);
	return line != NULL;
}

/* The lines still held of every LocalQueue asked this round are marked epoch; the
 * others (nothing waits there now) go. */
static void sweep(struct cache_feed *f, uint32_t epoch)
{
	struct store_change *gone = NULL;
	size_t n = store_sweep(f->store, CACHE_QUEUE_LINE, -1, NULL, epoch, &gone);

	for (size_t i = 0; i < n; i++)
		cache_deliver(f, &gone[i]);
	free(gone);
}

/* A line kept as it was: marked with this round's epoch, so the sweep spares it. */
static void keep(struct cache_feed *f, const struct target *t, uint32_t epoch)
{
	const struct queue_line *old;
	struct queue_line *copy = NULL;
	struct store_change ch;
	json_t *doc;

	cache_read_lock(f->store);
	old = cache_queue_line(f->store, t->ns, t->lq);
	if (old) {
		/* store_put with the same version only re-marks it */
		doc = json_pack("{s:[]}", "items");
		for (size_t i = 0; doc && i < old->n_places; i++)
			json_array_append_new(
			    json_object_get(doc, "items"),
			    json_pack("{s:{s:s}, s:i, s:i, s:i}", "metadata", "name",
			              old->places[i].workload, "positionInClusterQueue",
			              old->places[i].position_cq, "positionInLocalQueue",
			              old->places[i].position_lq, "priority", old->places[i].priority));
		copy = doc ? queue_line_decode(doc, t->ns, t->lq) : NULL;
		json_decref(doc);
	}
	cache_read_unlock(f->store);
	if (copy && store_put(f->store, CACHE_QUEUE_LINE, copy, epoch, &ch) == 1)
		cache_deliver(f, &ch);
}

static void *poll_main(void *arg)
{
	struct queue_poll *p = arg;
	struct target *t = calloc(QUEUE_POLL_MAX, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_lock(&p->w.mu);
	while (!p->w.stop) {
		uint32_t epoch;
		size_t n;

		pthread_mutex_unlock(&p->w.mu);
		epoch = atomic_fetch_add(&p->f->epochs, 1) + 1;
		n = targets(p->f, t, QUEUE_POLL_MAX);
		for (size_t i = 0; i < n; i++)
			if (!poll_one(p, &t[i], epoch))
				keep(p->f, &t[i], epoch);
		sweep(p->f, epoch);
		pthread_mutex_lock(&p->w.mu);
		if (!p->w.stop)
			worker_sleep(&p->w, p->interval_ms);
	}
	pthread_mutex_unlock(&p->w.mu);
	free(t);
	return NULL;
}

int queue_poll_start(struct cache_feed *f, int interval_ms, struct queue_poll **out)
{
	struct queue_poll *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	worker_init(&p->w);
	p->f = f;
	p->interval_ms = interval_ms > 0 ? interval_ms : QUEUE_POLL_MS;
	rc = worker_start(&p->w, poll_main, p);
	if (rc) {
		worker_destroy(&p->w);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void queue_poll_stop(struct queue_poll *p)
{
	if (!p)
		return;
	worker_stop(&p->w);
	worker_destroy(&p->w);
	free(p);
}
