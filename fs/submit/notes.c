/*
 * The notes of jobs (notes.h): an array, oldest first, looked through by uid. It
 * holds a few dozen at most in practice (jobs whose delete or suspend went wrong),
 * so a scan is cheaper than any index. Each reason is a copy, freed with its note.
 *
 * Called by deletes.c and suspend.c; its mutex is a leaf (notes.h). Tested by
 * tests/unit/test_fs_notes.c.
 */
#include "fs/submit/notes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct note_entry {
	char uid[NOTES_UID_MAX];
	int64_t asked, ended;
	int arg;
	char *reason;
};

struct notes {
	pthread_mutex_t lock;
	struct note_entry *e; /* guarded by lock, oldest first */
	size_t n, cap, max;
};

int notes_new(size_t max, struct notes **out)
{
	struct notes *t = calloc(1, sizeof(*t));

	*out = t;
	if (!t)
		return -ENOMEM;
	t->max = max;
	pthread_mutex_init(&t->lock, NULL);
	return 0;
}

void notes_free(struct notes *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].reason);
	free(t->e);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Under t->lock: takes out entry i, keeping the order. */
static void drop_locked(struct notes *t, size_t i)
{
	free(t->e[i].reason);
	memmove(&t->e[i], &t->e[i + 1], (t->n - i - 1) * sizeof(t->e[0]));
	t->n--;
}

/* Under t->lock: the index of uid's note, or t->n when it has none. */
static size_t find_locked(struct notes *t, const char *uid)
{
	size_t i = 0;

	while (i < t->n && strcmp(t->e[i].uid, uid) != 0)
		i++;
	return i;
}

/* Under t->lock: room for one more at the end, or -ENOMEM. */
static int room_locked(struct notes *t)
{
	if (t->max && t->n == t->max)
		drop_locked(t, 0);
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct note_entry *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->e = e;
		t->cap = cap;
	}
	return 0;
}

int notes_put(struct notes *t, const char *uid, const struct note *note)
{
	char *reason;
	size_t i;
	int ret;

	if (!uid || !*uid || strlen(uid) >= NOTES_UID_MAX)
		return -EINVAL;
	reason = strdup(note->reason ? note->reason : "");
	if (!reason)
		return -ENOMEM;
	pthread_mutex_lock(&t->lock);
	i = find_locked(t, uid);
	/* the new one replaces the old, and counts as the newest */
	if (i < t->n)
		drop_locked(t, i);
	ret = room_locked(t);
	if (ret == 0) {
		struct note_entry *e = &t->e[t->n++];

		snprintf(e->uid, sizeof(e->uid), "%s", uid);
		e->asked = note->asked;
		e->ended = note->ended;
		e->arg = note->arg;
		e->reason = reason;
		reason = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	free(reason);
	return ret;
}

void notes_forget(struct notes *t, const char *uid)
{
	size_t i;

	if (!uid)
		return;
	pthread_mutex_lock(&t->lock);
	i = find_locked(t, uid);
	if (i < t->n)
		drop_locked(t, i);
	pthread_mutex_unlock(&t->lock);
}

void notes_prune(struct notes *t, int64_t before)
{
	size_t i = 0;

	pthread_mutex_lock(&t->lock);
	while (i < t->n)
		if (t->e[i].ended && t->e[i].ended < before)
			drop_locked(t, i);
		else
			i++;
	pthread_mutex_unlock(&t->lock);
}

int notes_get(struct notes *t, const char *uid, struct note *note, char *buf, size_t size)
{
	size_t i;
	int ret = 0;

	if (!uid || !size)
		return 0;
	pthread_mutex_lock(&t->lock);
	i = find_locked(t, uid);
	if (i < t->n) {
		note->asked = t->e[i].asked;
		note->ended = t->e[i].ended;
		note->arg = t->e[i].arg;
		snprintf(buf, size, "%s", t->e[i].reason);
		note->reason = buf;
		ret = 1;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}
