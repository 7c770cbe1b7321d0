/*
 * Tests of k8s/cache/store.c and store_query.c: the cache's tables, indexes, lookups
 * (cache.h's, on a store with no feed), replace/remove changes and the relist
 * sweep, fed with decoded objects (no network).
 */
#include "tests/unit/harness.h"

#include <stdlib.h>

#include "k8s/cache/store.h"

static struct pod *mkpod(const char *ns, const char *name, const char *rv, const char *node,
                         const char *job, const char *operator_name)
{
	json_t *labels = json_object();
	json_t *o;
	struct pod *p;

	if (job)
		json_object_set_new(labels, "training.kubeflow.org/job-name", json_string(job));
	if (operator_name)
		json_object_set_new(labels, "training.kubeflow.org/operator-name",
		                    json_string(operator_name));
	o = json_pack("{s:{s:s,s:s,s:s,s:o},s:{s:s},s:{s:s}}", "metadata", "name", name,
	              "namespace", ns, "resourceVersion", rv, "labels", labels, "spec", "nodeName",
	              node ? node : "", "status", "phase", "Running");
	p = pod_decode(o);
	json_decref(o);
	return p;
}

static struct job *mkjob(const char *ns, const char *name, const char *rv, enum job_kind kind)
{
	const struct job_kind_info *ki = kinds_info(kind);
	char api[64];
	json_t *o;
	struct job *j;

	snprintf(api, sizeof(api), "%s/%s", ki->group, ki->version);
	o = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "apiVersion", api, "kind", ki->kind_name,
	              "metadata", "name", name, "namespace", ns, "resourceVersion", rv);
	j = job_decode(o, kind);
	json_decref(o);
	return j;
}

static void put(struct k8s_cache *st, enum cache_object_type type, void *obj, uint32_t epoch, int want)
{
	struct store_change ch;
	int rc = store_put(st, type, obj, epoch, &ch);

	if (rc != want)
		harness_fail(__FILE__, __LINE__, "store_put: %d, want %d", rc, want);
	if (rc == 1)
		store_change_release(&ch);
}

/* Names of an array of objects, comma-joined. */
static const char *names(const void **objs, size_t n)
{
	static char buf[1024];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf) - 80; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "",
		                ((const struct obj_meta *)objs[i])->name);
	free(objs);
	return buf;
}

TEST(store_put_replace_and_same_version)
{
	struct k8s_cache *st = store_new("default", NULL);
	struct store_change ch;
	uint64_t g0 = cache_generation(st);

	CHECK_INT_EQ(store_put(st, CACHE_POD, mkpod("default", "a", "1", "n1", "j", NULL), 1, &ch),
	             1);
	CHECK_INT_EQ(ch.change.type, CACHE_ADDED);
	CHECK_STR_EQ(ch.change.name, "a");
	CHECK_STR_EQ(ch.change.node_name, "n1");
	CHECK_STR_EQ(ch.change.old_node_name, "");
	CHECK_STR_EQ(ch.change.owner_job, "j");
	CHECK_INT_EQ(ch.change.job_kind, -1);
	store_change_release(&ch);
	CHECK(cache_generation(st) == g0 + 1);

	/* the same resourceVersion again (a relist): nothing changes */
	put(st, CACHE_POD, mkpod("default", "a", "1", "n1", "j", NULL), 2, 0);
	CHECK(cache_generation(st) == g0 + 1);

	CHECK_INT_EQ(store_put(st, CACHE_POD, mkpod("default", "a", "5", "n2", "j", NULL), 2, &ch),
	             1);
	CHECK_INT_EQ(ch.change.type, CACHE_MODIFIED);
	CHECK_STR_EQ(ch.change.node_name, "n2");
	CHECK_STR_EQ(ch.change.old_node_name, "n1");
	CHECK(ch.old != NULL);
	store_change_release(&ch);
	CHECK(cache_generation(st) == g0 + 2);

	cache_read_lock(st);
	CHECK_STR_EQ(cache_find_pod(st, "default", "a")->meta.resource_version, "5");
	CHECK(cache_find_pod(st, "other", "a") == NULL);
	CHECK(cache_find_pod(st, "default", "b") == NULL);
	cache_read_unlock(st);
	store_free(st);
}

