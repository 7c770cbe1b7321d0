/*
 * Watch stream parser (see watchparse.h): cuts the body on '\n' and decodes each
 * line as {"type": ..., "object": {...}}.
 *
 * Lines that arrive whole inside one chunk are decoded straight from the chunk;
 * only the unfinished tail of a chunk is copied, so a fast stream costs one pass
 * over its bytes plus the JSON decoding.
 */
#include "k8s/cache/watchparse.h"
#include "k8s/cache/oversize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const TYPE_NAMES[] = {
    [WATCH_ADDED] = "ADDED",       [WATCH_MODIFIED] = "MODIFIED", [WATCH_DELETED] = "DELETED",
    [WATCH_BOOKMARK] = "BOOKMARK", [WATCH_ERROR] = "ERROR",
};

#define SNIPPET_MAX 80 /* bytes of a bad line quoted in the error message */

const char *watch_event_type_name(enum watch_event_type t)
{
	if ((int)t < 0 || t > WATCH_ERROR)
		return "?";
	return TYPE_NAMES[t];
}

void watchparse_init(struct watch_parser *p, size_t max_line)
{
	memset(p, 0, sizeof(*p));
	p->max_line = max_line ? max_line : WATCHPARSE_LINE_MAX;
}

void watchparse_on_oversize(struct watch_parser *p, watch_oversize_fn fn)
{
	p->on_oversize = fn;
}

void watchparse_free(struct watch_parser *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

/* A printable excerpt of a bad line for the error message. */
static void snippet(const char *s, size_t len, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < size && i < SNIPPET_MAX; i++)
		out[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[n] = '\0';
}

static int parse_type(const char *s, enum watch_event_type *out)
{
	for (int t = WATCH_ADDED; t <= WATCH_ERROR; t++) {
		if (strcmp(s, TYPE_NAMES[t]) == 0) {
			*out = (enum watch_event_type)t;
			return 0;
		}
	}
	return -1;
}

/* Decodes one line and hands it to fn. */
static int deliver_line(struct watch_parser *p, const char *line, size_t len, watch_event_fn fn,
                        void *arg, struct k8s_error *err)
{
	json_error_t jerr;
	json_t *root, *object;
	const char *type;
	struct watch_event ev;
	char snip[SNIPPET_MAX + 1];
	int rc;

	if (is_blank(line, len))
		return 0;
	root = json_loadb(line, len, JSON_ALLOW_NUL, &jerr);
	if (!root) {
		snippet(line, len, snip, sizeof(snip));
		return k8s_error_set(err, EPROTO, "watch stream: not JSON (%s at column %d): %s",
		                     jerr.text, jerr.column, snip);
	}
	type = json_string_value(json_object_get(root, "type"));
	object = json_object_get(root, "object");
	if (!type || !json_is_object(object) || parse_type(type, &ev.type) != 0) {
		snippet(line, len, snip, sizeof(snip));
		json_decref(root);
		return k8s_error_set(err, EPROTO, "watch stream: not a watch event: %s", snip);
	}
	ev.object = object;
	p->events++;
	rc = fn(arg, &ev);
	json_decref(root);
	return rc;
}

static int too_long(const struct watch_parser *p, struct k8s_error *err)
{
	return k8s_error_set(err, E2BIG, "watch stream: an event is longer than %zu bytes (the limit)",
	                     p->max_line);
}

/* Keeps more of the unfinished line: all of it up to the limit; past it, when
 * oversize lines are skipped, only its first OVERSIZE_PREFIX bytes. */
static int append_partial(struct watch_parser *p, const char *data, size_t len,
                          struct k8s_error *err)
{
	size_t need = p->len + len;
	char *nb;

	p->line_bytes += len;
	if (!p->over && need > p->max_line) {
		if (!p->on_oversize)
			return too_long(p, err);
		p->over = true;
		if (p->len > OVERSIZE_PREFIX)
			p->len = OVERSIZE_PREFIX;
	}
	if (p->over) {
		if (len > OVERSIZE_PREFIX - p->len)
			len = OVERSIZE_PREFIX - p->len;
		need = p->len + len;
	}
	if (need > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;

		while (cap < need)
			cap *= 2;
		if (cap > p->max_line && !p->over)
			cap = p->max_line;
		nb = realloc(p->buf, cap);
		if (!nb)
			return k8s_error_set(err, ENOMEM, "watch stream: out of memory");
		p->buf = nb;
		p->cap = cap;
	}
	if (len)
		memcpy(p->buf + p->len, data, len);
	p->len += len;
	return 0;
}

/* The line that ended is over the limit: handed over, and forgotten. */
static int skip_line(struct watch_parser *p, const char *start, size_t len, size_t bytes,
                     void *arg)
{
	p->over = false;
	p->line_bytes = 0;
	return p->on_oversize(arg, start, len, bytes);
}

int watchparse_feed(struct watch_parser *p, const char *data, size_t len, watch_event_fn fn,
                    void *arg, struct k8s_error *err)
{
	size_t pos = 0;
	int rc;

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t seg;

		if (!nl)
			return append_partial(p, data + pos, len - pos, err);
		seg = (size_t)(nl - (data + pos));
		if (p->len || p->over) {
			size_t whole, bytes;

			rc = append_partial(p, data + pos, seg, err);
			if (rc)
				return rc;
			whole = p->len;
			bytes = p->line_bytes;
			p->len = 0; /* p->buf stays valid: nothing appends until we return */
			p->line_bytes = 0;
			rc = p->over ? skip_line(p, p->buf, whole, bytes, arg)
			             : deliver_line(p, p->buf, whole, fn, arg, err);
			if (rc)
				return rc;
		} else if (seg > p->max_line) {
			if (!p->on_oversize)
				return too_long(p, err);
			rc = skip_line(p, data + pos, seg < OVERSIZE_PREFIX ? seg : OVERSIZE_PREFIX,
			               seg, arg);
			if (rc)
				return rc;
		} else {
			rc = deliver_line(p, data + pos, seg, fn, arg, err);
			if (rc)
				return rc;
		}
		pos += seg + 1;
	}
	return 0;
}

int watchparse_finish(struct watch_parser *p, watch_event_fn fn, void *arg, struct k8s_error *err)
{
	size_t len = p->len, bytes = p->line_bytes;

	p->len = 0;
	p->line_bytes = 0;
	if (p->over)
		return skip_line(p, p->buf, len, bytes, arg);
	if (!len)
		return 0;
	return deliver_line(p, p->buf, len, fn, arg, err);
}

bool watch_event_is_gone(const struct watch_event *ev)
{
	json_t *code;

	if (ev->type != WATCH_ERROR)
		return false;
	code = json_object_get(ev->object, "code");
	if (json_is_integer(code) && json_integer_value(code) == 410)
		return true;
	/* A Status without a code but with reason Expired/Gone means the same. */
	if (!code) {
		const char *reason = json_string_value(json_object_get(ev->object, "reason"));

		return reason && (strcmp(reason, "Expired") == 0 || strcmp(reason, "Gone") == 0);
	}
	return false;
}

bool watch_rv_valid(const char *rv)
{
	size_t n = rv ? strlen(rv) : 0;

	if (n == 0 || n > 20 || rv[0] == '0' || strspn(rv, "0123456789") != n)
		return false;
	/* 20 digits: compare with UINT64_MAX as text, no overflow to catch */
	return n < 20 || strcmp(rv, "18446744073709551615") <= 0;
}
