/*
 * Tests render/gpus.c: Arena's GPU sums over pods in every phase, the gpus files,
 * arena top node -d (nodes/NAME/info), arena top node (cluster/top) and its
 * footer (cluster/gpus), with CPU-only nodes and GPU-less clusters; and arena top
 * node -o json|yaml (cluster/top.json, top.yaml: render/node_forms.c).
 */
#include "render/render.h"
#include "render/gpus.h"
#include "render/node_info.h"
#include "render/node_forms.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

/* A running pod with one container holding gpus, bound to node. */
static struct pod *gpu_pod(const char *name, const char *node, int gpus, enum pod_phase phase)
{
	struct pod *p = fx_pod(name, NULL, "worker", 0, phase);
	struct container *c = fx_container(p, "main", gpus);

	fx_set(&p->node_name, node);
	if (phase != POD_PENDING) {
		p->start_time = FX_T0 - 300;
		fx_state(&c->state, phase == POD_RUNNING ? CONTAINER_RUNNING : CONTAINER_TERMINATED,
		         phase == POD_SUCCEEDED ? "Completed"
		         : phase == POD_FAILED  ? "Error"
		                                : "",
		         phase == POD_FAILED, FX_T0 - 300, phase == POD_RUNNING ? 0 : FX_T0 - 10);
		c->ready = phase == POD_RUNNING;
	}
	return p;
}

TEST(job_gpus_requested_and_allocated)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 600);
	struct pod *pods[5];
	struct job_view v;
	char *s;

	pods[0] = gpu_pod("mnist-worker-0", "n1", 2, POD_RUNNING);
	pods[1] = gpu_pod("mnist-worker-1", "", 2, POD_PENDING);     /* not started */
	pods[2] = gpu_pod("mnist-worker-2", "n1", 1, POD_SUCCEEDED); /* done */
	pods[3] = gpu_pod("mnist-worker-3", "n2", 4, POD_FAILED);    /* done */
	pods[4] = gpu_pod("mnist-worker-4", "n2", 8, POD_RUNNING);
	pods[4]->meta.deleted = FX_T0 + 30; /* being deleted */
	v = fx_view(j, (const struct pod *const *)pods, 5);
	CHECK_INT_EQ(render_job_gpus_requested(&v), 17);
	CHECK_INT_EQ(render_job_gpus_allocated(&v), 2);
	s = FX_RENDER(render_job_gpus(sb, &v));
	CHECK_STR_EQ(s, "2/17\n");
	free(s);
	/* A pod Pending on a node but with a start time (pulling images) holds its GPUs. */
	pods[1]->start_time = FX_T0 - 5;
	CHECK_INT_EQ(render_job_gpus_allocated(&v), 4);
	/* The owner's annotation is the requested count when a pod has a positive one. */
	fx_kv(&pods[3]->meta.annotations, "requestGPUsOfJobOwner", "0");
	CHECK_INT_EQ(render_job_gpus_requested(&v), 17);
	fx_kv(&pods[2]->meta.annotations, "requestGPUsOfJobOwner", "x3");
	CHECK_INT_EQ(render_job_gpus_requested(&v), 17);
	fx_kv(&pods[4]->meta.annotations, "requestGPUsOfJobOwner", "6");
	CHECK_INT_EQ(render_job_gpus_requested(&v), 6);
	/* No pods: nothing requested or allocated (Arena counts pods). */
	v.n_pods = 0;
	s = FX_RENDER(render_job_gpus(sb, &v));
	CHECK_STR_EQ(s, "0/0\n");
	free(s);
	for (int i = 0; i < 5; i++)
		fx_pod_free(pods[i]);
	fx_job_free(j);
}

TEST(node_gpus_count_uncompleted_pods)
{
	struct k8s_node *n = fx_node("gpu-1", "10.0.0.11", true, 8, 8);
	struct pod *pods[4];
	struct node_view v = {n, (const struct pod *const *)pods, 4, FX_T0, NULL};
	char *s;

	pods[0] = gpu_pod("a", "gpu-1", 2, POD_RUNNING);
	pods[1] = gpu_pod("b", "gpu-1", 1, POD_PENDING); /* bound, creating: counts */
	pods[2] = gpu_pod("c", "gpu-1", 4, POD_SUCCEEDED);
	pods[3] = gpu_pod("d", "gpu-1", 3, POD_RUNNING);
	pods[3]->meta.deleted = FX_T0;
	CHECK_INT_EQ(render_node_gpus_allocated(&v), 3);
	s = FX_RENDER(render_node_gpus(sb, &v));
	CHECK_STR_EQ(s, "3/8\n");
	free(s);
	/* A pod on a node that stopped reporting (Unknown) still holds its GPUs. */
	pods[0]->phase = POD_UNKNOWN;
	CHECK_INT_EQ(render_node_gpus_allocated(&v), 3);
	pods[1]->phase = POD_FAILED;
	CHECK_INT_EQ(render_node_gpus_allocated(&v), 2);
	for (int i = 0; i < 4; i++)
		fx_pod_free(pods[i]);
	fx_node_free(n);
}

