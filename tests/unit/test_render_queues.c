/* Tests render/queues.c: a Workload's state word, the job's word and why's sentence
 * while Kueue holds it, and the queue files cluster/queues and queues/list; with the
 * status word (render/status.c) and info's Queue: line (render/job_info.c) they feed;
 * and the queue files' JSON and YAML forms (render/queue_forms.c). */
#include "render/queues.h"
#include "render/queue_forms.h"
#include "render/job_info.h"
#include "render/queue_quota.h"
#include "render/status.h"
#include "render/why.h"
#include "tests/unit/harness.h"
#include "tests/unit/kueue_fixture.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>
#include <string.h>

struct kfx {
	struct workload *queued, *admitted, *preempted, *evicted, *finished;
	struct localqueue *lq;
	struct clusterqueue *cq;
	struct queue_line *line;
};

static bool kfx_make(struct kfx *k)
{
	k->queued = fx_workload(WL_QUEUED);
	k->admitted = fx_workload(WL_ADMITTED);
	k->preempted = fx_workload(WL_PREEMPTED);
	k->evicted = fx_workload(WL_EVICTED);
	k->finished = fx_workload(WL_FINISHED);
	k->lq = fx_localqueue(LQ_V1BETA2);
	k->cq = fx_clusterqueue(CQ_V1BETA2);
	k->line = fx_line("default", "user-queue", LINE_TWO);
	return k->queued && k->admitted && k->preempted && k->evicted && k->finished && k->lq &&
	       k->cq && k->line;
}

static void kfx_free(struct kfx *k)
{
	workload_free(k->queued);
	workload_free(k->admitted);
	workload_free(k->preempted);
	workload_free(k->evicted);
	workload_free(k->finished);
	localqueue_free(k->lq);
	clusterqueue_free(k->cq);
	queue_line_free(k->line);
}

TEST(queues_workload_state_words)
{
	struct kfx k;

	CHECK(kfx_make(&k));
	if (k.queued && k.admitted && k.preempted && k.evicted && k.finished) {
		CHECK_STR_EQ(render_workload_state(k.queued), "QUEUED");
		CHECK_STR_EQ(render_workload_state(k.admitted), "ADMITTED");
		CHECK_STR_EQ(render_workload_state(k.preempted), "PREEMPTED");
		CHECK_STR_EQ(render_workload_state(k.evicted), "EVICTED");
		CHECK_STR_EQ(render_workload_state(k.finished), "FINISHED");
		CHECK(render_queue_word(&(struct job_queue){k.admitted, NULL, NULL, NULL, true}) ==
		      NULL);
		CHECK(render_queue_word(&(struct job_queue){0}) == NULL);
	}
	kfx_free(&k);
}

TEST(queues_status_word_outranks_suspended_but_not_an_end)
{
	struct kfx k;
	struct job *j = fx_job(JOB_TFJOB, "big", KUEUE_T0 - 300);
	struct job_view v;

	CHECK(kfx_make(&k));
	fx_job_condition(j, "Suspended", true, KUEUE_T0 - 300);
	v = fx_view(j, NULL, 0);
	v.queue.workload = k.queued;
	CHECK_STR_EQ(render_job_status_word(&v), "QUEUED");
	v.queue.workload = k.preempted;
	CHECK_STR_EQ(render_job_status_word(&v), "PREEMPTED");
	v.queue.workload = k.admitted;       /* admitted: the operator's word */
	CHECK_STR_EQ(render_job_status_word(&v), "SUSPENDED");
	fx_job_condition(j, "Failed", true, KUEUE_T0);
	v.queue.workload = k.queued;
	CHECK_STR_EQ(render_job_status_word(&v), "FAILED");
	fx_job_free(j);
	kfx_free(&k);
}

