/*
 * Tests render/job_info.c: arena get's report for jobs with no, one and many
 * instances, running and finished, the pending reasons, the TensorBoard block and
 * hostile messages.
 */
#include "render/render.h"
#include "render/job_info.h"
#include "render/why.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* info below its first paragraph, which must be the why line (test_render_why.c)
 * and a blank line: Arena's report. */
static char *info_of(const struct job_view *v)
{
	char *info = FX_RENDER(render_job_info(sb, v));
	char *why = FX_RENDER(render_job_why(sb, v));
	size_t n = strlen(why);
	char *arena;

	CHECK(strncmp(info, why, n) == 0 && info[n] == '\n');
	arena = strdup(strncmp(info, why, n) == 0 && info[n] == '\n' ? info + n + 1 : info);
	free(info);
	free(why);
	return arena;
}

TEST(info_of_a_job_without_instances)
{
	struct job *j = fx_job(JOB_PYTORCHJOB, "bert", FX_T0 - 30);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	fx_job_condition(j, "Created", true, FX_T0 - 30);
	s = info_of(&v);
	CHECK_STR_EQ(s, "Name:        bert\n"
	                "Status:      PENDING\n"
	                "Namespace:   default\n"
	                "Priority:    N/A\n"
	                "Trainer:     PYTORCHJOB\n"
	                "Duration:    30s\n"
	                "CreateTime:  2026-12-02 09:59:30\n"
	                "EndTime:     N/A\n"
	                "\n"
	                "Instances:\n"
	                "  NAME  STATUS  AGE  IS_CHIEF  GPU(Requested)  NODE\n"
	                "  ----  ------  ---  --------  --------------  ----\n");
	free(s);
	fx_job_free(j);
}

