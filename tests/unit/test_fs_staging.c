/*
 * Tests of fs/submit/staging.c, the tree behind submit/: names and listings, file bytes
 * (holes, truncation, the size limits), POSIX's unlinked-but-open files, rmdir and
 * rename(2)'s rules, which flushed or renamed files are specs (cp, rsync, editors),
 * and the generated status/error files of each entry.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fs/submit/staging.h"

/* renameat2(2)'s flag values, as fs/submit/submit.c passes them on from the kernel. */
#define RENAME_NOREPLACE_FLAG 1u
#define RENAME_EXCHANGE_FLAG  2u

static struct staging *new_staging(void)
{
	struct staging *st = NULL;

	CHECK_INT_EQ(staging_new(&st), 0);
	CHECK(st != NULL);
	return st;
}

/* The handle of the last open of each file a test made, by id (ids stay small). */
#define HANDLES_MAX (1 << 14)
static uint64_t handles[HANDLES_MAX];

static uint64_t H(uint64_t id)
{
	return id < HANDLES_MAX ? handles[id] : 0;
}

/* Keeps the handle of a create (a->handle) for H. */
static int created(int err, const struct staging_attr *a)
{
	if (err == 0 && a->id < HANDLES_MAX)
		handles[a->id] = a->handle;
	return err;
}

/* truncate(2), chmod(2), utimens(2): by path, through no handle. */
static int setattr_by_path(struct staging *st, uint64_t id, const struct staging_set *set,
                           struct staging_attr *a)
{
	return staging_setattr(st, id, 0, set, a);
}

/* Files of entry open for writing now (staging_entry_state); -1 when it has none. */
static int writing_in(struct staging *st, const char *entry)
{
	struct staging_copy_state cs;
	int n = staging_entry_state(st, entry, &cs) < 0 ? -1 : (int)cs.open_for_writing;

	staging_copy_state_clear(&cs);
	return n;
}

/* A flush through the file's last handle; a spec taken is handed back at once
 * (staging_idle), as submit.c does once its outcome is recorded. */
static int take_flushed(struct staging *st, uint64_t id, struct staging_submission *sub)
{
	int ret = staging_take_flushed(st, id, H(id), false, sub);

	if (ret > 0)
		staging_idle(st, sub->entry);
	return ret;
}

static int take_renamed(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                        const char *newname, struct staging_submission *sub)
{
	int ret = staging_take_renamed(st, dir, name, newdir, newname, sub);

	if (ret > 0)
		staging_idle(st, sub->entry);
	return ret;
}

/* mkdir dir/name: its id, 0 when refused. */
static uint64_t make_dir(struct staging *st, uint64_t dir, const char *name)
{
	struct staging_attr a;
	int err = staging_mkdir(st, dir, name, 0755, &a);

	CHECK_INT_EQ(err, 0);
	return err ? 0 : a.id;
}

/* Creates dir/name, writes text (when not NULL) and leaves it open: its id, 0 when refused. */
static uint64_t open_file(struct staging *st, uint64_t dir, const char *name, const char *text)
{
	struct staging_attr a;
	int err = created(staging_create(st, dir, name, 0644, true, O_WRONLY, &a), &a);

	CHECK_INT_EQ(err, 0);
	if (err)
		return 0;
	if (text)
		CHECK_INT_EQ(staging_write(st, a.id, a.handle, text, strlen(text), 0),
		             (ssize_t)strlen(text));
	return a.id;
}

/* As cp does: create, write, close. */
static uint64_t put_file(struct staging *st, uint64_t dir, const char *name, const char *text)
{
	uint64_t id = open_file(st, dir, name, text);

	if (id)
		staging_release(st, id, H(id));
	return id;
}

/* The id of dir/name, 0 when lookup fails. */
static uint64_t id_of(struct staging *st, uint64_t dir, const char *name)
{
	struct staging_attr a;

	return staging_lookup(st, dir, name, &a) == 0 ? a.id : 0;
}

/* The whole text of a file (NUL-terminated, at most size - 1 bytes): its length or -errno. */
static ssize_t read_text(struct staging *st, uint64_t id, char *buf, size_t size)
{
	ssize_t got = staging_read(st, id, buf, size - 1, 0);

	buf[got > 0 ? got : 0] = '\0';
	return got;
}

static struct timespec clock_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

static int ts_cmp(struct timespec a, struct timespec b)
{
	if (a.tv_sec != b.tv_sec)
		return a.tv_sec < b.tv_sec ? -1 : 1;
	if (a.tv_nsec != b.tv_nsec)
		return a.tv_nsec < b.tv_nsec ? -1 : 1;
	return 0;
}

/* ---- names, lookup and listing ---- */

TEST(fs_staging_list_is_sorted_by_name)
{
	struct staging *st = new_staging();
	uint64_t zeta = put_file(st, STAGING_ROOT, "zeta.yaml", "a");
	uint64_t mid = make_dir(st, STAGING_ROOT, "mid");
	uint64_t alpha = put_file(st, STAGING_ROOT, "alpha", "b");
	uint64_t upper = make_dir(st, STAGING_ROOT, "Beta");
	struct staging_entry *e;
	size_t n;

	CHECK_INT_EQ(staging_list(st, STAGING_ROOT, &e, &n), 0);
	CHECK_INT_EQ(n, 4);
	if (n == 4) {
		CHECK_STR_EQ(e[0].name, "Beta");
		CHECK_INT_EQ(e[0].id, upper);
		CHECK(e[0].dir);
		CHECK_STR_EQ(e[1].name, "alpha");
		CHECK_INT_EQ(e[1].id, alpha);
		CHECK(!e[1].dir);
		CHECK_STR_EQ(e[2].name, "mid");
		CHECK_INT_EQ(e[2].id, mid);
		CHECK(e[2].dir);
		CHECK_STR_EQ(e[3].name, "zeta.yaml");
		CHECK_INT_EQ(e[3].id, zeta);
	}
	staging_list_free(e, n);

	/* a renamed node takes its place in the order */
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "zeta.yaml", STAGING_ROOT, "a0", 0), 0);
	CHECK_INT_EQ(staging_list(st, STAGING_ROOT, &e, &n), 0);
	CHECK_INT_EQ(n, 4);
	if (n == 4) {
		CHECK_STR_EQ(e[1].name, "a0");
		CHECK_INT_EQ(e[1].id, zeta);
		CHECK_STR_EQ(e[2].name, "alpha");
	}
	staging_list_free(e, n);

	CHECK_INT_EQ(staging_list(st, mid, &e, &n), 0);
	CHECK_INT_EQ(n, 0);
	staging_list_free(e, n);
	staging_free(st);
}

TEST(fs_staging_existing_name_is_eexist)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t dir = make_dir(st, STAGING_ROOT, "mnist");

	put_file(st, STAGING_ROOT, "mnist.yaml", "x");
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "mnist", 0755, &a), -EEXIST);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "mnist.yaml", 0755, &a), -EEXIST);
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "mnist.yaml", 0644, true, O_WRONLY, &a), &a),
	             -EEXIST);
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "mnist", 0644, true, O_WRONLY, &a), &a), -EEXIST);
	/* open(O_CREAT) without O_EXCL of a directory */
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "mnist", 0644, false, O_WRONLY, &a), &a), -EISDIR);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "mnist"), dir);
	staging_free(st);
}

TEST(fs_staging_missing_name_or_removed_dir_is_enoent)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	struct staging_entry *e;
	size_t n;
	uint64_t gone = make_dir(st, STAGING_ROOT, "gone");

	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "nothing", &a), -ENOENT);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "gone"), 0);
	CHECK_INT_EQ(staging_lookup(st, gone, "x", &a), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, gone, &a), -ENOENT);
	CHECK_INT_EQ(staging_list(st, gone, &e, &n), -ENOENT);
	CHECK_INT_EQ(staging_mkdir(st, gone, "x", 0755, &a), -ENOENT);
	CHECK_INT_EQ(created(staging_create(st, gone, "x", 0644, true, O_WRONLY, &a), &a), -ENOENT);
	CHECK_INT_EQ(staging_unlink(st, STAGING_ROOT, "nothing"), -ENOENT);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "nothing"), -ENOENT);
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "nothing", STAGING_ROOT, "x", 0), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, 999999, &a), -ENOENT);
	staging_free(st);
}

TEST(fs_staging_file_used_as_directory_is_enotdir)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	struct staging_entry *e;
	size_t n;
	uint64_t file = put_file(st, STAGING_ROOT, "notes.txt", "x");

	CHECK_INT_EQ(staging_lookup(st, file, "x", &a), -ENOTDIR);
	CHECK_INT_EQ(staging_list(st, file, &e, &n), -ENOTDIR);
	CHECK_INT_EQ(staging_mkdir(st, file, "x", 0755, &a), -ENOTDIR);
	CHECK_INT_EQ(created(staging_create(st, file, "x", 0644, true, O_WRONLY, &a), &a), -ENOTDIR);
	staging_free(st);
}

