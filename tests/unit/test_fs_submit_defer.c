/*
 * Tests fs/submit/submit_defer.c (its design note: why a copied folder waits) over
 * a struct fs made as mount/ makes it (fs_fixture.c), no session: a lookup of
 * jobs/NAME waits while NAME's folder waits to be made, a folder removed before
 * its copy was over makes nothing, and at unmount what still waits is dropped,
 * nothing made. Making a job needs an API server: through a mount,
 * tests/integration/test_submit_code.py.
 */
#include "fs/submit/submit_defer.h"
#include "fs/submit/areas.h"
#include "fs/submit/staging.h"
#include "tests/unit/fs_fixture.h"
#include "tests/unit/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC "name: mnist\nimage: tensorflow/tensorflow:2.16.1\ncommand: python train.py\n"

/* What the close of submit/NAME/spec.yaml hands over once its checks passed. */
static struct staging_submission folder_spec(const char *name)
{
	struct staging_submission sub = {0};
	char path[256];

	snprintf(path, sizeof path, "%s/spec.yaml", name);
	sub.text = strdup(SPEC);
	sub.len = strlen(SPEC);
	sub.default_name = strdup(name);
	sub.entry = strdup(name);
	sub.path = strdup(path);
	sub.in_dir = true;
	CHECK(sub.text && sub.default_name && sub.entry && sub.path);
	return sub;
}

/* submit/NAME/'s outcome as its status says it: whether it has a status at all. */
static bool has_status(struct staging *st, const char *name)
{
	struct staging_attr dir, f;

	return staging_lookup(st, STAGING_ROOT, name, &dir) == 0 &&
	       staging_lookup(st, dir.id, STAGING_STATUS, &f) == 0;
}

TEST(fs_submit_defer_nothing_to_wait_for)
{
	struct fx_fs x;

	fx_fs_init(&x);
	CHECK(!submit_defer_wait(x.fs->defer, "default", "mnist", 10000, 0));
	fx_fs_free(&x);
}

TEST(fs_submit_defer_a_folder_removed_before_its_copy_was_over_makes_nothing)
{
	struct fx_fs x;
	struct staging_submission sub;

	fx_fs_init(&x);
	/* queued, but submit/mnist/ is gone already: the thread drops it */
	sub = folder_spec("mnist");
	CHECK_INT_EQ(submit_defer_add(x.fs->defer, NULL, false, &sub), 0);
	CHECK(sub.text == NULL);                     /* taken over */
	submit_defer_wait(x.fs->defer, "default", "mnist", 10000, 0);
	CHECK(!submit_defer_wait(x.fs->defer, "default", "mnist", 10000, 0));
	CHECK(!has_status(areas_get(x.fs->areas, "default", true), "mnist"));
	fx_fs_free(&x);
}

TEST(fs_submit_defer_a_lookup_waits_and_unmount_drops_what_waits)
{
	struct fx_fs x;
	struct staging *st;
	struct staging_attr a;
	struct staging_submission sub, check;

	fx_fs_init(&x);
	st = areas_get(x.fs->areas, "default", true);
	CHECK(st != NULL);
	CHECK_INT_EQ(staging_mkdir(st, STAGING_ROOT, "mnist", 0755, &a), 0);
	/* unmounting: the thread is stopped, so what is added waits for good */
	submit_defer_stop(x.fs->defer);
	sub = folder_spec("mnist");
	check = folder_spec("mnist");
	CHECK_INT_EQ(submit_defer_add(x.fs->defer, NULL, false, &sub), 0);
	CHECK_INT_EQ(submit_defer_add(x.fs->defer, NULL, true, &check), 0);
	/* jobs/mnist's lookup waits for it (here until its timeout); another name does not,
	 * nor does another namespace's */
	CHECK(submit_defer_wait(x.fs->defer, "default", "mnist", 50, 0));
	CHECK(!submit_defer_wait(x.fs->defer, "default", "gan", 50, 0));
	CHECK(!submit_defer_wait(x.fs->defer, "team-a", "mnist", 50, 0));
	/* the stop drops both, each said in the log; nothing was made or recorded */
	submit_defer_stop(x.fs->defer);
	CHECK(!submit_defer_wait(x.fs->defer, "default", "mnist", 50, 0));
	CHECK(!has_status(st, "mnist"));
	fx_fs_free(&x);
}