TEST(info_of_a_running_job_with_one_instance)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 700);
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, POD_RUNNING);
	struct container *c = fx_container(p, "tensorflow", 1);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_set(&j->priority_class, "high");
	j->start_time = FX_T0 - 618;
	fx_job_condition(j, "Running", true, FX_T0 - 600);
	fx_set(&p->node_name, "gpu-node-1");
	p->start_time = FX_T0 - 610;
	fx_state(&c->state, CONTAINER_RUNNING, "", 0, FX_T0 - 125, 0);
	c->ready = true;
	s = info_of(&v);
	CHECK_STR_EQ(s, "Name:        mnist\n"
	                "Status:      RUNNING\n"
	                "Namespace:   default\n"
	                "Priority:    high\n"
	                "Trainer:     TFJOB\n"
	                "Duration:    10m\n"
	                "CreateTime:  2026-12-02 09:48:20\n"
	                "EndTime:     N/A\n"
	                "\n"
	                "Instances:\n"
	                "  NAME            STATUS   AGE  IS_CHIEF  GPU(Requested)  NODE\n"
	                "  ----            ------   ---  --------  --------------  ----\n"
	                "  mnist-worker-0  Running  2m   true      1               gpu-node-1\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_of_a_finished_job_shows_its_end)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 7200);
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, POD_SUCCEEDED);
	struct container *c = fx_container(p, "tensorflow", 0);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	j->start_time = FX_T0 - 7000;
	fx_job_condition(j, "Running", false, FX_T0 - 3400);
	fx_job_condition(j, "Succeeded", true, FX_T0 - 3400);
	fx_state(&c->state, CONTAINER_TERMINATED, "Completed", 0, FX_T0 - 6990, FX_T0 - 3401);
	fx_set(&p->node_name, "n1");
	/* No completionTime: the Succeeded transition ends it. */
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "Status:      SUCCEEDED\n");
	CHECK_STR_CONTAINS(s, "Duration:    1h\n");
	CHECK_STR_CONTAINS(s, "EndTime:     2026-12-02 09:03:20\n");
	/* The pod's age is how long its container ran, not since when. */
	CHECK_STR_CONTAINS(s, "  mnist-worker-0  Completed  59m  true      0               n1\n");
	free(s);
	j->completion_time = FX_T0 - 3000;
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "EndTime:     2026-12-02 09:10:00\n");
	CHECK_STR_CONTAINS(s, "Duration:    1h\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_with_many_instances_pending_reasons_and_tensorboard)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 700);
	struct pod *pods[4];
	struct service *svc =
	    fx_service("mnist-tensorboard", "mnist", "tensorboard", "NodePort", 6006, 30606, "");
	struct k8s_node *node = fx_node("node-1", "192.168.1.10", true, 8, 8);
	struct job_view v;
	char *s;

	j->start_time = FX_T0 - 650;
	fx_job_condition(j, "Running", true, FX_T0 - 600);
	pods[0] = fx_pod("mnist-worker-1", j, "worker", 1, POD_PENDING);
	fx_container(pods[0], "tensorflow", 1);
	fx_set(&pods[0]->unschedulable, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
	pods[0]->meta.created = FX_T0 - 45;
	pods[1] = fx_pod("mnist-ps-0", j, "ps", 0, POD_RUNNING);
	fx_container(pods[1], "tensorflow", 0);
	fx_set(&pods[1]->node_name, "node-2");
	pods[1]->start_time = FX_T0 - 640;
	fx_state(&pods[1]->containers[0].state, CONTAINER_RUNNING, "", 0, FX_T0 - 630, 0);
	pods[1]->containers[0].ready = true;
	pods[2] = fx_pod("mnist-chief-0", j, "chief", 0, POD_RUNNING);
	fx_container(pods[2], "tensorflow", 2);
	fx_set(&pods[2]->node_name, "node-1");
	fx_state(&pods[2]->containers[0].state, CONTAINER_RUNNING, "", 0, FX_T0 - 30, 0);
	pods[2]->containers[0].ready = true;
	pods[3] = fx_pod("mnist-worker-0", j, "worker", 0, POD_PENDING);
	fx_container(pods[3], "tensorflow", 1);
	fx_set(&pods[3]->node_name, "node-1");
	fx_state(&pods[3]->containers[0].state, CONTAINER_WAITING, "ImagePullBackOff", 0, 0, 0);
	fx_set(&pods[3]->containers[0].state.message,
	       "Back-off pulling image \"tf:nope\"\n\tnext try in 20s");
	pods[3]->meta.created = FX_T0 - 125;
	v = fx_view(j, (const struct pod *const *)pods, 4);
	v.services = (const struct service *const *)&svc;
	v.n_services = 1;
	v.nodes = (const struct k8s_node *const *)&node;
	v.n_nodes = 1;
	s = info_of(&v);
	CHECK_STR_EQ(s,
	             "Name:        mnist\n"
	             "Status:      PENDING\n"
	             "Namespace:   default\n"
	             "Priority:    N/A\n"
	             "Trainer:     TFJOB\n"
	             "Duration:    10m\n"
	             "CreateTime:  2026-12-02 09:48:20\n"
	             "EndTime:     N/A\n"
	             "\n"
	             "Instances:\n"
	             "  NAME            STATUS            AGE  IS_CHIEF  GPU(Requested)  NODE\n"
	             "  ----            ------            ---  --------  --------------  ----\n"
	             "  mnist-chief-0   Running           30s  true      2               node-1\n"
	             "  mnist-ps-0      Running           10m  false     0               node-2\n"
	             "  mnist-worker-0  ImagePullBackOff  2m   false     1               N/A\n"
	             "  mnist-worker-1  Pending           45s  false     1               N/A\n"
	             "\n"
	             "Pending Instances:\n"
	             "  NAME            REASON            MESSAGE\n"
	             "  ----            ------            -------\n"
	             "  mnist-worker-0  ImagePullBackOff  Back-off pulling image \"tf:nope\"  next "
	             "try in 20s\n"
	             "  mnist-worker-1  Unschedulable     0/3 nodes are available: 3 Insufficient "
	             "nvidia.com/gpu.\n"
	             "\n"
	             "Tensorboard:\n"
	             "  Your tensorboard will be available on:\n"
	             "  http://192.168.1.10:30606\n");
	free(s);
	for (int i = 0; i < 4; i++)
		fx_pod_free(pods[i]);
	fx_service_free(svc);
	fx_node_free(node);
	fx_job_free(j);
}

TEST(info_pending_pod_without_a_reason_shows_its_status)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, POD_PENDING);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_container(p, "tensorflow", 0);
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "Pending Instances:\n  NAME            REASON   MESSAGE\n"
	                      "  ----            ------   -------\n  mnist-worker-0  Pending\n");
	free(s);
	/* A pod being deleted is not waiting for anything. */
	p->meta.deleted = FX_T0;
	s = info_of(&v);
	CHECK(!strstr(s, "Pending Instances:"));
	CHECK_STR_CONTAINS(s, "  mnist-worker-0  Terminating");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_hostile_names_keep_the_layout)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, POD_PENDING);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s, *line;
	int lines = 0;

	fx_set(&j->priority_class, "evil\nStatus:\tSUCCEEDED");
	fx_set(&p->unschedulable, "line1\r\nline2\x1b[31m\tred");
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "Priority:    evil Status: SUCCEEDED\n");
	CHECK_STR_CONTAINS(s, "Unschedulable  line1  line2 [31m red\n");
	CHECK(!strchr(s, '\t') && !strchr(s, '\r') && !strchr(s, '\x1b'));
	for (line = s; (line = strchr(line, '\n')); line++)
		lines++;
	CHECK_INT_EQ(lines, 18);
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_mpi_duration_from_creation)
{
	struct job *j = fx_job(JOB_MPIJOB_V2, "hvd", FX_T0 - 7200);
	struct pod *p = fx_pod("hvd-launcher", j, "launcher", -1, POD_RUNNING);
	struct job_view v = fx_view(j, (const struct pod *const *)&p, 1);
	char *s;

	fx_container(p, "mpi", 0);
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "Status:      RUNNING\n");
	CHECK_STR_CONTAINS(s, "Trainer:     MPIJOB\n");
	CHECK_STR_CONTAINS(s, "Duration:    2h\n");
	CHECK_STR_CONTAINS(s, "  hvd-launcher  Running  10m  true");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_of_a_finished_job_whose_pods_are_gone_says_whether_their_logs_were_kept)
{
	static const char *const KEPT[] = {"mnist-worker-0", "mnist-worker-1"};
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 7200);
	struct pod *p = fx_pod("mnist-ps-0", j, "ps", 0, POD_RUNNING);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	j->start_time = FX_T0 - 7000;
	fx_job_condition(j, "Succeeded", true, FX_T0 - 3400);
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "  (none: the pods of this finished job are gone, and their logs "
			      "with them; logs reads fail with ENODATA)\n");
	free(s);
	/* keep_logs meant to keep them, and the disk was full: that is the reason given */
	{
		struct logs_kept_state keep = {.budget = 1 << 20, .asked = 256u << 20,
					       .err = ENOSPC, .since = FX_T0};

		v.keep = &keep;
		s = info_of(&v);
		CHECK_STR_CONTAINS(s, "  (none: the pods of this finished job are gone; logs are "
				      "not being kept: No space left on device (cluster/health); "
				      "logs reads fail with ENODATA)\n");
		CHECK(strstr(s, "and their logs with them") == NULL);
		free(s);
		v.keep = NULL;
	}
	/* keep_logs: the logs are read from arenafs' copies */
	v.kept_pods = KEPT;
	v.n_kept_pods = 2;
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "  ----  ------  ---  --------  --------------  ----\n"
			      "  (none: the pods of this finished job are gone; logs and "
			      "instances/POD/logs read the copies arenafs kept of their logs: "
			      "mnist-worker-0 mnist-worker-1)\n");
	free(s);
	/* some pods left (cleanPodPolicy Running deletes the PS only), the others gone */
	fx_set(&p->node_name, "n1");
	v.pods = (const struct pod *const *)&p;
	v.n_pods = 1;
	s = info_of(&v);
	CHECK_STR_CONTAINS(s, "  mnist-ps-0  Running  ");
	CHECK_STR_CONTAINS(s, "n1\n  (gone, their logs kept by arenafs: mnist-worker-0 "
			      "mnist-worker-1)\n");
	free(s);
	fx_pod_free(p);
	fx_job_free(j);
}

TEST(info_lists_the_claims_the_job_mounts)
{
	struct job *j = fx_job(JOB_PYTORCHJOB, "bert", FX_T0 - 30);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	fx_set(&j->claims, "imagenet,scratch");
	s = info_of(&v);
	CHECK(strstr(s, "  ----  ------  ---  --------  --------------  ----\n"
	                "\n"
	                "Data:\n"
	                "  imagenet\n"
	                "  scratch\n") != NULL);
	free(s);
	fx_job_free(j);
}
