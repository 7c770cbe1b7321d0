/*
 * Tests of fs/tree/model.c, the path model: (parent, name) -> child over a cache
 * filled by hand (fs_fixture.h), the listings in their order, the places that come
 * and go, and that a node shows one object (its identity).
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fs/tree/model.h"
#include "k8s/cache/cache.h"
#include "tests/unit/fs_fixture.h"

/* The names of a directory's listing, space-separated. */
static const char *listing(struct fs *fs, const struct fs_node *dir, char *buf, size_t size)
{
	struct fs_entry *e = NULL;
	size_t n = 0, used = 0;

	buf[0] = '\0';
	cache_read_lock(fs->cache);
	if (model_list(fs, dir, &e, &n) == 0)
		for (size_t i = 0; i < n && used < size; i++)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "",
						 e[i].name);
	cache_read_unlock(fs->cache);
	fs_entries_free(e, n);
	return buf;
}

static int lookup(struct fs *fs, const struct fs_node *parent, const char *name,
		  struct fs_node *out)
{
	int ret;

	*out = (struct fs_node)FS_NODE_INIT;
	cache_read_lock(fs->cache);
	ret = model_lookup(fs, parent, name, out);
	cache_read_unlock(fs->cache);
	return ret;
}

static void two_jobs(struct fx_fs *x)
{
	fx_fs_init(x);
	fx_fs_job(x, "default", JOB_TFJOB, "mnist", "uid-mnist", 1000);
	fx_fs_job(x, "default", JOB_PYTORCHJOB, "bert", "uid-bert", 2000);
	fx_fs_job(x, "other", JOB_TFJOB, "elsewhere", "uid-else", 3000);
	fx_fs_pod(x, "default", JOB_TFJOB, "mnist", "mnist-worker-1", "worker", 1, "n1");
	fx_fs_pod(x, "default", JOB_TFJOB, "mnist", "mnist-worker-0", "worker", 0, "n1");
	fx_fs_node(x, "n1");
}

TEST(fs_model_root_and_jobs_list_in_their_order)
{
	struct fx_fs x;
	struct fs_node root = FS_NODE_INIT, jobs;
	char buf[512];

	two_jobs(&x);
	root.type = FS_ROOT;
	root.identity = "";
	CHECK_STR_EQ(listing(x.fs, &root, buf, sizeof(buf)),
		     "README check cluster data jobs namespaces nodes runtimes submit");
	CHECK_INT_EQ(lookup(x.fs, &root, "jobs", &jobs), 0);
	CHECK_INT_EQ(jobs.type, FS_JOBS_DIR);
	CHECK_STR_EQ(jobs.ns, "default");            /* the mount's namespace */
	/* newest first, as arena list; the other namespace's job is not here */
	CHECK_STR_EQ(listing(x.fs, &jobs, buf, sizeof(buf)), "bert mnist");
	fs_node_clear(&jobs);
	CHECK_INT_EQ(lookup(x.fs, &root, "nonesuch", &jobs), -ENOENT);
	fx_fs_free(&x);
}

TEST(fs_model_a_job_its_files_and_its_pods)
{
	struct fx_fs x;
	struct fs_node root = FS_NODE_INIT, jobs, job, file, inst, pod;
	char buf[512];

	two_jobs(&x);
	root.type = FS_ROOT;
	root.identity = "";
	CHECK_INT_EQ(lookup(x.fs, &root, "jobs", &jobs), 0);
	CHECK_INT_EQ(lookup(x.fs, &jobs, "mnist", &job), 0);
	CHECK_INT_EQ(job.type, FS_JOB_DIR);
	CHECK_INT_EQ(job.kind, JOB_TFJOB);
	CHECK_STR_EQ(job.job, "mnist");
	CHECK_STR_EQ(job.uid, "uid-mnist");
	/* no TensorBoard, no code: those names are not there */
	CHECK(strstr(listing(x.fs, &job, buf, sizeof(buf)), "status") != NULL);
	CHECK(strstr(buf, "tensorboard_url") == NULL && strstr(buf, "code") == NULL);
	CHECK_INT_EQ(lookup(x.fs, &job, "tensorboard_url", &file), -ENOENT);
	CHECK_INT_EQ(lookup(x.fs, &job, "status", &file), 0);
	CHECK_INT_EQ(file.type, FS_JOB_STATUS);
	CHECK_STR_EQ(file.job, "mnist");
	fs_node_clear(&file);
	CHECK_INT_EQ(lookup(x.fs, &job, "instances", &inst), 0);
	CHECK_STR_EQ(listing(x.fs, &inst, buf, sizeof(buf)), "mnist-worker-0 mnist-worker-1");
	CHECK_INT_EQ(lookup(x.fs, &inst, "mnist-worker-1", &pod), 0);
	CHECK_INT_EQ(pod.type, FS_POD_DIR);
	CHECK_STR_EQ(pod.pod, "mnist-worker-1");
	CHECK_INT_EQ(lookup(x.fs, &inst, "mnist-worker-9", &file), -ENOENT);
	/* the job of another namespace is not below jobs/ */
	CHECK_INT_EQ(lookup(x.fs, &jobs, "elsewhere", &file), -ENOENT);
	fs_node_clear(&pod);
	fs_node_clear(&inst);
	fs_node_clear(&job);
	fs_node_clear(&jobs);
	fx_fs_free(&x);
}