TEST(store_pods_on_node_follow_moves_and_deletions)
{
	struct k8s_cache *st = store_new("default", NULL);
	struct store_change ch;
	const struct pod **pods;
	size_t n;

	put(st, CACHE_POD, mkpod("default", "b", "1", "n1", NULL, NULL), 1, 1);
	put(st, CACHE_POD, mkpod("team", "a", "2", "n1", NULL, NULL), 1, 1);
	put(st, CACHE_POD, mkpod("default", "c", "3", "n2", NULL, NULL), 1, 1);
	put(st, CACHE_POD, mkpod("default", "d", "4", "", NULL, NULL), 1, 1);

	cache_read_lock(st);
	n = cache_pods_on_node(st, "n1", &pods);
	CHECK_STR_EQ(names((const void **)pods, n), "b,a"); /* default/b before team/a */
	n = cache_pods_on_node(st, "n3", &pods);
	CHECK_INT_EQ(n, 0);
	CHECK(pods == NULL);
	cache_read_unlock(st);

	put(st, CACHE_POD, mkpod("default", "b", "9", "n2", NULL, NULL), 1, 1);
	CHECK_INT_EQ(store_remove(st, CACHE_POD, -1, "default", "c", &ch), 1);
	CHECK_INT_EQ(ch.change.type, CACHE_DELETED);
	CHECK_STR_EQ(ch.change.node_name, "n2");
	CHECK_STR_EQ(ch.change.old_node_name, "n2");
	store_change_release(&ch);
	CHECK_INT_EQ(store_remove(st, CACHE_POD, -1, "default", "c", &ch), 0);

	cache_read_lock(st);
	n = cache_pods_on_node(st, "n1", &pods);
	CHECK_STR_EQ(names((const void **)pods, n), "a");
	n = cache_pods_on_node(st, "n2", &pods);
	CHECK_STR_EQ(names((const void **)pods, n), "b");
	CHECK_INT_EQ(store_count(st, CACHE_POD), 3);
	cache_read_unlock(st);
	store_free(st);
}

TEST(store_pods_of_job_by_kind_and_by_unique_name)
{
	struct k8s_cache *st = store_new("default", NULL);
	const struct pod **pods;
	const struct job *tf, *pt;
	size_t n;

	put(st, CACHE_JOB, mkjob("default", "mnist", "1", JOB_TFJOB), 1, 1);
	put(st, CACHE_JOB, mkjob("default", "same", "2", JOB_TFJOB), 1, 1);
	put(st, CACHE_JOB, mkjob("default", "same", "3", JOB_PYTORCHJOB), 1, 1);
	put(st, CACHE_POD,
	    mkpod("default", "mnist-worker-0", "4", "n", "mnist", "tfjob-controller"), 1, 1);
	put(st, CACHE_POD, mkpod("default", "mnist-worker-1", "5", "n", "mnist", NULL), 1, 1);
	/* a PyTorchJob's pod of the same name must not be the TFJob's */
	put(st, CACHE_POD,
	    mkpod("default", "mnist-master-0", "6", "n", "mnist", "pytorchjob-controller"), 1, 1);
	put(st, CACHE_POD, mkpod("team", "mnist-worker-0", "7", "n", "mnist", "tfjob-controller"),
	    1, 1);
	put(st, CACHE_POD, mkpod("default", "same-worker-0", "8", "n", "same", "tfjob-controller"),
	    1, 1);
	put(st, CACHE_POD, mkpod("default", "same-worker-1", "9", "n", "same", NULL), 1, 1);

	cache_read_lock(st);
	tf = cache_find_job(st, "default", JOB_TFJOB, "mnist");
	CHECK(tf != NULL);
	n = cache_pods_of_job(st, tf, &pods);
	/* unknown kind, but only one kind has a job "mnist" here */
	CHECK_STR_EQ(names((const void **)pods, n), "mnist-worker-0,mnist-worker-1");

	tf = cache_find_job(st, "default", JOB_TFJOB, "same");
	pt = cache_find_job(st, "default", JOB_PYTORCHJOB, "same");
	CHECK(tf && pt && tf != pt);
	n = cache_pods_of_job(st, tf, &pods);
	/* two kinds named "same": the pod without a kind belongs to neither */
	CHECK_STR_EQ(names((const void **)pods, n), "same-worker-0");
	n = cache_pods_of_job(st, pt, &pods);
	CHECK_INT_EQ(n, 0);
	cache_read_unlock(st);
	store_free(st);
}

