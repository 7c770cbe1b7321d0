/*
 * Tests of fs/tree/view.c: what is gathered from the cache for render/ (a job with
 * its pods, the jobs of a namespace, the nodes with their pods), and the two
 * questions the rooms below the tree ask through struct fs's up.
 */
#include "tests/unit/harness.h"

#include <string.h>

#include "fs/tree/view.h"
#include "k8s/cache/cache.h"
#include "tests/unit/fs_fixture.h"
#include "render/render.h"

TEST(fs_view_a_job_with_its_pods_by_name)
{
	struct fx_fs x;
	struct fs_job_view jv;
	const struct job *j;

	fx_fs_init(&x);
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "u1", 1000);
	fx_fs_pod(&x, "default", JOB_TFJOB, "mnist", "mnist-worker-1", "worker", 1, "n1");
	fx_fs_pod(&x, "default", JOB_TFJOB, "mnist", "mnist-worker-0", "worker", 0, "n1");
	fx_fs_pod(&x, "default", JOB_TFJOB, "other", "other-worker-0", "worker", 0, "n1");
	cache_read_lock(x.cache);
	j = cache_find_job(x.cache, "default", JOB_TFJOB, "mnist");
	CHECK(j != NULL);
	CHECK_INT_EQ(view_job(x.fs, j, VIEW_PODS, &jv), 0);
	CHECK(jv.v.job == j);
	CHECK_INT_EQ(jv.v.n_pods, 2);
	CHECK_STR_EQ(jv.v.pods[0]->meta.name, "mnist-worker-0");
	CHECK_STR_EQ(jv.v.pods[1]->meta.name, "mnist-worker-1");
	CHECK(jv.v.now > 0);
	view_job_free(&jv);
	/* worker 0 is a TFJob's main instance without a chief */
	CHECK(view_job_main_pod(x.fs, j) != NULL);
	CHECK_STR_EQ(view_job_main_pod(x.fs, j)->meta.name, "mnist-worker-0");
	/* running, with pods: its log is not gone */
	CHECK(!view_job_ended_without_pods(x.fs, j));
	cache_read_unlock(x.cache);
	fx_fs_free(&x);
}

TEST(fs_view_the_jobs_of_a_namespace_and_the_nodes)
{
	struct fx_fs x;
	struct job_view *v = NULL;
	struct node_view *nv = NULL;
	size_t n = 0, nn = 0;

	fx_fs_init(&x);
	fx_fs_job(&x, "default", JOB_TFJOB, "a", "u1", 1000);
	fx_fs_job(&x, "default", JOB_PYTORCHJOB, "b", "u2", 2000);
	fx_fs_job(&x, "team", JOB_TFJOB, "c", "u3", 3000);
	fx_fs_pod(&x, "default", JOB_TFJOB, "a", "a-worker-0", "worker", 0, "n2");
	fx_fs_node(&x, "n2");
	fx_fs_node(&x, "n1");
	cache_read_lock(x.cache);
	CHECK_INT_EQ(view_jobs(x.fs, "default", VIEW_PODS, &v, &n), 0);
	CHECK_INT_EQ(n, 2);
	for (size_t i = 0; i < n; i++)
		CHECK_STR_EQ(v[i].job->meta.namespace, "default");
	view_jobs_free(v, n);
	CHECK_INT_EQ(view_nodes(x.fs, NULL, &nv, &nn), 0);
	CHECK_INT_EQ(nn, 2);
	CHECK_STR_EQ(nv[0].node->meta.name, "n1");    /* by name */
	CHECK_STR_EQ(nv[1].node->meta.name, "n2");
	CHECK_INT_EQ(nv[1].n_pods, 1);
	CHECK_INT_EQ(nv[0].n_pods, 0);
	view_nodes_free(nv, nn);
	cache_read_unlock(x.cache);
	fx_fs_free(&x);
}
