/*
 * Shared container log streams (see logstream.h): a registry of open streams by
 * (client, namespace, pod, container, instance, previous), one thread per stream
 * that GETs the log and appends to a bounded buffer (logbuf.c) through the
 * timestamp parser (loglines.c), and the append callbacks.
 *
 * A follow request asks timestamps=true, so that a break can be resumed with
 * sinceTime; the timestamps are cut off before the bytes are stored. A
 * terminated instance is read once without them (raw): after a break it is read
 * again and the bytes already kept are skipped. When a
 * follow stream ends or breaks, the pod is asked whether this instance of the
 * container still runs: if so the stream resumes, if it terminated the rest is
 * read once without follow, if it restarted the rest is read with previous=true.
 *
 * Whether the server answered: a kubelet writes a follow's response headers with
 * the log's first byte (kubelet server.go getContainerLogs: a flushwriter, no
 * WriteHeader), so a follow of a running container that printed nothing gets no
 * answer at all, as from a server that does not answer. A follow still unanswered
 * after probe_after_ms is checked once, on a thread of its own, by the same GET
 * without follow and with limitBytes=1, which a kubelet answers at once: only a log
 * whose server answered is an empty log (fs/logs/logfile.c, ETIMEDOUT otherwise).
 *
 * Design note: the caught-up rule.
 *
 * `cat logs` of a running container must end, and end with the log up to about
 * now; a follow stream never ends by itself. So a reader at the end of the bytes
 * (fs/logs/logfile.c) must tell "more of the log as it was is still on its way"
 * from "the container is quiet, or writes as it goes". Silence alone cannot say
 * it: a log of megabytes arrives in bursts with gaps, and a chatty container is
 * never silent, so `cat` would end early in the first case and never in the
 * second. The rule:
 * - each follow request notes the wall clock when it begins (request_wall) and
 *   asks timestamps=true; the kubelet prefixes every line with when the
 *   container wrote it;
 * - once a line arrives written at or after request_wall, everything written
 *   before the request has been sent (the kubelet sends the file in order):
 *   caught_up turns true (on_data), and a reader at the end of the bytes stops
 *   there: what follows is being written now;
 * - until then a reader waits while bytes keep arriving (logfile.c's
 *   LOG_QUIET_MS of silence also ends the wait: a quiet container writes no line
 *   to catch up with);
 * - a resumed request (after a break: sinceTime, the last line's time) starts
 *   over: caught_up is false until one of its lines is newer than its own start;
 * - a log read once (a terminated instance, previous=true) is never "caught up":
 *   it is read to its end, and its reader waits for the end instead.
 * The node's clock stands in for ours: one ahead by d ends `cat` up to d early;
 * one behind never says caught up, and the reader falls back on the silence.
 * caught_up is an atomic, written by the stream's callback (the transport
 * thread) and read by readers without a lock: a stale read costs one more
 * LOG_POLL_MS wait, never a wrong byte. Tested by tests/unit/test_k8s_logstream.c
 * (logstream_is_caught_up_at_a_line_written_after_the_request).
 *
 * Locks: the registry's lock guards its list and the reference counts; ls->lock the
 * buffer, status, done flag and mtime (held for copies only, never across the
 * network); ls->cb_lock the callback list, held while callbacks run, so that after
 * logstream_release() returns its callback is neither running nor called again.
 */
#include "k8s/logs/logstream.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8s/logs/logbuf.h"
#include "k8s/logs/loglines.h"
#include "k8s/http/streamget.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

#define LOGSTREAM_BACKOFF_INITIAL_MS 250
#define LOGSTREAM_BACKOFF_MAX_MS     10000
/* A non-follow read (finished or previous instance) that keeps breaking gives up. */
#define LOGSTREAM_ONCE_ATTEMPTS 5
#define POD_BODY_MAX            (8u << 20)

enum ls_mode { MODE_FOLLOW, MODE_ONCE, MODE_PREVIOUS };