TEST(fs_staging_name_of_256_chars_is_enametoolong)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	char name[257];

	memset(name, 'n', 256);
	name[256] = '\0';
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, name, 0755, &a), -ENAMETOOLONG);
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, name, 0644, true, O_WRONLY, &a), &a),
	             -ENAMETOOLONG);
	put_file(st, STAGING_ROOT, "short", "x");
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "short", STAGING_ROOT, name, 0),
	             -ENAMETOOLONG);
	/* NAME_MAX itself is fine */
	name[255] = '\0';
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, name, 0755, &a), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, name), a.id);
	staging_free(st);
}

TEST(fs_staging_status_and_error_refused_only_in_entry_directories)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");
	uint64_t deeper;

	/* submit/NAME/status and submit/NAME/error are arenafs's */
	CHECK_INT_EQ(created(staging_create(st, entry, STAGING_STATUS, 0644, true, O_WRONLY, &a), &a), -EACCES);
	CHECK_INT_EQ(created(staging_create(st, entry, STAGING_ERROR, 0644, false, O_WRONLY, &a), &a), -EACCES);
	CHECK_INT_EQ(staging_mkdir(st, entry, STAGING_STATUS, 0755, &a), -EACCES);
	CHECK_INT_EQ(staging_mkdir(st, entry, STAGING_ERROR, 0755, &a), -EACCES);
	put_file(st, entry, "notes", "x");
	CHECK_INT_EQ(staging_rename(st, entry, "notes", entry, STAGING_STATUS, 0), -EACCES);
	CHECK_INT_EQ(id_of(st, entry, STAGING_STATUS), 0);

	/* at the root and deeper they are ordinary names */
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, STAGING_STATUS, 0755, &a), 0);
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, STAGING_ERROR, 0644, true, O_WRONLY, &a), &a), 0);
	staging_release(st, a.id, a.handle);
	deeper = make_dir(st, entry, "data");
	CHECK_INT_EQ(created(staging_create(st, deeper, STAGING_STATUS, 0644, true, O_WRONLY, &a), &a), 0);
	CHECK(!a.generated);
	staging_release(st, a.id, a.handle);
	CHECK_INT_EQ(staging_mkdir(st, deeper, STAGING_ERROR, 0755, &a), 0);
	staging_free(st);
}

/* ---- file bytes ---- */

TEST(fs_staging_write_at_offset_leaves_a_hole_of_zeros)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t id = open_file(st, STAGING_ROOT, "f", NULL);
	char buf[64];

	CHECK_INT_EQ(staging_write(st, id, H(id), "abc", 3, 0), 3);
	CHECK_INT_EQ(staging_write(st, id, H(id), "xyz", 3, 10), 3);
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.size, 13);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 0), 13);
	CHECK(memcmp(buf, "abc\0\0\0\0\0\0\0xyz", 13) == 0);
	/* overwrite in the middle, read from an offset, read past the end */
	CHECK_INT_EQ(staging_write(st, id, H(id), "MM", 2, 4), 2);
	CHECK_INT_EQ(staging_read(st, id, buf, 4, 3), 4);
	CHECK(memcmp(buf, "\0MM\0", 4) == 0);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 11), 2);
	CHECK(memcmp(buf, "yz", 2) == 0);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 13), 0);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 1000), 0);
	staging_release(st, id, H(id));
	staging_free(st);
}

TEST(fs_staging_setattr_size_truncates_and_extends_with_zeros)
{
	struct staging *st = new_staging();
	struct staging_set set = {.size_set = true, .size = 5};
	struct staging_attr a;
	uint64_t id = put_file(st, STAGING_ROOT, "f", "hello world");
	char buf[64];

	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	CHECK_INT_EQ(a.size, 5);
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 5);
	CHECK_STR_EQ(buf, "hello");
	/* growing again shows zeros, not the old " world" */
	set.size = 8;
	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	CHECK_INT_EQ(a.size, 8);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 0), 8);
	CHECK(memcmp(buf, "hello\0\0\0", 8) == 0);
	set.size = 0;
	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	CHECK_INT_EQ(a.size, 0);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 0), 0);
	staging_free(st);
}

TEST(fs_staging_create_with_o_trunc_empties_an_existing_file)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t id = put_file(st, STAGING_ROOT, "mnist.yaml", "old text");
	char buf[64];

	/* open(O_CREAT) without O_TRUNC keeps the bytes */
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "mnist.yaml", 0644, false, O_WRONLY, &a), &a), 0);
	CHECK_INT_EQ(a.id, id);
	CHECK_INT_EQ(a.size, 8);
	staging_release(st, id, H(id));
	/* the shell's > */
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "mnist.yaml", 0644, false,
	                            O_WRONLY | O_CREAT | O_TRUNC, &a), &a),
	             0);
	CHECK_INT_EQ(a.id, id);
	CHECK_INT_EQ(a.size, 0);
	CHECK_INT_EQ(staging_write(st, id, H(id), "new", 3, 0), 3);
	staging_release(st, id, H(id));
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 3);
	CHECK_STR_EQ(buf, "new");
	staging_free(st);
}

TEST(fs_staging_file_past_file_max_is_efbig)
{
	struct staging *st = new_staging();
	struct staging_set set = {.size_set = true, .size = (uint64_t)STAGING_FILE_MAX + 1};
	struct staging_attr a;
	uint64_t id = open_file(st, STAGING_ROOT, "big", NULL);

	CHECK_INT_EQ(staging_write(st, id, H(id), "ab", 2, STAGING_FILE_MAX - 1), -EFBIG);
	CHECK_INT_EQ(staging_write(st, id, H(id), "a", 1, STAGING_FILE_MAX), -EFBIG);
	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), -EFBIG);
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.size, 0);
	/* up to the limit itself is fine */
	CHECK_INT_EQ(staging_write(st, id, H(id), "a", 1, STAGING_FILE_MAX - 1), 1);
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.size, STAGING_FILE_MAX);
	staging_release(st, id, H(id));
	staging_free(st);
}

TEST(fs_staging_all_files_together_past_bytes_max_is_enospc)
{
	struct staging *st = new_staging();
	enum { FULL = STAGING_BYTES_MAX / STAGING_FILE_MAX };
	char *block = calloc(1, STAGING_FILE_MAX);
	char name[32];
	uint64_t id = 0;

	CHECK(block != NULL);
	for (int i = 0; block && i < FULL; i++) {
		snprintf(name, sizeof(name), "f%03d", i);
		id = open_file(st, STAGING_ROOT, name, NULL);
		CHECK_INT_EQ(staging_write(st, id, H(id), block, STAGING_FILE_MAX, 0), STAGING_FILE_MAX);
		staging_release(st, id, H(id));
	}
	id = open_file(st, STAGING_ROOT, "one-more", NULL);
	CHECK_INT_EQ(staging_write(st, id, H(id), "x", 1, 0), -ENOSPC);
	/* removing a file gives its bytes back */
	CHECK_INT_EQ(staging_unlink(st, STAGING_ROOT, "f000"), 0);
	CHECK_INT_EQ(staging_write(st, id, H(id), "x", 1, 0), 1);
	staging_release(st, id, H(id));
	free(block);
	staging_free(st);
}

TEST(fs_staging_chmod_and_utimens_are_stored)
{
	struct staging *st = new_staging();
	struct staging_set set = {.mode_set = true, .mode = S_IFREG | 0600};
	struct staging_attr a;
	uint64_t id = put_file(st, STAGING_ROOT, "f", "x");
	uint64_t dir = make_dir(st, STAGING_ROOT, "d");
	struct timespec before, after;

	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	CHECK_INT_EQ(a.mode, 0600);
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.mode, 0600);
	set.mode = 0700;
	CHECK_INT_EQ(setattr_by_path(st, dir, &set, &a), 0);
	CHECK_INT_EQ(a.mode, 0700);
	CHECK(a.dir);

	/* touch -d: explicit times; touch: UTIME_NOW */
	memset(&set, 0, sizeof(set));
	set.atime_set = set.mtime_set = true;
	set.atime = (struct timespec){.tv_sec = 1000, .tv_nsec = 5};
	set.mtime = (struct timespec){.tv_sec = 2000, .tv_nsec = 7};
	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.atime.tv_sec, 1000);
	CHECK_INT_EQ(a.atime.tv_nsec, 5);
	CHECK_INT_EQ(a.mtime.tv_sec, 2000);
	CHECK_INT_EQ(a.mtime.tv_nsec, 7);
	CHECK_INT_EQ(a.mode, 0600);
	CHECK_INT_EQ(a.size, 1);

	set.atime_set = false;
	set.mtime.tv_nsec = UTIME_NOW;
	before = clock_now();
	CHECK_INT_EQ(setattr_by_path(st, id, &set, &a), 0);
	after = clock_now();
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK(ts_cmp(a.mtime, before) >= 0);
	CHECK(ts_cmp(a.mtime, after) <= 0);
	CHECK_INT_EQ(a.atime.tv_sec, 1000);
	staging_free(st);
}

