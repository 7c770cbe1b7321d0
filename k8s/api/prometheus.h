/*
 * Asking Prometheus for every pod's GPU figures in one query (prometheus.c),
 * found as Arena 0.15.5 finds it (pkg/prometheus): the first Service, in any
 * namespace, labelled kubernetes.io/service-name=prometheus-admin (port 9335),
 * kubernetes.io/service-name=prometheus-server (9090) or kubernetes.io/name=Prometheus
 * (9090), queried through the API server's service proxy with the mount's
 * credentials; or at a URL the mount names (option prometheus=URL). The Service
 * is looked for among the cache's (the caller's, with prometheus_rank), where
 * Arena LISTs them: a read of the tree without Prometheus asks the cluster nothing.
 * Called by fs/tree/gpumetrics.c on a FUSE worker, no lock held.
 * Thread-safe as the client is. Tests: tests/integration/test_tree_gpu_metrics.py,
 * tests/integration/test_real_gpu_metrics.py.
 */
#ifndef ARENAFS_K8S_API_PROMETHEUS_H
#define ARENAFS_K8S_API_PROMETHEUS_H

#include "k8s/http/client.h"
#include "k8s/objects/gpumetrics.h"
#include "k8s/objects/objects.h"

/* What the lookup names when it finds nothing (the files say it). */
#define PROMETHEUS_LOOKED_FOR                                                                  \
	"a Service labelled kubernetes.io/service-name=prometheus-admin, "                      \
	"kubernetes.io/service-name=prometheus-server or kubernetes.io/name=Prometheus, "      \
	"in any namespace; or the mount option prometheus=URL"

/* Which Prometheus Arena would ask among Services: the rank of the first of Arena's
 * labels svc carries (0 first, as Arena tries them; -1: none) and its port into *port. */
int prometheus_rank(const struct service *svc, const char **port);

/*
 * Fills m (new, empty) with the answer of one query for both families' metrics of
 * every pod. url_client: the mount's prometheus=URL (a client whose server is that
 * URL), or NULL to ask Service ns/name on port (found by the caller among the
 * cache's Services with prometheus_rank; ns NULL: none found) through c's service
 * proxy. Returns 0, or -errno with m->error saying why in one line ("no Prometheus
 * found (looked for ...)", the proxy's refusal, ...).
 */
int prometheus_query_gpus(struct k8s_client *c, struct k8s_client *url_client,
                          const char *ns, const char *name, const char *port,
                          struct gpu_metrics *m);

#endif
