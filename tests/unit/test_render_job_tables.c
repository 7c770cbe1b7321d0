/*
 * Tests render/job_tables.c: cluster/list (arena list), cluster/list-all
 * (arena list -A) and cluster/top-job (arena top job) over jobs in every phase,
 * their order, Arena's N/A, the NODE column and top job's footer, the tables
 * of no jobs at all, arenafs's PROGRESS (and top job's GPU(DutyCycle)) columns
 * after Arena's; and their JSON and YAML forms (render/job_forms.c:
 * list.json, top-job.json, info.json, ...) over the same scene: Arena's keys and
 * value formats, the tables' order and numbers; and, over random jobs, that the forms
 * (written by render/form_write.c) are byte for byte what jansson and yaml_emit.c
 * write of the same document, as the forms were made before.
 */
#include "render/render.h"
#include "render/job_info.h"
#include "render/job_forms.h"
#include "render/job_tables.h"
#include "render/yaml_emit.h"
#include "tests/unit/harness.h"
#include "tests/unit/kueue_fixture.h"
#include "tests/unit/objects_fixture.h"
#include "k8s/objects/gpumetrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* A pod of job with one container holding gpus: started 540 s ago unless Pending. */
static struct pod *job_pod(const struct job *j, const char *name, const char *type,
                           enum pod_phase phase, int gpus, const char *host_ip)
{
	struct pod *p = fx_pod(name, j, type, 0, phase);
	struct container *c = fx_container(p, "tensorflow", gpus);

	fx_set(&p->meta.namespace, j->meta.namespace);
	fx_set(&p->host_ip, host_ip);
	if (phase != POD_PENDING) {
		fx_set(&p->node_name, "node-1");
		p->start_time = FX_T0 - 540;
		fx_state(&c->state, phase == POD_RUNNING ? CONTAINER_RUNNING : CONTAINER_TERMINATED,
		         phase == POD_SUCCEEDED ? "Completed" : "", 0, FX_T0 - 540,
		         phase == POD_RUNNING ? 0 : FX_T0 - 3000);
	}
	return p;
}

/* The scene of every table below: four jobs, one in another namespace. */
struct scene {
	struct job *jobs[4];
	struct pod *pods[5];
	struct job_view views[4];
};

static void scene_init(struct scene *s)
{
	struct job *mnist, *big, *bert, *gan;

	/* running, 9 minutes, a chief on 10.0.0.11 and a worker */
	mnist = s->jobs[0] = fx_job(JOB_TFJOB, "mnist", FX_T0 - 600);
	mnist->start_time = FX_T0 - 540;
	fx_job_condition(mnist, "Running", true, FX_T0 - 540);
	s->pods[0] = job_pod(mnist, "mnist-chief-0", "chief", POD_RUNNING, 2, "10.0.0.11");
	s->pods[1] = job_pod(mnist, "mnist-worker-0", "worker", POD_RUNNING, 1, "10.0.0.12");
	/* waiting for 16 GPUs, not started: its DURATION is its wait (docs/tree.md) */
	big = s->jobs[1] = fx_job(JOB_TFJOB, "big", FX_T0 - 120);
	s->pods[2] = job_pod(big, "big-worker-0", "worker", POD_PENDING, 16, "");
	/* done an hour ago after 590 s */
	bert = s->jobs[2] = fx_job(JOB_PYTORCHJOB, "bert", FX_T0 - 3600);
	bert->start_time = FX_T0 - 3590;
	bert->completion_time = FX_T0 - 3000;
	fx_job_condition(bert, "Running", false, FX_T0 - 3000);
	fx_job_condition(bert, "Succeeded", true, FX_T0 - 3000);
	s->pods[3] = job_pod(bert, "bert-master-0", "master", POD_SUCCEEDED, 1, "10.0.0.12");
	/* another namespace's, running 50 s */
	gan = s->jobs[3] = fx_job(JOB_TFJOB, "gan", FX_T0 - 60);
	fx_set(&gan->meta.namespace, "research");
	gan->start_time = FX_T0 - 50;
	fx_job_condition(gan, "Running", true, FX_T0 - 50);
	s->pods[4] = job_pod(gan, "gan-worker-0", "worker", POD_RUNNING, 4, "10.0.0.13");

	s->views[0] = fx_view(mnist, (const struct pod *const *)&s->pods[0], 2);
	s->views[1] = fx_view(big, (const struct pod *const *)&s->pods[2], 1);
	s->views[2] = fx_view(bert, (const struct pod *const *)&s->pods[3], 1);
	s->views[3] = fx_view(gan, (const struct pod *const *)&s->pods[4], 1);
}

