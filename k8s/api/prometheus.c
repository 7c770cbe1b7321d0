/*
 * One GPU query to Prometheus (prometheus.h): its Service as Arena finds it
 * (the first labelled as Arena's first label, else its second, ...: the caller
 * ranks the cache's Services with prometheus_rank), then GET
 * services/http:NAME:PORT/proxy/api/v1/query, as Arena's ProxyGet does; the query asks for both families' metric names and every pod at once
 * (and, in the same query, each GPU's highest duty cycle of the last 10 minutes),
 * so that a refresh of the whole tree costs one query however many files read it.
 */
#include "k8s/api/prometheus.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *selector;
	const char *port;
} SERVERS[] = {
	{"kubernetes.io/service-name=prometheus-admin", "9335"},
	{"kubernetes.io/service-name=prometheus-server", "9090"},
	{"kubernetes.io/name=Prometheus", "9090"},
};

int prometheus_rank(const struct service *svc, const char **port)
{
	for (size_t i = 0; i < sizeof(SERVERS) / sizeof(SERVERS[0]); i++) {
		const char *eq = strchr(SERVERS[i].selector, '=');
		char key[64];
		const char *v;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - SERVERS[i].selector),
		         SERVERS[i].selector);
		v = kv_get(&svc->meta.labels, key);
		if (v && !strcmp(v, eq + 1)) {
			*port = SERVERS[i].port;
			return (int)i;
		}
	}
	return -1;
}

static int query(struct k8s_client *c, const char *path, struct gpu_metrics *m,
                 struct k8s_error *err)
{
	json_t *answer = NULL;
	int rc = k8s_get_json(c, path, &answer, err);

	if (rc == 0)
		rc = gpu_metrics_decode(m, answer);
	else
		snprintf(m->error, sizeof(m->error), "Prometheus (%.200s) did not answer: %.250s",
		         m->source, err->message);
	json_decref(answer);
	return rc;
}

int prometheus_query_gpus(struct k8s_client *c, struct k8s_client *url_client,
                          const char *ns, const char *name, const char *port,
                          struct gpu_metrics *m)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_error err;
	int rc;

	k8s_error_clear(&err);
	if (url_client) {
		snprintf(m->source, sizeof(m->source), "%s", k8s_client_config(url_client)->server);
		strbuf_puts(&path, "/api/v1/query");
		c = url_client;
	} else {
		if (!ns) {
			snprintf(m->error, sizeof(m->error), "no Prometheus found (looked for %s)",
			         PROMETHEUS_LOOKED_FOR);
			return -ENOENT;
		}
		snprintf(m->source, sizeof(m->source), "service %.63s/%.150s:%s", ns, name, port);
		rc = urlpath_resource(&path, "/api/v1", ns, "services", NULL, NULL, &err);
		if (rc) {
			strbuf_free(&path);
			return rc;
		}
		strbuf_printf(&path, "/http:%s:%s/proxy/api/v1/query", name, port);
	}
	urlpath_add_query(&path, "query", GPU_METRICS_QUERY);
	rc = strbuf_ok(&path) ? query(c, strbuf_str(&path), m, &err) : -ENOMEM;
	strbuf_free(&path);
	return rc;
}
