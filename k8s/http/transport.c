/*
 * One curl multi handle, one thread (see transport.h). The thread adds queued
 * transfers, performs, reaps finished ones and wakes their callers, checks the
 * cancel flags and idle deadlines of streams, and sleeps in curl_multi_poll()
 * until a socket is ready, curl's own timer fires, a new transfer is queued
 * (curl_multi_wakeup) or the next tick is due.
 */
#include "k8s/http/transport.h"
#include "k8s/base/timefmt.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

struct transport {
	CURLM *multi;
	pthread_t thread;
	pthread_mutex_t lock; /* guards pending, stopping and every xfer's done */
	struct xfer *pending; /* queued by callers, added by the thread */
	bool stopping;
	struct xfer *active; /* in the multi handle; the thread's alone */
};

void transport_abort(struct xfer *x, int reason)
{
	if (!x->aborted)
		x->aborted = reason;
}

static void finish(struct transport *t, struct xfer *x, CURLcode result)
{
	struct xfer **pp;

	curl_multi_remove_handle(t->multi, x->easy);
	for (pp = &t->active; *pp; pp = &(*pp)->next) {
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	}
	pthread_mutex_lock(&t->lock);
	x->result = result;
	x->done = true;
	pthread_cond_signal(&x->cond);
	pthread_mutex_unlock(&t->lock);
}

/* Streams whose caller gave up or that went silent too long. Returns whether any stream
 * needs watching, so the thread knows whether to wake up every tick. */
static bool check_streams(struct transport *t)
{
	int64_t now = time_monotonic_ms();
	bool watching = false;
	struct xfer *x = t->active, *next;

	for (; x; x = next) {
		next = x->next;
		if (x->cancel && atomic_load(x->cancel))
			transport_abort(x, ECANCELED);
		else if (x->idle_timeout_ms > 0 && now - x->last_activity_ms > x->idle_timeout_ms)
			transport_abort(x, ETIMEDOUT);
		if (x->aborted)
			finish(t, x, CURLE_ABORTED_BY_CALLBACK);
		else if (x->cancel || x->idle_timeout_ms > 0)
			watching = true;
	}
	return watching;
}

static void *transport_main(void *arg)
{
	struct transport *t = arg;

	for (;;) {
		struct xfer *add, *x;
		CURLMsg *msg;
		int running, left;
		bool stopping, watching;

		pthread_mutex_lock(&t->lock);
		add = t->pending;
		t->pending = NULL;
		stopping = t->stopping;
		pthread_mutex_unlock(&t->lock);
		while (add) {
			x = add;
			add = add->next;
			x->last_activity_ms = time_monotonic_ms();
			x->next = t->active;
			t->active = x;
			if (curl_multi_add_handle(t->multi, x->easy) != CURLM_OK)
				finish(t, x, CURLE_OUT_OF_MEMORY);
		}
		if (stopping) {
			while (t->active) {
				transport_abort(t->active, ECANCELED);
				finish(t, t->active, CURLE_ABORTED_BY_CALLBACK);
			}
			break;
		}
		curl_multi_perform(t->multi, &running);
		while ((msg = curl_multi_info_read(t->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			x = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			if (x)
				finish(t, x, msg->data.result);
		}
		watching = check_streams(t);
		curl_multi_poll(t->multi, NULL, 0, watching ? TRANSPORT_TICK_MS : 1000, NULL);
	}
	return NULL;
}

int transport_new(struct transport **out)
{
	struct transport *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->multi = curl_multi_init();
	if (!t->multi) {
		free(t);
		return -ENOMEM;
	}
	/* Multiplex on HTTP/2 (libcurl's default since 7.62, said here because it is the point). */
	curl_multi_setopt(t->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	pthread_mutex_init(&t->lock, NULL);
	if (pthread_create(&t->thread, NULL, transport_main, t) != 0) {
		curl_multi_cleanup(t->multi);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return -EAGAIN;
	}
	*out = t;
	return 0;
}

void transport_free(struct transport *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stopping = true;
	pthread_mutex_unlock(&t->lock);
	curl_multi_wakeup(t->multi);
	pthread_join(t->thread, NULL);
	curl_multi_cleanup(t->multi);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void transport_run(struct transport *t, struct xfer *x)
{
	x->done = false;
	x->aborted = 0;
	x->result = CURLE_OK;
	pthread_cond_init(&x->cond, NULL);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, (char *)x);
	pthread_mutex_lock(&t->lock);
	if (t->stopping) {
		x->aborted = ECANCELED;
		x->result = CURLE_ABORTED_BY_CALLBACK;
		x->done = true;
	} else {
		x->next = t->pending;
		t->pending = x;
	}
	pthread_mutex_unlock(&t->lock);
	curl_multi_wakeup(t->multi);
	pthread_mutex_lock(&t->lock);
	while (!x->done)
		pthread_cond_wait(&x->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
	pthread_cond_destroy(&x->cond);
}
