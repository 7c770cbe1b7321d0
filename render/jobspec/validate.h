/*
 * render/jobspec/validate.c's functions the spec compiler's other files call. Pure: no
 * I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_VALIDATE_H
#define ARENAFS_RENDER_SPEC_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

/* Fills c->s from the small spec at c->root. */
int spec_validate_small(struct spec_ctx *c);

/* "tfjob, pytorchjob, mpijob": the types the cluster serves (for messages). */
void spec_served_types(const bool *served, char *buf, size_t size);

#endif
