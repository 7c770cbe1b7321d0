/*
 * Tests render/why.c: the one line of jobs/NAME/why for every case it tells
 * (succeeded, failed, OOMKilled, suspended, pods refused, image pull, the
 * scheduler, crashing, restarted, starting, no pods, running), which case wins
 * when several hold, hostile messages kept to one line, and that it heads info.
 */
#include "render/render.h"
#include "render/why.h"
#include "render/job_info.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>
#include <string.h>

static char *why_of(const struct job_view *v)
{
	return FX_RENDER(render_job_why(sb, v));
}

/* A TFJob "mnist" with one worker replica, created an hour before FX_T0. */
static struct job *mnist(void)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 3600);

	fx_job_replica(j, "Worker", 1, 1);
	return j;
}

static struct pod *worker(const struct job *j, enum pod_phase phase, struct container **c)
{
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, phase);

	*c = fx_container(p, "tensorflow", 1);
	fx_set(&(*c)->image, "tensorflow/tensorflow:2.15.0-gpu");
	p->meta.created = FX_T0 - 3500;
	return p;
}

TEST(why_of_a_succeeded_job_says_when_and_how_long)
{
	struct job *j = mnist();
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	j->start_time = FX_T0 - 3000;
	j->completion_time = FX_T0 - 1200;
	fx_job_condition(j, "Succeeded", true, FX_T0 - 1200);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Succeeded at 2026-12-02 09:40:00 UTC, after running 30m.\n");
	free(s);
	fx_job_free(j);
}

TEST(why_of_a_failed_job_names_the_instance_exit_code_and_log)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_FAILED, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	j->start_time = FX_T0 - 3000;
	fx_job_condition(j, "Failed", true, FX_T0 - 60);
	fx_state(&c->state, CONTAINER_TERMINATED, "Error", 2, FX_T0 - 3000, FX_T0 - 70);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:00 UTC: instance mnist-worker-0 ended with exit "
	                "code 2 (Error); its log: instances/mnist-worker-0/logs.\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

/* a failed container's log: NUL inside a line, bytes that are not UTF-8, é as UTF-8 */
#define RAW_TAIL "before\0NUL\0after\n\xff\xfe caf\xe9 \xc3\xa9t\xc3\xa9\n"

TEST(why_of_a_failed_job_quotes_the_end_of_its_kept_log)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_FAILED, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	const struct pod *fp;
	const struct container *fc;
	bool previous;
	char *s;

	fx_job_condition(j, "Failed", true, FX_T0 - 60);
	fx_state(&c->state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 3000, FX_T0 - 70);
	CHECK(render_job_why_failure(&v, &fp, &fc, &previous));
	CHECK(fp == p && fc == c && !previous);
	v.failed_log_tail = "epoch 1\nepoch 2\nepoch 3\nepoch 4\nepoch 5\nTraceback:\n"
	                    "  \x1b[31mKeyError\x1b[0m: 'x'\n\n";
	v.failed_log_tail_len = strlen(v.failed_log_tail);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:00 UTC: instance mnist-worker-0 ended with exit "
	                "code 1 (Error); its log: instances/mnist-worker-0/logs, which ends:\n"
	                "    epoch 3\n"
	                "    epoch 4\n"
	                "    epoch 5\n"
	                "    Traceback:\n"
	                "       [31mKeyError [0m: 'x'\n");
	free(s);
	/* fewer lines than asked for, without a final newline */
	v.failed_log_tail = "only line";
	v.failed_log_tail_len = strlen(v.failed_log_tail);
	s = why_of(&v);
	CHECK_STR_CONTAINS(s, "which ends:\n    only line\n");
	free(s);
	/* Issue 33: the bytes as written, NUL and all; what is not UTF-8 as U+FFFD, never
	 * raw (a log read as a C string was quoted up to its first NUL) */
	v.failed_log_tail = RAW_TAIL;
	v.failed_log_tail_len = sizeof(RAW_TAIL) - 1;
	s = why_of(&v);
	CHECK_STR_CONTAINS(s, "which ends:\n    before NUL after\n"
	                      "    \xEF\xBF\xBD\xEF\xBF\xBD caf\xEF\xBF\xBD \xc3\xa9t\xc3\xa9\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_an_oom_killed_job_says_so_in_words)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_FAILED, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_job_condition(j, "Failed", true, FX_T0 - 60);
	fx_state(&c->state, CONTAINER_TERMINATED, "OOMKilled", 137, FX_T0 - 3000, FX_T0 - 70);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:00 UTC: instance mnist-worker-0 ended with exit "
	                "code 137: killed for lack of memory (OOMKilled); its log: "
	                "instances/mnist-worker-0/logs.\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_a_failed_job_names_the_first_failure_and_a_previous_instance)
{
	struct job *j = mnist();
	struct container *c0, *c1;
	struct pod *p[2];
	struct job_view v;
	char *s;

	p[0] = worker(j, POD_RUNNING, &c0);
	p[1] = fx_pod("mnist-worker-1", j, "worker", 1, POD_FAILED);
	c1 = fx_container(p[1], "tensorflow", 1);
	v = fx_view(j, (const struct pod *const *)p, 2);
	fx_job_condition(j, "Failed", true, FX_T0 - 10);
	/* worker 0 failed first, restarted and runs; worker 1 failed later */
	fx_state(&c0->state, CONTAINER_RUNNING, "", 0, FX_T0 - 100, 0);
	fx_state(&c0->last_state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 300, FX_T0 - 200);
	c0->restart_count = 1;
	fx_state(&c1->state, CONTAINER_TERMINATED, "Error", 3, FX_T0 - 300, FX_T0 - 20);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:50 UTC: instance mnist-worker-0 ended with exit "
	                "code 1 (Error); its log: instances/mnist-worker-0/logs.previous.\n");
	free(s);
	fx_pod_free(p[0]);
	fx_pod_free(p[1]);
	fx_job_free(j);
}