/* ---- unlinked but open ---- */

TEST(fs_staging_unlinked_open_file_lives_until_release)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	struct staging_entry *e;
	struct staging_submission sub;
	size_t n;
	uint64_t id = open_file(st, STAGING_ROOT, "mnist.yaml", "kind: TFJob\n");
	char buf[64];

	CHECK_INT_EQ(staging_unlink(st, STAGING_ROOT, "mnist.yaml"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "mnist.yaml", &a), -ENOENT);
	CHECK_INT_EQ(staging_list(st, STAGING_ROOT, &e, &n), 0);
	CHECK_INT_EQ(n, 0);
	staging_list_free(e, n);

	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.nlink, 0);
	CHECK_INT_EQ(a.size, 12);
	CHECK_INT_EQ(staging_write(st, id, H(id), "more\n", 5, 12), 5);
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 17);
	CHECK_STR_EQ(buf, "kind: TFJob\nmore\n");
	/* a second open keeps it too */
	CHECK_INT_EQ(staging_open(st, id, O_RDONLY, &handles[id]), 0);
	/* no longer linked: not a spec any more */
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	staging_submission_clear(&sub);

	staging_release(st, id, H(id));
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	staging_release(st, id, H(id));
	CHECK_INT_EQ(staging_getattr(st, id, &a), -ENOENT);
	CHECK_INT_EQ(staging_read(st, id, buf, sizeof(buf), 0), -ENOENT);
	CHECK_INT_EQ(staging_write(st, id, H(id), "x", 1, 0), -ENOENT);
	CHECK_INT_EQ(staging_open(st, id, O_RDONLY, &handles[id]), -ENOENT);
	/* the name is free again, under a new id */
	CHECK(put_file(st, STAGING_ROOT, "mnist.yaml", "y") != id);
	staging_free(st);
}

/* ---- rmdir ---- */

TEST(fs_staging_rmdir_of_a_directory_with_a_user_file_is_enotempty)
{
	struct staging *st = new_staging();
	uint64_t dir = make_dir(st, STAGING_ROOT, "mnist");
	uint64_t sub = make_dir(st, STAGING_ROOT, "other");

	put_file(st, dir, "spec.yaml", "x");
	make_dir(st, sub, "inner");
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "mnist"), -ENOTEMPTY);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "other"), -ENOTEMPTY);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "mnist"), dir);
	/* rm and rmdir keep to their kinds */
	CHECK_INT_EQ(staging_rmdir(st, dir, "spec.yaml"), -ENOTDIR);
	CHECK_INT_EQ(staging_unlink(st, STAGING_ROOT, "mnist"), -EISDIR);
	/* rm -r: the files, then the directory */
	CHECK_INT_EQ(staging_unlink(st, dir, "spec.yaml"), 0);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "mnist"), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "mnist"), 0);
	staging_free(st);
}

TEST(fs_staging_rmdir_removes_an_entry_holding_only_status_and_error)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t dir = make_dir(st, STAGING_ROOT, "mnist");
	uint64_t status, error;

	put_file(st, dir, "spec.yaml", "x");
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "no such image"), 0);
	status = id_of(st, dir, STAGING_STATUS);
	error = id_of(st, dir, STAGING_ERROR);
	CHECK(status != 0);
	CHECK(error != 0);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "mnist"), -ENOTEMPTY);
	CHECK_INT_EQ(staging_unlink(st, dir, "spec.yaml"), 0);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "mnist"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "mnist", &a), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, dir, &a), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, status, &a), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, error, &a), -ENOENT);
	staging_free(st);
}

/* ---- rename ---- */

TEST(fs_staging_rename_within_a_directory_keeps_the_id)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t id = put_file(st, STAGING_ROOT, "a.txt", "text");
	char buf[16];

	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "a.txt", STAGING_ROOT, "b.txt", 0), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "a.txt", &a), -ENOENT);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "b.txt", &a), 0);
	CHECK_INT_EQ(a.id, id);
	CHECK_INT_EQ(a.nlink, 1);
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 4);
	CHECK_STR_EQ(buf, "text");
	/* onto itself: nothing happens */
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "b.txt", STAGING_ROOT, "b.txt", 0), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "b.txt"), id);
	staging_free(st);
}

TEST(fs_staging_rename_across_directories_keeps_the_id)
{
	struct staging *st = new_staging();
	uint64_t from = make_dir(st, STAGING_ROOT, "from");
	uint64_t to = make_dir(st, STAGING_ROOT, "to");
	uint64_t file = put_file(st, from, "f", "x");
	uint64_t dir = make_dir(st, from, "d");
	uint64_t inner = put_file(st, dir, "inner", "y");

	CHECK_INT_EQ(staging_rename(st, from, "f", to, "g", 0), 0);
	CHECK_INT_EQ(id_of(st, from, "f"), 0);
	CHECK_INT_EQ(id_of(st, to, "g"), file);
	/* a directory moves with what it holds */
	CHECK_INT_EQ(staging_rename(st, from, "d", STAGING_ROOT, "d", 0), 0);
	CHECK_INT_EQ(id_of(st, from, "d"), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "d"), dir);
	CHECK_INT_EQ(id_of(st, dir, "inner"), inner);
	/* and its old parent may now go */
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "from"), 0);
	staging_free(st);
}

TEST(fs_staging_rename_replaces_a_file)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t src = put_file(st, STAGING_ROOT, ".mnist.yaml.tmp", "new");
	uint64_t dst = put_file(st, STAGING_ROOT, "mnist.yaml", "old");
	char buf[16];

	CHECK_INT_EQ(
	    staging_rename(st, STAGING_ROOT, ".mnist.yaml.tmp", STAGING_ROOT, "mnist.yaml", 0), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "mnist.yaml"), src);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, ".mnist.yaml.tmp"), 0);
	CHECK_INT_EQ(staging_getattr(st, dst, &a), -ENOENT);
	CHECK_INT_EQ(read_text(st, src, buf, sizeof(buf)), 3);
	CHECK_STR_EQ(buf, "new");
	staging_free(st);
}

TEST(fs_staging_rename_noreplace_onto_an_existing_name_is_eexist)
{
	struct staging *st = new_staging();
	uint64_t a = put_file(st, STAGING_ROOT, "a", "1");
	uint64_t b = put_file(st, STAGING_ROOT, "b", "2");

	CHECK_INT_EQ(
	    staging_rename(st, STAGING_ROOT, "a", STAGING_ROOT, "b", RENAME_NOREPLACE_FLAG),
	    -EEXIST);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "a"), a);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "b"), b);
	CHECK_INT_EQ(
	    staging_rename(st, STAGING_ROOT, "a", STAGING_ROOT, "c", RENAME_NOREPLACE_FLAG), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "c"), a);
	staging_free(st);
}

TEST(fs_staging_rename_exchange_is_einval)
{
	struct staging *st = new_staging();
	uint64_t a = put_file(st, STAGING_ROOT, "a", "1");
	uint64_t b = put_file(st, STAGING_ROOT, "b", "2");

	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "a", STAGING_ROOT, "b", RENAME_EXCHANGE_FLAG),
	             -EINVAL);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "a"), a);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "b"), b);
	staging_free(st);
}

TEST(fs_staging_rename_directory_into_its_own_subtree_is_einval)
{
	struct staging *st = new_staging();
	uint64_t top = make_dir(st, STAGING_ROOT, "a");
	uint64_t mid = make_dir(st, top, "b");

	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "a", mid, "a", 0), -EINVAL);
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "a", top, "x", 0), -EINVAL);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "a"), top);
	CHECK_INT_EQ(id_of(st, top, "b"), mid);
	CHECK_INT_EQ(id_of(st, mid, "a"), 0);
	staging_free(st);
}

TEST(fs_staging_rename_file_over_directory_is_eisdir)
{
	struct staging *st = new_staging();
	uint64_t dir = make_dir(st, STAGING_ROOT, "d");
	uint64_t file = put_file(st, STAGING_ROOT, "f", "x");

	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "f", STAGING_ROOT, "d", 0), -EISDIR);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "d"), dir);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "f"), file);
	staging_free(st);
}

TEST(fs_staging_rename_directory_over_file_is_enotdir)
{
	struct staging *st = new_staging();
	uint64_t dir = make_dir(st, STAGING_ROOT, "d");
	uint64_t file = put_file(st, STAGING_ROOT, "f", "x");

	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "d", STAGING_ROOT, "f", 0), -ENOTDIR);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "d"), dir);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "f"), file);
	staging_free(st);
}

