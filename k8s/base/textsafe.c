/*
 * One safe line of text (textsafe.h): controls (bidirectional ones included) as
 * spaces, bytes that are not UTF-8 as U+FFFD.
 *
 * Pure: no I/O, no locks. Called by render/text.c, render/why.c, k8s/error.c,
 * k8s/base/say.c and fs/submit/staging.c. Tested by tests/unit/test_k8s_base_textsafe.c.
 */
#include "k8s/base/textsafe.h"

#include <stdbool.h>
#include <stdint.h>
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

/* The code point of the valid UTF-8 character of n bytes at s. */
static uint32_t utf8_decode(const unsigned char *s, size_t n)
{
	uint32_t cp = n == 1 ? s[0] : s[0] & (0x7F >> n);

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3F);
	return cp;
}

bool textsafe_is_bidi_control(uint32_t cp)
{
	/* Unicode's Bidi_Control property (PropList.txt): ALM, LRM and RLM, the
	 * embeddings and overrides LRE RLE PDF LRO RLO, the isolates LRI RLI FSI PDI */
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Does the character cp show as a space? C0 controls and DEL, C1 controls
 * (terminals obey them too), U+2028 and U+2029 (a second line to an editor or a
 * browser), and the bidirectional controls: an override or isolate makes a
 * terminal or a browser show the characters after it in another order than
 * they are (Trojan Source, CVE-2021-42574), so that a line reads as something
 * else; as spaces, the line reads in the order it holds. */
static bool shows_as_space(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
	       textsafe_is_bidi_control(cp);
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
	if (shows_as_space(utf8_decode(s, n))) {
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
