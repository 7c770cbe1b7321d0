/*
 * logfollow: follows one container log through k8s/logs/logstream.c and writes it to
 * stdout as it grows, for tests/integration/test_k8s_logstream.py and for
 * measuring. Ends when the stream is done.
 *
 *   logfollow [OPTION=VALUE...] POD CONTAINER
 *
 * Options: kubeconfig= context= namespace= (as the daemon's); id=CONTAINER_ID
 * (default: the pod's current one, and finished=1 when it has terminated, as the
 * tree decides); previous=1; finished=1; readers=N (N references to the one shared
 * stream, each reading the whole log: they must agree); max_seconds=S (give up).
 *
 * At the end stderr gets one line "bytes=N seconds=S peak_rss_kb=K notifications=N
 * notified_bytes=B asan=0|1 status=...": how many times on_append was called and the
 * size the last call reported (the loop below also wakes every second without one,
 * so the output alone would not show a callback that is never called), and whether
 * this is an AddressSanitizer build (its shadow memory and quarantine make RSS
 * meaningless). Exits 1 when the stream could not be opened or the readers disagree.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/logs/logstream.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"

#define READ_CHUNK  (256u << 10)
#define READERS_MAX 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned long notifications;
static uint64_t notified_bytes;

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#else
#define ASAN_BUILD 0
#endif

static void on_append(void *arg, uint64_t size)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	notifications++;
	notified_bytes = size;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* The container's current ID and whether it has terminated, from the pod. */
static int current_instance(struct k8s_client *c, const char *ns, const char *pod,
                            const char *container, char **id, bool *finished, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	json_t *obj = NULL, *cs;
	size_t i;
	int rc = urlpath_resource(&path, "/api/v1", ns, "pods", pod, NULL, err);

	*id = NULL;
	*finished = false;
	if (rc == 0)
		rc = k8s_get_json(c, strbuf_str(&path), &obj, err);
	strbuf_free(&path);
	if (rc)
		return rc;
	json_array_foreach(json_object_get(json_object_get(obj, "status"), "containerStatuses"), i,
	                   cs)
	{
		const char *n = json_string_value(json_object_get(cs, "name"));
		const char *cid = json_string_value(json_object_get(cs, "containerID"));

		if (!n || strcmp(n, container) != 0)
			continue;
		*id = strdup(cid ? cid : "");
		*finished = json_object_get(json_object_get(cs, "state"), "terminated") != NULL;
	}
	json_decref(obj);
	if (!*id)
		*id = strdup("");
	return 0;
}

