/*
 * Tests of fs/base/inode.c: stable inode numbers per (parent, name, identity), new
 * numbers for a new identity, FUSE's lookup/forget lifetime with pins, parents
 * kept alive by children, the object index and growth past the initial buckets.
 */
#include "tests/unit/harness.h"

#include <stdlib.h>
#include <string.h>

#include "fs/base/inode.h"

static int freed;

static void count_free(struct fs_inode *in)
{
	(void)in;
	freed++;
}

static struct fs_node make_node(enum fs_type type, const char *identity)
{
	struct fs_node n = FS_NODE_INIT;

	n.type = type;
	n.identity = strdup(identity);
	return n;
}

/* Looks up parent/name as a lookup reply would: child + one kernel reference. */
static struct fs_inode *lookup(struct inode_table *t, struct fs_inode *parent, const char *name,
			       enum fs_type type, const char *identity, const char *objkey)
{
	struct fs_node n = make_node(type, identity);
	struct fs_inode *in = inode_table_child(t, parent, name, &n, objkey);

	fs_node_clear(&n);
	if (in) {
		inode_table_ref(t, in, 1);
		inode_table_put(t, in);
	}
	return in;
}

TEST(fs_inode_same_path_same_identity_keeps_number)
{
	struct inode_table *t = inode_table_new(NULL);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *a = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_inode *b = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);

	CHECK(a != NULL);
	CHECK(a == b);
	CHECK(a->ino > 1);
	CHECK_INT_EQ(a->nlookup, 2);
	CHECK_INT_EQ(root->ino, 1);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_new_identity_gets_new_number_old_lives_until_forget)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *pod = lookup(t, root, "pod", FS_POD_DIR, "uid-1", NULL);
	struct fs_inode *l1 = lookup(t, pod, "logs", FS_POD_LOGS, "uid-1/c/0", NULL);
	uint64_t ino1 = l1->ino;
	struct fs_inode *l2 = lookup(t, pod, "logs", FS_POD_LOGS, "uid-1/c/1", NULL);
	struct fs_inode *found;

	freed = 0;
	CHECK(l2 != l1);
	CHECK(l2->ino != ino1);
	/* The old instance is still there for the kernel (tail -f holds it) ... */
	found = inode_table_get(t, ino1);
	CHECK(found == l1);
	CHECK(!found->mapped);
	inode_table_put(t, found);
	/* ... but the name now means the new one. */
	found = inode_table_find(t, pod, "logs");
	CHECK(found == l2);
	inode_table_put(t, found);
	inode_table_forget(t, ino1, 1);
	CHECK_INT_EQ(freed, 1);
	CHECK(inode_table_get(t, ino1) == NULL);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_forget_frees_only_without_pins_and_children)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_inode *job = lookup(t, dir, "mnist", FS_JOB_DIR, "u1", NULL);
	uint64_t dir_ino = dir->ino, job_ino = job->ino;
	struct fs_inode *pinned;

	freed = 0;
	CHECK_INT_EQ(inode_table_count(t), 3);
	/* The kernel may forget a directory before its children: the child keeps it. */
	inode_table_forget(t, dir_ino, 1);
	CHECK_INT_EQ(freed, 0);
	pinned = inode_table_get(t, job_ino);
	CHECK(pinned == job);
	inode_table_forget(t, job_ino, 1);
	CHECK_INT_EQ(freed, 0);           /* still pinned */
	inode_table_put(t, pinned);
	CHECK_INT_EQ(freed, 2);           /* the job, then the directory it held */
	CHECK_INT_EQ(inode_table_count(t), 1);
	/* forget of an unknown or the root inode is harmless */
	inode_table_forget(t, 999999, 3);
	inode_table_forget(t, 1, 1);
	CHECK(inode_table_get(t, 1) == root);
	inode_table_put(t, root);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_forget_counts_down_lookups)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *a = lookup(t, root, "README", FS_README, "", NULL);

	lookup(t, root, "README", FS_README, "", NULL);
	lookup(t, root, "README", FS_README, "", NULL);
	freed = 0;
	inode_table_forget(t, a->ino, 2);
	CHECK_INT_EQ(freed, 0);
	CHECK_INT_EQ(a->nlookup, 1);
	inode_table_forget(t, a->ino, 1);
	CHECK_INT_EQ(freed, 1);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_object_index_lists_registered_inodes)
{
	struct inode_table *t = inode_table_new(NULL);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_inode *job = lookup(t, dir, "mnist", FS_JOB_DIR, "u1", "job/default/0/mnist");
	struct fs_inode *st = lookup(t, job, "status", FS_JOB_STATUS, "u1", "job/default/0/mnist");
	struct fs_inode **arr;
	size_t n;
	bool want[FS_TYPE_COUNT] = {false};

	lookup(t, dir, "other", FS_JOB_DIR, "u2", "job/default/0/other");
	n = inode_table_by_object(t, "job/default/0/mnist", &arr);
	CHECK_INT_EQ(n, 2);
	CHECK((arr[0] == job && arr[1] == st) || (arr[0] == st && arr[1] == job));
	for (size_t i = 0; i < n; i++)
		inode_table_put(t, arr[i]);
	free(arr);
	n = inode_table_by_object(t, "job/default/0/none", &arr);
	CHECK_INT_EQ(n, 0);
	CHECK(arr == NULL);

	want[FS_JOB_DIR] = true;
	n = inode_table_by_type(t, want, &arr);
	CHECK_INT_EQ(n, 2);
	for (size_t i = 0; i < n; i++)
		inode_table_put(t, arr[i]);
	free(arr);

	/* A forgotten inode leaves the index. */
	inode_table_forget(t, st->ino, 1);
	n = inode_table_by_object(t, "job/default/0/mnist", &arr);
	CHECK_INT_EQ(n, 1);
	CHECK(n == 1 && arr[0] == job);
	for (size_t i = 0; i < n; i++)
		inode_table_put(t, arr[i]);
	free(arr);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_many_inodes_stay_findable_after_growth)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	enum { N = 10000 };
	static uint64_t inos[N];
	char name[32], key[48];
	int bad = 0;

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "job-%d", i);
		snprintf(key, sizeof(key), "job/ns/0/job-%d", i);
		inos[i] = lookup(t, dir, name, FS_JOB_DIR, name, key)->ino;
	}
	CHECK_INT_EQ(inode_table_count(t), N + 2);
	for (int i = 0; i < N; i++) {
		struct fs_inode *in;

		snprintf(name, sizeof(name), "job-%d", i);
		in = inode_table_find(t, dir, name);
		if (!in || in->ino != inos[i] || strcmp(in->name, name) != 0)
			bad++;
		inode_table_put(t, in);
		in = inode_table_get(t, inos[i]);
		if (!in || strcmp(in->name, name) != 0)
			bad++;
		inode_table_put(t, in);
	}
	CHECK_INT_EQ(bad, 0);
	freed = 0;
	for (int i = 0; i < N; i++)
		inode_table_forget(t, inos[i], 1);
	CHECK_INT_EQ(freed, N);
	CHECK_INT_EQ(inode_table_count(t), 2);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_text_is_shared_and_counted)
{
	struct fs_text *a = fs_text_new("RUNNING\n", 8);
	struct fs_text *b = fs_text_get(a);

	CHECK(a == b);
	CHECK_INT_EQ(a->len, 8);
	CHECK_STR_EQ(a->data, "RUNNING\n");
	fs_text_put(a);
	CHECK_STR_EQ(b->data, "RUNNING\n");
	fs_text_put(b);
	a = fs_text_new("", 0);
	CHECK_INT_EQ(a->len, 0);
	CHECK_STR_EQ(a->data, "");
	fs_text_put(a);
}

