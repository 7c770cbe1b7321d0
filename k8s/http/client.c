/*
 * The API client (see client.h): libcurl easy handles set up here, run on the
 * transport thread (transport.c), with deadlines, retries and Status decoding.
 *
 * Retry policy (docs/k8s-client.md): 429, 5xx and connection failures are
 * retried with capped exponential backoff and full jitter, honouring
 * Retry-After, as long as the request's deadline allows. Requests that are not
 * idempotent (POST) are retried only when the server cannot have acted on them:
 * no connection was made, or the answer was 429 or 503. A 401 drops the
 * credentials (exec plugin re-run, token file re-read) and is retried once.
 * Streams are not retried (the cache and log streams reconnect with their own
 * backoff), except for that one 401.
 *
 * TLS material is handed to libcurl from memory (*_BLOB options): no file with a
 * secret is ever written. The Authorization header is never logged; there is no
 * logging here at all, errors travel in struct k8s_error.
 */
#include "k8s/http/client.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "k8s/auth/creds.h"
#include "k8s/auth/execcred.h"
#include "k8s/http/status.h"
#include "k8s/http/transport.h"
#include "k8s/base/deadline.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"
#include "k8s/base/version.h"

#define CLIENT_CONNECT_TIMEOUT_MS 5000
#define CLIENT_REQUEST_TIMEOUT_MS K8S_REQUEST_TIMEOUT_MS_DEFAULT
#define CLIENT_STREAM_IDLE_MS     120000
#define RETRY_BASE_MS             200          /* first backoff; doubles per attempt */
#define RETRY_CAP_MS              5000         /* longest backoff between two attempts */
#define RETRY_MAX_ATTEMPTS        10           /* client-go's limit for Retry-After retries */
#define RESPONSE_MAX              (512u << 20) /* a body larger than this is refused */
#define STREAM_ERROR_BODY_MAX     (64u << 10)  /* a stream's non-2xx body (a Status) */

struct k8s_client {
	const struct k8s_config *cfg;
	struct k8s_client_options opts;
	struct k8s_creds *creds;
	struct transport *transport;
	CURLSH *share; /* TLS sessions and DNS across easy handles */
	pthread_mutex_t share_lock;
	char *url_base;                /* what paths are appended to */
	struct curl_slist *connect_to; /* tls-server-name: connect to the real server */
	char *host_header;             /* tls-server-name: the Host the server expects */

	pthread_mutex_t stats_lock;
	struct k8s_client_stats stats;
};

/* One attempt's state, shared with the libcurl callbacks. */
struct attempt {
	struct xfer x;
	struct curl_slist *headers;
	struct creds_auth auth;
	char errbuf[CURL_ERROR_SIZE];
	struct strbuf body;
	size_t body_max;
	int status;         /* final HTTP status, 0 before headers */
	long retry_after_s; /* -1: none */
	const struct k8s_stream_request *stream;
	bool too_big;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result;

static void curl_init_once(void)
{
	curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *arg)
{
	(void)h;
	(void)d;
	(void)a;
	pthread_mutex_lock(&((struct k8s_client *)arg)->share_lock);
}

static void share_unlock(CURL *h, curl_lock_data d, void *arg)
{
	(void)h;
	(void)d;
	pthread_mutex_unlock(&((struct k8s_client *)arg)->share_lock);
}

/*
 * tls-server-name: libcurl 7.88 has no option to set SNI apart from the URL's
 * host, so the URL names the TLS server name (SNI and certificate check use it),
 * CURLOPT_CONNECT_TO sends the connection to the configured server, and a Host
 * header keeps what the server sees as client-go would send it.
 */
static int setup_server(struct k8s_client *c, struct k8s_error *err)
{
	const struct k8s_config *cfg = c->cfg;
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *url = NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	if (!u)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, cfg->server, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
		rc = k8s_error_set(err, EINVAL, "invalid server URL \"%s\"", cfg->server);
		goto out;
	}
	if (cfg->tls_server_name) {
		strbuf_printf(&sb, "%s:%s:%s:%s", cfg->tls_server_name, port, host, port);
		c->connect_to = curl_slist_append(NULL, strbuf_str(&sb));
		strbuf_reset(&sb);
		if (curl_url_get(u, CURLUPART_PORT, &url, 0) == CURLUE_OK) /* explicit port? */
			strbuf_printf(&sb, "Host: %s:%s", host, port);
		else
			strbuf_printf(&sb, "Host: %s", host);
		curl_free(url);
		url = NULL;
		c->host_header = strbuf_take(&sb);
		if (curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0) != CURLUE_OK) {
			rc = k8s_error_set(err, EINVAL, "invalid tls-server-name \"%s\"",
			                   cfg->tls_server_name);
			goto out;
		}
		if (!c->connect_to || !c->host_header) {
			rc = k8s_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
		rc = k8s_error_set(err, EINVAL, "invalid server URL \"%s\"", cfg->server);
		goto out;
	}
	strbuf_puts(&sb, url);
	while (sb.len && sb.buf[sb.len - 1] == '/')
		sb.buf[--sb.len] = '\0';
	c->url_base = strbuf_take(&sb);
	if (!c->url_base)
		rc = k8s_error_set(err, ENOMEM, "out of memory");
out:
	curl_free(host);
	curl_free(port);
	curl_free(url);
	strbuf_free(&sb);
	curl_url_cleanup(u);
	return rc;
}

