/*
 * The inode table (inode.h): three chained hash maps under one mutex — by inode
 * number, by (parent, name), and object key → list of inodes — and the
 * lookup-count/pin lifetime rules FUSE's forget protocol needs.
 *
 * Pure bookkeeping: no FUSE, no cache. Called by the FUSE operations (ops.c), the
 * notifier (notify.c) and the log files (logfile.c). Tested by
 * tests/unit/test_fs_inode.c.
 */
#include "fs/base/inode.h"
#include "fs/base/places.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/hash.h"
#include "k8s/base/invariant.h"

#define INODE_ROOT_ID 1            /* FUSE_ROOT_ID */
#define INODE_BUCKETS_MIN 1024
#define INODE_EVICT_BATCH 512      /* inodes made beyond the limit between calls of over() */

#define INODE_LOCKS_BITS 8         /* 256 shared content locks (inode.h, Locks) */

static pthread_mutex_t inode_locks[1 << INODE_LOCKS_BITS] = {
	[0 ... (1 << INODE_LOCKS_BITS) - 1] = PTHREAD_MUTEX_INITIALIZER
};

static pthread_mutex_t *lock_of(const struct fs_inode *in)
{
	/* Fibonacci hashing of the address: allocations 16 bytes apart spread out */
	return &inode_locks[((uintptr_t)in >> 4) * 11400714819323198485ULL >>
			    (64 - INODE_LOCKS_BITS)];
}

void inode_lock(const struct fs_inode *in)
{
	pthread_mutex_lock(lock_of(in));
}

bool inode_lock_held(const struct fs_inode *in)
{
	return mutex_is_held(lock_of(in));
}

void inode_unlock(const struct fs_inode *in)
{
	pthread_mutex_unlock(lock_of(in));
}

struct objlist {
	char *key;
	struct fs_inode *head;
	struct objlist *next;
};

struct inode_table {
	pthread_mutex_t lock;
	void (*on_free)(struct fs_inode *in);
	size_t count;
	struct fs_inode **by_ino;      /* chains through ino_next */
	struct fs_inode **by_key;      /* chains through key_next (mapped inodes only) */
	size_t nbuckets;               /* of both maps */
	struct objlist **by_obj;
	size_t nobj_buckets;
	size_t nobj;
	struct fs_inode *root;

	/* the idle list, least recently used first (see inode.h) */
	struct fs_inode *idle_head, *idle_tail;
	size_t limit;                  /* 0: no limit */
	size_t nevicting;              /* inodes handed out by inode_table_evict, not yet forgotten */
	size_t made_since_over;        /* inodes made since over() was last called */
	void (*over)(void *arg);
	void *over_arg;
};

struct fs_text *fs_text_new(const char *data, size_t len)
{
	struct fs_text *t = malloc(sizeof(*t) + len + 1);

	if (!t)
		return NULL;
	atomic_init(&t->refs, 1);
	t->len = len;
	if (len)
		memcpy(t->data, data, len);
	t->data[len] = '\0';
	return t;
}

struct fs_text *fs_text_get(struct fs_text *t)
{
	if (t)
		atomic_fetch_add(&t->refs, 1);
	return t;
}

void fs_text_put(struct fs_text *t)
{
	unsigned before = t ? atomic_fetch_sub(&t->refs, 1) : 0;

	assert(!t || before > 0);
	if (t && before == 1)
		free(t);
}

static size_t key_bucket(const struct inode_table *t, uint64_t parent, const char *name)
{
	uint64_t h = HASH_FNV1A_INIT ^ parent;

	return hash_fnv1a_str(h * HASH_FNV1A_PRIME, name) % t->nbuckets;
}

static size_t ino_bucket(const struct inode_table *t, uint64_t ino)
{
	return (ino * 11400714819323198485ULL >> 20) % t->nbuckets;
}

static struct fs_inode *find_ino(struct inode_table *t, uint64_t ino)
{
	struct fs_inode *in = t->by_ino[ino_bucket(t, ino)];

