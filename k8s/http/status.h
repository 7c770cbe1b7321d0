/*
 * Decoding of the API server's answers that are not 2xx: a metav1.Status body
 * (code, reason, message, details.causes) into struct k8s_error, or, for a body
 * that is not a Status (a proxy's HTML page), client-go's wording for the HTTP
 * code. The errno comes from k8s_errno_for_status() (error.c), nowhere else.
 *
 * Used by client.c for every non-2xx response, and by the watch code for ERROR
 * events, whose object is a Status. Pure: no I/O, no locks.
 */
#ifndef ARENAFS_K8S_STATUS_H
#define ARENAFS_K8S_STATUS_H

#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"

/*
 * Fills err from a response with HTTP status http_code and body (len bytes, need
 * not be NUL-terminated). Returns the negative errno.
 */
int k8s_status_decode(int http_code, const char *body, size_t len, struct k8s_error *err);

/*
 * Fills err from a decoded Status object (a watch ERROR event's "object"). The
 * Status's own code wins; http_code is used when it has none (0: 500). Causes
 * not already in the message are appended to it ("; field: message").
 */
int k8s_status_from_json(const json_t *status, int http_code, struct k8s_error *err);

#endif
