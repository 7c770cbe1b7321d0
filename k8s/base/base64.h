/*
 * Standard base64 (RFC 4648, with padding), as kubeconfig's *-data fields and
 * HTTP basic auth use it (k8s/auth/), and as a ConfigMap's binaryData carries a
 * job's shipped code (render/jobspec/code.c). Pure. Part of the floor (k8s/base/README.md).
 */
#ifndef ARENAFS_K8S_BASE_BASE64_H
#define ARENAFS_K8S_BASE_BASE64_H

#include <stddef.h>

/*
 * Decodes s (whitespace ignored, padding optional) into a malloc'd buffer,
 * NUL-terminated for convenience; *len gets the byte count. Returns NULL for
 * text that is not base64 (errno EINVAL) or on allocation failure (ENOMEM).
 */
char *k8s_base64_decode(const char *s, size_t *len);
/* Encodes len bytes into a malloc'd NUL-terminated string, or NULL (ENOMEM). */
char *k8s_base64_encode(const void *data, size_t len);

#endif
