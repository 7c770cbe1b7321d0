/*
 * Tests render/job_gpus.c (info's GPUs: block as `arena get -g` prints it, why's idle
 * GPUs) and render/node_info.c's figures (`arena top node -d` with GPU metrics), from
 * a Prometheus answer decoded by k8s/objects/gpumetrics.c: a node's GPUs, held or not,
 * and the duty cycles' maxima over the window.
 */
#include "k8s/objects/gpumetrics.h"
#include "render/job_gpus.h"
#include "render/job_info.h"
#include "render/node_info.h"
#include "render/render.h"
#include "render/why.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERIES(name, pod, gpu, value)                                                          \
	"{\"metric\":{\"__name__\":\"" name "\",\"namespace_name\":\"default\",\"pod_name\":\"" pod \
	"\",\"node_name\":\"gpu-1\",\"minor_number\":\"" gpu "\"},\"value\":[1,\"" value "\"]}"
#define MAX_SERIES(pod, gpu, value)                                                            \
	"{\"metric\":{\"" GPU_METRICS_MAX_LABEL "\":\"10m\",\"namespace\":\"default\",\"pod\":\"" pod \
	"\",\"Hostname\":\"gpu-1\",\"gpu\":\"" gpu "\"},\"value\":[1,\"" value "\"]}"
#define GIB "17179869184"

/* Node gpu-1's 3 GPUs in Arena's family: w-0 holds 0 and 1 (busy, and idle for the
 * window), GPU 2 is held by none; DCGM's maxima over the window for w-0's two, and
 * for GPU 0 before w-0 took it. */
static const char *ANSWER =
    "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
    SERIES("nvidia_gpu_duty_cycle", "w-0", "0", "87")
    "," SERIES("nvidia_gpu_memory_used_bytes", "w-0", "0", "5368709120")
    "," SERIES("nvidia_gpu_memory_total_bytes", "w-0", "0", GIB)
    "," SERIES("nvidia_gpu_duty_cycle", "w-0", "1", "0")
    "," SERIES("nvidia_gpu_memory_used_bytes", "w-0", "1", "1073741824")
    "," SERIES("nvidia_gpu_memory_total_bytes", "w-0", "1", GIB)
    ",{\"metric\":{\"__name__\":\"nvidia_gpu_duty_cycle\",\"node_name\":\"gpu-1\","
    "\"minor_number\":\"2\"},\"value\":[1,\"0\"]}"
    ",{\"metric\":{\"__name__\":\"nvidia_gpu_memory_total_bytes\",\"node_name\":\"gpu-1\","
    "\"minor_number\":\"2\"},\"value\":[1,\"" GIB "\"]}"
    ",{\"metric\":{\"__name__\":\"nvidia_gpu_duty_cycle\",\"node_name\":\"gpu-2\","
    "\"minor_number\":\"2\"},\"value\":[1,\"5\"]}"
    "," MAX_SERIES("w-0", "0", "93")
    "," MAX_SERIES("w-0", "1", "0")
    /* GPU 0's series from before w-0 took it: within the window, a maximum alone */
    ",{\"metric\":{\"" GPU_METRICS_MAX_LABEL "\":\"10m\",\"Hostname\":\"gpu-1\","
    "\"gpu\":\"0\"},\"value\":[1,\"0\"]}"
    "]}}";

static struct gpu_metrics *decoded(void)
{
	json_t *answer = json_loads(ANSWER, 0, NULL);
	struct gpu_metrics *m = gpu_metrics_new();

	CHECK(answer && m);
	CHECK_INT_EQ(gpu_metrics_decode(m, answer), 0);
	snprintf(m->source, sizeof(m->source), "service monitoring/prometheus-server:9090");
	json_decref(answer);
	return m;
}

/* A RUNNING TFJob "w": worker w-0 Running on gpu-1 with 2 GPUs for `ran` seconds,
 * worker w-1 Pending with 1. */
struct scene {
	struct job *job;
	struct pod *pods[2];
	struct job_view v;
};

static void scene_init(struct scene *s, int64_t ran)
{
	struct container *c;

	s->job = fx_job(JOB_TFJOB, "w", FX_T0 - 3600);
	s->job->start_time = FX_T0 - ran;
	fx_job_condition(s->job, "Running", true, FX_T0 - ran);
	s->pods[0] = fx_pod("w-0", s->job, "worker", 0, POD_RUNNING);
	s->pods[1] = fx_pod("w-1", s->job, "worker", 1, POD_PENDING);
	c = fx_container(s->pods[0], "tensorflow", 2);
	fx_state(&c->state, CONTAINER_RUNNING, "", 0, FX_T0 - ran, 0);
	c->ready = true;
	fx_container(s->pods[1], "tensorflow", 1);
	fx_set(&s->pods[0]->node_name, "gpu-1");
	fx_set(&s->pods[0]->host_ip, "10.0.0.11");
	s->pods[0]->start_time = FX_T0 - ran;
	s->v = fx_view(s->job, (const struct pod *const *)s->pods, 2);
}

