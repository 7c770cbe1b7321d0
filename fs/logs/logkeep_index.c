/*
 * The kept logs' index (logkeep_index.h): a chained hash table by key and an LRU
 * list, with the byte total kept as entries come and go.
 */
#include "fs/logs/logkeep_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/hash.h"

int logkeep_index_init(struct logkeep_index *x, uint64_t budget, size_t max_entries)
{
	memset(x, 0, sizeof(*x));
	x->budget = budget;
	x->max_entries = max_entries;
	/* a power of two near the most entries there can be, at most 64k chains */
	x->nbuckets = 64;
	while (x->nbuckets < max_entries && x->nbuckets < 65536)
		x->nbuckets *= 2;
	x->buckets = calloc(x->nbuckets, sizeof(*x->buckets));
	x->jbuckets = calloc(x->nbuckets, sizeof(*x->jbuckets));
	if (!x->buckets || !x->jbuckets) {
		free(x->buckets);
		free(x->jbuckets);
		x->buckets = x->jbuckets = NULL;
		return -ENOMEM;
	}
	return 0;
}

void logkeep_index_clear(struct logkeep_index *x)
{
	struct logkeep_entry *e = x->newest, *next;

	for (; e; e = next) {
		next = e->older;
		logkeep_entry_free(e);
	}
	free(x->buckets);
	free(x->jbuckets);
	memset(x, 0, sizeof(*x));
}

/* Copies s to *p, which moves past it. */
static char *put_str(char **p, const char *s)
{
	char *r = *p;
	size_t n = strlen(s) + 1;

	memcpy(r, s, n);
	*p += n;
	return r;
}

static size_t str_size(const char *s)
{
	return strlen(s ? s : "") + 1;
}

struct logkeep_entry *logkeep_entry_new(const char *key, const struct logkeep_meta *meta,
					uint64_t size)
{
	const char *strs[] = {key, meta->ns, meta->job, meta->pod, meta->container, meta->job_uid,
			      meta->pod_uid};
	size_t len = sizeof(struct logkeep_entry);
	struct logkeep_entry *e;
	char *p;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		len += str_size(strs[i]);
	e = calloc(1, len);
	if (!e)
		return NULL;
	p = (char *)(e + 1);
	e->meta = *meta;
	e->key = put_str(&p, key);
	e->meta.ns = put_str(&p, meta->ns ? meta->ns : "");
	e->meta.job = put_str(&p, meta->job ? meta->job : "");
	e->meta.pod = put_str(&p, meta->pod ? meta->pod : "");
	e->meta.container = put_str(&p, meta->container ? meta->container : "");
	e->meta.job_uid = put_str(&p, meta->job_uid ? meta->job_uid : "");
	e->meta.pod_uid = put_str(&p, meta->pod_uid ? meta->pod_uid : "");
	e->size = size;
	return e;
}

void logkeep_entry_free(struct logkeep_entry *e)
{
	free(e);   /* one allocation */
}

static struct logkeep_entry **bucket(struct logkeep_index *x, const char *key)
{
	return &x->buckets[hash_fnv1a_str(HASH_FNV1A_INIT, key) & (x->nbuckets - 1)];
}

static struct logkeep_entry **job_bucket(struct logkeep_index *x, const char *job_uid)
{
	return &x->jbuckets[hash_fnv1a_str(HASH_FNV1A_INIT, job_uid) & (x->nbuckets - 1)];
}

struct logkeep_entry *logkeep_index_job_chain(struct logkeep_index *x, const char *job_uid)
{
	return x->jbuckets ? *job_bucket(x, job_uid) : NULL;
}

struct logkeep_entry *logkeep_index_find(struct logkeep_index *x, const char *key)
{
	struct logkeep_entry *e;

	if (!x->buckets)
		return NULL;
	for (e = *bucket(x, key); e; e = e->hnext)
		if (strcmp(e->key, key) == 0)
			return e;
	return NULL;
}

static void lru_unlink(struct logkeep_index *x, struct logkeep_entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		x->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		x->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void lru_push_newest(struct logkeep_index *x, struct logkeep_entry *e)
{
	e->newer = NULL;
	e->older = x->newest;
	if (x->newest)
		x->newest->newer = e;
	else
		x->oldest = e;
	x->newest = e;
}

void logkeep_index_touch(struct logkeep_index *x, struct logkeep_entry *e)
{
	if (x->newest == e)
		return;
	lru_unlink(x, e);
	lru_push_newest(x, e);
}

void logkeep_index_remove(struct logkeep_index *x, struct logkeep_entry *e)
{
	struct logkeep_entry **pp = bucket(x, e->key);

	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == e) {
			*pp = e->hnext;
			break;
		}
	for (pp = job_bucket(x, e->meta.job_uid); *pp; pp = &(*pp)->jnext)
		if (*pp == e) {
			*pp = e->jnext;
			break;
		}
	e->hnext = e->jnext = NULL;
	lru_unlink(x, e);
	x->total -= e->size;
	x->n--;
}

int logkeep_index_put(struct logkeep_index *x, struct logkeep_entry *e,
		      struct logkeep_entry **dropped)
{
	struct logkeep_entry *old = logkeep_index_find(x, e->key), **b;

	*dropped = NULL;
	if (e->size > x->budget || !x->max_entries)
		return -EFBIG;
	if (old) {
		logkeep_index_remove(x, old);
		logkeep_entry_free(old);
	}
	b = bucket(x, e->key);
	e->hnext = *b;
	*b = e;
	b = job_bucket(x, e->meta.job_uid);
	e->jnext = *b;
	*b = e;
	lru_push_newest(x, e);
	x->total += e->size;
	x->n++;
	while ((x->total > x->budget || x->n > x->max_entries) && x->oldest != e) {
		struct logkeep_entry *victim = x->oldest;

		logkeep_index_remove(x, victim);
		victim->older = *dropped;
		*dropped = victim;
	}
	return 0;
}

/* Drops the oldest into *dropped (linked through ->older) until room more bytes fit
 * in budget; false when they cannot, even with nothing kept. */
bool logkeep_index_make_room(struct logkeep_index *x, uint64_t room,
			     struct logkeep_entry **dropped)
{
	*dropped = NULL;
	if (room > x->budget)
		return false;
	while (x->oldest && x->total + room > x->budget) {
		struct logkeep_entry *victim = x->oldest;

		logkeep_index_remove(x, victim);
		victim->older = *dropped;
		*dropped = victim;
	}
	return true;
}
