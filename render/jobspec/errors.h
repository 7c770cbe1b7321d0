/*
 * Every mistake of a small spec at once (render/jobspec/errors.c): validation goes on
 * after a refused key, each spec_fail adds its message here, and the spec's error
 * is them all in line order, joined with "; " on one line (docs/submit.md, "error").
 *
 * Pure: no I/O, no locks. Used by values.c (spec_fail) and validate.c; tested by
 * tests/unit/test_jobspec_errors.c.
 */
#ifndef ARENAFS_RENDER_SPEC_ERRORS_H
#define ARENAFS_RENDER_SPEC_ERRORS_H

#include <stdbool.h>

#include "render/jobspec/spec_internal.h"

/* Starts collecting c's mistakes (c->errors); -ENOMEM (err set) when it cannot. */
int spec_errors_begin(struct spec_ctx *c);

/* One more mistake: at line, column (0: none; these follow the placed ones), on
 * path (the key, or "key.sub"), the message as a user reads it. */
void spec_errors_add(struct spec_ctx *c, int line, int column, const char *path,
                     const char *message);

/* Was a mistake found at key, or below it (key.sub, key[i])? Then the rules
 * about key's value say nothing more. */
bool spec_errors_at(const struct spec_ctx *c, const char *key);

/*
 * Ends collecting: with mistakes found, c->err holds them all in line order and
 * -EINVAL is returned; else rc as it was (0, or a harder error such as -ENOMEM,
 * which wins).
 */
int spec_errors_end(struct spec_ctx *c, int rc);

#endif
