/*
 * Tests of fs/tree/naming.c: plain names for a name one kind holds, NAME.TYPE for every
 * kind when several hold it or the name itself ends in a type, newest-first order
 * with ties by name, the inverse lookup accepting exactly the names the listing
 * shows and meaning one object whatever else exists, names too long to list.
 */
#include "tests/unit/harness.h"

#include <stdlib.h>
#include <string.h>

#include "fs/tree/naming.h"
#include "tests/unit/objects_fixture.h"

struct jobset {
	const struct job *jobs[16];
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

	CHECK_INT_EQ(naming_list_jobs(jobs, 4, &names), 4);
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

static void free_jobs(struct job *const *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fx_job_free(jobs[i]);
}

/* Every listed name is found again, as that job, and no two are equal. */
static void check_listing_agrees(const struct jobset *s, size_t expect)
{
	struct fs_job_name *names;
	int n = naming_list_jobs(s->jobs, s->n, &names);

	CHECK_INT_EQ(n, (int)expect);
	for (int i = 0; i < n; i++) {
		CHECK(strlen(names[i].display) <= NAMING_NAME_MAX);
		CHECK(naming_find_job(names[i].display, find_in_set, (void *)s) == names[i].job);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(names[i].display, names[j].display) != 0);
	}
	naming_free(names, n > 0 ? (size_t)n : 0);
}

/* Issue 33: a RayJob called mnist.tfjob, made in the same second as a TFJob and a
 * PyTorchJob called mnist, gave two entries mnist.tfjob (an abort on the assert of
 * the listing's order), and jobs/mnist.tfjob stood for the RayJob. */
TEST(fs_naming_a_dotted_name_ending_in_a_type_never_takes_another_jobs_name)
{
	struct job *tf = fx_job(JOB_TFJOB, "mnist", FX_T0);
	struct job *pt = fx_job(JOB_PYTORCHJOB, "mnist", FX_T0);
	struct job *ray = fx_job(JOB_RAYJOB, "mnist.tfjob", FX_T0);
	struct job *spark = fx_job(JOB_SPARKJOB, "mnist.tfjob.rayjob", FX_T0);
	struct jobset s = {{tf, pt, ray, spark}, 4};
	struct fs_job_name *names;

	CHECK_INT_EQ(naming_list_jobs(s.jobs, 4, &names), 4);
	CHECK_STR_EQ(names[0].display, "mnist.pytorchjob");
	CHECK_STR_EQ(names[1].display, "mnist.tfjob");
	CHECK(names[1].job == tf);
	CHECK_STR_EQ(names[2].display, "mnist.tfjob.rayjob");
	CHECK(names[2].job == ray);
	CHECK_STR_EQ(names[3].display, "mnist.tfjob.rayjob.sparkjob");
	CHECK(names[3].job == spark);
	naming_free(names, 4);
	CHECK(naming_find_job("mnist.tfjob", find_in_set, &s) == tf);
	CHECK(naming_find_job("mnist.tfjob.rayjob", find_in_set, &s) == ray);
	CHECK(naming_find_job("mnist.tfjob.rayjob.sparkjob", find_in_set, &s) == spark);
	CHECK(naming_find_job("mnist", find_in_set, &s) == NULL);
	check_listing_agrees(&s, 4);
	/* alone, the RayJob keeps its kind: mnist.tfjob never stands for it */
	s.jobs[0] = ray;
	s.n = 1;
	check_listing_agrees(&s, 1);
	CHECK(naming_find_job("mnist.tfjob", find_in_set, &s) == NULL);
	CHECK(naming_find_job("mnist.tfjob.rayjob", find_in_set, &s) == ray);
	free_jobs((struct job *[]){tf, pt, ray, spark}, 4);
}