	while (in && in->ino != ino)
		in = in->ino_next;
	return in;
}

static size_t obj_bucket(const struct inode_table *t, const char *key)
{
	return hash_fnv1a_str(HASH_FNV1A_INIT, key) % t->nobj_buckets;
}

static uint64_t parent_ino(const struct fs_inode *in)
{
	return in->parent ? in->parent->ino : 0;
}

/* Doubles both maps when they hold twice as many inodes as buckets (chains of two
 * on average: a pointer per inode less than one bucket each, at 32,768 inodes half
 * a megabyte); on ENOMEM keeps the old (chains just grow longer). */
static void grow_maps(struct inode_table *t)
{
	size_t n = t->nbuckets * 2;
	struct fs_inode **by_ino = calloc(n, sizeof(*by_ino));
	struct fs_inode **by_key = calloc(n, sizeof(*by_key));

	if (!by_ino || !by_key) {
		free(by_ino);
		free(by_key);
		return;
	}
	for (size_t b = 0; b < t->nbuckets; b++) {
		struct fs_inode *in, *next;

		for (in = t->by_ino[b]; in; in = next) {
			size_t nb = (in->ino * 11400714819323198485ULL >> 20) % n;

			next = in->ino_next;
			in->ino_next = by_ino[nb];
			by_ino[nb] = in;
		}
		for (in = t->by_key[b]; in; in = next) {
			uint64_t h = HASH_FNV1A_INIT ^ parent_ino(in);
			size_t nb = hash_fnv1a_str(h * HASH_FNV1A_PRIME, in->name) % n;

			next = in->key_next;
			in->key_next = by_key[nb];
			by_key[nb] = in;
		}
	}
	free(t->by_ino);
	free(t->by_key);
	t->by_ino = by_ino;
	t->by_key = by_key;
	t->nbuckets = n;
}

static void grow_obj(struct inode_table *t)
{
	size_t n = t->nobj_buckets * 2;
	struct objlist **by_obj = calloc(n, sizeof(*by_obj));

	if (!by_obj)
		return;
	for (size_t b = 0; b < t->nobj_buckets; b++) {
		struct objlist *o, *next;

		for (o = t->by_obj[b]; o; o = next) {
			size_t nb = hash_fnv1a_str(HASH_FNV1A_INIT, o->key) % n;

			next = o->next;
			o->next = by_obj[nb];
			by_obj[nb] = o;
		}
	}
	free(t->by_obj);
	t->by_obj = by_obj;
	t->nobj_buckets = n;
}

static struct objlist *obj_find(struct inode_table *t, const char *key, struct objlist ***slot)
{
	struct objlist **p = &t->by_obj[obj_bucket(t, key)];

	for (; *p; p = &(*p)->next)
		if (strcmp((*p)->key, key) == 0)
			break;
	if (slot)
		*slot = p;
	return *p;
}

static int obj_add(struct inode_table *t, struct fs_inode *in)
{
	struct objlist *o = obj_find(t, in->objkey, NULL);

	if (!o) {
		if (t->nobj >= t->nobj_buckets)
			grow_obj(t);
		o = calloc(1, sizeof(*o));
		if (!o || !(o->key = strdup(in->objkey))) {
			free(o);
			return -ENOMEM;
		}
		size_t b = obj_bucket(t, o->key);
		o->next = t->by_obj[b];
		t->by_obj[b] = o;
		t->nobj++;
	}
	in->obj_prev = NULL;
	in->obj_next = o->head;
	if (o->head)
		o->head->obj_prev = in;
	o->head = in;
	return 0;
}

static void obj_remove(struct inode_table *t, struct fs_inode *in)
{
	struct objlist **slot, *o;

	if (!in->objkey)
		return;
	o = obj_find(t, in->objkey, &slot);
	if (!o)
		return;
	if (in->obj_prev)
		in->obj_prev->obj_next = in->obj_next;
	else
		o->head = in->obj_next;
	if (in->obj_next)
		in->obj_next->obj_prev = in->obj_prev;
	in->obj_prev = in->obj_next = NULL;
	if (!o->head) {
		*slot = o->next;
		free(o->key);
		free(o);
		t->nobj--;
	}
}