TEST(fs_staging_rename_directory_over_non_empty_directory_is_enotempty)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t src = make_dir(st, STAGING_ROOT, "src");
	uint64_t full = make_dir(st, STAGING_ROOT, "full");
	uint64_t empty = make_dir(st, STAGING_ROOT, "empty");

	put_file(st, full, "spec.yaml", "x");
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "src", STAGING_ROOT, "full", 0), -ENOTEMPTY);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "full"), full);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "src"), src);
	/* an empty one is replaced */
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "src", STAGING_ROOT, "empty", 0), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, "empty"), src);
	CHECK_INT_EQ(staging_getattr(st, empty, &a), -ENOENT);
	staging_free(st);
}

/* ---- specs ---- */

/* Writes name in dir as cp does and asks whether its flush is a spec. */
static int flush_new_file(struct staging *st, uint64_t dir, const char *name, const char *text,
                          struct staging_submission *sub)
{
	uint64_t id = open_file(st, dir, name, text);
	int ret = take_flushed(st, id, sub);

	staging_release(st, id, H(id));
	return ret;
}

/* A spec cut short by EFBIG is another job: it is never taken, until emptied. */
TEST(fs_staging_spec_a_write_failed_on_is_never_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t id = open_file(st, STAGING_ROOT, "cut.yaml", NULL);
	struct staging_attr a;
	uint64_t again;

	CHECK_INT_EQ(staging_write(st, id, H(id), "kind: TFJob\n", 12, 0), 12);
	CHECK_INT_EQ(staging_write(st, id, H(id), "x", 1, STAGING_FILE_MAX), -EFBIG);
	CHECK_INT_EQ(take_flushed(st, id, &sub), -EFBIG);
	CHECK(sub.text == NULL);
	CHECK_STR_EQ(sub.entry, "cut");       /* where the reason is recorded */
	staging_submission_clear(&sub);
	/* a second close has nothing new to say */
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	staging_release(st, id, H(id));
	/* cp again: O_TRUNC empties it, and the new text is a spec again */
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "cut.yaml", 0644, false, O_WRONLY | O_TRUNC,
	                            &a), &a), 0);
	again = a.id;
	CHECK_INT_EQ(staging_write(st, again, H(again), "kind: TFJob\n", 12, 0), 12);
	CHECK_INT_EQ(take_flushed(st, again, &sub), 1);
	CHECK_STR_EQ(sub.text, "kind: TFJob\n");
	staging_submission_clear(&sub);
	staging_release(st, again, H(again));
	staging_free(st);
}

TEST(fs_staging_flushed_top_level_yaml_is_a_spec_of_its_stem)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	const char *text = "kind: TFJob\nmetadata:\n  name: other\n";

	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, "mnist.yaml", text, &sub), 1);
	CHECK_STR_EQ(sub.text, text);
	CHECK_INT_EQ(sub.len, strlen(text));
	CHECK_STR_EQ(sub.default_name, "mnist");
	CHECK_STR_EQ(sub.entry, "mnist");
	staging_submission_clear(&sub);
	CHECK(sub.text == NULL);
	staging_free(st);
}

/* A job's spec.yaml copied into submit/ as it is: the outcome in submit/spec/, the
 * job's name from the spec (no default_name). */
TEST(fs_staging_top_level_spec_yaml_names_no_job)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	const char *names[] = {"spec.yaml", "spec.yml", "spec.json"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, names[i], "name: a\n", &sub), 1);
		CHECK_STR_EQ(sub.entry, "spec");
		CHECK(sub.default_name == NULL);
		staging_submission_clear(&sub);
	}
	staging_free(st);
}

TEST(fs_staging_flushed_yml_and_json_are_specs)
{
	struct staging *st = new_staging();
	struct staging_submission sub;

	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, "mnist.yml", "a: 1\n", &sub), 1);
	CHECK_STR_EQ(sub.text, "a: 1\n");
	CHECK_STR_EQ(sub.entry, "mnist");
	CHECK_STR_EQ(sub.default_name, "mnist");
	staging_submission_clear(&sub);
	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, "x.json", "{\"a\": 1}", &sub), 1);
	CHECK_STR_EQ(sub.text, "{\"a\": 1}");
	CHECK_STR_EQ(sub.entry, "x");
	CHECK_STR_EQ(sub.default_name, "x");
	staging_submission_clear(&sub);
	staging_free(st);
}

TEST(fs_staging_flushed_spec_file_in_entry_is_a_spec_of_the_entry)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	const char *names[] = {"spec.yaml", "spec.yml", "spec.json"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char entry[16];
		uint64_t dir;

		snprintf(entry, sizeof(entry), "job%zu", i);
		dir = make_dir(st, STAGING_ROOT, entry);
		CHECK_INT_EQ(flush_new_file(st, dir, names[i], "kind: PyTorchJob\n", &sub), 1);
		CHECK_STR_EQ(sub.text, "kind: PyTorchJob\n");
		CHECK_STR_EQ(sub.entry, entry);
		CHECK_STR_EQ(sub.default_name, entry);
		staging_submission_clear(&sub);
	}
	staging_free(st);
}

TEST(fs_staging_flushed_other_files_are_not_specs)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");
	uint64_t deeper = make_dir(st, entry, "sub");

	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, ".hidden.yaml", "a: 1\n", &sub), 0);
	CHECK(sub.text == NULL && sub.entry == NULL);
	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, "notes.txt", "a: 1\n", &sub), 0);
	CHECK_INT_EQ(flush_new_file(st, entry, "other.yaml", "a: 1\n", &sub), 0);
	CHECK_INT_EQ(flush_new_file(st, entry, ".spec.yaml", "a: 1\n", &sub), 0);
	CHECK_INT_EQ(flush_new_file(st, deeper, "spec.yaml", "a: 1\n", &sub), 0);
	/* cp of an empty file, or touch */
	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, "empty.yaml", NULL, &sub), 0);
	CHECK_INT_EQ(flush_new_file(st, entry, "spec.json", NULL, &sub), 0);
	CHECK(sub.text == NULL && sub.entry == NULL && sub.default_name == NULL);
	staging_free(st);
}

TEST(fs_staging_flush_takes_a_spec_once_per_write)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t id = open_file(st, STAGING_ROOT, "mnist.yaml", "v: 1\n");

	CHECK_INT_EQ(take_flushed(st, id, &sub), 1);
	staging_submission_clear(&sub);
	/* close after a dup's close, or cat of the file: no new submission */
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	CHECK(sub.text == NULL);
	CHECK_INT_EQ(staging_write(st, id, H(id), "2", 1, 3), 1);
	CHECK_INT_EQ(take_flushed(st, id, &sub), 1);
	CHECK_STR_EQ(sub.text, "v: 2\n");
	CHECK_STR_EQ(sub.entry, "mnist");
	staging_submission_clear(&sub);
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	staging_release(st, id, H(id));
	staging_free(st);
}

TEST(fs_staging_rsync_temp_file_renamed_to_spec_yaml_is_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");
	const char *text = "kind: TFJob\n";
	uint64_t id;

	/* rsync writes a dot-file, closes it, then renames it */
	CHECK_INT_EQ(flush_new_file(st, entry, ".spec.yaml.XYZ", text, &sub), 0);
	id = id_of(st, entry, ".spec.yaml.XYZ");
	CHECK_INT_EQ(take_renamed(st, entry, ".spec.yaml.XYZ", entry, "spec.yaml", &sub),
	             1);
	CHECK_STR_EQ(sub.text, text);
	CHECK_INT_EQ(sub.len, strlen(text));
	CHECK_STR_EQ(sub.entry, "mnist");
	CHECK_STR_EQ(sub.default_name, "mnist");
	staging_submission_clear(&sub);
	/* the caller renames; a later flush of the same bytes submits nothing more */
	CHECK_INT_EQ(staging_rename(st, entry, ".spec.yaml.XYZ", entry, "spec.yaml", 0), 0);
	CHECK_INT_EQ(id_of(st, entry, "spec.yaml"), id);
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	staging_free(st);
}

TEST(fs_staging_editor_swap_file_renamed_to_top_level_spec_is_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	const char *text = "kind: PyTorchJob\n";

	CHECK_INT_EQ(flush_new_file(st, STAGING_ROOT, ".mnist.yaml.swp", text, &sub), 0);
	CHECK_INT_EQ(take_renamed(st, STAGING_ROOT, ".mnist.yaml.swp", STAGING_ROOT,
	                                  "mnist.yaml", &sub),
	             1);
	CHECK_STR_EQ(sub.text, text);
	CHECK_STR_EQ(sub.entry, "mnist");
	CHECK_STR_EQ(sub.default_name, "mnist");
	staging_submission_clear(&sub);
	staging_free(st);
}

