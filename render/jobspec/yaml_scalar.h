/*
 * One YAML scalar → its JSON value, by go-yaml v2's YAML 1.1 resolution (what
 * sigs.k8s.io/yaml gives Kubernetes): see yaml_parse.h for the rules.
 *
 * Pure. Used by yaml_parse.c only.
 */
#ifndef ARENAFS_SPEC_YAML_SCALAR_H
#define ARENAFS_SPEC_YAML_SCALAR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/*
 * The value of the scalar text (len bytes, may hold NUL when quoted), with its
 * tag (NULL, or "!" for none) and style (plain: unquoted). NULL when it has no
 * JSON form: why then says so, or *oom is set.
 */
json_t *yaml_scalar_json(const char *text, size_t len, const char *tag, bool plain, char *why,
                         size_t whysize, bool *oom);

#endif
