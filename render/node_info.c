/*
 * nodes/NAME/info: `arena top node -d --metric` for one node (Arena 0.15.5,
 * pkg/topnode/gpuexclusive.go WideFormat; normal.go for a node without GPUs): the
 * figures whenever Prometheus has them, as Arena with --metric.
 *
 * A GPU node has two layouts, as Arena's: without figures of its GPUs, the
 * Instances table and the GPU Summary; when Prometheus has figures of any GPU of
 * the node (by DCGM's Hostname or Arena's node_name label), Instances gains
 * GPU(Allocated) (the GPUs Prometheus files under each pod: "gpu0,gpu1", in index
 * order where Arena's follows a Go map's), a GPUs table (INDEX, MEMORY(Total),
 * MEMORY(Allocated), MEMORY(Used), DUTY_CYCLE: a GPU's memory counts as allocated,
 * and its use and duty cycle are shown, only while a Running pod of the node that
 * holds GPUs is filed under it) and the summary gains the node's GPU memory: total
 * (Σ of its GPUs'), allocated (allocated GPUs × a GPU's total, as Arena) and used
 * (Σ over allocated GPUs). Memory in GiB, "%.1f GiB". Where Arena counts Total GPUs
 * as the GPUs Prometheus has figures of, the tree says the node's capacity, as
 * cluster/top does (the same when the exporter reports every GPU, as exporters do).
 * Without figures, a last line says why (Arena says nothing).
 *
 * Callers: fs/base/places.c's row. Pure; tested by tests/unit/test_render_gpus.c
 * (layout without figures) and tests/unit/test_render_job_gpus.c (with them).
 */
#include "render/node_info.h"
#include "render/gpus.h"
#include "render/nodes.h"
#include "render/status.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB_PER_GIB 1024.0

/* One GPU of the node as Prometheus files it: the sample whose figures it shows and
 * the run of samples of that index in m->by_node (one per pod filed under it, and
 * series of the window's maxima alone). */
struct device {
	const struct gpu_sample *fig;
	struct gpu_sample *const *run;
	size_t n;
	bool allocated;       /* a Running pod of the node that holds GPUs is filed under it */
};

/* Is ns/name a Running pod of the node that holds GPUs (Arena's podMap)? */
static bool running_here(const struct node_view *v, const char *ns, const char *name)
{
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];

		if (p->phase == POD_RUNNING && p->gpus > 0 && !strcmp(p->meta.namespace, ns) &&
		    !strcmp(p->meta.name, name))
			return true;
	}
	return false;
}

/* A sample with a figure of now: not a series of the window's maxima alone (a GPU's
 * series before a pod took it, or of a pod gone, still within max_over_time's window). */
static bool has_figures(const struct gpu_sample *s)
{
	return s->duty >= 0 || s->used_mib >= 0 || s->total_mib >= 0;
}

/* The device of the run of n samples of one index: its figures the held series' (else
 * the free one's); false when no sample of it has a figure of now. */
static bool device_of(const struct node_view *v, struct gpu_sample *const *run, size_t n,
                      struct device *d)
{
	*d = (struct device){NULL, run, n, false};
	for (size_t i = 0; i < n; i++) {
		if (!has_figures(run[i]))
			continue;
		if (!d->fig || (!*d->fig->pod && *run[i]->pod))
			d->fig = run[i];
		if (*run[i]->pod && running_here(v, run[i]->ns, run[i]->pod))
			d->allocated = true;
	}
	return d->fig != NULL;
}

/* The node's GPUs with figures, by index, into *out (freed by the caller): how many;
 * 0 when none (or memory ran out: sb->oom). */
static size_t node_devices(struct strbuf *sb, const struct node_view *v, struct device **out)
{
	struct gpu_sample *const *s;
	size_t n = gpu_metrics_of_node(v->gpu_metrics, v->node->meta.name, &s), k = 0;
	struct device *d;

	*out = NULL;
	if (!n)
		return 0;
	if (!(d = calloc(n, sizeof(*d)))) {
		sb->oom = true;
		return 0;
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s[j]->gpu == s[i]->gpu; j++)
			;
		k += device_of(v, &s[i], j - i, &d[k]);
	}
	if (!k) {
		free(d);
		d = NULL;
	}
	*out = d;
	return k;
}

/* "gpu0,gpu1": the GPUs Prometheus files under pod p, or N/A. */
static const char *pod_devices(const struct pod *p, const struct device *d, size_t n,
                               char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d[i].n; j++)
			if (has_figures(d[i].run[j]) && !strcmp(d[i].run[j]->ns, p->meta.namespace) &&
			    !strcmp(d[i].run[j]->pod, p->meta.name) && used < size) {
				used += (size_t)snprintf(buf + used, size - used, "%sgpu%d",
				                         used ? "," : "", d[i].fig->gpu);
				break;
			}
	return buf[0] ? buf : RENDER_NA;
}

/* The "Instances:" block of a GPU node: its uncompleted pods holding GPUs, by
 * namespace and name, with the GPUs Prometheus files under each when devs; nothing
 * when there are none (as Arena). */
