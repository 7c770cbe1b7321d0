/*
 * The writer of the JSON and YAML forms (render/form_write.h): each value goes
 * straight into the strbuf, in the layout jansson's json_dumps (JSON_INDENT(4) |
 * JSON_PRESERVE_ORDER) and render/yaml_emit.c give a tree of the same values. The
 * forms were built as jansson trees and dumped: at 500 jobs, list.json cost ten
 * times the table (a malloc per value, a hash per key, the tree walked again to
 * dump it; perf: malloc and free first), so the tree is gone and the layout is
 * written here as those two write it.
 *
 * JSON streams as it comes: a container knows it is empty when it closes ("[]").
 * YAML sorts each mapping's keys (kubectl's order, as yaml_emit.c): every entry of
 * an open mapping is written at its full indentation and remembered (its key, where
 * its text starts); when the mapping closes its entries are put in key order, and
 * when it is an item of a sequence its first entry loses its indentation to stand on
 * the dash's line ("- key: v"). What follows a key or a dash (" " or a newline
 * before a collection, " {}" for an empty one) is written when the collection's
 * first value comes or it closes empty.
 *
 * Pure: no I/O, no locks. Used by the form renderers (job_forms.c, node_forms.c,
 * data.c, queue_forms.c, progress.c); tested by tests/unit/test_render_form_write.c
 * against jansson and yaml_emit.c over random documents.
 */
#include "render/form_write.h"
#include "render/yaml_emit.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_INDENT_WIDTH 4     /* Arena's MarshalIndent(..., "", "    ") */
#define YAML_INDENT_WIDTH 2     /* kubectl's, yaml_emit.c's */

static const char SPACES[] = "                                ";

static void put_spaces(struct strbuf *sb, int n)
{
	for (; n > 0; n -= (int)sizeof(SPACES) - 1)
		strbuf_append(sb, SPACES,
		              n < (int)sizeof(SPACES) - 1 ? (size_t)n : sizeof(SPACES) - 1);
}

void render_form_init(struct form *f, struct strbuf *sb, bool yaml)
{
	memset(f, 0, sizeof(*f));
	f->sb = sb;
	f->yaml = yaml;
	f->scratch = (struct strbuf)STRBUF_INIT;
	f->cut = (struct strbuf)STRBUF_INIT;
}

void render_form_finish(struct form *f)
{
	assert(f->depth == 0 || f->failed);
	if (!f->yaml && !f->failed)
		strbuf_putc(f->sb, '\n');
	if (f->failed)
		f->sb->oom = true;
	free(f->entries);
	strbuf_free(&f->scratch);
	strbuf_free(&f->cut);
	f->entries = NULL;
	f->n_entries = f->cap_entries = 0;
}

/* ---- UTF-8 ---- */

/* The length of the valid UTF-8 character at s (left bytes), 0 when none starts
 * there: jansson's rules (no overlong form, no surrogate, nothing past U+10FFFF). */
static size_t utf8_char(const unsigned char *s, size_t left)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xC2 || s[0] > 0xF4)
		return 0;
	n = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
	if (left < n)
		return 0;
	c = s[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xD800 && c <= 0xDFFF) ||
	    c > 0x10FFFF)
		return 0;
	return n;
}

/* s as valid UTF-8: s itself when it is, else a copy in *copy (to free) with U+FFFD
 * for each byte that starts no character. NULL: no memory. */
static const char *utf8_fixed(const char *s, size_t *len, char **copy)
{
	const unsigned char *u = (const unsigned char *)s;
	struct strbuf fixed = STRBUF_INIT;
	size_t i = 0, n;

	*copy = NULL;
	while (i < *len && (n = utf8_char(u + i, *len - i)) != 0)
		i += n;
	if (i == *len)
		return s;
	strbuf_append(&fixed, s, i);
	while (i < *len) {
		n = utf8_char(u + i, *len - i);
		if (n)
			strbuf_append(&fixed, s + i, n);
		else
			strbuf_puts(&fixed, "\xEF\xBF\xBD");
		i += n ? n : 1;
	}
	*len = fixed.len;
	*copy = strbuf_take(&fixed);
	return *copy ? *copy : NULL;
}

/* ---- JSON ---- */

/* A JSON string as jansson dumps it: '"', '\\' and C0 controls escaped (\n, \t, ...,
 * else \u00XX), the rest as it is (UTF-8, '/' unescaped). */
static void json_put_string(struct strbuf *sb, const char *s, size_t len)
{
	size_t run = 0;

	strbuf_putc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc;
		char hex[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		strbuf_append(sb, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			snprintf(hex, sizeof(hex), "\\u%04X", c);
			esc = hex;
		}
		strbuf_puts(sb, esc);
	}
	strbuf_append(sb, s + run, len - run);
	strbuf_putc(sb, '"');
}