TEST(queues_why_says_where_the_job_waits_and_why)
{
	struct kfx k;
	struct job_queue q = {0};
	char *s;

	if (!kfx_make(&k)) {
		CHECK(false);
		kfx_free(&k);
		return;
	}
	q = (struct job_queue){k.queued, k.lq, k.cq, &k.line->places[0], true};
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_EQ(s, "Queued in LocalQueue user-queue (ClusterQueue cluster-queue), place 2 in "
	                "line (1 in its LocalQueue), waiting 3m: Kueue says: couldn't assign "
	                "flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in "
	                "flavor default-flavor, 4 more needed.\n");
	free(s);
	q.place = NULL;
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_CONTAINS(s, "(ClusterQueue cluster-queue), place in line not known yet, waiting");
	free(s);
	q.visibility = false;
	q.lq = NULL;     /* no LocalQueue: Kueue's message says so; no ClusterQueue to name */
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_CONTAINS(s, "Queued in LocalQueue user-queue, which does not exist, place in "
	                      "line unknown (Kueue's visibility API is not served), waiting 3m");
	free(s);
	q = (struct job_queue){k.preempted, k.lq, k.cq, NULL, true};
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_EQ(s, "Preempted by Kueue 2m ago, back in LocalQueue user-queue (ClusterQueue "
	                "cluster-queue), place in line not known yet: Kueue says: Preempted to "
	                "accommodate a workload (UID: w9, JobUID: j9) due to prioritization in the "
	                "ClusterQueue.\n");
	free(s);
	q = (struct job_queue){k.evicted, k.lq, k.cq, NULL, true};
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_EQ(s, "Evicted by Kueue 1m ago (LocalQueueStopped), back in LocalQueue user-queue "
	                "(ClusterQueue cluster-queue), place in line not known yet: Kueue says: The "
	                "LocalQueue is stopped.\n");
	free(s);
	q = (struct job_queue){k.admitted, k.lq, k.cq, NULL, true};
	s = FX_RENDER(CHECK(!render_queue_why(sb, &q, KUEUE_T0)));
	CHECK_STR_EQ(s ? s : "", "");
	free(s);
	kfx_free(&k);
}

/* Kueue holds a Workload out of its line while it cannot admit it (its LocalQueue
 * stopped): no place will come, so why does not promise one ("not known yet"). */
TEST(queues_why_of_a_job_held_out_of_line)
{
	struct workload *held = fx_workload(WL_HELD);
	struct localqueue *lq = fx_localqueue(LQ_V1BETA2);
	struct job_queue q = {held, lq, NULL, NULL, true};
	char *s;

	if (!held || !lq) {
		CHECK(false);
		workload_free(held);
		localqueue_free(lq);
		return;
	}
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_EQ(s, "Evicted by Kueue 1m ago (LocalQueueStopped), back in LocalQueue user-queue "
	                "(ClusterQueue cluster-queue), held out of line (inadmissible): Kueue says: "
	                "The LocalQueue is stopped.\n");
	free(s);
	q.visibility = false; /* no visibility API: the same, the condition says it */
	s = FX_RENDER(render_queue_why(sb, &q, KUEUE_T0));
	CHECK_STR_CONTAINS(s, "(ClusterQueue cluster-queue), held out of line (inadmissible): ");
	free(s);
	workload_free(held);
	localqueue_free(lq);
}

