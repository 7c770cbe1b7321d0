/*
 * What a YAML text that cannot be read is told with: "line L, column C: what",
 * 1-based, from libyaml's marks (yaml_errors.c). One form for the reader's own
 * refusals (duplicate keys, tags, limits) and libyaml's syntax errors, so that a
 * user finds the place the same way whatever went wrong.
 *
 * Pure. Used by yaml_parse.c only; tested through test_jobspec_yaml_parse.c.
 */
#ifndef ARENAFS_SPEC_YAML_ERRORS_H
#define ARENAFS_SPEC_YAML_ERRORS_H

#include <yaml.h>

#include "k8s/error.h"

/* Sets err to EINVAL, "line L, column C: " and the printf-style rest at mark;
 * returns -EINVAL. */
int yaml_fail_at(struct k8s_error *err, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets err from the error the parser p stopped at (ENOMEM, or EINVAL with where and
 * what, and the construct it was in); returns -errno. */
int yaml_syntax_error(const yaml_parser_t *p, struct k8s_error *err);

#endif
