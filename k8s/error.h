/*
 * The one error type of arenafs: what went wrong, in the words a user needs.
 *
 * Functions return 0 or -errno; when they fail they also fill a struct k8s_error
 * the caller passed in (which may be NULL when the caller does not care). The
 * message ends up in a file of the tree (submit/NAME/error, cluster/health), so
 * it is written for people: the API server's own message, a YAML line and
 * column, the name of a bad key. It never holds a secret (token, key, password).
 *
 * k8s_errno_for_status() is the only place that maps a Kubernetes Status to errno
 * (the table is in docs/k8s-client.md, "Errors").
 */
#ifndef ARENAFS_K8S_ERROR_H
#define ARENAFS_K8S_ERROR_H

#include <stdbool.h>

#define K8S_ERROR_REASON_MAX  64
#define K8S_ERROR_MESSAGE_MAX 2048

/* reason of a transport error that trying again cannot mend: the server's
 * certificate does not verify, or ours is unreadable */
#define K8S_REASON_TLS "TLS"
/* reason of any other transport error but a timeout: no connection or no answer at
 * all (refused, no route, reset). A timeout has no reason: a slow server is there. */
#define K8S_REASON_UNREACHABLE "Unreachable"

struct k8s_error {
	int code;                              /* HTTP status of a Status; 0 for local or transport errors */
	int err;                               /* errno this error maps to (positive), 0 when unset */
	char reason[K8S_ERROR_REASON_MAX];     /* Status.reason ("AlreadyExists"), or "" */
	char message[K8S_ERROR_MESSAGE_MAX];   /* one readable line: no control character, UTF-8
	                                          (made so when set: k8s/base/textsafe.h) */
};

/* Resets to "no error". */
void k8s_error_clear(struct k8s_error *e);
/*
 * Records an error from an API server Status (code, reason, message). The errno
 * is derived with k8s_errno_for_status. Returns the negative errno, so callers can
 * write `return k8s_error_status(e, 404, "NotFound", "...");`. e may be NULL.
 */
int k8s_error_status(struct k8s_error *e, int code, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Records a local error (bad input, transport failure) with an explicit errno
 * (positive, e.g. EINVAL or EIO). Returns -err. e may be NULL.
 */
int k8s_error_set(struct k8s_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Prefixes the message with context ("creating tfjobs/mnist: ").
 */
void k8s_error_prefix(struct k8s_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The errno for an HTTP status and reason: 401/403 → EACCES, 404 → ENOENT,
 * 405 → EPERM, 409 AlreadyExists → EEXIST, 409 Conflict → EBUSY, 400/422 → EINVAL,
 * 410 → ESTALE, 504/Timeout → ETIMEDOUT, other (429, 5xx) → EIO. Called by
 * k8s_error_status() and tests/unit/test_k8s_error.c.
 */
int k8s_errno_for_status(int code, const char *reason);
/* Was e a transport error: the API server gave no answer at all (reason TLS or
 * Unreachable)? */
bool k8s_error_unreachable(const struct k8s_error *e);

#endif