int k8s_client_new(const struct k8s_config *cfg, const struct k8s_client_options *opts,
                   struct k8s_client **out, struct k8s_error *err)
{
	struct k8s_creds_options creds_opts = {opts ? opts->token_file_reread_ms : 0,
	                                       opts ? opts->exec_timeout_ms : 0};
	struct k8s_client *c;
	int rc;

	*out = NULL;
	pthread_once(&curl_once, curl_init_once);
	if (curl_init_result != CURLE_OK)
		return k8s_error_set(err, EIO, "cannot initialise libcurl: %s",
		                     curl_easy_strerror(curl_init_result));
	c = calloc(1, sizeof(*c));
	if (!c)
		return k8s_error_set(err, ENOMEM, "out of memory");
	c->cfg = cfg;
	c->opts.connect_timeout_ms = opts && opts->connect_timeout_ms > 0
	                                 ? opts->connect_timeout_ms
	                                 : CLIENT_CONNECT_TIMEOUT_MS;
	c->opts.request_timeout_ms = opts && opts->request_timeout_ms > 0
	                                 ? opts->request_timeout_ms
	                                 : CLIENT_REQUEST_TIMEOUT_MS;
	c->opts.stream_idle_timeout_ms = opts && opts->stream_idle_timeout_ms > 0
	                                     ? opts->stream_idle_timeout_ms
	                                     : CLIENT_STREAM_IDLE_MS;
	pthread_mutex_init(&c->share_lock, NULL);
	pthread_mutex_init(&c->stats_lock, NULL);
	c->share = curl_share_init();
	if (!c->share) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	if ((rc = setup_server(c, err)) || (rc = creds_new(cfg, &creds_opts, &c->creds, err)))
		goto fail;
	rc = transport_new(&c->transport);
	if (rc) {
		k8s_error_set(err, -rc, "cannot start the transport thread");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	k8s_client_free(c);
	return rc;
}

void k8s_client_free(struct k8s_client *c)
{
	if (!c)
		return;
	transport_free(c->transport);
	creds_free(c->creds);
	if (c->share)
		curl_share_cleanup(c->share);
	curl_slist_free_all(c->connect_to);
	free(c->host_header);
	free(c->url_base);
	pthread_mutex_destroy(&c->share_lock);
	pthread_mutex_destroy(&c->stats_lock);
	free(c);
}

const struct k8s_config *k8s_client_config(const struct k8s_client *c)
{
	return c->cfg;
}

void k8s_client_get_stats(struct k8s_client *c, struct k8s_client_stats *out)
{
	pthread_mutex_lock(&c->stats_lock);
	*out = c->stats;
	pthread_mutex_unlock(&c->stats_lock);
}

void k8s_response_free(struct k8s_response *r)
{
	if (!r)
		return;
	free(r->body);
	r->body = NULL;
	r->len = 0;
	r->status = 0;
}

/* ---- libcurl callbacks (transport thread) ---- */

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
	struct attempt *a = arg;
	size_t len = size * n;

