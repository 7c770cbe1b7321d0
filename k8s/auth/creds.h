/*
 * Runtime credentials of one client (internal to k8s/): what each request
 * presents, kept fresh the way client-go keeps it.
 *
 * - a static bearer token;
 * - a token file, re-read at most every token_file_reread_ms (client-go: 1 min)
 *   and at once after a 401;
 * - an exec plugin (client.authentication.k8s.io/v1 or v1beta1), run with
 *   KUBERNETES_EXEC_INFO, its env and args and stdin from /dev/null, under a
 *   deadline; its token or client certificate is cached until its
 *   expirationTimestamp and dropped after a 401;
 * - basic auth; and the kubeconfig's client certificate, which plugin output
 *   replaces.
 *
 * Thread-safe: one mutex; a plugin runs under it, so concurrent requests wait
 * for one run instead of starting many. Secrets are zeroed when freed and never
 * put into error messages (a failing plugin's stderr is; its stdout is not).
 */
#ifndef ARENAFS_K8S_CREDS_H
#define ARENAFS_K8S_CREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/auth/config.h"
#include "k8s/error.h"

#define CREDS_TOKEN_FILE_REREAD_MS 60000 /* client-go's cachingTokenSource period */
#define CREDS_EXEC_TIMEOUT_MS      20000 /* without a deadline, a plugin silent this long is killed */

struct k8s_creds;

struct k8s_creds_options {
	int token_file_reread_ms; /* <= 0: CREDS_TOKEN_FILE_REREAD_MS */
	int exec_timeout_ms;      /* <= 0: CREDS_EXEC_TIMEOUT_MS */
};

/* What one request authenticates with: a copy, owned by the caller (creds_auth_clear). */
struct creds_auth {
	char *authorization; /* "Bearer ..." or "Basic ...": the header's value, or NULL */
	char *cert_pem;      /* client certificate (kubeconfig or plugin), or NULL */
	size_t cert_len;
	char *key_pem;
	size_t key_len;
	uint64_t generation; /* give back to creds_invalidate() after a 401 */
};

/* cfg must outlive the creds. Runs nothing yet: the first creds_get() does. */
int creds_new(const struct k8s_config *cfg, const struct k8s_creds_options *opts,
              struct k8s_creds **out, struct k8s_error *err);
void creds_free(struct k8s_creds *c);

/* Fills *out with the current credentials, re-reading or re-running as needed.
 * timeout_ms > 0: what is left of the deadline of what needs them (a request, the
 * start-up), at which a plugin run for it is killed; 0 (a stream, which has no
 * deadline): exec_timeout_ms.
 * -EACCES (plugin failed, token file unreadable), -ETIMEDOUT (plugin deadline). */
int creds_get(struct k8s_creds *c, int timeout_ms, struct creds_auth *out,
              struct k8s_error *err);
/* Zeroes and frees what creds_get() put into a. */
void creds_auth_clear(struct creds_auth *a);

/*
 * The server answered 401 to credentials of generation gen: drop them (once, even
 * when many requests saw the 401). Returns true when the next creds_get() may
 * present something different (a plugin or a token file), so a retry is worth it.
 */
bool creds_invalidate(struct k8s_creds *c, uint64_t gen);

/* Presents cfg's credentials from now on (a rewritten kubeconfig: the same
 * server, other credentials); cfg must outlive the creds. What was cached of the
 * old ones (a token, a plugin's answer) is dropped. */
int creds_replace(struct k8s_creds *c, const struct k8s_config *cfg, struct k8s_error *err);

/* How often the exec plugin ran (tests and logs). */
unsigned creds_exec_runs(struct k8s_creds *c);

#endif
