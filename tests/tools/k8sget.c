/*
 * k8sget: drives the k8s/ client from the command line, for the integration
 * tests (tests/integration/test_k8s_client.py) and for trying a kubeconfig by
 * hand. Loads the kubeconfig with the daemon's options and does one thing:
 *
 *   k8sget [OPTION=VALUE...] config
 *   k8sget [OPTION=VALUE...] get PATH
 *   k8sget [OPTION=VALUE...] getobj APIVERSION KIND NAME
 *   k8sget [OPTION=VALUE...] create FILE.json [dry-run]
 *   k8sget [OPTION=VALUE...] delete APIVERSION KIND NAME [Background|Foreground|Orphan]
 *   k8sget [OPTION=VALUE...] stream PATH [MAX_BYTES]
 *   k8sget [OPTION=VALUE...] streams N PATH       N concurrent streams, each ended by its first
 * bytes k8sget [OPTION=VALUE...] discover
 *
 * Options: kubeconfig= context= namespace= (as the daemon's), timeout= connect_timeout=
 * idle_timeout= token_reread= exec_timeout= (ms), repeat=N interval=MS (the command
 * again in the same process: cached credentials), stats=1 (counters on stderr at
 * the end), latency=1 (each request's time on stderr).
 *
 * Prints the body on stdout. An error prints "error: ENAME: message" on stderr and
 * exits 1. Never prints a secret: `config` names the kind of credential only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "k8s/api/api.h"
#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/api/discovery.h"
#include "k8s/objects/kinds.h"
#include "k8s/base/timefmt.h"

struct options {
	struct k8s_config_options cfg;
	struct k8s_client_options client;
	int repeat, interval_ms;
	bool stats, latency;
};

static int fail(const struct k8s_error *err, int rc)
{
	const char *name = strerrorname_np(-rc);

	fprintf(stderr, "error: %s: %s\n", name ? name : "?", err->message);
	return 1;
}

static void print_config(const struct k8s_config *cfg)
{
	const char *auth = cfg->token             ? "token"
	                   : cfg->token_file      ? "tokenFile"
	                   : cfg->exec            ? "exec"
	                   : cfg->username        ? "basic"
	                   : cfg->client_cert_pem ? "client-certificate"
	                                          : "none";

	printf("source=%s\ncontext=%s\ncluster=%s\nuser=%s\nnamespace=%s\nserver=%s\n", cfg->source,
	       cfg->context, cfg->cluster, cfg->user, cfg->namespace, cfg->server);
	printf("tls-server-name=%s\ninsecure=%s\nca=%s\nclient-certificate=%s\nauth=%s\n",
	       cfg->tls_server_name ? cfg->tls_server_name : "",
	       cfg->insecure_skip_tls_verify ? "true" : "false", cfg->ca_pem ? "yes" : "no",
	       cfg->client_cert_pem ? "yes" : "no", auth);
}

struct stream_state {
	size_t got, max;
	pthread_mutex_t *out_lock;
};

static int print_data(void *arg, const char *data, size_t len)
{
	struct stream_state *s = arg;

	if (s->out_lock)
		pthread_mutex_lock(s->out_lock);
	fwrite(data, 1, len, stdout);
	fflush(stdout);
	if (s->out_lock)
		pthread_mutex_unlock(s->out_lock);
	s->got += len;
	return s->max && s->got >= s->max;
}

struct parallel_stream {
	struct k8s_client *client;
	const char *path;
	pthread_mutex_t *out_lock;
	int rc;
	struct k8s_error err;
};

static void *parallel_main(void *arg)
{
	struct parallel_stream *p = arg;
	struct stream_state st = {0, 1, p->out_lock};
	struct k8s_stream_request req = {p->path, NULL, print_data, &st, NULL, NULL};

	p->rc = k8s_stream_run(p->client, &req, &p->err);
	if (p->rc == -ECANCELED && st.got) /* ended by its first bytes, as asked */
		p->rc = 0;
	return NULL;
}