static void put_jobs(struct k8s_cache *st)
{
	put(st, CACHE_JOB, mkjob("zeta", "z", "1", JOB_TFJOB), 1, 1);
	put(st, CACHE_JOB, mkjob("alpha", "b", "2", JOB_PYTORCHJOB), 1, 1);
	put(st, CACHE_JOB, mkjob("alpha", "a", "3", JOB_TFJOB), 1, 1);
	put(st, CACHE_JOB, mkjob("alpha", "a", "4", JOB_PYTORCHJOB), 1, 1);
}

TEST(store_jobs_and_namespaces)
{
	struct k8s_cache *st = store_new("mine", NULL), *zeta = store_new("zeta", NULL);
	struct store_change ch;
	const struct job **jobs;
	const char **nss;
	size_t n;

	put_jobs(st);
	put_jobs(zeta);

	/* configured and with jobs: first, and listed once (alpha is the other) */
	cache_read_lock(zeta);
	n = cache_namespaces(zeta, &nss);
	CHECK_INT_EQ(n, 2);
	CHECK_STR_EQ(n ? nss[0] : "", "zeta");
	free(nss);
	cache_read_unlock(zeta);
	store_free(zeta);

	cache_read_lock(st);
	n = cache_namespaces(st, &nss);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(nss[0], "mine"); /* the configured one first, even without jobs */
		CHECK_STR_EQ(nss[1], "alpha");
		CHECK_STR_EQ(nss[2], "zeta");
	}
	free(nss);
	n = cache_jobs(st, "alpha", &jobs);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(jobs[0]->meta.name, "a");
		CHECK_INT_EQ(jobs[0]->kind, JOB_TFJOB);
		CHECK_INT_EQ(jobs[1]->kind, JOB_PYTORCHJOB);
		CHECK_STR_EQ(jobs[2]->meta.name, "b");
	}
	free(jobs);
	cache_read_unlock(st);

	CHECK_INT_EQ(store_remove(st, CACHE_JOB, JOB_TFJOB, "zeta", "z", &ch), 1);
	CHECK_INT_EQ(ch.change.job_kind, JOB_TFJOB);
	store_change_release(&ch);
	CHECK_INT_EQ(store_remove(st, CACHE_JOB, JOB_PYTORCHJOB, "alpha", "a", &ch), 1);
	store_change_release(&ch);
	cache_read_lock(st);
	n = cache_namespaces(st, &nss);
	CHECK_INT_EQ(n, 2); /* zeta has no job left */
	free(nss);
	CHECK(cache_find_job(st, "alpha", JOB_TFJOB, "a") != NULL);
	CHECK(cache_find_job(st, "alpha", JOB_PYTORCHJOB, "a") == NULL);
	cache_read_unlock(st);
	store_free(st);
}

