/*
 * Tests of fs/tree/naming.c: plain names for a name one kind holds, NAME.TYPE for every
 * kind when several hold it, newest-first order with ties by name, and the
 * inverse lookup accepting exactly the names the listing shows.
 */
#include "tests/unit/harness.h"

#include <stdlib.h>
#include <string.h>

#include "fs/tree/naming.h"
#include "tests/unit/objects_fixture.h"

struct jobset {
	const struct job *jobs[8];
	size_t n;
};

static const struct job *find_in_set(void *arg, int kind, const char *name)
{
	struct jobset *s = arg;

	for (size_t i = 0; i < s->n; i++)
		if ((int)s->jobs[i]->kind == kind && strcmp(s->jobs[i]->meta.name, name) == 0)
			return s->jobs[i];
	return NULL;
}

TEST(fs_naming_lists_newest_first_with_kind_suffix_only_on_shared_names)
{
	struct job *a = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct job *b = fx_job(JOB_PYTORCHJOB, "mnist", FX_T0 - 50);
	struct job *c = fx_job(JOB_TFJOB, "resnet", FX_T0);
	struct job *d = fx_job(JOB_MPIJOB, "bert", FX_T0 - 100);
	const struct job *jobs[] = {a, b, c, d};
	struct fs_job_name *names;

	CHECK_INT_EQ(naming_list_jobs(jobs, 4, &names), 0);
	CHECK_STR_EQ(names[0].display, "resnet");
	CHECK(names[0].job == c);
	CHECK_STR_EQ(names[1].display, "mnist.pytorchjob");
	CHECK(names[1].job == b);
	/* a tie on creation time is broken by the directory name */
	CHECK_STR_EQ(names[2].display, "bert");
	CHECK_STR_EQ(names[3].display, "mnist.tfjob");
	CHECK(names[3].job == a);
	naming_free(names, 4);
	fx_job_free(a);
	fx_job_free(b);
	fx_job_free(c);
	fx_job_free(d);
}

TEST(fs_naming_empty_list)
{
	struct fs_job_name *names = (void *)1;

	CHECK_INT_EQ(naming_list_jobs(NULL, 0, &names), 0);
	CHECK(names == NULL);
}

TEST(fs_naming_find_accepts_exactly_the_listed_names)
{
	struct job *a = fx_job(JOB_TFJOB, "mnist", FX_T0);
	struct job *b = fx_job(JOB_PYTORCHJOB, "mnist", FX_T0);
	struct job *c = fx_job(JOB_TFJOB, "resnet", FX_T0);
	struct jobset s = {{a, b, c}, 3};

	/* shared name: only the suffixed forms */
	CHECK(naming_find_job("mnist", find_in_set, &s) == NULL);
	CHECK(naming_find_job("mnist.tfjob", find_in_set, &s) == a);
	CHECK(naming_find_job("mnist.pytorchjob", find_in_set, &s) == b);
	CHECK(naming_find_job("mnist.mpijob", find_in_set, &s) == NULL);
	/* a name one kind holds: only the plain form */
	CHECK(naming_find_job("resnet", find_in_set, &s) == c);
	CHECK(naming_find_job("resnet.tfjob", find_in_set, &s) == NULL);
	/* strangers */
	CHECK(naming_find_job("", find_in_set, &s) == NULL);
	CHECK(naming_find_job(".tfjob", find_in_set, &s) == NULL);
	CHECK(naming_find_job("mnist.", find_in_set, &s) == NULL);
	CHECK(naming_find_job("nope", find_in_set, &s) == NULL);
	fx_job_free(a);
	fx_job_free(b);
	fx_job_free(c);
}

TEST(fs_naming_name_becomes_suffixed_when_a_second_kind_takes_it)
{
	struct job *a = fx_job(JOB_TFJOB, "mnist", FX_T0);
	struct job *b = fx_job(JOB_XGBOOSTJOB, "mnist", FX_T0);
	struct jobset s = {{a}, 1};
	char *d;

	CHECK(naming_find_job("mnist", find_in_set, &s) == a);
	d = naming_display(a, 1);
	CHECK_STR_EQ(d, "mnist");
	free(d);
	s.jobs[1] = b;
	s.n = 2;
	CHECK(naming_find_job("mnist", find_in_set, &s) == NULL);
	CHECK(naming_find_job("mnist.xgboostjob", find_in_set, &s) == b);
	d = naming_display(b, 2);
	CHECK_STR_EQ(d, "mnist.xgboostjob");
	free(d);
	fx_job_free(a);
	fx_job_free(b);
}
