/*
 * Tests of fs/logs/logkeep.c, in a temporary directory: a committed copy reads back by
 * its instance's identity (and as the previous instance of the next one), with
 * modes 0700/0600; a second open (a remount) finds it again; beyond the budget the
 * least recently read copies are deleted from disk; names that are not one path
 * component are refused and nothing is written outside; leftovers of an
 * interrupted write are cleaned up; every instance of a container is a copy of its
 * own (attempts/), with how it ended; a copy the budget dropped, or too large to
 * keep, is remembered as such; an earlier arenafs' copy (CONTAINER) is renamed.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/logs/logkeep.h"

#define SERVER "https://10.0.0.1:6443"

static char root[256];

static void make_root(void)
{
	snprintf(root, sizeof(root), "%s/arenafs-logkeep-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(root) != NULL);
}

static void remove_root(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT_EQ(system(cmd), 0);
}

static struct logkeep_meta meta(const char *ns, const char *job, const char *pod,
				const char *pod_uid, int instance)
{
	struct logkeep_meta m = {.ns = (char *)ns, .job = (char *)job, .pod = (char *)pod,
				 .container = "tensorflow", .job_uid = "job-uid-1",
				 .pod_uid = (char *)pod_uid, .instance = instance,
				 .finished = 1796202869, .main = true};
	return m;
}

static int commit(struct logkeep *k, const struct logkeep_meta *m, const char *text)
{
	char name[32];
	int fd = logkeep_tmp(k, name, sizeof(name));

	CHECK(fd >= 0);
	if (fd < 0)
		return fd;
	CHECK_INT_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	close(fd);
	return logkeep_commit(k, m, name, strlen(text));
}

/* The kept text of an instance, "" when not kept. Static buffer. */
static const char *read_kept(struct logkeep *k, const char *pod, const char *identity)
{
	static char buf[256];
	struct logkeep_ref r = {"default", "mnist", pod, "tensorflow", identity};
	uint64_t size = 0;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (logkeep_open_log(k, &r, &fd, &size) < 0)
		return buf;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_INT_EQ((long long)size, n);
	return buf;
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

TEST(logkeep_a_copy_reads_back_by_identity_and_after_a_remount)
{
	struct logkeep *k;
	struct logkeep_meta m = meta("default", "mnist", "mnist-worker-0", "uid-0", 2);
	char why[256], path[600];
	uint64_t size = 0;
	int64_t finished = 0;
	struct logkeep_ref r = {"default", "mnist", "mnist-worker-0", "tensorflow", "uid-0/tensorflow/2"};

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	CHECK_INT_EQ(commit(k, &m, "epoch 1 loss 2.3\nepoch 2 loss 1.1\n"), 0);
	CHECK(logkeep_has(k, &r, &size, &finished));
	CHECK_INT_EQ(size, 34);
	CHECK_INT_EQ(finished, 1796202869);
	CHECK_STR_EQ(read_kept(k, "mnist-worker-0", "uid-0/tensorflow/2"),
		     "epoch 1 loss 2.3\nepoch 2 loss 1.1\n");
	/* the same instance as logs.previous once the container restarted */
	CHECK_STR_EQ(read_kept(k, "mnist-worker-0", "uid-0/tensorflow/prev3"),
		     "epoch 1 loss 2.3\nepoch 2 loss 1.1\n");
	/* another instance, another pod of the same name: not this copy */
	CHECK_STR_EQ(read_kept(k, "mnist-worker-0", "uid-0/tensorflow/3"), "");
	CHECK_STR_EQ(read_kept(k, "mnist-worker-0", "uid-9/tensorflow/2"), "");

	/* modes: the directories 0700, the files 0600 */
	snprintf(path, sizeof(path), "%s", logkeep_dir(k));
	CHECK_INT_EQ(mode_of(root), 0700);   /* DIR is arenafs' own */
	CHECK_INT_EQ(mode_of(path), 0700);
	snprintf(path, sizeof(path), "%s/default/mnist/mnist-worker-0", logkeep_dir(k));
	CHECK_INT_EQ(mode_of(path), 0700);
	snprintf(path, sizeof(path), "%s/default/mnist/mnist-worker-0/tensorflow.2", logkeep_dir(k));
	CHECK_INT_EQ(mode_of(path), 0600);
	snprintf(path, sizeof(path), "%s/default/mnist/mnist-worker-0/tensorflow.2.meta",
		 logkeep_dir(k));
	CHECK_INT_EQ(mode_of(path), 0600);
	logkeep_free(k);

	/* a remount finds it; another cluster does not */
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	CHECK_STR_EQ(read_kept(k, "mnist-worker-0", "uid-0/tensorflow/2"),
		     "epoch 1 loss 2.3\nepoch 2 loss 1.1\n");
	logkeep_free(k);
	CHECK_INT_EQ(logkeep_open(root, "https://10.0.0.2:6443", 1 << 20, &k, why, sizeof(why)), 0);
	CHECK(!logkeep_has(k, &r, &size, &finished));
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_beyond_the_budget_the_least_recently_read_are_deleted)
{
	struct logkeep *k;
	struct logkeep_meta a = meta("default", "mnist", "a", "uid-a", 0);
	struct logkeep_meta b = meta("default", "mnist", "b", "uid-b", 0);
	struct logkeep_meta c = meta("default", "mnist", "c", "uid-c", 0);
	struct logkeep_entry **e;
	char why[256], path[600];
	uint64_t bytes;
	size_t n;

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 25, &k, why, sizeof(why)), 0);
	CHECK_INT_EQ(commit(k, &a, "aaaaaaaaaa"), 0);
	CHECK_INT_EQ(commit(k, &b, "bbbbbbbbbb"), 0);
	CHECK_STR_EQ(read_kept(k, "a", "uid-a/tensorflow/0"), "aaaaaaaaaa");   /* a used */
	CHECK_INT_EQ(commit(k, &c, "cccccccccc"), 0);                          /* b goes */
	logkeep_usage(k, &bytes, &n);
	CHECK_INT_EQ(bytes, 20);
	CHECK_INT_EQ(n, 2);
	CHECK_STR_EQ(read_kept(k, "b", "uid-b/tensorflow/0"), "");
	snprintf(path, sizeof(path), "%s/default/mnist/b", logkeep_dir(k));
	CHECK(access(path, F_OK) < 0);            /* its files and directory are gone */
	CHECK_INT_EQ(logkeep_of_job(k, "default", 0, "mnist", "job-uid-1", &e), 2);
	logkeep_entries_free(e, 2);
	CHECK_INT_EQ(logkeep_of_job(k, "default", 0, "mnist", "another-uid", &e), 0);
	logkeep_entries_free(e, 0);
	/* a copy larger than the whole budget is not kept, and drops nothing */
	CHECK_INT_EQ(commit(k, &b, "0123456789012345678901234567890"), -EFBIG);
	logkeep_usage(k, &bytes, &n);
	CHECK_INT_EQ(n, 2);
	logkeep_free(k);

	/* a remount with a smaller budget keeps the most recently used */
	CHECK_INT_EQ(logkeep_open(root, SERVER, 15, &k, why, sizeof(why)), 0);
	logkeep_usage(k, &bytes, &n);
	CHECK_INT_EQ(n, 1);
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_names_that_are_not_one_component_are_refused)
{
	static const char *const BAD[] = {"..", ".", "a/b", "", ".hidden", "-x", "a b"};
	struct logkeep *k;
	char why[256], path[600];
	uint64_t bytes;
	size_t n;

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		struct logkeep_meta as_ns = meta(BAD[i], "mnist", "p", "uid", 0);
		struct logkeep_meta as_job = meta("default", BAD[i], "p", "uid", 0);
		struct logkeep_meta as_pod = meta("default", "mnist", BAD[i], "uid", 0);
		struct logkeep_meta as_uid = meta("default", "mnist", "p", BAD[i], 0);

		CHECK_INT_EQ(commit(k, &as_ns, "x"), -EINVAL);
		CHECK_INT_EQ(commit(k, &as_job, "x"), -EINVAL);
		CHECK_INT_EQ(commit(k, &as_pod, "x"), -EINVAL);
		CHECK_INT_EQ(commit(k, &as_uid, "x"), -EINVAL);
	}
	{
		struct logkeep_meta dotted = meta("default", "mnist", "p", "uid", 0);

		dotted.container = "c.meta";   /* a container's name never has a dot */
		CHECK_INT_EQ(commit(k, &dotted, "x"), -EINVAL);
	}
	logkeep_usage(k, &bytes, &n);
	CHECK_INT_EQ(n, 0);
	snprintf(path, sizeof(path), "%s/../mnist", logkeep_dir(k));
	CHECK(access(path, F_OK) < 0);
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_leftovers_of_an_interrupted_write_are_cleaned_up)
{
	struct logkeep *k;
	struct logkeep_meta m = meta("default", "mnist", "p", "uid-p", 0);
	char why[256], path[600], tmp[32];
	uint64_t bytes;
	size_t n;
	int fd;

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	CHECK_INT_EQ(commit(k, &m, "kept\n"), 0);
	fd = logkeep_tmp(k, tmp, sizeof(tmp));       /* a write that never ended */
	CHECK(fd >= 0);
	close(fd);
	/* a copy whose meta file never came (a crash between the two renames) */
	snprintf(path, sizeof(path), "%s/default/mnist/p/orphan", logkeep_dir(k));
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	close(fd);
	logkeep_free(k);

	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	logkeep_usage(k, &bytes, &n);
	CHECK_INT_EQ(n, 1);
	CHECK_INT_EQ(bytes, 5);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/%s", logkeep_dir(k), tmp);
	CHECK(access(path, F_OK) < 0);
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_every_instance_is_a_copy_of_its_own_with_how_it_ended)
{
	struct logkeep *k;
	struct logkeep_meta first = meta("default", "mnist", "p", "uid-p", 0);
	struct logkeep_meta second = meta("default", "mnist", "p", "uid-p", 1);
	struct logkeep_entry **e;
	char why[256];
	size_t n;

	first.started = 1796202800;
	first.exit_code = 137;
	snprintf(first.reason, sizeof(first.reason), "OOMKilled");
	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	CHECK_INT_EQ(commit(k, &first, "attempt 1\n"), 0);
	CHECK_INT_EQ(commit(k, &second, "attempt 2\n"), 0);
	CHECK_STR_EQ(read_kept(k, "p", "uid-p/tensorflow/0"), "attempt 1\n");
	CHECK_STR_EQ(read_kept(k, "p", "uid-p/tensorflow/1"), "attempt 2\n");
	CHECK_STR_EQ(read_kept(k, "p", "uid-p/tensorflow/prev1"), "attempt 1\n");
	logkeep_free(k);
	/* after a remount: both, and how the first ended */
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	n = logkeep_of_pod(k, "default", 0, "mnist", "job-uid-1", "uid-p", &e);
	CHECK_INT_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		CHECK(!e[i]->dropped);
		if (e[i]->meta.instance == 0) {
			CHECK_INT_EQ(e[i]->meta.exit_code, 137);
			CHECK_STR_EQ(e[i]->meta.reason, "OOMKilled");
			CHECK_INT_EQ(e[i]->meta.started, 1796202800);
		}
	}
	logkeep_entries_free(e, n);
	CHECK_INT_EQ(logkeep_of_pod(k, "default", 0, "mnist", "job-uid-1", "uid-q", &e), 0);
	logkeep_entries_free(e, 0);
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_a_dropped_copy_is_remembered_as_dropped)
{
	struct logkeep *k;
	struct logkeep_meta first = meta("default", "mnist", "p", "uid-p", 0);
	struct logkeep_meta second = meta("default", "mnist", "p", "uid-p", 1);
	struct logkeep_meta third = meta("default", "mnist", "p", "uid-p", 2);
	struct logkeep_entry **e;
	char why[256];
	size_t n;
	int seen = 0;

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 15, &k, why, sizeof(why)), 0);
	CHECK_INT_EQ(commit(k, &first, "0123456789"), 0);
	CHECK_INT_EQ(commit(k, &second, "0123456789"), 0);   /* the first goes */
	logkeep_not_kept(k, &third, EFBIG);
	CHECK_STR_EQ(read_kept(k, "p", "uid-p/tensorflow/0"), "");
	n = logkeep_of_pod(k, "default", 0, "mnist", "job-uid-1", "uid-p", &e);
	CHECK_INT_EQ(n, 3);
	for (size_t i = 0; i < n; i++) {
		int in = e[i]->meta.instance;

		seen |= 1 << in;
		CHECK(in == 1 ? !e[i]->dropped : e[i]->dropped > 0);
		CHECK_INT_EQ(e[i]->dropped_why, in == 2 ? EFBIG : 0);
	}
	CHECK_INT_EQ(seen, 7);
	logkeep_entries_free(e, n);
	/* the copies alone count: what was dropped is no copy */
	CHECK_INT_EQ(logkeep_of_job(k, "default", 0, "mnist", "job-uid-1", &e), 1);
	logkeep_entries_free(e, 1);
	logkeep_free(k);
	remove_root();
}