static void key_unlink(struct inode_table *t, struct fs_inode *in)
{
	struct fs_inode **p;

	if (!in->mapped)
		return;
	for (p = &t->by_key[key_bucket(t, parent_ino(in), in->name)]; *p; p = &(*p)->key_next)
		if (*p == in) {
			*p = in->key_next;
			break;
		}
	in->key_next = NULL;
	in->mapped = false;
}

static void ino_unlink(struct inode_table *t, struct fs_inode *in)
{
	struct fs_inode **p;

	for (p = &t->by_ino[ino_bucket(t, in->ino)]; *p; p = &(*p)->ino_next)
		if (*p == in) {
			*p = in->ino_next;
			break;
		}
	in->ino_next = NULL;
}

static void idle_remove(struct inode_table *t, struct fs_inode *in)
{
	if (!in->idle)
		return;
	if (in->idle_prev)
		in->idle_prev->idle_next = in->idle_next;
	else
		t->idle_head = in->idle_next;
	if (in->idle_next)
		in->idle_next->idle_prev = in->idle_prev;
	else
		t->idle_tail = in->idle_prev;
	in->idle_prev = in->idle_next = NULL;
	in->idle = false;
}

/* Puts in at the idle list's tail (most recently used) once the kernel knows it and
 * nothing here holds it; an inode already sent for eviction waits to be used again. */
static void idle_update(struct inode_table *t, struct fs_inode *in)
{
	if (in == t->root || in->pins || !in->nlookup || in->evicting) {
		idle_remove(t, in);
		return;
	}
	if (in->idle)
		return;
	in->idle_prev = t->idle_tail;
	in->idle_next = NULL;
	if (t->idle_tail)
		t->idle_tail->idle_next = in;
	else
		t->idle_head = in;
	t->idle_tail = in;
	in->idle = true;
}

/* Takes a pin on in (table locked): it is in use, so not idle, and used again. */
static void pin_locked(struct inode_table *t, struct fs_inode *in)
{
	assert(mutex_is_held(&t->lock));
	in->pins++;
	if (in->evicting)
		t->nevicting--;
	in->evicting = false;
	idle_remove(t, in);
}

static void inode_destroy(struct inode_table *t, struct fs_inode *in)
{
	if (t->on_free)
		t->on_free(in);
	fs_text_put(in->text);
	if (in->name_owned)
		free(in->name);
	free(in);     /* the other strings live in the same allocation */
}

/*
 * Frees in if nothing holds it any more, then its parent if that was the last thing
 * holding it, and so on up. Called with the table locked; the inodes are destroyed
 * after it is unlocked (on_free may take other locks), so they are collected in *dead.
 */
static void maybe_free(struct inode_table *t, struct fs_inode *in, struct fs_inode **dead)
{
	while (in && in != t->root) {
		struct fs_inode *parent = in->parent;

		if (in->nlookup || in->pins) {
			idle_update(t, in);
			break;
		}
		idle_remove(t, in);
		if (in->evicting)
			t->nevicting--;
		key_unlink(t, in);
		ino_unlink(t, in);
		obj_remove(t, in);
		t->count--;
		in->parent = NULL;
		in->ino_next = *dead;   /* reuse the chain link: it is out of every map */
		*dead = in;
		if (!parent)
			break;
		parent->pins--;
		in = parent;
	}
}

static void destroy_dead(struct inode_table *t, struct fs_inode *dead)
{
	while (dead) {
		struct fs_inode *next = dead->ino_next;

		inode_destroy(t, dead);
		dead = next;
	}
}

/* A string equal to s among the n in have (entries may be NULL), or NULL. */
static const char *same_string(const char *s, const char *const *have, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (have[i] && strcmp(have[i], s) == 0)
			return have[i];
	return NULL;
}

