/*
 * Secrets in memory (internal to k8s/): tokens, keys and passwords are zeroed
 * before their memory is freed, so that a later heap dump or a reused block does
 * not hand them on. Used by kubeconfig.c, creds.c, execcred.c.
 */
#ifndef ARENAFS_K8S_SECRET_H
#define ARENAFS_K8S_SECRET_H

#include <stddef.h>

/* Zeroes len bytes of s (len 0: strlen(s)) and frees it. NULL is fine. */
void k8s_secret_free(char *s, size_t len);

#endif