TEST(fs_staging_rename_to_a_non_spec_name_is_not_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");

	put_file(st, STAGING_ROOT, "mnist.yaml", "a: 1\n");
	CHECK_INT_EQ(
	    take_renamed(st, STAGING_ROOT, "mnist.yaml", STAGING_ROOT, "notes.txt", &sub),
	    0);
	CHECK(sub.text == NULL && sub.entry == NULL);
	CHECK_INT_EQ(take_renamed(st, STAGING_ROOT, "mnist.yaml", STAGING_ROOT,
	                                  ".mnist.yaml.bak", &sub),
	             0);
	CHECK_INT_EQ(
	    take_renamed(st, STAGING_ROOT, "mnist.yaml", entry, "other.yaml", &sub), 0);
	CHECK_INT_EQ(
	    take_renamed(st, STAGING_ROOT, "missing", STAGING_ROOT, "x.yaml", &sub), 0);
	CHECK(sub.text == NULL && sub.entry == NULL);
	staging_free(st);
}

/* ---- outcomes ---- */

TEST(fs_staging_outcome_makes_the_missing_entry_with_its_status)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t entry, status;
	char buf[64];

	put_file(st, STAGING_ROOT, "mnist.yaml", "a: 1\n");
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "mnist", &a), 0);
	CHECK(a.dir);
	entry = a.id;
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_STATUS, &a), 0);
	status = a.id;
	CHECK(a.generated);
	CHECK(!a.dir);
	CHECK_INT_EQ(a.size, strlen("submitted\n"));
	CHECK_INT_EQ(read_text(st, status, buf, sizeof(buf)), 10);
	CHECK_STR_EQ(buf, "submitted\n");
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_ERROR, &a), -ENOENT);
	staging_free(st);
}

TEST(fs_staging_failed_outcome_writes_error_and_a_later_success_removes_it)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");
	char buf[128];

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "spec.yaml:3:5: bad indent"),
	             0);
	CHECK_INT_EQ(read_text(st, id_of(st, entry, STAGING_STATUS), buf, sizeof(buf)), 7);
	CHECK_STR_EQ(buf, "failed\n");
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_ERROR, &a), 0);
	CHECK(a.generated);
	CHECK_INT_EQ(read_text(st, a.id, buf, sizeof(buf)), 26);
	CHECK_STR_EQ(buf, "spec.yaml:3:5: bad indent\n");

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(read_text(st, id_of(st, entry, STAGING_STATUS), buf, sizeof(buf)), 10);
	CHECK_STR_EQ(buf, "submitted\n");
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_ERROR, &a), -ENOENT);
	staging_free(st);
}

/* Issue 33: a policy webhook's multi-line 422 with colours, an OSC title and BEL
 * made a two-line `error` holding those bytes raw; docs/tree.md promises one line
 * without control characters (and only UTF-8), and so for submit/'s own notice. */
TEST(fs_staging_error_is_one_safe_line_whatever_the_message_holds)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t entry = make_dir(st, STAGING_ROOT, "mnist");
	char buf[256];

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED,
	                                 "denied:\n\n rule\r\x1b[31m red\x1b[0m\x1b]0;pwned\x07\xff\n"),
	             0);
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_ERROR, &a), 0);
	read_text(st, a.id, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "denied:   rule  [31m red [0m ]0;pwned \xEF\xBF\xBD \n");
	CHECK_INT_EQ(staging_set_notice(st, "cannot read\x1b[2J\nnamespaces"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, STAGING_ERROR, &a), 0);
	read_text(st, a.id, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "cannot read [2J namespaces\n");
	staging_free(st);
}

/* check/: "checked" with objects.yaml read-only; a later failure takes objects.yaml
 * away (no stale answer beside an error); a user's own objects.yaml is never
 * overwritten. */
TEST(fs_staging_checked_outcome_keeps_objects_until_the_next_outcome)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t entry, objects;
	char buf[128];

	put_file(st, STAGING_ROOT, "mnist.yaml", "a: 1\n");
	CHECK_INT_EQ(staging_set_objects(st, "mnist", "kind: PyTorchJob\n"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "mnist", &a), -ENOENT);
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_CHECKED, NULL), 0);
	CHECK_INT_EQ(staging_set_objects(st, "mnist", "---\nkind: PyTorchJob\n"), 0);
	entry = id_of(st, STAGING_ROOT, "mnist");
	CHECK_INT_EQ(read_text(st, id_of(st, entry, STAGING_STATUS), buf, sizeof(buf)), 8);
	CHECK_STR_EQ(buf, "checked\n");
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_ERROR, &a), -ENOENT);
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_OBJECTS, &a), 0);
	objects = a.id;
	CHECK(a.generated);
	CHECK_INT_EQ(a.mode, 0444);
	CHECK_INT_EQ(a.size, strlen("---\nkind: PyTorchJob\n"));
	CHECK_INT_EQ(read_text(st, objects, buf, sizeof(buf)), 21);
	CHECK_STR_EQ(buf, "---\nkind: PyTorchJob\n");
	CHECK_INT_EQ(staging_open(st, objects, O_WRONLY, &handles[objects]), -EACCES);

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "bad image"), 0);
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_OBJECTS, &a), -ENOENT);
	CHECK_INT_EQ(staging_set_objects(st, "mnist", "kind: X\n"), 0); /* not CHECKED */
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_OBJECTS, &a), -ENOENT);

	put_file(st, entry, STAGING_OBJECTS, "mine\n");
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_CHECKED, NULL), 0);
	CHECK_INT_EQ(staging_set_objects(st, "mnist", "kind: X\n"), 0);
	CHECK_INT_EQ(read_text(st, id_of(st, entry, STAGING_OBJECTS), buf, sizeof(buf)), 5);
	CHECK_STR_EQ(buf, "mine\n");
	staging_free(st);
}

TEST(fs_staging_status_and_error_are_read_only_but_removable)
{
	struct staging *st = new_staging();
	struct staging_set set = {.size_set = true, .size = 0};
	struct staging_attr a;
	uint64_t entry, status, error;
	char buf[64];

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "quota"), 0);
	entry = id_of(st, STAGING_ROOT, "mnist");
	status = id_of(st, entry, STAGING_STATUS);
	error = id_of(st, entry, STAGING_ERROR);
	CHECK(status != 0 && error != 0);

	CHECK_INT_EQ(staging_open(st, status, O_WRONLY, &handles[status]), -EACCES);
	CHECK_INT_EQ(staging_open(st, status, O_RDWR, &handles[status]), -EACCES);
	CHECK_INT_EQ(staging_open(st, error, O_WRONLY, &handles[error]), -EACCES);
	CHECK_INT_EQ(created(staging_create(st, entry, STAGING_STATUS, 0644, false, O_WRONLY | O_TRUNC, &a), &a),
	             -EACCES);
	CHECK_INT_EQ(staging_write(st, status, H(status), "x", 1, 0), -EACCES);
	CHECK_INT_EQ(setattr_by_path(st, status, &set, &a), -EACCES);
	CHECK_INT_EQ(setattr_by_path(st, error, &set, &a), -EACCES);
	CHECK_INT_EQ(read_text(st, status, buf, sizeof(buf)), 7);
	CHECK_STR_EQ(buf, "failed\n");
	/* cat works */
	CHECK_INT_EQ(staging_open(st, status, O_RDONLY, &handles[status]), 0);
	staging_release(st, status, H(status));

	/* rm -r of the entry must be able to empty it */
	CHECK_INT_EQ(staging_unlink(st, entry, STAGING_STATUS), 0);
	CHECK_INT_EQ(staging_unlink(st, entry, STAGING_ERROR), 0);
	CHECK_INT_EQ(staging_lookup(st, entry, STAGING_STATUS, &a), -ENOENT);
	CHECK_INT_EQ(staging_getattr(st, error, &a), -ENOENT);
	CHECK_INT_EQ(staging_rmdir(st, STAGING_ROOT, "mnist"), 0);
	staging_free(st);
}

TEST(fs_staging_outcome_of_an_entry_that_is_a_file_records_nothing)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	uint64_t id = put_file(st, STAGING_ROOT, "mnist", "plain file");
	char buf[64];

	(void)staging_set_outcome(st, "mnist", STAGING_FAILED, "x");
	(void)staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, "mnist", &a), 0);
	CHECK_INT_EQ(a.id, id);
	CHECK(!a.dir);
	CHECK(!a.generated);
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 10);
	CHECK_STR_EQ(buf, "plain file");
	staging_free(st);
}

/* The text of the status file id. */
static const char *status_text(struct staging *st, uint64_t id)
{
	static char buf[64];
	struct staging_attr a;

	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), (ssize_t)strlen(buf));
	CHECK_INT_EQ(staging_getattr(st, id, &a), 0);
	CHECK_INT_EQ(a.size, strlen(buf));
	return buf;
}

