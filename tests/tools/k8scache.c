/*
 * k8scache: runs the watch-fed cache (k8s/cache/cache.c) against a kubeconfig and prints
 * what it holds, for tests/integration/test_k8s_cache.py and for measuring.
 *
 *   k8scache [OPTION=VALUE...] once     sync, print {"stats":...} and {"dump":...}, exit
 *   k8scache [OPTION=VALUE...] serve    sync, print {"ready":...}, then answer stdin
 *
 * serve reads one command a line: `dump`, `health`, `stats`, `quit` (or EOF), and
 * answers each with one JSON line ({"dump": ...}, {"health": ...}, {"stats": ...}).
 * With changes=1 every change the cache reports is printed as {"change": ...} as it
 * happens. Options: kubeconfig= context= namespace= (as the daemon's), changes=1,
 * events=0 (leave events out of dumps), discover=0 (no discovery: no job kinds, and
 * start-up errors come from the cache's first lists), watch_timeout=S (every WATCH
 * asks timeoutSeconds=S, so the server ends it cleanly after S seconds).
 *
 * A start-up failure prints "error: ENAME: message" on stderr and exits 1.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "k8s/cache/cache.h"
#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/api/discovery.h"
#include "k8s/objects/kinds.h"
#include "k8s/objects/objpack.h"
#include "k8s/base/timefmt.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static bool print_changes;
static bool dump_events = true;
static bool discover = true;
static int watch_timeout_s;

static const char *const OBJECT_NAMES[] = {"job",          "pod",          "node",
                                              "service",      "event",        "pvc",
                                              "workload",     "localqueue",   "clusterqueue",
                                              "cohort",       "queueline",    "owned",
                                              "namespace"};
static const char *const CHANGE_NAMES[] = {"ADDED", "MODIFIED", "DELETED"};
static const char *const PHASES[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};

static long proc_status_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return kb;
}

static void emit(const char *key, json_t *value)
{
	json_t *wrap = json_pack("{s:o}", key, value);
	char *text = json_dumps(wrap, JSON_COMPACT);

	pthread_mutex_lock(&out_lock);
	if (text)
		printf("%s\n", text);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	free(text);
	json_decref(wrap);
}

static void on_change(void *arg, const struct cache_change *ch)
{
	(void)arg;
	if (!print_changes)
		return;
	emit("change",
	     json_pack("{s:s,s:s,s:s,s:s,s:i,s:s?,s:s?,s:s?,s:s?}", "type", CHANGE_NAMES[ch->type],
	               "object", OBJECT_NAMES[ch->object], "namespace", ch->namespace, "name",
	               ch->name, "job_kind", ch->job_kind, "owner_job", ch->owner_job,
	               "involved", ch->involved_name, "node", ch->node_name, "old_node",
	               ch->old_node_name));
}

static const char *job_status(const struct job *j)
{
	/* the newest condition that is true: enough for tests to see transitions */
	for (size_t i = j->n_conditions; i > 0; i--)
		if (j->conditions[i - 1].status)
			return j->conditions[i - 1].type;
	return "";
}

static json_t *dump_health(struct k8s_cache *c)
{
	struct cache_health h;

	cache_get_health(c, &h);
	return json_pack("{s:b,s:I,s:s}", "connected", h.connected, "since", (json_int_t)h.since,
	                 "last_error", h.last_error);
}

static json_t *dump_pods(struct k8s_cache *c)
{
	const void **objs;
	size_t n = cache_objects(c, CACHE_POD, &objs);
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct pod *p = objs[i];
		json_t *cs = json_array();

		for (size_t k = 0; k < p->n_containers; k++)
			json_array_append_new(cs, json_pack("{s:s,s:i,s:i,s:s}", "name",
			                                    p->containers[k].name, "state",
			                                    p->containers[k].state.kind, "restarts",
			                                    p->containers[k].restart_count, "id",
			                                    p->containers[k].container_id));
		json_array_append_new(
		    arr, json_pack("{s:s,s:s,s:s,s:s,s:s?,s:i,s:s,s:b,s:o}", "namespace",
		                   p->meta.namespace, "name", p->meta.name, "phase",
		                   PHASES[p->phase], "node", p->node_name, "job", p->job_name,
		                   "job_kind", p->job_kind, "rv", p->meta.resource_version,
		                   "deleting", p->meta.deleted != 0, "containers", cs));
	}
	free(objs);
	return arr;
}

