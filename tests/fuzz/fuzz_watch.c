/*
 * libFuzzer target: what a server (broken or hostile) sends on a watch or a list —
 * the watch stream splitter (k8s/cache/watchparse.c) and the list body parser
 * (k8s/cache/listparse.c), each fed the input in two pieces at a point the input
 * chooses, and every object decoder (k8s/..._decode.c, and the ConfigMap's of
 * k8s/api/configmap.c, which a job's code/ reads) on each object they give.
 */
#include <stddef.h>
#include <stdint.h>

#include "k8s/api/configmap.h"
#include "k8s/error.h"
#include "k8s/cache/listparse.h"
#include "k8s/objects/objects.h"
#include "k8s/cache/watchparse.h"

static void decode_all(json_t *object)
{
	struct job *j;
	struct pod *p;
	struct k8s_node *n;
	struct service *s;
	struct event *e;
	struct k8s_namespace *ns;
	struct pvc *c;
	struct workload *w;
	struct localqueue *lq;
	struct clusterqueue *cq;
	struct queue_line *line;
	struct owned *ow;
	struct kueue_cohort *co;
	struct k8s_configmap *cm;
	struct k8s_error err;

	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if ((j = job_decode(object, (enum job_kind)k)))
			job_free(j);
	if ((p = pod_decode(object)))
		pod_free(p);
	if ((n = node_decode(object)))
		node_free(n);
	if ((s = service_decode(object)))
		service_free(s);
	if ((e = event_decode(object)))
		event_free(e);
	if ((ns = namespace_decode(object)))
		namespace_free(ns);
	if ((c = pvc_decode(object)))
		pvc_free(c);
	if ((w = workload_decode(object)))
		workload_free(w);
	if ((lq = localqueue_decode(object)))
		localqueue_free(lq);
	if ((cq = clusterqueue_decode(object)))
		clusterqueue_free(cq);
	if ((co = cohort_decode(object)))
		cohort_free(co);
	if ((line = queue_line_decode(object, "default", "user-queue")))
		queue_line_free(line);
	for (int k = 0; k < OWNED_KIND_COUNT; k++)
		if ((ow = owned_decode(object, (enum owned_kind)k)))
			owned_free(ow);
	if (k8s_configmap_decode(object, &cm, &err) == 0)
		k8s_configmap_free(cm);
}

static int on_event(void *arg, const struct watch_event *ev)
{
	(void)arg;
	decode_all(ev->object);
	return 0;
}

static int on_item(void *arg, json_t *item)
{
	(void)arg;
	decode_all(item);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct watch_parser wp;
	struct k8s_error err;
	size_t cut = size ? data[0] % (size + 1) : 0;

	watchparse_init(&wp, 1 << 20);
	if (watchparse_feed(&wp, (const char *)data, cut, on_event, NULL, &err) == 0 &&
	    watchparse_feed(&wp, (const char *)data + cut, size - cut, on_event, NULL, &err) == 0)
		watchparse_finish(&wp, on_event, NULL, &err);
	watchparse_free(&wp);

	struct list_parser lp;
	json_t *rest = NULL;

	listparse_init(&lp, 1 << 20, on_item, NULL);
	if (listparse_feed(&lp, (const char *)data, cut, &err) == 0 &&
	    listparse_feed(&lp, (const char *)data + cut, size - cut, &err) == 0 &&
	    listparse_finish(&lp, &rest, &err) == 0)
		json_decref(rest);
	listparse_free(&lp);
	return 0;
}
