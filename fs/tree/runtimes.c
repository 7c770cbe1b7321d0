/*
 * The runtimes snapshot and its poller (runtimes.h): two LISTs (the
 * cluster's ClusterTrainingRuntimes, the namespace's TrainingRuntimes) at
 * start and every RUNTIMES_POLL_MS, swapped into the snapshot under its lock.
 * A failed list keeps the last rows and says why only while there are none
 * (render/runtimes.c); a cluster without Trainer (404, or TrainJob not served)
 * is said so. The file shows ages, so each open renders the snapshot anew
 * (places.c: PLACE_AGES) and needs no notification.
 */
#include "fs/tree/runtimes.h"
#include "fs/base/runtimes_list.h"
#include "k8s/base/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct runtimes_poller {
	struct worker w;
	struct fs *fs;
	pthread_mutex_t lock;        /* snap; a leaf */
	struct runtimes snap;
};

static void poll_once(struct runtimes_poller *p)
{
	struct runtimes fresh = {0};
	struct k8s_error err;
	int rc;

	k8s_error_clear(&err);
	if (!p->fs->served[JOB_TRAINJOB] || !p->fs->client) {   /* no client: a unit test's fs */
		fresh.known = true;   /* TrainJob is not served: neither are its runtimes */
		rc = 0;
	} else {
		rc = runtimes_list(p->fs->client, p->fs->namespace, &fresh, &err);
	}
	pthread_mutex_lock(&p->lock);
	if (rc == 0) {
		runtimes_clear(&p->snap);
		p->snap = fresh;
	} else {
		snprintf(p->snap.error, sizeof(p->snap.error), "%.*s", (int)sizeof(p->snap.error) - 1,
		         err.message);
		runtimes_clear(&fresh);
	}
	pthread_mutex_unlock(&p->lock);
}

static void *poller_main(void *arg)
{
	struct runtimes_poller *p = arg;

	pthread_mutex_lock(&p->w.mu);
	while (!p->w.stop) {
		pthread_mutex_unlock(&p->w.mu);
		poll_once(p);
		pthread_mutex_lock(&p->w.mu);
		if (!p->w.stop)
			worker_sleep(&p->w, RUNTIMES_POLL_MS);
	}
	pthread_mutex_unlock(&p->w.mu);
	return NULL;
}

int runtimes_poller_new(struct fs *fs, struct runtimes_poller **out)
{
	struct runtimes_poller *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->fs = fs;
	worker_init(&p->w);
	pthread_mutex_init(&p->lock, NULL);
	*out = p;
	return 0;
}

int runtimes_poller_start(struct runtimes_poller *p)
{
	return worker_start(&p->w, poller_main, p);
}

void runtimes_poller_stop(struct runtimes_poller *p)
{
	if (p)
		worker_stop(&p->w);
}

void runtimes_poller_free(struct runtimes_poller *p)
{
	if (!p)
		return;
	worker_stop(&p->w);
	worker_destroy(&p->w);
	runtimes_clear(&p->snap);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void runtimes_poller_render(struct runtimes_poller *p, struct strbuf *sb, int64_t now,
                            void (*render)(struct strbuf *, const struct runtimes *, int64_t))
{
	pthread_mutex_lock(&p->lock);
	render(sb, &p->snap, now);
	pthread_mutex_unlock(&p->lock);
}