/* The scene with the figures of ANSWER (returned: the caller unrefs it). */
static struct gpu_metrics *scene_with_figures(struct scene *s, int64_t ran)
{
	struct gpu_metrics *m = decoded();

	scene_init(s, ran);
	s->v.gpu_metrics = m;
	return m;
}

static void scene_free(struct scene *s)
{
	fx_pod_free(s->pods[0]);
	fx_pod_free(s->pods[1]);
	fx_job_free(s->job);
}

TEST(gpumetrics_a_nodes_gpus_held_or_not_and_the_windows_maxima)
{
	struct gpu_metrics *m = decoded();
	struct gpu_sample *const *n;
	const struct gpu_sample *s;

	CHECK_INT_EQ((int)gpu_metrics_of_node(m, "gpu-1", &n), 4);
	CHECK(n[0]->gpu == 0 && !strcmp(n[0]->pod, "") && n[0]->duty < 0 && n[0]->duty_max == 0);
	CHECK(n[1]->gpu == 0 && !strcmp(n[1]->pod, "w-0") && n[1]->duty == 87);
	CHECK(n[2]->gpu == 1 && n[2]->used_mib == 1024 && n[2]->total_mib == 16384);
	CHECK(n[3]->gpu == 2 && !strcmp(n[3]->pod, "") && n[3]->duty == 0);
	CHECK_INT_EQ((int)gpu_metrics_of_node(m, "gpu-2", &n), 1);
	CHECK_INT_EQ((int)gpu_metrics_of_node(m, "gpu-3", &n), 0);
	/* both families' series of one GPU, and the maximum, are one sample */
	CHECK_INT_EQ((int)gpu_metrics_of_pod(m, "default", "w-0", &s), 2);
	CHECK(s[0].duty_max == 93 && s[1].duty_max == 0);
	gpu_metrics_unref(m);
}

TEST(info_gpus_block_is_arena_get_g)
{
	struct scene sc;
	struct gpu_metrics *m = scene_with_figures(&sc, 1200);
	char *got;

	got = FX_RENDER(render_job_info_gpus(sb, &sc.v, sc.v.pods));
	CHECK_STR_EQ(got,
	             "\nGPUs:\n"
	             "  INSTANCE  NODE(IP)   GPU(Requested)  GPU(IndexId)  GPU(DutyCycle)  "
	             "GPU Memory(Used/Total)\n"
	             "  --------  --------   --------------  ------------  --------------  "
	             "----------------------\n"
	             "  w-0       10.0.0.11  2               0             87.0%           "
	             "5120.0/16384.0(MiB)\n"
	             "                                       1             0.0%            "
	             "1024.0/16384.0(MiB)\n"
	             "  w-1       N/A        1               N/A           N/A             N/A\n"
	             "\n"
	             "  Allocated/Requested GPUs of Job: 2/3\n");
	free(got);
	/* the whole of info: the block right after Instances */
	got = FX_RENDER(render_job_info(sb, &sc.v));
	CHECK_STR_CONTAINS(got, "  w-1   Pending  ");
	CHECK_STR_CONTAINS(got, "N/A\n\nGPUs:\n  INSTANCE  NODE(IP)");
	free(got);
	/* no figures of a running instance: N/A, and why */
	snprintf(m->error, sizeof(m->error), "no Prometheus found (looked for X)");
	got = FX_RENDER(render_job_info_gpus(sb, &sc.v, sc.v.pods));
	CHECK_STR_CONTAINS(got, "  w-0       10.0.0.11  2               N/A           N/A  ");
	CHECK_STR_CONTAINS(got, "  Allocated/Requested GPUs of Job: 2/3\n"
	                        "  no GPU metrics: no Prometheus found (looked for X)\n");
	free(got);
	m->error[0] = '\0';
	fx_set(&sc.pods[0]->meta.name, "w-9");
	got = FX_RENDER(render_job_info_gpus(sb, &sc.v, sc.v.pods));
	CHECK_STR_CONTAINS(got, "  no GPU metrics: Prometheus (service "
	                        "monitoring/prometheus-server:9090) has no figures of the GPUs "
	                        "of w-9\n");
	free(got);
	/* not asked (a form): no block; a succeeded job: none, as Arena */
	sc.v.gpu_metrics = NULL;
	got = FX_RENDER(render_job_info_gpus(sb, &sc.v, sc.v.pods));
	CHECK_STR_EQ(got, "");
	free(got);
	scene_free(&sc);
	gpu_metrics_unref(m);
}

TEST(info_gpus_block_of_a_job_none_of_whose_instances_runs)
{
	struct scene sc;
	struct gpu_metrics *m = scene_with_figures(&sc, 1200);
	char *got;

	sc.pods[0]->phase = POD_PENDING;
	got = FX_RENDER(render_job_info_gpus(sb, &sc.v, sc.v.pods));
	CHECK_STR_CONTAINS(got, "  w-0       N/A       2               N/A ");
	CHECK_STR_CONTAINS(got, "  Allocated/Requested GPUs of Job: 0/3\n"
	                        "  no GPU metrics: no instance runs holding GPUs\n");
	free(got);
	scene_free(&sc);
	gpu_metrics_unref(m);
}