TEST(fs_staging_status_follows_the_job_until_it_is_gone)
{
	struct staging *st = new_staging();
	struct staging_job job;
	uint64_t entry, status;

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL), 0);
	entry = id_of(st, STAGING_ROOT, "mnist");
	status = id_of(st, entry, STAGING_STATUS);
	/* no job recorded: nothing to follow */
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 0);
	CHECK_INT_EQ(staging_set_job(st, "mnist", "team-a", 3, "b", "uid-1", false), 0);
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 1);
	CHECK_STR_EQ(job.ns, "team-a");
	CHECK_INT_EQ(job.kind, 3);
	CHECK_STR_EQ(job.name, "b");
	CHECK_STR_EQ(job.uid, "uid-1");
	CHECK(!job.seen);
	staging_job_clear(&job);
	/* only the status file follows */
	CHECK_INT_EQ(staging_followed_job(st, entry, &job), 0);

	staging_follow(st, status, "uid-1", true);
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 1);
	CHECK(job.seen);
	staging_job_clear(&job);
	CHECK_STR_EQ(status_text(st, status), "submitted\n");
	/* another uid (an older job's news) changes nothing */
	staging_follow(st, status, "uid-0", false);
	CHECK_STR_EQ(status_text(st, status), "submitted\n");
	staging_follow(st, status, "uid-1", false);
	CHECK_STR_EQ(status_text(st, status), "deleted\n");
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 0);

	/* submitted again: submitted, following the new job */
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTING, NULL), 0);
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(staging_set_job(st, "mnist", "team-a", 3, "b", "uid-2", true), 0);
	CHECK_STR_EQ(status_text(st, status), "submitted\n");
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 1);
	CHECK_STR_EQ(job.uid, "uid-2");
	CHECK(job.seen);
	staging_job_clear(&job);
	/* a failed submission forgets the job */
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "exists"), 0);
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 0);
	CHECK_INT_EQ(staging_set_job(st, "mnist", "team-a", 3, "b", "uid-3", true), 0);
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 0);
	CHECK_STR_EQ(status_text(st, status), "failed\n");
	staging_free(st);
}

TEST(fs_staging_a_removed_status_follows_nothing)
{
	struct staging *st = new_staging();
	struct staging_job job;
	uint64_t entry, status;

	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(staging_set_job(st, "mnist", "ns", 0, "mnist", "u", true), 0);
	entry = id_of(st, STAGING_ROOT, "mnist");
	status = id_of(st, entry, STAGING_STATUS);
	CHECK_INT_EQ(staging_open(st, status, O_RDONLY, &handles[status]), 0);
	CHECK_INT_EQ(staging_unlink(st, entry, STAGING_STATUS), 0);
	CHECK_INT_EQ(staging_followed_job(st, status, &job), 0);
	staging_follow(st, status, "u", false);
	staging_release(st, status, H(status));
	/* the entry (a file of that name is no directory) records no job */
	put_file(st, STAGING_ROOT, "plain", "x");
	CHECK_INT_EQ(staging_set_job(st, "plain", "ns", 0, "plain", "u", true), 0);
	staging_free(st);
}

/* ---- limits ---- */

TEST(fs_staging_more_than_nodes_max_is_enospc)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	enum { DIRS = 100 };
	uint64_t dirs[DIRS];
	char name[32];
	int made = 0, err = 0;

	/* spread over directories so each sorted insert stays short */
	for (int i = 0; i < DIRS; i++) {
		snprintf(name, sizeof(name), "d%03d", i);
		dirs[i] = make_dir(st, STAGING_ROOT, name);
		made++;
	}
	for (int i = 0; made <= STAGING_NODES_MAX; i++) {
		snprintf(name, sizeof(name), "f%05d", i);
		if (i % 2)
			err = staging_mkdir(st, dirs[i % DIRS], name, 0755, &a);
		else
			err = created(staging_create(st, dirs[i % DIRS], name, 0644, true, O_WRONLY, &a), &a);
		if (err)
			break;
		if (i % 2 == 0)
			staging_release(st, a.id, a.handle);
		made++;
	}
	CHECK_INT_EQ(err, -ENOSPC);
	/* submit/ itself may count as one */
	CHECK(made >= STAGING_NODES_MAX - 1);
	CHECK(made <= STAGING_NODES_MAX);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "one-more", 0755, &a), -ENOSPC);
	CHECK_INT_EQ(created(staging_create(st, STAGING_ROOT, "one-more", 0644, true, O_WRONLY, &a), &a),
	             -ENOSPC);
	/* a removed node makes room */
	CHECK_INT_EQ(staging_unlink(st, dirs[0], "f00000"), 0);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "one-more", 0755, &a), 0);
	staging_free(st);
}

/* submit/ full to its last node still tells why a submission failed: an entry's
 * status and error, and the directory a single spec file's outcome goes into, are
 * arenafs' own and never refused for room (issue 23: `failed` with no `error`). */
TEST(fs_staging_a_full_submit_still_has_room_for_status_and_error)
{
	struct staging *st = new_staging();
	struct staging_attr a;
	enum { DIRS = 100 };
	uint64_t dirs[DIRS], entry;
	char name[32], text[256];
	int err = 0;

	entry = make_dir(st, STAGING_ROOT, "mnist");
	put_file(st, entry, "spec.yaml", "type: tfjob\n");
	put_file(st, STAGING_ROOT, "single.yaml", "type: tfjob\n");
	for (int i = 0; i < DIRS; i++) {
		snprintf(name, sizeof(name), "d%03d", i);
		dirs[i] = make_dir(st, STAGING_ROOT, name);
	}
	for (int i = 0; !err; i++) {
		snprintf(name, sizeof(name), "f%05d", i);
		err = staging_mkdir(st, dirs[i % DIRS], name, 0755, &a);
	}
	CHECK_INT_EQ(err, -ENOSPC);
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_SUBMITTING, NULL), 0);
	CHECK_INT_EQ(staging_set_outcome(st, "mnist", STAGING_FAILED, "the reason"), 0);
	CHECK_INT_EQ(read_text(st, id_of(st, entry, "status"), text, sizeof(text)), 7);
	CHECK_STR_EQ(text, "failed\n");
	CHECK_INT_EQ(read_text(st, id_of(st, entry, "error"), text, sizeof(text)), 11);
	CHECK_STR_EQ(text, "the reason\n");
	CHECK_INT_EQ(staging_set_outcome(st, "single", STAGING_FAILED, "why not"), 0);
	CHECK_INT_EQ(read_text(st, id_of(st, id_of(st, STAGING_ROOT, "single"), "error"), text,
	                       sizeof(text)), 8);
	CHECK_STR_EQ(text, "why not\n");
	/* the user's own files are still refused */
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "one-more", 0755, &a), -ENOSPC);
	staging_free(st);
}

/* A directory moved up to be an entry may not bring a status or error of the user's:
 * the outcome would be written into (or delete) the user's own files. */
TEST(fs_staging_directory_moved_to_the_top_may_not_hold_status_or_error)
{
	struct staging *st = new_staging();
	uint64_t a = make_dir(st, STAGING_ROOT, "a");
	uint64_t b = make_dir(st, a, "b");
	uint64_t mine = put_file(st, b, "status", "my notes");
	uint64_t c = make_dir(st, STAGING_ROOT, "c");
	uint64_t d = make_dir(st, c, "d");
	uint64_t err_dir = make_dir(st, d, "error");
	uint64_t spec = put_file(st, make_dir(st, err_dir, "sub"), "spec.yaml", "x");
	struct staging_submission sub;
	struct staging_attr attr;

	CHECK_INT_EQ(staging_rename(st, a, "b", STAGING_ROOT, "b", 0), -EACCES);
	CHECK_INT_EQ(staging_rename(st, c, "d", STAGING_ROOT, "d", 0), -EACCES);
	CHECK_INT_EQ(id_of(st, b, "status"), mine);
	/* recording an outcome never touches files that are not arenafs' own */
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "c", STAGING_ROOT, "d", 0), 0);
	CHECK_INT_EQ(staging_set_outcome(st, "d", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(staging_getattr(st, spec, &attr), 0);
	CHECK_INT_EQ(attr.nlink, 1);
	CHECK_INT_EQ(take_flushed(st, spec, &sub), 0);
	staging_submission_clear(&sub);
	staging_free(st);
}

/* ---- local code: the other files of a folder entry ---- */

/* The files a folder ships: spec and code, nested ones by path, with their bytes and
 * modes; hidden names and __pycache__/ stay behind, and so do top-level files. */
TEST(fs_staging_code_of_a_folder_is_its_files_but_hidden_ones_and_pycache)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "mnist");
	uint64_t pkg = make_dir(st, e, "model");
	struct staging_attr a;
	struct staging_code code;
	struct staging_set chmod = {.mode_set = true, .mode = 0755};

	put_file(st, e, "spec.yaml", "type: tfjob\n");
	put_file(st, e, "train.py", "print(1)\n");
	put_file(st, pkg, "net.py", "X = 1\n");
	CHECK_INT_EQ(setattr_by_path(st, put_file(st, e, "run.sh", "#!/bin/sh\n"), &chmod, &a), 0);
	put_file(st, make_dir(st, e, ".git"), "HEAD", "ref\n");
	put_file(st, make_dir(st, pkg, "__pycache__"), "net.pyc", "\x01");
	put_file(st, e, ".train.py.swp", "swap");
	put_file(st, STAGING_ROOT, "other.yaml", "type: tfjob\n");

	CHECK_INT_EQ(staging_take_code(st, "mnist", &code), 0);
	CHECK_INT_EQ(code.n, 4);
	if (code.n == 4) {
		/* listing order: by name, depth first */
		CHECK_STR_EQ(code.files[0].path, "model/net.py");
		CHECK_STR_EQ(code.files[1].path, "run.sh");
		CHECK_INT_EQ(code.files[1].mode, 0755);
		CHECK_STR_EQ(code.files[2].path, "spec.yaml");
		CHECK_STR_EQ(code.files[3].path, "train.py");
		CHECK_INT_EQ(code.files[3].len, 9);
		CHECK(memcmp(code.files[3].data, "print(1)\n", 9) == 0);
	}
	CHECK_INT_EQ(code.bytes, 6 + 10 + 12 + 9);
	staging_code_clear(&code);
	/* a single spec file has no code; a missing entry is ENOENT */
	CHECK_INT_EQ(staging_take_code(st, "other", &code), -ENOENT);
	staging_free(st);
}

