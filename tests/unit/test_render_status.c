/* Tests render/status.c: Arena's job status for every kind, kubectl's pod STATUS. */
#include "render/render.h"
#include "render/status.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

static const char *status_of(const struct job *j, struct pod **pods, size_t n)
{
	struct job_view v = fx_view(j, (const struct pod *const *)pods, n);

	return render_job_status_word(&v);
}

/* The five training-operator kinds share one mapping. */
static const enum job_kind OPERATOR_KINDS[] = {JOB_TFJOB, JOB_PYTORCHJOB, JOB_XGBOOSTJOB,
                                               JOB_PADDLEJOB, JOB_JAXJOB};

TEST(job_status_operator_kinds_follow_condition_priority)
{
	for (size_t k = 0; k < sizeof(OPERATOR_KINDS) / sizeof(OPERATOR_KINDS[0]); k++) {
		enum job_kind kind = OPERATOR_KINDS[k];
		struct job *j = fx_job(kind, "mnist", FX_T0 - 100);

		CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING"); /* no conditions */
		fx_job_condition(j, "Created", true, FX_T0 - 99);
		CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING");
		fx_job_condition(j, "Queuing", true, FX_T0 - 98);
		CHECK_STR_EQ(status_of(j, NULL, 0), "QUEUING");
		fx_job_condition(j, "Running", true, FX_T0 - 90);
		CHECK_STR_EQ(status_of(j, NULL, 0), "RUNNING");
		/* Running stays (False) next to Succeeded. */
		j->conditions[2].status = false;
		fx_job_condition(j, "Succeeded", true, FX_T0 - 10);
		CHECK_STR_EQ(status_of(j, NULL, 0), "SUCCEEDED");
		fx_job_free(j);
	}
}

TEST(job_status_priority_is_not_list_order)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);

	/* A restarted job may list Failed=True before Running=True: Failed wins. */
	fx_job_condition(j, "Failed", true, FX_T0 - 50);
	fx_job_condition(j, "Running", true, FX_T0 - 40);
	CHECK_STR_EQ(status_of(j, NULL, 0), "FAILED");
	/* Succeeded outranks Failed wherever it stands. */
	fx_job_condition(j, "Succeeded", true, FX_T0 - 30);
	CHECK_STR_EQ(status_of(j, NULL, 0), "SUCCEEDED");
	fx_job_free(j);

	j = fx_job(JOB_PYTORCHJOB, "p", FX_T0 - 100);
	fx_job_condition(j, "Running", false, FX_T0 - 40);
	fx_job_condition(j, "Restarting", true, FX_T0 - 30);
	CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING");
	/* The operator's Suspended condition is the word (Arena says PENDING). */
	fx_job_condition(j, "Suspended", true, FX_T0 - 20);
	CHECK_STR_EQ(status_of(j, NULL, 0), "SUSPENDED");
	fx_job_free(j);
}

/* Every kind with a suspend: SUSPENDED while its operator's Suspended condition is
 * True, whatever Running said before; an ended job keeps its end; a resumed one
 * (Suspended False) is RUNNING again once Running is. */
TEST(job_status_suspended_for_every_kind_that_can_be)
{
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		struct job *j;
		struct pod *pods[1];

		if (!kinds_info((enum job_kind)k)->suspend_field)
			continue;
		j = fx_job((enum job_kind)k, "s", FX_T0 - 100);
		pods[0] = fx_pod("s-worker-0", j, "launcher", 0, POD_RUNNING);
		fx_job_condition(j, "Running", true, FX_T0 - 90);
		CHECK_STR_EQ(status_of(j, pods, 1), "RUNNING");
		j->conditions[0].status = false;
		fx_job_condition(j, "Suspended", true, FX_T0 - 50);
		CHECK_STR_EQ(status_of(j, NULL, 0), "SUSPENDED");
		j->conditions[1].status = false; /* resumed */
		j->conditions[0].status = true;
		CHECK_STR_EQ(status_of(j, pods, 1), "RUNNING");
		j->conditions[1].status = true;
		fx_job_condition(j, k == JOB_TRAINJOB ? "Complete" : "Succeeded", true, FX_T0 - 5);
		CHECK_STR_EQ(status_of(j, NULL, 0), "SUCCEEDED");
		fx_pod_free(pods[0]);
		fx_job_free(j);
	}
	/* the kinds without one: the read-only kinds */
	CHECK(kinds_info(JOB_TFJOB)->suspend_field != NULL);
	CHECK(kinds_info(JOB_TRAINJOB)->suspend_field != NULL);
	CHECK(kinds_info(JOB_VOLCANOJOB)->suspend_field == NULL);
	CHECK(kinds_info(JOB_RAYJOB)->suspend_field == NULL);
}