TEST(queues_why_and_info_of_a_queued_job)
{
	struct kfx k;
	struct job *j = fx_job(JOB_TFJOB, "big", KUEUE_T0 - 300);
	struct workload *wpc;
	struct job_view v;
	char *why, *info;

	CHECK(kfx_make(&k));
	fx_job_condition(j, "Suspended", true, KUEUE_T0 - 300);
	fx_job_replica(j, "Worker", 2, 2);
	v = fx_view(j, NULL, 0);
	v.now = KUEUE_T0;
	v.queue = (struct job_queue){k.queued, k.lq, k.cq, &k.line->places[0], true};
	why = FX_RENDER(render_job_why(sb, &v));
	info = FX_RENDER(render_job_info(sb, &v));
	CHECK(why && !strncmp(why, "Queued in LocalQueue user-queue", 31));
	CHECK(info && why && !strncmp(info, why, strlen(why)));
	CHECK_STR_CONTAINS(info, "\nStatus:      QUEUED\n");
	CHECK_STR_CONTAINS(info, "\nQueue:       user-queue (ClusterQueue cluster-queue), "
	                         "Workload tfjob-big-1a2b3\n");
	/* a Workload without a class: the pods' (none), as Arena */
	CHECK_STR_CONTAINS(info, "\nPriority:    N/A\n");
	free(info);
	/* one of a WorkloadPriorityClass: its class, kind and value */
	wpc = fx_workload(WL_WPC);
	CHECK(wpc != NULL);
	v.queue.workload = wpc ? wpc : k.queued;
	info = FX_RENDER(render_job_info(sb, &v));
	CHECK_STR_CONTAINS(info, "\nPriority:    urgent (WorkloadPriorityClass, 10000)\n");
	free(info);
	/* and the pods' PriorityClass besides */
	free(j->priority_class);
	j->priority_class = strdup("high");
	info = FX_RENDER(render_job_info(sb, &v));
	CHECK_STR_CONTAINS(info, "\nPriority:    high; Kueue: urgent (WorkloadPriorityClass, 10000)\n");
	free(why);
	free(info);
	workload_free(wpc);
	fx_job_free(j);
	kfx_free(&k);
}

TEST(queues_files_list_queues_then_their_jobs_in_line)
{
	struct kfx k;
	const struct workload *wls[5];
	const struct localqueue *lqs[1];
	const struct clusterqueue *cqs[1];
	const struct queue_line *lines[1];
	struct queue_view v = {0};
	char *s;

	if (!kfx_make(&k)) {
		CHECK(false);
		kfx_free(&k);
		return;
	}
	wls[0] = k.finished;   /* left out */
	wls[1] = k.queued;
	wls[2] = k.evicted;
	wls[3] = k.admitted;
	wls[4] = k.preempted;   /* team-a: no LocalQueue of it in the view */
	lqs[0] = k.lq;
	cqs[0] = k.cq;
	lines[0] = k.line;
	v = (struct queue_view){cqs, 1, lqs, 1, wls, 5, lines, 1, true, true, KUEUE_T0, NULL, 0};
	s = FX_RENDER(render_queues_local(sb, &v));
	CHECK_STR_EQ(s,
	             "NAME        CLUSTERQUEUE   GPU(Quota)  GPU(Used)  PENDING  ADMITTED  AGE\n"
	             "user-queue  cluster-queue  8           4          1        1         1h\n"
	             "\n"
	             "LocalQueue user-queue (ClusterQueue cluster-queue): 4 GPUs used\n"
	             "  Used:\n"
	             "    FLAVOR          RESOURCE        USED  QUOTA(ClusterQueue)\n"
	             "    ------          --------        ----  -------------------\n"
	             "    default-flavor  nvidia.com/gpu  4     6\n"
	             "    default-flavor  cpu             3     100\n"
	             "  Admitted:\n"
	             "    NAMESPACE  JOB  TRAINER  LOCALQUEUE  GPU  PRIORITY  FLAVOR\n"
	             "    ---------  ---  -------  ----------  ---  --------  ------\n"
	             "    default    a    TFJOB    user-queue  4    0         N/A\n"
	             "  Waiting, in line:\n"
	             "    PLACE  NAMESPACE  JOB  TRAINER  LOCALQUEUE  GPU  PRIORITY  STATE    WHY\n"
	             "    -----  ---------  ---  -------  ----------  ---  --------  -----    ---\n"
	             "    1      default    big  TFJOB    user-queue  4    5         QUEUED   couldn't "
	             "assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu "
	             "in flavor default-flavor, 4 more needed\n"
	             "    N/A    default    ev   TFJOB    user-queue  2    0         EVICTED  The "
	             "LocalQueue is stopped\n");
	free(s);
	s = FX_RENDER(render_queues_cluster(sb, &v));
	CHECK(s && !strncmp(s, "NAME           COHORT  STRATEGY        GPU(Quota)  GPU(Used)  "
	                       "PENDING  ADMITTED  ACTIVE  AGE\n"
	                       "cluster-queue  all     BestEffortFIFO  8           8          "
	                       "1        2         True    1h\n\n"
	                       "ClusterQueue cluster-queue: 8/8 GPUs used; cohort all\n"
	                       "  Quota:\n", 220));
	/* every resource of every flavor, with its use */
	CHECK_STR_CONTAINS(s, "    default-flavor  cpu             100      <none>           <none>"
	                      "         0     0\n"
	                      "    default-flavor  nvidia.com/gpu  6        <none>           <none>"
	                      "         8     0\n"
	                      "    spare           nvidia.com/gpu  2        <none>           <none>"
	                      "         0     0\n  Admitted:\n");
	/* in the ClusterQueue's line, by its own place (2 for big) */
	CHECK_STR_CONTAINS(s, "    2      default    big  TFJOB    user-queue  4    5         QUEUED");
	free(s);
	v.n_cqs = v.n_lqs = v.n_workloads = 0;
	v.kueue = false;
	s = FX_RENDER(render_queues_cluster(sb, &v));
	CHECK_STR_EQ(s, "NAME  COHORT  STRATEGY  GPU(Quota)  GPU(Used)  PENDING  ADMITTED  ACTIVE  AGE\n"
	                "No ClusterQueues: this cluster has no Kueue (kueue.x-k8s.io is not "
	                "served).\n");
	free(s);
	v.kueue = true;
	s = FX_RENDER(render_queues_local(sb, &v));
	CHECK_STR_EQ(s, "NAME  CLUSTERQUEUE  GPU(Quota)  GPU(Used)  PENDING  ADMITTED  AGE\n"
	                "No LocalQueues in this namespace.\n");
	free(s);
	kfx_free(&k);
}