TEST(fs_staging_a_folder_holding_only_its_spec_ships_nothing)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "bare");
	struct staging_code code;

	put_file(st, e, "spec.yaml", "type: tfjob\n");
	put_file(st, e, ".notes", "hidden");
	CHECK_INT_EQ(staging_take_code(st, "bare", &code), 0);
	CHECK_INT_EQ(code.n, 0);
	CHECK(code.files == NULL);
	staging_free(st);
}

/* One ConfigMap holds the code: the write past STAGING_CODE_MAX over all shipped
 * files is EFBIG, the entry says failed with the size and the limit at once, and
 * taking the code fails the same way; hidden files do not count. */
TEST(fs_staging_code_past_a_configmap_is_efbig_and_the_entry_says_why)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "huge");
	size_t half = STAGING_CODE_MAX / 2 + 1;
	char *big = malloc(half), error[512];
	uint64_t a, b, hidden;
	struct staging_code code;
	ssize_t got;

	memset(big, 'x', half);
	put_file(st, e, "spec.yaml", "type: tfjob\n");
	hidden = open_file(st, e, ".hidden", NULL);
	CHECK_INT_EQ(staging_write(st, hidden, H(hidden), big, half, 0), (ssize_t)half);
	a = open_file(st, e, "a.bin", NULL);
	CHECK_INT_EQ(staging_write(st, a, H(a), big, half, 0), (ssize_t)half);
	b = open_file(st, e, "b.bin", NULL);
	CHECK_INT_EQ(staging_write(st, b, H(b), big, half, 0), -EFBIG);
	got = staging_read(st, id_of(st, e, "status"), error, sizeof(error) - 1, 0);
	CHECK(got > 0 && strncmp(error, "failed\n", 7) == 0);
	got = staging_read(st, id_of(st, e, "error"), error, sizeof(error) - 1, 0);
	error[got > 0 ? got : 0] = '\0';
	CHECK(strstr(error, "the code is too large") != NULL);
	CHECK(strstr(error, "1048576") != NULL);
	CHECK_INT_EQ(staging_take_code(st, "huge", &code), -EFBIG);
	CHECK(code.bytes > STAGING_CODE_MAX);
	CHECK_INT_EQ(code.n, 0);
	/* emptied, the cut file no longer stands in the way */
	CHECK_INT_EQ(staging_unlink(st, e, "b.bin"), 0);
	CHECK_INT_EQ(staging_take_code(st, "huge", &code), 0);
	CHECK_INT_EQ(code.n, 2);
	staging_code_clear(&code);
	staging_release(st, a, H(a));
	staging_release(st, b, H(b));
	free(big);
	staging_free(st);
}

/* Something a copy failed to make (a symbolic link) fails the folder's code with
 * EPERM, naming it; the next copy, after a pause, starts clean (issue 23). */
TEST(fs_staging_a_copy_that_failed_makes_no_code_until_the_next_copy)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "linked");
	uint64_t model = make_dir(st, e, "model");
	struct timespec pause = {0, (STAGING_QUIET_MS + 100) * 1000000L};
	struct staging_code code;

	put_file(st, e, "spec.yaml", "type: tfjob\n");
	staging_copy_failed(st, model, "data", "a symbolic link (to /data)");
	staging_copy_failed(st, e, "shadow", "a symbolic link (to /etc/shadow)");
	staging_copy_failed(st, STAGING_ROOT, "top", "a symbolic link (to /)");
	CHECK_INT_EQ(staging_take_code(st, "linked", &code), -EPERM);
	CHECK_INT_EQ(code.n, 0);
	CHECK_STR_EQ(code.copy_failure,
	             "linked/model/data: a symbolic link (to /data) (and 1 more refused)");
	staging_code_clear(&code);
	/* the same copy goes on: still refused */
	put_file(st, e, "train.py", "print(1)\n");
	CHECK_INT_EQ(staging_take_code(st, "linked", &code), -EPERM);
	staging_code_clear(&code);
	/* another copy, after a pause */
	nanosleep(&pause, NULL);
	put_file(st, e, "eval.py", "print(2)\n");
	CHECK_INT_EQ(staging_take_code(st, "linked", &code), 0);
	CHECK_INT_EQ(code.n, 3);
	CHECK(code.copy_failure == NULL);
	staging_code_clear(&code);
	staging_free(st);
}

/* Every change below an entry restarts its quiet time: a copy is over when it grows. */
TEST(fs_staging_quiet_time_restarts_with_each_change_in_the_entry)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "q");
	struct timespec pause = {0, 300 * 1000000L};
	struct staging_copy_state cs;

	put_file(st, e, "spec.yaml", "type: tfjob\n");
	nanosleep(&pause, NULL);
	CHECK_INT_EQ(staging_entry_state(st, "q", &cs), 0);
	CHECK(cs.quiet_ms >= 300);
	staging_copy_state_clear(&cs);
	put_file(st, make_dir(st, e, "deep"), "f.py", "1\n");
	CHECK_INT_EQ(staging_entry_state(st, "q", &cs), 0);
	CHECK(cs.quiet_ms < 300);
	staging_copy_state_clear(&cs);
	CHECK_INT_EQ(staging_entry_state(st, "missing", &cs), -ENOENT);
	staging_free(st);
}

/* A file of a folder still open for writing (tar x paused inside it) holds its copy
 * open, and each writer of a copy is recorded once, until a pause starts another. */
TEST(fs_staging_a_folder_with_a_file_open_for_writing_is_still_being_copied)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "t");
	uint64_t f = open_file(st, e, "model.py", "half of it");
	struct staging_writer w = {42, 40, 1234};
	struct staging_copy_state cs;

	put_file(st, e, "spec.yaml", "type: tfjob\n");
	CHECK(!staging_knows_writer(st, f, 42));
	staging_add_writer(st, f, &w);
	CHECK(staging_knows_writer(st, e, 42));
	CHECK(staging_knows_writer(st, STAGING_ROOT, 7)); /* in no entry: nothing to know */
	CHECK_INT_EQ(staging_entry_state(st, "t", &cs), 0);
	CHECK_INT_EQ(cs.open_for_writing, 1);
	CHECK_INT_EQ(cs.n_writers, 1);
	CHECK_INT_EQ(cs.writers[0].tgid, 40);
	staging_copy_state_clear(&cs);
	staging_release(st, f, H(f));
	CHECK_INT_EQ(writing_in(st, "t"), 0);
	staging_free(st);
}

/* The root's `error`: why nothing may be created in a namespace's submit/. */
TEST(fs_staging_notice_at_the_root_comes_and_goes)
{
	struct staging *st = new_staging();
	struct staging_attr a, again;
	char buf[128];
	uint64_t id;

	CHECK_INT_EQ(staging_set_notice(st, "may not create jobs in namespace prod"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, STAGING_ERROR, &a), 0);
	CHECK(a.generated && !a.dir);
	CHECK_INT_EQ(a.mode, 0444);
	CHECK_INT_EQ(read_text(st, a.id, buf, sizeof(buf)), 38);
	CHECK_STR_EQ(buf, "may not create jobs in namespace prod\n");
	CHECK_INT_EQ(staging_open(st, a.id, O_WRONLY, &handles[a.id]), -EACCES);
	/* the same words again change nothing, not even the time */
	CHECK_INT_EQ(staging_set_notice(st, "may not create jobs in namespace prod"), 0);
	CHECK_INT_EQ(staging_lookup(st, STAGING_ROOT, STAGING_ERROR, &again), 0);
	CHECK_INT_EQ(again.id, a.id);
	CHECK_INT_EQ(ts_cmp(again.mtime, a.mtime), 0);
	CHECK_INT_EQ(staging_set_notice(st, NULL), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, STAGING_ERROR), 0);
	/* a file of the user's by that name is the user's */
	id = put_file(st, STAGING_ROOT, STAGING_ERROR, "mine");
	CHECK_INT_EQ(staging_set_notice(st, "no"), 0);
	CHECK_INT_EQ(read_text(st, id, buf, sizeof(buf)), 4);
	CHECK_INT_EQ(staging_set_notice(st, NULL), 0);
	CHECK_INT_EQ(id_of(st, STAGING_ROOT, STAGING_ERROR), id);
	staging_free(st);
}