int main(int argc, char **argv)
{
	struct k8s_config_options copts = {0};
	struct k8s_config *cfg = NULL;
	struct k8s_client *client = NULL;
	struct logstream *ls[READERS_MAX] = {0};
	struct logstream_registry *reg = NULL;
	struct logstream_key key = {0};
	struct k8s_error err;
	const char *id_opt = NULL;
	char *id = NULL, *buf = NULL, status[512];
	bool previous = false, finished = false, finished_set = false;
	int readers = 1, status_code = 1, rc, i = 1;
	double max_seconds = 0, t0;
	uint64_t off[READERS_MAX] = {0};

	for (; i < argc && strchr(argv[i], '='); i++) {
		const char *a = argv[i], *v = strchr(a, '=') + 1;

		if (strncmp(a, "kubeconfig=", 11) == 0)
			copts.kubeconfig = v;
		else if (strncmp(a, "context=", 8) == 0)
			copts.context = v;
		else if (strncmp(a, "namespace=", 10) == 0)
			copts.namespace = v;
		else if (strncmp(a, "id=", 3) == 0)
			id_opt = v;
		else if (strncmp(a, "previous=", 9) == 0)
			previous = strcmp(v, "1") == 0;
		else if (strncmp(a, "finished=", 9) == 0)
			finished = finished_set = strcmp(v, "1") == 0;
		else if (strncmp(a, "readers=", 8) == 0)
			readers = atoi(v);
		else if (strncmp(a, "max_seconds=", 12) == 0)
			max_seconds = atof(v);
		else
			break;
	}
	if (i != argc - 2 || readers < 1 || readers > READERS_MAX) {
		fprintf(stderr,
		        "usage: logfollow [kubeconfig=P] [context=C] [namespace=N] [id=ID] "
		        "[previous=1] [finished=1] [readers=N] [max_seconds=S] POD CONTAINER\n");
		return 2;
	}
	k8s_error_clear(&err);
	if ((rc = kubeconfig_load(&copts, &cfg, &err)) != 0 ||
	    (rc = k8s_client_new(cfg, NULL, &client, &err)) != 0)
		goto fail;
	if (id_opt) {
		id = strdup(id_opt);
	} else {
		bool term;

		if ((rc = current_instance(client, cfg->namespace, argv[i], argv[i + 1], &id, &term,
		                           &err)) != 0)
			goto fail;
		if (!finished_set)
			finished = term;
	}
	key = (struct logstream_key){cfg->namespace, argv[i], argv[i + 1], id, previous, finished, 0};
	t0 = now_s();
	if ((rc = logstream_registry_new(&reg)) != 0) {
		k8s_error_set(&err, -rc, "out of memory");
		goto fail;
	}
	for (int r = 0; r < readers; r++)
		if ((rc = logstream_open(reg, client, &key, on_append, &ls[r], &ls[r], &err)) != 0)
			goto fail;
	buf = malloc(READ_CHUNK);
	status_code = 0;
	for (;;) {
		unsigned long seen;
		bool done;

		pthread_mutex_lock(&lock);
		seen = notifications;
		pthread_mutex_unlock(&lock);
		done = logstream_done(ls[0]);
		/* reader 0 writes stdout; the others only check they read the same bytes */
		for (int r = 0; r < readers; r++) {
			ssize_t n;

			while ((n = logstream_read(ls[r], buf, READ_CHUNK, off[r])) > 0) {
				if (r == 0 && fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
					status_code = 1;
				off[r] += (uint64_t)n;
			}
			if (n < 0) {
				fprintf(stderr, "read at %llu: %s\n", (unsigned long long)off[r],
				        strerror((int)-n));
				status_code = 1;
				done = true;
			}
		}
		fflush(stdout);
		if (done)
			break;
		if (max_seconds > 0 && now_s() - t0 > max_seconds) {
			fprintf(stderr, "gave up after %.0f s\n", max_seconds);
			status_code = 1;
			break;
		}
		pthread_mutex_lock(&lock);
		if (notifications == seen) {
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			pthread_cond_timedwait(&cond, &lock, &until);
		}
		pthread_mutex_unlock(&lock);
	}
	for (int r = 1; r < readers; r++)
		if (off[r] != off[0]) {
			fprintf(stderr, "reader %d read %llu bytes, reader 0 %llu\n", r,
			        (unsigned long long)off[r], (unsigned long long)off[0]);
			status_code = 1;
		}
	logstream_status(ls[0], status, sizeof(status));
	pthread_mutex_lock(&lock);
	fprintf(stderr,
	        "bytes=%llu seconds=%.3f peak_rss_kb=%ld notifications=%lu notified_bytes=%llu "
	        "asan=%d status=%s\n",
	        (unsigned long long)off[0], now_s() - t0, peak_rss_kb(), notifications,
	        (unsigned long long)notified_bytes, ASAN_BUILD, status);
	pthread_mutex_unlock(&lock);
	goto out;
fail:
	fprintf(stderr, "error: %s: %s\n", strerrorname_np(-rc) ? strerrorname_np(-rc) : "?",
	        err.message);
	status_code = 1;
out:
	for (int r = 0; r < readers; r++)
		logstream_release(ls[r], on_append, &ls[r]);
	logstream_registry_free(reg);
	free(buf);
	free(id);
	k8s_client_free(client);
	kubeconfig_free(cfg);
	return status_code;
}
