/*
 * render/jobspec/trainjob.c's functions the spec compiler's other files call. Pure: no
 * I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_TRAINJOB_H
#define ARENAFS_RENDER_SPEC_TRAINJOB_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

/* The TrainJob of a small spec of type trainjob; -ENOMEM is its only error. */
int spec_build_trainjob(const struct job_spec *s, const char *ns, json_t **out);

#endif
