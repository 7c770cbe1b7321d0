/* Tests render/pods.c: instance files, the main instance as Arena picks it, the
 * main container. */
#include "render/render.h"
#include "render/pods.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

static const char *main_name(const struct job *j, struct pod **pods, size_t n)
{
	struct job_view v = fx_view(j, (const struct pod *const *)pods, n);
	int i = render_job_main_pod(&v);

	return i < 0 ? "(none)" : pods[i]->meta.name;
}

TEST(main_pod_is_arenas_chief)
{
	struct job *j = fx_job(JOB_TFJOB, "m", FX_T0);
	struct pod *pods[5];

	pods[0] = fx_pod("m-ps-0", j, "ps", 0, POD_RUNNING);
	pods[1] = fx_pod("m-worker-1", j, "worker", 1, POD_RUNNING);
	pods[2] = fx_pod("m-worker-0", j, "worker", 0, POD_RUNNING);
	pods[3] = fx_pod("m-evaluator-0", j, "evaluator", 0, POD_RUNNING);
	pods[4] = fx_pod("m-chief-0", j, "chief", 0, POD_RUNNING);
	CHECK_STR_EQ(main_name(j, pods, 0), "(none)");
	CHECK_STR_EQ(main_name(j, pods, 1), "m-ps-0"); /* the only pod */
	CHECK_STR_EQ(main_name(j, pods, 2), "m-ps-0"); /* no chief, no worker-0: first by name */
	CHECK_STR_EQ(main_name(j, pods, 4), "m-worker-0"); /* worker 0, not ps-0/evaluator-0 */
	CHECK_STR_EQ(main_name(j, pods, 5), "m-chief-0");
	/* The operator's job-role=master label marks the chief as well. */
	fx_set(&pods[4]->replica_type, "");
	fx_set(&pods[1]->job_role, "master");
	CHECK_STR_EQ(main_name(j, pods, 5), "m-worker-1");
	for (int i = 0; i < 5; i++)
		fx_pod_free(pods[i]);
	fx_job_free(j);
}

TEST(main_pod_for_pytorch_mpi_and_trainjob)
{
	struct job *pt = fx_job(JOB_PYTORCHJOB, "p", FX_T0),
	           *mpi = fx_job(JOB_MPIJOB_V2, "h", FX_T0);
	struct job *tj = fx_job(JOB_TRAINJOB, "t", FX_T0);
	struct pod *pods[3];

	pods[0] = fx_pod("p-worker-0", pt, "worker", 0, POD_RUNNING);
	pods[1] = fx_pod("p-master-0", pt, "master", 0, POD_RUNNING);
	CHECK_STR_EQ(main_name(pt, pods, 2), "p-master-0");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);

	pods[0] = fx_pod("h-worker-0", mpi, "worker", 0, POD_RUNNING);
	pods[1] = fx_pod("h-launcher-abcde", mpi, "launcher", -1, POD_FAILED);
	pods[2] = fx_pod("h-launcher-fghij", mpi, "launcher", -1, POD_RUNNING);
	pods[2]->meta.created = pods[1]->meta.created + 60;
	CHECK_STR_EQ(main_name(mpi, pods, 3), "h-launcher-fghij"); /* the newest launcher */
	pods[2]->meta.deleted = FX_T0;
	CHECK_STR_EQ(main_name(mpi, pods, 3), "h-launcher-abcde"); /* not the one going away */
	for (int i = 0; i < 3; i++)
		fx_pod_free(pods[i]);

	pods[0] = fx_pod("t-node-0-1-xyz", tj, "node", 1, POD_RUNNING);
	pods[1] = fx_pod("t-node-0-0-abc", tj, "node", 0, POD_RUNNING);
	CHECK_STR_EQ(main_name(tj, pods, 2), "t-node-0-0-abc");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(pt);
	fx_job_free(mpi);
	fx_job_free(tj);
}

TEST(main_container_annotation_then_framework_then_first)
{
	struct job *j = fx_job(JOB_PYTORCHJOB, "p", FX_T0);
	struct pod *p = fx_pod("p-master-0", j, "master", 0, POD_RUNNING);

	CHECK_INT_EQ(render_pod_main_container(p), -1);
	fx_container(p, "istio-proxy", 0);
	CHECK_INT_EQ(render_pod_main_container(p), 0);
	fx_container(p, "pytorch", 1);
	fx_container(p, "logger", 0);
	CHECK_INT_EQ(render_pod_main_container(p), 1);
	fx_kv(&p->meta.annotations, "kubectl.kubernetes.io/default-container", "logger");
	CHECK_INT_EQ(render_pod_main_container(p), 2);
	/* An annotation naming no container is passed over. */
	fx_set(&p->meta.annotations.items[0].value, "nope");
	CHECK_INT_EQ(render_pod_main_container(p), 1);
	/* A pod tied to its job by a label only: any kind's framework container. */
	p->job_kind = -1;
	CHECK_INT_EQ(render_pod_main_container(p), 1);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(instance_files)
{
	struct pod *p = fx_pod("m-worker-0", NULL, "worker", 0, POD_PENDING);
	char *s;

	fx_container(p, "a", 2);
	fx_container(p, "b", 1);
	s = FX_RENDER(render_pod_node(sb, p); render_pod_ip(sb, p); render_pod_gpus(sb, p));
	CHECK_STR_EQ(s, "N/A\nN/A\n3\n");
	free(s);
	fx_set(&p->node_name, "node-1");
	fx_set(&p->pod_ip, "10.244.1.7");
	s = FX_RENDER(render_pod_node(sb, p); render_pod_ip(sb, p));
	CHECK_STR_EQ(s, "node-1\n10.244.1.7\n");
	free(s);
	fx_pod_free(p);
}
