/*
 * The anchors of one YAML document being read: name → what the anchored node
 * became, found by hashing the name. An alias means the latest definition before
 * it, so a redefinition replaces the earlier one.
 *
 * A walk of every earlier anchor per alias took 12 s of CPU for 45,000 anchors and
 * 50,000 aliases (issue 23); a lookup here is a probe or two.
 *
 * Pure: no I/O, no locks. Used by yaml_parse.c only; tested through
 * test_jobspec_yaml_parse.c (the steps it counts).
 */
#ifndef ARENAFS_SPEC_YAML_ANCHORS_H
#define ARENAFS_SPEC_YAML_ANCHORS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct yaml_anchor {
	char *name;       /* owned */
	json_t *value;    /* a reference */
	size_t size;      /* nodes it expands to */
	size_t bytes;     /* bytes of text (scalars and keys) it expands to */
	const char *text; /* scalars: the text as written, owned by the caller; else NULL */
	bool quoted;
};

/* Zero-initialised before use. */
struct yaml_anchors {
	struct yaml_anchor *v; /* in order of first definition */
	size_t n, cap;
	size_t *slots;  /* open addressing by name: index + 1 into v, 0 free */
	size_t nslots;  /* a power of two, at least twice n */
	size_t *steps;  /* when not NULL: counts each slot probed (the reader's work) */
};

/* Defines name as a (its name is copied, its value referenced). 0 or -ENOMEM. */
int yaml_anchors_define(struct yaml_anchors *t, const char *name, const struct yaml_anchor *a);
/* The latest definition of name, or NULL; valid until the next define. */
const struct yaml_anchor *yaml_anchors_find(struct yaml_anchors *t, const char *name);
void yaml_anchors_free(struct yaml_anchors *t);

#endif