TEST(job_status_running_with_a_pending_pod_is_pending)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct pod *pods[2];

	fx_job_condition(j, "Running", true, FX_T0 - 90);
	pods[0] = fx_pod("mnist-worker-0", j, "worker", 0, POD_RUNNING);
	pods[1] = fx_pod("mnist-worker-1", j, "worker", 1, POD_PENDING);
	CHECK_STR_EQ(status_of(j, pods, 2), "PENDING");
	pods[1]->phase = POD_RUNNING;
	CHECK_STR_EQ(status_of(j, pods, 2), "RUNNING");
	/* Only RUNNING is turned: a finished job with a leftover Pending pod stays finished. */
	pods[1]->phase = POD_PENDING;
	fx_job_condition(j, "Succeeded", true, FX_T0 - 5);
	CHECK_STR_EQ(status_of(j, pods, 2), "SUCCEEDED");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(j);
}

TEST(job_status_mpi_follows_the_launcher)
{
	enum job_kind kinds[] = {JOB_MPIJOB, JOB_MPIJOB_V2};

	for (size_t k = 0; k < 2; k++) {
		struct job *j = fx_job(kinds[k], "hvd", FX_T0 - 100);
		struct pod *pods[3];

		pods[0] = fx_pod("hvd-worker-0", j, "worker", 0, POD_RUNNING);
		pods[1] = fx_pod("hvd-launcher", j, "launcher", -1, POD_PENDING);
		CHECK_STR_EQ(status_of(j, pods, 1), "PENDING"); /* no launcher pod */
		CHECK_STR_EQ(status_of(j, pods, 2), "PENDING"); /* launcher Pending */
		pods[1]->phase = POD_RUNNING;
		CHECK_STR_EQ(status_of(j, pods, 2), "RUNNING");
		pods[0]->phase = POD_PENDING; /* a worker waits */
		CHECK_STR_EQ(status_of(j, pods, 2), "PENDING");
		pods[0]->phase = POD_RUNNING;
		pods[1]->phase = POD_SUCCEEDED;
		CHECK_STR_EQ(status_of(j, pods, 2), "SUCCEEDED");
		pods[1]->phase = POD_FAILED;
		CHECK_STR_EQ(status_of(j, pods, 2), "FAILED");
		/* A retried launcher (v2beta1 launcher Job): the newest pod speaks. */
		pods[2] = fx_pod("hvd-launcher-2", j, "", -1, POD_RUNNING);
		fx_set(&pods[2]->job_role, "launcher");
		pods[2]->meta.created = pods[1]->meta.created + 30;
		CHECK_STR_EQ(status_of(j, pods, 3), "RUNNING");
		/* The job's own verdict comes first, even with no pods left. */
		fx_job_condition(j, "Succeeded", true, FX_T0 - 1);
		CHECK_STR_EQ(status_of(j, NULL, 0), "SUCCEEDED");
		j->conditions[0].status = false;
		fx_job_condition(j, "Failed", true, FX_T0 - 1);
		CHECK_STR_EQ(status_of(j, pods, 3), "FAILED");
		for (int i = 0; i < 3; i++)
			fx_pod_free(pods[i]);
		fx_job_free(j);
	}
}