/*
 * A new inode holding copies of name, node and objkey (may be NULL) in the same
 * allocation: a walk of the tree leaves tens of thousands of inodes, and nine
 * small allocations each would cost more than the strings themselves. A string
 * equal to one of the parent's, or to one already placed, is shared rather than
 * copied: a job's files carry their job's namespace, name, uid and key, and a
 * walk keeps thousands of them. The parent outlives the child (the child pins
 * it) and its strings never change; only submit/'s entries move to another
 * parent (inode_table_rename), so theirs are always copied.
 */
static struct fs_inode *inode_alloc(const struct fs_inode *parent, const char *name,
				    const struct fs_node *node, const char *objkey)
{
	enum { NSTR = 9 };
	const char *strs[NSTR] = {objkey, node->ns, node->job, node->pod, node->node,
				  node->container, node->path, node->uid, node->identity};
	const char *ps[NSTR] = {0};
	const char *place[NSTR] = {0};
	size_t len = strlen(name) + 1;
	struct fs_inode *in;
	char *p;

	if (parent && !fs_type_is_submit(node->type)) {
		const struct fs_node *pn = &parent->node;
		const char *from[NSTR] = {parent->objkey, pn->ns, pn->job, pn->pod, pn->node,
					  pn->container, pn->path, pn->uid, pn->identity};

		memcpy(ps, from, sizeof(ps));
	}
	/* the parent's strings first; a string equal to an earlier one is counted once */
	for (size_t i = 0; i < NSTR; i++) {
		if (!strs[i])
			continue;
		place[i] = same_string(strs[i], ps, NSTR);
		if (!place[i] && !same_string(strs[i], strs, i))
			len += strlen(strs[i]) + 1;
	}
	in = calloc(1, sizeof(*in) + len);
	if (!in)
		return NULL;
	p = in->strings;
	in->name = p;
	memcpy(p, name, strlen(name) + 1);
	p += strlen(name) + 1;
	for (size_t i = 0; i < NSTR; i++) {
		if (!strs[i] || place[i])
			continue;
		/* an equal string placed before (the parent's or a copy here) is shared */
		place[i] = same_string(strs[i], place, i);
		if (!place[i]) {
			size_t n = strlen(strs[i]) + 1;

			memcpy(p, strs[i], n);
			place[i] = p;
			p += n;
		}
	}
	in->objkey = (char *)place[0];
	in->node = (struct fs_node){node->type, node->kind, node->restarts,
				    (char *)place[1], (char *)place[2], (char *)place[3],
				    (char *)place[4], (char *)place[5], (char *)place[6],
				    (char *)place[7], (char *)place[8]};
	return in;
}

struct inode_table *inode_table_new(void (*on_free)(struct fs_inode *in))
{
	struct inode_table *t = calloc(1, sizeof(*t));
	struct fs_node root = FS_NODE_INIT;

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->on_free = on_free;
	t->nbuckets = INODE_BUCKETS_MIN;
	t->nobj_buckets = INODE_BUCKETS_MIN;
	t->by_ino = calloc(t->nbuckets, sizeof(*t->by_ino));
	t->by_key = calloc(t->nbuckets, sizeof(*t->by_key));
	t->by_obj = calloc(t->nobj_buckets, sizeof(*t->by_obj));
	root.type = FS_ROOT;
	root.identity = "";
	t->root = inode_alloc(NULL, "", &root, NULL);
	if (!t->by_ino || !t->by_key || !t->by_obj || !t->root)
		goto fail;
	t->root->ino = INODE_ROOT_ID;
	t->root->nlookup = 1;
	t->by_ino[ino_bucket(t, INODE_ROOT_ID)] = t->root;
	t->count = 1;
	return t;
fail:
	if (t->root)
		inode_destroy(t, t->root);
	free(t->by_ino);
	free(t->by_key);
	free(t->by_obj);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return NULL;
}

