/*
 * Reads an oversize object's type, name and namespace from its first bytes
 * (oversize.h): a scan of the JSON that tracks nesting, strings and the keys on
 * the way down, and copies the string values at the three paths it wants. It
 * never judges syntax; a prefix cut anywhere only leaves fields "".
 * Tested by tests/unit/test_k8s_oversize.c.
 */
#include "k8s/cache/oversize.h"

#include <stdio.h>
#include <string.h>

#define DEPTH_MAX 4
#define KEY_MAX   16

struct walk {
	char keys[DEPTH_MAX][KEY_MAX]; /* the key of each open object, "" past KEY_MAX */
	int depth;                     /* objects open; deeper ones are not followed */
	bool in_event;
	struct oversize *out;
};

/* Does the path to the value of key at the current depth end in want? */
static bool at(const struct walk *w, const char *key, const char *const *want, int n)
{
	int base = w->in_event ? 1 : 0;

	if (w->depth != base + n || strcmp(key, want[n - 1]) != 0)
		return false;
	if (w->in_event && strcmp(w->keys[1], "object") != 0)
		return false;
	for (int i = 0; i < n - 1; i++)
		if (strcmp(w->keys[base + 1 + i], want[i]) != 0)
			return false;
	return true;
}

static void found(struct walk *w, const char *key, const char *v, size_t n)
{
	static const char *const NAME[] = {"metadata", "name"};
	static const char *const NS[] = {"metadata", "namespace"};
	char *dst = NULL;
	size_t size = 0;

	if (w->in_event && w->depth == 1 && strcmp(key, "type") == 0) {
		dst = w->out->type;
		size = sizeof(w->out->type);
	} else if (at(w, key, NAME, 2)) {
		dst = w->out->name;
		size = sizeof(w->out->name);
	} else if (at(w, key, NS, 2)) {
		dst = w->out->ns;
		size = sizeof(w->out->ns);
	}
	if (dst && n < size && !memchr(v, '\\', n)) {
		memcpy(dst, v, n);
		dst[n] = '\0';
	}
}

/* The string starting after the quote at i: its end (the closing quote), or len. */
static size_t string_end(const char *t, size_t i, size_t len)
{
	while (i < len && t[i] != '"')
		i += t[i] == '\\' ? 2 : 1;
	return i < len ? i : len;
}

void oversize_identify(const char *t, size_t len, bool in_event, size_t bytes,
                       struct oversize *out)
{
	struct walk w = {.depth = 0, .in_event = in_event, .out = out};
	char key[KEY_MAX] = "";
	bool want_key = false, after_colon = false;
	int nest = 0; /* all nesting, arrays and objects deeper than DEPTH_MAX included */

	memset(out, 0, sizeof(*out));
	out->bytes = bytes;
	for (size_t i = 0; i < len; i++) {
		char c = t[i];

		if (c == '"') {
			size_t end = string_end(t, i + 1, len), n = end - (i + 1);

			if (end >= len)
				return;
			if (want_key && nest == w.depth) {
				if (n < KEY_MAX) {
					memcpy(key, t + i + 1, n);
					key[n] = '\0';
				} else {
					key[0] = '\0';
				}
			} else if (after_colon && nest == w.depth) {
				found(&w, key, t + i + 1, n);
			}
			want_key = after_colon = false;
			i = end;
		} else if (c == '{') {
			if (nest == w.depth && w.depth < DEPTH_MAX && (after_colon || w.depth == 0)) {
				snprintf(w.keys[w.depth], KEY_MAX, "%s", w.depth ? key : "");
				w.depth++;
			}
			nest++;
			want_key = nest == w.depth;
			after_colon = false;
		} else if (c == '[') {
			nest++;
			want_key = after_colon = false;
		} else if (c == '}' || c == ']') {
			if (nest == w.depth && c == '}' && w.depth > 0)
				w.depth--;
			nest--;
			want_key = after_colon = false;
		} else if (c == ':') {
			after_colon = true;
		} else if (c == ',') {
			want_key = nest == w.depth;
			after_colon = false;
		}
	}
}