TEST(store_sweep_removes_what_the_relist_did_not_return)
{
	struct k8s_cache *st = store_new("default", NULL);
	struct store_change *chs;
	size_t n;
	uint64_t g;

	put(st, CACHE_POD, mkpod("a", "keep", "1", "n1", NULL, NULL), 1, 1);
	put(st, CACHE_POD, mkpod("a", "gone", "2", "n1", NULL, NULL), 1, 1);
	put(st, CACHE_POD, mkpod("b", "other-ns", "3", "n1", NULL, NULL), 1, 1);
	put(st, CACHE_JOB, mkjob("a", "gone", "4", JOB_TFJOB), 1, 1);

	/* a relist of pods in namespace a returns only "keep" (unchanged) */
	put(st, CACHE_POD, mkpod("a", "keep", "1", "n1", NULL, NULL), 2, 0);
	g = cache_generation(st);
	n = store_sweep(st, CACHE_POD, -1, "a", 2, &chs);
	CHECK_INT_EQ(n, 1);
	if (n == 1) {
		CHECK_INT_EQ(chs[0].change.type, CACHE_DELETED);
		CHECK_STR_EQ(chs[0].change.name, "gone");
		CHECK_STR_EQ(chs[0].change.node_name, "n1");
	}
	for (size_t i = 0; i < n; i++)
		store_change_release(&chs[i]);
	free(chs);
	CHECK(cache_generation(st) > g);

	cache_read_lock(st);
	CHECK(cache_find_pod(st, "a", "keep") != NULL);
	CHECK(cache_find_pod(st, "a", "gone") == NULL);
	CHECK(cache_find_pod(st, "b", "other-ns") != NULL);        /* another scope */
	CHECK(cache_find_job(st, "a", JOB_TFJOB, "gone") != NULL); /* another type */
	cache_read_unlock(st);

	/* all namespaces: "keep" was last listed in epoch 2, other-ns in epoch 1 */
	n = store_sweep(st, CACHE_POD, -1, NULL, 1, &chs);
	CHECK_INT_EQ(n, 1);
	if (n == 1)
		CHECK_STR_EQ(chs[0].change.name, "keep");
	for (size_t i = 0; i < n; i++)
		store_change_release(&chs[i]);
	free(chs);
	/* a sweep with nothing to do changes nothing */
	g = cache_generation(st);
	n = store_sweep(st, CACHE_POD, -1, NULL, 1, &chs);
	CHECK_INT_EQ(n, 0);
	CHECK(chs == NULL);
	CHECK(cache_generation(st) == g);
	store_free(st);
}

TEST(store_services_by_release_and_events_by_involved)
{
	struct k8s_cache *st = store_new("default", NULL);
	const struct service **svcs;
	const struct event **evs;
	struct store_change ch;
	size_t n;
	json_t *o;

	o = json_pack("{s:{s:s,s:s,s:s,s:{s:s}},s:{s:s}}", "metadata", "name", "mnist-tb",
	              "namespace", "default", "resourceVersion", "1", "labels", "release", "mnist",
	              "spec", "type", "NodePort");
	CHECK_INT_EQ(store_put(st, CACHE_SERVICE, service_decode(o), 1, &ch), 1);
	CHECK_STR_EQ(ch.change.owner_job, "mnist");
	store_change_release(&ch);
	json_decref(o);
	o = json_pack("{s:{s:s,s:s,s:s}}", "metadata", "name", "plain", "namespace", "default",
	              "resourceVersion", "2");
	put(st, CACHE_SERVICE, service_decode(o), 1, 1);
	json_decref(o);
	const char *times[] = {"2026-01-01T00:00:03Z", "2026-01-01T00:00:01Z",
	                       "2026-01-01T00:00:02Z"};
	for (int i = 0; i < 3; i++) {
		char name[16], rv[16];

		snprintf(name, sizeof(name), "ev%d", i);
		snprintf(rv, sizeof(rv), "%d", 10 + i);
		o = json_pack("{s:{s:s,s:s,s:s},s:{s:s,s:s},s:s}", "metadata", "name", name,
		              "namespace", "default", "resourceVersion", rv, "involvedObject",
		              "kind", "Pod", "name", i == 2 ? "other" : "mnist-worker-0",
		              "firstTimestamp", times[i]);
		put(st, CACHE_EVENT, event_decode(o), 1, 1);
		json_decref(o);
	}

	cache_read_lock(st);
	n = cache_services_of_job(st, "default", "mnist", &svcs);
	CHECK_STR_EQ(names((const void **)svcs, n), "mnist-tb");
	n = cache_services_of_job(st, "other", "mnist", &svcs);
	CHECK_INT_EQ(n, 0);
	n = cache_events_for(st, "default", "mnist-worker-0", &evs);
	CHECK_STR_EQ(names((const void **)evs, n), "ev1,ev0"); /* oldest first */
	cache_read_unlock(st);
	store_free(st);
}