void inode_table_free(struct inode_table *t)
{
	if (!t)
		return;
	for (size_t b = 0; b < t->nbuckets; b++) {
		struct fs_inode *in = t->by_ino[b], *next;

		for (; in; in = next) {
			next = in->ino_next;
			inode_destroy(t, in);
		}
	}
	for (size_t b = 0; b < t->nobj_buckets; b++) {
		struct objlist *o = t->by_obj[b], *next;

		for (; o; o = next) {
			next = o->next;
			free(o->key);
			free(o);
		}
	}
	free(t->by_ino);
	free(t->by_key);
	free(t->by_obj);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

struct fs_inode *inode_table_root(struct inode_table *t)
{
	pthread_mutex_lock(&t->lock);
	pin_locked(t, t->root);
	pthread_mutex_unlock(&t->lock);
	return t->root;
}

struct fs_inode *inode_table_get(struct inode_table *t, uint64_t ino)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_ino(t, ino);
	if (in)
		pin_locked(t, in);
	pthread_mutex_unlock(&t->lock);
	return in;
}

void inode_table_pin(struct inode_table *t, struct fs_inode *in)
{
	pthread_mutex_lock(&t->lock);
	pin_locked(t, in);
	pthread_mutex_unlock(&t->lock);
}

void inode_table_put(struct inode_table *t, struct fs_inode *in)
{
	struct fs_inode *dead = NULL;

	if (!in)
		return;
	pthread_mutex_lock(&t->lock);
	assert(in->pins > 0);
	in->pins--;
	maybe_free(t, in, &dead);
	pthread_mutex_unlock(&t->lock);
	destroy_dead(t, dead);
}

static struct fs_inode *find_mapped(struct inode_table *t, struct fs_inode *parent,
				    const char *name)
{
	struct fs_inode *in = t->by_key[key_bucket(t, parent->ino, name)];

	for (; in; in = in->key_next)
		if (in->parent == parent && strcmp(in->name, name) == 0)
			return in;
	return NULL;
}

static bool same_object(const struct fs_node *a, const struct fs_node *b)
{
	return a->type == b->type &&
	       strcmp(a->identity ? a->identity : "", b->identity ? b->identity : "") == 0;
}

/*
 * The number of parent/name standing for node: a hash of the parent's number, the
 * name, the type and the identity, so that the same object at the same path gets
 * the same number again after the kernel forgot it (find, rsync and tar compare
 * st_ino between walks), and another object (a re-created job, a restarted
 * container) another one. readdir gives the same number as d_ino before the
 * lookup (inode_table_number). A number in use is never given twice (the next free
 * one is taken). Bit 63 stays clear. Called with the table locked.
 */
static uint64_t hashed_ino(uint64_t parent, const char *name, const struct fs_node *node)
{
	uint64_t h = HASH_FNV1A_INIT ^ parent;
	char type[16];

	snprintf(type, sizeof(type), "/%d/", (int)node->type);
	h = hash_fnv1a_str(h * HASH_FNV1A_PRIME, name);
	h = hash_fnv1a_str(h, type);
	h = hash_fnv1a_str(h, node->identity ? node->identity : "");
	return h & ~(1ULL << 63);
}

static uint64_t derive_ino(struct inode_table *t, const struct fs_inode *parent,
			   const char *name, const struct fs_node *node)
{
	uint64_t ino = hashed_ino(parent->ino, name, node);

	while (ino <= INODE_ROOT_ID || find_ino(t, ino))
		ino = (ino + 1) & ~(1ULL << 63);
	return ino;
}