TEST(why_of_a_failed_job_without_pods_gives_the_operators_message)
{
	struct job *j = mnist();
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	fx_job_condition(j, "Failed", true, FX_T0 - 60);
	fx_set(&j->conditions[0].message, "TFJob default/mnist has failed because 1 Worker "
	                                  "replica(s) failed.");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:00 UTC: TFJob default/mnist has failed because "
	                "1 Worker replica(s) failed.\n");
	free(s);
	fx_set(&j->conditions[0].message, "");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Failed at 2026-12-02 09:59:00 UTC; its pods are gone, so which instance "
	                "failed cannot be told.\n");
	free(s);
	fx_job_free(j);
}

TEST(why_of_a_suspended_job_says_a_queue_may_hold_it)
{
	struct job *j = mnist();
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	fx_job_condition(j, "Created", true, FX_T0 - 3600);
	fx_job_condition(j, "Suspended", true, FX_T0 - 600);
	fx_set(&j->conditions[1].message, "TFJob mnist is suspended.");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Suspended since 2026-12-02 09:50:00 UTC: no instance runs until it is "
	                "resumed (by its owner, or by a queue such as Kueue admitting it); the "
	                "operator says: TFJob mnist is suspended.\n");
	free(s);
	fx_job_free(j);
}

TEST(why_of_a_job_whose_pods_are_refused_quotes_the_operators_event)
{
	struct job *j = mnist();
	struct event *e = fx_event("mnist.1", "TFJob", "mnist", "Warning", "FailedCreatePod",
	                           "Error creating: pods \"mnist-worker-0\" is forbidden: no "
	                           "PriorityClass with name nope was found",
	                           FX_T0 - 30);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	e->count = 4;
	v.events = (const struct event *const *)&e;
	v.n_events = 1;
	s = why_of(&v);
	CHECK_STR_EQ(s, "Pods refused: 0 of 1 instances exist; the operator could not create the "
	                "others: Error creating: pods \"mnist-worker-0\" is forbidden: no "
	                "PriorityClass with name nope was found (FailedCreatePod, 4 times, last 30s "
	                "ago).\n");
	free(s);
	fx_event_free(e);
	fx_job_free(j);
}

/* A TrainJob's pods are made by its JobSet's batch Job: that Job's refusal is the
 * job's (its events are in the view, by the owner chain). */