static int run_streams(struct k8s_client *c, int n, const char *path, struct k8s_error *err)
{
	struct parallel_stream *ps = calloc((size_t)n, sizeof(*ps));
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
	int rc = 0;

	if (!ps || !t) {
		free(ps);
		free(t);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		ps[i] = (struct parallel_stream){c, path, &out_lock, 0, {0}};
		pthread_create(&t[i], NULL, parallel_main, &ps[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (ps[i].rc && !rc) {
			rc = ps[i].rc;
			*err = ps[i].err;
		}
	}
	free(ps);
	free(t);
	return rc;
}

static enum k8s_propagation propagation(const char *s)
{
	if (s && strcmp(s, "Foreground") == 0)
		return K8S_PROPAGATE_FOREGROUND;
	if (s && strcmp(s, "Orphan") == 0)
		return K8S_PROPAGATE_ORPHAN;
	return K8S_PROPAGATE_BACKGROUND;
}

static int run_once(struct k8s_client *c, const struct k8s_config *cfg, int argc, char **argv,
                    struct k8s_error *err)
{
	const char *cmd = argv[0];
	struct k8s_resource res;
	json_t *obj = NULL;
	int rc;

	if (strcmp(cmd, "get") == 0 && argc >= 2) {
		struct k8s_response r;

		rc = k8s_request(c, "GET", argv[1], NULL, NULL, &r, err);
		if (!rc) {
			fwrite(r.body, 1, r.len, stdout);
			if (r.len && r.body[r.len - 1] != '\n')
				putchar('\n');
		}
		k8s_response_free(&r);
		return rc;
	}
	if (strcmp(cmd, "getobj") == 0 && argc >= 4) {
		rc = k8s_resource_for(argv[1], argv[2], &res, err);
		if (!rc)
			rc = k8s_get(c, &res, cfg->namespace, argv[3], &obj, err);
		goto print;
	}
	if (strcmp(cmd, "create") == 0 && argc >= 2) {
		json_error_t jerr;
		json_t *in = json_load_file(argv[1], 0, &jerr);

		if (!in)
			return k8s_error_set(err, EINVAL, "%s:%d:%d: %s", argv[1], jerr.line,
			                     jerr.column, jerr.text);
		rc = k8s_create(c, cfg->namespace, in, argc >= 3 && strcmp(argv[2], "dry-run") == 0,
		                &obj, err);
		json_decref(in);
		goto print;
	}
	if (strcmp(cmd, "delete") == 0 && argc >= 4) {
		rc = k8s_resource_for(argv[1], argv[2], &res, err);
		if (!rc)
			rc = k8s_delete(c, &res, cfg->namespace, argv[3], NULL,
			                propagation(argc >= 5 ? argv[4] : NULL), err);
		if (!rc)
			printf("deleted\n");
		return rc;
	}
	if (strcmp(cmd, "stream") == 0 && argc >= 2) {
		struct stream_state st = {0, argc >= 3 ? strtoul(argv[2], NULL, 10) : 0, NULL};
		int status = 0;
		struct k8s_stream_request req = {argv[1], NULL, print_data, &st, NULL, &status};

		rc = k8s_stream_run(c, &req, err);
		if (rc == -ECANCELED && st.max && st.got >= st.max)
			rc = 0;
		fprintf(stderr, "http_status=%d\n", status);
		return rc;
	}
	if (strcmp(cmd, "streams") == 0 && argc >= 3)
		return run_streams(c, atoi(argv[1]), argv[2], err);
	if (strcmp(cmd, "discover") == 0) {
		bool served[JOB_KIND_COUNT];

		rc = kinds_discover(c, served, err);
		for (int k = 0; !rc && k < JOB_KIND_COUNT; k++)
			if (served[k])
				printf("%s %s/%s\n", kinds_info(k)->plural, kinds_info(k)->group,
				       kinds_info(k)->version);
		return rc;
	}
	return k8s_error_set(err, EINVAL, "unknown command or missing arguments: %s", cmd);
print:
	if (!rc && obj) {
		char *text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (text)
			printf("%s\n", text);
		free(text);
	}
	json_decref(obj);
	return rc;
}

static int parse_option(struct options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *v = eq ? eq + 1 : NULL;
	size_t klen = eq ? (size_t)(eq - arg) : 0;

#define KEY(k) (klen == strlen(k) && strncmp(arg, k, klen) == 0)
	if (!eq)
		return 0;
	if (KEY("kubeconfig"))
		o->cfg.kubeconfig = v;
	else if (KEY("context"))
		o->cfg.context = v;
	else if (KEY("namespace"))
		o->cfg.namespace = v;
	else if (KEY("timeout"))
		o->client.request_timeout_ms = atoi(v);
	else if (KEY("connect_timeout"))
		o->client.connect_timeout_ms = atoi(v);
	else if (KEY("idle_timeout"))
		o->client.stream_idle_timeout_ms = atoi(v);
	else if (KEY("token_reread"))
		o->client.token_file_reread_ms = atoi(v);
	else if (KEY("exec_timeout"))
		o->client.exec_timeout_ms = atoi(v);
	else if (KEY("repeat"))
		o->repeat = atoi(v);
	else if (KEY("interval"))
		o->interval_ms = atoi(v);
	else if (KEY("stats"))
		o->stats = atoi(v) != 0;
	else if (KEY("latency"))
		o->latency = atoi(v) != 0;
	else
		return 0;
#undef KEY
	return 1;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	struct k8s_config *cfg = NULL;
	struct k8s_client *c = NULL;
	struct k8s_error err = {0};
	int i = 1, rc = 0;

	o.repeat = 1;
	while (i < argc && parse_option(&o, argv[i]))
		i++;
	if (i >= argc) {
		fprintf(stderr,
		        "usage: k8sget [kubeconfig=P] [context=C] [namespace=N] [timeout=MS] "
		        "... config|get|getobj|create|delete|stream|streams|discover ARGS\n");
		return 2;
	}
	rc = kubeconfig_load(&o.cfg, &cfg, &err);
	if (rc)
		return fail(&err, rc);
	if (strcmp(argv[i], "config") == 0) {
		print_config(cfg);
		kubeconfig_free(cfg);
		return 0;
	}
	rc = k8s_client_new(cfg, &o.client, &c, &err);
	if (rc) {
		kubeconfig_free(cfg);
		return fail(&err, rc);
	}
	for (int n = 0; n < o.repeat; n++) {
		int64_t t0 = time_monotonic_ms();
		int r;

		if (n && o.interval_ms)
			usleep((useconds_t)o.interval_ms * 1000);
		t0 = time_monotonic_ms();
		r = run_once(c, cfg, argc - i, argv + i, &err);
		if (o.latency)
			fprintf(stderr, "latency_ms=%lld\n", (long long)(time_monotonic_ms() - t0));
		if (r) {
			fail(&err, r);
			rc = r;
		}
		fflush(stdout);
	}
	if (o.stats) {
		struct k8s_client_stats st;

		k8s_client_get_stats(c, &st);
		fprintf(stderr, "stats: requests=%llu connections=%llu retries=%llu http=%d\n",
		        (unsigned long long)st.requests, (unsigned long long)st.connections,
		        (unsigned long long)st.retries, st.last_http_version);
	}
	k8s_client_free(c);
	kubeconfig_free(cfg);
	return rc ? 1 : 0;
}