	a->x.last_activity_ms = time_monotonic_ms();
	if (len > 5 && strncmp(line, "HTTP/", 5) == 0) {
		const char *sp = memchr(line, ' ', len);
		int code = sp ? atoi(sp + 1) : 0;

		if (code >= 200) { /* 1xx are interim */
			a->status = code;
			a->retry_after_s = -1;
			if (a->stream && a->stream->http_status)
				*a->stream->http_status = code;
		}
	} else if (len > 12 && strncasecmp(line, "Retry-After:", 12) == 0) {
		char *end;
		long s = strtol(line + 12, &end, 10);

		/* only delta-seconds: the API server never sends an HTTP date */
		if (end != line + 12 && s >= 0)
			a->retry_after_s = s;
	}
	return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct attempt *a = arg;
	size_t len = size * n;

	a->x.last_activity_ms = time_monotonic_ms();
	if (a->stream && a->status >= 200 && a->status < 300) {
		if (a->stream->on_data(a->stream->arg, data, len) != 0) {
			transport_abort(&a->x, ECANCELED);
			return 0;
		}
		return len;
	}
	if (a->body.len + len > a->body_max) {
		a->too_big = true;
		return 0;
	}
	strbuf_append(&a->body, data, len);
	return strbuf_ok(&a->body) ? len : 0;
}

/* ---- one attempt ---- */

static void attempt_clear(struct attempt *a)
{
	if (a->x.easy)
		curl_easy_cleanup(a->x.easy);
	curl_slist_free_all(a->headers);
	creds_auth_clear(&a->auth);
	strbuf_free(&a->body);
	memset(a, 0, sizeof(*a));
}

static int add_header(struct attempt *a, const char *fmt, const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	struct curl_slist *l;

	strbuf_printf(&sb, fmt, value);
	if (!strbuf_ok(&sb))
		return -ENOMEM;
	l = curl_slist_append(a->headers, sb.buf);
	explicit_bzero(sb.buf, sb.len); /* may be the Authorization header */
	strbuf_free(&sb);
	if (!l)
		return -ENOMEM;
	a->headers = l;
	return 0;
}

/*
 * Every curl_easy_setopt is checked: the first that fails (out of memory, an option
 * or protocol this libcurl was built without) fails the attempt with its name.
 * Options that only make things faster (HTTP/2, waiting for a connection to
 * multiplex, keepalive, compression) are asked with SETOPT_BEST: a libcurl that
 * refuses one still makes the request.
 */
struct setopts {
	CURL *e;
	CURLcode rc;
	const char *failed;   /* the first option refused */
};

#define SETOPT(s, opt, val)                                                                 \
	do {                                                                                \
		if ((s)->rc == CURLE_OK &&                                                  \
		    ((s)->rc = curl_easy_setopt((s)->e, (opt), (val))) != CURLE_OK)         \
			(s)->failed = #opt;                                                 \
	} while (0)

/* An optional option: a refusal is let go on purpose (the request works without it,
 * and k8s/ logs nothing: docs/k8s.md). */
#define SETOPT_BEST(s, opt, val) ((void)curl_easy_setopt((s)->e, (opt), (val)))

static void set_blob(struct setopts *s, CURLoption opt, const char *data, size_t len,
		     const char *name)
{
	struct curl_blob blob = {(void *)data, len, CURL_BLOB_COPY};

	if (s->rc == CURLE_OK && (s->rc = curl_easy_setopt(s->e, opt, &blob)) != CURLE_OK)
		s->failed = name;
}