static struct owned *mkowned(enum owned_kind kind, const char *name, const char *uid,
                             const char *owner_kind, const char *owner, const char *owner_uid,
                             bool controller)
{
	json_t *o = json_pack("{s:{s:s,s:s,s:s,s:s,s:[{s:s,s:s,s:s,s:b}]}}", "metadata", "name",
	                      name, "namespace", "default", "uid", uid, "resourceVersion", "1",
	                      "ownerReferences", "kind", owner_kind, "name", owner, "uid", owner_uid,
	                      "controller", controller);
	struct owned *ow = owned_decode(o, kind);

	json_decref(o);
	return ow;
}

/* A job's owner chain: the objects of its controller's uid, a batch Job and a JobSet
 * of one name told apart by kind, and an owner that is not the controller ignored. */
TEST(store_owned_by_their_controllers_uid)
{
	struct k8s_cache *st = store_new("default", NULL);
	const struct owned **ow = NULL;
	const struct owned *one;
	size_t n;

	put(st, CACHE_OWNED, mkowned(OWNED_JOBSET, "llm", "js-1", "TrainJob", "llm", "tj-1", true),
	    1, 1);
	put(st, CACHE_OWNED,
	    mkowned(OWNED_BATCH_JOB, "llm-node-0", "j-1", "JobSet", "llm", "js-1", true), 1, 1);
	put(st, CACHE_OWNED,
	    mkowned(OWNED_BATCH_JOB, "llm-node-1", "j-2", "JobSet", "llm", "js-1", true), 1, 1);
	put(st, CACHE_OWNED, mkowned(OWNED_BATCH_JOB, "llm", "j-3", "TrainJob", "llm", "tj-1", false),
	    1, 1);

	cache_read_lock(st);
	n = cache_owned_by(st, "default", "tj-1", &ow);
	CHECK(n == 1 && ow[0]->kind == OWNED_JOBSET);
	CHECK_STR_EQ(names((const void **)ow, n), "llm"); /* frees ow */
	n = cache_owned_by(st, "default", "js-1", &ow);
	CHECK_STR_EQ(names((const void **)ow, n), "llm-node-0,llm-node-1");
	one = cache_find_owned(st, OWNED_BATCH_JOB, "default", "llm");
	CHECK(one != NULL && strcmp(one->owner_kind, "") == 0 && strcmp(one->meta.uid, "j-3") == 0);
	one = cache_find_owned(st, OWNED_JOBSET, "default", "llm");
	CHECK(one != NULL && strcmp(one->owner_kind, "TrainJob") == 0 &&
	      strcmp(one->owner_uid, "tj-1") == 0);
	CHECK_STR_EQ(owned_kinds(OWNED_JOBSET)->kind_name, "JobSet");
	CHECK_STR_EQ(owned_kinds(OWNED_BATCH_JOB)->plural, "jobs");
	cache_read_unlock(st);
	store_free(st);
}

TEST(store_many_objects_survive_growth)
{
	struct k8s_cache *st = store_new("default", NULL);
	const struct pod **pods;
	int bad = 0;
	size_t n;

	for (int i = 0; i < 5000; i++) {
		char name[32], node[32], job[32];

		snprintf(name, sizeof(name), "pod-%d", i);
		snprintf(node, sizeof(node), "node-%d", i % 50);
		snprintf(job, sizeof(job), "job-%d", i % 500);
		put(st, CACHE_POD, mkpod("default", name, "1", node, job, "tfjob-controller"), 1,
		    1);
	}
	put(st, CACHE_JOB, mkjob("default", "job-7", "1", JOB_TFJOB), 1, 1);
	cache_read_lock(st);
	CHECK_INT_EQ(store_count(st, CACHE_POD), 5000);
	for (int i = 0; i < 5000; i += 97) {
		char name[32];

		snprintf(name, sizeof(name), "pod-%d", i);
		if (!cache_find_pod(st, "default", name))
			bad++;
	}
	CHECK_INT_EQ(bad, 0);
	n = cache_pods_on_node(st, "node-3", &pods);
	CHECK_INT_EQ(n, 100);
	free(pods);
	n = cache_pods_of_job(st, cache_find_job(st, "default", JOB_TFJOB, "job-7"), &pods);
	CHECK_INT_EQ(n, 10);
	free(pods);
	cache_read_unlock(st);
	store_free(st);
}
