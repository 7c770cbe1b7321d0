/*
 * Job directory names and their order (naming.h): plain NAME, or NAME.TYPE when
 * several kinds hold NAME or NAME itself ends in a kind's ".TYPE"; newest first.
 *
 * Pure. Called by the path model (model.c) under the cache's read lock, which
 * keeps the job pointers valid.
 */
#include "fs/tree/naming.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/kinds.h"

/* Where name's ".TYPE" starts when it ends in one, TYPE being any kind's type (all
 * of the table, served or not, so that a name's meaning never depends on what
 * the cluster serves); else NULL. */
static const char *type_suffix(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (!dot)
		return NULL;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (strcmp(dot + 1, kinds_info(k)->type) == 0)
			return dot;
	return NULL;
}

char *naming_display(const struct job *job, size_t holders)
{
	const struct job_kind_info *ki = kinds_info(job->kind);
	char *s = NULL;

	if (!ki || (holders <= 1 && !type_suffix(job->meta.name)))
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

/* Does an earlier job of the run (same name, kinds ascending) have job's type? Only
 * MPIJob's two versions share one, and discovery serves one of them; should both
 * come, the first kind is the one listed, as naming_find_job finds it. */
static bool type_taken(const struct job *const *run, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (strcmp(kinds_info(run[i]->kind)->type, kinds_info(run[k]->kind)->type) == 0)
			return true;
	return false;
}

int naming_list_jobs(const struct job *const *jobs, size_t n, struct fs_job_name **out)
{
	const struct job **sorted = NULL;
	struct fs_job_name *names = NULL;
	size_t kept = 0;
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
		for (size_t k = 0; k < run; k++) {
			char *display;

			if (type_taken(sorted + i, k))
				continue;
			display = naming_display(sorted[i + k], run);
			if (!display)
				goto out;
			if (strlen(display) > NAMING_NAME_MAX) { /* no file may have it */
				free(display);
				continue;
			}
			names[kept].job = sorted[i + k];
			names[kept++].display = display;
		}
	}
	if (kept > 1)
		qsort(names, kept, sizeof(*names), by_listing_order);
	/* plain names end in no ".TYPE", suffixed ones do and are unique per kind and
	 * name: no two display names are equal, whatever the jobs are called */
	for (size_t i = 1; i < kept; i++)
		assert(by_listing_order(&names[i - 1], &names[i]) < 0);
	*out = names;
	names = NULL;
	ret = (int)kept;
out:
	if (names)
		naming_free(names, kept);
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

/* How many kinds hold name; *only is set to the job when exactly one does. */
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
	const char *suffix;
	const struct job *job;
	char base[NAMING_NAME_MAX + 1];
	size_t len = strlen(display);

	if (len == 0 || len > NAMING_NAME_MAX)
		return NULL;
	suffix = type_suffix(display);
	if (!suffix) /* a plain name: the one job of that name */
		return holders_of(display, find, arg, &job) == 1 ? job : NULL;
	len = (size_t)(suffix - display);
	if (len == 0)
		return NULL;
	memcpy(base, display, len);
	base[len] = '\0';
	/* NAME.TYPE exists only while several kinds hold NAME, or NAME ends in a type */
	if (!type_suffix(base) && holders_of(base, find, arg, &job) < 2)
		return NULL;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (strcmp(kinds_info(k)->type, suffix + 1) == 0 && (job = find(arg, k, base)))
			return job;
	return NULL;
}
