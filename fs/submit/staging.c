/*
 * The staging tree of submit/ (staging.h): nodes in a hash by id, each directory's
 * children in a list sorted by name (a stable listing order), file bytes in one
 * growing buffer per file, and the accounting that keeps it all small.
 *
 * Pure bookkeeping under one mutex; called by fs/submit/submit.c and submit_defer.c.
 * The mutex's condition st->idle wakes writers waiting for a busy entry (staging.h);
 * nothing else waits under it.
 */
#include "fs/submit/staging.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "k8s/base/strbuf.h"
#include "k8s/base/textsafe.h"
#include "k8s/base/timefmt.h"

#define STAGING_BUCKETS  1024
#define STAGING_NAME_MAX 255

struct snode {
	uint64_t id;
	char *name;
	struct snode *parent;   /* NULL for the root and for unlinked nodes */
	struct snode *children; /* directories: sorted by name */
	struct snode *sibling;
	struct snode *hash_next;
	bool dir;
	bool generated;
	bool reserved; /* arenafs' own (status, error, an outcome's directory): not counted */
	bool dirty; /* written since its text was last taken */
	int lost;   /* errno of a write that failed since it was last emptied: bytes are
	             * missing, so it must never be submitted (a cut spec is another job) */
	mode_t mode;
	char *data;
	size_t len, cap;
	unsigned opens;
	unsigned wopens;   /* of them, open for writing with writes not yet flushed: close(2)
	                    * flushes at once, but FUSE's release comes later, on its own */
	uint64_t whole_by; /* the handle that wrote its text whole, 0: none (staging.h) */
	bool clash;        /* since it was last emptied, a second handle wrote into a text
	                    * another was writing whole: it may mix both */
	enum staging_outcome outcome; /* top-level directories */
	int64_t changed_ms;           /* top-level: when anything below last changed */
	size_t code_wanted;           /* top-level: the code size a refused write wanted */
	char *copy_failure;           /* top-level: the first thing this copy failed to make */
	unsigned copy_failures;       /* top-level: how many, in this copy */
	struct staging_job job;       /* top-level directories: what SUBMITTED made */
	struct staging_writer *writers; /* top-level: who wrote in this copy */
	size_t n_writers;
	struct timespec atime, mtime, ctime;
};

/* One open(2) of a file: what the handle may do and did. */
struct sopen {
	uint64_t handle;
	uint64_t id; /* the file */
	bool writable, append, wrote;
	bool pending; /* open for writing, not flushed since it opened or last wrote */
	struct sopen *next;
};

/* An entry whose spec is being submitted. */
struct busy {
	char *entry;
	struct busy *next;
};

struct staging {
	pthread_mutex_t lock;
	pthread_cond_t idle; /* an entry stopped being busy */
	struct sopen *opens;
	uint64_t next_handle;
	struct busy *busy;
	struct snode *buckets[STAGING_BUCKETS];
	struct snode *root;
	uint64_t next_id;
	size_t nodes; /* the user's, against STAGING_NODES_MAX; reserved ones are not counted */
	size_t bytes;
};

static const char *const OUTCOME_TEXT[] = {
    [STAGING_NONE] = "",
    [STAGING_SUBMITTING] = "submitting\n",
    [STAGING_SUBMITTED] = "submitted\n",
    [STAGING_FAILED] = "failed\n",
    [STAGING_DELETED] = "deleted\n",
    [STAGING_CHECKED] = "checked\n",
    [STAGING_STAGED] = "staged\n",
};

static struct timespec now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

/* The top-level entry n is in (n itself when top-level), or NULL (root, unlinked). */
static struct snode *entry_of(struct snode *n)
{
	while (n && n->parent && n->parent->parent)
		n = n->parent;
	return n && n->parent ? n : NULL;
}

static void forget_copy_failure(struct snode *e)
{
	free(e->copy_failure);
	e->copy_failure = NULL;
	e->copy_failures = 0;
	free(e->writers);
	e->writers = NULL;
	e->n_writers = 0;
}

/* Something below n's entry changed: a copy into it is still under way. A change
 * after a pause is another copy, which owes nothing to what the last one failed. */
static void touch_entry(struct snode *n)
{
	struct snode *e = entry_of(n);
	int64_t now_ms = time_monotonic_ms();

	if (!e)
		return;
	if (now_ms - e->changed_ms >= STAGING_QUIET_MS)
		forget_copy_failure(e);
	e->changed_ms = now_ms;
}

static struct snode *find(struct staging *st, uint64_t id)
{
	struct snode *n = st->buckets[id % STAGING_BUCKETS];

	while (n && n->id != id)
		n = n->hash_next;
	return n;
}

static void hash_remove(struct staging *st, struct snode *n)
{
	struct snode **p = &st->buckets[n->id % STAGING_BUCKETS];

	while (*p && *p != n)
		p = &(*p)->hash_next;
	if (*p)
		*p = n->hash_next;
}

static struct snode *child(const struct snode *dir, const char *name)
{
	for (struct snode *c = dir->children; c; c = c->sibling)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static void link_child(struct snode *dir, struct snode *n)
{
	struct snode **p = &dir->children;

	while (*p && strcmp((*p)->name, n->name) < 0)
		p = &(*p)->sibling;
	n->sibling = *p;
	*p = n;
	n->parent = dir;
	dir->mtime = dir->ctime = now();
	touch_entry(n);
}

static void unlink_child(struct snode *n)
{
	struct snode **p;

	if (!n->parent)
		return;
	touch_entry(n->parent);
	for (p = &n->parent->children; *p && *p != n; p = &(*p)->sibling)
		;
	if (*p)
		*p = n->sibling;
	n->parent->mtime = n->parent->ctime = now();
	n->parent = NULL;
	n->sibling = NULL;
}

void staging_job_clear(struct staging_job *job)
{
	free(job->ns);
	free(job->name);
	free(job->uid);
	memset(job, 0, sizeof(*job));
}

static void node_free(struct staging *st, struct snode *n)
{
	hash_remove(st, n);
	st->nodes -= !n->reserved;
	st->bytes -= n->cap;
	staging_job_clear(&n->job);
	free(n->copy_failure);
	free(n->writers);
	free(n->name);
	free(n->data);
	free(n);
}

/* Frees n when it is neither linked nor open. */
static void maybe_free(struct staging *st, struct snode *n)
{
	if (!n->parent && n->opens == 0 && n != st->root)
		node_free(st, n);
}

/* Unlinks n and everything below it (for rmdir, only generated files are left). */
static void remove_node(struct staging *st, struct snode *n)
{
	while (n->children)
		remove_node(st, n->children);
	unlink_child(n);
	maybe_free(st, n);
}

static bool is_top_level(const struct snode *n)
{
	return n->parent && n->parent->parent == NULL;
}

static bool reserved_name(const struct snode *dir, const char *name)
{
	return is_top_level(dir) &&
	       (strcmp(name, STAGING_STATUS) == 0 || strcmp(name, STAGING_ERROR) == 0);
}

static int check_name(const char *name)
{
	if (strlen(name) > STAGING_NAME_MAX)
		return -ENAMETOOLONG;
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	return 0;
}

/*
 * A new node; reserved: arenafs' own, made whatever the count, so that a submit/
 * filled to its last node still says why a submission failed. There are at most
 * three per entry (its directory, status, error) and one at the root (error), so
 * they cannot grow without the user's nodes.
 */
static struct snode *node_new(struct staging *st, const char *name, bool dir, mode_t mode,
                              bool reserved)
{
	struct snode *n;

	if (!reserved && st->nodes >= STAGING_NODES_MAX)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n || !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	n->id = st->next_id++;
	n->dir = dir;
	n->reserved = reserved;
	n->mode = mode & 07777;
	n->atime = n->mtime = n->ctime = now();
	n->hash_next = st->buckets[n->id % STAGING_BUCKETS];
	st->buckets[n->id % STAGING_BUCKETS] = n;
	st->nodes += !reserved;
	return n;
}

static void fill_attr(const struct snode *n, struct staging_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->id = n->id;
	a->dir = n->dir;
	a->generated = n->generated;
	a->mode = n->mode;
	a->size = n->dir ? 4096 : n->len;
	a->atime = n->atime;
	a->mtime = n->mtime;
	a->ctime = n->ctime;
	if (n->dir) {
		a->nlink = 2;
		for (const struct snode *c = n->children; c; c = c->sibling)
			a->nlink += c->dir;
	} else {
		a->nlink = n->parent ? 1 : 0;
	}
}

int staging_new(struct staging **out)
{
	struct staging *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->idle, NULL);
	st->next_id = STAGING_ROOT;
	st->next_handle = 1;
	st->root = node_new(st, "", true, 0755, true);
	if (!st->root) {
		pthread_cond_destroy(&st->idle);
		pthread_mutex_destroy(&st->lock);
		free(st);
		return -ENOMEM;
	}
	*out = st;
	return 0;
}

