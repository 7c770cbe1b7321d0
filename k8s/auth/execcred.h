/*
 * One run of an exec credential plugin (internal to k8s/, used by creds.c):
 * spawns the command with KUBERNETES_EXEC_INFO, its env and args, stdin from
 * /dev/null, in a process group of its own, under a deadline, and decodes the
 * ExecCredential it prints. No caching here (creds.c caches until the expiry).
 * Safe to call from any thread: posix_spawn, no fork of a threaded process.
 */
#ifndef ARENAFS_K8S_EXECCRED_H
#define ARENAFS_K8S_EXECCRED_H

#include <stddef.h>
#include <stdint.h>

#include "k8s/auth/config.h"
#include "k8s/error.h"

struct execcred_result {
	char *token;    /* status.token, or NULL */
	char *cert_pem; /* status.clientCertificateData, or NULL */
	size_t cert_len;
	char *key_pem; /* status.clientKeyData, or NULL */
	size_t key_len;
	int64_t expires; /* Unix seconds of expirationTimestamp; 0: never */
};

/* -EACCES when the plugin fails or prints no usable credential (err holds its stderr),
 * -ETIMEDOUT past timeout_ms (the plugin and every process it started are killed). */
int execcred_run(const struct k8s_config *cfg, int timeout_ms, struct execcred_result *out,
                 struct k8s_error *err);
/* Zeroes and frees the result's secrets. */
void execcred_result_clear(struct execcred_result *r);
/* SIGKILLs the process groups of the plugins running now. Async-signal-safe: for a
 * daemon that exits on a signal (the plugin is in a group of its own, which a
 * terminal's Ctrl-C does not reach). */
void execcred_kill_running(void);

#endif
