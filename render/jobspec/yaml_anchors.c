/*
 * The anchor table (see yaml_anchors.h): open addressing with linear probing over
 * an array of indices, kept at most half full, so a lookup costs a probe or two
 * whatever the names.
 *
 * Pure: no I/O. Used by yaml_parse.c; tested through test_jobspec_yaml_parse.c.
 */
#include "render/jobspec/yaml_anchors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t name_hash(const char *name)
{
	size_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

/* The slot of name: where it is, or the free one where it would go. */
static size_t *slot_of(struct yaml_anchors *t, const char *name)
{
	size_t mask = t->nslots - 1;

	for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		if (t->steps)
			(*t->steps)++;
		if (!t->slots[i] || strcmp(t->v[t->slots[i] - 1].name, name) == 0)
			return &t->slots[i];
	}
}

static int grow(struct yaml_anchors *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64, cap = n / 2;
	size_t *slots = calloc(n, sizeof(*slots));
	struct yaml_anchor *v = slots ? realloc(t->v, cap * sizeof(*v)) : NULL;

	if (!v) {
		free(slots);
		return -ENOMEM;
	}
	free(t->slots);
	t->v = v;
	t->cap = cap;
	t->slots = slots;
	t->nslots = n;
	for (size_t i = 0; i < t->n; i++)
		*slot_of(t, t->v[i].name) = i + 1;
	return 0;
}

int yaml_anchors_define(struct yaml_anchors *t, const char *name, const struct yaml_anchor *a)
{
	struct yaml_anchor *slot_anchor;
	size_t *slot;
	char *copy;

	if (t->n >= t->cap && grow(t) < 0)
		return -ENOMEM;
	slot = slot_of(t, name);
	if (*slot) {
		slot_anchor = &t->v[*slot - 1];
		json_decref(slot_anchor->value);
		copy = slot_anchor->name;
	} else {
		copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		slot_anchor = &t->v[t->n];
		*slot = ++t->n;
	}
	*slot_anchor = *a;
	slot_anchor->name = copy;
	slot_anchor->value = json_incref(a->value);
	return 0;
}

const struct yaml_anchor *yaml_anchors_find(struct yaml_anchors *t, const char *name)
{
	size_t *slot = t->nslots ? slot_of(t, name) : NULL;

	return slot && *slot ? &t->v[*slot - 1] : NULL;
}

void yaml_anchors_free(struct yaml_anchors *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		json_decref(t->v[i].value);
	}
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