/* What the pod says about our container instance. */
enum instance_state {
	INSTANCE_RUNNING,
	INSTANCE_TERMINATED,
	INSTANCE_RESTARTED,
	INSTANCE_GONE,
	INSTANCE_UNKNOWN
};

struct ls_callback {
	struct ls_callback *next;
	logstream_append_fn fn;
	void *arg;
};

struct logstream {
	struct logstream_registry *reg;
	struct logstream *next; /* reg's list */
	int refs;               /* reg->lock */
	struct k8s_client *client;
	char *ns, *pod, *container, *container_id;
	bool previous, finished;
	char *base_path; /* /api/v1/namespaces/NS/pods/POD/log?container=C */

	pthread_t thread;
	atomic_bool cancel;
	atomic_bool answered;   /* the server answered: bytes, a response, the probe */
	atomic_bool caught_up;  /* the follow request's log so far has all arrived */
	int64_t started_ms;     /* CLOCK_MONOTONIC, when the stream started */
	int probe_after_ms;     /* key.probe_after_ms; 0: no probe */
	pthread_t probe_thread; /* running when has_probe */
	bool has_probe;
	pthread_mutex_t wait_lock; /* backoff sleeps, woken by release */
	pthread_cond_t wait_cond;

	pthread_mutex_t lock;
	struct logbuf buf;
	bool done;
	int64_t mtime;
	char status[512];
	enum logstream_health health;

	pthread_mutex_t cb_lock;
	struct ls_callback *cbs;

	/* the thread's own */
	struct loglines lines;
	struct strbuf staged; /* text of one chunk, appended under one lock */
	bool got_data;        /* the current request delivered text */
	struct logts request_wall; /* when the current follow request began; 0: none */
	/* A terminated instance is read once, without timestamps (raw): nothing to
	 * resume with sinceTime, and the bytes come as they are. After a break the
	 * request starts over and the bytes already kept are skipped. */
	bool raw;
	uint64_t raw_skip;    /* bytes of this request's answer already kept */
};

struct logstream_registry {
	pthread_mutex_t lock;
	struct logstream *head;
};

int logstream_registry_new(struct logstream_registry **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	pthread_mutex_init(&(*out)->lock, NULL);
	return 0;
}

