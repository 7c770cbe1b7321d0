/*
 * Tests render/jobspec/asks.c: what a job object asks of the cluster (its
 * PriorityClasses anywhere in its pod templates, once each; its LocalQueue label;
 * a TrainJob's runtime), read from objects as the spec compiler or a user's
 * manifest gives them.
 */
#include "render/jobspec/asks.h"
#include "tests/unit/harness.h"

#include <string.h>

TEST(jobspec_asks_priority_classes_once_each_in_order)
{
	json_t *job = json_loads(
		"{\"spec\":{\"tfReplicaSpecs\":{"
		"\"PS\":{\"template\":{\"spec\":{\"priorityClassName\":\"low\"}}},"
		"\"Worker\":{\"template\":{\"spec\":{\"priorityClassName\":\"high\"}}},"
		"\"Chief\":{\"template\":{\"spec\":{\"priorityClassName\":\"low\"}}}}}}", 0, NULL);
	const char *names[1], *all[8];

	CHECK(job != NULL);
	CHECK_INT_EQ(spec_priority_classes(job, all, 8), 2);
	CHECK_STR_EQ(all[0], "low");
	CHECK_STR_EQ(all[1], "high");
	/* at most max */
	CHECK_INT_EQ(spec_priority_classes(job, names, 1), 1);
	json_decref(job);
}

TEST(jobspec_asks_the_queue_label_or_none)
{
	json_t *job = json_loads("{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":\"q\"}}}",
	                         0, NULL);
	json_t *bare = json_loads("{\"metadata\":{\"name\":\"x\"}}", 0, NULL);

	CHECK_STR_EQ(spec_queue_of(job), "q");
	CHECK(spec_queue_of(bare) == NULL);
	json_decref(job);
	json_decref(bare);
}

TEST(jobspec_asks_a_trainjobs_runtime_only)
{
	json_t *tj = json_loads("{\"kind\":\"TrainJob\",\"spec\":{\"runtimeRef\":"
	                        "{\"kind\":\"TrainingRuntime\",\"name\":\"torch\"}}}", 0, NULL);
	json_t *tf = json_loads("{\"kind\":\"TFJob\",\"spec\":{\"runtimeRef\":{\"name\":\"x\"}}}",
	                        0, NULL);
	json_t *unnamed = json_loads("{\"kind\":\"TrainJob\",\"spec\":{}}", 0, NULL);
	const char *kind, *name;

	CHECK(spec_runtime_of(tj, &kind, &name));
	CHECK_STR_EQ(kind, "TrainingRuntime");
	CHECK_STR_EQ(name, "torch");
	CHECK(!spec_runtime_of(tf, &kind, &name));
	CHECK(!spec_runtime_of(unnamed, &kind, &name));
	json_decref(tj);
	json_decref(tf);
	json_decref(unnamed);
}