TEST(why_of_a_job_whose_batch_job_is_refused_its_pods_quotes_that_jobs_event)
{
	struct job *j = mnist();
	struct event *e = fx_event("mnist-node-0.1", "Job", "mnist-node-0", "Warning",
	                           "FailedCreate", "Error creating: pods \"mnist-node-0-0-x\" is "
	                           "forbidden: exceeded quota: gpus", FX_T0 - 30);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	v.events = (const struct event *const *)&e;
	v.n_events = 1;
	s = why_of(&v);
	CHECK_STR_CONTAINS(s, "Pods refused: 0 of 1 instances exist; the operator could not create "
	                      "the others: Error creating: pods \"mnist-node-0-0-x\" is forbidden: "
	                      "exceeded quota: gpus (FailedCreate, ");
	free(s);
	fx_event_free(e);
	fx_job_free(j);
}

TEST(why_ignores_a_refusal_once_every_pod_exists)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_RUNNING, &c);
	struct event *e = fx_event("mnist.1", "TFJob", "mnist", "Warning", "FailedCreatePod",
	                           "Error creating: quota", FX_T0 - 300);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	v.events = (const struct event *const *)&e;
	v.n_events = 1;
	j->start_time = FX_T0 - 120;
	fx_job_condition(j, "Running", true, FX_T0 - 120);
	fx_state(&c->state, CONTAINER_RUNNING, "", 0, FX_T0 - 120, 0);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Running since 2026-12-02 09:58:00 UTC (2m), 1 instance.\n");
	free(s);
	fx_event_free(e);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_an_image_that_cannot_be_pulled)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_PENDING, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_set(&p->node_name, "gpu-node-1");
	fx_state(&c->state, CONTAINER_WAITING, "ImagePullBackOff", 0, 0, 0);
	fx_set(&c->state.message, "Back-off pulling image \"tensorflow/tensorflow:2.15.0-gpu\"");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Image cannot be pulled: instance mnist-worker-0 waits for image "
	                "tensorflow/tensorflow:2.15.0-gpu (ImagePullBackOff: Back-off pulling image "
	                "\"tensorflow/tensorflow:2.15.0-gpu\").\n");
	free(s);
	fx_state(&c->state, CONTAINER_WAITING, "ErrImagePull", 0, 0, 0);
	fx_set(&c->state.message, "");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Image cannot be pulled: instance mnist-worker-0 waits for image "
	                "tensorflow/tensorflow:2.15.0-gpu (ErrImagePull).\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_a_job_the_scheduler_cannot_place_quotes_it)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p[2];
	struct job_view v;
	char *s;

	j->replicas[0].replicas = 2;
	p[0] = worker(j, POD_PENDING, &c);
	p[1] = fx_pod("mnist-worker-1", j, "worker", 1, POD_PENDING);
	fx_container(p[1], "tensorflow", 1);
	p[1]->meta.created = FX_T0 - 3500;
	v = fx_view(j, (const struct pod *const *)p, 2);
	fx_set(&p[0]->unschedulable, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. "
	                             "preemption: 0/3 nodes are available: 3 No preemption victims "
	                             "found for incoming pod.");
	fx_set(&p[1]->unschedulable, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
	s = why_of(&v);
	CHECK_STR_EQ(s, "Waiting for the scheduler: instance mnist-worker-0 and 1 more wait, pending "
	                "58m: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 "
	                "nodes are available: 3 No preemption victims found for incoming pod.\n");
	free(s);
	fx_pod_free(p[0]);
	fx_pod_free(p[1]);
	fx_job_free(j);
}