/* Before a value in the open container: its separator, indentation and key. */
static void json_before(struct form *f, const char *key)
{
	struct form_frame *p = f->depth ? &f->frames[f->depth - 1] : NULL;

	if (!p)
		return;
	strbuf_puts(f->sb, p->count ? ",\n" : "\n");
	put_spaces(f->sb, f->depth * JSON_INDENT_WIDTH);
	if (p->object) {
		json_put_string(f->sb, key, strlen(key));
		strbuf_puts(f->sb, ": ");
	}
	p->count++;
}

/* ---- YAML ---- */

/* What opens a collection that turns out not to be empty: nothing at the top, " "
 * after a dash (it starts on the dash's line), a newline after a key. */
static void yaml_open(struct form *f, struct form_frame *p)
{
	if (f->depth > 1)
		strbuf_putc(f->sb, p->in_sequence ? ' ' : '\n');
}

static bool remember_entry(struct form *f, const char *key)
{
	if (f->n_entries == f->cap_entries) {
		size_t cap = f->cap_entries ? f->cap_entries * 2 : 32;
		struct form_entry *e = realloc(f->entries, cap * sizeof(*e));

		if (!e)
			return false;
		f->entries = e;
		f->cap_entries = cap;
	}
	f->entries[f->n_entries++] = (struct form_entry){key, f->sb->len, 0};
	return true;
}

/* Before a value in the open collection: its entry's indentation and key, or dash. */
static void yaml_before(struct form *f, const char *key)
{
	struct form_frame *p = f->depth ? &f->frames[f->depth - 1] : NULL;

	if (!p)
		return;
	if (!p->count)
		yaml_open(f, p);
	if (p->object) {
		if (!remember_entry(f, key)) {
			f->failed = true;
			return;
		}
		put_spaces(f->sb, p->indent);
		render_yaml_put_key(f->sb, key, p->indent);
	} else {
		/* a sequence's first item on its dash's line when it is an item itself */
		if (p->count || !p->in_sequence)
			put_spaces(f->sb, p->indent);
		strbuf_putc(f->sb, '-');
	}
	p->count++;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct form_entry *)a)->key, ((const struct form_entry *)b)->key);
}

/* A mapping closes: its entries' texts in key order, the first on the dash's line
 * when it is an item of a sequence. */
static void yaml_sort_mapping(struct form *f, const struct form_frame *p)
{
	struct form_entry *e = f->entries + p->first_entry;
	size_t n = f->n_entries - p->first_entry, start = e[0].at;
	bool sorted = true;

	f->n_entries = p->first_entry;
	for (size_t i = 0; i < n; i++) {
		e[i].end = i + 1 < n ? e[i + 1].at : f->sb->len;
		sorted = sorted && (i == 0 || strcmp(e[i - 1].key, e[i].key) < 0);
	}
	if (sorted && !p->in_sequence)
		return;
	if (!sorted)
		qsort(e, n, sizeof(*e), entry_cmp);
	strbuf_reset(&f->scratch);
	for (size_t i = 0; i < n; i++) {
		size_t skip = i == 0 && p->in_sequence ? (size_t)p->indent : 0;

		strbuf_append(&f->scratch, f->sb->buf + e[i].at + skip, e[i].end - e[i].at - skip);
	}
	if (!strbuf_ok(&f->scratch)) {
		f->failed = true;
		return;
	}
	memcpy(f->sb->buf + start, f->scratch.buf, f->scratch.len);
	f->sb->len = start + f->scratch.len;
	f->sb->buf[f->sb->len] = '\0';
}

/* ---- the values ---- */

static void before(struct form *f, const char *key)
{
	assert(!f->depth || !f->frames[f->depth - 1].object || key);
	if (f->yaml)
		yaml_before(f, key);
	else
		json_before(f, key);
}

static void open_collection(struct form *f, const char *key, bool object)
{
	struct form_frame *p = f->depth ? &f->frames[f->depth - 1] : NULL;
	struct form_frame *c;

	if (f->failed)
		return;
	if (f->depth == FORM_DEPTH_MAX) {
		f->failed = true;
		return;
	}
	before(f, key);
	c = &f->frames[f->depth++];
	*c = (struct form_frame){.object = object, .first_entry = f->n_entries};
	if (!f->yaml) {
		strbuf_putc(f->sb, object ? '{' : '[');
	} else if (p) {
		c->in_sequence = !p->object;
		/* kubectl's layout: a mapping's sequence stays at the key's column */
		c->indent = p->indent + (!p->object || object ? YAML_INDENT_WIDTH : 0);
	}
}

