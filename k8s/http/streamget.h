/*
 * A GET whose JSON answer is read through k8s_stream_run(), so that the caller's
 * cancel flag stops it at once (k8s_get_json() cannot be cancelled: it runs to its
 * deadline). Used by the reflectors (lists, probes) and the log streams (the pod
 * check), whose threads cache_stop()/logstream_release() must join promptly.
 */
#ifndef ARENAFS_K8S_STREAMGET_H
#define ARENAFS_K8S_STREAMGET_H

#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/http/client.h"

/*
 * GETs path and decodes a JSON object into *out (caller json_decref()s). Returns 0,
 * -ECANCELED when *cancel became true, -EFBIG for an answer over max bytes,
 * -EPROTO when it is not a JSON object, or the request's -errno, with err filled.
 */
int k8s_stream_get_json(struct k8s_client *c, const char *path, atomic_bool *cancel, size_t max,
			json_t **out, struct k8s_error *err);

#endif
