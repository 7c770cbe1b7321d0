/* Tests render/runtimes.c: Trainer's runtime lists read into rows, the file
 * `runtimes` and the names a refused submission lists. */
#include "render/runtimes.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

#define T0 1764932400 /* 2025-12-05T11:00:00Z */

#define CLUSTER_LIST                                                                               \
	"{\"kind\":\"ClusterTrainingRuntimeList\",\"items\":["                                       \
	"{\"metadata\":{\"name\":\"torch-distributed\",\"creationTimestamp\":"                      \
	"\"2025-12-03T11:00:00Z\",\"labels\":{\"trainer.kubeflow.org/framework\":\"torch\"}},"      \
	"\"spec\":{\"mlPolicy\":{\"numNodes\":1,\"torch\":{}}}},"                                    \
	"{\"metadata\":{\"name\":\"deepspeed-distributed\",\"creationTimestamp\":"                  \
	"\"2025-12-03T11:00:00Z\",\"labels\":{\"trainer.kubeflow.org/framework\":\"deepspeed\"}},"  \
	"\"spec\":{\"mlPolicy\":{\"numNodes\":1}}},"                                                 \
	"{\"metadata\":{}},"                                                                         \
	"{\"metadata\":{\"name\":\"bare\"},\"spec\":{}}]}"

#define LOCAL_LIST                                                                                 \
	"{\"kind\":\"TrainingRuntimeList\",\"items\":[{\"metadata\":{\"name\":\"my-torch\","        \
	"\"namespace\":\"default\",\"creationTimestamp\":\"2025-12-05T10:55:00Z\"},"                 \
	"\"spec\":{\"mlPolicy\":{\"numNodes\":2}}}]}"

static void load(struct runtimes *r)
{
	json_t *c = json_loads(CLUSTER_LIST, 0, NULL), *l = json_loads(LOCAL_LIST, 0, NULL);

	CHECK(c && l);
	CHECK_INT_EQ(runtimes_add_list(r, c, true), 0);
	CHECK_INT_EQ(runtimes_add_list(r, l, false), 0);
	r->served = r->known = true;
	json_decref(c);
	json_decref(l);
}

TEST(runtimes_table_cluster_then_namespace_by_name)
{
	struct runtimes r = {0};
	char *s;

	load(&r);
	CHECK_INT_EQ(r.n, 4);
	s = FX_RENDER(render_runtimes(sb, &r, T0));
	CHECK_STR_EQ(s, "NAME                      KIND                    FRAMEWORK  NODES  AGE\n"
	                "bare                      ClusterTrainingRuntime  <none>     N/A    <unknown>\n"
	                "deepspeed-distributed     ClusterTrainingRuntime  deepspeed  1      2d\n"
	                "torch-distributed         ClusterTrainingRuntime  torch      1      2d\n"
	                "TrainingRuntime/my-torch  TrainingRuntime         <none>     2      5m\n");
	free(s);
	CHECK(runtimes_has(&r, "torch-distributed"));
	CHECK(runtimes_has(&r, "TrainingRuntime/my-torch"));
	CHECK(!runtimes_has(&r, "my-torch"));
	s = FX_RENDER(render_runtime_names(sb, &r));
	CHECK_STR_EQ(s, "bare, deepspeed-distributed, torch-distributed, TrainingRuntime/my-torch");
	free(s);
	runtimes_clear(&r);
	CHECK_INT_EQ(r.n, 0);
}

TEST(runtimes_none_unserved_and_unknown)
{
	struct runtimes r = {0};
	char *s;

	s = FX_RENDER(render_runtimes(sb, &r, T0));
	CHECK_STR_EQ(s, "The cluster's training runtimes are not known yet.\n");
	free(s);
	snprintf(r.error, sizeof(r.error), "connection refused");
	s = FX_RENDER(render_runtimes(sb, &r, T0));
	CHECK_STR_EQ(s, "The cluster's training runtimes are not known yet: connection refused.\n");
	free(s);
	r.known = true;
	s = FX_RENDER(render_runtimes(sb, &r, T0));
	CHECK_STR_CONTAINS(s, "No Kubeflow Trainer in this cluster");
	free(s);
	r.served = true;
	s = FX_RENDER(render_runtimes(sb, &r, T0));
	CHECK_STR_EQ(s, "NAME  KIND  FRAMEWORK  NODES  AGE\n"
	                "No training runtimes: a trainjob has none to name.\n");
	free(s);
	s = FX_RENDER(render_runtime_names(sb, &r));
	CHECK_STR_EQ(s, "none");
	free(s);
}