static json_t *dump_jobs(struct k8s_cache *c)
{
	const void **objs;
	size_t n = cache_objects(c, CACHE_JOB, &objs);
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct job *j = objs[i];
		const struct pod **pods;
		size_t np = cache_pods_of_job(c, j, &pods);
		json_t *pn = json_array();

		for (size_t k = 0; k < np; k++)
			json_array_append_new(pn, json_string(pods[k]->meta.name));
		free(pods);
		json_array_append_new(arr,
		                      json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "namespace",
		                                j->meta.namespace, "name", j->meta.name, "type",
		                                kinds_info(j->kind)->type, "status", job_status(j),
		                                "rv", j->meta.resource_version, "pods", pn));
	}
	free(objs);
	return arr;
}

static json_t *dump_nodes(struct k8s_cache *c)
{
	const struct k8s_node **nodes;
	size_t n = cache_nodes(c, &nodes);
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct k8s_node *nd = nodes[i];
		const struct pod **pods;
		size_t np = cache_pods_on_node(c, nd->meta.name, &pods);

		free(pods);
		json_array_append_new(
		    arr, json_pack("{s:s,s:b,s:b,s:s,s:i,s:i,s:s,s:i}", "name", nd->meta.name,
		                   "ready", nd->ready, "unschedulable", nd->unschedulable, "roles",
		                   nd->roles, "gpu_capacity", nd->gpu_capacity, "gpu_allocatable",
		                   nd->gpu_allocatable, "ip", nd->internal_ip, "pods", (int)np));
	}
	free(nodes);
	return arr;
}

static json_t *dump_simple(struct k8s_cache *c, enum cache_object_type type)
{
	const void **objs;
	size_t n = cache_objects(c, type, &objs);
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct obj_meta *m = objs[i];
		json_t *o = json_pack("{s:s,s:s,s:s}", "namespace", m->namespace, "name", m->name,
		                      "rv", m->resource_version);

		if (type == CACHE_SERVICE) {
			const struct service *s = objs[i];
			const char *rel = kv_get(&s->meta.labels, "release");

			json_object_set_new(o, "type", json_string(s->type));
			json_object_set_new(o, "release", rel ? json_string(rel) : json_null());
		} else if (type == CACHE_EVENT) {
			const struct event *e = objs[i];

			json_object_set_new(o, "involved", json_string(e->involved_name));
			json_object_set_new(o, "reason", json_string(e->reason));
		}
		json_array_append_new(arr, o);
	}
	free(objs);
	return arr;
}

static json_t *dump_stats(struct k8s_cache *c, int64_t sync_ms)
{
	size_t strings, bytes;
	json_t *counts = json_object();
	struct rusage ru;
	struct mallinfo2 mi;
	json_int_t cpu_ms;

	intern_stats(&strings, &bytes);
	cache_read_lock(c);
	for (int t = 0; t <= CACHE_NAMESPACE; t++) {
		const void **objs;
		size_t n = cache_objects(c, (enum cache_object_type)t, &objs);

		free(objs);
		json_object_set_new(counts, OBJECT_NAMES[t], json_integer((json_int_t)n));
	}
	cache_read_unlock(c);
	getrusage(RUSAGE_SELF, &ru);
	cpu_ms = (json_int_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	mi = mallinfo2();
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "sync_ms", (json_int_t)sync_ms,
	                 "cpu_ms", cpu_ms, "rss_kb", (json_int_t)proc_status_kb("VmRSS"),
	                 "peak_rss_kb", (json_int_t)proc_status_kb("VmHWM"), "heap_used_kb",
	                 (json_int_t)(mi.uordblks / 1024), "intern_strings", (json_int_t)strings,
	                 "intern_bytes", (json_int_t)bytes, "counts", counts);
}

static json_t *dump_all(struct k8s_cache *c)
{
	const char **nss;
	size_t n;
	json_t *d = json_object(), *ns = json_array();

	cache_read_lock(c);
	json_object_set_new(d, "generation", json_integer((json_int_t)cache_generation(c)));
	n = cache_namespaces(c, &nss);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(ns, json_string(nss[i]));
	free(nss);
	json_object_set_new(d, "namespaces", ns);
	json_object_set_new(d, "namespace_objects", dump_simple(c, CACHE_NAMESPACE));
	json_object_set_new(d, "nodes", dump_nodes(c));
	json_object_set_new(d, "pods", dump_pods(c));
	json_object_set_new(d, "jobs", dump_jobs(c));
	json_object_set_new(d, "services", dump_simple(c, CACHE_SERVICE));
	json_object_set_new(d, "pvcs", dump_simple(c, CACHE_PVC));
	json_object_set_new(d, "workloads", dump_simple(c, CACHE_WORKLOAD));
	json_object_set_new(d, "localqueues", dump_simple(c, CACHE_LOCALQUEUE));
	json_object_set_new(d, "clusterqueues", dump_simple(c, CACHE_CLUSTERQUEUE));
	json_object_set_new(d, "owned", dump_simple(c, CACHE_OWNED));
	if (dump_events)
		json_object_set_new(d, "events", dump_simple(c, CACHE_EVENT));
	cache_read_unlock(c);
	json_object_set_new(d, "health", dump_health(c));
	return d;
}

