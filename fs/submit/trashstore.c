/*
 * The trash's contents (trashstore.h): one list of items, oldest first, each an
 * entry of files/ or a file of info/. A few hundred at most (the bounds), so a
 * scan is cheaper than any index. Knows no FUSE and no cluster.
 *
 * Called by trash.c and model.c; its mutex is a leaf. Tested by
 * tests/unit/test_fs_trashstore.c.
 */
#include "fs/submit/trashstore.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "k8s/base/say.h"

struct item {
	struct item *next;
	enum trash_dir dir;
	uint64_t id;
	char *name;
	char *data;              /* info: the file's bytes; an entry: its kept spec */
	size_t len;
	int64_t mtime;
	struct trash_job job;    /* entries */
	char *error;             /* entries: the last failed restore's words, or NULL */
	struct timespec listed;  /* entries: when what the folder lists last changed */
};

struct trashstore {
	pthread_mutex_t lock;
	struct item *items;      /* guarded by lock, oldest first */
	uint64_t next_id;        /* guarded by lock */
	size_t n_entries, n_info, spec_bytes; /* guarded by lock */
	bool made;               /* guarded by lock */
	int64_t made_at;         /* guarded by lock */
	/* When each folder's names last changed (guarded by lock): its st_mtime, which
	 * the kernel compares, to the nanosecond, before it serves a listing it keeps */
	struct timespec listed[2];
};

/* dir's names changed now. Under t->lock. */
static void touch(struct trashstore *t, enum trash_dir dir)
{
	clock_gettime(CLOCK_REALTIME, &t->listed[dir]);
}

int trashstore_new(struct trashstore **out)
{
	struct trashstore *t = calloc(1, sizeof(*t));

	*out = t;
	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	t->next_id = 1;
	return 0;
}

static void item_free(struct item *it)
{
	if (!it)
		return;
	free(it->name);
	free(it->data);
	free(it->error);
	free(it);
}