TEST(node_info_of_a_gpu_node_as_arena_top_node_d)
{
	struct k8s_node *n = fx_node("gpu-1", "10.0.0.11", true, 8, 7);
	struct pod *pods[4];
	struct node_view v = {n, (const struct pod *const *)pods, 4, FX_T0, NULL};
	char *s;

	fx_set(&n->roles, "worker");
	pods[0] = gpu_pod("mnist-worker-1", "gpu-1", 2, POD_RUNNING);
	pods[1] = gpu_pod("mnist-worker-0", "gpu-1", 1, POD_RUNNING);
	fx_set(&pods[1]->meta.namespace, "alpha");
	pods[2] = gpu_pod("cpu-only", "gpu-1", 0, POD_RUNNING);   /* holds no GPU */
	pods[3] = gpu_pod("finished", "gpu-1", 4, POD_SUCCEEDED); /* released */
	s = FX_RENDER(render_node_info(sb, &v));
	CHECK_STR_EQ(s, "Name:    gpu-1\n"
	                "Status:  Ready\n"
	                "Role:    worker\n"
	                "Type:    GPUExclusive\n"
	                "Address: 10.0.0.11\n"
	                "Description:\n"
	                "  1.This node is enabled gpu exclusive mode.\n"
	                "  2.Pods can request resource 'nvidia.com/gpu' to use gpu exclusive "
	                "feature on this node\n"
	                "Instances:\n"
	                "  NAMESPACE  NAME            STATUS   GPU(Requested)\n"
	                "  ---------  ----            ------   --------------\n"
	                "  alpha      mnist-worker-0  Running  1\n"
	                "  default    mnist-worker-1  Running  2\n"
	                "GPU Summary:\n"
	                "  Total GPUs:     8\n"
	                "  Allocated GPUs: 3\n"
	                "  Unhealthy GPUs: 1\n");
	free(s);
	/* No pod holds a GPU: no Instances block, as Arena. */
	v.n_pods = 0;
	n->unschedulable = true;
	s = FX_RENDER(render_node_info(sb, &v));
	CHECK_STR_CONTAINS(s, "Status:  Ready,SchedulingDisabled\n");
	CHECK(!strstr(s, "Instances:"));
	CHECK_STR_CONTAINS(
	    s, "Description:\n  1.This node is enabled gpu exclusive mode.\n  2.Pods can "
	       "request resource 'nvidia.com/gpu' to use gpu exclusive feature on this node\n"
	       "GPU Summary:\n  Total GPUs:     8\n  Allocated GPUs: 0\n");
	free(s);
	for (int i = 0; i < 4; i++)
		fx_pod_free(pods[i]);
	fx_node_free(n);
}

TEST(node_info_of_a_cpu_node)
{
	struct k8s_node *n = fx_node("cpu-1", "", false, 0, 0);
	struct node_view v = {n, NULL, 0, FX_T0, NULL};
	char *s = FX_RENDER(render_node_info(sb, &v));

	CHECK_STR_EQ(s, "Name:    cpu-1\n"
	                "Status:  NotReady\n"
	                "Role:    <none>\n"
	                "Type:    Normal\n"
	                "Address: N/A\n"
	                "Description:\n"
	                "  This node has none gpu devices\n");
	free(s);
	fx_node_free(n);
}

static void free_nodes_and_pods(struct k8s_node **nodes, size_t n, struct pod **pods, size_t np)
{
	for (size_t i = 0; i < n; i++)
		fx_node_free(nodes[i]);
	for (size_t i = 0; i < np; i++)
		fx_pod_free(pods[i]);
}

/* cluster/top's and top.json's scene: two GPU nodes and a control-plane node; gpu-a
 * runs a (3 GPUs) and ran done (2 GPUs, finished: no instance, holding nothing). */
struct top_scene {
	struct k8s_node *nodes[3];
	struct pod *pods[3];
	struct node_view views[3];
};