/* The server's certificate check, the client certificate, proxy and connect-to. */
static void setup_tls(struct k8s_client *c, struct attempt *a, struct setopts *s)
{
	const struct k8s_config *cfg = c->cfg;

	if (cfg->ca_pem) {
		/* only this CA, as client-go: not the system's as well */
		set_blob(s, CURLOPT_CAINFO_BLOB, cfg->ca_pem, cfg->ca_pem_len, "CURLOPT_CAINFO_BLOB");
		SETOPT(s, CURLOPT_CAINFO, NULL);
		SETOPT(s, CURLOPT_CAPATH, NULL);
	}
	if (cfg->insecure_skip_tls_verify) {
		SETOPT(s, CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(s, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (a->auth.cert_pem) {
		set_blob(s, CURLOPT_SSLCERT_BLOB, a->auth.cert_pem, a->auth.cert_len,
			 "CURLOPT_SSLCERT_BLOB");
		SETOPT(s, CURLOPT_SSLCERTTYPE, "PEM");
		set_blob(s, CURLOPT_SSLKEY_BLOB, a->auth.key_pem, a->auth.key_len,
			 "CURLOPT_SSLKEY_BLOB");
		SETOPT(s, CURLOPT_SSLKEYTYPE, "PEM");
	}
	if (c->connect_to)
		SETOPT(s, CURLOPT_CONNECT_TO, c->connect_to);
	if (cfg->proxy_url)
		SETOPT(s, CURLOPT_PROXY, cfg->proxy_url);
}

/* A method other than GET, and its body. */
static void setup_method(struct setopts *s, const char *method, const char *body)
{
	if (strcmp(method, "GET") == 0)
		return;
	if (strcmp(method, "POST") == 0)
		SETOPT(s, CURLOPT_POST, 1L);
	else
		SETOPT(s, CURLOPT_CUSTOMREQUEST, method);
	if (body || strcmp(method, "POST") == 0) {
		SETOPT(s, CURLOPT_POSTFIELDS, body ? body : "");
		SETOPT(s, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? strlen(body) : 0));
	}
}

/*
 * Sets up a's easy handle for one try of method path. timeout_ms 0: a stream
 * (no total timeout; the idle deadline applies instead).
 */
static int attempt_setup(struct k8s_client *c, struct attempt *a, const char *method,
                         const char *path, const char *content_type, const char *accept,
                         const char *body, long timeout_ms, struct k8s_error *err)
{
	struct strbuf url = STRBUF_INIT;
	struct setopts s = {NULL, CURLE_OK, NULL};
	int64_t started;
	int rc;

	a->retry_after_s = -1;
	/* an exec plugin's run is part of the request: its deadline is the request's */
	started = time_monotonic_ms();
	rc = creds_get(c->creds, (int)timeout_ms, &a->auth, err);
	if (rc)
		return rc;
	if (timeout_ms) {
		timeout_ms -= (long)(time_monotonic_ms() - started);
		if (timeout_ms < 1)
			timeout_ms = 1;
	}
	s.e = a->x.easy = curl_easy_init();
	strbuf_puts(&url, c->url_base);
	strbuf_puts(&url, path);
	if (!s.e || !strbuf_ok(&url)) {
		strbuf_free(&url);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	SETOPT(&s, CURLOPT_URL, url.buf);      /* libcurl copies it */
	strbuf_free(&url);
	SETOPT(&s, CURLOPT_PROTOCOLS_STR, "https,http");
	SETOPT(&s, CURLOPT_NOSIGNAL, 1L);
	SETOPT(&s, CURLOPT_ERRORBUFFER, a->errbuf);
	SETOPT(&s, CURLOPT_SHARE, c->share);
	SETOPT(&s, CURLOPT_USERAGENT, "arenafs/" ARENAFS_VERSION);
	SETOPT_BEST(&s, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* wait for a connection being set up rather than opening a second one: HTTP/2 can
	 * multiplex on it; an HTTP/1.1 server gets its own connections after that. */
	SETOPT_BEST(&s, CURLOPT_PIPEWAIT, 1L);
	SETOPT_BEST(&s, CURLOPT_TCP_KEEPALIVE, 1L);
	SETOPT_BEST(&s, CURLOPT_TCP_KEEPIDLE, 30L);
	SETOPT_BEST(&s, CURLOPT_TCP_KEEPINTVL, 10L);
	SETOPT_BEST(&s, CURLOPT_ACCEPT_ENCODING, ""); /* gzip: the API server compresses large lists */
	SETOPT(&s, CURLOPT_CONNECTTIMEOUT_MS,
	       timeout_ms && timeout_ms < c->opts.connect_timeout_ms
		       ? timeout_ms
		       : (long)c->opts.connect_timeout_ms);
	if (timeout_ms)
		SETOPT(&s, CURLOPT_TIMEOUT_MS, timeout_ms);
	SETOPT(&s, CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(&s, CURLOPT_HEADERDATA, a);
	SETOPT(&s, CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(&s, CURLOPT_WRITEDATA, a);
	setup_tls(c, a, &s);

	if (add_header(a, "Accept: %s", accept ? accept : "application/json") ||
	    (a->auth.authorization && add_header(a, "Authorization: %s", a->auth.authorization)) ||
	    (body &&
	     add_header(a, "Content-Type: %s", content_type ? content_type : "application/json")) ||
	    (c->host_header && add_header(a, "%s", c->host_header)) ||
	    add_header(a, "%s", "Expect:"))
		return k8s_error_set(err, ENOMEM, "out of memory");
	SETOPT(&s, CURLOPT_HTTPHEADER, a->headers);
	setup_method(&s, method, body);
	if (s.rc == CURLE_OUT_OF_MEMORY)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if (s.rc != CURLE_OK)
		return k8s_error_set(err, EINVAL, "%s %s: libcurl refused %s: %s", method, path,
				     s.failed, curl_easy_strerror(s.rc));
	return 0;
}

/* After a 401: the credentials are dropped (creds_invalidate) and the request tried
 * once more with fresh ones, when it was not tried so already and they can change.
 * Whether to try again (a cleared). */
static bool retry_after_401(struct k8s_client *c, struct attempt *a, bool *retried)
{
	if (a->status != 401 || *retried || !creds_invalidate(c->creds, a->auth.generation))
		return false;
	*retried = true;
	attempt_clear(a);
	return true;
}

static void count_attempt(struct k8s_client *c, struct attempt *a, bool retry)
{
	long conns = 0, ver = 0;

	curl_easy_getinfo(a->x.easy, CURLINFO_NUM_CONNECTS, &conns);
	curl_easy_getinfo(a->x.easy, CURLINFO_HTTP_VERSION, &ver);
	pthread_mutex_lock(&c->stats_lock);
	c->stats.requests++;
	c->stats.connections += (uint64_t)conns;
	if (retry)
		c->stats.retries++;
	if (ver == CURL_HTTP_VERSION_2_0)
		c->stats.last_http_version = 2;
	else if (ver)
		c->stats.last_http_version = 1;
	pthread_mutex_unlock(&c->stats_lock);
}

/* Was the connection never made, so that the server cannot have seen the request? */
static bool never_sent(CURLcode r)
{
	return r == CURLE_COULDNT_CONNECT || r == CURLE_COULDNT_RESOLVE_HOST ||
	       r == CURLE_COULDNT_RESOLVE_PROXY;
}

static bool transport_retryable(CURLcode r)
{
	switch (r) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return true;
	default:
		return false;
	}
}

/* A transport failure in words: "cannot reach https://…: Connection refused". */
static int transport_error(struct k8s_client *c, struct attempt *a, long elapsed_ms,
                           struct k8s_error *err)
{
	CURLcode r = a->x.result;
	long os_errno = 0;
	const char *why;
	bool tls_final;
	int rc;

	curl_easy_getinfo(a->x.easy, CURLINFO_OS_ERRNO, &os_errno);
	if (a->too_big)
		return k8s_error_set(err, EFBIG, "the answer of %s is larger than %u MiB",
		                     c->cfg->server, RESPONSE_MAX >> 20);
	/* no answer in time may be a slow server, not one that is gone: no reason */
	if (r == CURLE_OPERATION_TIMEDOUT)
		return k8s_error_set(err, ETIMEDOUT, "cannot reach %s: no answer within %ld ms",
		                     c->cfg->server, elapsed_ms);
	/* a certificate that does not verify: waiting will not change it (reason TLS) */
	tls_final = r == CURLE_PEER_FAILED_VERIFICATION || r == CURLE_SSL_CACERT_BADFILE ||
	            r == CURLE_SSL_CERTPROBLEM;
	if (tls_final || r == CURLE_SSL_CONNECT_ERROR)
		why = a->errbuf[0] ? a->errbuf : curl_easy_strerror(r); /* the TLS detail matters */
	else if (os_errno)
		why = strerror((int)os_errno);
	else
		why = a->errbuf[0] ? a->errbuf : curl_easy_strerror(r);
	rc = k8s_error_set(err, EIO, "cannot reach %s: %s", c->cfg->server, why);
	if (err)
		snprintf(err->reason, sizeof(err->reason), "%s",
		         tls_final ? K8S_REASON_TLS : K8S_REASON_UNREACHABLE);
	return rc;
}

static int status_error(struct k8s_client *c, struct attempt *a, struct k8s_error *err)
{
	int rc = k8s_status_decode(a->status, a->body.buf, a->body.len, err);

	if (a->status == 401 && err) {
		char why[K8S_ERROR_MESSAGE_MAX];

		snprintf(why, sizeof(why), "%s", err->message);
		if (c->cfg->user && *c->cfg->user)
			k8s_error_status(
			    err, 401, err->reason,
			    "the API server rejected the credentials of user \"%s\": %s",
			    c->cfg->user, why);
		else
			k8s_error_status(err, 401, err->reason,
			                 "the API server asks for credentials (the context has no "
			                 "user): %s",
			                 why);
	}
	return rc;
}

static long backoff_ms(int attempt, long retry_after_s)
{
	long cap = RETRY_BASE_MS << (attempt < 6 ? attempt : 6);
	long d;

	if (cap > RETRY_CAP_MS)
		cap = RETRY_CAP_MS;
	/* full jitter (AWS's "exponential backoff and jitter"): spreads many clients apart */
	d = cap / 2 + (long)(random() % (cap / 2 + 1));
	if (retry_after_s >= 0 && retry_after_s * 1000 > d)
		d = retry_after_s * 1000;
	return d;
}

int k8s_client_replace_credentials(struct k8s_client *c, const struct k8s_config *cfg,
                                   struct k8s_error *err)
{
	return creds_replace(c->creds, cfg, err);
}

int k8s_client_load_credentials(struct k8s_client *c, int timeout_ms, struct k8s_error *err)
{
	struct creds_auth auth;
	int rc = creds_get(c->creds, timeout_ms > 0 ? timeout_ms : 1, &auth, err);

	creds_auth_clear(&auth);
	return rc;
}

void k8s_client_kill_plugins(void)
{
	execcred_kill_running();
}

int k8s_client_set_request_timeout(struct k8s_client *c, int ms)
{
	int old = c->opts.request_timeout_ms;

	if (ms > 0)
		c->opts.request_timeout_ms = ms;
	return old;
}

int k8s_client_request_timeout(const struct k8s_client *c)
{
	return c->opts.request_timeout_ms;
}

int k8s_request(struct k8s_client *c, const char *method, const char *path,
                const char *content_type, const char *body, struct k8s_response *resp,
                struct k8s_error *err)
{
	bool idempotent = strcmp(method, "POST") != 0 && strcmp(method, "PATCH") != 0;
	int64_t start = time_monotonic_ms(), deadline = start + c->opts.request_timeout_ms;
	int64_t action = deadline_of_action();
	bool retried_401 = false;
	int rc = 0;

	/* one user action, one deadline (deadline.h): its earlier requests used some */
	if (action && action < deadline)
		deadline = action;
	memset(resp, 0, sizeof(*resp));
	for (int n = 0;; n++) {
		struct attempt a = {0};
		long left = (long)(deadline - time_monotonic_ms()), wait;
		bool retry;

		if (left <= 0 && n == 0)
			return k8s_error_set(err, ETIMEDOUT,
			                     "%s %s: not sent: the action's requests before it used "
			                     "all of its request_timeout (%d ms)",
			                     method, path, c->opts.request_timeout_ms);
		if (left <= 0)
			return rc ? rc
			          : k8s_error_set(err, ETIMEDOUT, "%s %s: no answer within %d ms",
			                          method, path, (int)(deadline - start));
		a.body_max = RESPONSE_MAX;
		rc = attempt_setup(c, &a, method, path, content_type, NULL, body, left, err);
		if (rc) {
			attempt_clear(&a);
			return rc;
		}
		transport_run(c->transport, &a.x);
		count_attempt(c, &a, n > 0);
		if (a.x.aborted == ECANCELED) {
			attempt_clear(&a);
			return k8s_error_set(err, ECANCELED, "%s %s: the client is shutting down",
			                     method, path);
		}
		if (a.x.result != CURLE_OK) {
			rc = transport_error(c, &a, (long)(time_monotonic_ms() - start), err);
			retry = transport_retryable(a.x.result) &&
			        (idempotent || never_sent(a.x.result));
		} else if (a.status >= 200 && a.status < 300) {
			resp->status = a.status;
			resp->len = a.body.len;
			resp->body = a.body.buf ? strbuf_take(&a.body) : strdup("");
			attempt_clear(&a);
			if (!resp->body)
				return k8s_error_set(err, ENOMEM, "out of memory");
			k8s_error_clear(err);
			return 0;
		} else {
			rc = status_error(c, &a, err);
			if (retry_after_401(c, &a, &retried_401))
				continue;
			retry = a.status == 429 || a.status == 503 ||
			        (idempotent && a.status >= 500 && a.status != 501);
		}
		wait = backoff_ms(n, a.retry_after_s);
		attempt_clear(&a);
		if (!retry || n + 1 >= RETRY_MAX_ATTEMPTS || time_monotonic_ms() + wait >= deadline)
			break;
		time_sleep_ms(wait);
	}
	return rc;
}

int k8s_get_json(struct k8s_client *c, const char *path, json_t **out, struct k8s_error *err)
{
	struct k8s_response r;
	json_error_t jerr;
	int rc;

	*out = NULL;
	rc = k8s_request(c, "GET", path, NULL, NULL, &r, err);
	if (rc)
		return rc;
	*out = json_loadb(r.body, r.len, 0, &jerr);
	k8s_response_free(&r);
	if (!*out)
		return k8s_error_set(err, EIO,
		                     "the answer to GET %s is not JSON: %s (line %d, column %d)",
		                     path, jerr.text, jerr.line, jerr.column);
	return 0;
}

int k8s_stream_run(struct k8s_client *c, const struct k8s_stream_request *req,
                   struct k8s_error *err)
{
	bool retried_401 = false;
	int rc;

	if (req->http_status)
		*req->http_status = 0;
	for (;;) {
		struct attempt a = {0};
		int64_t start = time_monotonic_ms();

		if (req->cancel && atomic_load(req->cancel))
			return k8s_error_set(err, ECANCELED, "stream cancelled");
		a.stream = req;
		a.body_max = STREAM_ERROR_BODY_MAX;
		a.x.cancel = req->cancel;
		a.x.idle_timeout_ms = c->opts.stream_idle_timeout_ms;
		rc = attempt_setup(c, &a, "GET", req->path, NULL, req->accept, NULL, 0, err);
		if (rc) {
			attempt_clear(&a);
			return rc;
		}
		transport_run(c->transport, &a.x);
		count_attempt(c, &a, retried_401);
		if (a.x.aborted == ECANCELED)
			rc = k8s_error_set(err, ECANCELED, "stream cancelled");
		else if (a.x.aborted == ETIMEDOUT)
			rc = k8s_error_set(err, ETIMEDOUT, "%s: nothing received for %d ms",
			                   req->path, c->opts.stream_idle_timeout_ms);
		else if (a.status && (a.status < 200 || a.status >= 300) &&
		         (a.x.result == CURLE_OK || a.too_big)) {
			rc = status_error(c, &a, err);
			if (retry_after_401(c, &a, &retried_401))
				continue;
		} else if (a.x.result != CURLE_OK) {
			rc = transport_error(c, &a, (long)(time_monotonic_ms() - start), err);
		} else {
			rc = 0;
			k8s_error_clear(err);
		}
		attempt_clear(&a);
		return rc;
	}
}
