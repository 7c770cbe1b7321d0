/* Tests k8s/objects/kueue_decode.c: Kueue's Workloads, LocalQueues and ClusterQueues
 * in both versions arenafs reads (v1beta2, v1beta1), and a LocalQueue's line from the
 * visibility API. Fixtures shared with test_render_queues.c (tests/unit/kueue_fixture.h). */
#include "tests/unit/harness.h"
#include "tests/unit/kueue_fixture.h"

#include <string.h>

TEST(kueue_workload_decodes_its_queue_owner_gpus_and_conditions)
{
	struct workload *q = fx_workload(WL_QUEUED), *a = fx_workload(WL_ADMITTED);
	struct workload *odd = fx_workload("{\"metadata\":{\"name\":\"w\",\"namespace\":\"d\","
	                                   "\"ownerReferences\":[{\"kind\":\"Pod\",\"name\":\"p\","
	                                   "\"uid\":\"u\"}]},\"spec\":{\"active\":false,"
	                                   "\"podSets\":[{\"count\":-3}]}}");

	CHECK(q && a && odd);
	if (q && a && odd) {
		CHECK_STR_EQ(q->queue, "user-queue");
		CHECK_STR_EQ(q->owner_kind, "TFJob");
		CHECK_STR_EQ(q->owner_name, "big");
		CHECK_STR_EQ(q->owner_uid, "j-big");
		CHECK_STR_EQ(q->cluster_queue, "");
		CHECK_INT_EQ(q->gpus, 4);            /* 2 workers × 2 GPUs */
		CHECK_INT_EQ(q->admitted_gpus, 0);
		CHECK_INT_EQ(q->priority, 5);
		CHECK(q->active);
		CHECK_INT_EQ(q->n_conditions, 1);
		CHECK_STR_EQ(q->conditions[0].type, "QuotaReserved");
		CHECK(!q->conditions[0].status);
		CHECK_STR_EQ(a->cluster_queue, "cluster-queue");
		CHECK_INT_EQ(a->admitted_gpus, 4);
		CHECK_INT_EQ(a->n_conditions, 2);
		/* no controller reference: the last owner; a negative count asks nothing */
		CHECK_STR_EQ(odd->owner_kind, "Pod");
		CHECK_INT_EQ(odd->gpus, 0);
		CHECK(!odd->active);
		CHECK_STR_EQ(odd->queue, "");
	}
	workload_free(q);
	workload_free(a);
	workload_free(odd);
}

TEST(kueue_queues_decode_in_both_versions)
{
	struct localqueue *l2 = fx_localqueue(LQ_V1BETA2), *l1 = fx_localqueue(LQ_V1BETA1);
	struct clusterqueue *c2 = fx_clusterqueue(CQ_V1BETA2), *c1 = fx_clusterqueue(CQ_V1BETA1);

	CHECK(l2 && l1 && c2 && c1);
	if (l2 && l1 && c2 && c1) {
		CHECK_STR_EQ(l2->cluster_queue, "cluster-queue");
		CHECK_INT_EQ(l2->pending, 1);
		CHECK_INT_EQ(l2->admitted, 1);
		CHECK_INT_EQ(l2->gpus_used, 4);      /* the GPUs of flavorsUsage, not its cpu */
		CHECK_INT_EQ(l1->gpus_used, 3);      /* v1beta1: flavorUsage */
		CHECK_STR_EQ(c2->cohort, "all");
		CHECK_STR_EQ(c1->cohort, "old");     /* v1beta1: cohort */
		CHECK_STR_EQ(c2->strategy, "BestEffortFIFO");
		CHECK_INT_EQ(c2->gpu_quota, 8);      /* two flavors: 6 + 2 */
		CHECK_INT_EQ(c2->gpus_used, 8);
		CHECK_INT_EQ(c2->pending, 1);
		CHECK_INT_EQ(c2->admitted, 2);
		CHECK(c2->active);
		CHECK_STR_EQ(c2->inactive_reason, "");
		CHECK(!c1->active);
		CHECK_STR_EQ(c1->inactive_reason, "Can't admit new workloads: references missing "
		                                  "ResourceFlavor(s): [gone]");
	}
	localqueue_free(l2);
	localqueue_free(l1);
	clusterqueue_free(c2);
	clusterqueue_free(c1);
}