TEST(job_status_trainjob_by_its_conditions_and_pods)
{
	struct job *j = fx_job(JOB_TRAINJOB, "llm", FX_T0 - 100);
	struct pod *pods[2];

	pods[0] = fx_pod("llm-node-0-0-abcde", j, "node", 0, POD_PENDING);
	pods[1] = fx_pod("llm-node-0-1-fghij", j, "node", 1, POD_RUNNING);
	CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING");
	CHECK_STR_EQ(status_of(j, pods, 1), "PENDING");
	CHECK_STR_EQ(status_of(j, pods + 1, 1), "RUNNING");
	CHECK_STR_EQ(status_of(j, pods, 2), "PENDING"); /* one runs, one waits */
	fx_job_condition(j, "Suspended", true, FX_T0 - 50);
	CHECK_STR_EQ(status_of(j, pods + 1, 1), "SUSPENDED");
	j->conditions[0].status = false;
	fx_job_condition(j, "Failed", true, FX_T0 - 10);
	CHECK_STR_EQ(status_of(j, pods, 2), "FAILED");
	fx_job_condition(j, "Complete", true, FX_T0 - 5);
	CHECK_STR_EQ(status_of(j, pods, 2), "SUCCEEDED");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(j);
}

/* The kinds of one state string: Arena's words for the values it names, the value
 * as it is for the others, PENDING before the operator wrote one. */
TEST(job_status_state_kinds_use_arenas_words)
{
	static const struct {
		enum job_kind kind;
		const char *state, *word;
	} CASES[] = {
	    {JOB_VOLCANOJOB, "", "PENDING"},           {JOB_VOLCANOJOB, "Pending", "PENDING"},
	    {JOB_VOLCANOJOB, "Inqueue", "SUBMITTED"},  {JOB_VOLCANOJOB, "Running", "RUNNING"},
	    {JOB_VOLCANOJOB, "Completed", "SUCCEEDED"}, {JOB_VOLCANOJOB, "Failed", "FAILED"},
	    {JOB_VOLCANOJOB, "Aborted", "Aborted"},    {JOB_SPARKJOB, "", "PENDING"},
	    {JOB_SPARKJOB, "SUBMITTED", "SUBMITTED"},  {JOB_SPARKJOB, "RUNNING", "RUNNING"},
	    {JOB_SPARKJOB, "PENDING_RERUN", "PENDING"}, {JOB_SPARKJOB, "COMPLETED", "SUCCEEDED"},
	    {JOB_SPARKJOB, "FAILED", "FAILED"},        {JOB_SPARKJOB, "SUBMISSION_FAILED",
	                                                 "SUBMISSION_FAILED"},
	    {JOB_RAYJOB, "", "PENDING"},               {JOB_RAYJOB, "PENDING", "PENDING"},
	    {JOB_RAYJOB, "RUNNING", "RUNNING"},        {JOB_RAYJOB, "SUCCEEDED", "SUCCEEDED"},
	    {JOB_RAYJOB, "FAILED", "FAILED"},          {JOB_RAYJOB, "STOPPED", "STOPPED"},
	};

	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		struct job *j = fx_job(CASES[i].kind, "big", FX_T0 - 100);

		fx_set(&j->state, CASES[i].state);
		CHECK_STR_EQ(status_of(j, NULL, 0), CASES[i].word);
		fx_job_free(j);
	}
}

TEST(job_status_state_kinds_running_with_a_pending_pod_is_pending)
{
	struct job *j = fx_job(JOB_SPARKJOB, "pi", FX_T0 - 100);
	struct pod *pods[2];

	fx_set(&j->state, "RUNNING");
	pods[0] = fx_pod("pi-driver", j, "driver", -1, POD_RUNNING);
	pods[1] = fx_pod("pi-exec-1", j, "executor", -1, POD_PENDING);
	CHECK_STR_EQ(status_of(j, pods, 1), "RUNNING");
	CHECK_STR_EQ(status_of(j, pods, 2), "PENDING");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(j);
}

