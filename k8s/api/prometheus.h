/*
 * Asking Prometheus for every pod's GPU figures in one query (prometheus.c),
 * found as Arena 0.15.5 finds it (pkg/prometheus): the first Service, in any
 * namespace, labelled kubernetes.io/service-name=prometheus-admin (port 9335),
 * kubernetes.io/service-name=prometheus-server (9090) or kubernetes.io/name=Prometheus
 * (9090), queried through the API server's service proxy with the mount's
 * credentials; or at a URL the mount names (option prometheus=URL).
 * Called by fs/tree/gpumetrics.c on a FUSE worker, no lock held.
 * Thread-safe as the client is. Tests: tests/integration/test_tree_gpu_metrics.py,
 * tests/integration/test_real_gpu_metrics.py.
 */
#ifndef ARENAFS_K8S_API_PROMETHEUS_H
#define ARENAFS_K8S_API_PROMETHEUS_H

#include "k8s/http/client.h"
#include "k8s/objects/gpumetrics.h"

/* What the lookup names when it finds nothing (the files say it). */
#define PROMETHEUS_LOOKED_FOR                                                                  \
	"a Service labelled kubernetes.io/service-name=prometheus-admin, "                      \
	"kubernetes.io/service-name=prometheus-server or kubernetes.io/name=Prometheus, "      \
	"in any namespace; or the mount option prometheus=URL"

/*
 * Fills m (new, empty) with the answer of one query for both families'
 * metrics of every pod. url: the mount's prometheus=URL (queried through
 * url_client, a client whose server is that URL), or NULL to look for the
 * Service through c. Returns 0, or -errno with m->error saying why in one line
 * ("no Prometheus found (looked for ...)", the proxy's refusal, ...).
 */
int prometheus_query_gpus(struct k8s_client *c, struct k8s_client *url_client,
                          struct gpu_metrics *m);

#endif