TEST(kueue_clusterqueue_keeps_every_resource_of_every_flavor_with_its_borrowing)
{
	struct clusterqueue *c = fx_clusterqueue(CQ_COHORT), *g = fx_clusterqueue(CQ_V1BETA2);

	CHECK(c && g);
	if (c && g) {
		CHECK(!c->gpu_quota_named);          /* no GPU quota: not a quota of 0 GPUs */
		CHECK(g->gpu_quota_named);
		CHECK_INT_EQ(c->gpu_quota, 0);
		CHECK(c->borrowing);
		CHECK(!g->borrowing);                /* borrowed "0" */
		CHECK_INT_EQ(c->n_quotas, 4);
		CHECK_STR_EQ(c->quotas[0].flavor, "on-demand");
		CHECK_STR_EQ(c->quotas[0].resource, "cpu");
		CHECK_STR_EQ(c->quotas[0].nominal, "2");
		CHECK_STR_EQ(c->quotas[0].borrowing_limit, "4");
		CHECK_STR_EQ(c->quotas[0].lending_limit, "");
		CHECK_STR_EQ(c->quotas[0].used, "5");
		CHECK_STR_EQ(c->quotas[0].borrowed, "3");
		CHECK_STR_EQ(c->quotas[1].lending_limit, "1Gi");
		CHECK_STR_EQ(c->quotas[1].used, "2Gi");
		CHECK_STR_EQ(c->quotas[2].flavor, "spot");
		CHECK_STR_EQ(c->quotas[2].nominal, "500m");
		CHECK_STR_EQ(c->quotas[3].used, "0");
		/* a flavor of the usage the quota does not list, and an integer quota */
		CHECK_INT_EQ(g->n_quotas, 3);
		CHECK_STR_EQ(g->quotas[2].flavor, "spare");
		CHECK_STR_EQ(g->quotas[2].nominal, "2");
		CHECK_STR_EQ(g->quotas[1].used, "8");
	}
	clusterqueue_free(c);
	clusterqueue_free(g);
}

TEST(kueue_cohort_decodes_its_parent)
{
	struct kueue_cohort *c = fx_cohort(COHORT_RESEARCH);
	struct kueue_cohort *root = fx_cohort("{\"metadata\":{\"name\":\"org\"},\"spec\":{}}");

	CHECK(c && root);
	if (c && root) {
		CHECK_STR_EQ(c->meta.name, "research");
		CHECK_STR_EQ(c->parent, "org");
		CHECK_STR_EQ(root->parent, "");
	}
	cohort_free(c);
	cohort_free(root);
}

TEST(kueue_workload_priority_class_in_both_versions)
{
	struct workload *w2 = fx_workload(WL_WPC), *w1 = fx_workload(WL_V1BETA1_PRIORITY);
	struct workload *none = fx_workload(WL_QUEUED);

	CHECK(w2 && w1 && none);
	if (w2 && w1 && none) {
		CHECK_STR_EQ(w2->flavors, "on-demand,spot"); /* each once, in order */
		CHECK_STR_EQ(none->flavors, "");
		CHECK_STR_EQ(w2->priority_class, "urgent");
		CHECK_STR_EQ(w2->priority_kind, "WorkloadPriorityClass");
		CHECK_INT_EQ(w2->priority, 10000);
		CHECK_STR_EQ(w1->priority_class, "batch");
		CHECK_STR_EQ(w1->priority_kind, "WorkloadPriorityClass");
		CHECK_INT_EQ(w1->priority, 7);
		CHECK_STR_EQ(none->priority_class, "");
		CHECK_STR_EQ(none->priority_kind, "");
	}
	workload_free(w2);
	workload_free(w1);
	workload_free(none);
}

TEST(kueue_line_decodes_places_and_versions_by_content)
{
	struct queue_line *a = fx_line("default", "user-queue", LINE_TWO);
	struct queue_line *b = fx_line("default", "user-queue", LINE_TWO);
	struct queue_line *c = fx_line("default", "user-queue", "{\"items\":[]}");
	json_t *none = json_loads("{\"kind\":\"Status\"}", 0, NULL);

	CHECK(a && b && c);
	if (a && b && c) {
		CHECK_STR_EQ(a->meta.name, "user-queue");
		CHECK_STR_EQ(a->meta.namespace, "default");
		CHECK_INT_EQ(a->n_places, 2);     /* the item without a name is left out */
		CHECK_STR_EQ(a->places[0].workload, "tfjob-big-1a2b3");
		CHECK_INT_EQ(a->places[0].position_cq, 1);
		CHECK_INT_EQ(a->places[0].position_lq, 0);
		CHECK_STR_EQ(a->places[1].workload, "tfjob-later-9z9z9");
		CHECK_STR_EQ(a->meta.resource_version, b->meta.resource_version);
		CHECK(strcmp(a->meta.resource_version, c->meta.resource_version) != 0);
		CHECK_INT_EQ(c->n_places, 0);
	}
	CHECK(none && queue_line_decode(none, "default", "q") == NULL);   /* no items */
	CHECK(queue_line_decode(none, "", "q") == NULL);
	json_decref(none);
	queue_line_free(a);
	queue_line_free(b);
	queue_line_free(c);
}