static void scene_free(struct scene *s)
{
	for (size_t i = 0; i < 5; i++)
		fx_pod_free(s->pods[i]);
	for (size_t i = 0; i < 4; i++)
		fx_job_free(s->jobs[i]);
}

TEST(jobs_list_is_arena_list_newest_first)
{
	struct scene s;
	char *text;

	scene_init(&s);
	text = FX_RENDER(render_jobs_list(sb, s.views, 3));
	/* a finished job holds nothing: Arena prints N/A allocated for it */
	CHECK_STR_EQ(text,
	             "NAME   STATUS     TRAINER     DURATION  GPU(Requested)  GPU(Allocated)  NODE"
	             "       PROGRESS\n"
	             "big    PENDING    TFJOB       2m        16              0               N/A"
	             "        N/A\n"
	             "mnist  RUNNING    TFJOB       9m        3               3               "
	             "10.0.0.11  N/A\n"
	             "bert   SUCCEEDED  PYTORCHJOB  9m        1               N/A             "
	             "10.0.0.12  N/A\n");
	free(text);
	scene_free(&s);
}

TEST(jobs_list_all_is_arena_list_A_with_the_namespace_first)
{
	struct scene s;
	char *text;

	scene_init(&s);
	text = FX_RENDER(render_jobs_list_all(sb, s.views, 4));
	CHECK_STR_EQ(text, "NAMESPACE  NAME   STATUS     TRAINER     DURATION  GPU(Requested)  "
	                   "GPU(Allocated)  NODE       PROGRESS\n"
	                   "research   gan    RUNNING    TFJOB       50s       4               4"
	                   "               10.0.0.13  N/A\n"
	                   "default    big    PENDING    TFJOB       2m        16              0"
	                   "               N/A        N/A\n"
	                   "default    mnist  RUNNING    TFJOB       9m        3               3"
	                   "               10.0.0.11  N/A\n"
	                   "default    bert   SUCCEEDED  PYTORCHJOB  9m        1               N/A"
	                   "             10.0.0.12  N/A\n");
	free(text);
	scene_free(&s);
}

TEST(jobs_top_is_arena_top_job_most_gpus_first_with_the_running_jobs_total)
{
	struct scene s;
	char *text;

	scene_init(&s);
	text = FX_RENDER(render_jobs_top(sb, s.views, 3));
	/* AGE is the duration; a finished job's allocation is its number, 0; the total
	 * counts RUNNING jobs only (not big's 16 pending GPUs) */
	CHECK_STR_EQ(text, "NAME   STATUS     TRAINER     AGE  GPU(Requested)  GPU(Allocated)  NODE"
	                   "       PROGRESS  GPU(DutyCycle)\n"
	                   "big    PENDING    TFJOB       2m   16              0               N/A"
	                   "        N/A       N/A\n"
	                   "mnist  RUNNING    TFJOB       9m   3               3               "
	                   "10.0.0.11  N/A       N/A\n"
	                   "bert   SUCCEEDED  PYTORCHJOB  9m   1               0               "
	                   "10.0.0.12  N/A       N/A\n"
	                   "\n"
	                   "Total Allocated/Requested GPUs of Training Jobs: 3/3\n");
	free(text);
	scene_free(&s);
}