TEST(fs_inode_rename_keeps_number_and_replaces_the_target)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *sub = lookup(t, root, "submit", FS_SUBMIT_DIR, "", NULL);
	struct fs_inode *dir = lookup(t, sub, "mnist", FS_SUBMIT_SUBDIR, "s1", NULL);
	struct fs_inode *tmp = lookup(t, dir, ".spec.yaml.x1", FS_SUBMIT_FILE, "s2", NULL);
	struct fs_inode *target = lookup(t, dir, "spec.yaml", FS_SUBMIT_FILE, "s3", NULL);
	struct fs_inode *found;
	uint64_t ino = tmp->ino;

	freed = 0;
	CHECK_INT_EQ(inode_table_rename(t, tmp, dir, "spec.yaml"), 0);
	found = inode_table_find(t, dir, "spec.yaml");
	CHECK(found == tmp);
	CHECK_INT_EQ(found->ino, ino);
	inode_table_put(t, found);
	CHECK(inode_table_find(t, dir, ".spec.yaml.x1") == NULL);
	CHECK(!inode_table_is_mapped(t, target));   /* replaced: lives until forgotten */
	inode_table_forget(t, target->ino, 1);
	CHECK_INT_EQ(freed, 1);

	/* to another directory: the old parent is no longer pinned by it */
	CHECK_INT_EQ(inode_table_rename(t, tmp, sub, "mnist.yaml"), 0);
	inode_table_forget(t, dir->ino, 1);
	CHECK_INT_EQ(freed, 2);                      /* dir: no lookups, no children */
	found = inode_table_find(t, sub, "mnist.yaml");
	CHECK(found == tmp);
	inode_table_put(t, found);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_number_comes_back_after_forget_for_the_same_object)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_inode *job = lookup(t, dir, "mnist", FS_JOB_DIR, "u1", NULL);
	uint64_t dir_ino = dir->ino, job_ino = job->ino;

	freed = 0;
	inode_table_forget(t, job_ino, 1);
	inode_table_forget(t, dir_ino, 1);
	CHECK_INT_EQ(freed, 2);
	/* looked up again (after `echo 3 > drop_caches`, say): the same numbers */
	dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	job = lookup(t, dir, "mnist", FS_JOB_DIR, "u1", NULL);
	CHECK_INT_EQ(dir->ino, dir_ino);
	CHECK_INT_EQ(job->ino, job_ino);
	/* another object at the path: another number, even once the first is forgotten */
	inode_table_forget(t, job_ino, 1);
	struct fs_inode *again = lookup(t, dir, "mnist", FS_JOB_DIR, "u2", NULL);
	CHECK(again->ino != job_ino);
	CHECK(again->ino > 1 && !(again->ino >> 63));
	inode_table_put(t, root);
	inode_table_free(t);
}

