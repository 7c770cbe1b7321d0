/*
 * A growable byte buffer: the text of every rendered file, request bodies, URLs.
 *
 * Used by every room. On allocation failure the buffer remembers it (oom) and
 * further appends do nothing, so callers check once at the end with strbuf_ok().
 * The buffer is always NUL-terminated after the first append. The caller owns it
 * and frees it with strbuf_free() or takes it with strbuf_take().
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_STRBUF_H
#define ARENAFS_K8S_BASE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;   /* NUL-terminated text, NULL until the first append */
	size_t len;  /* bytes used, not counting the NUL */
	size_t cap;  /* bytes allocated */
	bool oom;    /* an allocation failed; the content is incomplete */
};

#define STRBUF_INIT {NULL, 0, 0, false}

void strbuf_append(struct strbuf *sb, const char *data, size_t len);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Pads s with spaces on the right to width columns (bytes); longer text is kept whole. */
void strbuf_pad(struct strbuf *sb, const char *s, size_t width);
void strbuf_reset(struct strbuf *sb);
bool strbuf_ok(const struct strbuf *sb);
/* The text, "" when nothing was appended. Valid until the next append. */
const char *strbuf_str(const struct strbuf *sb);
/* Hands the allocation to the caller (NULL on oom, "" when empty) and resets sb. */
char *strbuf_take(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);

#endif
