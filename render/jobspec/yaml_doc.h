/*
 * The document yaml_parse reads a text into (yaml_parse.h's struct yaml_doc): the
 * JSON tree and, beside it, a hash table from (parent container, key or index) to
 * where that node was written and what it expands to, plus the texts of anchors
 * that aliases' entries share. Containers are unique allocations, so they are
 * safe keys; jansson's true/false/null are shared singletons, so a node's own
 * address is not.
 *
 * Here is how it is filled (yaml_parse.c) and looked up (its readers through
 * yaml_parse.h's yaml_doc_* accessors, defined in yaml_doc.c). Pure: no I/O, no
 * locks. Tested through test_jobspec_yaml_parse.c.
 */
#ifndef ARENAFS_SPEC_YAML_DOC_H
#define ARENAFS_SPEC_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/yaml_parse.h"

/* What the table knows of one member or item. */
struct yaml_doc_entry {
	struct yaml_node_info info;
	size_t size, bytes; /* what the value expands to: for merging it elsewhere */
};

/* An empty document (a null root), or NULL when out of memory. */
struct yaml_doc *yaml_doc_new(void);

/*
 * Records info for parent[key] / parent[index] (key NULL), whose value expands to
 * size nodes and bytes bytes. copy_text: info->text is about to go (an event's),
 * take a copy; else it lives as long as d (an anchor's, another entry's) and is
 * shared. 0 or -ENOMEM.
 */
int yaml_doc_record(struct yaml_doc *d, const json_t *parent, const char *key, size_t index,
                    const struct yaml_node_info *info, bool copy_text, size_t size,
                    size_t bytes);
/* The entry of parent[key] / parent[index] (key NULL), or NULL. */
const struct yaml_doc_entry *yaml_doc_find(const struct yaml_doc *d, const json_t *parent,
                                           const char *key, size_t index);

/* Keeps s (owned) as long as the document: texts that entries share. 0 or -ENOMEM
 * (s is then still the caller's). */
int yaml_doc_keep(struct yaml_doc *d, char *s);

/* Ends the reading: the root (a reference, taken), its info (top->text owned, taken;
 * told only when the root is not null) and the steps the reading took. */
void yaml_doc_finish(struct yaml_doc *d, json_t *root, const struct yaml_node_info *top,
                     size_t steps);

#endif