TEST(jobs_tables_of_no_jobs_are_their_headers)
{
	char *text = FX_RENDER(render_jobs_list(sb, NULL, 0));

	CHECK_STR_EQ(text, "NAME  STATUS  TRAINER  DURATION  GPU(Requested)  GPU(Allocated)  NODE  "
	                   "PROGRESS\n");
	free(text);
	text = FX_RENDER(render_jobs_list_all(sb, NULL, 0));
	CHECK_STR_EQ(text, "NAMESPACE  NAME  STATUS  TRAINER  DURATION  GPU(Requested)  "
	                   "GPU(Allocated)  NODE  PROGRESS\n");
	free(text);
	text = FX_RENDER(render_jobs_top(sb, NULL, 0));
	CHECK_STR_EQ(text, "NAME  STATUS  TRAINER  AGE  GPU(Requested)  GPU(Allocated)  NODE  PROGRESS  "
	                   "GPU(DutyCycle)\n"
	                   "\n"
	                   "Total Allocated/Requested GPUs of Training Jobs: 0/0\n");
	free(text);
}

TEST(jobs_tables_break_ties_by_name_and_type)
{
	struct job *a = fx_job(JOB_TFJOB, "same", FX_T0 - 10);
	struct job *b = fx_job(JOB_PYTORCHJOB, "same", FX_T0 - 10);
	struct job *c = fx_job(JOB_TFJOB, "alpha", FX_T0 - 10);
	struct job *d = fx_job(JOB_TFJOB, "zulu", FX_T0 - 5);
	struct pod *p = NULL;
	struct job_view v[4];
	char *text;

	v[0] = fx_view(a, NULL, 0);
	v[1] = fx_view(b, NULL, 0);
	v[2] = fx_view(c, NULL, 0);
	/* zulu is newer but asks for 2 GPUs: first in top job only by its GPUs... */
	p = job_pod(d, "zulu-worker-0", "worker", POD_PENDING, 2, "");
	v[3] = fx_view(d, (const struct pod *const *)&p, 1);
	text = FX_RENDER(render_jobs_list(sb, v, 4));
	CHECK_STR_EQ(text, "NAME   STATUS   TRAINER     DURATION  GPU(Requested)  GPU(Allocated)  NODE  "
	                   "PROGRESS\n"
	                   "zulu   PENDING  TFJOB       5s        2               0               N/A   N/A\n"
	                   "alpha  PENDING  TFJOB       10s       0               0               N/A   N/A\n"
	                   "same   PENDING  PYTORCHJOB  10s       0               0               N/A   N/A\n"
	                   "same   PENDING  TFJOB       10s       0               0               N/A   N/A\n");
	free(text);
	/* ...and when it asks for none, the listing order decides among equals */
	p->gpus = 0;
	p->containers[0].gpus = 0;
	d->meta.created = FX_T0 - 20;
	text = FX_RENDER(render_jobs_top(sb, v, 4));
	CHECK_STR_EQ(text, "NAME   STATUS   TRAINER     AGE  GPU(Requested)  GPU(Allocated)  NODE  PROGRESS  "
	                   "GPU(DutyCycle)\n"
	                   "alpha  PENDING  TFJOB       10s  0               0               N/A   N/A       N/A\n"
	                   "same   PENDING  PYTORCHJOB  10s  0               0               N/A   N/A       N/A\n"
	                   "same   PENDING  TFJOB       10s  0               0               N/A   N/A       N/A\n"
	                   "zulu   PENDING  TFJOB       20s  0               0               N/A   N/A       N/A\n"
	                   "\n"
	                   "Total Allocated/Requested GPUs of Training Jobs: 0/0\n");
	free(text);
	fx_pod_free(p);
	fx_job_free(a);
	fx_job_free(b);
	fx_job_free(c);
	fx_job_free(d);
}