TEST(why_of_an_unscheduled_pod_falls_back_on_its_event)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_PENDING, &c);
	struct event *e[2] = {
	    fx_event("a", "Pod", "mnist-worker-0", "Warning", "FailedScheduling",
	             "0/2 nodes are available: old.", FX_T0 - 600),
	    fx_event("b", "Pod", "mnist-worker-0", "Warning", "FailedScheduling",
	             "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", FX_T0 - 5),
	};
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	v.events = (const struct event *const *)e;
	v.n_events = 2;
	s = why_of(&v);
	CHECK_STR_EQ(s, "Waiting for the scheduler: instance mnist-worker-0 waits, pending 58m: 0/2 "
	                "nodes are available: 2 Insufficient nvidia.com/gpu.\n");
	free(s);
	fx_event_free(e[0]);
	fx_event_free(e[1]);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_a_crashing_container_counts_its_restarts)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_RUNNING, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_job_condition(j, "Running", true, FX_T0 - 3000);
	fx_set(&p->node_name, "gpu-node-1");
	c->restart_count = 3;
	fx_state(&c->state, CONTAINER_WAITING, "CrashLoopBackOff", 0, 0, 0);
	fx_state(&c->last_state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 100, FX_T0 - 40);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Crashing: instance mnist-worker-0 has restarted 3 times and waits to start "
	                "again (CrashLoopBackOff); the last ended with exit code 1 (Error) 40s ago; "
	                "its log before: instances/mnist-worker-0/logs.previous.\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_a_running_job_says_since_when_and_its_restarts)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_RUNNING, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	j->start_time = FX_T0 - 3000;
	fx_job_condition(j, "Running", true, FX_T0 - 3000);
	fx_state(&c->state, CONTAINER_RUNNING, "", 0, FX_T0 - 100, 0);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Running since 2026-12-02 09:10:00 UTC (50m), 1 instance.\n");
	free(s);
	c->restart_count = 1;
	fx_state(&c->last_state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 3000, FX_T0 - 101);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Running since 2026-12-02 09:10:00 UTC (50m), 1 instance; instance "
	                "mnist-worker-0 restarted 1 time; the last ended with exit code 1 (Error) "
	                "1m ago.\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_of_a_running_job_with_restarts_in_two_instances_names_the_most)
{
	struct job *j = mnist();
	struct container *c0, *c1;
	struct pod *p[2];
	struct job_view v;
	char *s;

	p[0] = worker(j, POD_RUNNING, &c0);
	p[1] = fx_pod("mnist-worker-1", j, "worker", 1, POD_RUNNING);
	c1 = fx_container(p[1], "tensorflow", 1);
	v = fx_view(j, (const struct pod *const *)p, 2);
	j->start_time = FX_T0 - 3000;
	fx_job_condition(j, "Running", true, FX_T0 - 3000);
	fx_state(&c0->state, CONTAINER_RUNNING, "", 0, FX_T0 - 100, 0);
	fx_state(&c1->state, CONTAINER_RUNNING, "", 0, FX_T0 - 100, 0);
	c0->restart_count = 1;
	c1->restart_count = 2;
	fx_state(&c1->last_state, CONTAINER_TERMINATED, "OOMKilled", 137, FX_T0 - 300, FX_T0 - 120);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Running since 2026-12-02 09:10:00 UTC (50m), 2 instances; restarted 3 times "
	                "in all, most instance mnist-worker-1 (2); the last ended with exit code 137: "
	                "killed for lack of memory (OOMKilled) 2m ago.\n");
	free(s);
	fx_pod_free(p[0]);
	fx_pod_free(p[1]);
	fx_job_free(j);
}

TEST(why_of_a_starting_pod_and_of_a_job_without_pods)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_PENDING, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_set(&p->node_name, "gpu-node-1");
	fx_state(&c->state, CONTAINER_WAITING, "ContainerCreating", 0, 0, 0);
	s = why_of(&v);
	CHECK_STR_EQ(s, "Starting: instance mnist-worker-0 is ContainerCreating on node gpu-node-1, "
	                "created 58m ago.\n");
	free(s);
	v = fx_view(j, NULL, 0);
	s = why_of(&v);
	CHECK_STR_EQ(s, "No instance yet: created 1h ago, the operator has made no pod for it (its "
	                "events: events).\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_is_one_line_whatever_the_cluster_says)
{
	struct job *j = mnist();
	struct container *c;
	struct pod *p = worker(j, POD_PENDING, &c);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char big[4000];
	char *s;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[10] = '\n';
	big[20] = '\033';
	fx_set(&p->unschedulable, big);
	s = why_of(&v);
	CHECK(strchr(s, '\n') == s + strlen(s) - 1);
	CHECK(strchr(s, '\033') == NULL);
	CHECK(strlen(s) < 700);
	CHECK(strstr(s, "...\n") != NULL);
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(why_heads_info)
{
	struct job *j = mnist();
	struct job_view v = fx_view(j, NULL, 0);
	char *s = FX_RENDER(render_job_info(sb, &v));

	CHECK(strncmp(s, "No instance yet: created 1h ago, the operator has made no pod for it (its "
	                 "events: events).\n\nName:        mnist\n",
	              strlen("No instance yet: created 1h ago, the operator has made no pod for it "
	                     "(its events: events).\n\nName:        mnist\n")) == 0);
	free(s);
	fx_job_free(j);
}
