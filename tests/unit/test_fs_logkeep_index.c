/*
 * Tests of fs/logs/logkeep_index.c: the kept logs' LRU and budget. Beyond the budget the
 * least recently used go first, a use makes an entry the newest, a replaced key
 * does not count twice, the count limit holds, a log larger than the whole
 * budget is refused without dropping anything, and room is made before a copy is
 * written (a budget shrunk to what the disk holds drops the oldest).
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

#include "fs/logs/logkeep_index.h"

static struct logkeep_entry *entry(const char *pod, uint64_t size)
{
	struct logkeep_meta m = {.ns = "default", .job = "mnist", .pod = (char *)pod,
				 .container = "tensorflow", .job_uid = "job-uid", .pod_uid = "pod-uid"};
	char key[128];

	snprintf(key, sizeof(key), "default/mnist/%s/tensorflow", pod);
	return logkeep_entry_new(key, &m, size);
}

static char dropped_names[256];

/* Frees the dropped entries; returns their pod names, space-separated, oldest first. */
static const char *names_of(struct logkeep_entry *dropped)
{
	dropped_names[0] = '\0';
	/* the list is newest-dropped first: print it reversed */
	while (dropped) {
		struct logkeep_entry *next = dropped->older;
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s%s%s", dropped->meta.pod, dropped_names[0] ? " " : "",
			 dropped_names);
		snprintf(dropped_names, sizeof(dropped_names), "%s", tmp);
		logkeep_entry_free(dropped);
		dropped = next;
	}
	return dropped_names;
}

/* Puts an entry; returns the pod names dropped, space-separated, oldest first. */
static const char *put(struct logkeep_index *x, const char *pod, uint64_t size)
{
	struct logkeep_entry *dropped = NULL, *e = entry(pod, size);
	int ret = logkeep_index_put(x, e, &dropped);

	if (ret < 0) {
		logkeep_entry_free(e);
		snprintf(dropped_names, sizeof(dropped_names), "refused %d", ret);
		return dropped_names;
	}
	return names_of(dropped);
}

static void touch(struct logkeep_index *x, const char *pod)
{
	char key[128];
	struct logkeep_entry *e;

	snprintf(key, sizeof(key), "default/mnist/%s/tensorflow", pod);
	e = logkeep_index_find(x, key);
	CHECK(e != NULL);
	if (e)
		logkeep_index_touch(x, e);
}

/* A budget of 1000 holding a, b and c, 300 bytes each, a the oldest. */
static void abc(struct logkeep_index *x)
{
	CHECK_INT_EQ(logkeep_index_init(x, 1000, 100), 0);
	CHECK_STR_EQ(put(x, "a", 300), "");
	CHECK_STR_EQ(put(x, "b", 300), "");
	CHECK_STR_EQ(put(x, "c", 300), "");
}

TEST(logkeep_index_drops_the_least_recently_used_beyond_the_budget)
{
	struct logkeep_index x;

	abc(&x);
	CHECK_INT_EQ(x.total, 900);
	touch(&x, "a");                       /* a is used: b is now the oldest */
	CHECK_STR_EQ(put(&x, "d", 300), "b");
	CHECK_INT_EQ(x.total, 900);
	CHECK_INT_EQ(x.n, 3);
	/* a large one pushes out as many as it takes, oldest first */
	CHECK_STR_EQ(put(&x, "e", 900), "c a d");
	CHECK_INT_EQ(x.total, 900);
	CHECK_INT_EQ(x.n, 1);
	CHECK(logkeep_index_find(&x, "default/mnist/e/tensorflow") != NULL);
	CHECK(logkeep_index_find(&x, "default/mnist/a/tensorflow") == NULL);
	logkeep_index_clear(&x);
}

TEST(logkeep_index_a_log_larger_than_the_budget_is_refused_and_drops_nothing)
{
	struct logkeep_index x;

	CHECK_INT_EQ(logkeep_index_init(&x, 1000, 100), 0);
	CHECK_STR_EQ(put(&x, "a", 600), "");
	CHECK_STR_EQ(put(&x, "huge", 1001), "refused -27");   /* -EFBIG */
	CHECK_INT_EQ(x.n, 1);
	CHECK_INT_EQ(x.total, 600);
	CHECK_STR_EQ(put(&x, "whole", 1000), "a");            /* exactly the budget fits */
	logkeep_index_clear(&x);
}

