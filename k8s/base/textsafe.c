/*
 * One safe line of text (textsafe.h): controls as spaces, bytes that are not
 * UTF-8 as U+FFFD.
 *
 * Pure: no I/O, no locks. Called by render/text.c, render/why.c, k8s/error.c,
 * k8s/base/say.c and fs/submit/staging.c. Tested by tests/unit/test_k8s_base_textsafe.c.
 */
#include "k8s/base/textsafe.h"

#include <stdbool.h>
#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* The length of the valid UTF-8 character at s (1 to 4), or 0 when s[0] begins
 * none: a stray continuation byte, an overlong form, a surrogate, past U+10FFFF,
 * or cut short. */
static size_t utf8_char(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* What character at s (of len bytes) shows as: *out and its length, and how many
 * bytes of s it takes. */
static size_t safe_char(const unsigned char *s, size_t len, const char **out, size_t *out_len)
{
	size_t n = utf8_char(s, len);

	if (n == 0) {
		*out = REPLACEMENT;
		*out_len = sizeof(REPLACEMENT) - 1;
		return 1;
	}
	/* C0 controls and DEL; C1 controls ("\xC2\x80".."\xC2\x9F"); U+2028 and
	 * U+2029 ("\xE2\x80\xA8", "\xE2\x80\xA9") */
	if ((n == 1 && (s[0] < 0x20 || s[0] == 0x7F)) || (n == 2 && s[0] == 0xC2 && s[1] <= 0x9F) ||
	    (n == 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))) {
		*out = " ";
		*out_len = 1;
	} else {
		*out = (const char *)s;
		*out_len = n;
	}
	return n;
}

void textsafe_line(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		const char *out;
		size_t out_len;

		i += safe_char(p + i, len - i, &out, &out_len);
		strbuf_append(sb, out, out_len);
	}
}

char *textsafe_line_buf(char *buf, size_t size, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;

	for (size_t i = 0; i < len;) {
		const char *out;
		size_t out_len, took = safe_char(p + i, len - i, &out, &out_len);

		if (used + out_len >= size)
			break;
		memcpy(buf + used, out, out_len);
		used += out_len;
		i += took;
	}
	buf[used] = '\0';
	return buf;
}

size_t textsafe_cut(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return len;
	for (int back = 0; back < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; back++)
		n--;
	return n;
}