TEST(fs_model_attempts_number_every_instance_of_the_main_container)
{
	struct fx_fs x;
	struct fs_node root = FS_NODE_INIT, jobs, job, inst, pod, att, one, file;
	char buf[512];

	fx_fs_init(&x);
	fx_fs_job(&x, "default", JOB_TFJOB, "flaky", "uid-flaky", 1000);
	fx_fs_pod_restarted(&x, "default", JOB_TFJOB, "flaky", "flaky-worker-0", 2);
	root.type = FS_ROOT;
	root.identity = "";
	CHECK_INT_EQ(lookup(x.fs, &root, "jobs", &jobs), 0);
	CHECK_INT_EQ(lookup(x.fs, &jobs, "flaky", &job), 0);
	CHECK_INT_EQ(lookup(x.fs, &job, "instances", &inst), 0);
	CHECK_INT_EQ(lookup(x.fs, &inst, "flaky-worker-0", &pod), 0);
	CHECK_STR_CONTAINS(listing(x.fs, &pod, buf, sizeof(buf)), "attempts gpus ip logs logs.previous");
	CHECK_INT_EQ(lookup(x.fs, &pod, "attempts", &att), 0);
	CHECK_INT_EQ(att.type, FS_POD_ATTEMPTS_DIR);
	/* restartCount 2, running: two ended, the third runs; numbered from 1 */
	CHECK_STR_EQ(listing(x.fs, &att, buf, sizeof(buf)), "1 2 3");
	CHECK_INT_EQ(lookup(x.fs, &att, "1", &one), 0);
	CHECK_INT_EQ(one.type, FS_ATTEMPT_DIR);
	CHECK_INT_EQ(one.restarts, 0);
	CHECK_STR_EQ(one.container, "tensorflow");
	CHECK_STR_EQ(one.identity, "flaky-worker-0/tensorflow/0");   /* its log's instance */
	CHECK_STR_EQ(listing(x.fs, &one, buf, sizeof(buf)), "info log");
	CHECK_INT_EQ(lookup(x.fs, &one, "log", &file), 0);
	CHECK_INT_EQ(file.type, FS_ATTEMPT_LOG);
	CHECK_INT_EQ(file.restarts, 0);
	CHECK_STR_EQ(file.identity, "flaky-worker-0/tensorflow/0");
	fs_node_clear(&file);
	/* only the numbers of attempts, as attempts/ names them */
	CHECK_INT_EQ(lookup(x.fs, &att, "4", &file), -ENOENT);
	CHECK_INT_EQ(lookup(x.fs, &att, "0", &file), -ENOENT);
	CHECK_INT_EQ(lookup(x.fs, &att, "01", &file), -ENOENT);
	CHECK_INT_EQ(lookup(x.fs, &att, "+1", &file), -ENOENT);
	CHECK_INT_EQ(lookup(x.fs, &att, "3", &file), 0);
	CHECK_INT_EQ(file.restarts, 2);
	fs_node_clear(&file);
	fs_node_clear(&one);
	fs_node_clear(&att);
	fs_node_clear(&pod);
	fs_node_clear(&inst);
	fs_node_clear(&job);
	fs_node_clear(&jobs);
	fx_fs_free(&x);
}

TEST(fs_model_a_node_shows_one_object)
{
	struct fx_fs x;
	struct fs_node root = FS_NODE_INIT, jobs, job;

	two_jobs(&x);
	root.type = FS_ROOT;
	root.identity = "";
	CHECK_INT_EQ(lookup(x.fs, &root, "jobs", &jobs), 0);
	CHECK_INT_EQ(lookup(x.fs, &jobs, "mnist", &job), 0);
	cache_read_lock(x.cache);
	CHECK(model_job(x.fs, &job) != NULL);
	cache_read_unlock(x.cache);
	/* mnist made again: a new uid, so the old node no longer stands for it */
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "uid-mnist-2", 4000);
	cache_read_lock(x.cache);
	CHECK(model_job(x.fs, &job) == NULL);
	cache_read_unlock(x.cache);
	fs_node_clear(&job);
	fs_node_clear(&jobs);
	fx_fs_free(&x);
}
