/*
 * Tests fs/submit/submit_run.c where it needs no API server: a spec that does not
 * hold is refused before any request (the fixture's fs has no client: one request
 * would crash the test), its error the line users read in submit/NAME/error; and
 * submit_wait_job, with which `ls jobs/` after `cp` shows the job: the cache has
 * the job of that uid, or has it no more. Dry runs, creation and undoing a half
 * made submission need an API server: tests/integration/test_submit_*.py.
 */
#include "fs/submit/submit_run.h"
#include "k8s/error.h"
#include "tests/unit/fs_fixture.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <string.h>

TEST(fs_submit_run_refuses_a_bad_spec_before_any_request)
{
	static const char SPEC[] = "type: tfjobs\nimage: x\ncommand: y\n";
	struct fx_fs x;
	struct k8s_error err;
	struct submit_made made = {"", 0, "", ""};
	struct submit_request rq = {NULL, SPEC, sizeof(SPEC) - 1, "mnist", false, NULL, NULL, &made,
	                           NULL, NULL};

	fx_fs_init(&x);
	CHECK(x.fs->client == NULL);
	k8s_error_clear(&err);
	CHECK_INT_EQ(submit_run(x.fs, &rq, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "line 1, column 7: type: \"tfjobs\" is not a job type");
	CHECK_STR_EQ(made.uid, "");                  /* nothing was made */
	fx_fs_free(&x);
}

TEST(fs_submit_wait_job_sees_the_job_of_its_uid_come_and_go)
{
	struct fx_fs x;

	fx_fs_init(&x);
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "uid-1", 1796205600);
	/* there: at once, by name or by its uid */
	CHECK(submit_wait_job(x.fs, "default", JOB_TFJOB, "mnist", NULL, true, 10000));
	CHECK(submit_wait_job(x.fs, "default", JOB_TFJOB, "mnist", "uid-1", true, 10000));
	/* another job of that name (another uid) is not the one made: not there */
	CHECK(!submit_wait_job(x.fs, "default", JOB_TFJOB, "mnist", "uid-2", true, 50));
	CHECK(submit_wait_job(x.fs, "default", JOB_TFJOB, "mnist", "uid-2", false, 10000));
	/* another kind or namespace: gone, at once */
	CHECK(submit_wait_job(x.fs, "default", JOB_PYTORCHJOB, "mnist", NULL, false, 10000));
	CHECK(submit_wait_job(x.fs, "team-a", JOB_TFJOB, "mnist", NULL, false, 10000));
	fx_fs_free(&x);
}
