/*
 * libFuzzer target: what a server (broken or hostile) sends on a watch — the
 * stream splitter (k8s/watchparse.c), fed in two pieces at a point the input
 * chooses, and every object decoder (k8s/..._decode.c) on each event's object.
 */
#include <stddef.h>
#include <stdint.h>

#include "k8s/error.h"
#include "k8s/objects.h"
#include "k8s/watchparse.h"

static int on_event(void *arg, const struct watch_event *ev)
{
	struct job *j;
	struct pod *p;
	struct node *n;
	struct service *s;
	struct event *e;
	struct k8s_namespace *ns;

	(void)arg;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if ((j = job_decode(ev->object, (enum job_kind)k)))
			job_free(j);
	if ((p = pod_decode(ev->object)))
		pod_free(p);
	if ((n = node_decode(ev->object)))
		node_free(n);
	if ((s = service_decode(ev->object)))
		service_free(s);
	if ((e = event_decode(ev->object)))
		event_free(e);
	if ((ns = namespace_decode(ev->object)))
		namespace_free(ns);
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
	return 0;
}
