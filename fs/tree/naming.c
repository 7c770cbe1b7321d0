/*
 * Job directory names and their order (naming.h): plain NAME for a name one kind
 * holds, NAME.TYPE for each kind when several hold it; newest first.
 *
 * Pure. Called by the path model (model.c) under the cache's read lock, which
 * keeps the job pointers valid.
 */
#include "fs/tree/naming.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/kinds.h"

char *naming_display(const struct job *job, size_t holders)
{
	const struct job_kind_info *ki = kinds_info(job->kind);
	char *s = NULL;

	if (holders <= 1 || !ki)
		return strdup(job->meta.name);
	if (asprintf(&s, "%s.%s", job->meta.name, ki->type) < 0)
		return NULL;
	return s;
}

static int by_job_name(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	int c = strcmp(x->meta.name, y->meta.name);

	return c ? c : (int)x->kind - (int)y->kind;
}

/* Newest first, then by directory name (as arena list). */
static int by_listing_order(const void *a, const void *b)
{
	const struct fs_job_name *x = a, *y = b;

	if (x->job->meta.created != y->job->meta.created)
		return x->job->meta.created > y->job->meta.created ? -1 : 1;
	return strcmp(x->display, y->display);
}

int naming_list_jobs(const struct job *const *jobs, size_t n, struct fs_job_name **out)
{
	const struct job **sorted = NULL;
	struct fs_job_name *names = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	if (n == 0)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	names = calloc(n, sizeof(*names));
	if (!sorted || !names)
		goto out;
	memcpy(sorted, jobs, n * sizeof(*sorted));
	/* Equal names sit together once sorted by name: count each run's kinds. */
	qsort(sorted, n, sizeof(*sorted), by_job_name);
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n; run++)
			if (strcmp(sorted[i]->meta.name, sorted[i + run]->meta.name) != 0)
				break;
		for (size_t k = i; k < i + run; k++) {
			names[k].job = sorted[k];
			names[k].display = naming_display(sorted[k], run);
			if (!names[k].display)
				goto out;
		}
	}
	qsort(names, n, sizeof(*names), by_listing_order);
	for (size_t i = 1; i < n; i++)      /* one path per job: no two equal */
		assert(by_listing_order(&names[i - 1], &names[i]) < 0);
	*out = names;
	names = NULL;
	ret = 0;
out:
	if (names)
		naming_free(names, n);
	free(sorted);
	return ret;
}

void naming_free(struct fs_job_name *names, size_t n)
{
	if (!names)
		return;
	for (size_t i = 0; i < n; i++)
		free(names[i].display);
	free(names);
}

/* The kinds holding name; *only is set to the job when exactly one does. */
static size_t holders_of(const char *name, naming_find_fn find, void *arg, const struct job **only)
{
	size_t holders = 0;

	*only = NULL;
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job *j = find(arg, k, name);

		if (j) {
			holders++;
			*only = j;
		}
	}
	if (holders != 1)
		*only = NULL;
	return holders;
}

const struct job *naming_find_job(const char *display, naming_find_fn find, void *arg)
{
	const struct job *job;
	const char *dot;
	char base[256];
	size_t len;

	if (holders_of(display, find, arg, &job) == 1)
		return job;
	dot = strrchr(display, '.');
	if (!dot || dot == display)
		return NULL;
	len = (size_t)(dot - display);
	if (len >= sizeof(base))
		return NULL;
	memcpy(base, display, len);
	base[len] = '\0';
	/* NAME.TYPE exists only while several kinds hold NAME: one path per job. */
	if (holders_of(base, find, arg, &job) < 2)
		return NULL;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (strcmp(kinds_info(k)->type, dot + 1) == 0 && (job = find(arg, k, base)))
			return job;
	return NULL;
}
