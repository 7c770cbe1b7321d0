/*
 * YAML → JSON with positions (see yaml_parse.h), on libyaml's event API.
 *
 * The tree is built by recursive descent over the events; beside it a hash
 * table maps (parent container, key or index) to where the node was in the
 * text. Containers are unique allocations, so they are safe keys; jansson's
 * true/false/null are shared singletons, so a node's own address is not.
 *
 * What reading costs is bounded by the text and the limits, whatever the text
 * says: an alias finds its anchor in a hash table (yaml_anchors.c), shares the
 * anchored value and its texts instead of copying them, and adds what it expands
 * to (nodes and bytes, merged values in full) to the document's count, which
 * stops at YAML_MAX_NODES and YAML_MAX_BYTES.
 *
 * Pure: no I/O. Called by render/spec/spec.c; tested by test_spec_yaml_parse.c.
 */
#include "render/spec/yaml_parse.h"
#include "render/spec/yaml_anchors.h"
#include "render/spec/yaml_scalar.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

struct entry {
	const json_t *parent;
	char *key; /* NULL for sequence items */
	size_t index;
	struct yaml_node_info info; /* info.text: owned when owns_text, else the doc's */
	bool owns_text;
	size_t size, bytes; /* what the value expands to: for merging it elsewhere */
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

struct parse_ctx {
	yaml_parser_t parser;
	struct yaml_doc *doc;
	struct yaml_anchors anchors; /* their texts are kept by doc */
	size_t nodes, bytes;
	size_t steps;
	struct k8s_error *err;
};

/* ---- the position table ---- */

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

static const struct entry *table_find(const struct yaml_doc *d, const json_t *parent,
                                      const char *key, size_t index)
{
	if (!d->nbuckets || !parent)
		return NULL;
	for (const struct entry *e = d->buckets[entry_hash(parent, key, index) & (d->nbuckets - 1)];
	     e; e = e->next)
		if (entry_is(e, parent, key, index))
			return e;
	return NULL;
}

/*
 * Records info for parent[key] / parent[index], whose value expands to size nodes
 * and bytes bytes. copy_text: info->text is about to go (an event's), take a copy;
 * else it lives as long as d (an anchor's, another entry's) and is shared.
 */
static int table_add(struct yaml_doc *d, const json_t *parent, const char *key, size_t index,
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
	e->info = *info;
	e->size = size;
	e->bytes = bytes;
	e->owns_text = copy_text && info->text;
	if (e->owns_text)
		e->info.text = NULL;
	if ((key && !(e->key = strdup(key))) ||
	    (e->owns_text && !(e->info.text = strdup(info->text)))) {
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

/* ---- errors ---- */

static int fail_at(struct parse_ctx *c, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(struct parse_ctx *c, yaml_mark_t mark, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return k8s_error_set(c->err, EINVAL, "line %zu, column %zu: %s", mark.line + 1,
	                     mark.column + 1, what);
}

static int syntax_error(struct parse_ctx *c)
{
	yaml_parser_t *p = &c->parser;

	if (p->error == YAML_MEMORY_ERROR)
		return k8s_error_set(c->err, ENOMEM, "out of memory while parsing YAML");
	if (p->error == YAML_READER_ERROR)
		return k8s_error_set(
		    c->err, EINVAL, "YAML: %s at byte %zu (the text must be UTF-8)",
		    p->problem ? p->problem : "unreadable input", p->problem_offset);
	if (p->context)
		return k8s_error_set(
		    c->err, EINVAL,
		    "line %zu, column %zu: YAML syntax error: %s (%s that starts at "
		    "line %zu, column %zu)",
		    p->problem_mark.line + 1, p->problem_mark.column + 1,
		    p->problem ? p->problem : "invalid YAML", p->context, p->context_mark.line + 1,
		    p->context_mark.column + 1);
	return k8s_error_set(c->err, EINVAL, "line %zu, column %zu: YAML syntax error: %s",
	                     p->problem_mark.line + 1, p->problem_mark.column + 1,
	                     p->problem ? p->problem : "invalid YAML");
}

static int next_event(struct parse_ctx *c, yaml_event_t *ev)
{
	c->steps++;
	if (!yaml_parser_parse(&c->parser, ev))
		return syntax_error(c);
	return 0;
}

/* Adds n nodes of bytes bytes of text to what the document expands to. */
static int count_nodes(struct parse_ctx *c, size_t n, size_t bytes, yaml_mark_t mark)
{
	c->nodes += n;
	c->bytes += bytes;
	if (c->nodes > YAML_MAX_NODES)
		return k8s_error_set(c->err, EINVAL,
		                     "line %zu, column %zu: the document expands to more than %d "
		                     "nodes (aliases repeated too often?)",
		                     mark.line + 1, mark.column + 1, YAML_MAX_NODES);
	if (c->bytes > YAML_MAX_BYTES)
		return k8s_error_set(c->err, EINVAL,
		                     "line %zu, column %zu: the document expands to more than %d MiB "
		                     "of text (aliases repeated too often?)",
		                     mark.line + 1, mark.column + 1, YAML_MAX_BYTES >> 20);
	return 0;
}

/* ---- scalars ---- */

static int scalar_json(struct parse_ctx *c, const yaml_event_t *ev, json_t **out)
{
	char why[512];
	bool oom = false;

	*out = yaml_scalar_json((const char *)ev->data.scalar.value, ev->data.scalar.length,
	                        (const char *)ev->data.scalar.tag,
	                        ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, why, sizeof(why),
	                        &oom);
	if (*out)
		return 0;
	return oom ? -ENOMEM : fail_at(c, ev->start_mark, "%s", why);
}

/* ---- anchors ---- */

/* Keeps s (owned) as long as the document: texts that entries share. */
static int doc_keep(struct yaml_doc *d, char *s)
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

/* Defines anchor name as value, its text kept by the doc for the aliases' entries. */
static int anchor_add(struct parse_ctx *c, const char *name, json_t *value, size_t size,
                      size_t bytes, const char *text, bool quoted)
{
	struct yaml_anchor a = {NULL, value, size, bytes, NULL, quoted};
	char *kept = NULL;

	if (text && (!(kept = strdup(text)) || doc_keep(c->doc, kept) < 0)) {
		free(kept);
		return -ENOMEM;
	}
	a.text = kept;
	return yaml_anchors_define(&c->anchors, name, &a);
}

/* ---- nodes ---- */

/*
 * A parsed node: its value, its info, and how many nodes it expands to.
 * info.text points into the node's start event (or into an anchor), so the
 * caller records the info before it deletes that event.
 */
struct node {
	json_t *value;
	struct yaml_node_info info;
	bool shared_text; /* info.text is an anchor's (kept by the doc), not the event's */
	size_t size;      /* nodes it expands to */
	size_t bytes;     /* bytes of scalars and keys it expands to */
};

static int parse_node(struct parse_ctx *c, const yaml_event_t *ev, int depth, struct node *out);

static struct yaml_pos pos_of(yaml_mark_t m)
{
	struct yaml_pos p = {(int)m.line + 1, (int)m.column + 1};

	return p;
}

/*
 * Adds the `<<` sources' keys that obj lacks, first source first (YAML's merge
 * rule). What a merged value expands to counts in full in obj's size and bytes:
 * an alias of obj repeats all of it. (The document's own count already holds the
 * sources, each counted where it was written or aliased.)
 */
static int apply_merges(struct parse_ctx *c, json_t *obj, json_t *const *merges, size_t n,
                        struct node *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *key;
		json_t *val;

		json_object_foreach(merges[i], key, val)
		{
			const struct entry *e;

			c->steps++;
			if (json_object_get(obj, key))
				continue;
			if (json_object_set(obj, key, val) < 0)
				return -ENOMEM;
			/* every member of a source was recorded where it was parsed */
			e = table_find(c->doc, merges[i], key, 0);
			if (e && table_add(c->doc, obj, key, 0, &e->info, false, e->size, e->bytes) < 0)
				return -ENOMEM;
			out->size += e ? e->size : 1;
			out->bytes += strlen(key) + (e ? e->bytes : 0);
		}
	}
	return 0;
}

/* A `<<` value: a mapping, or a list of mappings; each becomes a merge source
 * (referenced in *merges, released by the caller). */
static int collect_merge(struct parse_ctx *c, json_t *val, yaml_mark_t mark, json_t ***merges,
                         size_t *n)
{
	size_t add = json_is_array(val) ? json_array_size(val) : 1;
	json_t **p;

	if (!json_is_object(val) && !json_is_array(val))
		return fail_at(c, mark, "the merge key << needs a mapping or a list of mappings");
	for (size_t i = 0; json_is_array(val) && i < add; i++)
		if (!json_is_object(json_array_get(val, i)))
			return fail_at(c, mark, "the merge key << needs mappings in its list");
	p = realloc(*merges, (*n + add) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*merges = p;
	for (size_t i = 0; i < add; i++)
		p[(*n)++] = json_incref(json_is_array(val) ? json_array_get(val, i) : val);
	return 0;
}

/* The text of a mapping key (a scalar, or an alias of one), in *key (caller frees). */
static int key_text(struct parse_ctx *c, const yaml_event_t *kev, char **key, bool *is_merge)
{
	const char *text = NULL;

	*is_merge = false;
	if (kev->type == YAML_SCALAR_EVENT) {
		text = (const char *)kev->data.scalar.value;
		if (strlen(text) != kev->data.scalar.length)
			return fail_at(c, kev->start_mark, "a key holds a NUL character");
		*is_merge = kev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		            !kev->data.scalar.tag && strcmp(text, "<<") == 0;
		if (kev->data.scalar.anchor) {
			json_t *s = json_string(text);
			int rc =
			    s ? anchor_add(c, (const char *)kev->data.scalar.anchor, s, 1, strlen(text),
			                   text, kev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			      : -ENOMEM;

			json_decref(s);
			if (rc < 0)
				return rc;
		}
	} else if (kev->type == YAML_ALIAS_EVENT) {
		const struct yaml_anchor *a = yaml_anchors_find(&c->anchors, (const char *)kev->data.alias.anchor);

		text = a ? a->text : NULL;
	}
	if (!text)
		return fail_at(c, kev->start_mark,
		               "a mapping key must be a plain value (a string), not a mapping or a "
		               "list");
	*key = strdup(text);
	return *key ? 0 : -ENOMEM;
}

/* One key and its value into obj (or into the merge sources for `<<`). */
static int parse_member(struct parse_ctx *c, json_t *obj, const yaml_event_t *kev, int depth,
                        json_t ***merges, size_t *nmerges, struct node *out)
{
	const struct entry *first;
	struct node val = {0};
	yaml_event_t vev;
	char *key = NULL;
	bool is_merge;
	int rc = key_text(c, kev, &key, &is_merge);

	if (rc < 0)
		return rc;
	first = table_find(c->doc, obj, key, 0);
	if (first) {
		rc = fail_at(c, kev->start_mark,
		             "duplicate key \"%s\" (first at line %d, column %d)", key,
		             first->info.key.line, first->info.key.column);
		free(key);
		return rc;
	}
	rc = next_event(c, &vev);
	if (rc < 0) {
		free(key);
		return rc;
	}
	rc = parse_node(c, &vev, depth + 1, &val);
	val.info.key = pos_of(kev->start_mark);
	if (rc == 0)
		rc = count_nodes(c, 0, strlen(key), kev->start_mark);
	if (rc == 0 && is_merge)
		rc = collect_merge(c, val.value, kev->start_mark, merges, nmerges);
	else if (rc == 0)
		rc = json_object_set(obj, key, val.value) < 0 ? -ENOMEM : 0;
	/* `<<` is recorded too, so that a second one counts as a duplicate */
	if (rc == 0)
		rc = table_add(c->doc, obj, key, 0, &val.info, !val.shared_text, val.size,
		               val.bytes);
	if (rc == 0 && !is_merge) {
		out->size += val.size;
		out->bytes += strlen(key) + val.bytes;
	}
	json_decref(val.value);
	yaml_event_delete(&vev);
	free(key);
	return rc;
}

static int parse_mapping(struct parse_ctx *c, int depth, struct node *out)
{
	json_t **merges = NULL;
	size_t nmerges = 0;
	int rc = 0;

	out->value = json_object();
	out->size = 1;
	if (!out->value)
		return -ENOMEM;
	for (;;) {
		yaml_event_t kev;
		bool end;

		rc = next_event(c, &kev);
		if (rc < 0)
			break;
		end = kev.type == YAML_MAPPING_END_EVENT;
		if (!end)
			rc = parse_member(c, out->value, &kev, depth, &merges, &nmerges, out);
		yaml_event_delete(&kev);
		if (end || rc < 0)
			break;
	}
	if (rc == 0 && nmerges)
		rc = apply_merges(c, out->value, merges, nmerges, out);
	for (size_t i = 0; i < nmerges; i++)
		json_decref(merges[i]);
	free(merges);
	return rc;
}

static int parse_sequence(struct parse_ctx *c, int depth, struct node *out)
{
	int rc = 0;

	out->value = json_array();
	out->size = 1;
	if (!out->value)
		return -ENOMEM;
	for (size_t i = 0;; i++) {
		yaml_event_t iev;
		struct node item = {0};

		rc = next_event(c, &iev);
		if (rc < 0)
			break;
		if (iev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&iev);
			break;
		}
		rc = parse_node(c, &iev, depth + 1, &item);
		if (rc == 0)
			rc = json_array_append(out->value, item.value) < 0 ? -ENOMEM : 0;
		if (rc == 0)
			rc = table_add(c->doc, out->value, NULL, i, &item.info, !item.shared_text,
			               item.size, item.bytes);
		out->size += item.size;
		out->bytes += item.bytes;
		json_decref(item.value);
		yaml_event_delete(&iev);
		if (rc < 0)
			break;
	}
	return rc;
}

/* Parses the node that starts with ev (the caller deletes ev after recording
 * out->info). On success out->value holds a reference the caller owns; on failure
 * it is NULL or a partial tree to drop. */
static int parse_node(struct parse_ctx *c, const yaml_event_t *ev, int depth, struct node *out)
{
	const char *anchor = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->info.value = pos_of(ev->start_mark);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		rc = scalar_json(c, ev, &out->value);
		out->size = 1;
		out->bytes = ev->data.scalar.length;
		out->info.text = (const char *)ev->data.scalar.value;
		out->info.quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		out->info.spanned = true;
		out->info.span_start = ev->start_mark.index;
		out->info.span_end = ev->end_mark.index;
		anchor = (const char *)ev->data.scalar.anchor;
		if (rc == 0)
			rc = count_nodes(c, 1, out->bytes, ev->start_mark);
		break;
	case YAML_ALIAS_EVENT: {
		const struct yaml_anchor *a = yaml_anchors_find(&c->anchors, (const char *)ev->data.alias.anchor);

		if (!a)
			return fail_at(c, ev->start_mark,
			               "alias *%s refers to no anchor &%s defined before it",
			               (const char *)ev->data.alias.anchor,
			               (const char *)ev->data.alias.anchor);
		out->value = json_incref(a->value);
		out->size = a->size;
		out->bytes = a->bytes;
		out->info.text = a->text;
		out->shared_text = true;
		out->info.quoted = a->quoted;
		out->info.spanned = true;
		out->info.span_start = ev->start_mark.index;
		out->info.span_end = ev->end_mark.index;
		return count_nodes(c, a->size, a->bytes, ev->start_mark);
	}
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;
		const char *tag =
		    (const char *)(map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);

		if (tag && strcmp(tag, map ? YAML_TAG_PREFIX "map" : YAML_TAG_PREFIX "seq") != 0)
			return fail_at(c, ev->start_mark, "tag %s is not supported on a %s", tag,
			               map ? "mapping" : "list");
		if (depth >= YAML_MAX_DEPTH)
			return fail_at(c, ev->start_mark, "nested deeper than %d levels",
			               YAML_MAX_DEPTH);
		rc = count_nodes(c, 1, 0, ev->start_mark);
		if (rc == 0)
			rc = map ? parse_mapping(c, depth, out) : parse_sequence(c, depth, out);
		anchor = (const char *)(map ? ev->data.mapping_start.anchor
		                            : ev->data.sequence_start.anchor);
		break;
	}
	default:
		return fail_at(c, ev->start_mark, "unexpected YAML event");
	}
	if (rc == 0 && anchor)
		rc = anchor_add(c, anchor, out->value, out->size, out->bytes, out->info.text,
		                out->info.quoted);
	return rc;
}

/* ---- documents ---- */

static void ctx_free(struct parse_ctx *c)
{
	yaml_anchors_free(&c->anchors);
	yaml_parser_delete(&c->parser);
}

/* Reads one document after its DOCUMENT_START event; keep_text: copy the root's
 * scalar text into *text (the event is gone afterwards). */
static int parse_document(struct parse_ctx *c, struct node *root, char **text)
{
	yaml_event_t ev;
	int rc = next_event(c, &ev);

	if (rc < 0)
		return rc;
	rc = parse_node(c, &ev, 0, root);
	if (rc == 0 && text && root->info.text && !(*text = strdup(root->info.text)))
		rc = -ENOMEM;
	root->info.text = text ? *text : NULL;
	yaml_event_delete(&ev);
	if (rc < 0)
		return rc;
	rc = next_event(c, &ev);
	if (rc < 0)
		return rc;
	yaml_event_delete(&ev); /* DOCUMENT_END */
	return 0;
}

/* Documents after the first: empty ones (a trailing `---`) are fine. */
static int parse_rest(struct parse_ctx *c)
{
	for (;;) {
		yaml_event_t ev;
		struct node extra = {0};
		yaml_mark_t start;
		int rc = next_event(c, &ev);

		if (rc < 0)
			return rc;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		start = ev.start_mark;
		yaml_event_delete(&ev);
		rc = parse_document(c, &extra, NULL);
		if (rc == 0 && !json_is_null(extra.value))
			rc = fail_at(c, start,
			             "a second YAML document starts here; a spec holds exactly one "
			             "(remove the '---' line, or submit each document as its own "
			             "file)");
		json_decref(extra.value);
		if (rc < 0)
			return rc;
	}
}

int yaml_parse(const char *text, size_t len, struct yaml_doc **out, struct k8s_error *err)
{
	struct parse_ctx c = {0};
	struct node root = {0};
	char *root_text = NULL;
	yaml_event_t ev;
	int rc;

	*out = NULL;
	c.err = err;
	c.anchors.steps = &c.steps;
	c.doc = calloc(1, sizeof(*c.doc));
	if (!c.doc)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if (!yaml_parser_initialize(&c.parser)) {
		free(c.doc);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
	rc = next_event(&c, &ev); /* STREAM_START */
	if (rc == 0) {
		yaml_event_delete(&ev);
		rc = next_event(&c, &ev);
	}
	if (rc == 0) {
		bool empty = ev.type == YAML_STREAM_END_EVENT;

		yaml_event_delete(&ev);
		if (empty)
			root.value = json_null();
		else
			rc = parse_document(&c, &root, &root_text);
		if (rc == 0 && !empty)
			rc = parse_rest(&c);
	}
	if (rc == -ENOMEM)
		k8s_error_set(err, ENOMEM, "out of memory while parsing YAML");
	ctx_free(&c);
	if (rc < 0) {
		json_decref(root.value);
		free(root_text);
		yaml_doc_free(c.doc);
		return rc;
	}
	c.doc->steps = c.steps;
	c.doc->root = root.value;
	c.doc->top = root.info;
	c.doc->has_top = !json_is_null(root.value);
	*out = c.doc;
	return 0;
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
				free((char *)e->info.text);
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
	const struct entry *e = d && key ? table_find(d, object, key, 0) : NULL;

	return e ? &e->info : NULL;
}

const struct yaml_node_info *yaml_doc_item(const struct yaml_doc *d, const json_t *array,
                                           size_t index)
{
	const struct entry *e = d ? table_find(d, array, NULL, index) : NULL;

	return e ? &e->info : NULL;
}