struct fs_inode *inode_table_child(struct inode_table *t, struct fs_inode *parent,
				   const char *name, const struct fs_node *node, const char *objkey)
{
	struct fs_inode *in, *old, *dead = NULL;
	bool over = false;

	pthread_mutex_lock(&t->lock);
	old = find_mapped(t, parent, name);
	if (old && same_object(&old->node, node)) {
		pin_locked(t, old);
		pthread_mutex_unlock(&t->lock);
		return old;
	}
	pthread_mutex_unlock(&t->lock);

	/* Allocate outside the lock; another thread may map the same child meanwhile. */
	in = inode_alloc(parent, name, node, objkey);
	if (!in)
		return NULL;

	pthread_mutex_lock(&t->lock);
	old = find_mapped(t, parent, name);
	if (old && same_object(&old->node, node)) {
		pin_locked(t, old);
		pthread_mutex_unlock(&t->lock);
		inode_destroy(t, in);
		return old;
	}
	if (in->objkey && obj_add(t, in) < 0) {
		pthread_mutex_unlock(&t->lock);
		inode_destroy(t, in);
		return NULL;
	}
	if (old) {
		key_unlink(t, old);
		maybe_free(t, old, &dead);
	}
	in->ino = derive_ino(t, parent, name, &in->node);
	in->parent = parent;
	pin_locked(t, parent);
	in->pins = 1;
	if (t->limit && t->count >= t->limit && ++t->made_since_over >= INODE_EVICT_BATCH) {
		t->made_since_over = 0;
		over = true;
	}
	if (t->count >= 2 * t->nbuckets)
		grow_maps(t);
	size_t b = key_bucket(t, parent->ino, name);
	in->key_next = t->by_key[b];
	t->by_key[b] = in;
	in->mapped = true;
	b = ino_bucket(t, in->ino);
	in->ino_next = t->by_ino[b];
	t->by_ino[b] = in;
	t->count++;
	pthread_mutex_unlock(&t->lock);
	destroy_dead(t, dead);
	if (over && t->over)
		t->over(t->over_arg);
	return in;
}

struct fs_inode *inode_table_find(struct inode_table *t, struct fs_inode *parent,
				  const char *name)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_mapped(t, parent, name);
	if (in)
		pin_locked(t, in);
	pthread_mutex_unlock(&t->lock);
	return in;
}

uint64_t inode_table_number(struct inode_table *t, struct fs_inode *parent, const char *name,
			    const struct fs_node *node)
{
	struct fs_inode *in;
	uint64_t ino;

	pthread_mutex_lock(&t->lock);
	in = find_mapped(t, parent, name);
	if (in && same_object(&in->node, node)) {
		ino = in->ino;
	} else {
		ino = hashed_ino(parent->ino, name, node);
		if (ino <= INODE_ROOT_ID)
			ino = derive_ino(t, parent, name, node);
	}
	pthread_mutex_unlock(&t->lock);
	return ino;
}

bool inode_table_is_mapped(struct inode_table *t, struct fs_inode *in)
{
	bool mapped;

	pthread_mutex_lock(&t->lock);
	mapped = in->mapped;
	pthread_mutex_unlock(&t->lock);
	return mapped;
}

void inode_table_unmap(struct inode_table *t, struct fs_inode *in)
{
	pthread_mutex_lock(&t->lock);
	key_unlink(t, in);
	pthread_mutex_unlock(&t->lock);
}

int inode_table_rename(struct inode_table *t, struct fs_inode *in, struct fs_inode *newparent,
		       const char *newname)
{
	struct fs_inode *old, *oldparent, *dead = NULL;
	char *name = strdup(newname), *oldname;
	size_t b;

	if (!name)
		return -ENOMEM;
	pthread_mutex_lock(&t->lock);
	key_unlink(t, in);
	old = find_mapped(t, newparent, name);
	if (old)
		key_unlink(t, old);
	oldparent = in->parent;
	oldname = in->name_owned ? in->name : NULL;
	in->name = name;
	in->name_owned = true;
	in->parent = newparent;
	pin_locked(t, newparent);
	b = key_bucket(t, newparent->ino, name);
	in->key_next = t->by_key[b];
	t->by_key[b] = in;
	in->mapped = true;
	if (old)
		maybe_free(t, old, &dead);
	oldparent->pins--;
	maybe_free(t, oldparent, &dead);
	pthread_mutex_unlock(&t->lock);
	destroy_dead(t, dead);
	free(oldname);
	return 0;
}

