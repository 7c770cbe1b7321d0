/*
 * The intern pool, scratch lists and the packer behind the compact objects (see
 * objpack.h). No JSON here: the decoders own the Kubernetes knowledge.
 */
#include "k8s/objects/objpack.h"

#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INTERN_BUCKETS_MIN 1024 /* the table doubles when entries outnumber buckets */

/* The one "" every object points to for an absent string: never freed. */
static char objpack_empty[1];

struct intern_entry {
	struct intern_entry *next;
	uint32_t hash;
	uint32_t refs;
	char s[];
};

static struct {
	pthread_mutex_t lock;
	struct intern_entry **buckets;
	size_t nbuckets;
	size_t count;
	size_t bytes;
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static uint32_t hash_str(const char *s, size_t *len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	*len = (size_t)(p - s);
	return h;
}

static void pool_grow(void)
{
	size_t n = pool.nbuckets ? pool.nbuckets * 2 : INTERN_BUCKETS_MIN;
	struct intern_entry **nb = calloc(n, sizeof(*nb));

	if (!nb)
		return; /* keep the old table: longer chains, still correct */
	for (size_t i = 0; i < pool.nbuckets; i++) {
		struct intern_entry *e = pool.buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = nb[e->hash & (n - 1)];
			nb[e->hash & (n - 1)] = e;
		}
	}
	free(pool.buckets);
	pool.buckets = nb;
	pool.nbuckets = n;
}

/* A shared copy of s (a new reference), or NULL when out of memory. */
static const char *intern_get(const char *s)
{
	size_t len;
	uint32_t h = hash_str(s, &len);
	struct intern_entry *e;
	const char *out = NULL;

	pthread_mutex_lock(&pool.lock);
	if (pool.count >= pool.nbuckets)
		pool_grow();
	if (!pool.buckets)
		goto out;
	for (e = pool.buckets[h & (pool.nbuckets - 1)]; e; e = e->next) {
		if (e->hash == h && strcmp(e->s, s) == 0) {
			e->refs++;
			out = e->s;
			goto out;
		}
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		goto out;
	e->hash = h;
	e->refs = 1;
	memcpy(e->s, s, len + 1);
	e->next = pool.buckets[h & (pool.nbuckets - 1)];
	pool.buckets[h & (pool.nbuckets - 1)] = e;
	pool.count++;
	pool.bytes += len + 1;
	out = e->s;
out:
	pthread_mutex_unlock(&pool.lock);
	return out;
}

/* Drops a reference from intern_get(). */
static void intern_put(const char *s)
{
	struct intern_entry *e, **pp;

	if (!s || s == objpack_empty)
		return;
	e = (struct intern_entry *)(void *)(s - offsetof(struct intern_entry, s));
	pthread_mutex_lock(&pool.lock);
	if (--e->refs == 0) {
		for (pp = &pool.buckets[e->hash & (pool.nbuckets - 1)]; *pp; pp = &(*pp)->next) {
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		}
		pool.count--;
		pool.bytes -= strlen(e->s) + 1;
		free(e);
	}
	pthread_mutex_unlock(&pool.lock);
}

void intern_stats(size_t *strings, size_t *bytes)
{
	pthread_mutex_lock(&pool.lock);
	*strings = pool.count;
	*bytes = pool.bytes;
	pthread_mutex_unlock(&pool.lock);
}

/* ---- scratch ---- */

struct scratch_chunk {
	struct scratch_chunk *next;
	alignas(max_align_t) char data[];
};

void *scratch_alloc(struct scratch *s, size_t size)
{
	struct scratch_chunk *c = calloc(1, sizeof(*c) + size);

	if (!c) {
		s->oom = true;
		return NULL;
	}
	c->next = s->head;
	s->head = c;
	return c->data;
}

char *scratch_strdup(struct scratch *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = scratch_alloc(s, n);

	if (p)
		memcpy(p, str, n);
	return p;
}

void scratch_free(struct scratch *s)
{
	struct scratch_chunk *c = s->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	s->head = NULL;
}

/* ---- packer ---- */

#define PACK_ALIGN alignof(max_align_t)

static size_t align_up(size_t n)
{
	return (n + PACK_ALIGN - 1) & ~(PACK_ALIGN - 1);
}

void pack_str(struct packer *pk, char **field, bool intern)
{
	const char *s = *field;
	size_t len;

	if (!s)
		return;
	switch (pk->mode) {
	case PACK_SIZE:
		if (*s && !intern)
			pk->off += strlen(s) + 1;
		break;
	case PACK_FILL:
		if (!*s) {
			*field = objpack_empty;
		} else if (intern) {
			const char *in = intern_get(s);

			if (!in) {
				pk->failed = true;
				*field = objpack_empty;
			} else {
				*field = (char *)in;
			}
		} else {
			len = strlen(s) + 1;
			memcpy(pk->block + pk->off, s, len);
			*field = pk->block + pk->off;
			pk->off += len;
		}
		break;
	case PACK_RELEASE:
		if (intern)
			intern_put(s);
		break;
	}
}

void pack_str_shared(struct packer *pk, char **field, const char *same)
{
	/* PACK_SIZE compares the decoded texts, PACK_FILL the text with same's copy:
	 * the same answer, so the block is measured as it is filled. */
	if (*field && **field && same && strcmp(*field, same) == 0) {
		if (pk->mode == PACK_FILL)
			*field = (char *)same;
		return;
	}
	pack_str(pk, field, false);
}

void pack_array(struct packer *pk, void **field, size_t n, size_t elem)
{
	size_t bytes = n * elem;

	if (pk->mode == PACK_FILL && !n)
		*field = NULL; /* never leave a pointer into the scratch list */
	if (pk->mode == PACK_RELEASE || !*field || !n)
		return;
	pk->off = align_up(pk->off);
	if (pk->mode == PACK_FILL) {
		memcpy(pk->block + pk->off, *field, bytes);
		*field = pk->block + pk->off;
	}
	pk->off += bytes;
}

void *pack_object(const void *tmp, size_t size, pack_layout_fn layout)
{
	struct packer pk = {PACK_SIZE, size, NULL, false};

	/* PACK_SIZE only reads the fields, so measuring tmp in place is safe. */
	layout((void *)tmp, &pk);
	pk = (struct packer){PACK_FILL, size, malloc(pk.off), false};
	if (!pk.block)
		return NULL;
	memcpy(pk.block, tmp, size);
	layout(pk.block, &pk);
	if (pk.failed) {
		pack_free(pk.block, layout);
		return NULL;
	}
	return pk.block;
}

void pack_free(void *obj, pack_layout_fn layout)
{
	struct packer pk = {PACK_RELEASE, 0, NULL, false};

	if (!obj)
		return;
	layout(obj, &pk);
	free(obj);
}
