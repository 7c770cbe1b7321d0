/*
 * One GPU query to Prometheus (prometheus.h): find its Service as Arena does
 * (one LIST per label, in Arena's order, until one answers with a Service),
 * then GET services/http:NAME:PORT/proxy/api/v1/query, as Arena's ProxyGet
 * does; the query asks for both families' metric names and every pod at once
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

/* The first Service labelled as one of SERVERS: its namespace and name into ns,
 * name, its port into *port. 0, -ENOENT (none), or -errno of a failed LIST. */
static int find_service(struct k8s_client *c, char *ns, size_t ns_size, char *name,
                        size_t name_size, const char **port, struct k8s_error *err)
{
	int last = -ENOENT;

	for (size_t i = 0; i < sizeof(SERVERS) / sizeof(SERVERS[0]); i++) {
		struct strbuf path = STRBUF_INIT;
		json_t *list = NULL, *svc;
		int rc;

		strbuf_puts(&path, "/api/v1/services");
		urlpath_add_query(&path, "labelSelector", SERVERS[i].selector);
		if (!strbuf_ok(&path)) {
			strbuf_free(&path);
			return -ENOMEM;
		}
		rc = k8s_get_json(c, strbuf_str(&path), &list, err);
		strbuf_free(&path);
		if (rc) {
			last = rc;   /* a viewer that may not list services: say so, try the next */
			continue;
		}
		svc = json_array_get(json_object_get(list, "items"), 0);
		if (svc) {
			const json_t *meta = json_object_get(svc, "metadata");

			snprintf(ns, ns_size, "%s",
			         json_string_value(json_object_get(meta, "namespace")) ?: "");
			snprintf(name, name_size, "%s",
			         json_string_value(json_object_get(meta, "name")) ?: "");
			*port = SERVERS[i].port;
			json_decref(list);
			return ns[0] && name[0] ? 0 : -ENOENT;
		}
		json_decref(list);
	}
	return last;
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
                          struct gpu_metrics *m)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_error err;
	char ns[254], name[254];
	const char *port = NULL;
	int rc;

	k8s_error_clear(&err);
	if (url_client) {
		snprintf(m->source, sizeof(m->source), "%s", k8s_client_config(url_client)->server);
		strbuf_puts(&path, "/api/v1/query");
		c = url_client;
	} else {
		rc = find_service(c, ns, sizeof(ns), name, sizeof(name), &port, &err);
		if (rc == -ENOENT)
			snprintf(m->error, sizeof(m->error), "no Prometheus found (looked for %s)",
			         PROMETHEUS_LOOKED_FOR);
		else if (rc)
			snprintf(m->error, sizeof(m->error),
			         "no Prometheus found: listing Services failed: %.400s", err.message);
		if (rc)
			return rc;
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
