/*
 * A scripted HTTP/1.1 server on 127.0.0.1 for the client's unit tests: answers
 * each request with the next canned response and records what it received, so
 * a test can check retries, headers, connection reuse, deadlines and streams
 * without a cluster. One connection at a time, keep-alive honoured.
 */
#ifndef ARENAFS_TEST_TESTSRV_H
#define ARENAFS_TEST_TESTSRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "k8s/auth/config.h"

#define TESTSRV_MAX_SCRIPT 16
#define TESTSRV_MAX_CHUNKS 8

struct testsrv_response {
	int status;
	const char *headers; /* extra header lines, each ending "\r\n"; may be NULL */
	const char *body;    /* sent with Content-Length; NULL: "" */
	int delay_ms;        /* before answering */
	const char *chunks[TESTSRV_MAX_CHUNKS]; /* a chunked stream instead of body (NULL-ended) */
	int chunk_delay_ms;
	bool hang;  /* after the chunks (or headers), stay silent until the client goes */
	bool close; /* close the connection after this answer */
};

struct testsrv {
	int fd;
	int port;
	pthread_t thread;
	atomic_bool stop;
	struct testsrv_response script[TESTSRV_MAX_SCRIPT];
	int n_script;
	atomic_int requests;                 /* requests answered (or being answered) */
	atomic_int connections;              /* connections accepted */
	char seen[TESTSRV_MAX_SCRIPT][2048]; /* request line, headers and body of each request */
	char url[64];                        /* "http://127.0.0.1:PORT", once started */
	struct k8s_config cfg;               /* testsrv_client's: its client points into it */
};

/* Starts the server on a free port. Fill script and n_script before the first request. */
int testsrv_start(struct testsrv *s);
void testsrv_stop(struct testsrv *s);

/* A client of the started server s, with a static token (k8s_client_free frees it,
 * before testsrv_stop: its configuration is s->cfg). */
struct k8s_client;
int testsrv_client(struct testsrv *s, struct k8s_client **out);

#endif
