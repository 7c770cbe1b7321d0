/*
 * render/jobspec/build.c's functions the spec compiler's other files call. Pure: no I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_BUILD_H
#define ARENAFS_RENDER_SPEC_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

/* The job object of a small spec of a kind other than TrainJob: 0, or -ENOMEM. */
int spec_build_small(const struct job_spec *s, const char *ns, json_t **out);

/* The labels every object of the job carries (app, release, createdBy, arenafs). */
json_t *spec_base_labels(const struct job_spec *s);

/* The replica type whose pod 0 is the job's main pod, as the operators label it
 * (training.kubeflow.org/replica-type): "chief", "master" or "worker". */
const char *spec_main_replica(const struct job_spec *s);

/* requests and limits alike, as Arena's charts set them; NULL with nothing to set
 * (and on allocation failure: *oom tells them apart). */
json_t *spec_resources(const struct job_spec *s, long long gpus, bool cpu_memory, bool *oom);

/* imagePullSecrets: [{name: ...}] of the spec's image_pull_secrets. */
json_t *spec_pull_secrets(const struct job_spec *s);

/* The training-logs-volume: the hostPath holding the TensorBoard logs when
 * s->local_logs (/arena_logs/<ns>/<name>). */
json_t *spec_host_log_volume(const struct job_spec *s, const char *ns);

#endif