TEST(jobs_list_node_and_allocation_follow_arena)
{
	struct job *j = fx_job(JOB_TFJOB, "q", FX_T0 - 100);
	struct pod *pods[2];
	struct job_view v;
	char *text;

	/* QUEUING holds no GPUs in Arena's list: N/A, as for a finished job */
	fx_job_condition(j, "Queuing", true, FX_T0 - 100);
	pods[0] = job_pod(j, "q-chief-0", "chief", POD_PENDING, 1, "10.0.0.11");
	pods[1] = job_pod(j, "q-worker-0", "worker", POD_RUNNING, 1, "10.0.0.12");
	v = fx_view(j, (const struct pod *const *)pods, 2);
	text = FX_RENDER(render_jobs_list(sb, &v, 1));
	/* the chief is Pending: no node yet, though a worker runs */
	CHECK_STR_EQ(text, "NAME  STATUS   TRAINER  DURATION  GPU(Requested)  GPU(Allocated)  NODE  PROGRESS\n"
	                   "q     QUEUING  TFJOB    1m        2               N/A             N/A   N/A\n");
	free(text);
	/* a running chief without a host IP (none reported yet): N/A; top job prints the
	 * allocation whatever the status (the worker's GPU: the chief has no start time) */
	pods[0]->phase = POD_RUNNING;
	fx_set(&pods[0]->host_ip, "");
	text = FX_RENDER(render_jobs_top(sb, &v, 1));
	CHECK_STR_CONTAINS(text, "\nq     QUEUING  TFJOB    1m   2               1               N/A   N/A       "
	                         "N/A\n");
	free(text);
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(j);
}

/* A job Kueue has held in line for 5 minutes never started (no startTime): its
 * DURATION in list and top-job and info's Duration are all its wait, not 0s. */
TEST(jobs_tables_and_info_give_a_queued_job_its_wait)
{
	struct workload *w = fx_workload(WL_QUEUED);
	struct job *j = fx_job(JOB_TFJOB, "big", KUEUE_T0 - 300);
	struct job_view v;
	char *text;

	CHECK(w != NULL);
	fx_job_condition(j, "Suspended", true, KUEUE_T0 - 300);
	v = fx_view(j, NULL, 0);
	v.queue.workload = w;
	v.now = KUEUE_T0;
	text = FX_RENDER(render_jobs_list(sb, &v, 1));
	CHECK_STR_EQ(text, "NAME  STATUS  TRAINER  DURATION  GPU(Requested)  GPU(Allocated)  NODE  PROGRESS\n"
	                   "big   QUEUED  TFJOB    5m        4               N/A             N/A   N/A\n");
	free(text);
	text = FX_RENDER(render_jobs_top(sb, &v, 1));
	CHECK_STR_CONTAINS(text, "\nbig   QUEUED  TFJOB    5m   4");
	free(text);
	text = FX_RENDER(render_job_info(sb, &v));
	CHECK_STR_CONTAINS(text, "\nDuration:    5m\n");
	free(text);
	fx_job_free(j);
	workload_free(w);
}

/* PROGRESS, after Arena's seven columns (which keep their names, places and cells):
 * a TrainJob's last percentage, "(stale)" after 10 quiet minutes while it runs, N/A
 * for a TrainJob without a report or one that sent no percentage, and for a kind
 * that cannot report. */