static void node_info_instances(struct strbuf *sb, const struct node_view *v,
                                const struct device *devs, size_t n_devs)
{
	const struct pod **pods = NULL;
	struct render_table t;
	size_t n = 0;

	render_table_init(&t, n_devs ? 5 : 4);
	if (v->n_pods) {
		pods = malloc(v->n_pods * sizeof(*pods));
		if (!pods) {
			sb->oom = true;
			goto out;
		}
	}
	for (size_t i = 0; i < v->n_pods; i++)
		if (!render_pod_is_completed(v->pods[i]) && v->pods[i]->gpus > 0)
			pods[n++] = v->pods[i];
	if (n == 0)
		goto out;
	qsort(pods, n, sizeof(*pods), render_pod_cmp_ns_name);
	render_table_add(&t, (const char *[]){"NAMESPACE", "NAME", "STATUS", "GPU(Requested)",
	                                      "GPU(Allocated)"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < n; i++) {
		char status[128], gpus[16], held[256];

		snprintf(gpus, sizeof(gpus), "%d", pods[i]->gpus);
		render_table_add(
		    &t, (const char *[]){pods[i]->meta.namespace, pods[i]->meta.name,
		                         render_pod_status_word(pods[i], status, sizeof(status)),
		                         gpus,
		                         n_devs ? pod_devices(pods[i], devs, n_devs, held,
		                                              sizeof(held))
		                                : NULL});
	}
	strbuf_puts(sb, "Instances:\n");
	render_table_render(sb, &t, "  ");
out:
	render_table_free(&t);
	free(pods);
}

static double gib(double mib)
{
	return mib > 0 ? mib / MIB_PER_GIB : 0;
}

/* The GPUs table and the summary with the node's GPU memory (Arena's
 * displayDeviceInfoUnderMetrics). */
static void node_info_devices(struct strbuf *sb, const struct node_view *v,
                              const struct device *d, size_t n)
{
	const struct k8s_node *node = v->node;
	double total = 0, used = 0, one = 0;
	int allocated = render_node_gpus_allocated(v);
	struct render_table t;

	render_table_init(&t, 5);
	render_table_add(&t, (const char *[]){"INDEX", "MEMORY(Total)", "MEMORY(Allocated)",
	                                      "MEMORY(Used)", "DUTY_CYCLE"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < n; i++) {
		const struct gpu_sample *s = d[i].fig;
		char idx[16], tot[32], alloc[32], use[32], duty[32];

		total += gib(s->total_mib);
		if (!one)
			one = gib(s->total_mib);
		if (d[i].allocated)
			used += gib(s->used_mib);
		snprintf(idx, sizeof(idx), "%d", s->gpu);
		snprintf(tot, sizeof(tot), "%.1f GiB", gib(s->total_mib));
		snprintf(alloc, sizeof(alloc), "%.1f GiB", d[i].allocated ? gib(s->total_mib) : 0);
		snprintf(use, sizeof(use), "%.1f GiB", d[i].allocated ? gib(s->used_mib) : 0);
		snprintf(duty, sizeof(duty), "%.1f%%", d[i].allocated && s->duty > 0 ? s->duty : 0);
		render_table_add(&t, (const char *[]){idx, tot, alloc, use, duty});
	}
	strbuf_puts(sb, "GPUs:\n");
	render_table_render(sb, &t, "  ");
	render_table_free(&t);
	strbuf_puts(sb, "GPU Summary:\n");
	strbuf_printf(sb, "  Total GPUs:           %d\n", node->gpu_capacity);
	strbuf_printf(sb, "  Allocated GPUs:       %d\n", allocated);
	strbuf_printf(sb, "  Unhealthy GPUs:       %d\n", render_node_gpus_unhealthy(node));
	strbuf_printf(sb, "  Total GPU Memory:     %.1f GiB\n", total);
	strbuf_printf(sb, "  Allocated GPU Memory: %.1f GiB\n", allocated * one);
	strbuf_printf(sb, "  Used GPU Memory:      %.1f GiB\n", used);
}

void render_node_info(struct strbuf *sb, const struct node_view *v)
{
	const struct k8s_node *n = v->node;
	bool gpu = render_node_has_gpus(n);
	struct device *devs = NULL;
	size_t n_devs = 0;
	char why[sizeof(((struct gpu_metrics *)0)->error) + 300];

	strbuf_printf(sb, "Name:    %s\n", n->meta.name);
	strbuf_printf(sb, "Status:  %s\n", render_node_status_word(n));
	strbuf_printf(sb, "Role:    %s\n", n->roles[0] ? n->roles : "<none>");
	strbuf_printf(sb, "Type:    %s\n", gpu ? "GPUExclusive" : "Normal");
	strbuf_printf(sb, "Address: %s\n", n->internal_ip[0] ? n->internal_ip : RENDER_NA);
	strbuf_puts(sb, "Description:\n");
	if (!gpu) {
		strbuf_puts(sb, "  This node has none gpu devices\n");
		return;
	}
	strbuf_puts(sb,
	            "  1.This node is enabled gpu exclusive mode.\n"
	            "  2.Pods can request resource 'nvidia.com/gpu' to use gpu exclusive feature "
	            "on this node\n");
	if (v->gpu_metrics && !v->gpu_metrics->error[0])
		n_devs = node_devices(sb, v, &devs);
	node_info_instances(sb, v, devs, n_devs);
	if (n_devs) {
		node_info_devices(sb, v, devs, n_devs);
		free(devs);
		return;
	}
	strbuf_puts(sb, "GPU Summary:\n");
	strbuf_printf(sb, "  Total GPUs:     %d\n", n->gpu_capacity);
	strbuf_printf(sb, "  Allocated GPUs: %d\n", render_node_gpus_allocated(v));
	strbuf_printf(sb, "  Unhealthy GPUs: %d\n", render_node_gpus_unhealthy(n));
	if (v->gpu_metrics && render_gpu_metrics_missing(v->gpu_metrics, 0, why, sizeof(why)))
		strbuf_printf(sb, "no GPU metrics: %s\n", why);
}