TEST(fs_naming_a_dotted_name_ending_in_no_type_stands_as_it_is)
{
	struct job *ray = fx_job(JOB_RAYJOB, "v1.2", FX_T0);
	struct job *spark = fx_job(JOB_SPARKJOB, "etl.nightly", FX_T0);
	struct job *vc = fx_job(JOB_VOLCANOJOB, "etl.nightly", FX_T0 - 1);
	struct jobset s = {{ray, spark, vc}, 3};

	CHECK(naming_find_job("v1.2", find_in_set, &s) == ray);
	CHECK(naming_find_job("v1.2.rayjob", find_in_set, &s) == NULL);
	CHECK(naming_find_job("etl.nightly", find_in_set, &s) == NULL);
	CHECK(naming_find_job("etl.nightly.sparkjob", find_in_set, &s) == spark);
	CHECK(naming_find_job("etl.nightly.volcanojob", find_in_set, &s) == vc);
	check_listing_agrees(&s, 3);
	free_jobs((struct job *[]){ray, spark, vc}, 3);
}

/* A name of every shape, held by every kind, in one second: unique names, each
 * found again as its job. */
TEST(fs_naming_names_stay_unique_whatever_the_jobs_are_called)
{
	static const char *const NAMES[] = {"a", "a.tfjob", "a.pytorchjob", "a.tfjob.tfjob"};
	static const enum job_kind KINDS[] = {JOB_TFJOB, JOB_PYTORCHJOB, JOB_RAYJOB, JOB_SPARKJOB};
	struct job *jobs[16];
	struct jobset s = {{0}, 0};

	for (size_t i = 0; i < 4; i++)
		for (size_t k = 0; k < 4; k++) {
			jobs[s.n] = fx_job(KINDS[k], NAMES[i], FX_T0);
			s.jobs[s.n] = jobs[s.n];
			s.n++;
		}
	check_listing_agrees(&s, 16);
	free_jobs(jobs, s.n);
}

/* Both MPIJob versions answer "mpijob": should both hold a name, one entry, the
 * one the lookup finds. */
TEST(fs_naming_two_kinds_of_one_type_list_once)
{
	struct job *v1 = fx_job(JOB_MPIJOB, "hvd", FX_T0);
	struct job *v2 = fx_job(JOB_MPIJOB_V2, "hvd", FX_T0);
	struct jobset s = {{v1, v2}, 2};

	check_listing_agrees(&s, 1);
	CHECK(naming_find_job("hvd.mpijob", find_in_set, &s) == v1);
	free_jobs((struct job *[]){v1, v2}, 2);
}

/* Issue 33: jobs/ listed names of 257 and 259 bytes. A name of 253 (the longest a
 * RayJob may have) is listed as it stands; suffixed, it would pass 255: not listed. */
TEST(fs_naming_a_name_longer_than_a_file_name_is_not_listed)
{
	char name[254], longest[256];
	struct job *ray, *spark, *tf;
	struct jobset s;

	memset(name, 'r', 253);
	name[253] = '\0';
	ray = fx_job(JOB_RAYJOB, name, FX_T0);
	spark = fx_job(JOB_SPARKJOB, name, FX_T0);
	/* 244 + ".tfjob" (6) = 250 bytes; 249 + 6 = 255, the longest listed */
	memset(longest, 'a', 249);
	longest[249] = '\0';
	tf = fx_job(JOB_TFJOB, longest, FX_T0);
	s = (struct jobset){{ray}, 1};
	check_listing_agrees(&s, 1);
	CHECK(naming_find_job(name, find_in_set, &s) == ray);
	s = (struct jobset){{ray, spark}, 2};
	check_listing_agrees(&s, 0);
	CHECK(naming_find_job(name, find_in_set, &s) == NULL);
	s = (struct jobset){{tf, fx_job(JOB_PYTORCHJOB, longest, FX_T0)}, 2};
	check_listing_agrees(&s, 1); /* longest.tfjob is 255 bytes, .pytorchjob 260 */
	strcat(longest, ".tfjob");
	CHECK(naming_find_job(longest, find_in_set, &s) == tf);
	free_jobs((struct job *[]){(struct job *)s.jobs[1], ray, spark, tf}, 4);
}
