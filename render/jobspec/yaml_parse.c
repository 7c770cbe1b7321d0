/*
 * YAML → JSON with positions (see yaml_parse.h), on libyaml's event API: the
 * builder. The tree is built by recursive descent over the events; each member
 * and item is recorded in the document's table of positions (yaml_doc.c) as it
 * is read. A scalar's value is yaml_scalar.c's, an error's words yaml_errors.c's.
 *
 * What reading costs is bounded by the text and the limits, whatever the text
 * says: an alias finds its anchor in a hash table (yaml_anchors.c), shares the
 * anchored value and its texts instead of copying them, and adds what it expands
 * to (nodes and bytes, merged values in full) to the document's count, which
 * stops at YAML_MAX_NODES and YAML_MAX_BYTES.
 *
 * Pure: no I/O. Called by render/jobspec/spec.c; tested by test_jobspec_yaml_parse.c.
 */
#include "render/jobspec/yaml_parse.h"
#include "render/jobspec/yaml_anchors.h"
#include "render/jobspec/yaml_doc.h"
#include "render/jobspec/yaml_errors.h"
#include "render/jobspec/yaml_scalar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

struct parse_ctx {
	yaml_parser_t parser;
	struct yaml_doc *doc;
	struct yaml_anchors anchors; /* their texts are kept by doc */
	size_t nodes, bytes;
	size_t steps;
	struct k8s_error *err;
};

static int next_event(struct parse_ctx *c, yaml_event_t *ev)
{
	c->steps++;
	if (!yaml_parser_parse(&c->parser, ev))
		return yaml_syntax_error(&c->parser, c->err);
	return 0;
}

/* Adds n nodes of bytes bytes of text to what the document expands to. */
static int count_nodes(struct parse_ctx *c, size_t n, size_t bytes, yaml_mark_t mark)
{
	c->nodes += n;
	c->bytes += bytes;
	if (c->nodes > YAML_MAX_NODES)
		return yaml_fail_at(c->err, mark,
		                    "the document expands to more than %d nodes (aliases repeated "
		                    "too often?)",
		                    YAML_MAX_NODES);
	if (c->bytes > YAML_MAX_BYTES)
		return yaml_fail_at(c->err, mark,
		                    "the document expands to more than %d MiB of text (aliases "
		                    "repeated too often?)",
		                    YAML_MAX_BYTES >> 20);
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
	return oom ? -ENOMEM : yaml_fail_at(c->err, ev->start_mark, "%s", why);
}

/* ---- anchors ---- */

/* Defines anchor name as value, its text kept by the doc for the aliases' entries. */
static int anchor_add(struct parse_ctx *c, const char *name, json_t *value, size_t size,
                      size_t bytes, const char *text, bool quoted)
{
	struct yaml_anchor a = {NULL, value, size, bytes, NULL, quoted};
	char *kept = NULL;

	if (text && (!(kept = strdup(text)) || yaml_doc_keep(c->doc, kept) < 0)) {
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
			const struct yaml_doc_entry *e;

			c->steps++;
			if (json_object_get(obj, key))
				continue;
			if (json_object_set(obj, key, val) < 0)
				return -ENOMEM;
			/* every member of a source was recorded where it was parsed */
			e = yaml_doc_find(c->doc, merges[i], key, 0);
			if (e && yaml_doc_record(c->doc, obj, key, 0, &e->info, false, e->size,
			                         e->bytes) < 0)
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
		return yaml_fail_at(c->err, mark,
		                    "the merge key << needs a mapping or a list of mappings");
	for (size_t i = 0; json_is_array(val) && i < add; i++)
		if (!json_is_object(json_array_get(val, i)))
			return yaml_fail_at(c->err, mark,
			                    "the merge key << needs mappings in its list");
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
			return yaml_fail_at(c->err, kev->start_mark, "a key holds a NUL character");
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
		return yaml_fail_at(c->err, kev->start_mark,
		                    "a mapping key must be a plain value (a string), not a mapping or a "
		                    "list");
	*key = strdup(text);
	return *key ? 0 : -ENOMEM;
}

/* One key and its value into obj (or into the merge sources for `<<`). */
static int parse_member(struct parse_ctx *c, json_t *obj, const yaml_event_t *kev, int depth,
                        json_t ***merges, size_t *nmerges, struct node *out)
{
	const struct yaml_doc_entry *first;
	struct node val = {0};
	yaml_event_t vev;
	char *key = NULL;
	bool is_merge;
	int rc = key_text(c, kev, &key, &is_merge);

	if (rc < 0)
		return rc;
	first = yaml_doc_find(c->doc, obj, key, 0);
	if (first) {
		rc = yaml_fail_at(c->err, kev->start_mark,
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
		rc = yaml_doc_record(c->doc, obj, key, 0, &val.info, !val.shared_text, val.size,
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
			rc = yaml_doc_record(c->doc, out->value, NULL, i, &item.info,
			                     !item.shared_text, item.size, item.bytes);
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
			return yaml_fail_at(c->err, ev->start_mark,
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
			return yaml_fail_at(c->err, ev->start_mark, "tag %s is not supported on a %s",
			                    tag, map ? "mapping" : "list");
		if (depth >= YAML_MAX_DEPTH)
			return yaml_fail_at(c->err, ev->start_mark, "nested deeper than %d levels",
			                    YAML_MAX_DEPTH);
		rc = count_nodes(c, 1, 0, ev->start_mark);
		if (rc == 0)
			rc = map ? parse_mapping(c, depth, out) : parse_sequence(c, depth, out);
		anchor = (const char *)(map ? ev->data.mapping_start.anchor
		                            : ev->data.sequence_start.anchor);
		break;
	}
	default:
		return yaml_fail_at(c->err, ev->start_mark, "unexpected YAML event");
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
			rc = yaml_fail_at(c->err, start,
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
	c.doc = yaml_doc_new();
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
	yaml_doc_finish(c.doc, root.value, &root.info, c.steps);
	*out = c.doc;
	return 0;
}
