/*
 * YAML text → jansson JSON, the way Kubernetes reads a manifest
 * (sigs.k8s.io/yaml: go-yaml v2's YAML 1.1 resolution, then JSON), with the
 * line and column of every key and value kept beside the tree so that the
 * spec's validation can say where a wrong value is.
 *
 * What the text becomes:
 * - plain (unquoted) scalars: null/~/empty → null; true/false/yes/no/on/off/y/n
 *   (any of their go-yaml v2 spellings) → booleans; integers (decimal, 0x, 0o,
 *   0b, leading-0 octal, '_' separators) → integers; floats → reals, except that
 *   an integral float (2.0, 1e3) becomes an integer, because Go's JSON encoder
 *   writes float64(2) as `2` and Kubernetes then reads it as one;
 *   .inf/.nan are refused (JSON has no such numbers); anything else is a string.
 * - quoted and block (| >) scalars are strings; !!str/!!int/!!float/!!bool/!!null
 *   tags are honoured; other tags are refused.
 * - mapping keys are strings, spelled as written (go-yaml would turn a key `on`
 *   into "true"; for env names and labels that would be a trap, so it is not done).
 * - anchors and aliases are resolved (the alias shares the anchored subtree);
 *   merge keys (`<<: *base`) are applied, explicit keys winning. The expanded
 *   size is bounded (YAML_MAX_NODES, YAML_MAX_BYTES) so an alias bomb is an
 *   error, not an OOM, and what later walks of the tree cost is bounded with it.
 * - duplicate keys in a mapping are an error naming both places.
 * - one document per text: further documents that are empty (a trailing `---`)
 *   are ignored, a second non-empty one is an error.
 *
 * Pure: no I/O. Called by render/jobspec/spec.c. yaml_parse.c reads the text
 * (yaml_scalar.c, yaml_anchors.c, yaml_errors.c beside it); the document and its
 * accessors below are yaml_doc.c's. Tested by tests/unit/test_jobspec_yaml_parse.c.
 */
#ifndef ARENAFS_SPEC_YAML_PARSE_H
#define ARENAFS_SPEC_YAML_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"

/* Nodes (after alias expansion) one document may hold. */
#define YAML_MAX_NODES 100000
/* Bytes of scalars and keys (after alias expansion) one document may hold: what
 * kube-apiserver takes in one request body (3 MiB); more can never be created. */
#define YAML_MAX_BYTES (3 * 1024 * 1024)
/* Nesting depth of mappings and sequences. */
#define YAML_MAX_DEPTH 64

/* A place in the text, 1-based; line 0 means "unknown". */
struct yaml_pos {
	int line;
	int column;
};

/* What the parser knows about one node beside its JSON value. */
struct yaml_node_info {
	struct yaml_pos key;   /* members of a mapping: where the key starts */
	struct yaml_pos value; /* where the value starts (for an alias: the alias) */
	const char *text;      /* scalars: the scalar's text as written (unquoted,
	                        * unescaped); NULL for mappings and sequences */
	bool quoted;           /* the scalar was quoted or a block scalar */
	bool spanned;          /* scalars and aliases: span_start and span_end are set */
	size_t span_start;     /* where the node is written, [start, end), anchor, tag */
	size_t span_end;       /* and quotes included, in characters as libyaml counts
	                        * them (yaml_text_offset turns them into bytes) */
};

struct yaml_doc;

/*
 * Parses len bytes of text. On success *out holds the document (free with
 * yaml_doc_free); an empty text gives a null root. On failure returns -EINVAL
 * and err says "line L, column C: ..." (or -ENOMEM).
 */
int yaml_parse(const char *text, size_t len, struct yaml_doc **out, struct k8s_error *err);
void yaml_doc_free(struct yaml_doc *d);

/* The document's value; owned by d (json_incref it to keep it longer). */
json_t *yaml_doc_root(const struct yaml_doc *d);
/* The work reading the text took, in steps: events read, anchor slots probed, keys
 * merged. For tests: it grows with the text, not with the text's square. */
size_t yaml_doc_steps(const struct yaml_doc *d);
/* Info of the root node, of object[key], of array[index]; NULL when unknown
 * (e.g. a value that was not in the text). The pointers are valid as long as d. */
const struct yaml_node_info *yaml_doc_top(const struct yaml_doc *d);
const struct yaml_node_info *yaml_doc_member(const struct yaml_doc *d, const json_t *object,
                                             const char *key);
const struct yaml_node_info *yaml_doc_item(const struct yaml_doc *d, const json_t *array,
                                           size_t index);

/*
 * The byte offset in text (len bytes, UTF-8) of the character libyaml counts as index
 * (a leading byte-order mark is not counted): for rewriting a value in place. len
 * when index is past the end.
 */
size_t yaml_text_offset(const char *text, size_t len, size_t index);

#endif