TEST(jobs_tables_end_with_a_trainjobs_reported_progress)
{
	struct job *llama = fx_job(JOB_TRAINJOB, "llama", FX_T0 - 300);
	struct job *quiet = fx_job(JOB_TRAINJOB, "quiet", FX_T0 - 3600);
	struct job *fresh = fx_job(JOB_TRAINJOB, "fresh", FX_T0 - 30);
	struct job *mnist = fx_job(JOB_TFJOB, "mnist", FX_T0 - 60);
	struct job_view v[4];
	char *text;

	fx_trainer_status(llama, 42, 2700, FX_T0 - 12);
	fx_job_metric(llama, "loss", "0.231");
	fx_trainer_status(quiet, 7, -1, FX_T0 - 25 * 60);
	v[0] = fx_view(llama, NULL, 0);
	v[1] = fx_view(quiet, NULL, 0);
	v[2] = fx_view(fresh, NULL, 0);
	v[3] = fx_view(mnist, NULL, 0);
	text = FX_RENDER(render_jobs_list(sb, v, 4));
	CHECK_STR_EQ(text, "NAME   STATUS   TRAINER   DURATION  GPU(Requested)  GPU(Allocated)  NODE  "
	                   "PROGRESS\n"
	                   "fresh  PENDING  TRAINJOB  30s       0               0               N/A   N/A\n"
	                   "mnist  PENDING  TFJOB     1m        0               0               N/A   N/A\n"
	                   "llama  PENDING  TRAINJOB  5m        0               0               N/A   42%\n"
	                   "quiet  PENDING  TRAINJOB  1h        0               0               N/A   "
	                   "7%(stale)\n");
	free(text);
	text = FX_RENDER(render_jobs_top(sb, v, 4));
	CHECK_STR_CONTAINS(text, "AGE  GPU(Requested)  GPU(Allocated)  NODE  PROGRESS   GPU(DutyCycle)\n");
	CHECK_STR_CONTAINS(text, "\nllama  PENDING  TRAINJOB  5m   0               0               N/A   42%"
	                         "        N/A\n");
	free(text);
	/* a report without a percentage; an ended job's old report is not stale */
	llama->trainer.progress = -1;
	fx_job_condition(quiet, "Complete", true, FX_T0 - 60);
	text = FX_RENDER(render_jobs_list(sb, v, 4));
	CHECK_STR_CONTAINS(text, "\nllama  PENDING    TRAINJOB  5m        0               0               "
	                         "N/A   N/A\n");
	CHECK_STR_CONTAINS(text, "\nquiet  SUCCEEDED  TRAINJOB  59m       0               N/A             "
	                         "N/A   7%\n");
	free(text);
	fx_job_free(llama);
	fx_job_free(quiet);
	fx_job_free(fresh);
	fx_job_free(mnist);
}

/* top job's GPU(DutyCycle), after PROGRESS: the mean of the figures Prometheus has
 * for the GPUs of the job's running pods; N/A for a job with none, and for every job
 * when Prometheus has no answer. */
TEST(jobs_top_ends_with_the_jobs_gpu_duty_cycle)
{
	static const char answer[] =
	    "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"mnist-chief-0\","
	    "\"namespace\":\"default\",\"gpu\":\"0\"},\"value\":[1.5,\"90\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"mnist-chief-0\","
	    "\"namespace\":\"default\",\"gpu\":\"1\"},\"value\":[1.5,\"60\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"mnist-worker-0\","
	    "\"namespace\":\"default\",\"gpu\":\"2\"},\"value\":[1.5,\"0\"]},"
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"pod\":\"big-worker-0\","
	    "\"namespace\":\"default\",\"gpu\":\"0\"},\"value\":[1.5,\"99\"]}]}}";
	json_t *doc = json_loads(answer, 0, NULL);
	struct gpu_metrics *m = gpu_metrics_new();
	struct scene s;
	char *text;

	CHECK(doc && m);
	CHECK_INT_EQ(gpu_metrics_decode(m, doc), 0);
	json_decref(doc);
	scene_init(&s);
	for (size_t i = 0; i < 3; i++)
		s.views[i].gpu_metrics = m;
	text = FX_RENDER(render_jobs_top(sb, s.views, 3));
	/* mnist: (90 + 60 + 0) / 3; big's pod is Pending: its figure is not asked for */
	CHECK_STR_CONTAINS(text, "\nmnist  RUNNING    TFJOB       9m   3               3               "
	                         "10.0.0.11  N/A       50.0%\n");
	CHECK_STR_CONTAINS(text, "\nbig    PENDING    TFJOB       2m   16              0               "
	                         "N/A        N/A       N/A\n");
	free(text);
	/* Prometheus not found: N/A (jobs/NAME/gpus says why) */
	snprintf(m->error, sizeof(m->error), "no Prometheus found");
	text = FX_RENDER(render_jobs_top(sb, s.views, 3));
	CHECK_STR_CONTAINS(text, "10.0.0.11  N/A       N/A\n");
	free(text);
	/* the list has no such column */
	text = FX_RENDER(render_jobs_list(sb, s.views, 3));
	CHECK(strstr(text, "DutyCycle") == NULL);
	free(text);
	scene_free(&s);
	gpu_metrics_unref(m);
}