static int over_calls;

static void count_over(void *arg)
{
	(void)arg;
	over_calls++;
}

TEST(fs_inode_beyond_the_limit_the_least_recently_used_idle_leaves_go_first)
{
	struct inode_table *t = inode_table_new(count_free);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_inode *open, *used;
	struct inode_evict *ev;
	char name[32], id[32];
	size_t n;

	over_calls = 0;
	inode_table_set_limit(t, 100, count_over, NULL);
	for (int i = 0; i < 1100; i++) {
		snprintf(name, sizeof(name), "job-%04d", i);
		snprintf(id, sizeof(id), "u%d", i);
		lookup(t, dir, name, FS_JOB_DIR, id, NULL);
	}
	CHECK(over_calls >= 1);                     /* told to evict while growing */
	open = inode_table_find(t, dir, "job-0000"); /* in use: never handed out */
	used = inode_table_find(t, dir, "job-0001"); /* used again: now the most recent */
	inode_table_put(t, used);

	/* root, jobs/ and 1,100 jobs: 1,002 over the limit, but jobs/ holds children */
	n = inode_table_evict(t, 5000, &ev);
	CHECK_INT_EQ(n, 1002);
	CHECK_INT_EQ(ev[0].parent, dir->ino);
	CHECK_STR_EQ(ev[0].name, "job-0002");        /* the oldest idle one */
	for (size_t i = 0; i < n; i++)
		CHECK(strcmp(ev[i].name, "job-0000") != 0);
	CHECK_INT_EQ(ev[0].type, FS_JOB_DIR);
	/* handed out and not forgotten yet: not handed out twice */
	struct inode_evict *again;
	CHECK_INT_EQ(inode_table_evict(t, 5000, &again), 0);
	CHECK(again == NULL);

	/* the kernel forgets them: freed, and the table is back under its limit */
	freed = 0;
	for (size_t i = 0; i < n; i++) {
		struct fs_inode *in = inode_table_find(t, dir, ev[i].name);

		CHECK(in != NULL);
		if (!in)
			continue;
		uint64_t ino = in->ino;

		inode_table_put(t, in);     /* find pinned it, which made it "used" again */
		inode_table_forget(t, ino, 1);
	}
	CHECK_INT_EQ(freed, 1002);
	CHECK_INT_EQ(inode_table_count(t), 100);
	inode_table_evict_free(ev, n);
	inode_table_put(t, open);
	inode_table_put(t, dir);
	inode_table_put(t, root);
	inode_table_free(t);
}