/* A ClusterQueue of cpu and memory in two flavors, borrowing cpu from its cohort, and
 * a job of it whose Workload has a WorkloadPriorityClass: every resource with its
 * limits, use and borrowing; the job's class and value. */
TEST(queues_a_cpu_queue_borrowing_from_its_cohort_and_a_priority_class)
{
	struct clusterqueue *c = fx_clusterqueue(CQ_COHORT), *g = fx_clusterqueue(CQ_V1BETA2);
	struct workload *w = fx_workload(WL_WPC);
	struct kueue_cohort *research = fx_cohort(COHORT_RESEARCH);
	const struct workload *wls[1];
	const struct clusterqueue *cqs[2];
	const struct kueue_cohort *cohorts[1];
	struct queue_view v = {0};
	char *s;

	CHECK(c && g && w && research);
	if (!c || !g || !w || !research) {
		clusterqueue_free(c);
		clusterqueue_free(g);
		workload_free(w);
		cohort_free(research);
		return;
	}
	wls[0] = w;
	cqs[0] = c;
	cohorts[0] = research;
	v = (struct queue_view){cqs, 1, NULL, 0, wls, 1, NULL, 0, true, true, KUEUE_T0, NULL, 0};
	s = FX_RENDER(render_queues_cluster(sb, &v));
	CHECK_STR_EQ(s,
	             "NAME       COHORT    STRATEGY        GPU(Quota)  GPU(Used)  PENDING  ADMITTED  "
	             "ACTIVE  AGE\n"
	             "cpu-queue  research  BestEffortFIFO  <none>      <none>     0        1         "
	             "True    1h\n"
	             "\n"
	             "ClusterQueue cpu-queue: no GPU quota; cohort research, borrowing from it\n"
	             "  Quota:\n"
	             "    FLAVOR     RESOURCE  NOMINAL  BORROWING LIMIT  LENDING LIMIT  USED  BORROWED\n"
	             "    ------     --------  -------  ---------------  -------------  ----  --------\n"
	             "    on-demand  cpu       2        4                <none>         5     3\n"
	             "    on-demand  memory    4Gi      <none>           1Gi            2Gi   0\n"
	             "    spot       cpu       500m     <none>           <none>         0     0\n"
	             "    spot       memory    1Gi      <none>           <none>         0     0\n"
	             "  Admitted:\n"
	             "    NAMESPACE  JOB     TRAINER  LOCALQUEUE  GPU  PRIORITY        FLAVOR\n"
	             "    ---------  ---     -------  ----------  ---  --------        ------\n"
	             "    default    urgent  TFJOB    cpu-lq      0    urgent (10000)  on-demand,spot\n"
	             "  Waiting, in line: none\n"
	             "\n"
	             "Cohorts:\n"
	             "  research: cpu-queue\n");
	free(s);
	/* the tree of cohorts: research under org (which has no object), all under
	 * another root with cluster-queue */
	cqs[1] = g;
	v.n_cqs = 2;
	v.cohorts = cohorts;
	v.n_cohorts = 1;
	s = FX_RENDER(render_queues_cluster(sb, &v));
	CHECK(s && strstr(s, "\n\nCohorts:\n") &&
	      !strcmp(strstr(s, "\n\nCohorts:\n"), "\n\nCohorts:\n"
	                                              "  all: cluster-queue\n"
	                                              "  org\n"
	                                              "    research: cpu-queue\n"));
	free(s);
	clusterqueue_free(c);
	clusterqueue_free(g);
	workload_free(w);
	cohort_free(research);
}

