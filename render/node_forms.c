/*
 * cluster/top.json and top.yaml: `arena top node -o json|yaml`, the document Arena
 * 0.15.5 prints (pkg/topnode/summary.go DisplayNodeSummary, types.AllNodeInfo): an
 * object of one array per node mode, each key always there —
 * "gpuExclusiveNodes", "gpuShareNodes", "gpuTopologyNodes" and "normalNodes".
 * arenafs knows exclusive GPU nodes and nodes without GPUs (as cluster/top does):
 * the share and topology arrays are empty.
 *
 * A GPU node (types.GPUExclusiveNodeInfo, its embedded structs inline): instances
 * (the uncompleted pods holding GPUs: name, namespace, status, requestGPUs; by
 * namespace and name), name, description (Arena's text), ip, status, role ("":
 * Arena leaves it unset for GPU nodes), type "GPUExclusive", totalGPUs,
 * allocatedGPUs, unhealthyGPUs (numbers: cluster/top's), gpuMetrics [] (no
 * Prometheus). A node without GPUs (types.NormalNodeInfo): name, description, ip,
 * status, role (its roles, comma-joined, "" for none), type "Normal". Each array by
 * node name. Values are cluster/top's (gpus.c, nodes.c), so the two agree; one
 * departure: a node is a GPU node by its capacity, as cluster/top, where Arena asks
 * allocatable (a node whose GPUs are all unhealthy is Normal there).
 *
 * Pure. Called through fs/base/places.c; tested by tests/unit/test_render_gpus.c.
 */
#include "render/node_forms.h"
#include "render/gpus.h"
#include "render/form_write.h"
#include "render/nodes.h"
#include "render/status.h"
#include "render/text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Arena's descriptions (pkg/topnode/gpuexclusive.go, normal.go), byte for byte */
#define EXCLUSIVE_DESCRIPTION                                                                      \
	"\n  1.This node is enabled gpu exclusive mode.\n  2.Pods can request resource "            \
	"'nvidia.com/gpu' to use gpu exclusive feature on this node\n"
#define NORMAL_DESCRIPTION "\n  This node has none gpu devices\n"

static void instance(struct form *f, const struct pod *p)
{
	char status[128];

	render_form_object(f, NULL);
	render_form_string(f, "name", p->meta.name);
	render_form_string(f, "namespace", p->meta.namespace);
	render_form_string(f, "status", render_pod_status_word(p, status, sizeof(status)));
	render_form_int(f, "requestGPUs", p->gpus);
	render_form_end(f);
}

/* The node's uncompleted pods holding GPUs, by namespace and name. */
static void instances(struct form *f, const struct node_view *v)
{
	const struct pod **pods = v->n_pods ? malloc(v->n_pods * sizeof(*pods)) : NULL;
	size_t n = 0;

	if (v->n_pods && !pods) {
		f->failed = true;
		return;
	}
	for (size_t i = 0; i < v->n_pods; i++)
		if (!render_pod_is_completed(v->pods[i]) && v->pods[i]->gpus > 0)
			pods[n++] = v->pods[i];
	if (n > 1)
		qsort(pods, n, sizeof(*pods), render_pod_cmp_ns_name);
	render_form_array(f, "instances");
	for (size_t i = 0; i < n; i++)
		instance(f, pods[i]);
	render_form_end(f);
	free(pods);
}

static void node_info(struct form *f, const struct node_view *v)
{
	const struct k8s_node *node = v->node;
	bool gpu = render_node_has_gpus(node);

	render_form_object(f, NULL);
	if (gpu)
		instances(f, v);
	render_form_string(f, "name", node->meta.name);
	render_form_string(f, "description", gpu ? EXCLUSIVE_DESCRIPTION : NORMAL_DESCRIPTION);
	render_form_string(f, "ip", node->internal_ip[0] ? node->internal_ip : RENDER_NA);
	render_form_string(f, "status", render_node_status_word(node));
	render_form_string(f, "role", gpu ? "" : node->roles);
	render_form_string(f, "type", gpu ? "GPUExclusive" : "Normal");
	if (gpu) {
		render_form_int(f, "totalGPUs", node->gpu_capacity);
		render_form_int(f, "allocatedGPUs", render_node_gpus_allocated(v));
		render_form_int(f, "unhealthyGPUs", render_node_gpus_unhealthy(node));
		render_form_array(f, "gpuMetrics");
		render_form_end(f);
	}
	render_form_end(f);
}

static int view_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct node_view *const *)a)->node->meta.name,
	              (*(const struct node_view *const *)b)->node->meta.name);
}

/* The nodes of one mode (with GPUs or without), by name, as an array. */
static void nodes_of_mode(struct form *f, const char *key, const struct node_view **order,
                          size_t n, bool gpu)
{
	render_form_array(f, key);
	for (size_t i = 0; i < n; i++)
		if (render_node_has_gpus(order[i]->node) == gpu)
			node_info(f, order[i]);
	render_form_end(f);
}

static void all_nodes(struct strbuf *sb, const struct node_view *nodes, size_t n, bool yaml)
{
	const struct node_view **order = n ? malloc(n * sizeof(*order)) : NULL;
	struct form f;

	render_form_init(&f, sb, yaml);
	if (n && !order) {
		f.failed = true;
	} else {
		for (size_t i = 0; i < n; i++)
			order[i] = &nodes[i];
		if (n > 1)
			qsort(order, n, sizeof(*order), view_by_name);
		render_form_object(&f, NULL);
		nodes_of_mode(&f, "gpuExclusiveNodes", order, n, true);
		render_form_array(&f, "gpuShareNodes");
		render_form_end(&f);
		render_form_array(&f, "gpuTopologyNodes");
		render_form_end(&f);
		nodes_of_mode(&f, "normalNodes", order, n, false);
		render_form_end(&f);
	}
	render_form_finish(&f);
	free(order);
}

void render_cluster_top_json(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	all_nodes(sb, nodes, n, false);
}

void render_cluster_top_yaml(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	all_nodes(sb, nodes, n, true);
}