TEST(fs_inode_number_before_lookup_is_the_number_lookup_gives)
{
	struct inode_table *t = inode_table_new(NULL);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_node n = make_node(FS_JOB_DIR, "u1");
	uint64_t before = inode_table_number(t, dir, "mnist", &n);
	struct fs_inode *job = lookup(t, dir, "mnist", FS_JOB_DIR, "u1", NULL);

	CHECK_INT_EQ(before, job->ino);
	CHECK_INT_EQ(inode_table_number(t, dir, "mnist", &n), job->ino);
	fs_node_clear(&n);
	inode_table_put(t, root);
	inode_table_free(t);
}

/* A job's file carries its job's strings without copies of them; what differs is
 * its own, and a submit/ entry (which rename may move) owns all of its strings. */
TEST(fs_inode_strings_equal_to_the_parents_are_shared)
{
	struct inode_table *t = inode_table_new(NULL);
	struct fs_inode *root = inode_table_root(t);
	struct fs_inode *dir = lookup(t, root, "jobs", FS_JOBS_DIR, "", NULL);
	struct fs_node jn = make_node(FS_JOB_DIR, "u1"), fn = make_node(FS_JOB_LOGS, "u1/c/0");
	struct fs_inode *job, *logs, *sub, *staged;

	jn.ns = strdup("default");
	jn.job = strdup("mnist");
	jn.uid = strdup("u1");
	job = inode_table_child(t, dir, "mnist", &jn, "job/default/0/mnist");
	fn.ns = strdup("default");
	fn.job = strdup("mnist");
	fn.uid = strdup("u1");
	fn.pod = strdup("mnist-worker-0");
	logs = inode_table_child(t, job, "logs", &fn, "job/default/0/mnist");
	CHECK(job && logs);
	if (job && logs) {
		/* the job's own uid and identity are equal: one copy */
		CHECK_STR_EQ(job->node.uid, "u1");
		CHECK(job->node.identity == job->node.uid);
		CHECK(logs->node.ns == job->node.ns);
		CHECK(logs->node.job == job->node.job);
		CHECK(logs->node.uid == job->node.uid);
		CHECK(logs->objkey == job->objkey);
		CHECK_STR_EQ(logs->objkey, "job/default/0/mnist");
		CHECK_STR_EQ(logs->node.pod, "mnist-worker-0");
		CHECK_STR_EQ(logs->node.identity, "u1/c/0");
		CHECK_STR_EQ(logs->name, "logs");
		CHECK(logs->node.container == NULL);
		/* nothing points into the caller's node */
		CHECK(logs->node.pod != fn.pod && logs->node.ns != fn.ns);
		inode_table_put(t, logs);
	}
	sub = lookup(t, root, "submit", FS_SUBMIT_DIR, "s0", NULL);
	staged = inode_table_child(t, sub, "mnist", &(struct fs_node){.type = FS_SUBMIT_SUBDIR,
				   .kind = -1, .identity = "s0"}, NULL);
	CHECK(staged && staged->node.identity != sub->node.identity);
	if (staged) {
		CHECK_STR_EQ(staged->node.identity, "s0");
		inode_table_put(t, staged);
	}
	if (job)
		inode_table_put(t, job);
	fs_node_clear(&jn);
	fs_node_clear(&fn);
	inode_table_put(t, root);
	inode_table_free(t);
}