/* ---- who wrote a spec (issue 33: a job launched from an abandoned spec) ---- */

/* open(2) of an existing file: its handle, 0 when refused (err says why). */
static uint64_t reopen(struct staging *st, uint64_t id, int flags, int *err)
{
	uint64_t h = 0;

	*err = staging_open(st, id, flags, &h);
	return *err ? 0 : h;
}

/* A spec written whole by one handle (cp, >) is taken at its close; one built by
 * appending (echo >> line by line) is not, whichever line closes it. */
TEST(fs_staging_an_appended_spec_is_staged_not_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	struct staging_attr a;
	const char *lines[] = {"type: tfjob\n", "image: x\n", "gpus: 8\n"};
	uint64_t id = 0;
	off_t off = 0;

	for (size_t i = 0; i < 3; i++) {
		CHECK_INT_EQ(staging_create(st, STAGING_ROOT, "x.yaml", 0644, false,
		                            O_WRONLY | O_CREAT | O_APPEND, &a), 0);
		id = a.id;
		CHECK_INT_EQ(staging_write(st, id, a.handle, lines[i], strlen(lines[i]), off),
		             (ssize_t)strlen(lines[i]));
		off += (off_t)strlen(lines[i]);
		CHECK_INT_EQ(staging_take_flushed(st, id, a.handle, false, &sub), 0);
		CHECK_STR_EQ(sub.entry, "x");
		CHECK_INT_EQ(sub.unfinished, STAGING_NOT_WHOLE);
		CHECK(sub.text == NULL);
		staging_submission_clear(&sub);
		staging_release(st, id, a.handle);
	}
	/* renamed away and back: now it is a spec written whole */
	CHECK_INT_EQ(staging_rename(st, STAGING_ROOT, "x.yaml", STAGING_ROOT, "x.yaml.part", 0), 0);
	CHECK_INT_EQ(take_renamed(st, STAGING_ROOT, "x.yaml.part", STAGING_ROOT, "x.yaml", &sub), 1);
	CHECK_STR_EQ(sub.text, "type: tfjob\nimage: x\ngpus: 8\n");
	staging_submission_clear(&sub);
	staging_free(st);
}

/* The kernel's close of a killed writer (the caller says abandoned): never taken,
 * not at that close, not at a later flush of the same text. */
TEST(fs_staging_an_abandoned_spec_is_never_taken)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t id = open_file(st, STAGING_ROOT, "typed.yaml", "type: tfjob\nimage: x\n");
	int err;
	uint64_t h;

	CHECK_INT_EQ(staging_take_flushed(st, id, H(id), true, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_ABANDONED);
	CHECK_STR_EQ(sub.path, "typed.yaml");
	staging_submission_clear(&sub);
	CHECK_INT_EQ(take_flushed(st, id, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_WHOLE);
	staging_release(st, id, H(id));
	/* written whole again (cp, > f): taken */
	h = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	CHECK_INT_EQ(err, 0);
	CHECK_INT_EQ(staging_write(st, id, h, "type: tfjob\n", 12, 0), 12);
	CHECK_INT_EQ(staging_take_flushed(st, id, h, false, &sub), 1);
	staging_idle(st, sub.entry);
	staging_submission_clear(&sub);
	staging_release(st, id, h);
	staging_free(st);
}

/* Two cp to one name: the one that emptied the file last and wrote it alone
 * submits; one whose text was emptied under it does not. Both writing into one
 * text: neither. */
TEST(fs_staging_two_writers_of_one_spec_never_both_submit)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t id = open_file(st, STAGING_ROOT, "two.yaml", NULL), first = H(id), second;
	int err;

	second = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	CHECK_INT_EQ(staging_write(st, id, second, "name: b\n", 8, 0), 8);
	CHECK_INT_EQ(staging_take_flushed(st, id, first, false, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_REPLACED);
	staging_submission_clear(&sub);
	CHECK_INT_EQ(staging_take_flushed(st, id, second, false, &sub), 1);
	CHECK_STR_EQ(sub.text, "name: b\n");
	staging_idle(st, sub.entry);
	staging_submission_clear(&sub);
	staging_release(st, id, first);
	staging_release(st, id, second);

	/* emptied under the first before the second wrote: the first's close is told */
	first = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	CHECK_INT_EQ(staging_write(st, id, first, "name: a\n", 8, 0), 8);
	second = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	CHECK_INT_EQ(staging_take_flushed(st, id, first, false, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_REPLACED);
	staging_submission_clear(&sub);
	staging_release(st, id, first);
	staging_release(st, id, second);

	/* both open on an empty text, both write: the text may mix them */
	first = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	second = reopen(st, id, O_WRONLY | O_TRUNC, &err);
	CHECK_INT_EQ(staging_write(st, id, first, "name: a\n", 8, 0), 8);
	CHECK_INT_EQ(staging_write(st, id, second, "name: b\n", 8, 0), 8);
	CHECK_INT_EQ(staging_take_flushed(st, id, first, false, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_CLASHED);
	staging_submission_clear(&sub);
	CHECK_INT_EQ(staging_take_flushed(st, id, second, false, &sub), 0);
	CHECK_INT_EQ(sub.unfinished, STAGING_CLASHED);
	staging_submission_clear(&sub);
	staging_release(st, id, first);
	staging_release(st, id, second);
	staging_free(st);
}

/* While an entry's spec is being submitted its spec cannot be rewritten (the
 * writer waits), and once that made a job the entry follows, it is EEXIST: the
 * file keeps showing what was launched. A job gone (status deleted) frees it. */
TEST(fs_staging_the_spec_of_a_launched_job_is_not_rewritten)
{
	struct staging *st = new_staging();
	struct staging_submission sub;
	uint64_t id = open_file(st, STAGING_ROOT, "run.yaml", "name: a\n"), status;
	struct staging_attr a;
	int err;

	CHECK_INT_EQ(staging_take_flushed(st, id, H(id), false, &sub), 1);
	staging_release(st, id, H(id));
	/* a writer that opened before the take may not change the text taken */
	CHECK_INT_EQ(staging_write(st, id, 0, "name: b\n", 8, 0), -EBUSY);
	CHECK_INT_EQ(read_text(st, id, (char[16]){0}, 16), 8);
	CHECK_INT_EQ(staging_set_outcome(st, "run", STAGING_SUBMITTED, NULL), 0);
	CHECK_INT_EQ(staging_set_job(st, "run", "ns", 0, "run", "u1", true), 0);
	staging_idle(st, sub.entry);
	staging_submission_clear(&sub);
	CHECK_INT_EQ(reopen(st, id, O_WRONLY | O_TRUNC, &err), 0);
	CHECK_INT_EQ(err, -EEXIST);
	CHECK_INT_EQ(staging_create(st, STAGING_ROOT, "run.yaml", 0644, false,
	                            O_WRONLY | O_TRUNC, &a), -EEXIST);
	CHECK_INT_EQ(read_text(st, id, (char[16]){0}, 16), 8);
	/* reading it is fine */
	CHECK(reopen(st, id, O_RDONLY, &err) != 0);
	/* the job gone: written again, submitted again */
	status = id_of(st, id_of(st, STAGING_ROOT, "run"), STAGING_STATUS);
	staging_follow(st, status, "u1", false);
	CHECK(reopen(st, id, O_WRONLY | O_TRUNC, &err) != 0);
	CHECK_INT_EQ(err, 0);
	staging_free(st);
}

/* close(2) flushes at once, FUSE's release may come later: a flushed file is no
 * longer being written (tar's next file, mv right after cp). */
TEST(fs_staging_a_flushed_file_is_no_longer_open_for_writing)
{
	struct staging *st = new_staging();
	uint64_t e = make_dir(st, STAGING_ROOT, "f");
	uint64_t f = open_file(st, e, "model.py", "all of it");
	struct staging_submission sub;

	CHECK_INT_EQ(writing_in(st, "f"), 1);
	CHECK_INT_EQ(staging_take_flushed(st, f, H(f), false, &sub), 0);
	staging_submission_clear(&sub);
	CHECK_INT_EQ(writing_in(st, "f"), 0);
	/* written again through the same handle: being written again */
	CHECK_INT_EQ(staging_write(st, f, H(f), "more", 4, 9), 4);
	CHECK_INT_EQ(writing_in(st, "f"), 1);
	staging_release(st, f, H(f));
	CHECK_INT_EQ(writing_in(st, "f"), 0);
	staging_free(st);
}