void staging_free(struct staging *st)
{
	if (!st)
		return;
	for (size_t b = 0; b < STAGING_BUCKETS; b++) {
		struct snode *n = st->buckets[b], *next;

		for (; n; n = next) {
			next = n->hash_next;
			staging_job_clear(&n->job);
			free(n->copy_failure);
			free(n->writers);
			free(n->name);
			free(n->data);
			free(n);
		}
	}
	while (st->opens) {
		struct sopen *o = st->opens;

		st->opens = o->next;
		free(o);
	}
	while (st->busy) {
		struct busy *b = st->busy;

		st->busy = b->next;
		free(b->entry);
		free(b);
	}
	pthread_cond_destroy(&st->idle);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* A linked directory by id, or the errno for why not. */
static struct snode *find_dir(struct staging *st, uint64_t id, int *err)
{
	struct snode *d = find(st, id);

	*err = 0;
	if (!d || (!d->parent && d != st->root))
		*err = -ENOENT;
	else if (!d->dir)
		*err = -ENOTDIR;
	return *err ? NULL : d;
}

/* The child name of the linked directory dir, or NULL with the errno in *err. */
static struct snode *find_child(struct staging *st, uint64_t dir, const char *name, int *err)
{
	struct snode *d = find_dir(st, dir, err), *c = NULL;

	if (d && !(c = child(d, name)))
		*err = -ENOENT;
	return c;
}

int staging_lookup(struct staging *st, uint64_t dir, const char *name, struct staging_attr *out)
{
	struct snode *c;
	int err;

	pthread_mutex_lock(&st->lock);
	c = find_child(st, dir, name, &err);
	if (c)
		fill_attr(c, out);
	pthread_mutex_unlock(&st->lock);
	return err;
}

int staging_getattr(struct staging *st, uint64_t id, struct staging_attr *out)
{
	struct snode *n;

	pthread_mutex_lock(&st->lock);
	n = find(st, id);
	if (n)
		fill_attr(n, out);
	pthread_mutex_unlock(&st->lock);
	return n ? 0 : -ENOENT;
}

void staging_list_free(struct staging_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

int staging_list(struct staging *st, uint64_t dir, struct staging_entry **out, size_t *n)
{
	struct staging_entry *e = NULL;
	struct snode *d;
	size_t count = 0, i = 0;
	int err;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&st->lock);
	d = find_dir(st, dir, &err);
	if (!d)
		goto out;
	for (struct snode *c = d->children; c; c = c->sibling)
		count++;
	e = calloc(count ? count : 1, sizeof(*e));
	if (!e) {
		err = -ENOMEM;
		goto out;
	}
	for (struct snode *c = d->children; c; c = c->sibling, i++) {
		e[i].id = c->id;
		e[i].dir = c->dir;
		if (!(e[i].name = strdup(c->name))) {
			staging_list_free(e, i);
			e = NULL;
			err = -ENOMEM;
			goto out;
		}
	}
	*out = e;
	*n = count;
out:
	pthread_mutex_unlock(&st->lock);
	return err;
}

/* The directory a new name goes into, checked: 0 or -errno. */
static int check_new(struct staging *st, uint64_t dir, const char *name, struct snode **d)
{
	int err = check_name(name);

	if (err)
		return err;
	*d = find_dir(st, dir, &err);
	if (err)
		return err;
	if (child(*d, name))
		return -EEXIST;
	if (reserved_name(*d, name))
		return -EACCES;
	return 0;
}

int staging_mkdir(struct staging *st, uint64_t dir, const char *name, mode_t mode,
                  struct staging_attr *out)
{
	struct snode *d, *n;
	int err;

	pthread_mutex_lock(&st->lock);
	err = check_new(st, dir, name, &d);
	if (!err) {
		n = node_new(st, name, true, mode, false);
		if (!n) {
			err = st->nodes >= STAGING_NODES_MAX ? -ENOSPC : -ENOMEM;
		} else {
			link_child(d, n);
			fill_attr(n, out);
		}
	}
	pthread_mutex_unlock(&st->lock);
	return err;
}

static int code_check_growth(struct staging *st, struct snode *n, size_t size);
static void staging_release_locked(struct staging *st, struct snode *n, uint64_t handle);

static int set_size(struct staging *st, struct snode *n, size_t size)
{
	int err;

	if (size > STAGING_FILE_MAX)
		return -EFBIG;
	if (size > n->len && (err = code_check_growth(st, n, size)))
		return err;
	if (size > n->cap) {
		size_t cap = n->cap ? n->cap : 4096;
		char *data;

		while (cap < size)
			cap *= 2;
		if (cap > STAGING_FILE_MAX)
			cap = STAGING_FILE_MAX;
		if (st->bytes - n->cap + cap > STAGING_BYTES_MAX)
			return -ENOSPC;
		data = realloc(n->data, cap);
		if (!data)
			return -ENOMEM;
		st->bytes = st->bytes - n->cap + cap;
		n->data = data;
		n->cap = cap;
	}
	if (size > n->len)
		memset(n->data + n->len, 0, size - n->len);
	n->len = size;
	if (size == 0)
		n->lost = 0;
	n->mtime = n->ctime = now();
	n->dirty = true;
	touch_entry(n);
	return 0;
}

/* ---- handles: who opened, wrote and closes a file ---- */

static struct sopen *find_open(struct staging *st, uint64_t handle)
{
	struct sopen *o = st->opens;

	while (o && o->handle != handle)
		o = o->next;
	return handle ? o : NULL;
}

/* Records an open of n: its handle, or 0 on ENOMEM. */
static uint64_t add_open(struct staging *st, struct snode *n, bool writable, bool append)
{
	struct sopen *o = calloc(1, sizeof(*o));

	if (!o)
		return 0;
	o->handle = st->next_handle++;
	o->id = n->id;
	o->writable = writable;
	o->append = append;
	o->pending = writable;
	o->next = st->opens;
	st->opens = o;
	n->opens++;
	n->wopens += writable;
	return o->handle;
}

/* A handle (0: one not known) changed n's text: it alone wrote it whole, or nobody. */
static void note_write(struct staging *st, struct snode *n, uint64_t handle)
{
	struct sopen *o = find_open(st, handle);

	if (o)
		o->wrote = true;
	if (o && !o->pending) {
		o->pending = true;
		n->wopens++;
	}
	if (n->whole_by && n->whole_by != handle)
		n->clash = true;
	if (!o || n->whole_by != handle)
		n->whole_by = 0;
}

static bool is_busy(const struct staging *st, const char *entry)
{
	for (const struct busy *b = st->busy; b; b = b->next)
		if (strcmp(b->entry, entry) == 0)
			return true;
	return false;
}

/* Waits (releasing the lock) until entry is not busy: 0, or -EBUSY after ms. Node
 * pointers taken before may be stale afterwards. */
static int wait_idle(struct staging *st, const char *entry, bool *waited, int64_t ms)
{
	struct timespec until = time_realtime_after_ms(ms);

	*waited = false;
	while (is_busy(st, entry)) {
		*waited = true;
		if (pthread_cond_timedwait(&st->idle, &st->lock, &until) == ETIMEDOUT)
			return -EBUSY;
	}
	return 0;
}

static int mark_busy(struct staging *st, const char *entry)
{
	struct busy *b = calloc(1, sizeof(*b));

	if (!b || !(b->entry = strdup(entry))) {
		free(b);
		return -ENOMEM;
	}
	b->next = st->busy;
	st->busy = b;
	return 0;
}

static bool spec_entry_of(const struct staging *st, const struct snode *dir, const char *name,
                          char *entry, size_t size);

/* Is n a spec whose entry's submission is under way? Its text was taken: changing
 * it now would make the file show another spec than the one launched. */
static bool spec_taken(const struct staging *st, const struct snode *n)
{
	char entry[STAGING_NAME_MAX + 1];

	return n->parent && spec_entry_of(st, n->parent, n->name, entry, sizeof(entry)) &&
	       is_busy(st, entry);
}

/*
 * Before a spec dir/name is opened for writing or renamed onto: waits while its
 * entry is busy (1: waited, the caller looks its nodes up again), then -EEXIST when
 * the entry's submission made a job named as the entry that still exists (what the
 * file shows is what was launched: docs/submit.md), -EBUSY after the wait's bound.
 */
static int may_rewrite(struct staging *st, const struct snode *dir, const char *name)
{
	char entry[STAGING_NAME_MAX + 1];
	struct snode *d;
	bool waited;
	int err;

	if (!spec_entry_of(st, dir, name, entry, sizeof(entry)))
		return 0;
	if ((err = wait_idle(st, entry, &waited, STAGING_BUSY_WAIT_MS)) || waited)
		return err ? err : 1;
	d = child(st->root, entry);
	if (d && d->dir && d->outcome == STAGING_SUBMITTED && d->job.name &&
	    strcmp(d->job.name, entry) == 0)
		return -EEXIST;
	return 0;
}

/* open(2) of a linked or open node n; O_TRUNC empties it. Its handle in *handle. */
static int open_node(struct staging *st, struct snode *n, int open_flags, uint64_t *handle)
{
	int acc = open_flags & O_ACCMODE;
	bool writable = acc != O_RDONLY, append = open_flags & O_APPEND;

	if (n->dir)
		return -EISDIR;
	if (n->generated && (writable || (open_flags & O_TRUNC)))
		return -EACCES;
	*handle = add_open(st, n, writable, append);
	if (!*handle)
		return -ENOMEM;
	if ((open_flags & O_TRUNC) && writable) {
		int err = n->len ? set_size(st, n, 0) : 0;

		if (err) {
			staging_release_locked(st, n, *handle);
			return err;
		}
		n->lost = 0;
		find_open(st, *handle)->wrote = true;
	}
	/* it is the writer of the whole text when it starts from nothing (append never) */
	if (writable && !append && n->len == 0) {
		n->whole_by = *handle;
		n->clash = false;
	}
	return 0;
}

int staging_create(struct staging *st, uint64_t dir, const char *name, mode_t mode, bool excl,
                   int open_flags, struct staging_attr *out)
{
	struct snode *d, *n;
	uint64_t handle = 0;
	int err;

	pthread_mutex_lock(&st->lock);
	do {
		err = check_new(st, dir, name, &d);
		if (err == -EEXIST && !excl)
			err = may_rewrite(st, d, name);
		else if (!err)
			err = may_rewrite(st, d, name);
	} while (err == 1);
	if (!err && (n = child(d, name))) {
		err = open_node(st, n, open_flags, &handle);
	} else if (!err) {
		n = node_new(st, name, false, mode, false);
		if (!n) {
			err = st->nodes >= STAGING_NODES_MAX ? -ENOSPC : -ENOMEM;
		} else {
			link_child(d, n);
			handle = add_open(st, n, true, open_flags & O_APPEND);
			if (!handle) {
				remove_node(st, n);
				err = -ENOMEM;
			} else {
				find_open(st, handle)->wrote = true;
				n->dirty = true; /* created by a writer: cp of an empty file ends here */
				n->whole_by = open_flags & O_APPEND ? 0 : handle;
			}
		}
	}
	if (!err) {
		fill_attr(n, out);
		out->handle = handle;
	}
	pthread_mutex_unlock(&st->lock);
	return err;
}

int staging_open(struct staging *st, uint64_t id, int open_flags, uint64_t *handle)
{
	struct snode *n;
	int err;

	*handle = 0;
	pthread_mutex_lock(&st->lock);
	do {
		n = find(st, id);
		err = !n ? -ENOENT : (open_flags & O_ACCMODE) != O_RDONLY && n->parent && !n->dir
		                          ? may_rewrite(st, n->parent, n->name)
		                          : 0;
	} while (err == 1);
	if (!err)
		err = open_node(st, n, open_flags, handle);
	pthread_mutex_unlock(&st->lock);
	return err;
}

static void staging_release_locked(struct staging *st, struct snode *n, uint64_t handle)
{
	struct sopen **pp = &st->opens;

	while (*pp && (*pp)->handle != handle)
		pp = &(*pp)->next;
	if (*pp) {
		struct sopen *o = *pp;

		*pp = o->next;
		n->wopens -= o->pending && n->wopens;
		free(o);
	}
	if (n->opens) {
		n->opens--;
		maybe_free(st, n);
	}
}

void staging_release(struct staging *st, uint64_t id, uint64_t handle)
{
	struct snode *n;

	pthread_mutex_lock(&st->lock);
	n = find(st, id);
	if (n)
		staging_release_locked(st, n, handle);
	pthread_mutex_unlock(&st->lock);
}

/* The file id (not a directory), or NULL with the errno in *err. */
static struct snode *find_file(struct staging *st, uint64_t id, int *err)
{
	struct snode *n = find(st, id);

	*err = !n ? -ENOENT : n->dir ? -EISDIR : 0;
	return *err ? NULL : n;
}

ssize_t staging_read(struct staging *st, uint64_t id, char *buf, size_t size, off_t off)
{
	struct snode *n;
	ssize_t got = 0;
	int err;

	pthread_mutex_lock(&st->lock);
	n = find_file(st, id, &err);
	if (!n) {
		got = err;
	} else if (off >= 0 && (uint64_t)off < n->len) {
		got = (ssize_t)(n->len - (size_t)off < size ? n->len - (size_t)off : size);
		memcpy(buf, n->data + off, (size_t)got);
		n->atime = now();
	}
	pthread_mutex_unlock(&st->lock);
	return got;
}

ssize_t staging_write(struct staging *st, uint64_t id, uint64_t handle, const char *buf,
                      size_t size, off_t off)
{
	struct snode *n;
	ssize_t ret = (ssize_t)size;
	bool taken = false;
	int err;

	if (off < 0)
		return -EINVAL;
	if (size == 0)
		return 0;
	pthread_mutex_lock(&st->lock);
	n = find_file(st, id, &err);
	if (!n)
		ret = err;
	else if (n->generated)
		ret = -EACCES;
	else if ((taken = spec_taken(st, n)))
		ret = -EBUSY; /* refused, not lost: the text launched stays as it is */
	else if ((uint64_t)off + size > STAGING_FILE_MAX)
		ret = -EFBIG;
	else if ((size_t)off + size > n->len)
		ret = set_size(st, n, (size_t)off + size);
	if (n && !n->generated && !taken)
		note_write(st, n, handle);
	if (ret < 0 && n && !n->generated && !taken) {
		n->lost = (int)-ret;
		n->dirty = true;        /* so that close reports it */
	}
	if (ret >= 0) {
		memcpy(n->data + off, buf, size);
		n->mtime = n->ctime = now();
		n->dirty = true;
		touch_entry(n);
		ret = (ssize_t)size;
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/* A size set through handle (ftruncate; 0: by path): to nothing, the handle starts
 * the whole text anew (O_TRUNC without atomic_o_trunc comes this way too). */
static void truncated(struct staging *st, struct snode *n, uint64_t handle, uint64_t size)
{
	struct sopen *o = find_open(st, handle);

	note_write(st, n, handle);
	if (size == 0 && o && o->writable && !o->append) {
		n->whole_by = handle;
		n->clash = false;
	}
}

static struct timespec time_or_now(struct timespec t)
{
	return t.tv_nsec == UTIME_NOW ? now() : t;
}

int staging_setattr(struct staging *st, uint64_t id, uint64_t handle,
                    const struct staging_set *set, struct staging_attr *out)
{
	struct snode *n;
	int err = 0;

	pthread_mutex_lock(&st->lock);
	n = find(st, id);
	if (!n) {
		err = -ENOENT;
		goto out;
	}
	if (n->generated && (set->size_set || set->mode_set)) {
		err = -EACCES;
		goto out;
	}
	if (set->size_set && !n->dir && spec_taken(st, n)) {
		err = -EBUSY; /* as staging_write */
		goto out;
	}
	if (set->size_set) {
		if (n->dir)
			err = -EISDIR;
		else if (set->size > STAGING_FILE_MAX)
			err = -EFBIG;
		else
			err = set_size(st, n, (size_t)set->size);
		if (!n->dir)
			truncated(st, n, handle, set->size);
		if (err && !n->dir) {
			n->lost = -err;
			n->dirty = true;
		}
		if (err)
			goto out;
	}
	if (set->mode_set)
		n->mode = set->mode & 07777;
	if (set->atime_set)
		n->atime = time_or_now(set->atime);
	if (set->mtime_set)
		n->mtime = time_or_now(set->mtime);
	n->ctime = now();
	fill_attr(n, out);
out:
	pthread_mutex_unlock(&st->lock);
	return err;
}

static bool only_generated(const struct snode *d)
{
	for (const struct snode *c = d->children; c; c = c->sibling)
		if (!c->generated)
			return false;
	return true;
}

/* unlink (dir false) or rmdir (dir true) of dir/name. */
static int remove_name(struct staging *st, uint64_t dir, const char *name, bool want_dir)
{
	struct snode *n;
	int err;

	pthread_mutex_lock(&st->lock);
	n = find_child(st, dir, name, &err);
	if (n && n->dir != want_dir)
		err = want_dir ? -ENOTDIR : -EISDIR;
	else if (n && want_dir && !only_generated(n))
		err = -ENOTEMPTY;
	if (!err)
		remove_node(st, n);
	pthread_mutex_unlock(&st->lock);
	return err;
}

int staging_unlink(struct staging *st, uint64_t dir, const char *name)
{
	return remove_name(st, dir, name, false);
}

int staging_rmdir(struct staging *st, uint64_t dir, const char *name)
{
	return remove_name(st, dir, name, true);
}

static bool is_ancestor(const struct snode *a, const struct snode *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

/* RENAME_NOREPLACE and RENAME_EXCHANGE of renameat2(2), without <linux/fs.h>. */
#define STAGING_RENAME_NOREPLACE (1 << 0)
#define STAGING_RENAME_EXCHANGE  (1 << 1)

int staging_rename(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                   const char *newname, unsigned flags)
{
	struct snode *d, *nd, *n = NULL, *old;
	char *copy;
	int err;

	if (flags & STAGING_RENAME_EXCHANGE)
		return -EINVAL;
	if ((err = check_name(newname)))
		return err;
	pthread_mutex_lock(&st->lock);
	d = find_dir(st, dir, &err);
	nd = d ? find_dir(st, newdir, &err) : NULL;
	if (nd && !(n = child(d, name)))
		err = -ENOENT;
	if (err)
		goto out;
	old = child(nd, newname);
	if (old == n)
		goto out; /* rename to itself: nothing to do */
	if (n->generated || reserved_name(nd, newname) || (old && old->generated) ||
	    (n->dir && nd == st->root && (child(n, STAGING_STATUS) || child(n, STAGING_ERROR))))
		err = -EACCES; /* an entry's status and error are arenafs' own */
	else if (n->dir && is_ancestor(n, nd))
		err = -EINVAL;
	else if (old && (flags & STAGING_RENAME_NOREPLACE))
		err = -EEXIST;
	else if (old && old->dir && !n->dir)
		err = -EISDIR;
	else if (old && !old->dir && n->dir)
		err = -ENOTDIR;
	else if (old && old->dir && !only_generated(old))
		err = -ENOTEMPTY;
	else if (!(copy = strdup(newname)))
		err = -ENOMEM;
	if (err)
		goto out;
	if (old)
		remove_node(st, old);
	unlink_child(n);
	free(n->name);
	n->name = copy;
	link_child(nd, n);
	n->ctime = now();
out:
	pthread_mutex_unlock(&st->lock);
	return err;
}

/* ---- specs ---- */

/* The stem of a top-level spec file's name ("mnist" of "mnist.yaml"), or 0. */
static size_t spec_file_stem(const char *name)
{
	static const char *const EXT[] = {".yaml", ".yml", ".json"};
	size_t len = strlen(name);

	if (name[0] == '.')
		return 0;
	for (size_t i = 0; i < sizeof(EXT) / sizeof(EXT[0]); i++) {
		size_t el = strlen(EXT[i]);

		if (len > el && strcmp(name + len - el, EXT[i]) == 0)
			return len - el;
	}
	return 0;
}

static bool is_spec_name_in_entry(const char *name)
{
	return strcmp(name, "spec.yaml") == 0 || strcmp(name, "spec.yml") == 0 ||
	       strcmp(name, "spec.json") == 0;
}

/* Would a file called name in dir be a spec? Then its entry's name into entry. */
static bool spec_entry_of(const struct staging *st, const struct snode *dir, const char *name,
                          char *entry, size_t size)
{
	size_t stem;

	if (dir == st->root && (stem = spec_file_stem(name)) > 0)
		snprintf(entry, size, "%.*s", (int)stem, name);
	else if (dir->parent == st->root && is_spec_name_in_entry(name))
		snprintf(entry, size, "%s", dir->name);
	else
		return false;
	return true;
}

/* Would a file called name in dir be a spec? Then fills the names of sub. */
static int spec_target(const struct staging *st, const struct snode *dir, const char *name,
                       struct staging_submission *sub)
{
	size_t stem;
	bool named_by_entry = true;

	memset(sub, 0, sizeof(*sub));
	if (dir == st->root && (stem = spec_file_stem(name)) > 0) {
		sub->entry = strndup(name, stem);
		sub->path = strdup(name);
		/* submit/spec.yaml is a job's spec.yaml copied as it is: "spec" names no
		 * job, the spec's name: does */
		named_by_entry = !is_spec_name_in_entry(name);
	} else if (dir->parent == st->root && is_spec_name_in_entry(name)) {
		sub->entry = strdup(dir->name);
		sub->in_dir = true;
		if (asprintf(&sub->path, "%s/%s", dir->name, name) < 0)
			sub->path = NULL;
	} else {
		return 0;
	}
	if (!sub->entry || !sub->path || (named_by_entry && !(sub->default_name = strdup(sub->entry)))) {
		staging_submission_clear(sub);
		return -ENOMEM;
	}
	return 1;
}

static int take_text(const struct snode *n, struct staging_submission *sub)
{
	sub->text = malloc(n->len + 1);
	if (!sub->text) {
		staging_submission_clear(sub);
		return -ENOMEM;
	}
	memcpy(sub->text, n->data, n->len);
	sub->text[n->len] = '\0';
	sub->len = n->len;
	return 1;
}

/* Takes n's text into sub when n, as dir/name, is a spec that is not empty: 1 (the
 * entry now busy), 0 or -ENOMEM. Taking it clears dirty: the next submission needs
 * another write. A spec a write failed on gives -errno of that write and
 * sub->entry, text-less; one that is not to be submitted (why) 0 and sub->entry
 * with sub->unfinished. */
static int take_spec(struct staging *st, struct snode *n, const struct snode *dir,
                     const char *name, enum staging_unfinished why,
                     struct staging_submission *sub)
{
	int ret;

	/* an empty text is no spec, unless another writer emptied it under this one */
	if (n->dir || n->generated ||
	    (n->len == 0 && !n->lost && why != STAGING_REPLACED && why != STAGING_CLASHED))
		return 0;
	ret = spec_target(st, dir, name, sub);
	if (ret > 0 && n->lost) {
		n->dirty = false;
		return -n->lost;
	}
	if (ret > 0 && why != STAGING_WHOLE) {
		/* a replacing writer's close still submits: its dirty text stays */
		if (why == STAGING_ABANDONED) {
			n->dirty = false;
			n->whole_by = 0; /* nor may the same handle's next close */
		}
		sub->unfinished = why;
		return 0;
	}
	if (ret > 0)
		ret = take_text(n, sub);
	if (ret > 0 && mark_busy(st, sub->entry) < 0) {
		staging_submission_clear(sub);
		ret = -ENOMEM;
	}
	if (ret > 0)
		n->dirty = false;
	return ret;
}

/* Waits while the entry the spec dir/name submits to is busy: 1 when it waited (the
 * caller looks its nodes up again), 0, or -EBUSY. */
static int wait_for_spec_entry(struct staging *st, const struct snode *dir, const char *name)
{
	char entry[STAGING_NAME_MAX + 1];
	bool waited;
	int err;

	if (!spec_entry_of(st, dir, name, entry, sizeof(entry)))
		return 0;
	err = wait_idle(st, entry, &waited, STAGING_BUSY_MAKE_WAIT_MS);
	return err ? err : waited;
}

int staging_take_flushed(struct staging *st, uint64_t id, uint64_t handle, bool abandoned,
                         struct staging_submission *sub)
{
	enum staging_unfinished why = abandoned ? STAGING_ABANDONED : STAGING_WHOLE;
	struct sopen *o;
	struct snode *n;
	int ret = 0;

	memset(sub, 0, sizeof(*sub));
	pthread_mutex_lock(&st->lock);
	/* what it wrote is all there: no longer a writer under way (staging_release may
	 * come long after close(2) returned) */
	o = find_open(st, handle);
	n = find(st, id);
	if (o && n && o->pending) {
		o->pending = false;
		n->wopens -= n->wopens > 0;
	}
	do {
		n = find(st, id);
		o = find_open(st, handle);
		if (!n || !n->parent || !n->dirty || !o || !o->wrote)
			goto out; /* a reader's close, or nothing new */
		ret = wait_for_spec_entry(st, n->parent, n->name);
	} while (ret == 1);
	if (ret < 0)
		goto out;
	if (why == STAGING_WHOLE && n->whole_by != handle)
		why = n->whole_by ? STAGING_REPLACED
		      : n->clash && !o->append ? STAGING_CLASHED : STAGING_NOT_WHOLE;
	if (why == STAGING_WHOLE && o->append)
		why = STAGING_NOT_WHOLE;
	ret = take_spec(st, n, n->parent, n->name, why, sub);
out:
	pthread_mutex_unlock(&st->lock);
	return ret;
}

int staging_take_renamed(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                         const char *newname, struct staging_submission *sub)
{
	struct snode *nd, *n;
	int ret = 0, err;

	memset(sub, 0, sizeof(*sub));
	pthread_mutex_lock(&st->lock);
	do {
		n = find_child(st, dir, name, &err);
		nd = n ? find_dir(st, newdir, &err) : NULL;
		if (!nd || (n->parent == nd && strcmp(name, newname) == 0) || n->dir ||
		    n->generated)
			goto out;
		ret = may_rewrite(st, nd, newname);
	} while (ret == 1);
	if (ret == 0)
		ret = take_spec(st, n, nd, newname, n->wopens ? STAGING_STILL_OPEN : STAGING_WHOLE,
		                sub);
out:
	pthread_mutex_unlock(&st->lock);
	return ret;
}

void staging_idle(struct staging *st, const char *entry)
{
	pthread_mutex_lock(&st->lock);
	for (struct busy **pp = &st->busy; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->entry, entry) == 0) {
			struct busy *b = *pp;

			*pp = b->next;
			free(b->entry);
			free(b);
			break;
		}
	pthread_cond_broadcast(&st->idle);
	pthread_mutex_unlock(&st->lock);
}

void staging_busy(struct staging *st, const char *entry)
{
	bool waited;

	pthread_mutex_lock(&st->lock);
	/* a bounded wait: past it, two makes of one entry meet the API server's 409 */
	wait_idle(st, entry, &waited, STAGING_BUSY_MAKE_WAIT_MS);
	mark_busy(st, entry);
	pthread_mutex_unlock(&st->lock);
}

void staging_submission_clear(struct staging_submission *sub)
{
	free(sub->text);
	free(sub->default_name);
	free(sub->entry);
	free(sub->path);
	memset(sub, 0, sizeof(*sub));
}

/* Sets the generated file name of dir to text, or removes it when text is NULL. */
static int set_generated(struct staging *st, struct snode *dir, const char *name, const char *text)
{
	struct snode *n = child(dir, name);
	size_t len = text ? strlen(text) : 0;
	char *data;

	if (n && !n->generated)
		return 0; /* never reached through the checks above; a user's file stays */
	if (!text) {
		if (n)
			remove_node(st, n);
		return 0;
	}
	if (!n) {
		n = node_new(st, name, false, 0444, true);
		if (!n)
			return -ENOMEM;
		n->generated = true;
		link_child(dir, n);
	}
	data = malloc(len ? len : 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, text, len);
	st->bytes = st->bytes - n->cap + len;
	free(n->data);
	n->data = data;
	n->len = n->cap = len;
	n->mtime = n->ctime = now();
	return 0;
}

/* The text of an `error` file: message as one safe line (a policy webhook's
 * message may hold newlines, escape sequences and BEL), and a newline; NULL when
 * out of memory. */
static char *one_line(const char *message)
{
	struct strbuf sb = STRBUF_INIT;

	textsafe_line(&sb, message, strlen(message));
	strbuf_putc(&sb, '\n');
	return strbuf_take(&sb);
}

int staging_set_outcome(struct staging *st, const char *entry, enum staging_outcome outcome,
                        const char *message)
{
	bool says = outcome == STAGING_FAILED || outcome == STAGING_STAGED ||
	            (outcome == STAGING_SUBMITTING && message);
	struct snode *d;
	char *error = NULL;
	int err = 0;

	if (says && !(error = one_line(message ? message : "")))
		return -ENOMEM;
	pthread_mutex_lock(&st->lock);
	d = child(st->root, entry);
	if (!d) {
		/* a single spec file's outcome gets a directory of its own */
		d = node_new(st, entry, true, 0755, true);
		if (d)
			link_child(st->root, d);
		else
			err = -ENOMEM;
	}
	if (d && d->dir) {
		d->outcome = outcome;
		staging_job_clear(&d->job);
		err = set_generated(st, d, STAGING_STATUS,
		                    outcome == STAGING_NONE ? NULL : OUTCOME_TEXT[outcome]);
		if (!err)
			err = set_generated(st, d, STAGING_ERROR, error);
		if (!err && outcome != STAGING_CHECKED)
			err = set_generated(st, d, STAGING_OBJECTS, NULL);
	}
	pthread_mutex_unlock(&st->lock);
	free(error);
	return err;
}

int staging_set_objects(struct staging *st, const char *entry, const char *text)
{
	struct snode *d;
	int err = 0;

	pthread_mutex_lock(&st->lock);
	d = child(st->root, entry);
	if (d && d->dir && d->outcome == STAGING_CHECKED)
		err = set_generated(st, d, STAGING_OBJECTS, text);
	pthread_mutex_unlock(&st->lock);
	return err;
}

/* ---- code: the other files of a directory entry, shipped with its job ---- */

/* Hidden files and folders (.git/, editors' and rsync's temporaries) and Python's
 * byte-code caches stay behind (docs/submit.md, "Local code"). */
static bool shipped_name(const char *name)
{
	return name[0] != '.' && strcmp(name, "__pycache__") != 0;
}

/* Does child c of a shipped directory of an entry (or of the entry) ship? Its
 * ancestors were checked on the way down. */
static bool ships_below(const struct snode *c)
{
	return !c->generated && shipped_name(c->name);
}

/* Is n a file below a directory entry that ships with its job? */
static bool shipped(const struct snode *n)
{
	const struct snode *a;

	if (n->dir || n->generated || !n->parent || !n->parent->parent)
		return false;
	for (a = n; a->parent && a->parent->parent; a = a->parent)
		if (!shipped_name(a->name))
			return false;
	return a->parent != NULL;
}

static size_t code_bytes(const struct snode *d)
{
	size_t total = 0;

	for (const struct snode *c = d->children; c; c = c->sibling)
		if (ships_below(c))
			total += c->dir ? code_bytes(c) : c->len;
	return total;
}

static void code_too_large(char *buf, size_t size, size_t wanted)
{
	snprintf(buf, size,
	         "the code is too large: a write made the files to ship %zu bytes, and one "
	         "ConfigMap holds at most %d (Kubernetes' limit); nothing was created. Leave "
	         "data and large files out of the folder (data: mounts a PVC)",
	         wanted, STAGING_CODE_MAX);
}

/* Growing n to size would make its entry's code larger than a ConfigMap holds:
 * -EFBIG, and the entry's status and error say so at once. */
static int code_check_growth(struct staging *st, struct snode *n, size_t size)
{
	struct snode *e;
	size_t total;
	char why[320];

	if (!shipped(n))
		return 0;
	e = entry_of(n);
	total = code_bytes(e) - n->len + size;
	if (total <= STAGING_CODE_MAX)
		return 0;
	if (total > e->code_wanted)
		e->code_wanted = total;
	code_too_large(why, sizeof(why), e->code_wanted);
	strcat(why, "\n");
	e->outcome = STAGING_FAILED;
	set_generated(st, e, STAGING_STATUS, OUTCOME_TEXT[STAGING_FAILED]);
	set_generated(st, e, STAGING_ERROR, why);
	set_generated(st, e, STAGING_OBJECTS, NULL);
	return -EFBIG;
}

/* asprintf, leaving *out NULL when it fails (ENOMEM: the caller words it without). */
static void asprintf_or_null(char **out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(out, fmt, ap) < 0)
		*out = NULL;
	va_end(ap);
}

/* dir/name below its entry, as "entry/sub/name", into buf. */
static void entry_path(const struct snode *dir, const char *name, char *buf, size_t size)
{
	const struct snode *chain[64];
	size_t depth = 0, len = 0;

	for (const struct snode *a = dir; a && a->parent && depth < 64; a = a->parent)
		chain[depth++] = a;
	buf[0] = '\0';
	while (depth-- > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s/", chain[depth]->name);
	if (len < size)
		snprintf(buf + len, size - len, "%s", name);
}

/* staging_copy_failed under the lock, d the directory (NULL: nothing to record). */
static void copy_failed_locked(struct snode *d, const char *name, const char *what)
{
	struct snode *e = d ? entry_of(d) : NULL;
	char path[1024];

	if (!e)
		return;
	touch_entry(d); /* first: a failure may be what starts a copy */
	if (!e->copy_failure) {
		entry_path(d, name, path, sizeof(path));
		asprintf_or_null(&e->copy_failure, "%s: %s", path, what);
	}
	e->copy_failures++;
}

void staging_copy_failed(struct staging *st, uint64_t dir, const char *name, const char *what)
{
	int err;

	pthread_mutex_lock(&st->lock);
	copy_failed_locked(find_dir(st, dir, &err), name, what);
	pthread_mutex_unlock(&st->lock);
}

void staging_copy_cut(struct staging *st, uint64_t id, uint64_t handle, const char *what)
{
	struct sopen *o;
	struct snode *n;

	pthread_mutex_lock(&st->lock);
	n = find(st, id);
	o = find_open(st, handle);
	if (n && n->parent && o && o->wrote)
		copy_failed_locked(n->parent, n->name, what);
	pthread_mutex_unlock(&st->lock);
}

/* Files below d open for writing now. */
static unsigned open_for_writing(const struct snode *d)
{
	unsigned n = 0;

	for (const struct snode *c = d->children; c; c = c->sibling)
		n += c->dir ? open_for_writing(c) : c->wopens;
	return n;
}

int staging_entry_state(struct staging *st, const char *entry, struct staging_copy_state *out)
{
	struct snode *e;
	int err = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st->lock);
	e = child(st->root, entry);
	if (!e || !e->dir) {
		err = -ENOENT;
	} else {
		out->quiet_ms = time_monotonic_ms() - e->changed_ms;
		out->open_for_writing = open_for_writing(e);
		if (e->n_writers &&
		    !(out->writers = malloc(e->n_writers * sizeof(*out->writers))))
			err = -ENOMEM;
		else if (e->n_writers)
			memcpy(out->writers, e->writers, e->n_writers * sizeof(*out->writers));
		out->n_writers = err ? 0 : e->n_writers;
	}
	pthread_mutex_unlock(&st->lock);
	return err;
}

void staging_copy_state_clear(struct staging_copy_state *s)
{
	free(s->writers);
	memset(s, 0, sizeof(*s));
}

/* The entry of node id, linked; NULL for the root, a top-level file or none. */
static struct snode *entry_dir_of(struct staging *st, uint64_t id)
{
	struct snode *e = entry_of(find(st, id));

	return e && e->dir ? e : NULL;
}

bool staging_knows_writer(struct staging *st, uint64_t id, int tid)
{
	struct snode *e;
	bool known = true;

	pthread_mutex_lock(&st->lock);
	e = entry_dir_of(st, id);
	known = !e;
	for (size_t i = 0; e && i < e->n_writers && !known; i++)
		known = e->writers[i].tid == tid;
	pthread_mutex_unlock(&st->lock);
	return known;
}

void staging_add_writer(struct staging *st, uint64_t id, const struct staging_writer *w)
{
	struct staging_writer *more;
	struct snode *e;

	pthread_mutex_lock(&st->lock);
	e = entry_dir_of(st, id);
	/* on ENOMEM the copy is taken as over at its quiet time, as before writers counted */
	if (e && (more = realloc(e->writers, (e->n_writers + 1) * sizeof(*more)))) {
		more[e->n_writers++] = *w;
		e->writers = more;
	}
	pthread_mutex_unlock(&st->lock);
}

void staging_writer_done(struct staging *st, const char *entry, int tgid)
{
	struct snode *e;

	pthread_mutex_lock(&st->lock);
	e = child(st->root, entry);
	for (size_t i = 0; e && e->dir && i < e->n_writers;)
		if (e->writers[i].tgid == tgid)
			e->writers[i] = e->writers[--e->n_writers];
		else
			i++;
	pthread_mutex_unlock(&st->lock);
}

uint64_t staging_status_of(struct staging *st, uint64_t dir, const char *name)
{
	char entry[STAGING_NAME_MAX + 1];
	struct snode *d, *e, *status;
	uint64_t id = 0;
	int err;

	pthread_mutex_lock(&st->lock);
	if (!name && (d = find(st, dir)) && !d->dir) { /* the file itself */
		name = d->name;
		d = d->parent;
	} else {
		d = name ? find_dir(st, dir, &err) : NULL;
	}
	if (d && spec_entry_of(st, d, name, entry, sizeof(entry)) &&
	    (e = child(st->root, entry)) && e->dir && (status = child(e, STAGING_STATUS)) &&
	    status->generated)
		id = status->id;
	pthread_mutex_unlock(&st->lock);
	return id;
}

/* Appends the shipped files below d (at path, len bytes of it used) to c. */
static int collect_code(const struct snode *d, char *path, size_t len, size_t size,
                        struct staging_code *c, int *lost)
{
	for (const struct snode *n = d->children; n; n = n->sibling) {
		size_t nl = strlen(n->name);
		struct staging_code_file *f;
		int err;

		if (!ships_below(n))
			continue;
		if (len + nl + 2 > size)
			return -ENAMETOOLONG;
		if (strchr(n->name, '\n'))
			return -EINVAL; /* the job's annotation lists one path a line */
		sprintf(path + len, "%s%s", len ? "/" : "", n->name);
		if (n->dir) {
			err = collect_code(n, path, len + nl + (len ? 1 : 0), size, c, lost);
			path[len] = '\0';
			if (err)
				return err;
			continue;
		}
		if (n->lost && !*lost)
			*lost = n->lost;
		f = realloc(c->files, (c->n + 1) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->files = f;
		f = &c->files[c->n];
		memset(f, 0, sizeof(*f));
		f->path = strdup(path);
		f->data = malloc(n->len ? n->len : 1);
		c->n++;
		if (!f->path || !f->data)
			return -ENOMEM;
		if (n->len) /* an empty file may have no buffer at all */
			memcpy(f->data, n->data, n->len);
		f->len = n->len;
		f->mode = n->mode & 0777;
		c->bytes += n->len;
		path[len] = '\0';
	}
	return 0;
}

static bool only_the_spec(const struct staging_code *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (!is_spec_name_in_entry(c->files[i].path))
			return false;
	return true;
}

int staging_take_code(struct staging *st, const char *entry, struct staging_code *out)
{
	char path[4096] = "", *copy_failure = NULL;
	struct snode *e;
	int err = 0, lost = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st->lock);
	e = child(st->root, entry);
	if (!e)
		err = -ENOENT;
	else if (e->dir)
		err = collect_code(e, path, 0, sizeof(path), out, &lost);
	if (!err && lost)
		err = -lost;
	if (!err && e->copy_failures) {
		err = -EPERM;
		if (e->copy_failures > 1)
			asprintf_or_null(&copy_failure, "%s (and %u more refused)", e->copy_failure,
			                 e->copy_failures - 1);
		else
			copy_failure = strdup(e->copy_failure);
	}
	if (!err && out->bytes > STAGING_CODE_MAX)
		err = -EFBIG;
	if (!err)
		e->code_wanted = 0;
	if (err == -EFBIG)
		out->bytes = e->code_wanted > out->bytes ? e->code_wanted : out->bytes;
	pthread_mutex_unlock(&st->lock);
	if (err) {
		size_t bytes = out->bytes;

		staging_code_clear(out);
		out->bytes = bytes;
		out->copy_failure = copy_failure;
	} else if (only_the_spec(out)) {
		staging_code_clear(out); /* a folder holding just its spec ships nothing */
	}
	return err;
}

void staging_code_explain(char *buf, size_t size, int err, const struct staging_code *c)
{
	if (err == -EFBIG)
		code_too_large(buf, size, c->bytes);
	else if (err == -EPERM)
		snprintf(buf, size, "the copy of the folder failed, so nothing was created: %s",
		         c->copy_failure ? c->copy_failure : "something could not be made");
	else if (err == -EINVAL)
		snprintf(buf, size, "a file to ship has a newline in its name: rename it or "
		                    "leave it out of the folder; nothing was created");
	else if (err == -ENAMETOOLONG)
		snprintf(buf, size, "a path in the folder is longer than 4095 bytes; nothing "
		                    "was created");
	else if (err == -ENOSPC)
		snprintf(buf, size, "submit/ is full (%d MiB of files together): a file of the "
		                    "folder was cut short, and nothing was created",
		         STAGING_BYTES_MAX >> 20);
	else
		snprintf(buf, size, "the folder's files could not be taken (%s); nothing was "
		                    "created", strerror(-err));
}

bool staging_code_equal(const struct staging_code *a, const struct staging_code *b,
                        char *which, size_t size)
{
	size_t i;

	/* both in the order of the tree's sorted listing */
	for (i = 0; i < a->n && i < b->n; i++) {
		const struct staging_code_file *x = &a->files[i], *y = &b->files[i];

		if (strcmp(x->path, y->path) != 0 || x->len != y->len || x->mode != y->mode ||
		    memcmp(x->data, y->data, x->len) != 0) {
			snprintf(which, size, "%s", strcmp(x->path, y->path) < 0 ? x->path : y->path);
			return false;
		}
	}
	if (a->n == b->n)
		return true;
	snprintf(which, size, "%s", i < a->n ? a->files[i].path : b->files[i].path);
	return false;
}

void staging_code_clear(struct staging_code *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->files[i].path);
		free(c->files[i].data);
	}
	free(c->files);
	free(c->copy_failure);
	memset(c, 0, sizeof(*c));
}