/* The text parsed back as JSON (the test fails, and NULL, if it is not JSON). */
static json_t *parsed(const char *text)
{
	json_error_t err;
	json_t *doc = json_loads(text, 0, &err);

	if (!doc)
		harness_fail(__FILE__, __LINE__, "not JSON: %s: %s", err.text, text);
	return doc;
}

static const char *str_at(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(not a string)";
}

TEST(jobs_list_json_is_arena_list_o_json_in_the_tables_order)
{
	struct scene s;
	char *text;
	json_t *doc, *mnist, *chief, *bert;

	scene_init(&s);
	text = FX_RENDER(render_jobs_list_json(sb, s.views, 4));
	/* Go's MarshalIndent: four spaces */
	CHECK(strncmp(text, "[\n    {\n        \"uuid\": ", 24) == 0);
	doc = parsed(text);
	CHECK(json_is_array(doc) && json_array_size(doc) == 4);
	CHECK_STR_EQ(str_at(json_array_get(doc, 0), "name"), "gan");
	CHECK_STR_EQ(str_at(json_array_get(doc, 1), "name"), "big");
	mnist = json_array_get(doc, 2);
	CHECK_STR_EQ(str_at(mnist, "name"), "mnist");
	CHECK_STR_EQ(str_at(mnist, "namespace"), "default");
	CHECK_STR_EQ(str_at(mnist, "status"), "RUNNING");
	CHECK_STR_EQ(str_at(mnist, "trainer"), "tfjob");
	CHECK_STR_EQ(str_at(mnist, "duration"), "540s");
	CHECK_STR_EQ(str_at(mnist, "priority"), "N/A");
	CHECK_STR_EQ(str_at(mnist, "tensorboard"), "");
	CHECK_STR_EQ(str_at(mnist, "chiefName"), "mnist-chief-0");
	CHECK_STR_EQ(str_at(mnist, "modelName"), "");
	CHECK_INT_EQ(json_integer_value(json_object_get(mnist, "requestGPUs")), 3);
	CHECK_INT_EQ(json_integer_value(json_object_get(mnist, "allocatedGPUs")), 3);
	/* the job's creationTimestamp is Arena's StartTime(): a TFJob's start */
	CHECK_INT_EQ(json_integer_value(json_object_get(mnist, "creationTimestamp")), FX_T0 - 540);
	CHECK(json_array_size(json_object_get(mnist, "instances")) == 2);
	chief = json_array_get(json_object_get(mnist, "instances"), 0);
	CHECK_STR_EQ(str_at(chief, "name"), "mnist-chief-0");
	CHECK(json_is_true(json_object_get(chief, "chief")));
	CHECK_STR_EQ(str_at(chief, "status"), "Running");
	CHECK_STR_EQ(str_at(chief, "age"), "540s");
	CHECK_STR_EQ(str_at(chief, "node"), "node-1");
	CHECK_STR_EQ(str_at(chief, "nodeIP"), "10.0.0.11");
	CHECK_INT_EQ(json_integer_value(json_object_get(chief, "requestGPUs")), 2);
	CHECK(json_is_object(json_object_get(chief, "gpuMetrics")) &&
	      json_object_size(json_object_get(chief, "gpuMetrics")) == 0);
	CHECK(json_is_false(
	    json_object_get(json_array_get(json_object_get(mnist, "instances"), 1), "chief")));
	/* a finished job: the table's N/A allocated is the number 0 here, as Arena's */
	bert = json_array_get(doc, 3);
	CHECK_STR_EQ(str_at(bert, "status"), "SUCCEEDED");
	CHECK_STR_EQ(str_at(bert, "trainer"), "pytorchjob");
	CHECK(json_is_integer(json_object_get(bert, "allocatedGPUs")) &&
	      json_integer_value(json_object_get(bert, "allocatedGPUs")) == 0);
	/* any other kind's is its creation, though it started ten seconds later
	 * (Arena's PyTorchJob.StartTime() is its CreationTimestamp); a TFJob not started: 0 */
	CHECK_INT_EQ(json_integer_value(json_object_get(bert, "creationTimestamp")), FX_T0 - 3600);
	CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(doc, 1), "creationTimestamp")),
	             0);
	/* arenafs's extra keys: why's line, no queue */
	CHECK(strlen(str_at(bert, "why")) > 0 && !strchr(str_at(bert, "why"), '\n'));
	CHECK(json_is_null(json_object_get(bert, "queue")));
	/* a Pending instance has no node yet */
	CHECK_STR_EQ(str_at(json_array_get(json_object_get(json_array_get(doc, 1), "instances"), 0),
	                    "nodeIP"),
	             "N/A");
	json_decref(doc);
	free(text);
	scene_free(&s);
}

