/*
 * Tests fs/submit/submit.c's record keeping, which a submission made at close and
 * one made later by submit_defer.c share: where the log says a namespace's
 * submissions go, check/'s outcome with the dry run's objects, and a made job's
 * status following that job in the cache. Over a struct fs with a cache filled by
 * hand (fs_fixture.c) and a staging tree; no session. The FUSE operations are
 * tested through a mount: tests/integration/test_submit_*.py.
 */
#include "fs/submit/submit.h"
#include "fs/submit/submit_run.h"
#include "fs/submit/staging.h"
#include "k8s/base/strbuf.h"
#include "tests/unit/fs_fixture.h"
#include "tests/unit/harness.h"

#include <string.h>
#include <sys/stat.h>

/* submit/ENTRY/NAME's text (NUL-terminated), "" when there is none. */
static const char *text_of(struct staging *st, const char *entry, const char *name,
			   char *buf, size_t size)
{
	struct staging_attr dir, f;
	ssize_t got = -1;

	if (staging_lookup(st, STAGING_ROOT, entry, &dir) == 0 &&
	    staging_lookup(st, dir.id, name, &f) == 0)
		got = staging_read(st, f.id, buf, size - 1, 0);
	buf[got > 0 ? got : 0] = '\0';
	return buf;
}

/* submit/ENTRY/status's id, 0 when there is none. */
static uint64_t status_id(struct staging *st, const char *entry)
{
	struct staging_attr dir, f;

	if (staging_lookup(st, STAGING_ROOT, entry, &dir) || staging_lookup(st, dir.id,
									 STAGING_STATUS, &f))
		return 0;
	return f.id;
}

TEST(fs_submit_area_path_names_the_namespace_s_folder)
{
	struct fx_fs x;
	char buf[128];

	fx_fs_init(&x);
	submit_area_path(x.fs, "default", false, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "submit/");
	submit_area_path(x.fs, "team-a", false, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "namespaces/team-a/submit/");
	submit_area_path(x.fs, "default", true, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "check/");
	submit_area_path(x.fs, "team-a", true, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "namespaces/team-a/check/");
	fx_fs_free(&x);
}

TEST(fs_submit_record_checked_writes_status_and_objects)
{
	struct staging *st = NULL;
	struct staging_attr a;
	struct strbuf objects = STRBUF_INIT;
	char buf[256];

	CHECK_INT_EQ(staging_new(&st), 0);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "mnist", 0755, &a), 0);
	strbuf_puts(&objects, "kind: TFJob\nmetadata:\n  name: mnist\n");
	submit_record_checked(st, "mnist", &objects);
	CHECK_STR_EQ(text_of(st, "mnist", STAGING_STATUS, buf, sizeof(buf)), "checked\n");
	CHECK_STR_EQ(text_of(st, "mnist", STAGING_OBJECTS, buf, sizeof(buf)),
		     "kind: TFJob\nmetadata:\n  name: mnist\n");
	CHECK_STR_EQ(text_of(st, "mnist", STAGING_ERROR, buf, sizeof(buf)), "");
	strbuf_free(&objects);
	staging_free(st);
}

TEST(fs_submit_note_made_lets_status_follow_the_job)
{
	struct fx_fs x;
	struct staging *st = NULL;
	struct staging_attr a;
	struct staging_job job;
	struct submit_made made = {"default", JOB_TFJOB, "mnist", "uid-mnist"};
	struct submit_made no_uid = {"default", JOB_TFJOB, "gan", ""};

	fx_fs_init(&x);
	CHECK_INT_EQ(staging_new(&st), 0);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "mnist", 0755, &a), 0);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "gan", 0755, &a), 0);
	staging_set_outcome(st, "mnist", STAGING_SUBMITTED, NULL);
	staging_set_outcome(st, "gan", STAGING_SUBMITTED, NULL);

	/* the cache does not show it yet (a slow watch): followed, not seen */
	submit_note_made(x.fs, st, "mnist", &made);
	CHECK_INT_EQ(staging_followed_job(st, status_id(st, "mnist"), &job), 1);
	CHECK_STR_EQ(job.name, "mnist");
	CHECK_STR_EQ(job.uid, "uid-mnist");
	CHECK(!job.seen);
	staging_job_clear(&job);
	/* once it does, seen: its absence will then mean it is gone */
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "uid-mnist", 1796205600);
	submit_note_made(x.fs, st, "mnist", &made);
	CHECK_INT_EQ(staging_followed_job(st, status_id(st, "mnist"), &job), 1);
	CHECK(job.seen);
	staging_job_clear(&job);
	/* without a uid there is nothing to follow: status stays "submitted" */
	submit_note_made(x.fs, st, "gan", &no_uid);
	CHECK_INT_EQ(staging_followed_job(st, status_id(st, "gan"), &job), 0);
	staging_free(st);
	fx_fs_free(&x);
}
