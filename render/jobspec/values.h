/*
 * render/jobspec/values.c's functions the spec compiler's other files call. Pure: no I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_VALUES_H
#define ARENAFS_RENDER_SPEC_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

/*
 * Fails with "line L, column C: PATH: message" (EINVAL); at is where to point
 * (NULL: no position), at_key: the key rather than the value.
 */
int spec_fail(struct spec_ctx *c, const struct yaml_node_info *at, bool at_key, const char *path,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* How a value reads in a message: "two" quoted, 2.5, true, a mapping, a list, nothing. */
void spec_describe(const json_t *v, const struct yaml_node_info *info, char *buf, size_t size);

/* Each checks one value; info is where it came from (may be NULL). */
int spec_get_int(struct spec_ctx *c, const char *path, const json_t *v,
                 const struct yaml_node_info *info, long long min, long long max, long long *out);

/* A string; numbers and booleans are taken as written ("64", "yes"). */
int spec_get_string(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, char **out);

int spec_get_bool(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, bool *out);

/* A Kubernetes quantity (4, 500m, 8Gi, 1.5); negative ones are refused. */
int spec_get_quantity(struct spec_ctx *c, const char *path, const json_t *v,
                      const struct yaml_node_info *info, char **out);

/* An absolute path other than "/", with no ".." part. */
int spec_get_path(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, char **out);

/* Seconds: an integer, or a Go duration such as "90s", "1h30m". */
int spec_get_seconds(struct spec_ctx *c, const char *path, const json_t *v,
                     const struct yaml_node_info *info, long long *out);

/* One of the words in choices (NULL-terminated). */
int spec_get_choice(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, const char *const *choices, char **out);

/* A mapping of strings, checked by rule; a null value is "" unless rule->null_is_key. */
int spec_get_string_map(struct spec_ctx *c, const char *path, const json_t *v,
                        const struct yaml_node_info *info, const struct spec_map_rule *rule,
                        json_t **out);

/* Replaces *dst with a copy of src. */
int spec_set_string(struct spec_ctx *c, char **dst, const char *src);

/* Is key in the root mapping with a value (null counts as absent)? */
bool spec_has_key(const struct spec_ctx *c, const char *key);

/*
 * Names the job (c->s->name) after the staging entry (c->entry_name) when that is a
 * valid job name of at most max characters; else keeps the name the text gave
 * (name:, metadata.name), and without one fails saying why the entry's name is none.
 */
int spec_choose_name(struct spec_ctx *c, size_t max);

/* NULL when name is a valid job name of at most max bytes, else why not. */
const char *spec_name_problem(const char *name, size_t max, char *buf, size_t size);

bool spec_is_abs_path(const char *s);

#endif