void logstream_registry_free(struct logstream_registry *reg)
{
	if (!reg)
		return;
	pthread_mutex_destroy(&reg->lock);
	free(reg);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static bool same_key(const struct logstream *ls, struct k8s_client *c,
                     const struct logstream_key *k)
{
	return ls->client == c && ls->previous == k->previous &&
	       strcmp(ls->ns, k->namespace) == 0 && strcmp(ls->pod, k->pod) == 0 &&
	       strcmp(ls->container, k->container) == 0 &&
	       strcmp(ls->container_id, str_or_empty(k->container_id)) == 0;
}

static void set_status(struct logstream *ls, enum logstream_health h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_status(struct logstream *ls, enum logstream_health h, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&ls->lock);
	ls->health = h;
	va_start(ap, fmt);
	if (vsnprintf(ls->status, sizeof(ls->status), fmt, ap) < 0)
		ls->status[0] = '\0';
	va_end(ap);
	pthread_mutex_unlock(&ls->lock);
}

static void notify(struct logstream *ls, uint64_t size)
{
	pthread_mutex_lock(&ls->cb_lock);
	for (struct ls_callback *cb = ls->cbs; cb; cb = cb->next)
		if (cb->fn)
			cb->fn(cb->arg, size);
	pthread_mutex_unlock(&ls->cb_lock);
}

/* The server answered: readers waiting to tell an empty log from a silent server
 * learn it once. */
static void mark_answered(struct logstream *ls)
{
	if (atomic_exchange(&ls->answered, true))
		return;
	notify(ls, logstream_size(ls));
}

static void finish(struct logstream *ls)
{
	uint64_t size;

	pthread_mutex_lock(&ls->lock);
	ls->done = true;
	size = ls->buf.size;
	pthread_mutex_unlock(&ls->lock);
	notify(ls, size); /* readers learn that nothing more comes */
}

/* ---- bytes in ---- */

static int stage(void *arg, const char *data, size_t len)
{
	struct logstream *ls = arg;

	strbuf_append(&ls->staged, data, len);
	return strbuf_ok(&ls->staged) ? 0 : -ENOMEM;
}

/* Appends what one chunk produced and tells the readers, once per chunk. */
static void commit(struct logstream *ls)
{
	uint64_t size;
	int rc;

	if (!ls->staged.len)
		return;
	pthread_mutex_lock(&ls->lock);
	rc = logbuf_append(&ls->buf, ls->staged.buf, ls->staged.len);
	size = ls->buf.size;
	ls->mtime = (int64_t)time(NULL);
	if (rc && !ls->status[0])
		snprintf(ls->status, sizeof(ls->status),
		         "older lines are lost: cannot keep them in $TMPDIR: %s", strerror(-rc));
	pthread_mutex_unlock(&ls->lock);
	strbuf_reset(&ls->staged);
	notify(ls, size);
}

static int on_data(void *arg, const char *data, size_t len)
{
	struct logstream *ls = arg;
	int rc;

	if (ls->raw) {
		size_t skip = ls->raw_skip < len ? (size_t)ls->raw_skip : len;

		ls->raw_skip -= skip;
		rc = len > skip ? stage(ls, data + skip, len - skip) : 0;
	} else {
		rc = loglines_feed(&ls->lines, data, len, stage, ls);
		/* A line the container wrote after the request began: the log as it
		 * was has come; what follows is written as it happens. */
		if (ls->request_wall.sec && ls->lines.have_last &&
		    loglines_ts_cmp(&ls->lines.last, &ls->request_wall) >= 0)
			atomic_store(&ls->caught_up, true);
	}

	if (!ls->got_data) {
		ls->got_data = true;
		set_status(ls, LOGSTREAM_OK, "%s", ""); /* streaming again */
	}
	commit(ls);
	mark_answered(ls);
	return rc != 0;
}

/* ---- requests ---- */

static int build_base_path(struct logstream *ls, struct k8s_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = urlpath_resource(&sb, "/api/v1", ls->ns, "pods", ls->pod, "log", err);

	if (rc == 0 && !urlpath_name_ok(ls->container))
		rc = k8s_error_set(err, EINVAL, "invalid container name \"%s\"", ls->container);
	if (rc == 0) {
		urlpath_add_query(&sb, "container", ls->container);
		if (!ls->raw)
			urlpath_add_query(&sb, "timestamps", "true");
		if (!strbuf_ok(&sb))
			rc = k8s_error_set(err, ENOMEM, "out of memory");
	}
	if (rc == 0)
		ls->base_path = strbuf_take(&sb);
	strbuf_free(&sb);
	return rc;
}

static int run_request(struct logstream *ls, enum ls_mode mode, int *http_status,
                       struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	/* kube-apiserver answers 406 to "text/plain" for pods/log (it offers only its
	 * serializers); this is what kubectl sends, and the body is the log as is. */
	struct k8s_stream_request req = {NULL, "application/json, */*", on_data, ls, &ls->cancel,
	                                 http_status};
	const char *since = ls->raw ? NULL : loglines_since(&ls->lines);
	int rc;

	if (ls->raw) {
		pthread_mutex_lock(&ls->lock);
		ls->raw_skip = ls->buf.size;
		pthread_mutex_unlock(&ls->lock);
	}

	strbuf_puts(&path, ls->base_path);
	ls->request_wall = (struct logts){0, 0};
	if (mode == MODE_FOLLOW) {
		struct timespec now;

		urlpath_add_query(&path, "follow", "true");
		clock_gettime(CLOCK_REALTIME, &now);
		ls->request_wall = (struct logts){(int64_t)now.tv_sec, (int32_t)now.tv_nsec};
		atomic_store(&ls->caught_up, false);
	}
	if (mode == MODE_PREVIOUS)
		urlpath_add_query(&path, "previous", "true");
	if (since)
		urlpath_add_query(&path, "sinceTime", since);
	if (!strbuf_ok(&path)) {
		strbuf_free(&path);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	req.path = strbuf_str(&path);
	ls->got_data = false;
	rc = k8s_stream_run(ls->client, &req, err);
	strbuf_free(&path);
	return rc;
}

static const json_t *container_status(const json_t *pod, const char *name)
{
	static const char *const LISTS[] = {"containerStatuses", "initContainerStatuses",
	                                    "ephemeralContainerStatuses"};
	const json_t *status = json_object_get(pod, "status");

	for (size_t i = 0; i < sizeof(LISTS) / sizeof(LISTS[0]); i++) {
		const json_t *cs;
		size_t j;

		json_array_foreach(json_object_get(status, LISTS[i]), j, cs)
		{
			const char *n = json_string_value(json_object_get(cs, "name"));

			if (n && strcmp(n, name) == 0)
				return cs;
		}
	}
	return NULL;
}

/* Is our container instance still running? */
static enum instance_state instance_check(struct logstream *ls)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_error err;
	json_t *pod = NULL;
	const json_t *cs, *state;
	const char *id;
	enum instance_state st = INSTANCE_UNKNOWN;
	int rc = urlpath_resource(&path, "/api/v1", ls->ns, "pods", ls->pod, NULL, &err);

	if (rc == 0)
		rc = k8s_stream_get_json(ls->client, strbuf_str(&path), &ls->cancel, POD_BODY_MAX,
		                         &pod, &err);
	strbuf_free(&path);
	if (rc == -ENOENT)
		return INSTANCE_GONE;
	if (rc)
		return INSTANCE_UNKNOWN;
	cs = container_status(pod, ls->container);
	if (!cs) {
		st = INSTANCE_GONE;
		goto out;
	}
	id = json_string_value(json_object_get(cs, "containerID"));
	state = json_object_get(cs, "state");
	if (*ls->container_id && id && *id && strcmp(id, ls->container_id) != 0)
		st = INSTANCE_RESTARTED;
	else if (json_object_get(state, "terminated"))
		st = INSTANCE_TERMINATED;
	else
		st = INSTANCE_RUNNING;
out:
	json_decref(pod);
	return st;
}

/* The API's answers that mean "no log (yet)" rather than failure. */
static bool not_started_yet(const struct k8s_error *err)
{
	return err->code == 400 && (strstr(err->message, "is waiting to start") ||
	                            strstr(err->message, "ContainerCreating") ||
	                            strstr(err->message, "PodInitializing"));
}

static bool wait_ms(struct logstream *ls, int64_t ms)
{
	struct timespec until = time_realtime_after_ms(ms);

	pthread_mutex_lock(&ls->wait_lock);
	while (!atomic_load(&ls->cancel))
		if (pthread_cond_timedwait(&ls->wait_cond, &ls->wait_lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&ls->wait_lock);
	return !atomic_load(&ls->cancel);
}

static int64_t backoff_ms(int failures)
{
	int64_t d = LOGSTREAM_BACKOFF_INITIAL_MS;

	for (int i = 1; i < failures && d < LOGSTREAM_BACKOFF_MAX_MS; i++)
		d *= 2;
	return d < LOGSTREAM_BACKOFF_MAX_MS ? d : LOGSTREAM_BACKOFF_MAX_MS;
}

/* After a follow stream ended or broke: how to go on, or -1 when done. */
static int next_mode(struct logstream *ls, bool broke)
{
	switch (instance_check(ls)) {
	case INSTANCE_RUNNING:
	case INSTANCE_UNKNOWN:
		return MODE_FOLLOW;
	case INSTANCE_TERMINATED:
		/* a clean end means the kubelet drained the log; after a break read the rest */
		return broke ? MODE_ONCE : -1;
	case INSTANCE_RESTARTED:
		return broke ? MODE_PREVIOUS : -1;
	case INSTANCE_GONE:
		if (broke)
			set_status(ls, LOGSTREAM_FAILED,
			           "the pod is gone; the log ends where the connection broke");
		return -1;
	}
	return -1;
}

static void *stream_main(void *arg)
{
	struct logstream *ls = arg;
	int mode = ls->previous ? MODE_PREVIOUS : ls->finished ? MODE_ONCE : MODE_FOLLOW;
	int failures = 0;

	while (!atomic_load(&ls->cancel)) {
		struct k8s_error err;
		int http_status = 0;
		int rc;

		k8s_error_clear(&err);
		rc = run_request(ls, (enum ls_mode)mode, &http_status, &err);
		if (atomic_load(&ls->cancel))
			break;
		if (http_status)
			mark_answered(ls);
		if (ls->got_data)
			failures = 0;
		if (rc == 0 && http_status == 204) {
			set_status(ls, LOGSTREAM_OK, "pod %s is not scheduled on a node yet: no log",
			           ls->pod);
			break;
		}
		if (rc == 0 && mode != MODE_FOLLOW) {
			loglines_finish(&ls->lines, stage, ls);
			commit(ls);
			break;
		}
		if (rc != 0 && err.code >= 400 && err.code < 500 && err.code != 429) {
			/* the answer will not change by asking again */
			if (not_started_yet(&err))
				set_status(ls, LOGSTREAM_OK, "%s", err.message);
			else if (err.code == 404)
				set_status(ls, LOGSTREAM_FAILED, "the pod is gone: %s", err.message);
			else
				set_status(ls, LOGSTREAM_FAILED, "%s", err.message);
			break;
		}
		if (rc != 0) {
			failures++;
			set_status(ls, LOGSTREAM_RETRYING, "reconnecting: %s", err.message);
			if (mode != MODE_FOLLOW && failures >= LOGSTREAM_ONCE_ATTEMPTS) {
				set_status(ls, LOGSTREAM_FAILED, "the log is incomplete: %s",
				           err.message);
				break;
			}
			if (!wait_ms(ls, backoff_ms(failures)))
				break;
		}
		if (mode == MODE_FOLLOW) {
			int next = next_mode(ls, rc != 0);

			if (next < 0) {
				loglines_finish(&ls->lines, stage, ls);
				commit(ls);
				break;
			}
			if (rc == 0 && !ls->got_data) {
				/* a follow stream that ends at once with nothing: do not spin */
				failures++;
				if (!wait_ms(ls, backoff_ms(failures)))
					break;
			}
			mode = next;
		}
		loglines_resume(&ls->lines);
	}
	finish(ls);
	return NULL;
}

static int probe_data(void *arg, const char *data, size_t len)
{
	(void)arg;
	(void)data;
	(void)len;
	return 0;  /* the answer matters, not its byte */
}

/* The probe (see the top): once, when the follow has had no answer for probe_after_ms. */
static void *probe_main(void *arg)
{
	struct logstream *ls = arg;
	struct strbuf path = STRBUF_INIT;
	struct k8s_stream_request req = {NULL, "application/json, */*", probe_data, ls,
	                                 &ls->cancel, NULL};
	struct k8s_error err;

	if (!wait_ms(ls, ls->probe_after_ms) || atomic_load(&ls->answered))
		return NULL;
	strbuf_puts(&path, ls->base_path);
	urlpath_add_query(&path, "limitBytes", "1");
	if (!strbuf_ok(&path))
		goto out;
	req.path = strbuf_str(&path);
	k8s_error_clear(&err);
	if (k8s_stream_run(ls->client, &req, &err) == 0)
		mark_answered(ls);
out:
	strbuf_free(&path);
	return NULL;
}

/* ---- the public face ---- */

static void logstream_destroy(struct logstream *ls)
{
	struct ls_callback *cb, *next;

	logbuf_free(&ls->buf);
	loglines_free(&ls->lines);
	strbuf_free(&ls->staged);
	for (cb = ls->cbs; cb; cb = next) {
		next = cb->next;
		free(cb);
	}
	pthread_mutex_destroy(&ls->lock);
	pthread_mutex_destroy(&ls->cb_lock);
	pthread_mutex_destroy(&ls->wait_lock);
	pthread_cond_destroy(&ls->wait_cond);
	free(ls->ns);
	free(ls->pod);
	free(ls->container);
	free(ls->container_id);
	free(ls->base_path);
	free(ls);
}

static struct logstream *logstream_new(struct k8s_client *c, const struct logstream_key *k,
                                       struct k8s_error *err)
{
	struct logstream *ls = calloc(1, sizeof(*ls));

	if (!ls) {
		k8s_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	ls->client = c;
	ls->ns = strdup(k->namespace);
	ls->pod = strdup(k->pod);
	ls->container = strdup(k->container);
	ls->container_id = strdup(str_or_empty(k->container_id));
	ls->previous = k->previous;
	ls->finished = k->finished;
	ls->raw = k->previous || k->finished;
	ls->mtime = (int64_t)time(NULL);
	ls->started_ms = time_monotonic_ms();
	/* a terminated instance is read without follow: answered at once, or it stalls */
	ls->probe_after_ms = ls->raw ? 0 : k->probe_after_ms;
	atomic_init(&ls->cancel, false);
	atomic_init(&ls->answered, false);
	atomic_init(&ls->caught_up, false);
	pthread_mutex_init(&ls->lock, NULL);
	pthread_mutex_init(&ls->cb_lock, NULL);
	pthread_mutex_init(&ls->wait_lock, NULL);
	pthread_cond_init(&ls->wait_cond, NULL);
	loglines_init(&ls->lines);
	if (!ls->ns || !ls->pod || !ls->container || !ls->container_id ||
	    logbuf_init(&ls->buf, LOGSTREAM_MEMORY_MAX) != 0) {
		k8s_error_set(err, ENOMEM, "out of memory");
		logstream_destroy(ls);
		return NULL;
	}
	if (build_base_path(ls, err) != 0) {
		logstream_destroy(ls);
		return NULL;
	}
	return ls;
}

int logstream_open(struct logstream_registry *reg, struct k8s_client *c,
                   const struct logstream_key *key, logstream_append_fn on_append, void *arg,
                   struct logstream **out, struct k8s_error *err)
{
	struct ls_callback *cb = calloc(1, sizeof(*cb));
	struct logstream *ls;

	*out = NULL;
	if (!cb)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if (!key->namespace || !key->pod || !key->container) {
		free(cb);
		return k8s_error_set(err, EINVAL, "a log needs a namespace, a pod and a container");
	}
	cb->fn = on_append;
	cb->arg = arg;
	pthread_mutex_lock(&reg->lock);
	for (ls = reg->head; ls; ls = ls->next)
		if (same_key(ls, c, key))
			break;
	if (!ls) {
		ls = logstream_new(c, key, err);
		if (!ls) {
			pthread_mutex_unlock(&reg->lock);
			free(cb);
			return -err->err;
		}
		ls->reg = reg;
		if (pthread_create(&ls->thread, NULL, stream_main, ls) != 0) {
			pthread_mutex_unlock(&reg->lock);
			logstream_destroy(ls);
			free(cb);
			return k8s_error_set(err, EAGAIN, "cannot start a thread for the log");
		}
		/* without its probe a silent log reads ETIMEDOUT, as a slow server's would */
		ls->has_probe = ls->probe_after_ms > 0 &&
		                pthread_create(&ls->probe_thread, NULL, probe_main, ls) == 0;
		ls->next = reg->head;
		reg->head = ls;
	}
	ls->refs++;
	pthread_mutex_lock(&ls->cb_lock);
	cb->next = ls->cbs;
	ls->cbs = cb;
	pthread_mutex_unlock(&ls->cb_lock);
	pthread_mutex_unlock(&reg->lock);
	*out = ls;
	return 0;
}

void logstream_release(struct logstream *ls, logstream_append_fn on_append, void *arg)
{
	struct ls_callback **pp, *cb = NULL;
	struct logstream **rp;
	bool last;

	if (!ls)
		return;
	pthread_mutex_lock(&ls->cb_lock);
	for (pp = &ls->cbs; *pp; pp = &(*pp)->next) {
		if ((*pp)->fn == on_append && (*pp)->arg == arg) {
			cb = *pp;
			*pp = cb->next;
			break;
		}
	}
	pthread_mutex_unlock(&ls->cb_lock);
	free(cb);

	if (!ls->reg) {
		logstream_destroy(ls);   /* from a file: one reference, no thread */
		return;
	}
	pthread_mutex_lock(&ls->reg->lock);
	assert(ls->refs > 0);
	last = --ls->refs == 0;
	if (last)
		for (rp = &ls->reg->head; *rp; rp = &(*rp)->next)
			if (*rp == ls) {
				*rp = ls->next;
				break;
			}
	pthread_mutex_unlock(&ls->reg->lock);
	if (!last)
		return;
	atomic_store(&ls->cancel, true);
	pthread_mutex_lock(&ls->wait_lock);
	pthread_cond_broadcast(&ls->wait_cond);
	pthread_mutex_unlock(&ls->wait_lock);
	pthread_join(ls->thread, NULL);
	if (ls->has_probe)
		pthread_join(ls->probe_thread, NULL);
	logstream_destroy(ls);
}

int logstream_from_file(int fd, uint64_t size, int64_t mtime, struct logstream **out)
{
	struct logstream *ls = calloc(1, sizeof(*ls));

	*out = NULL;
	if (!ls)
		return -ENOMEM;
	pthread_mutex_init(&ls->lock, NULL);
	pthread_mutex_init(&ls->cb_lock, NULL);
	pthread_mutex_init(&ls->wait_lock, NULL);
	pthread_cond_init(&ls->wait_cond, NULL);
	loglines_init(&ls->lines);
	logbuf_init_file(&ls->buf, fd, size);
	ls->finished = true;
	ls->raw = true;
	ls->done = true;
	ls->mtime = mtime;
	ls->health = LOGSTREAM_OK;
	atomic_init(&ls->cancel, false);
	atomic_init(&ls->answered, true);   /* the whole log is on disk */
	atomic_init(&ls->caught_up, false);
	*out = ls;
	return 0;
}

uint64_t logstream_size(struct logstream *ls)
{
	uint64_t n;

	pthread_mutex_lock(&ls->lock);
	n = ls->buf.size;
	pthread_mutex_unlock(&ls->lock);
	return n;
}

int64_t logstream_mtime(struct logstream *ls)
{
	int64_t t;

	pthread_mutex_lock(&ls->lock);
	t = ls->mtime;
	pthread_mutex_unlock(&ls->lock);
	return t;
}

ssize_t logstream_read(struct logstream *ls, char *buf, size_t size, uint64_t off)
{
	ssize_t n;

	pthread_mutex_lock(&ls->lock);
	n = logbuf_read(&ls->buf, buf, size, off);
	pthread_mutex_unlock(&ls->lock);
	return n;
}

bool logstream_done(struct logstream *ls)
{
	bool d;

	pthread_mutex_lock(&ls->lock);
	d = ls->done;
	pthread_mutex_unlock(&ls->lock);
	return d;
}

enum logstream_health logstream_health(struct logstream *ls)
{
	enum logstream_health h;

	pthread_mutex_lock(&ls->lock);
	h = ls->health;
	pthread_mutex_unlock(&ls->lock);
	return h;
}

int64_t logstream_unanswered_ms(struct logstream *ls)
{
	int64_t waited;

	if (atomic_load(&ls->answered))
		return 0;
	waited = time_monotonic_ms() - ls->started_ms;
	return waited > 0 ? waited : 1;
}

void logstream_status(struct logstream *ls, char *buf, size_t size)
{
	if (!size)
		return;
	pthread_mutex_lock(&ls->lock);
	snprintf(buf, size, "%s", ls->status);
	pthread_mutex_unlock(&ls->lock);
}

bool logstream_caught_up(struct logstream *ls)
{
	return atomic_load(&ls->caught_up);
}