static bool parse_option(struct k8s_config_options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq)
		return false;
	if (strncmp(arg, "kubeconfig=", 11) == 0)
		o->kubeconfig = eq + 1;
	else if (strncmp(arg, "context=", 8) == 0)
		o->context = eq + 1;
	else if (strncmp(arg, "namespace=", 10) == 0)
		o->namespace = eq + 1;
	else if (strncmp(arg, "changes=", 8) == 0)
		print_changes = strcmp(eq + 1, "1") == 0;
	else if (strncmp(arg, "discover=", 9) == 0)
		discover = strcmp(eq + 1, "0") != 0;
	else if (strncmp(arg, "events=", 7) == 0)
		dump_events = strcmp(eq + 1, "0") != 0;
	else if (strncmp(arg, "watch_timeout=", 14) == 0)
		watch_timeout_s = atoi(eq + 1);
	else
		return false;
	return true;
}

static int fail(const struct k8s_error *err, int rc)
{
	const char *name = strerrorname_np(-rc);

	fprintf(stderr, "error: %s: %s\n", name ? name : "?", err->message);
	return 1;
}

int main(int argc, char **argv)
{
	struct k8s_config_options copts = {0};
	struct k8s_config *cfg = NULL;
	struct k8s_client *client = NULL;
	struct k8s_cache *cache = NULL;
	struct cache_options opts = {0};
	struct k8s_error err;
	const char *mode;
	int64_t t0, sync_ms;
	char line[256];
	int i = 1, rc, status = 1;

	while (i < argc && parse_option(&copts, argv[i]))
		i++;
	if (i != argc - 1 || (strcmp(argv[i], "once") != 0 && strcmp(argv[i], "serve") != 0)) {
		fprintf(stderr,
		        "usage: k8scache [kubeconfig=P] [context=C] [namespace=N] "
		        "[changes=1] [events=0] [discover=0] [watch_timeout=S] once|serve\n");
		return 2;
	}
	mode = argv[i];
	k8s_error_clear(&err);
	if ((rc = kubeconfig_load(&copts, &cfg, &err)) != 0)
		return fail(&err, rc);
	if ((rc = k8s_client_new(cfg, NULL, &client, &err)) != 0) {
		status = fail(&err, rc);
		goto out;
	}
	t0 = time_monotonic_ms();
	if (discover && ((rc = kinds_discover(client, opts.served, &err)) != 0 ||
	                 (rc = kueue_discover(client, &opts.kueue, &err)) != 0)) {
		status = fail(&err, rc);
		goto out;
	}
	opts.namespace = cfg->namespace;
	opts.on_change = on_change;
	opts.watch_timeout_s = watch_timeout_s;
	if ((rc = cache_start(client, &opts, &cache, &err)) != 0) {
		status = fail(&err, rc);
		goto out;
	}
	sync_ms = time_monotonic_ms() - t0;
	if (strcmp(mode, "once") == 0) {
		emit("stats", dump_stats(cache, sync_ms));
		emit("dump", dump_all(cache));
		status = 0;
		goto out;
	}
	emit("ready", dump_stats(cache, sync_ms));
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strcmp(line, "dump") == 0)
			emit("dump", dump_all(cache));
		else if (strcmp(line, "health") == 0)
			emit("health", dump_health(cache));
		else if (strcmp(line, "stats") == 0)
			emit("stats", dump_stats(cache, sync_ms));
		else if (strcmp(line, "quit") == 0)
			break;
		else if (*line)
			emit("error", json_sprintf("unknown command \"%s\"", line));
	}
	status = 0;
out:
	t0 = time_monotonic_ms();
	cache_stop(cache);
	if (cache && getenv("K8SCACHE_STOP_MS"))
		fprintf(stderr, "stop_ms=%lld\n", (long long)(time_monotonic_ms() - t0));
	k8s_client_free(client);
	kubeconfig_free(cfg);
	return status;
}