static void top_scene_init(struct top_scene *t)
{
	t->nodes[0] = fx_node("gpu-b", "10.0.0.12", true, 4, 4);
	t->nodes[1] = fx_node("master-0", "10.0.0.2", true, 0, 0);
	t->nodes[2] = fx_node("gpu-a", "10.0.0.11", true, 8, 8);
	fx_set(&t->nodes[1]->roles, "control-plane,master");
	t->pods[0] = gpu_pod("a", "gpu-a", 3, POD_RUNNING);
	t->pods[1] = gpu_pod("done", "gpu-a", 2, POD_SUCCEEDED);
	t->pods[2] = gpu_pod("b", "gpu-b", 1, POD_RUNNING);
	t->views[0] = (struct node_view){t->nodes[0], (const struct pod *const *)&t->pods[2], 1, FX_T0, NULL};
	t->views[1] = (struct node_view){t->nodes[1], NULL, 0, FX_T0, NULL};
	t->views[2] = (struct node_view){t->nodes[2], (const struct pod *const *)t->pods, 2, FX_T0, NULL};
}

TEST(cluster_top_and_gpus_with_cpu_and_gpu_nodes)
{
	struct top_scene t;
	struct k8s_node **nodes = t.nodes;
	struct node_view *views = t.views;
	char *s;

	top_scene_init(&t);
	s = FX_RENDER(render_cluster_top(sb, views, 3));
	CHECK_STR_EQ(
	    s, "NAME      IPADDRESS  ROLE                  STATUS  GPU(Total)  GPU(Allocated)\n"
	       "master-0  10.0.0.2   control-plane,master  Ready   0           0\n"
	       "gpu-a     10.0.0.11  <none>                Ready   8           3\n"
	       "gpu-b     10.0.0.12  <none>                Ready   4           1\n"
	       "-----------------------------------------------------------------------------------"
	       "----------------\n"
	       "Allocated/Total GPUs In Cluster:\n"
	       "4/12 (33.3%)\n");
	free(s);
	s = FX_RENDER(render_cluster_gpus(sb, views, 3));
	CHECK_STR_EQ(s, "Allocated/Total GPUs In Cluster: 4/12 (33.3%)\n");
	free(s);
	/* Unhealthy GPUs add Arena's column and lines. */
	nodes[2]->gpu_allocatable = 6;
	s = FX_RENDER(render_cluster_top(sb, views, 3));
	CHECK_STR_CONTAINS(s, "GPU(Allocated)  UNHEALTHY\n");
	CHECK_STR_CONTAINS(
	    s,
	    "gpu-a     10.0.0.11  <none>                Ready   8           3               2\n");
	CHECK_STR_CONTAINS(
	    s,
	    "master-0  10.0.0.2   control-plane,master  Ready   0           0               0\n");
	CHECK_STR_CONTAINS(s, "4/12 (33.3%)\nUnhealthy/Total GPUs In Cluster:\n2/12 (16.7%)\n");
	free(s);
	s = FX_RENDER(render_cluster_gpus(sb, views, 3));
	CHECK_STR_EQ(s, "Allocated/Total GPUs In Cluster: 4/12 (33.3%)\n"
	                "Unhealthy/Total GPUs In Cluster: 2/12 (16.7%)\n");
	free(s);
	free_nodes_and_pods(t.nodes, 3, t.pods, 3);
}

TEST(cluster_without_gpus_divides_by_nothing)
{
	struct k8s_node *n = fx_node("cpu-1", "10.0.0.5", true, 0, 0);
	struct node_view v = {n, NULL, 0, FX_T0, NULL};
	char *s;

	s = FX_RENDER(render_cluster_gpus(sb, &v, 1));
	CHECK_STR_EQ(s, "Allocated/Total GPUs In Cluster: 0/0 (0.0%)\n");
	free(s);
	s = FX_RENDER(render_cluster_top(sb, &v, 1));
	CHECK_STR_CONTAINS(s, "cpu-1  10.0.0.5   <none>  Ready   0           0\n");
	CHECK_STR_CONTAINS(s, "0/0 (0.0%)\n");
	free(s);
	/* No nodes at all (nodes/ forbidden): the header and the footer. */
	s = FX_RENDER(render_cluster_top(sb, NULL, 0));
	CHECK_STR_EQ(s, "NAME  IPADDRESS  ROLE  STATUS  GPU(Total)  GPU(Allocated)\n"
	                "--------------------------------------------------------------------------"
	                "-------------------------\n"
	                "Allocated/Total GPUs In Cluster:\n0/0 (0.0%)\n");
	free(s);
	fx_node_free(n);
}

