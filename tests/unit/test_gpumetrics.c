/*
 * Tests k8s/objects/gpumetrics.c (a Prometheus answer of either family → per-GPU
 * figures) and what render/gpus.c makes of them: instances/POD/gpus's table,
 * jobs/NAME/gpus's line, and the words when there are none.
 */
#include "k8s/objects/gpumetrics.h"
#include "render/gpus.h"
#include "render/render.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both families as Prometheus answers them: DCGM's for gpu 0, Arena's for gpu 1,
 * a series of another pod, one without a pod, one of another name. */
static const char *ANSWER =
    "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"w-0\",\"namespace\":\"default\","
    "\"gpu\":\"0\"},\"value\":[1.5,\"87\"]},"
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_FB_USED\",\"pod\":\"w-0\",\"namespace\":\"default\","
    "\"gpu\":\"0\"},\"value\":[1.5,\"5120\"]},"
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_FB_FREE\",\"pod\":\"w-0\",\"namespace\":\"default\","
    "\"gpu\":\"0\"},\"value\":[1.5,\"11264\"]},"
    "{\"metric\":{\"__name__\":\"nvidia_gpu_duty_cycle\",\"pod_name\":\"w-0\","
    "\"namespace_name\":\"default\",\"minor_number\":\"1\"},\"value\":[1.5,\"12.5\"]},"
    "{\"metric\":{\"__name__\":\"nvidia_gpu_memory_used_bytes\",\"pod_name\":\"w-0\","
    "\"namespace_name\":\"default\",\"minor_number\":\"1\"},\"value\":[1.5,\"1073741824\"]},"
    "{\"metric\":{\"__name__\":\"nvidia_gpu_memory_total_bytes\",\"pod_name\":\"w-0\","
    "\"namespace_name\":\"default\",\"minor_number\":\"1\"},\"value\":[1.5,\"17179869184\"]},"
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"w-0\",\"namespace\":\"other\","
    "\"gpu\":\"0\"},\"value\":[1.5,\"3\"]},"
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"2\"},\"value\":[1.5,\"9\"]},"
    "{\"metric\":{\"__name__\":\"up\",\"pod\":\"w-0\",\"namespace\":\"default\",\"gpu\":\"0\"},"
    "\"value\":[1.5,\"1\"]}]}}";

static struct gpu_metrics *decoded(const char *text)
{
	json_t *answer = json_loads(text, 0, NULL);
	struct gpu_metrics *m = gpu_metrics_new();

	CHECK(answer && m);
	CHECK_INT_EQ(gpu_metrics_decode(m, answer), 0);
	json_decref(answer);
	return m;
}

TEST(gpumetrics_both_families_per_pod_and_gpu)
{
	struct gpu_metrics *m = decoded(ANSWER);
	const struct gpu_sample *s;

	CHECK_INT_EQ((int)m->n, 3);
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "default", "w-0", &s), 2);
	CHECK_INT_EQ(s[0].gpu, 0);
	CHECK(s[0].duty == 87 && s[0].used_mib == 5120 && s[0].total_mib == 16384);
	CHECK_INT_EQ(s[1].gpu, 1);
	CHECK(s[1].duty == 12.5 && s[1].used_mib == 1024 && s[1].total_mib == 16384);
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "default", "w-1", &s), 0);
	CHECK(s == NULL);
	gpu_metrics_unref(m);
}

TEST(gpumetrics_an_error_answer_says_why)
{
	json_t *answer = json_loads("{\"status\":\"error\",\"error\":\"parse error\"}", 0, NULL);
	struct gpu_metrics *m = gpu_metrics_new();

	CHECK_INT_EQ(gpu_metrics_decode(m, answer), -EINVAL);
	CHECK_STR_EQ(m->error, "Prometheus answered no vector: parse error");
	json_decref(answer);
	gpu_metrics_unref(m);
}

TEST(gpumetrics_pod_and_job_files)
{
	struct gpu_metrics *m = decoded(ANSWER);
	struct job *j = fx_job(JOB_TFJOB, "w", FX_T0 - 600);
	struct pod *p = fx_pod("w-0", j, "worker", 0, POD_RUNNING);
	const struct pod *pods[1] = {p};
	struct job_view v;
	char *got;

	fx_container(p, "tensorflow", 2);
	p->start_time = FX_T0 - 500;
	got = FX_RENDER(render_pod_gpus_metrics(sb, p, m));
	CHECK_STR_EQ(got, "2\n"
	                  "GPU(DeviceIndex)  GPU(DutyCycle)  GPU_MEMORY(Used/Total)\n"
	                  "0                 87.0%           5120.0/16384.0(MiB)\n"
	                  "1                 12.5%           1024.0/16384.0(MiB)\n");
	free(got);
	v = fx_view(j, pods, 1);
	v.gpu_metrics = m;
	got = FX_RENDER(render_job_gpus(sb, &v));
	CHECK_STR_EQ(got, "2/2\nGPU(DutyCycle) 49.8% (mean of 2 GPUs of 1 instance), "
	                  "GPU_MEMORY(Used/Total) 6144.0/32768.0(MiB)\n");
	free(got);
	/* no Prometheus: the reason, in words */
	snprintf(m->error, sizeof(m->error), "no Prometheus found (looked for X)");
	got = FX_RENDER(render_job_gpus(sb, &v));
	CHECK_STR_EQ(got, "2/2\nno GPU metrics: no Prometheus found (looked for X)\n");
	free(got);
	/* a pending pod: its count alone */
	p->phase = POD_PENDING;
	got = FX_RENDER(render_pod_gpus_metrics(sb, p, m));
	CHECK_STR_EQ(got, "2\n");
	free(got);
	fx_pod_free(p);
	fx_job_free(j);
	gpu_metrics_unref(m);
}

TEST(gpumetrics_both_families_of_one_gpu_are_one_sample)
{
	struct gpu_metrics *m = decoded(
	    "{\"status\":\"success\",\"data\":{\"result\":["
	    "{\"metric\":{\"__name__\":\"nvidia_gpu_duty_cycle\",\"pod_name\":\"b\","
	    "\"namespace_name\":\"n\",\"minor_number\":\"0\"},\"value\":[1,\"40\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_FB_USED\",\"pod\":\"a\",\"namespace\":\"n\","
	    "\"gpu\":\"0\"},\"value\":[1,\"7\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"b\",\"namespace\":\"n\","
	    "\"gpu\":\"0\"},\"value\":[1,\"40\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_FB_USED\",\"pod\":\"b\",\"namespace\":\"n\","
	    "\"gpu\":\"0\"},\"value\":[1,\"not a number\"]}]}}");
	const struct gpu_sample *s;

	CHECK_INT_EQ((int)m->n, 2);
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "n", "b", &s), 1);
	CHECK(s->duty == 40 && s->used_mib < 0 && s->total_mib < 0);
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "n", "a", &s), 1);
	CHECK(s->duty < 0 && s->used_mib == 7);
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "n", "c", &s), 0);
	gpu_metrics_unref(m);
}