TEST(logkeep_an_earlier_copy_named_after_its_container_is_renamed)
{
	static const char META[] = "arenafs-kept-log 1\nns default\njob mnist\nkind 0\n"
		"pod p\ncontainer tensorflow\njob_uid job-uid-1\npod_uid uid-p\n"
		"instance 3\nfinished 1796202869\nmain 1\n";
	struct logkeep *k;
	char why[256], path[700];
	int fd;

	make_root();
	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/default", logkeep_dir(k));
	CHECK_INT_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/default/mnist", logkeep_dir(k));
	CHECK_INT_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/default/mnist/p", logkeep_dir(k));
	CHECK_INT_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/default/mnist/p/tensorflow", logkeep_dir(k));
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	CHECK_INT_EQ(write(fd, "old\n", 4), 4);
	close(fd);
	snprintf(path, sizeof(path), "%s/default/mnist/p/tensorflow.meta", logkeep_dir(k));
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	CHECK_INT_EQ(write(fd, META, sizeof(META) - 1), (long long)sizeof(META) - 1);
	close(fd);
	logkeep_free(k);

	CHECK_INT_EQ(logkeep_open(root, SERVER, 1 << 20, &k, why, sizeof(why)), 0);
	CHECK_STR_EQ(read_kept(k, "p", "uid-p/tensorflow/3"), "old\n");
	snprintf(path, sizeof(path), "%s/default/mnist/p/tensorflow.3", logkeep_dir(k));
	CHECK(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/default/mnist/p/tensorflow", logkeep_dir(k));
	CHECK(access(path, F_OK) < 0);
	logkeep_free(k);
	remove_root();
}