TEST(jobs_top_json_is_most_gpus_first_and_empty_lists_are_empty_arrays)
{
	struct scene s;
	char *text;
	json_t *doc;

	scene_init(&s);
	text = FX_RENDER(render_jobs_top_json(sb, s.views, 4));
	doc = parsed(text);
	CHECK(json_array_size(doc) == 4);
	CHECK_STR_EQ(str_at(json_array_get(doc, 0), "name"), "big");
	CHECK_STR_EQ(str_at(json_array_get(doc, 1), "name"), "gan");
	CHECK_STR_EQ(str_at(json_array_get(doc, 3), "name"), "bert");
	json_decref(doc);
	free(text);
	text = FX_RENDER(render_jobs_list_json(sb, NULL, 0));
	CHECK_STR_EQ(text, "[]\n");
	free(text);
	text = FX_RENDER(render_jobs_list_yaml(sb, NULL, 0));
	CHECK_STR_EQ(text, "[]\n");
	free(text);
	scene_free(&s);
}

TEST(jobs_yaml_forms_use_arena_yaml_keys)
{
	struct scene s;
	char *text;

	scene_init(&s);
	text = FX_RENDER(render_jobs_list_yaml(sb, s.views, 3));
	CHECK(text[0] == '-');
	CHECK_STR_CONTAINS(text, "  duration: 540s\n");
	CHECK_STR_CONTAINS(text, "  modelname: \"\"\n");
	CHECK(!strstr(text, "modelName"));
	CHECK_STR_CONTAINS(text, "    nodeIP: \"10.0.0.11\"\n");
	free(text);
	text = FX_RENDER(render_job_info_yaml(sb, &s.views[0]));
	CHECK_STR_CONTAINS(text, "\nname: mnist\n");
	CHECK_STR_CONTAINS(text, "\nrequestGPUs: 3\n");
	free(text);
	scene_free(&s);
}

TEST(job_info_json_is_arena_get_o_json)
{
	struct scene s;
	char *text;
	json_t *doc;

	scene_init(&s);
	text = FX_RENDER(render_job_info_json(sb, &s.views[1]));
	doc = parsed(text);
	CHECK(json_is_object(doc));
	CHECK_STR_EQ(str_at(doc, "name"), "big");
	CHECK_STR_EQ(str_at(doc, "status"), "PENDING");
	/* not started: its wait since creation, as the table's DURATION (Arena: 0s) */
	CHECK_STR_EQ(str_at(doc, "duration"), "120s");
	/* not started: Arena's 0 */
	CHECK_INT_EQ(json_integer_value(json_object_get(doc, "creationTimestamp")), 0);
	CHECK_INT_EQ(json_integer_value(json_object_get(doc, "requestGPUs")), 16);
	/* a Pending instance: how long it has waited since its creation */
	CHECK_STR_EQ(str_at(json_array_get(json_object_get(doc, "instances"), 0), "age"), "600s");
	json_decref(doc);
	free(text);
	scene_free(&s);
}

