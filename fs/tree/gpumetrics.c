/*
 * The GPU figures' snapshot (gpumetrics.h): one query when the snapshot is
 * stale, the answer swapped in under its lock. The mount option prometheus=URL
 * gets a client of its own, made at the first query, whose server is that URL
 * and which presents no credentials of the cluster's; else the Service is found
 * among the cache's, as Arena finds it (prometheus.h), so that a cluster without
 * Prometheus costs no request.
 */
#include "fs/tree/gpumetrics.h"
#include "k8s/api/prometheus.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

struct gpu_metrics_keeper {
	struct fs *fs;
	pthread_mutex_t lock;          /* snap; a leaf */
	struct gpu_metrics *snap;
	pthread_mutex_t fetch;         /* one query at a time; url_client */
	struct k8s_config url_cfg;     /* prometheus=URL: its server alone */
	struct k8s_client *url_client;
};

int gpu_metrics_keeper_new(struct fs *fs, struct gpu_metrics_keeper **out)
{
	struct gpu_metrics_keeper *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return -ENOMEM;
	k->fs = fs;
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&k->fetch, NULL);
	*out = k;
	return 0;
}

void gpu_metrics_keeper_free(struct gpu_metrics_keeper *k)
{
	if (!k)
		return;
	gpu_metrics_unref(k->snap);
	k8s_client_free(k->url_client);
	pthread_mutex_destroy(&k->lock);
	pthread_mutex_destroy(&k->fetch);
	free(k);
}

static bool is_fresh(const struct gpu_metrics *m, int64_t now)
{
	return m && now - m->fetched < GPU_METRICS_TTL_S && now >= m->fetched;
}

/* The snapshot when fresh enough, referenced; else NULL. */
static struct gpu_metrics *fresh(struct gpu_metrics_keeper *k, int64_t now)
{
	struct gpu_metrics *m = NULL;

	pthread_mutex_lock(&k->lock);
	if (is_fresh(k->snap, now))
		m = gpu_metrics_ref(k->snap);
	pthread_mutex_unlock(&k->lock);
	return m;
}

/* The client for prometheus=URL, made once; NULL (with m->error) when it cannot be. */
static struct k8s_client *url_client(struct gpu_metrics_keeper *k, struct gpu_metrics *m)
{
	struct k8s_error err;

	if (k->url_client)
		return k->url_client;
	k8s_error_clear(&err);
	k->url_cfg.server = (char *)k->fs->opts.prometheus_url;
	k->url_cfg.source = (char *)"prometheus=";
	if (k8s_client_new(&k->url_cfg, NULL, &k->url_client, &err) < 0) {
		snprintf(m->error, sizeof(m->error), "prometheus=%.200s: %.250s", k->fs->opts.prometheus_url,
		         err.message);
		k->url_client = NULL;
	}
	return k->url_client;
}

/* Prometheus's Service as Arena finds it, among the cache's (sorted by namespace and
 * name, as a LIST across namespaces answers): the first with Arena's first label, else
 * its second, ... into ns, name and *port; false when none has one. */
static bool find_service(struct gpu_metrics_keeper *k, char *ns, size_t ns_size, char *name,
                         size_t name_size, const char **port)
{
	const struct service **svcs = NULL;
	const struct service *best = NULL;
	int best_rank = -1;
	size_t n;

	cache_read_lock(k->fs->cache);
	n = cache_objects(k->fs->cache, CACHE_SERVICE, (const void ***)&svcs);
	for (size_t i = 0; i < n; i++) {
		const char *p;
		int rank = prometheus_rank(svcs[i], &p);

		if (rank >= 0 && (best_rank < 0 || rank < best_rank)) {
			best = svcs[i];
			best_rank = rank;
			*port = p;
		}
	}
	if (best) {
		snprintf(ns, ns_size, "%s", best->meta.namespace);
		snprintf(name, name_size, "%s", best->meta.name);
	}
	cache_read_unlock(k->fs->cache);
	free(svcs);
	return best != NULL;
}

static void fetch(struct gpu_metrics_keeper *k, struct gpu_metrics *m)
{
	struct k8s_client *u = NULL;
	struct cache_health h;
	char ns[254] = "", name[254] = "";
	const char *port = NULL;
	bool found = false;

	if (!k->fs->client) {   /* a unit test's fs */
		snprintf(m->error, sizeof(m->error), "no Prometheus found (no cluster)");
		return;
	}
	cache_get_health(k->fs->cache, &h);
	if (h.unreachable && !k->fs->opts.prometheus_url) {
		/* asked through the API server: a query now would only wait and fail */
		snprintf(m->error, sizeof(m->error),
		         "not asked: the cluster cannot be reached (cluster/health)");
		return;
	}
	if (k->fs->opts.prometheus_url && !(u = url_client(k, m)))
		return;
	if (!u)
		found = find_service(k, ns, sizeof(ns), name, sizeof(name), &port);
	if (prometheus_query_gpus(k->fs->client, u, found ? ns : NULL, name, port, m) < 0)
		say(LOG_DEBUG, "gpu metrics: %s", m->error);
}

bool gpu_metrics_would_wait(struct gpu_metrics_keeper *k)
{
	int64_t now = time_now();
	bool wait;

	pthread_mutex_lock(&k->lock);
	if (is_fresh(k->snap, now))
		wait = false;
	else if (k->snap)
		wait = k->snap->source[0] != '\0';   /* the last refresh asked a Prometheus */
	else
		wait = k->fs->opts.prometheus_url != NULL;
	pthread_mutex_unlock(&k->lock);
	return wait;
}

struct gpu_metrics *gpu_metrics_get(struct gpu_metrics_keeper *k)
{
	struct gpu_metrics *m = fresh(k, time_now());

	if (m)
		return m;
	pthread_mutex_lock(&k->fetch);
	/* another reader's query may have answered while this one waited */
	if (!(m = fresh(k, time_now())) && (m = gpu_metrics_new())) {
		fetch(k, m);
		m->fetched = time_now();
		pthread_mutex_lock(&k->lock);
		gpu_metrics_unref(k->snap);
		k->snap = gpu_metrics_ref(m);
		pthread_mutex_unlock(&k->lock);
	}
	pthread_mutex_unlock(&k->fetch);
	return m;
}