/* Drops for room; returns the pod names dropped, oldest first, or "refused". */
static const char *room(struct logkeep_index *x, uint64_t size)
{
	struct logkeep_entry *dropped = NULL;

	if (!logkeep_index_make_room(x, size, &dropped))
		return "refused";
	return names_of(dropped);
}

/* A full disk (issue 23, item 7): the copy is written after room is made for it,
 * and a budget shrunk to what the disk holds drops the oldest to fit. */
TEST(logkeep_index_makes_room_before_a_copy_is_written)
{
	struct logkeep_index x;

	abc(&x);
	CHECK_STR_EQ(room(&x, 100), "");          /* 900 + 100 fit */
	CHECK_STR_EQ(room(&x, 400), "a");         /* the least recently used go first */
	CHECK_INT_EQ(x.total, 600);
	CHECK_STR_EQ(room(&x, 1001), "refused");  /* more than the budget: nothing dropped */
	CHECK_INT_EQ(x.n, 2);
	/* the disk holds less than keep_logs: the budget shrinks, the oldest go */
	x.budget = 350;
	CHECK_STR_EQ(room(&x, 0), "b");
	CHECK_INT_EQ(x.total, 300);
	CHECK_STR_EQ(room(&x, 50), "");
	logkeep_index_clear(&x);
}

TEST(logkeep_index_a_replaced_copy_counts_once)
{
	struct logkeep_index x;

	CHECK_INT_EQ(logkeep_index_init(&x, 1000, 100), 0);
	CHECK_STR_EQ(put(&x, "a", 400), "");
	CHECK_STR_EQ(put(&x, "b", 400), "");
	/* a's container ended again (a restart): its new copy replaces the old one */
	CHECK_STR_EQ(put(&x, "a", 500), "");
	CHECK_INT_EQ(x.total, 900);
	CHECK_INT_EQ(x.n, 2);
	CHECK(x.newest == logkeep_index_find(&x, "default/mnist/a/tensorflow"));
	CHECK(x.oldest == logkeep_index_find(&x, "default/mnist/b/tensorflow"));
	logkeep_index_clear(&x);
}

TEST(logkeep_index_holds_at_most_max_entries)
{
	struct logkeep_index x;
	char pod[16];

	CHECK_INT_EQ(logkeep_index_init(&x, 1u << 30, 3), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(pod, sizeof(pod), "p%d", i);
		CHECK_STR_EQ(put(&x, pod, 1), "");
	}
	CHECK_STR_EQ(put(&x, "p3", 1), "p0");
	CHECK_INT_EQ(x.n, 3);
	/* empty logs count too: a finished container that printed nothing */
	CHECK_STR_EQ(put(&x, "empty", 0), "p1");
	CHECK_INT_EQ(x.total, 2);
	logkeep_index_clear(&x);
}

TEST(logkeep_index_remove_and_many_entries)
{
	struct logkeep_index x;
	char pod[16];
	struct logkeep_entry *e;

	CHECK_INT_EQ(logkeep_index_init(&x, 1u << 30, 5000), 0);
	for (int i = 0; i < 5000; i++) {
		snprintf(pod, sizeof(pod), "p%d", i);
		CHECK_STR_EQ(put(&x, pod, 10), "");
	}
	CHECK_INT_EQ(x.total, 50000);
	e = logkeep_index_find(&x, "default/mnist/p1234/tensorflow");
	CHECK(e != NULL);
	if (e) {
		logkeep_index_remove(&x, e);
		logkeep_entry_free(e);
	}
	CHECK(logkeep_index_find(&x, "default/mnist/p1234/tensorflow") == NULL);
	CHECK_INT_EQ(x.n, 4999);
	CHECK_INT_EQ(x.total, 49990);
	CHECK_STR_EQ(put(&x, "p5000", 10), "");
	CHECK_STR_EQ(x.oldest->meta.pod, "p0");
	CHECK_STR_EQ(x.newest->meta.pod, "p5000");
	logkeep_index_clear(&x);
}