/* ---- the forms against jansson, over random jobs ---- */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static unsigned pick(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Names and messages a cluster may hold: quotes, non-ASCII, YAML's words, numbers. */
static const char *const WORDS[] = {"mnist", "a\"b", "é-job", "true", "123", "no", "x: y",
                                    "#c", "-dash", "10.0.0.1", "N/A", "日本", ""};

static const char *word(void)
{
	return WORDS[pick(sizeof(WORDS) / sizeof(WORDS[0]))];
}

/* The text of a form read by jansson and written again the way the forms were before
 * form_write.c (json_dumps, yaml_emit.c): the reference the writer must equal. */
static char *jansson_again(const char *json_text, bool yaml)
{
	json_t *doc = json_loads(json_text, 0, NULL);
	struct strbuf sb = STRBUF_INIT;
	static const char *const YAML_KEYS[][2] = {
	    {"modelName", "modelname"}, {"modelVersion", "modelversion"}, {"modelSource", "modelsource"}};
	size_t i;
	json_t *job;
	char *text;

	if (!doc)
		return NULL;
	if (!yaml) {
		text = json_dumps(doc, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
		strbuf_puts(&sb, text ? text : "(no memory)");
		strbuf_putc(&sb, '\n');
		free(text);
	} else {
		json_array_foreach(doc, i, job) {
			for (size_t k = 0; k < 3; k++) {
				json_object_set(job, YAML_KEYS[k][1], json_object_get(job, YAML_KEYS[k][0]));
				json_object_del(job, YAML_KEYS[k][0]);
			}
		}
		render_yaml_emit(&sb, doc);
	}
	json_decref(doc);
	return strbuf_take(&sb);
}

TEST(job_forms_are_janssons_text_over_random_jobs)
{
	enum { N = 12, PODS = 4 };
	static const enum pod_phase PHASES[] = {POD_PENDING, POD_RUNNING, POD_SUCCEEDED,
	                                        POD_FAILED};
	int failures = 0;

	for (int round = 0; round < 200 && failures < 2; round++) {
		struct job *jobs[N];
		struct pod *pods[N][PODS];
		struct job_view views[N];
		size_t n = 1 + pick(N);
		char name[64];

		for (size_t i = 0; i < n; i++) {
			size_t np = pick(PODS + 1);

			snprintf(name, sizeof(name), "%s-%zu", word(), i);
			jobs[i] = fx_job(pick(2) ? JOB_TFJOB : JOB_PYTORCHJOB, name,
			                 FX_T0 - (int64_t)pick(100000));
			fx_set(&jobs[i]->priority_class, pick(3) ? "" : word());
			if (pick(3)) {
				jobs[i]->start_time = jobs[i]->meta.created + pick(60);
				fx_job_condition(jobs[i], "Running", true, jobs[i]->start_time);
			}
			if (!pick(4))
				fx_job_condition(jobs[i], pick(2) ? "Succeeded" : "Failed", true,
				                 FX_T0 - pick(50));
			for (size_t k = 0; k < np; k++) {
				snprintf(name, sizeof(name), "%s-%s-%zu", jobs[i]->meta.name, word(), k);
				pods[i][k] = job_pod(jobs[i], name, k ? "worker" : "chief",
				                     PHASES[pick(4)], (int)pick(3), pick(2) ? word() : "");
			}
			views[i] = fx_view(jobs[i], (const struct pod *const *)pods[i], np);
		}
		for (int yaml = 0; yaml <= 1; yaml++) {
			char *json_text = FX_RENDER(render_jobs_list_json(sb, views, n));
			char *got = yaml ? FX_RENDER(render_jobs_list_yaml(sb, views, n))
			                 : strdup(json_text);
			char *want = jansson_again(json_text, yaml);

			if (!want || strcmp(got, want) != 0) {
				failures++;
				CHECK_STR_EQ(got, want);
			}
			free(json_text);
			free(got);
			free(want);
		}
		for (size_t i = 0; i < n; i++) {
			for (size_t k = 0; k < views[i].n_pods; k++)
				fx_pod_free(pods[i][k]);
			fx_job_free(jobs[i]);
		}
	}
	CHECK_INT_EQ(failures, 0);
}
