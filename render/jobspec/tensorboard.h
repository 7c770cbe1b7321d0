/*
 * render/jobspec/tensorboard.c's functions the spec compiler's other files call. Pure: no
 * I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_TENSORBOARD_H
#define ARENAFS_RENDER_SPEC_TENSORBOARD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

/* The owner reference (a one-element array) to job as the API server returned it
 * (its uid); Arena patches the same one into what it makes beside a job. */
int spec_owner_ref(const struct job_spec *s, const json_t *job, json_t **out,
                   struct k8s_error *err);

#endif
