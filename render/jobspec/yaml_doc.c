/*
 * The read document and its table of positions (yaml_doc.h), and the accessors
 * yaml_parse.h gives its readers. The table chains entries in buckets, a power of
 * two of them, grown at three quarters full: a lookup costs the same whatever the
 * document's size.
 *
 * Pure: no I/O, no locks. Filled by yaml_parse.c, read through yaml_parse.h by
 * the spec compiler (spec.c, validate.c, values.c, lists.c, manifest.c); tested
 * through test_jobspec_yaml_parse.c.
 */
#include "render/jobspec/yaml_doc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const json_t *parent;
	char *key; /* NULL for sequence items */
	size_t index;
	struct yaml_doc_entry rec; /* rec.info.text: owned when owns_text, else the doc's */
	bool owns_text;
	struct entry *next;
};

struct yaml_doc {
	json_t *root;
	struct yaml_node_info top;
	bool has_top;
	struct entry **buckets;
	size_t nbuckets;
	size_t nentries;
	char **kept; /* anchors' texts, which entries of aliases point to */
	size_t nkept, capkept;
	size_t steps;
};

struct yaml_doc *yaml_doc_new(void)
{
	return calloc(1, sizeof(struct yaml_doc));
}

static size_t entry_hash(const json_t *parent, const char *key, size_t index)
{
	size_t h = (size_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ull;

	if (key)
		for (const unsigned char *p = (const unsigned char *)key; *p; p++)
			h = (h ^ *p) * 0x100000001b3ull;
	else
		h ^= index * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

static bool entry_is(const struct entry *e, const json_t *parent, const char *key, size_t index)
{
	if (e->parent != parent)
		return false;
	if (key)
		return e->key && strcmp(e->key, key) == 0;
	return !e->key && e->index == index;
}

static int table_grow(struct yaml_doc *d)
{
	size_t n = d->nbuckets ? d->nbuckets * 2 : 64;
	struct entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < d->nbuckets; i++) {
		struct entry *e = d->buckets[i], *next;

		for (; e; e = next) {
			size_t slot = entry_hash(e->parent, e->key, e->index) & (n - 1);

			next = e->next;
			e->next = b[slot];
			b[slot] = e;
		}
	}
	free(d->buckets);
	d->buckets = b;
	d->nbuckets = n;
	return 0;
}

const struct yaml_doc_entry *yaml_doc_find(const struct yaml_doc *d, const json_t *parent,
                                           const char *key, size_t index)
{
	if (!d->nbuckets || !parent)
		return NULL;
	for (const struct entry *e = d->buckets[entry_hash(parent, key, index) & (d->nbuckets - 1)];
	     e; e = e->next)
		if (entry_is(e, parent, key, index))
			return &e->rec;
	return NULL;
}

int yaml_doc_record(struct yaml_doc *d, const json_t *parent, const char *key, size_t index,
                    const struct yaml_node_info *info, bool copy_text, size_t size,
                    size_t bytes)
{
	struct entry *e;
	size_t slot;

	if (d->nentries + 1 > d->nbuckets * 3 / 4 && table_grow(d) < 0)
		return -ENOMEM;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->parent = parent;
	e->index = index;
	e->rec.info = *info;
	e->rec.size = size;
	e->rec.bytes = bytes;
	e->owns_text = copy_text && info->text;
	if (e->owns_text)
		e->rec.info.text = NULL;
	if ((key && !(e->key = strdup(key))) ||
	    (e->owns_text && !(e->rec.info.text = strdup(info->text)))) {
		free(e->key);
		free(e);
		return -ENOMEM;
	}
	slot = entry_hash(parent, key, index) & (d->nbuckets - 1);
	e->next = d->buckets[slot];
	d->buckets[slot] = e;
	d->nentries++;
	return 0;
}

int yaml_doc_keep(struct yaml_doc *d, char *s)
{
	if (d->nkept == d->capkept) {
		size_t cap = d->capkept ? d->capkept * 2 : 16;
		char **p = realloc(d->kept, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->kept = p;
		d->capkept = cap;
	}
	d->kept[d->nkept++] = s;
	return 0;
}

void yaml_doc_finish(struct yaml_doc *d, json_t *root, const struct yaml_node_info *top,
                     size_t steps)
{
	d->steps = steps;
	d->root = root;
	d->top = *top;
	d->has_top = !json_is_null(root);
}

void yaml_doc_free(struct yaml_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nbuckets; i++) {
		struct entry *e = d->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->key);
			if (e->owns_text)
				free((char *)e->rec.info.text);
			free(e);
		}
	}
	free(d->buckets);
	for (size_t i = 0; i < d->nkept; i++)
		free(d->kept[i]);
	free(d->kept);
	free((char *)d->top.text);
	json_decref(d->root);
	free(d);
}

size_t yaml_doc_steps(const struct yaml_doc *d)
{
	return d ? d->steps : 0;
}

json_t *yaml_doc_root(const struct yaml_doc *d)
{
	return d ? d->root : NULL;
}

size_t yaml_text_offset(const char *text, size_t len, size_t index)
{
	size_t i = 0;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	/* a character starts at every byte that is not a UTF-8 continuation byte */
	for (; i < len; i++)
		if (((unsigned char)text[i] & 0xC0) != 0x80 && index-- == 0)
			return i;
	return len;
}

const struct yaml_node_info *yaml_doc_top(const struct yaml_doc *d)
{
	return d && d->has_top ? &d->top : NULL;
}

const struct yaml_node_info *yaml_doc_member(const struct yaml_doc *d, const json_t *object,
                                             const char *key)
{
	const struct yaml_doc_entry *e = d && key ? yaml_doc_find(d, object, key, 0) : NULL;

	return e ? &e->info : NULL;
}

const struct yaml_node_info *yaml_doc_item(const struct yaml_doc *d, const json_t *array,
                                           size_t index)
{
	const struct yaml_doc_entry *e = d ? yaml_doc_find(d, array, NULL, index) : NULL;

	return e ? &e->info : NULL;
}