int staging_set_notice(struct staging *st, const char *message)
{
	struct snode *n;
	char *text = NULL;
	int err = 0;

	if (message && !(text = one_line(message)))
		return -ENOMEM;
	pthread_mutex_lock(&st->lock);
	n = child(st->root, STAGING_ERROR);
	/* the same text again: no new mtime, nothing for the kernel to reread */
	if (!(text && n && n->generated && n->len == strlen(text) &&
	      memcmp(n->data, text, n->len) == 0))
		err = set_generated(st, st->root, STAGING_ERROR, text);
	pthread_mutex_unlock(&st->lock);
	free(text);
	return err;
}

int staging_set_job(struct staging *st, const char *entry, const char *ns, int kind,
                    const char *name, const char *uid, bool seen)
{
	struct staging_job job = {strdup(ns), kind, strdup(name), strdup(uid), seen};
	struct snode *d;

	if (!job.ns || !job.name || !job.uid) {
		staging_job_clear(&job);
		return -ENOMEM;
	}
	pthread_mutex_lock(&st->lock);
	d = child(st->root, entry);
	if (d && d->dir && d->outcome == STAGING_SUBMITTED) {
		staging_job_clear(&d->job);
		d->job = job;
		memset(&job, 0, sizeof(job));
	}
	pthread_mutex_unlock(&st->lock);
	staging_job_clear(&job);
	return 0;
}