void inode_table_ref(struct inode_table *t, struct fs_inode *in, uint64_t n)
{
	pthread_mutex_lock(&t->lock);
	in->nlookup += n;
	idle_update(t, in);
	pthread_mutex_unlock(&t->lock);
}

void inode_table_forget(struct inode_table *t, uint64_t ino, uint64_t n)
{
	struct fs_inode *in, *dead = NULL;

	if (ino == INODE_ROOT_ID)
		return;
	pthread_mutex_lock(&t->lock);
	in = find_ino(t, ino);
	if (in) {
		in->nlookup = n >= in->nlookup ? 0 : in->nlookup - n;
		maybe_free(t, in, &dead);
	}
	pthread_mutex_unlock(&t->lock);
	destroy_dead(t, dead);
}

/* Appends in (pinned) to a growing array; false on ENOMEM. */
static bool collect(struct inode_table *t, struct fs_inode ***arr, size_t *n, size_t *cap,
		    struct fs_inode *in)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct fs_inode **na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return false;
		*arr = na;
		*cap = nc;
	}
	pin_locked(t, in);
	(*arr)[(*n)++] = in;
	return true;
}

size_t inode_table_by_object(struct inode_table *t, const char *objkey, struct fs_inode ***out)
{
	struct fs_inode **arr = NULL;
	size_t n = 0, cap = 0;
	struct objlist *o;

	pthread_mutex_lock(&t->lock);
	o = obj_find(t, objkey, NULL);
	for (struct fs_inode *in = o ? o->head : NULL; in; in = in->obj_next)
		if (!collect(t, &arr, &n, &cap, in))
			break;
	pthread_mutex_unlock(&t->lock);
	*out = arr;
	return n;
}

size_t inode_table_by_type(struct inode_table *t, const bool want[FS_TYPE_COUNT],
			   struct fs_inode ***out)
{
	struct fs_inode **arr = NULL;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&t->lock);
	for (size_t b = 0; b < t->nbuckets; b++)
		for (struct fs_inode *in = t->by_ino[b]; in; in = in->ino_next)
			if (want[in->node.type] && !collect(t, &arr, &n, &cap, in))
				goto out;
out:
	pthread_mutex_unlock(&t->lock);
	*out = arr;
	return n;
}

size_t inode_table_count(struct inode_table *t)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = t->count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void inode_table_set_limit(struct inode_table *t, size_t limit, void (*over)(void *arg), void *arg)
{
	pthread_mutex_lock(&t->lock);
	t->limit = limit;
	t->over = over;
	t->over_arg = arg;
	pthread_mutex_unlock(&t->lock);
}

size_t inode_table_evict(struct inode_table *t, size_t max, struct inode_evict **out)
{
	struct inode_evict *ev;
	size_t n = 0, want;

	*out = NULL;
	pthread_mutex_lock(&t->lock);
	/* those handed out before and not yet forgotten are on their way out */
	want = t->limit && t->count > t->limit + t->nevicting ? t->count - t->limit - t->nevicting : 0;
	if (want > max)
		want = max;
	ev = want ? calloc(want, sizeof(*ev)) : NULL;
	while (ev && n < want && t->idle_head) {
		struct fs_inode *in = t->idle_head;

		/* Off the list either way: it comes back when used again. An unmapped
		 * name means something else now (its entry was invalidated then). */
		in->evicting = true;
		t->nevicting++;
		idle_remove(t, in);
		if (!in->mapped || !in->parent || !(ev[n].name = strdup(in->name)))
			continue;
		ev[n].parent = in->parent->ino;
		ev[n].type = in->node.type;
		n++;
	}
	pthread_mutex_unlock(&t->lock);
	if (n == 0) {
		free(ev);
		ev = NULL;
	}
	*out = ev;
	return n;
}

void inode_table_evict_free(struct inode_evict *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ev[i].name);
	free(ev);
}
