/*
 * base64 (see base64.h). Go's encoding/json, which decodes kubeconfig's []byte
 * fields for kubectl, skips '\r' and '\n'; this also skips other whitespace.
 */
#include "k8s/base/base64.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int value_of(unsigned char c)
{
	const char *p = c ? strchr(ALPHABET, c) : NULL;

	return p ? (int)(p - ALPHABET) : -1;
}

char *k8s_base64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), o = 0, pad = 0;
	unsigned int acc = 0, bits = 0;
	char *out = malloc(n / 4 * 3 + 4);

	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int v;

		if (isspace(*p))
			continue;
		if (*p == '=') {
			pad++;
			continue;
		}
		v = value_of(*p);
		if (v < 0 || pad)
			goto bad;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	/* Leftover bits must be the zero padding of a final partial group. */
	if (pad > 2 || bits >= 6 || (acc & ((1u << bits) - 1)) != 0)
		goto bad;
	out[o] = '\0';
	*len = o;
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}

char *k8s_base64_encode(const void *data, size_t len)
{
	const unsigned char *in = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < len; i += 3) {
		unsigned int v = (unsigned int)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned int)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*o++ = ALPHABET[(v >> 18) & 63];
		*o++ = ALPHABET[(v >> 12) & 63];
		*o++ = i + 1 < len ? ALPHABET[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? ALPHABET[v & 63] : '=';
	}
	*o = '\0';
	return out;
}
