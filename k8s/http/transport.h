/*
 * The transport thread (internal to k8s/, used by client.c): one libcurl multi
 * handle driven by one thread, so that every request and stream of a client
 * shares one connection pool and, over HTTP/2, one connection (watches and log
 * streams multiplexed). Callers block in transport_run() until their transfer
 * ends; data callbacks run on the transport thread.
 *
 * The thread also enforces what libcurl cannot: a stream's cancel flag (checked
 * every TRANSPORT_TICK_MS) and its idle deadline (milliseconds, not libcurl's
 * whole-second low-speed limit).
 */
#ifndef ARENAFS_K8S_TRANSPORT_H
#define ARENAFS_K8S_TRANSPORT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TRANSPORT_TICK_MS 100 /* cancel flags and idle deadlines are checked this often */

struct transport;

/* One transfer. The caller fills easy and the stream fields, transport_run() fills the rest. */
struct xfer {
	CURL *easy;          /* set up by the caller; owned by the caller */
	atomic_bool *cancel; /* streams: aborts when it becomes true; may be NULL */
	int idle_timeout_ms; /* streams: aborts after this long without bytes; 0: none */

	/* written by the transport thread */
	int64_t last_activity_ms; /* monotonic; bytes or headers arrived */
	CURLcode result;
	int aborted; /* 0, ECANCELED (cancel flag or callback), ETIMEDOUT (idle) */
	bool done;
	pthread_cond_t cond;
	struct xfer *next;
};

int transport_new(struct transport **out);
/* Aborts what is still running (as ECANCELED), joins the thread, frees. */
void transport_free(struct transport *t);
/* Runs x to its end on the transport thread; returns when it is done (x->result set). */
void transport_run(struct transport *t, struct xfer *x);
/* Marks x aborted with reason (from a callback running on the transport thread). */
void transport_abort(struct xfer *x, int reason);

#endif
