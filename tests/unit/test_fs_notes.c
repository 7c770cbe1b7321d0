/*
 * Tests of fs/submit/notes.c: the table of per-job notes behind jobs/NAME/info's
 * delete and suspend notes. A note is found by its uid with its reason copied out,
 * replaced whole by the next, dropped when forgotten or pruned after it ended, and
 * the oldest goes first when the table is full.
 */
#include "fs/submit/notes.h"
#include "tests/unit/harness.h"

#include <errno.h>

TEST(notes_put_get_replace_forget)
{
	struct notes *t;
	struct note n = {0};
	char buf[64];

	CHECK_INT_EQ(notes_new(0, &t), 0);
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, sizeof(buf)), 0);
	CHECK_INT_EQ(notes_put(t, "u-1", &(struct note){100, 0, 1, ""}), 0);
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(n.asked, 100);
	CHECK_INT_EQ(n.ended, 0);
	CHECK_INT_EQ(n.arg, 1);
	CHECK_STR_EQ(n.reason, "");
	/* the next note of a job replaces the first, reason and all */
	CHECK_INT_EQ(notes_put(t, "u-1", &(struct note){100, 130, 0, "forbidden"}), 0);
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(n.ended, 130);
	CHECK_INT_EQ(n.arg, 0);
	CHECK(n.reason == buf);
	CHECK_STR_EQ(buf, "forbidden");
	/* a small buffer gets what fits */
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, 4), 1);
	CHECK_STR_EQ(n.reason, "for");
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, 0), 0);
	CHECK_INT_EQ(notes_get(t, "u-2", &n, buf, sizeof(buf)), 0);
	CHECK_INT_EQ(notes_get(t, NULL, &n, buf, sizeof(buf)), 0);
	notes_forget(t, "u-2");
	notes_forget(t, NULL);
	notes_forget(t, "u-1");
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, sizeof(buf)), 0);
	notes_free(t);
}

TEST(notes_refuse_a_uid_they_cannot_keep)
{
	struct notes *t;
	char uid[NOTES_UID_MAX + 1];

	memset(uid, 'u', NOTES_UID_MAX);
	uid[NOTES_UID_MAX] = '\0';
	CHECK_INT_EQ(notes_new(0, &t), 0);
	CHECK_INT_EQ(notes_put(t, "", &(struct note){1, 0, 0, "x"}), -EINVAL);
	CHECK_INT_EQ(notes_put(t, NULL, &(struct note){1, 0, 0, "x"}), -EINVAL);
	CHECK_INT_EQ(notes_put(t, uid, &(struct note){1, 0, 0, "x"}), -EINVAL);
	uid[NOTES_UID_MAX - 1] = '\0';
	CHECK_INT_EQ(notes_put(t, uid, &(struct note){1, 0, 0, NULL}), 0);
	notes_free(t);
}

TEST(notes_prune_drops_only_those_ended_before)
{
	struct notes *t;
	struct note n;
	char buf[16];

	CHECK_INT_EQ(notes_new(0, &t), 0);
	CHECK_INT_EQ(notes_put(t, "under-way", &(struct note){10, 0, 0, ""}), 0);
	CHECK_INT_EQ(notes_put(t, "old", &(struct note){10, 20, 0, "a"}), 0);
	CHECK_INT_EQ(notes_put(t, "edge", &(struct note){10, 50, 0, "b"}), 0);
	CHECK_INT_EQ(notes_put(t, "new", &(struct note){10, 90, 0, "c"}), 0);
	notes_prune(t, 50);
	CHECK_INT_EQ(notes_get(t, "under-way", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(notes_get(t, "old", &n, buf, sizeof(buf)), 0);
	CHECK_INT_EQ(notes_get(t, "edge", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(notes_get(t, "new", &n, buf, sizeof(buf)), 1);
	notes_free(t);
}

/* Notes u-0 .. u-(count-1), in that order, each its uid for reason. */
static void put_numbered(struct notes *t, int count)
{
	char uid[16];

	for (int i = 0; i < count; i++) {
		snprintf(uid, sizeof(uid), "u-%d", i);
		CHECK_INT_EQ(notes_put(t, uid, &(struct note){i, i, 0, uid}), 0);
	}
}

TEST(notes_full_table_drops_the_oldest)
{
	struct notes *t;
	struct note n;
	char buf[16];

	CHECK_INT_EQ(notes_new(3, &t), 0);
	put_numbered(t, 3);
	/* u-0 written again is the newest: u-1 is the oldest now */
	CHECK_INT_EQ(notes_put(t, "u-0", &(struct note){5, 5, 0, "again"}), 0);
	CHECK_INT_EQ(notes_put(t, "u-3", &(struct note){6, 6, 0, "u-3"}), 0);
	CHECK_INT_EQ(notes_get(t, "u-1", &n, buf, sizeof(buf)), 0);
	CHECK_INT_EQ(notes_get(t, "u-0", &n, buf, sizeof(buf)), 1);
	CHECK_STR_EQ(n.reason, "again");
	CHECK_INT_EQ(notes_get(t, "u-2", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(notes_get(t, "u-3", &n, buf, sizeof(buf)), 1);
	notes_free(t);
}

TEST(notes_without_bound_grow)
{
	struct notes *t;
	struct note n;
	char buf[16];

	CHECK_INT_EQ(notes_new(0, &t), 0);
	put_numbered(t, 100);
	CHECK_INT_EQ(notes_get(t, "u-0", &n, buf, sizeof(buf)), 1);
	CHECK_INT_EQ(notes_get(t, "u-99", &n, buf, sizeof(buf)), 1);
	CHECK_STR_EQ(n.reason, "u-99");
	notes_free(t);
}
