/*
 * Growable buffer (see strbuf.h). No I/O, no locks: safe to use from any room.
 */
#include "k8s/base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->oom)
		return false;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->buf, cap);
	if (!p) {
		sb->oom = true;
		return false;
	}
	sb->buf = p;
	sb->cap = cap;
	return true;
}

void strbuf_append(struct strbuf *sb, const char *data, size_t len)
{
	if (!strbuf_grow(sb, len))
		return;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
	strbuf_append(sb, s, strlen(s));
}

void strbuf_putc(struct strbuf *sb, char c)
{
	strbuf_append(sb, &c, 1);
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !strbuf_grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void strbuf_pad(struct strbuf *sb, const char *s, size_t width)
{
	size_t n = strlen(s);

	strbuf_append(sb, s, n);
	while (n++ < width)
		strbuf_putc(sb, ' ');
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

bool strbuf_ok(const struct strbuf *sb)
{
	return !sb->oom;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *strbuf_take(struct strbuf *sb)
{
	char *p = sb->buf;

	if (sb->oom) {
		free(p);
		p = NULL;
	} else if (!p) {
		p = strdup("");
	}
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->oom = false;
	return p;
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->oom = false;
}
