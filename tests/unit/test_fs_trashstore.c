/*
 * Tests of fs/submit/trashstore.c: what `.Trash-UID/` holds. The trash is there once
 * made and goes only empty; info/ takes the files trashers write (GIO's temporary
 * renamed over the .trashinfo, send2trash's written in place) within its bounds; a
 * deleted job kept in files/ gets an info file made when its trasher wrote none, is
 * forgotten with its info, and the oldest go first beyond the bounds.
 */
#include "fs/submit/trashstore.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct trash_job MNIST = {"default", 0, "mnist", "uid-1", false};

/* The text of info/name, or "" when none. */
static const char *info_of(struct trashstore *t, const char *name, char *buf, size_t size)
{
	struct trash_stat st;
	long n;

	buf[0] = '\0';
	if (trashstore_lookup(t, TRASH_INFO, name, &st) < 0)
		return buf;
	n = trashstore_read(t, TRASH_INFO, st.id, false, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static size_t count(struct trashstore *t, enum trash_dir dir)
{
	char **names;
	uint64_t *ids;
	size_t n = 0;

	if (trashstore_list(t, dir, &names, &ids, &n) == 0)
		trashstore_list_free(names, ids, n);
	return n;
}

TEST(trashstore_is_made_then_removed_only_empty)
{
	struct trashstore *t;
	int64_t since = 0;

	CHECK_INT_EQ(trashstore_new(&t), 0);
	CHECK(!trashstore_made(t, NULL));
	CHECK_INT_EQ(trashstore_unmake(t), -ENOENT);
	CHECK_INT_EQ(trashstore_make(t, 100), 0);
	CHECK(trashstore_made(t, &since));
	CHECK_INT_EQ(since, 100);
	CHECK_INT_EQ(trashstore_make(t, 200), -EEXIST);
	CHECK_INT_EQ(trashstore_entry_add(t, "mnist", &MNIST, "spec", 4, "info", 150), 0);
	CHECK_INT_EQ(trashstore_unmake(t), -ENOTEMPTY);
	CHECK_INT_EQ(trashstore_entry_forget(t, "mnist"), 0);
	CHECK_INT_EQ(trashstore_unmake(t), 0);
	CHECK(!trashstore_made(t, NULL));
	trashstore_free(t);
}

TEST(trashstore_info_as_gio_and_send2trash_write_it)
{
	struct trashstore *t;
	struct trash_stat st;
	uint64_t id, tmp;
	char buf[256];
	const char *text = "[Trash Info]\nPath=jobs/mnist\nDeletionDate=2026-12-07T14:32:24\n";

	CHECK_INT_EQ(trashstore_new(&t), 0);
	trashstore_make(t, 1);
	/* GIO: O_EXCL of the name, its text into a temporary renamed over it */
	CHECK_INT_EQ(trashstore_info_create(t, "mnist.trashinfo", 1, &id), 0);
	CHECK_INT_EQ(trashstore_info_create(t, "mnist.trashinfo", 1, &id), -EEXIST);
	CHECK_INT_EQ(trashstore_info_create(t, "mnist.trashinfo.6H4WZ3", 1, &tmp), 0);
	CHECK_INT_EQ(trashstore_info_write(t, tmp, text, strlen(text), 0, 2), (long)strlen(text));
	CHECK_INT_EQ(trashstore_info_rename(t, "mnist.trashinfo.6H4WZ3", "mnist.trashinfo", true),
		     -EEXIST);
	CHECK_INT_EQ(trashstore_info_rename(t, "mnist.trashinfo.6H4WZ3", "mnist.trashinfo", false),
		     0);
	CHECK_STR_EQ(info_of(t, "mnist.trashinfo", buf, sizeof(buf)), text);
	CHECK_INT_EQ(count(t, TRASH_INFO), 1);
	CHECK_INT_EQ(trashstore_stat(t, TRASH_INFO, tmp, &st), 0);   /* it keeps its id */
	CHECK_INT_EQ(st.size, strlen(text));
	CHECK_INT_EQ(trashstore_stat(t, TRASH_INFO, id, &st), -ENOENT); /* replaced */
	/* send2trash: O_TRUNC, then its writes */
	CHECK_INT_EQ(trashstore_info_truncate(t, tmp, 0, 3), 0);
	CHECK_INT_EQ(trashstore_info_write(t, tmp, "[Trash", 6, 0, 3), 6);
	CHECK_INT_EQ(trashstore_info_write(t, tmp, " Info]\n", 7, 6, 3), 7);
	CHECK_STR_EQ(info_of(t, "mnist.trashinfo", buf, sizeof(buf)), "[Trash Info]\n");
	/* a write past the bound is EFBIG and leaves the file as it was */
	CHECK_INT_EQ(trashstore_info_write(t, tmp, "x", 1, TRASH_INFO_SIZE_MAX, 4), -EFBIG);
	CHECK_INT_EQ(trashstore_info_truncate(t, tmp, TRASH_INFO_SIZE_MAX + 1, 4), -EFBIG);
	CHECK_STR_EQ(info_of(t, "mnist.trashinfo", buf, sizeof(buf)), "[Trash Info]\n");
	/* a write beyond the end fills the gap with zeros */
	CHECK_INT_EQ(trashstore_info_write(t, tmp, "!", 1, 20, 5), 1);
	CHECK_INT_EQ(trashstore_stat(t, TRASH_INFO, tmp, &st), 0);
	CHECK_INT_EQ(st.size, 21);
	CHECK_INT_EQ(trashstore_info_unlink(t, "mnist.trashinfo"), 0);
	CHECK_INT_EQ(trashstore_info_unlink(t, "mnist.trashinfo"), -ENOENT);
	CHECK_INT_EQ(trashstore_info_rename(t, "nonesuch", "x", false), -ENOENT);
	trashstore_free(t);
}

TEST(trashstore_info_is_bounded_in_count)
{
	struct trashstore *t;
	char name[32];
	uint64_t id;

	CHECK_INT_EQ(trashstore_new(&t), 0);
	trashstore_make(t, 1);
	for (int i = 0; i < TRASH_INFO_FILES_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		CHECK_INT_EQ(trashstore_info_create(t, name, 1, &id), 0);
	}
	CHECK_INT_EQ(trashstore_info_create(t, "one-more", 1, &id), -ENOSPC);
	/* nor can a deleted job be kept then: its info would not fit */
	CHECK_INT_EQ(trashstore_entry_add(t, "mnist", &MNIST, "s", 1, "i", 1), -ENOSPC);
	CHECK_INT_EQ(count(t, TRASH_FILES), 0);
	trashstore_free(t);
}

TEST(trashstore_keeps_a_deleted_job_with_its_spec_and_info)
{
	struct trashstore *t;
	struct trash_job job;
	struct trash_stat st;
	uint64_t id;
	char buf[64], *spec;
	size_t len;

	CHECK_INT_EQ(trashstore_new(&t), 0);
	trashstore_make(t, 1);
	/* the trasher's own info stays as it wrote it */
	CHECK_INT_EQ(trashstore_info_create(t, "mnist.trashinfo", 1, &id), 0);
	CHECK_INT_EQ(trashstore_info_write(t, id, "theirs", 6, 0, 1), 6);
	CHECK_INT_EQ(trashstore_entry_add(t, "mnist", &MNIST, "kind: TFJob\n", 12, "ours", 2), 0);
	CHECK_STR_EQ(info_of(t, "mnist.trashinfo", buf, sizeof(buf)), "theirs");
	CHECK_INT_EQ(trashstore_entry_add(t, "mnist", &MNIST, "x", 1, "ours", 2), -EEXIST);
	/* a plain mv gets one made */
	CHECK_INT_EQ(trashstore_entry_add(t, "mnist 1", &MNIST, "y\n", 2, "ours", 3), 0);
	CHECK_STR_EQ(info_of(t, "mnist 1.trashinfo", buf, sizeof(buf)), "ours");
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "mnist", &st), 0);
	CHECK_INT_EQ(st.size, 12);
	CHECK_INT_EQ(st.error_len, 0);
	CHECK_INT_EQ(trashstore_read(t, TRASH_FILES, st.id, false, buf, sizeof(buf), 6), 6);
	CHECK(memcmp(buf, "TFJob\n", 6) == 0);
	CHECK_INT_EQ(trashstore_entry_get(t, "mnist", &job, &spec, &len), 0);
	CHECK_STR_EQ(spec, "kind: TFJob\n");
	CHECK_INT_EQ(len, 12);
	CHECK_STR_EQ(job.name, "mnist");
	CHECK_STR_EQ(job.uid, "uid-1");
	free(spec);
	/* a failed restore's words, in files/X/error */
	trashstore_entry_failed(t, "mnist", "already exists");
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "mnist", &st), 0);
	CHECK_INT_EQ(st.error_len, strlen("already exists\n"));
	CHECK_INT_EQ(trashstore_read(t, TRASH_FILES, st.id, true, buf, sizeof(buf), 0),
		     (long)strlen("already exists\n"));
	/* emptied: gone with its info, the other stays */
	CHECK_INT_EQ(trashstore_entry_forget(t, "mnist"), 0);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "mnist", &st), -ENOENT);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_INFO, "mnist.trashinfo", &st), -ENOENT);
	CHECK_INT_EQ(trashstore_entry_forget(t, "mnist"), -ENOENT);
	CHECK_INT_EQ(count(t, TRASH_FILES), 1);
	CHECK_INT_EQ(count(t, TRASH_INFO), 1);
	CHECK_INT_EQ(trashstore_entry_get(t, "nonesuch", &job, &spec, &len), -ENOENT);
	trashstore_free(t);
}