/* ETJob: the phase's end first, then the launcher pod, then the phase. */
TEST(job_status_etjob_reads_its_phase_and_launcher)
{
	struct job *j = fx_job(JOB_ETJOB, "elastic", FX_T0 - 100);
	struct pod *pods[2];

	pods[0] = fx_pod("elastic-launcher", j, "launcher", -1, POD_PENDING);
	pods[1] = fx_pod("elastic-worker-0", j, "worker", 0, POD_RUNNING);
	CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING"); /* no launcher yet */
	fx_set(&j->state, "Running");
	CHECK_STR_EQ(status_of(j, pods + 1, 1), "PENDING"); /* workers only */
	CHECK_STR_EQ(status_of(j, pods, 2), "PENDING");     /* launcher Pending */
	pods[0]->phase = POD_RUNNING;
	CHECK_STR_EQ(status_of(j, pods, 2), "RUNNING");
	fx_set(&j->state, "Scaling");
	CHECK_STR_EQ(status_of(j, pods, 2), "SCALING");
	fx_set(&j->state, "Created"); /* any other phase: RUNNING once the launcher is */
	CHECK_STR_EQ(status_of(j, pods, 2), "RUNNING");
	fx_set(&j->state, "Succeeded");
	CHECK_STR_EQ(status_of(j, NULL, 0), "SUCCEEDED"); /* launcher gone: still succeeded */
	fx_set(&j->state, "Failed");
	CHECK_STR_EQ(status_of(j, NULL, 0), "FAILED");
	/* a spot job whose wait ran out: Arena's own word, after the launcher check */
	fx_kv(&j->meta.annotations, "job-supervisor.kube-ai.io/job-status", "timeout");
	CHECK_STR_EQ(status_of(j, pods, 2), "MAX_WAIT_TIME_EXCEEDED");
	CHECK_STR_EQ(status_of(j, NULL, 0), "PENDING");
	fx_pod_free(pods[0]);
	fx_pod_free(pods[1]);
	fx_job_free(j);
}

TEST(job_status_file_is_the_word_and_a_newline)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	fx_job_condition(j, "Running", true, FX_T0 - 90);
	s = FX_RENDER(render_job_status(sb, &v));
	CHECK_STR_EQ(s, "RUNNING\n");
	free(s);
	fx_job_free(j);
}

static const char *pod_word(const struct pod *p)
{
	static char buf[128];

	return render_pod_status_word(p, buf, sizeof(buf));
}

TEST(pod_status_words_as_kubectl)
{
	struct pod *p = fx_pod("p", NULL, NULL, -1, POD_PENDING);
	struct container *c = fx_container(p, "main", 0);

	CHECK_STR_EQ(pod_word(p), "Pending"); /* nothing reported yet */
	fx_state(&c->state, CONTAINER_WAITING, "ContainerCreating", 0, 0, 0);
	CHECK_STR_EQ(pod_word(p), "ContainerCreating");
	fx_state(&c->state, CONTAINER_WAITING, "ImagePullBackOff", 0, 0, 0);
	CHECK_STR_EQ(pod_word(p), "ImagePullBackOff");
	p->phase = POD_RUNNING;
	fx_state(&c->state, CONTAINER_RUNNING, "", 0, FX_T0 - 60, 0);
	c->ready = true;
	CHECK_STR_EQ(pod_word(p), "Running");
	fx_state(&c->state, CONTAINER_WAITING, "CrashLoopBackOff", 0, 0, 0);
	CHECK_STR_EQ(pod_word(p), "CrashLoopBackOff");
	p->phase = POD_SUCCEEDED;
	fx_state(&c->state, CONTAINER_TERMINATED, "Completed", 0, FX_T0 - 60, FX_T0 - 1);
	CHECK_STR_EQ(pod_word(p), "Completed");
	p->phase = POD_FAILED;
	fx_state(&c->state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 60, FX_T0 - 1);
	CHECK_STR_EQ(pod_word(p), "Error");
	fx_state(&c->state, CONTAINER_TERMINATED, "", 137, FX_T0 - 60, FX_T0 - 1);
	CHECK_STR_EQ(pod_word(p), "ExitCode:137");
	/* The pod's own reason, when no container says more. */
	fx_state(&c->state, CONTAINER_NONE, "", 0, 0, 0);
	fx_set(&p->reason, "Evicted");
	CHECK_STR_EQ(pod_word(p), "Evicted");
	/* Being deleted: Terminating, or Unknown for a lost node. */
	p->meta.deleted = FX_T0;
	CHECK_STR_EQ(pod_word(p), "Terminating");
	fx_set(&p->reason, "NodeLost");
	CHECK_STR_EQ(pod_word(p), "Unknown");
	fx_set(&p->reason, "");
	CHECK_STR_EQ(pod_word(p), "Terminating");
	fx_pod_free(p);
}

