/*
 * The HTTP client for one API server: libcurl with TLS and credentials from
 * k8s_config, connection reuse, HTTP/2 where the server offers it, deadlines on
 * every request, retries of 429/5xx with backoff within the deadline, and
 * non-2xx answers decoded from their Status into struct k8s_error.
 *
 * Thread-safe: any thread may issue requests on a shared client. Knows nothing of
 * FUSE or of the cache; paths given here must already be encoded (see urlpath.h).
 */
#ifndef ARENAFS_K8S_CLIENT_H
#define ARENAFS_K8S_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "k8s/auth/config.h"
#include "k8s/error.h"

struct k8s_client;

#define K8S_REQUEST_TIMEOUT_MS_DEFAULT 30000

/* Timeouts (milliseconds). Requests: connect + total; streams: connect + idle. */
struct k8s_client_options {
	int connect_timeout_ms;       /* default 5000 */
	int request_timeout_ms;       /* default 30000: whole request incl. retries */
	int stream_idle_timeout_ms;   /* default 120000: a stream silent this long is broken */
	/* Added after the first three (zero: the default), for tests and tuning: */
	int token_file_reread_ms;     /* default 60000: tokenFile re-read period (client-go: 1 min) */
	int exec_timeout_ms;          /* default 20000: an exec plugin run for a stream (no
	                               * deadline of its own) is killed after this long */
};

/* cfg must outlive the client. opts may be NULL for the defaults. Every request and
 * stream must have returned before k8s_client_free() (cancel streams, join threads). */
int k8s_client_new(const struct k8s_config *cfg, const struct k8s_client_options *opts,
		   struct k8s_client **out, struct k8s_error *err);
void k8s_client_free(struct k8s_client *c);
/* Presents cfg's credentials from now on (cfg: a reloaded kubeconfig naming the
 * same server; it must outlive the client). */
int k8s_client_replace_credentials(struct k8s_client *c, const struct k8s_config *cfg,
                                   struct k8s_error *err);
/* Changes request_timeout_ms (> 0); returns the old one. Only while no other
 * thread uses the client: start-up waits longer or shorter than requests later. */
int k8s_client_set_request_timeout(struct k8s_client *c, int ms);
/* request_timeout_ms as it is now: what one user action may wait in all (deadline.h). */
int k8s_client_request_timeout(const struct k8s_client *c);
/* Gets the credentials requests will present, running the exec plugin when one is
 * configured and has no valid answer yet, within timeout_ms (at which it is killed):
 * start-up's one run of it. 0, or -EACCES / -ETIMEDOUT / -ENOMEM as creds_get. */
int k8s_client_load_credentials(struct k8s_client *c, int timeout_ms, struct k8s_error *err);
/* SIGKILLs the exec credential plugins running now, whatever client runs them.
 * Async-signal-safe: for a daemon exiting on a signal, which must not leave them. */
void k8s_client_kill_plugins(void);
/* The configuration c was made with (its server URL for messages). */
const struct k8s_config *k8s_client_config(const struct k8s_client *c);

/* Counters since k8s_client_new (for cluster/ files, tests and benchmarks). */
struct k8s_client_stats {
	uint64_t requests;            /* HTTP exchanges, retries and streams included */
	uint64_t connections;         /* new connections opened (the rest reused one) */
	uint64_t retries;             /* exchanges that repeated an earlier one */
	int last_http_version;        /* 1 or 2: what the last exchange used; 0 before any */
};
void k8s_client_get_stats(struct k8s_client *c, struct k8s_client_stats *out);

struct k8s_response {
	int status;                   /* HTTP status */
	char *body;                   /* NUL-terminated, owned; "" when empty */
	size_t len;
};
void k8s_response_free(struct k8s_response *r);

/*
 * One request with a body (or none: body NULL). path starts with '/', query
 * included, already encoded. Returns 0 on 2xx with resp filled (caller frees);
 * otherwise -errno with err filled from the Status (or transport error) and resp
 * left empty. content_type NULL means application/json.
 */
int k8s_request(struct k8s_client *c, const char *method, const char *path,
		const char *content_type, const char *body, struct k8s_response *resp,
		struct k8s_error *err);

/* GET path and decode the JSON body; *out owned by the caller (json_decref). */
int k8s_get_json(struct k8s_client *c, const char *path, json_t **out, struct k8s_error *err);

/*
 * A long-lived GET (watch, log follow). Blocks the calling thread until the
 * stream ends and returns 0 on a clean end of a 2xx response, -ECANCELED when
 * *cancel became true or on_data returned non-zero, -ETIMEDOUT after the idle
 * timeout, or -errno with err filled (non-2xx: its Status). on_data receives the
 * body in arbitrary chunks, maybe on another thread than the caller's, never two
 * calls at once for one stream; it must not block for long. *http_status (may be
 * NULL) gets the response status as soon as it is known (204 for an unscheduled
 * pod's log).
 */
typedef int (*k8s_stream_data_fn)(void *arg, const char *data, size_t len);

struct k8s_stream_request {
	const char *path;
	const char *accept;           /* NULL: application/json */
	k8s_stream_data_fn on_data;
	void *arg;
	atomic_bool *cancel;          /* may be NULL */
	int *http_status;             /* may be NULL */
};

int k8s_stream_run(struct k8s_client *c, const struct k8s_stream_request *req,
		   struct k8s_error *err);

#endif