void render_form_object(struct form *f, const char *key)
{
	open_collection(f, key, true);
}

void render_form_array(struct form *f, const char *key)
{
	open_collection(f, key, false);
}

void render_form_end(struct form *f)
{
	struct form_frame *c;

	if (f->failed)
		return;
	assert(f->depth > 0);
	c = &f->frames[f->depth - 1];
	if (!f->yaml) {
		if (c->count) {
			strbuf_putc(f->sb, '\n');
			put_spaces(f->sb, (f->depth - 1) * JSON_INDENT_WIDTH);
		}
		strbuf_putc(f->sb, c->object ? '}' : ']');
	} else if (!c->count) {
		strbuf_puts(f->sb, f->depth > 1 ? " " : "");
		strbuf_puts(f->sb, c->object ? "{}\n" : "[]\n");
	} else if (c->object) {
		yaml_sort_mapping(f, c);
	}
	f->depth--;
}

/* s (len bytes) as a string; terminated: s[len] is its NUL, which yaml_emit.c's
 * writers need (they read a string to its NUL to choose its style). */
static void put_string(struct form *f, const char *key, const char *s, size_t len,
                       bool terminated)
{
	char *copy;

	if (f->failed)
		return;
	if (!(s = utf8_fixed(s, &len, &copy))) {
		f->failed = true;
		return;
	}
	before(f, key);
	if (!f->yaml) {
		json_put_string(f->sb, s, len);
	} else {
		if (!terminated && !copy) {
			strbuf_reset(&f->cut);
			strbuf_append(&f->cut, s, len);
			s = f->cut.oom ? NULL : f->cut.buf ? f->cut.buf : "";
		}
		if (!s) {
			f->failed = true;
			return;
		}
		if (f->depth)
			strbuf_putc(f->sb, ' ');
		render_yaml_put_string(f->sb, s, len,
		                       (f->depth ? f->frames[f->depth - 1].indent : 0) +
		                           YAML_INDENT_WIDTH);
		strbuf_putc(f->sb, '\n');
	}
	free(copy);
}

void render_form_stringn(struct form *f, const char *key, const char *s, size_t len)
{
	put_string(f, key, s, len, false);
}

void render_form_string(struct form *f, const char *key, const char *s)
{
	put_string(f, key, s, strlen(s), true);
}

/* A scalar written as it is in both syntaxes: a number, true, false, null. */
static void put_word(struct form *f, const char *key, const char *word)
{
	if (f->failed)
		return;
	before(f, key);
	if (f->yaml && f->depth)
		strbuf_putc(f->sb, ' ');
	strbuf_puts(f->sb, word);
	if (f->yaml)
		strbuf_putc(f->sb, '\n');
}

void render_form_int(struct form *f, const char *key, int64_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, n);
	put_word(f, key, buf);
}

void render_form_bool(struct form *f, const char *key, bool b)
{
	put_word(f, key, b ? "true" : "false");
}

void render_form_null(struct form *f, const char *key)
{
	put_word(f, key, "null");
}

void render_form_string_or_null(struct form *f, const char *key, const char *s)
{
	if (s)
		render_form_string(f, key, s);
	else
		render_form_null(f, key);
}

void render_form_comma_list(struct form *f, const char *key, const char *list)
{
	render_form_array(f, key);
	while (*list) {
		size_t len = strcspn(list, ",");

		render_form_stringn(f, NULL, list, len);
		list += len + (list[len] == ',');
	}
	render_form_end(f);
}

/* Does s follow JSON's grammar of a number (RFC 8259: -?int frac? exp?)? */
static bool json_number(const char *s)
{
	const char *p = s + (*s == '-');

	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return false;
	if (*p == '.') {
		if (!strspn(++p, "0123456789"))
			return false;
		p += strspn(p, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '+' || p[1] == '-');
		if (!strspn(p, "0123456789"))
			return false;
		p += strspn(p, "0123456789");
	}
	return *p == '\0';
}

void render_form_number_text(struct form *f, const char *key, const char *text)
{
	/* 1e999 is a JSON number that no double holds: readers make it inf, or refuse it */
	if (!json_number(text) || !isfinite(strtod(text, NULL))) {
		render_form_string(f, key, text);
	} else if (!f->yaml || !strpbrk(text, ".eE")) {
		put_word(f, key, text);
	} else if (!f->failed) {
		/* YAML 1.1 reads a float only with a '.' and a signed exponent: as
		 * yaml_emit.c writes reals */
		before(f, key);
		if (f->depth)
			strbuf_putc(f->sb, ' ');
		render_yaml_put_real(f->sb, strtod(text, NULL));
		strbuf_putc(f->sb, '\n');
	}
}
