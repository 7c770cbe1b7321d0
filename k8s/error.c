/*
 * The error type and the one Status → errno mapping (see error.h).
 */
#include "k8s/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "k8s/base/textsafe.h"

void k8s_error_clear(struct k8s_error *e)
{
	if (!e)
		return;
	e->code = 0;
	e->err = 0;
	e->reason[0] = '\0';
	e->message[0] = '\0';
}

int k8s_errno_for_status(int code, const char *reason)
{
	if (!reason)
		reason = "";
	switch (code) {
	case 400:
	case 422:
		return EINVAL;
	case 401:
	case 403:
		return EACCES;
	case 404:
		return ENOENT;
	case 405:
		return EPERM;
	case 409:
		return strcmp(reason, "AlreadyExists") == 0 ? EEXIST : EBUSY;
	case 410:
		return ESTALE;
	case 504:
		return ETIMEDOUT;
	default:
		if (strcmp(reason, "Timeout") == 0)
			return ETIMEDOUT;
		return EIO;
	}
}

/* The message, made one safe line (textsafe.h): an API server's words may hold
 * newlines, escape sequences and bytes that are not UTF-8 (a policy webhook's
 * multi-line message, a hostile server), and every message ends up in a file of
 * the tree or the daemon's log. */
static void set_message(struct k8s_error *e, const char *fmt, va_list ap)
{
	char raw[K8S_ERROR_MESSAGE_MAX];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	textsafe_line_buf(e->message, sizeof(e->message), raw, strlen(raw));
}

int k8s_error_status(struct k8s_error *e, int code, const char *reason, const char *fmt, ...)
{
	int err = k8s_errno_for_status(code, reason);
	va_list ap;

	if (!e)
		return -err;
	e->code = code;
	e->err = err;
	snprintf(e->reason, sizeof(e->reason), "%s", reason ? reason : "");
	va_start(ap, fmt);
	set_message(e, fmt, ap);
	va_end(ap);
	return -err;
}

int k8s_error_set(struct k8s_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -err;
	e->code = 0;
	e->err = err;
	e->reason[0] = '\0';
	va_start(ap, fmt);
	set_message(e, fmt, ap);
	va_end(ap);
	return -err;
}

void k8s_error_prefix(struct k8s_error *e, const char *fmt, ...)
{
	char raw[512], prefix[512];
	size_t plen, mlen;
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	textsafe_line_buf(prefix, sizeof(prefix), raw, strlen(raw));
	plen = strlen(prefix);
	if (plen >= sizeof(e->message))
		plen = sizeof(e->message) - 1;
	mlen = strnlen(e->message, sizeof(e->message) - 1);
	/* the end of the old message is cut, at a character's end */
	mlen = textsafe_cut(e->message, mlen, sizeof(e->message) - 1 - plen);
	memmove(e->message + plen, e->message, mlen);
	memcpy(e->message, prefix, plen);
	e->message[plen + mlen] = '\0';
}

bool k8s_error_unreachable(const struct k8s_error *e)
{
	return e->code == 0 && (strcmp(e->reason, K8S_REASON_TLS) == 0 ||
	                        strcmp(e->reason, K8S_REASON_UNREACHABLE) == 0);
}