TEST(pod_status_init_containers)
{
	struct pod *p = fx_pod("p", NULL, NULL, -1, POD_PENDING);
	struct container *i0, *i1, *c;

	fx_init_container(p, "init-code");
	fx_init_container(p, "init-data");
	fx_container(p, "main", 0);
	i0 = &p->init_containers[0];
	i1 = &p->init_containers[1];
	c = &p->containers[0];

	fx_state(&c->state, CONTAINER_WAITING, "PodInitializing", 0, 0, 0);
	fx_state(&i0->state, CONTAINER_RUNNING, "", 0, FX_T0 - 5, 0);
	CHECK_STR_EQ(pod_word(p), "Init:0/2");
	fx_state(&i0->state, CONTAINER_TERMINATED, "Completed", 0, FX_T0 - 5, FX_T0 - 3);
	fx_state(&i1->state, CONTAINER_WAITING, "PodInitializing", 0, 0, 0);
	CHECK_STR_EQ(pod_word(p), "Init:1/2");
	fx_state(&i1->state, CONTAINER_WAITING, "ErrImagePull", 0, 0, 0);
	CHECK_STR_EQ(pod_word(p), "Init:ErrImagePull");
	fx_state(&i1->state, CONTAINER_TERMINATED, "Error", 2, FX_T0 - 5, FX_T0 - 3);
	CHECK_STR_EQ(pod_word(p), "Init:Error");
	fx_state(&i1->state, CONTAINER_TERMINATED, "", 2, FX_T0 - 5, FX_T0 - 3);
	CHECK_STR_EQ(pod_word(p), "Init:ExitCode:2");
	/* All init containers done: the containers speak. */
	fx_state(&i1->state, CONTAINER_TERMINATED, "Completed", 0, FX_T0 - 5, FX_T0 - 3);
	CHECK_STR_EQ(pod_word(p), "PodInitializing");
	fx_pod_free(p);
}

TEST(pod_status_first_container_wins_and_sidecar_keeps_running)
{
	struct pod *p = fx_pod("p", NULL, NULL, -1, POD_RUNNING);
	struct container *a, *b;

	fx_container(p, "tensorflow", 1);
	fx_container(p, "sidecar", 0);
	a = &p->containers[0];
	b = &p->containers[1];

	fx_state(&a->state, CONTAINER_WAITING, "CrashLoopBackOff", 0, 0, 0);
	fx_state(&b->state, CONTAINER_TERMINATED, "Error", 1, FX_T0 - 9, FX_T0 - 1);
	CHECK_STR_EQ(pod_word(p), "CrashLoopBackOff");
	fx_state(&a->state, CONTAINER_TERMINATED, "Completed", 0, FX_T0 - 9, FX_T0 - 1);
	fx_state(&b->state, CONTAINER_RUNNING, "", 0, FX_T0 - 9, 0);
	b->ready = true;
	CHECK_STR_EQ(pod_word(p), "Running");
	fx_pod_free(p);
}

TEST(pod_status_file_is_single_line)
{
	struct pod *p = fx_pod("p", NULL, NULL, -1, POD_PENDING);
	struct container *c = fx_container(p, "main", 0);
	char *s;

	fx_state(&c->state, CONTAINER_WAITING, "Bad\nReason", 0, 0, 0);
	s = FX_RENDER(render_pod_status(sb, p));
	CHECK_STR_EQ(s, "Bad Reason\n");
	free(s);
	fx_pod_free(p);
}