/* cluster/queues.json and queues/list.json|yaml: the tables' facts under Kueue's field
 * names, the jobs in the tables' order with their place from 1, numbers as numbers,
 * times RFC 3339; [] without queues. */
TEST(queues_forms_hold_the_tables_facts)
{
	struct kfx k;
	const struct workload *wls[5];
	const struct localqueue *lqs[1];
	const struct clusterqueue *cqs[1];
	const struct queue_line *lines[1];
	struct queue_view v;
	char *s;

	if (!kfx_make(&k)) {
		CHECK(false);
		kfx_free(&k);
		return;
	}
	wls[0] = k.finished;
	wls[1] = k.queued;
	wls[2] = k.evicted;
	wls[3] = k.admitted;
	wls[4] = k.preempted;
	lqs[0] = k.lq;
	cqs[0] = k.cq;
	lines[0] = k.line;
	v = (struct queue_view){cqs, 1, lqs, 1, wls, 5, lines, 1, true, true, KUEUE_T0, NULL, 0};
	s = FX_RENDER(render_queues_local_json(sb, &v));
	CHECK_STR_EQ(s,
	             "[\n"
	             "    {\n"
	             "        \"name\": \"user-queue\",\n"
	             "        \"namespace\": \"default\",\n"
	             "        \"clusterQueue\": \"cluster-queue\",\n"
	             "        \"gpuQuota\": 8,\n"
	             "        \"gpusUsed\": 4,\n"
	             "        \"pendingWorkloads\": 1,\n"
	             "        \"admittedWorkloads\": 1,\n"
	             "        \"creationTimestamp\": \"2025-12-05T10:00:00Z\",\n"
	             "        \"age\": 3600,\n"
	             "        \"usage\": [\n"
	             "            {\n"
	             "                \"flavor\": \"default-flavor\",\n"
	             "                \"resource\": \"nvidia.com/gpu\",\n"
	             "                \"used\": \"4\",\n"
	             "                \"nominalQuota\": \"6\"\n"
	             "            },\n"
	             "            {\n"
	             "                \"flavor\": \"default-flavor\",\n"
	             "                \"resource\": \"cpu\",\n"
	             "                \"used\": \"3\",\n"
	             "                \"nominalQuota\": \"100\"\n"
	             "            }\n"
	             "        ],\n"
	             "        \"admitted\": [\n"
	             "            {\n"
	             "                \"namespace\": \"default\",\n"
	             "                \"job\": \"a\",\n"
	             "                \"workload\": \"tfjob-a-aaaaa\",\n"
	             "                \"trainer\": \"TFJOB\",\n"
	             "                \"localQueue\": \"user-queue\",\n"
	             "                \"gpus\": 4,\n"
	             "                \"priority\": 0,\n"
	             "                \"priorityClass\": \"\",\n"
	             "                \"flavors\": []\n"
	             "            }\n"
	             "        ],\n"
	             "        \"waiting\": [\n"
	             "            {\n"
	             "                \"place\": 1,\n"
	             "                \"namespace\": \"default\",\n"
	             "                \"job\": \"big\",\n"
	             "                \"workload\": \"tfjob-big-1a2b3\",\n"
	             "                \"trainer\": \"TFJOB\",\n"
	             "                \"localQueue\": \"user-queue\",\n"
	             "                \"gpus\": 4,\n"
	             "                \"priority\": 5,\n"
	             "                \"priorityClass\": \"\",\n"
	             "                \"state\": \"QUEUED\",\n"
	             "                \"why\": \"couldn't assign flavors to pod set worker: "
	             "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more "
	             "needed\"\n"
	             "            },\n"
	             "            {\n"
	             "                \"place\": null,\n"
	             "                \"namespace\": \"default\",\n"
	             "                \"job\": \"ev\",\n"
	             "                \"workload\": \"tfjob-ev-eeeee\",\n"
	             "                \"trainer\": \"TFJOB\",\n"
	             "                \"localQueue\": \"user-queue\",\n"
	             "                \"gpus\": 2,\n"
	             "                \"priority\": 0,\n"
	             "                \"priorityClass\": \"\",\n"
	             "                \"state\": \"EVICTED\",\n"
	             "                \"why\": \"The LocalQueue is stopped\"\n"
	             "            }\n"
	             "        ]\n"
	             "    }\n"
	             "]\n");
	free(s);
	s = FX_RENDER(render_queues_local_yaml(sb, &v));
	CHECK_STR_CONTAINS(s, "- admitted:\n  - flavors: []\n    gpus: 4\n    job: a\n");
	CHECK_STR_CONTAINS(s, "  waiting:\n  - gpus: 4\n    job: big\n");
	CHECK_STR_CONTAINS(s, "    place: null\n");
	free(s);
	s = FX_RENDER(render_queues_cluster_json(sb, &v));
	CHECK_STR_CONTAINS(s, "[\n    {\n        \"name\": \"cluster-queue\",\n"
	                      "        \"cohort\": \"all\",\n"
	                      "        \"queueingStrategy\": \"BestEffortFIFO\",\n"
	                      "        \"gpuQuota\": 8,\n"
	                      "        \"gpusUsed\": 8,\n"
	                      "        \"gpusBorrowed\": 0,\n"
	                      "        \"pendingWorkloads\": 1,\n"
	                      "        \"admittedWorkloads\": 2,\n"
	                      "        \"active\": true,\n"
	                      "        \"inactiveReason\": \"\",\n");
	CHECK_STR_CONTAINS(s, "            {\n"
	                      "                \"flavor\": \"spare\",\n"
	                      "                \"resource\": \"nvidia.com/gpu\",\n"
	                      "                \"nominalQuota\": \"2\",\n"
	                      "                \"borrowingLimit\": null,\n"
	                      "                \"lendingLimit\": null,\n"
	                      "                \"used\": \"0\",\n"
	                      "                \"borrowed\": \"0\"\n"
	                      "            }\n");
	/* in the ClusterQueue's line, by its own place (2 for big) */
	CHECK_STR_CONTAINS(s, "                \"place\": 2,\n"
	                      "                \"namespace\": \"default\",\n"
	                      "                \"job\": \"big\",\n");
	free(s);
	v.n_cqs = v.n_lqs = v.n_workloads = 0;
	v.kueue = false;
	s = FX_RENDER(render_queues_cluster_json(sb, &v));
	CHECK_STR_EQ(s, "[]\n");
	free(s);
	s = FX_RENDER(render_queues_local_yaml(sb, &v));
	CHECK_STR_EQ(s, "[]\n");
	free(s);
	kfx_free(&k);
}
