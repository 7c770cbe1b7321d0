/*
 * The staging tree behind each submit/ directory: submit/ for the mount's
 * namespace, namespaces/NS/submit/ for namespace NS. One tree (staging.h) per
 * namespace, so that an entry's outcome lands in the submit/ it was copied into
 * and a job is created where its directory says; the limits of staging.h hold
 * per tree.
 *
 * A tree is made at the first write into its submit/ (fs/submit/submit.c answers an
 * empty directory until then), so that `find` or `ls -R` walking every
 * namespace leaves nothing behind, and lives until the unmount: inodes of the
 * kernel name its nodes by id, and ids restart in a new tree.
 */
#include "fs/submit/areas.h"
#include "fs/submit/staging.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct area {
	char *ns;
	struct staging *st;
	struct area *next;
};

struct submit_areas {
	pthread_mutex_t lock;
	struct area *list;           /* guarded by lock; a handful: the namespaces written to */
};

int areas_new(struct submit_areas **out)
{
	struct submit_areas *a = calloc(1, sizeof(*a));

	*out = a;
	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	return 0;
}

void areas_free(struct submit_areas *a)
{
	if (!a)
		return;
	while (a->list) {
		struct area *next = a->list->next;

		staging_free(a->list->st);
		free(a->list->ns);
		free(a->list);
		a->list = next;
	}
	pthread_mutex_destroy(&a->lock);
	free(a);
}

struct staging *areas_get(struct submit_areas *a, const char *ns, bool create)
{
	struct area *ar;
	struct staging *st = NULL;

	pthread_mutex_lock(&a->lock);
	for (ar = a->list; ar && strcmp(ar->ns, ns) != 0; ar = ar->next)
		;
	if (ar) {
		st = ar->st;
	} else if (create && (ar = calloc(1, sizeof(*ar)))) {
		if ((ar->ns = strdup(ns)) && staging_new(&ar->st) == 0) {
			ar->next = a->list;
			a->list = ar;
			st = ar->st;
		} else {
			free(ar->ns);
			free(ar);
		}
	}
	pthread_mutex_unlock(&a->lock);
	return st;
}