TEST(why_of_a_running_job_names_gpus_idle_the_whole_window)
{
	struct scene sc;
	struct gpu_metrics *m = scene_with_figures(&sc, 1200);
	const struct gpu_sample *s;
	char *got;

	sc.pods[1]->phase = POD_RUNNING;   /* no figures of its GPU: not counted */
	got = FX_RENDER(render_job_why(sb, &sc.v));
	CHECK_STR_EQ(got, "Running since 2026-12-02 09:40:00 UTC (20m), 2 instances; but 1 of "
	                  "its 2 GPUs has been idle (0% duty cycle) for at least 10m.\n");
	free(got);
	/* both idle, one at 0.4 % */
	gpu_metrics_of_pod(m, "default", "w-0", &s);
	((struct gpu_sample *)s)[0].duty_max = 0.4;
	got = FX_RENDER(render_job_why(sb, &sc.v));
	CHECK_STR_CONTAINS(got, "; but its 2 GPUs have been idle (at most 0.4% duty cycle) for "
	                        "at least 10m.\n");
	free(got);
	/* busy at some moment of the window: nothing said */
	((struct gpu_sample *)s)[0].duty_max = 1.0;
	((struct gpu_sample *)s)[1].duty_max = 50;
	got = FX_RENDER(render_job_why(sb, &sc.v));
	CHECK_STR_EQ(got, "Running since 2026-12-02 09:40:00 UTC (20m), 2 instances.\n");
	free(got);
	/* running less than the window: the window is not all its own, nothing said */
	((struct gpu_sample *)s)[1].duty_max = 0;
	scene_free(&sc);
	scene_init(&sc, 300);
	sc.pods[1]->phase = POD_RUNNING;
	sc.v.gpu_metrics = m;
	got = FX_RENDER(render_job_why(sb, &sc.v));
	CHECK_STR_EQ(got, "Running since 2026-12-02 09:55:00 UTC (5m), 2 instances.\n");
	free(got);
	/* no Prometheus: why says what it says without it */
	scene_free(&sc);
	scene_init(&sc, 1200);
	sc.v.gpu_metrics = NULL;
	got = FX_RENDER(render_job_why(sb, &sc.v));
	CHECK(strstr(got, "idle") == NULL);
	free(got);
	scene_free(&sc);
	gpu_metrics_unref(m);
}

TEST(node_info_with_gpu_metrics_as_arena_top_node_d)
{
	struct gpu_metrics *m = decoded();
	struct gpu_metrics *none = gpu_metrics_new();
	struct k8s_node *n = fx_node("gpu-1", "10.0.0.11", true, 3, 3);
	struct scene sc;
	struct node_view v;
	char *got;

	scene_init(&sc, 1200);
	fx_set(&n->roles, "worker");
	v = (struct node_view){n, (const struct pod *const *)sc.pods, 1, FX_T0, m};
	got = FX_RENDER(render_node_info(sb, &v));
	/* Arena's header and description, as without figures (test_render_gpus.c), then */
	CHECK(strstr(got, "Instances:\n") != NULL);
	CHECK_STR_EQ(strstr(got, "Instances:\n"),
	                  "Instances:\n"
	                  "  NAMESPACE  NAME  STATUS   GPU(Requested)  GPU(Allocated)\n"
	                  "  ---------  ----  ------   --------------  --------------\n"
	                  "  default    w-0   Running  2               gpu0,gpu1\n"
	                  "GPUs:\n"
	                  "  INDEX  MEMORY(Total)  MEMORY(Allocated)  MEMORY(Used)  DUTY_CYCLE\n"
	                  "  -----  -------------  -----------------  ------------  ----------\n"
	                  "  0      16.0 GiB       16.0 GiB           5.0 GiB       87.0%\n"
	                  "  1      16.0 GiB       16.0 GiB           1.0 GiB       0.0%\n"
	                  "  2      16.0 GiB       0.0 GiB            0.0 GiB       0.0%\n"
	                  "GPU Summary:\n"
	                  "  Total GPUs:           3\n"
	                  "  Allocated GPUs:       2\n"
	                  "  Unhealthy GPUs:       0\n"
	                  "  Total GPU Memory:     48.0 GiB\n"
	                  "  Allocated GPU Memory: 32.0 GiB\n"
	                  "  Used GPU Memory:      6.0 GiB\n");
	free(got);
	/* without figures: Arena's layout without them, and why */
	v.gpu_metrics = none;
	snprintf(none->error, sizeof(none->error), "no Prometheus found (looked for X)");
	got = FX_RENDER(render_node_info(sb, &v));
	CHECK_STR_CONTAINS(got, "  NAMESPACE  NAME  STATUS   GPU(Requested)\n");
	CHECK_STR_CONTAINS(got, "GPU Summary:\n"
	                        "  Total GPUs:     3\n"
	                        "  Allocated GPUs: 2\n"
	                        "  Unhealthy GPUs: 0\n"
	                        "no GPU metrics: no Prometheus found (looked for X)\n");
	free(got);
	fx_node_free(n);
	scene_free(&sc);
	gpu_metrics_unref(none);
	gpu_metrics_unref(m);
}
