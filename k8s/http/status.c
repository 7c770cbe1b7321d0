/*
 * Status → struct k8s_error (see status.h). The texts for bodies that are not a
 * Status follow client-go's newUnstructuredResponseError, so that arenafs says
 * what kubectl would say for the same answer.
 */
#include "k8s/http/status.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "k8s/base/strbuf.h"

#define BODY_SNIPPET_MAX 200 /* how much of a non-Status body goes into a message */

struct code_text {
	int code;
	const char *reason;
	const char *message;
};

static const struct code_text CODE_TEXTS[] = {
    {400, "BadRequest", "the server rejected our request for an unknown reason"},
    {401, "Unauthorized", "the server has asked for the client to provide credentials"},
    {403, "Forbidden", "the server does not allow access to the requested resource"},
    {404, "NotFound", "the server could not find the requested resource"},
    {405, "MethodNotAllowed", "the server does not allow this method on the requested resource"},
    {406, "NotAcceptable",
     "the server was unable to respond with a content type that the client supports"},
    {409, "Conflict", "the server reported a conflict"},
    {410, "Gone", "the server has asked for the client to provide a more recent version"},
    {413, "RequestEntityTooLarge", "the server has rejected the request because it is too large"},
    {415, "UnsupportedMediaType", "the server was unable to process this media type"},
    {422, "Invalid", "the server rejected our request due to an error in our request"},
    {429, "TooManyRequests",
     "the server has received too many requests and has asked us to try again later"},
    {500, "InternalError", "an error on the server has prevented the request from succeeding"},
    {502, "InternalError", "the server returned a bad gateway error"},
    {503, "ServiceUnavailable", "the server is currently unable to handle the request"},
    {504, "Timeout",
     "the server was unable to return a response in the time allotted, but may still be "
     "processing the request"},
};

static const struct code_text *code_text(int code)
{
	for (size_t i = 0; i < sizeof(CODE_TEXTS) / sizeof(CODE_TEXTS[0]); i++)
		if (CODE_TEXTS[i].code == code)
			return &CODE_TEXTS[i];
	return NULL;
}

static const char *json_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

/* details.causes[]: {reason, message, field}. Appends the ones the message lacks. */
static void append_causes(struct strbuf *sb, const json_t *details)
{
	const json_t *causes = json_object_get(details, "causes");
	const json_t *cause;
	size_t i;

	json_array_foreach(causes, i, cause)
	{
		const char *field = json_str(cause, "field");
		const char *msg = json_str(cause, "message");

		if (!*msg)
			msg = json_str(cause, "reason");
		if (!*msg || strstr(strbuf_str(sb), msg))
			continue;
		strbuf_puts(sb, sb->len ? "; " : "");
		if (*field)
			strbuf_printf(sb, "%s: ", field);
		strbuf_puts(sb, msg);
	}
}

int k8s_status_from_json(const json_t *status, int http_code, struct k8s_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	json_int_t jcode = json_integer_value(json_object_get(status, "code"));
	int code = jcode > 0 && jcode < 1000 ? (int)jcode : http_code > 0 ? http_code : 500;
	const char *reason = json_str(status, "reason");
	const struct code_text *ct = code_text(code);
	int rc;

	strbuf_puts(&sb, json_str(status, "message"));
	append_causes(&sb, json_object_get(status, "details"));
	if (!*reason && ct)
		reason = ct->reason;
	if (sb.len == 0)
		strbuf_puts(&sb, ct ? ct->message : "the server returned an error");
	rc = k8s_error_status(err, code, reason, "%s", strbuf_ok(&sb) ? strbuf_str(&sb) : reason);
	strbuf_free(&sb);
	return rc;
}

/* The first line of a body, printable ASCII only, at most BODY_SNIPPET_MAX bytes. */
static void body_snippet(struct strbuf *sb, const char *body, size_t len)
{
	size_t n = 0;

	while (len && isspace((unsigned char)*body)) {
		body++;
		len--;
	}
	for (size_t i = 0; i < len && n < BODY_SNIPPET_MAX; i++, n++) {
		unsigned char c = (unsigned char)body[i];

		if (c == '\n' || c == '\r')
			break;
		strbuf_putc(sb, c >= 0x20 && c < 0x7f ? (char)c : '?');
	}
}

int k8s_status_decode(int http_code, const char *body, size_t len, struct k8s_error *err)
{
	const struct code_text *ct = code_text(http_code);
	struct strbuf sb = STRBUF_INIT;
	json_t *root = NULL;
	int rc;

	if (body && len)
		root = json_loadb(body, len, 0, NULL);
	if (json_is_object(root) && strcmp(json_str(root, "kind"), "Status") == 0) {
		rc = k8s_status_from_json(root, http_code, err);
		json_decref(root);
		return rc;
	}
	json_decref(root);
	strbuf_puts(&sb, ct ? ct->message : "the server returned an unexpected answer");
	strbuf_printf(&sb, " (HTTP %d", http_code);
	if (body && len) {
		strbuf_puts(&sb, ": ");
		body_snippet(&sb, body, len);
	}
	strbuf_putc(&sb, ')');
	rc = k8s_error_status(err, http_code, ct ? ct->reason : "", "%s",
	                      strbuf_ok(&sb) ? strbuf_str(&sb) : "error");
	strbuf_free(&sb);
	return rc;
}
