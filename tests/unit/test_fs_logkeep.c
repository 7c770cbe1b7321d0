/*
 * Tests of fs/logs/logkeep.c, in a temporary directory: a committed copy reads back by
 * its instance's identity (and as the previous instance of the next one), with
 * modes 0700/0600; a second open (a remount) finds it again; beyond the budget the
 * least recently read copies are deleted from disk; names that are not one path
 * component are refused and nothing is written outside; leftovers of an
 * interrupted write are cleaned up.
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
	struct logkeep_meta m = {(char *)ns, (char *)job, (char *)pod, "tensorflow", 0,
				 "job-uid-1", (char *)pod_uid, instance, 1796202869, true};
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
	snprintf(path, sizeof(path), "%s/default/mnist/mnist-worker-0/tensorflow", logkeep_dir(k));
	CHECK_INT_EQ(mode_of(path), 0600);
	snprintf(path, sizeof(path), "%s/default/mnist/mnist-worker-0/tensorflow.meta",
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
