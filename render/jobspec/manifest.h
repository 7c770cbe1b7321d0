/*
 * render/jobspec/manifest.c's functions the spec compiler's other files call. Pure: no
 * I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_MANIFEST_H
#define ARENAFS_RENDER_SPEC_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

int spec_validate_manifest(struct spec_ctx *c);

int spec_build_manifest(const struct job_spec *s, const char *ns, json_t **out,
                        struct k8s_error *err);

#endif