TEST(trashstore_forgets_the_oldest_beyond_its_bounds)
{
	struct trashstore *t;
	struct trash_stat st;
	char name[32];
	char *big = calloc(1, TRASH_SPECS_MAX / 2 + 1);

	CHECK(big != NULL);
	CHECK_INT_EQ(trashstore_new(&t), 0);
	trashstore_make(t, 1);
	for (int i = 0; i < TRASH_ENTRIES_MAX + 3; i++) {
		snprintf(name, sizeof(name), "job-%d", i);
		CHECK_INT_EQ(trashstore_entry_add(t, name, &MNIST, "s", 1, "i", i), 0);
	}
	CHECK_INT_EQ(count(t, TRASH_FILES), TRASH_ENTRIES_MAX);
	CHECK_INT_EQ(count(t, TRASH_INFO), TRASH_ENTRIES_MAX);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "job-2", &st), -ENOENT);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_INFO, "job-2.trashinfo", &st), -ENOENT);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "job-3", &st), 0);
	trashstore_free(t);
	/* by bytes: two specs of more than half the room leave room for one */
	CHECK_INT_EQ(trashstore_new(&t), 0);
	trashstore_make(t, 1);
	CHECK_INT_EQ(trashstore_entry_add(t, "big-1", &MNIST, big, TRASH_SPECS_MAX / 2 + 1, "i", 9),
		     0);
	CHECK_INT_EQ(trashstore_entry_add(t, "big-2", &MNIST, big, TRASH_SPECS_MAX / 2 + 1, "i", 9),
		     0);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "big-1", &st), -ENOENT);
	CHECK_INT_EQ(trashstore_lookup(t, TRASH_FILES, "big-2", &st), 0);
	CHECK_INT_EQ(trashstore_entry_add(t, "huge", &MNIST, big, TRASH_SPECS_MAX + 1ul, "i", 9),
		     -EFBIG);
	trashstore_free(t);
	free(big);
}
