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
#include "render/job_forms.h"
#include "render/nodes.h"
#include "render/status.h"
#include "render/text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* Arena's descriptions (pkg/topnode/gpuexclusive.go, normal.go), byte for byte */
#define EXCLUSIVE_DESCRIPTION                                                                      \
	"\n  1.This node is enabled gpu exclusive mode.\n  2.Pods can request resource "            \
	"'nvidia.com/gpu' to use gpu exclusive feature on this node\n"
#define NORMAL_DESCRIPTION "\n  This node has none gpu devices\n"

#define put render_form_put       /* the lines below are mostly puts */

static json_t *instance(const struct pod *p)
{
	json_t *o = json_object();
	char status[128];

	if (o && put(o, "name", json_string(p->meta.name)) &&
	    put(o, "namespace", json_string(p->meta.namespace)) &&
	    put(o, "status", json_string(render_pod_status_word(p, status, sizeof(status)))) &&
	    put(o, "requestGPUs", json_integer(p->gpus)))
		return o;
	json_decref(o);
	return NULL;
}

/* The node's uncompleted pods holding GPUs, by namespace and name. */
static json_t *instances(const struct node_view *v)
{
	const struct pod **pods = v->n_pods ? malloc(v->n_pods * sizeof(*pods)) : NULL;
	json_t *a = json_array();
	bool ok = a && (pods || !v->n_pods);
	size_t n = 0;

	for (size_t i = 0; ok && i < v->n_pods; i++)
		if (!render_pod_is_completed(v->pods[i]) && v->pods[i]->gpus > 0)
			pods[n++] = v->pods[i];
	if (n > 1)
		qsort(pods, n, sizeof(*pods), render_pod_cmp_ns_name);
	for (size_t i = 0; ok && i < n; i++)
		ok = json_array_append_new(a, instance(pods[i])) == 0;
	free(pods);
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *node_info(const struct node_view *v)
{
	const struct k8s_node *node = v->node;
	bool gpu = render_node_has_gpus(node);
	json_t *o = json_object();
	bool ok =
	    o && (!gpu || put(o, "instances", instances(v))) &&
	    put(o, "name", json_string(node->meta.name)) &&
	    put(o, "description", json_string(gpu ? EXCLUSIVE_DESCRIPTION : NORMAL_DESCRIPTION)) &&
	    put(o, "ip", json_string(node->internal_ip[0] ? node->internal_ip : RENDER_NA)) &&
	    put(o, "status", json_string(render_node_status_word(node))) &&
	    put(o, "role", json_string(gpu ? "" : node->roles)) &&
	    put(o, "type", json_string(gpu ? "GPUExclusive" : "Normal"));

	if (ok && gpu)
		ok = put(o, "totalGPUs", json_integer(node->gpu_capacity)) &&
		     put(o, "allocatedGPUs", json_integer(render_node_gpus_allocated(v))) &&
		     put(o, "unhealthyGPUs", json_integer(render_node_gpus_unhealthy(node))) &&
		     put(o, "gpuMetrics", json_array());
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static int view_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct node_view *const *)a)->node->meta.name,
	              (*(const struct node_view *const *)b)->node->meta.name);
}

static json_t *all_nodes(const struct node_view *nodes, size_t n)
{
	const struct node_view **order = n ? malloc(n * sizeof(*order)) : NULL;
	json_t *doc = json_object(), *exclusive = json_array(), *normal = json_array();
	bool ok = doc && exclusive && normal && (order || !n);

	for (size_t i = 0; ok && i < n; i++)
		order[i] = &nodes[i];
	if (ok && n > 1)
		qsort(order, n, sizeof(*order), view_by_name);
	for (size_t i = 0; ok && i < n; i++)
		ok = json_array_append_new(render_node_has_gpus(order[i]->node) ? exclusive : normal,
		                           node_info(order[i])) == 0;
	free(order);
	ok = ok && put(doc, "gpuExclusiveNodes", json_incref(exclusive)) &&
	     put(doc, "gpuShareNodes", json_array()) && put(doc, "gpuTopologyNodes", json_array()) &&
	     put(doc, "normalNodes", json_incref(normal));
	json_decref(exclusive);
	json_decref(normal);
	if (!ok)
		json_decref(doc);
	return ok ? doc : NULL;
}

void render_cluster_top_json(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	render_form_emit(sb, all_nodes(nodes, n), false);
}

void render_cluster_top_yaml(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	render_form_emit(sb, all_nodes(nodes, n), true);
}