void trashstore_free(struct trashstore *t)
{
	if (!t)
		return;
	while (t->items) {
		struct item *it = t->items;

		t->items = it->next;
		item_free(it);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void trashstore_listed(struct trashstore *t, enum trash_dir dir, struct timespec *when)
{
	pthread_mutex_lock(&t->lock);
	*when = t->listed[dir];
	pthread_mutex_unlock(&t->lock);
}

bool trashstore_made(struct trashstore *t, int64_t *since)
{
	bool made;

	pthread_mutex_lock(&t->lock);
	made = t->made;
	if (since)
		*since = t->made_at;
	pthread_mutex_unlock(&t->lock);
	return made;
}

int trashstore_make(struct trashstore *t, int64_t now)
{
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	if (t->made) {
		ret = -EEXIST;
	} else {
		t->made = true;
		t->made_at = now;
		touch(t, TRASH_FILES);
		touch(t, TRASH_INFO);
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trashstore_unmake(struct trashstore *t)
{
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	if (!t->made)
		ret = -ENOENT;
	else if (t->items)
		ret = -ENOTEMPTY;
	else
		t->made = false;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* Under t->lock. */
static struct item *find(struct trashstore *t, enum trash_dir dir, const char *name)
{
	for (struct item *it = t->items; it; it = it->next)
		if (it->dir == dir && strcmp(it->name, name) == 0)
			return it;
	return NULL;
}

static struct item *find_id(struct trashstore *t, enum trash_dir dir, uint64_t id)
{
	for (struct item *it = t->items; it; it = it->next)
		if (it->dir == dir && it->id == id)
			return it;
	return NULL;
}

static void stat_of(const struct item *it, struct trash_stat *st)
{
	st->id = it->id;
	st->size = it->len;
	st->error_len = it->error ? strlen(it->error) : 0;
	st->mtime = it->mtime;
	st->listed = it->listed;
}

/* Takes it off the list and frees it. Under t->lock. */
static void drop(struct trashstore *t, struct item *it)
{
	for (struct item **p = &t->items; *p; p = &(*p)->next)
		if (*p == it) {
			*p = it->next;
			break;
		}
	if (it->dir == TRASH_FILES) {
		t->n_entries--;
		t->spec_bytes -= it->len;
	} else {
		t->n_info--;
	}
	touch(t, it->dir);
	item_free(it);
}

static struct item *item_new(struct trashstore *t, enum trash_dir dir, const char *name,
			     int64_t now)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it || !(it->name = strdup(name))) {
		free(it);
		return NULL;
	}
	it->dir = dir;
	it->mtime = now;
	it->id = t->next_id++;
	clock_gettime(CLOCK_REALTIME, &it->listed);
	return it;
}

/* Appends it: the newest. Under t->lock. */
static void append(struct trashstore *t, struct item *it)
{
	struct item **p = &t->items;

	while (*p)
		p = &(*p)->next;
	*p = it;
	if (it->dir == TRASH_FILES) {
		t->n_entries++;
		t->spec_bytes += it->len;
	} else {
		t->n_info++;
	}
	touch(t, it->dir);
}

int trashstore_lookup(struct trashstore *t, enum trash_dir dir, const char *name,
		      struct trash_stat *st)
{
	struct item *it;

	pthread_mutex_lock(&t->lock);
	it = find(t, dir, name);
	if (it)
		stat_of(it, st);
	pthread_mutex_unlock(&t->lock);
	return it ? 0 : -ENOENT;
}

int trashstore_stat(struct trashstore *t, enum trash_dir dir, uint64_t id, struct trash_stat *st)
{
	struct item *it;

	pthread_mutex_lock(&t->lock);
	it = find_id(t, dir, id);
	if (it)
		stat_of(it, st);
	pthread_mutex_unlock(&t->lock);
	return it ? 0 : -ENOENT;
}

void trashstore_list_free(char **names, uint64_t *ids, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(ids);
}

int trashstore_list(struct trashstore *t, enum trash_dir dir, char ***names, uint64_t **ids,
		    size_t *n)
{
	size_t count, k = 0;
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	count = dir == TRASH_FILES ? t->n_entries : t->n_info;
	*names = calloc(count ? count : 1, sizeof(**names));
	*ids = calloc(count ? count : 1, sizeof(**ids));
	if (!*names || !*ids)
		ret = -ENOMEM;
	for (struct item *it = t->items; it && !ret; it = it->next) {
		if (it->dir != dir)
			continue;
		(*ids)[k] = it->id;
		if (!((*names)[k++] = strdup(it->name)))
			ret = -ENOMEM;
	}
	pthread_mutex_unlock(&t->lock);
	*n = k;
	if (ret) {
		trashstore_list_free(*names, *ids, k);
		*names = NULL;
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

long trashstore_read(struct trashstore *t, enum trash_dir dir, uint64_t id, bool error,
		     char *buf, size_t size, uint64_t off)
{
	struct item *it;
	long n = -ENOENT;

	pthread_mutex_lock(&t->lock);
	it = find_id(t, dir, id);
	if (it) {
		const char *data = error ? it->error : it->data;
		size_t len = error ? (it->error ? strlen(it->error) : 0) : it->len;

		n = 0;
		if (off < len) {
			n = (long)(len - off < size ? len - off : size);
			memcpy(buf, data + off, (size_t)n);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* ---- info/ ---- */

/* A new info file name holding len bytes of text (NULL: empty). Under t->lock. */
static int info_add(struct trashstore *t, const char *name, const char *text, size_t len,
		    int64_t now, uint64_t *id)
{
	struct item *it;

	if (find(t, TRASH_INFO, name))
		return -EEXIST;
	if (t->n_info >= TRASH_INFO_FILES_MAX)
		return -ENOSPC;
	it = item_new(t, TRASH_INFO, name, now);
	if (!it || (len && !(it->data = malloc(len)))) {
		item_free(it);
		return -ENOMEM;
	}
	if (len)
		memcpy(it->data, text, len);
	it->len = len;
	append(t, it);
	if (id)
		*id = it->id;
	return 0;
}

int trashstore_info_create(struct trashstore *t, const char *name, int64_t now, uint64_t *id)
{
	int ret;

	pthread_mutex_lock(&t->lock);
	ret = info_add(t, name, NULL, 0, now, id);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* Makes it->data size bytes long, new bytes zero. Under t->lock. */
static int resize(struct item *it, uint64_t size)
{
	char *d;

	if (size > TRASH_INFO_SIZE_MAX)
		return -EFBIG;
	if (size <= it->len) {
		it->len = (size_t)size;
		return 0;
	}
	d = realloc(it->data, (size_t)size);
	if (!d)
		return -ENOMEM;
	memset(d + it->len, 0, (size_t)size - it->len);
	it->data = d;
	it->len = (size_t)size;
	return 0;
}

long trashstore_info_write(struct trashstore *t, uint64_t id, const char *buf, size_t len,
			   uint64_t off, int64_t now)
{
	struct item *it;
	long ret = -ENOENT;

	pthread_mutex_lock(&t->lock);
	it = find_id(t, TRASH_INFO, id);
	if (it && (off > TRASH_INFO_SIZE_MAX || len > TRASH_INFO_SIZE_MAX - off))
		ret = -EFBIG;
	else if (it && off + len > it->len)
		ret = resize(it, off + len);
	else if (it)
		ret = 0;
	if (ret == 0) {
		memcpy(it->data + off, buf, len);
		it->mtime = now;
		ret = (long)len;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trashstore_info_truncate(struct trashstore *t, uint64_t id, uint64_t size, int64_t now)
{
	struct item *it;
	int ret = -ENOENT;

	pthread_mutex_lock(&t->lock);
	it = find_id(t, TRASH_INFO, id);
	if (it) {
		ret = resize(it, size);
		if (!ret)
			it->mtime = now;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trashstore_info_rename(struct trashstore *t, const char *name, const char *newname,
			   bool noreplace)
{
	struct item *it, *there;
	char *copy;
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	it = find(t, TRASH_INFO, name);
	there = find(t, TRASH_INFO, newname);
	if (!it)
		ret = -ENOENT;
	else if (it == there)
		ret = 0; /* rename to itself: nothing to do */
	else if (there && noreplace)
		ret = -EEXIST;
	else if (!(copy = strdup(newname)))
		ret = -ENOMEM;
	else {
		if (there)
			drop(t, there);
		free(it->name);
		it->name = copy;
		touch(t, TRASH_INFO);
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trashstore_info_unlink(struct trashstore *t, const char *name)
{
	struct item *it;

	pthread_mutex_lock(&t->lock);
	it = find(t, TRASH_INFO, name);
	if (it)
		drop(t, it);
	pthread_mutex_unlock(&t->lock);
	return it ? 0 : -ENOENT;
}

/* ---- files/ ---- */

/* name + ".trashinfo" into buf; false when it does not fit. */
static bool info_name(const char *name, char *buf, size_t size)
{
	return (size_t)snprintf(buf, size, "%s%s", name, TRASH_INFO_SUFFIX) < size;
}

/* Drops the entry it and its info file. Under t->lock. */
static void forget(struct trashstore *t, struct item *it)
{
	char info[512];
	struct item *in = NULL;

	if (info_name(it->name, info, sizeof(info)))
		in = find(t, TRASH_INFO, info);
	if (in)
		drop(t, in);
	drop(t, it);
}

/* Drops the oldest entries until one of len bytes fits. Under t->lock. */
static void make_room(struct trashstore *t, size_t len)
{
	while (t->n_entries >= TRASH_ENTRIES_MAX || t->spec_bytes + len > TRASH_SPECS_MAX) {
		struct item *oldest = t->items;

		while (oldest && oldest->dir != TRASH_FILES)
			oldest = oldest->next;
		if (!oldest)
			return;
		say(LOG_INFO, "trash: the oldest deleted job kept, %s (%s/%s), is forgotten to "
		    "make room (at most %d jobs, %u bytes of specs)", oldest->name,
		    oldest->job.ns, oldest->job.name, TRASH_ENTRIES_MAX, TRASH_SPECS_MAX);
		forget(t, oldest);
	}
}

int trashstore_entry_add(struct trashstore *t, const char *name, const struct trash_job *job,
			 const char *spec, size_t len, const char *info, int64_t now)
{
	struct item *it;
	char iname[512];
	bool need_info;
	int ret = 0;

	if (len > TRASH_SPECS_MAX)
		return -EFBIG;
	if (!info_name(name, iname, sizeof(iname)))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&t->lock);
	if (find(t, TRASH_FILES, name)) {
		ret = -EEXIST;
		goto out;
	}
	it = item_new(t, TRASH_FILES, name, now);
	if (!it || (len && !(it->data = malloc(len)))) {
		item_free(it);
		ret = -ENOMEM;
		goto out;
	}
	if (len)
		memcpy(it->data, spec, len);
	it->len = len;
	it->job = *job;
	need_info = !find(t, TRASH_INFO, iname);
	if (need_info && (ret = info_add(t, iname, info, strlen(info), now, NULL)) < 0) {
		item_free(it);
		goto out;
	}
	make_room(t, len);
	append(t, it);
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trashstore_entry_get(struct trashstore *t, const char *name, struct trash_job *job,
			 char **spec, size_t *len)
{
	struct item *it;
	int ret = -ENOENT;

	*spec = NULL;
	*len = 0;
	pthread_mutex_lock(&t->lock);
	it = find(t, TRASH_FILES, name);
	if (it) {
		ret = 0;
		*job = it->job;
		*spec = malloc(it->len + 1);
		if (!*spec) {
			ret = -ENOMEM;
		} else {
			memcpy(*spec, it->data, it->len);
			(*spec)[it->len] = '\0';
			*len = it->len;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

void trashstore_entry_failed(struct trashstore *t, const char *name, const char *why)
{
	struct item *it;
	size_t n = strlen(why);
	char *copy = malloc(n + 2);

	if (!copy)
		return; /* the log has said it too */
	memcpy(copy, why, n);
	copy[n] = '\n';
	copy[n + 1] = '\0';
	pthread_mutex_lock(&t->lock);
	it = find(t, TRASH_FILES, name);
	if (it) {
		free(it->error);
		it->error = copy;
		copy = NULL;
		clock_gettime(CLOCK_REALTIME, &it->listed); /* error appears in it */
	}
	pthread_mutex_unlock(&t->lock);
	free(copy);
}

int trashstore_entry_forget(struct trashstore *t, const char *name)
{
	struct item *it;

	pthread_mutex_lock(&t->lock);
	it = find(t, TRASH_FILES, name);
	if (it)
		forget(t, it);
	pthread_mutex_unlock(&t->lock);
	return it ? 0 : -ENOENT;
}