TEST(node_with_only_unhealthy_gpus_is_still_a_gpu_node)
{
	struct k8s_node *n = fx_node("sick", "10.0.0.9", true, 2, 0);
	struct node_view v = {n, NULL, 0, FX_T0, NULL};
	char *s = FX_RENDER(render_node_info(sb, &v));

	CHECK_STR_CONTAINS(s, "Type:    GPUExclusive\n");
	CHECK_STR_CONTAINS(s, "  Unhealthy GPUs: 2\n");
	free(s);
	fx_node_free(n);
}

TEST(cluster_top_json_is_arena_top_node_o_json)
{
	struct top_scene t;
	char *s;

	top_scene_init(&t);
	t.nodes[2]->gpu_allocatable = 7;       /* one unhealthy GPU */
	s = FX_RENDER(render_cluster_top_json(sb, t.views, 3));
	/* Arena's keys in its order, each node mode's array by node name; the finished
	 * pod is no instance; the control plane a Normal node with its roles */
	CHECK_STR_EQ(s, "{\n"
	                "    \"gpuExclusiveNodes\": [\n"
	                "        {\n"
	                "            \"instances\": [\n"
	                "                {\n"
	                "                    \"name\": \"a\",\n"
	                "                    \"namespace\": \"default\",\n"
	                "                    \"status\": \"Running\",\n"
	                "                    \"requestGPUs\": 3\n"
	                "                }\n"
	                "            ],\n"
	                "            \"name\": \"gpu-a\",\n"
	                "            \"description\": \"\\n  1.This node is enabled gpu exclusive "
	                "mode.\\n  2.Pods can request resource 'nvidia.com/gpu' to use gpu exclusive "
	                "feature on this node\\n\",\n"
	                "            \"ip\": \"10.0.0.11\",\n"
	                "            \"status\": \"Ready\",\n"
	                "            \"role\": \"\",\n"
	                "            \"type\": \"GPUExclusive\",\n"
	                "            \"totalGPUs\": 8,\n"
	                "            \"allocatedGPUs\": 3,\n"
	                "            \"unhealthyGPUs\": 1,\n"
	                "            \"gpuMetrics\": []\n"
	                "        },\n"
	                "        {\n"
	                "            \"instances\": [\n"
	                "                {\n"
	                "                    \"name\": \"b\",\n"
	                "                    \"namespace\": \"default\",\n"
	                "                    \"status\": \"Running\",\n"
	                "                    \"requestGPUs\": 1\n"
	                "                }\n"
	                "            ],\n"
	                "            \"name\": \"gpu-b\",\n"
	                "            \"description\": \"\\n  1.This node is enabled gpu exclusive "
	                "mode.\\n  2.Pods can request resource 'nvidia.com/gpu' to use gpu exclusive "
	                "feature on this node\\n\",\n"
	                "            \"ip\": \"10.0.0.12\",\n"
	                "            \"status\": \"Ready\",\n"
	                "            \"role\": \"\",\n"
	                "            \"type\": \"GPUExclusive\",\n"
	                "            \"totalGPUs\": 4,\n"
	                "            \"allocatedGPUs\": 1,\n"
	                "            \"unhealthyGPUs\": 0,\n"
	                "            \"gpuMetrics\": []\n"
	                "        }\n"
	                "    ],\n"
	                "    \"gpuShareNodes\": [],\n"
	                "    \"gpuTopologyNodes\": [],\n"
	                "    \"normalNodes\": [\n"
	                "        {\n"
	                "            \"name\": \"master-0\",\n"
	                "            \"description\": \"\\n  This node has none gpu devices\\n\",\n"
	                "            \"ip\": \"10.0.0.2\",\n"
	                "            \"status\": \"Ready\",\n"
	                "            \"role\": \"control-plane,master\",\n"
	                "            \"type\": \"Normal\"\n"
	                "        }\n"
	                "    ]\n"
	                "}\n");
	free(s);
	s = FX_RENDER(render_cluster_top_yaml(sb, t.views, 3));
	CHECK_STR_CONTAINS(s, "gpuExclusiveNodes:\n- allocatedGPUs: 3\n");
	CHECK_STR_CONTAINS(s, "gpuShareNodes: []\n");
	CHECK_STR_CONTAINS(s, "  type: Normal\n");
	free(s);
	/* no nodes: every key, every array empty */
	s = FX_RENDER(render_cluster_top_json(sb, NULL, 0));
	CHECK_STR_EQ(s, "{\n    \"gpuExclusiveNodes\": [],\n    \"gpuShareNodes\": [],\n"
	                "    \"gpuTopologyNodes\": [],\n    \"normalNodes\": []\n}\n");
	free(s);
	free_nodes_and_pods(t.nodes, 3, t.pods, 3);
}