/* The entry whose status file id is, when it follows a job. Under the lock. */
static struct snode *following_entry(struct staging *st, uint64_t id)
{
	struct snode *n = find(st, id), *d;

	if (!n || !n->generated || strcmp(n->name, STAGING_STATUS) != 0 || !n->parent)
		return NULL;
	d = n->parent;
	return d->outcome == STAGING_SUBMITTED && d->job.uid ? d : NULL;
}

int staging_followed_job(struct staging *st, uint64_t id, struct staging_job *job)
{
	struct snode *d;
	int ret = 0;

	memset(job, 0, sizeof(*job));
	pthread_mutex_lock(&st->lock);
	d = following_entry(st, id);
	if (d) {
		job->ns = strdup(d->job.ns);
		job->kind = d->job.kind;
		job->name = strdup(d->job.name);
		job->uid = strdup(d->job.uid);
		job->seen = d->job.seen;
		ret = job->ns && job->name && job->uid ? 1 : -ENOMEM;
	}
	pthread_mutex_unlock(&st->lock);
	if (ret < 0)
		staging_job_clear(job);
	return ret;
}

void staging_follow(struct staging *st, uint64_t id, const char *uid, bool there)
{
	struct snode *d;

	pthread_mutex_lock(&st->lock);
	d = following_entry(st, id);
	if (d && strcmp(d->job.uid, uid) == 0) {
		if (there) {
			d->job.seen = true;
		} else if (set_generated(st, d, STAGING_STATUS,
		                         OUTCOME_TEXT[STAGING_DELETED]) == 0) {
			/* (on ENOMEM nothing changes: the next read tries again) */
			d->outcome = STAGING_DELETED;
			staging_job_clear(&d->job);
		}
	}
	pthread_mutex_unlock(&st->lock);
}
