/*
 * The cache's tables, indexes and writes (see store.h), and the read lock and
 * generation of cache.h; the lookups are in store_query.c.
 *
 * One chained hash table of entries per object type, keyed by kind, namespace
 * and name. Indexes are hash tables of buckets keyed by a (namespace, value)
 * pair, each bucket an intrusive doubly-linked list of entries, so that linking,
 * unlinking and "everything in this bucket" cost O(1) and O(bucket). Buckets
 * that empty are freed, so the "namespaces with jobs" list is the job index's
 * bucket list.
 */
#include "k8s/cache/store_impl.h"
#include "k8s/base/invariant.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash_bytes(uint32_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static uint32_t hash_key(int kind, const char *ns, const char *name)
{
	uint32_t h = 2166136261u;

	h = hash_bytes(h, (const char *)&kind, sizeof(kind));
	h = hash_bytes(h, ns, strlen(ns) + 1);
	return hash_bytes(h, name, strlen(name));
}

/* ---- entry tables ---- */

static void etable_grow(struct etable *t)
{
	size_t n = t->nslots ? t->nslots * 2 : TABLE_SLOTS_MIN;
	struct entry **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < t->nslots; i++) {
		struct entry *e = t->slots[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			e->hnext = slots[e->hash & (n - 1)];
			slots[e->hash & (n - 1)] = e;
		}
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

static int kind_of(int type, const void *obj)
{
	if (type == CACHE_OWNED)
		return ((const struct owned *)obj)->kind;
	return type == CACHE_JOB ? (int)((const struct job *)obj)->kind : -1;
}

static struct entry **etable_find(struct etable *t, int kind, const char *ns, const char *name,
                                  uint32_t hash)
{
	struct entry **pp;

	if (!t->nslots)
		return NULL;
	for (pp = &t->slots[hash & (t->nslots - 1)]; *pp; pp = &(*pp)->hnext) {
		const struct obj_meta *m = meta_of((*pp)->obj);

		if ((*pp)->hash == hash && kind_of(t->type, (*pp)->obj) == kind &&
		    strcmp(m->name, name) == 0 &&
		    strcmp(m->namespace, ns) == 0)
			return pp;
	}
	return NULL;
}

struct entry *store_entry_get(struct etable *t, int kind, const char *ns, const char *name)
{
	struct entry **pp = etable_find(t, kind, ns, name, hash_key(kind, ns, name));

	return pp ? *pp : NULL;
}

/* ---- index buckets ---- */

static uint32_t hash_pair(const char *a, const char *b)
{
	uint32_t h = hash_bytes(2166136261u, a, strlen(a) + 1);

	return hash_bytes(h, b, strlen(b));
}

struct bucket *store_bucket_find(struct btable *t, const char *ns, const char *val)
{
	uint32_t h = hash_pair(ns, val);
	struct bucket *b;

	if (!t->nslots)
		return NULL;
	for (b = t->slots[h & (t->nslots - 1)]; b; b = b->hnext)
		if (b->hash == h && strcmp(b->key, ns) == 0 &&
		    strcmp(b->key + b->ns_len + 1, val) == 0)
			return b;
	return NULL;
}

static void btable_grow(struct btable *t)
{
	size_t n = t->nslots ? t->nslots * 2 : TABLE_SLOTS_MIN;
	struct bucket **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return;
	for (size_t i = 0; i < t->nslots; i++) {
		struct bucket *b = t->slots[i], *next;

		for (; b; b = next) {
			next = b->hnext;
			b->hnext = slots[b->hash & (n - 1)];
			slots[b->hash & (n - 1)] = b;
		}
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

static struct bucket *bucket_get_or_add(struct btable *t, const char *ns, const char *val)
{
	struct bucket *b = store_bucket_find(t, ns, val);
	size_t nl, vl;

	if (b)
		return b;
	if (t->count >= t->nslots)
		btable_grow(t);
	if (!t->nslots)
		return NULL;
	nl = strlen(ns);
	vl = strlen(val);
	b = calloc(1, sizeof(*b) + nl + vl + 2);
	if (!b)
		return NULL;
	b->hash = hash_pair(ns, val);
	b->ns_len = nl;
	memcpy(b->key, ns, nl + 1);
	memcpy(b->key + nl + 1, val, vl + 1);
	b->hnext = t->slots[b->hash & (t->nslots - 1)];
	t->slots[b->hash & (t->nslots - 1)] = b;
	t->count++;
	return b;
}

static void bucket_drop(struct btable *t, struct bucket *b)
{
	struct bucket **pp = &t->slots[b->hash & (t->nslots - 1)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == b) {
			*pp = b->hnext;
			t->count--;
			free(b);
			return;
		}
	}
}

/* ---- which indexes an object is in ---- */

struct index_key {
	enum index_id ix;
	const char *ns, *val; /* val NULL: not indexed */
};

/* How many indexes an object of type is in: the links its entry has. */
static int store_links(int type)
{
	switch (type) {
	case CACHE_POD:
		return 2;
	case CACHE_SERVICE:
	case CACHE_EVENT:
	case CACHE_JOB:
	case CACHE_WORKLOAD:
	case CACHE_OWNED:
		return 1;
	default:
		return 0;
	}
}

/* The index keys of obj: as many as store_links(type). */
static void index_keys(int type, const void *obj, struct index_key keys[LINKS_PER_ENTRY])
{
	const struct obj_meta *m = meta_of(obj);

	for (int i = 0; i < LINKS_PER_ENTRY; i++)
		keys[i] = (struct index_key){IX_COUNT, NULL, NULL};
	switch (type) {
	case CACHE_POD: {
		const struct pod *p = obj;

		if (p->job_name && *p->job_name)
			keys[0] = (struct index_key){IX_POD_JOB, m->namespace, p->job_name};
		if (*p->node_name)
			keys[1] = (struct index_key){IX_POD_NODE, "", p->node_name};
		break;
	}
	case CACHE_SERVICE: {
		const char *rel = kv_get(&m->labels, "release");

		if (rel && *rel)
			keys[0] = (struct index_key){IX_SERVICE_RELEASE, m->namespace, rel};
		break;
	}
	case CACHE_EVENT: {
		const struct event *e = obj;

		if (*e->involved_name)
			keys[0] =
			    (struct index_key){IX_EVENT_INVOLVED, m->namespace, e->involved_name};
		break;
	}
	case CACHE_JOB:
		keys[0] = (struct index_key){IX_JOB_NS, m->namespace, ""};
		break;
	case CACHE_WORKLOAD: {
		const struct workload *w = obj;

		if (*w->owner_uid)
			keys[0] = (struct index_key){IX_WORKLOAD_OWNER, m->namespace, w->owner_uid};
		break;
	}
	case CACHE_OWNED: {
		const struct owned *o = obj;

		if (*o->owner_uid)
			keys[0] = (struct index_key){IX_OWNED_OWNER, m->namespace, o->owner_uid};
		break;
	}
	default:
		break;
	}
}

static void entry_link(struct k8s_cache *st, int type, struct entry *e)
{
	struct index_key keys[LINKS_PER_ENTRY];

	index_keys(type, e->obj, keys);
	for (int i = 0; i < store_links(type); i++) {
		struct link *l = &e->links[i];
		struct bucket *b;

		l->b = NULL;
		if (!keys[i].val)
			continue;
		b = bucket_get_or_add(&st->indexes[keys[i].ix], keys[i].ns, keys[i].val);
		if (!b)
			continue; /* out of memory: the object is only missing from this index */
		l->b = b;
		l->prev = NULL;
		l->next = b->head;
		if (b->head)
			b->head->links[i].prev = e;
		b->head = e;
		b->n++;
	}
}

static void entry_unlink(struct k8s_cache *st, int type, struct entry *e)
{
	struct index_key keys[LINKS_PER_ENTRY];

	index_keys(type, e->obj, keys);
	for (int i = 0; i < store_links(type); i++) {
		struct link *l = &e->links[i];
		struct bucket *b = l->b;

		if (!b)
			continue;
		if (l->prev)
			l->prev->links[i].next = l->next;
		else
			b->head = l->next;
		if (l->next)
			l->next->links[i].prev = l->prev;
		l->b = NULL;
		if (--b->n == 0)
			bucket_drop(&st->indexes[keys[i].ix], b);
	}
}

/* ---- life ---- */

struct k8s_cache *store_new(const char *config_ns, struct cache_feed *feed)
{
	struct k8s_cache *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (pthread_rwlock_init(&st->lock, NULL) != 0) {
		free(st);
		return NULL;
	}
	for (int t = 0; t < TYPE_COUNT; t++)
		st->tables[t].type = t;
	st->config_ns = config_ns;
	st->feed = feed;
	return st;
}

struct cache_feed *store_feed(struct k8s_cache *st)
{
	return st->feed;
}

/* The object's decoder-made free function, by type. */
static void store_object_free(enum cache_object_type type, void *obj)
{
	switch (type) {
	case CACHE_JOB:
		job_free(obj);
		break;
	case CACHE_POD:
		pod_free(obj);
		break;
	case CACHE_NODE:
		node_free(obj);
		break;
	case CACHE_SERVICE:
		service_free(obj);
		break;
	case CACHE_EVENT:
		event_free(obj);
		break;
	case CACHE_PVC:
		pvc_free(obj);
		break;
	case CACHE_WORKLOAD:
		workload_free(obj);
		break;
	case CACHE_LOCALQUEUE:
		localqueue_free(obj);
		break;
	case CACHE_CLUSTERQUEUE:
		clusterqueue_free(obj);
		break;
	case CACHE_COHORT:
		cohort_free(obj);
		break;
	case CACHE_QUEUE_LINE:
		queue_line_free(obj);
		break;
	case CACHE_OWNED:
		owned_free(obj);
		break;
	case CACHE_NAMESPACE:
		namespace_free(obj);
		break;
	}
}

void store_free(struct k8s_cache *st)
{
	if (!st)
		return;
	for (int t = 0; t < TYPE_COUNT; t++) {
		struct etable *tab = &st->tables[t];

		for (size_t i = 0; i < tab->nslots; i++) {
			struct entry *e = tab->slots[i], *next;

			for (; e; e = next) {
				next = e->hnext;
				store_object_free((enum cache_object_type)t, e->obj);
				free(e);
			}
		}
		free(tab->slots);
	}
	for (int x = 0; x < IX_COUNT; x++) {
		struct btable *bt = &st->indexes[x];

		for (size_t i = 0; i < bt->nslots; i++) {
			struct bucket *b = bt->slots[i], *next;

			for (; b; b = next) {
				next = b->hnext;
				free(b);
			}
		}
		free(bt->slots);
	}
	pthread_rwlock_destroy(&st->lock);
	free(st);
}

/* ---- cache.h's read lock and generation ---- */

void cache_read_lock(struct k8s_cache *st)
{
	pthread_rwlock_rdlock(&st->lock);
}

bool cache_read_locked(struct k8s_cache *st)
{
	return rwlock_is_held(&st->lock);
}

void cache_read_unlock(struct k8s_cache *st)
{
	pthread_rwlock_unlock(&st->lock);
}

uint64_t cache_generation(struct k8s_cache *st)
{
	return __atomic_load_n(&st->generation, __ATOMIC_ACQUIRE);
}

void store_bump(struct k8s_cache *st)
{
	__atomic_add_fetch(&st->generation, 1, __ATOMIC_RELEASE);
}

/* ---- writes ---- */

static void fill_change(struct store_change *ch, int type, enum cache_change_type what,
                        const void *now, void *old)
{
	const struct obj_meta *m = meta_of(now);

	memset(ch, 0, sizeof(*ch));
	ch->type = (enum cache_object_type)type;
	ch->old = old;
	ch->change.object = ch->type;
	ch->change.type = what;
	ch->change.namespace = m->namespace;
	ch->change.name = m->name;
	ch->change.job_kind = -1;
	ch->change.node_name = "";
	ch->change.old_node_name = "";
	switch (type) {
	case CACHE_JOB:
		ch->change.job_kind = (int)((const struct job *)now)->kind;
		break;
	case CACHE_POD: {
		const struct pod *p = now;

		ch->change.job_kind = p->job_kind;
		ch->change.owner_job = p->job_name;
		ch->change.node_name = p->node_name;
		ch->change.old_node_name = old ? ((const struct pod *)old)->node_name : "";
		break;
	}
	case CACHE_SERVICE:
		ch->change.owner_job = kv_get(&m->labels, "release");
		break;
	case CACHE_WORKLOAD:
		/* the job it queues (any kind of that name: the tree refreshes each) */
		ch->change.owner_job = ((const struct workload *)now)->owner_name;
		break;
	case CACHE_EVENT:
		ch->change.involved_name = ((const struct event *)now)->involved_name;
		break;
	case CACHE_OWNED:
		ch->change.owner_job = ((const struct owned *)now)->owner_name;
		break;
	default:
		break;
	}
}

int store_put(struct k8s_cache *st, enum cache_object_type type, void *obj, uint32_t epoch,
              struct store_change *ch)
{
	const struct obj_meta *m = meta_of(obj);
	int kind = kind_of(type, obj);
	uint32_t hash = hash_key(kind, m->namespace, m->name);
	struct etable *t = &st->tables[type];
	struct entry *fresh = calloc(1, sizeof(*fresh) + store_links(type) * sizeof(struct link));
	struct entry **pp, *e;
	void *old;

	if (!fresh) {
		store_object_free(type, obj);
		return -ENOMEM;
	}
	pthread_rwlock_wrlock(&st->lock);
	pp = etable_find(t, kind, m->namespace, m->name, hash);
	if (pp) {
		e = *pp;
		e->epoch = epoch;
		if (strcmp(meta_of(e->obj)->resource_version, m->resource_version) == 0) {
			pthread_rwlock_unlock(&st->lock);
			free(fresh);
			store_object_free(type, obj);
			return 0;
		}
		old = e->obj;
		entry_unlink(st, type, e);
		e->obj = obj;
		entry_link(st, type, e);
		store_bump(st);
		pthread_rwlock_unlock(&st->lock);
		free(fresh);
		fill_change(ch, type, CACHE_MODIFIED, obj, old);
		return 1;
	}
	if (t->count >= t->nslots)
		etable_grow(t);
	if (!t->nslots) {
		pthread_rwlock_unlock(&st->lock);
		free(fresh);
		store_object_free(type, obj);
		return -ENOMEM;
	}
	e = fresh;
	e->hash = hash;
	e->epoch = epoch;
	e->obj = obj;
	e->hnext = t->slots[hash & (t->nslots - 1)];
	t->slots[hash & (t->nslots - 1)] = e;
	t->count++;
	entry_link(st, type, e);
	store_bump(st);
	pthread_rwlock_unlock(&st->lock);
	fill_change(ch, type, CACHE_ADDED, obj, NULL);
	return 1;
}

/* Takes e out of its table and indexes; the caller holds the write lock. */
static void entry_remove(struct k8s_cache *st, int type, struct entry **pp)
{
	struct entry *e = *pp;

	entry_unlink(st, type, e);
	*pp = e->hnext;
	st->tables[type].count--;
}

int store_remove(struct k8s_cache *st, enum cache_object_type type, int kind, const char *ns,
                 const char *name, struct store_change *ch)
{
	struct entry **pp, *e;

	if (type != CACHE_JOB && type != CACHE_OWNED)
		kind = -1;
	pthread_rwlock_wrlock(&st->lock);
	pp = etable_find(&st->tables[type], kind, ns, name, hash_key(kind, ns, name));
	if (!pp) {
		pthread_rwlock_unlock(&st->lock);
		return 0;
	}
	e = *pp;
	entry_remove(st, type, pp);
	store_bump(st);
	pthread_rwlock_unlock(&st->lock);
	fill_change(ch, type, CACHE_DELETED, e->obj, e->obj);
	free(e);
	return 1;
}

size_t store_sweep(struct k8s_cache *st, enum cache_object_type type, int kind, const char *ns,
                   uint32_t epoch, struct store_change **out)
{
	struct etable *t = &st->tables[type];
	struct store_change *chs = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (type != CACHE_JOB && type != CACHE_OWNED)
		kind = -1;
	pthread_rwlock_wrlock(&st->lock);
	for (size_t i = 0; i < t->nslots; i++) {
		struct entry **pp = &t->slots[i];

		while (*pp) {
			struct entry *e = *pp;

			if (kind_of(type, e->obj) != kind || e->epoch == epoch ||
			    (ns && strcmp(meta_of(e->obj)->namespace, ns) != 0)) {
				pp = &e->hnext;
				continue;
			}
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct store_change *nc = realloc(chs, ncap * sizeof(*nc));

				if (!nc)
					goto out; /* the rest is swept at the next relist */
				chs = nc;
				cap = ncap;
			}
			entry_remove(st, type, pp);
			fill_change(&chs[n++], type, CACHE_DELETED, e->obj, e->obj);
			free(e);
		}
	}
out:
	if (n)
		store_bump(st);
	pthread_rwlock_unlock(&st->lock);
	*out = chs;
	return n;
}

void store_change_release(struct store_change *ch)
{
	if (ch->old)
		store_object_free(ch->type, ch->old);
	ch->old = NULL;
}
