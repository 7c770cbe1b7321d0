/*
 * The YAML emitter of render/yaml_emit.h, by hand rather than libyaml's: libyaml
 * picks a scalar's style from its characters alone, so it would write the string
 * "123" or "on" plain, and they would read back as a number and a boolean. Here
 * every string's style is chosen by what YAML 1.1 would resolve it to.
 *
 * Pure: no I/O. Tested by tests/unit/test_render_yaml_emit.c, which reads the text
 * back with /usr/bin/python3's yaml.safe_load and with render/jobspec/yaml_parse.c.
 */
#include "render/yaml_emit.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/textsafe.h"
#include "render/text.h"

/* Indentation per level, as kubectl. */
#define YAML_INDENT 2
/* PyYAML refuses implicit keys longer than 1024 characters; longer ones are written
 * as explicit "? key" entries. */
#define YAML_SIMPLE_KEY_MAX 1000

static void put_indent(struct strbuf *sb, int n)
{
	static const char SPACES[] = "                                ";

	for (; n > 0; n -= (int)sizeof(SPACES) - 1)
		strbuf_append(sb, SPACES, n < (int)sizeof(SPACES) - 1 ? (size_t)n : sizeof(SPACES) - 1);
}

/* The bidirectional control (textsafe.h) of 2 or 3 bytes at s, as its code point,
 * or 0 when s begins none. The strings come from JSON: valid UTF-8. */
static uint32_t bidi_control(const unsigned char *s, size_t left)
{
	uint32_t cp = 0;

	if ((s[0] & 0xE0) == 0xC0 && left >= 2)
		cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
	else if ((s[0] & 0xF0) == 0xE0 && left >= 3)
		cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	return textsafe_is_bidi_control(cp) ? cp : 0;
}

/*
 * Length of the character at s that YAML cannot hold raw (must be escaped inside
 * double quotes), or 0 when it may stand as it is. YAML 1.1 readers refuse C0 and
 * C1 controls, DEL, U+FFFE/U+FFFF, and treat NEL, LS and PS as line breaks; a BOM
 * inside a scalar is kept escaped so nothing mistakes it for a stream's BOM. A
 * bidirectional control is escaped too: raw, it would show a command or a value
 * of spec.yaml in another order than it holds (Trojan Source, CVE-2021-42574).
 */
static size_t needs_escape(const unsigned char *s, size_t left)
{
	if (s[0] < 0x20 || s[0] == 0x7F)
		return 1;
	if (s[0] == 0xC2 && left >= 2 && s[1] >= 0x80 && s[1] <= 0x9F)
		return 2;
	if (s[0] == 0xE2 && left >= 3 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))
		return 3;
	if (s[0] == 0xEF && left >= 3 &&
	    ((s[1] == 0xBB && s[2] == 0xBF) || (s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))))
		return 3;
	if (bidi_control(s, left))
		return (s[0] & 0xE0) == 0xC0 ? 2 : 3;
	return 0;
}

/* Words YAML 1.1 reads as booleans or null (PyYAML's and go-yaml v2's sets, any case). */
static bool is_special_word(const char *s)
{
	static const char *const WORDS[] = {"y",     "n",  "yes", "no",   "true",
	                                    "false", "on", "off", "null", "~"};

	/* most strings stop here: longer than "false", or starting as no word does */
	if (strlen(s) > 5 || !strchr("yYnNtTfFoO~=<", s[0]))
		return false;
	for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++)
		if (strcasecmp(s, WORDS[i]) == 0)
			return true;
	/* "=" is PyYAML's value tag (safe_load refuses it), "<<" a merge key. */
	return strcmp(s, "=") == 0 || strcmp(s, "<<") == 0;
}

/*
 * Could s read as a number or a timestamp? Those all start, after a sign, with a
 * digit or '.', and hold only digits, '.', ':', '_', signs, spaces, 'e', 'x', 'o',
 * 'b', hex digits, 't' and 'z' (2001-12-14t21:59:43.10-05:00, 0x1F, 1_000, 1:30,
 * 6.8523015e+5). A string of that alphabet is quoted even when it would not
 * resolve (10.0.0.1): harmless, and no regex of YAML 1.1 has to be right here.
 */
static bool may_be_number(const char *s)
{
	const char *p = s + (*s == '+' || *s == '-');
	char low[8];

	if (!isdigit((unsigned char)*p) && *p != '.')
		return false;
	render_lower(p, low, sizeof(low));
	if (strcmp(low, ".inf") == 0 || strcmp(low, ".nan") == 0)
		return true;
	for (; *p; p++)
		if (!isxdigit((unsigned char)*p) && !strchr(".:_+- xXoOtTzZ", *p))
			return false;
	return true;
}

/* May s (len bytes, no NUL inside) be written as a plain scalar? */
static bool plain_ok(const char *s, size_t len)
{
	if (len == 0 || strlen(s) != len)
		return false;
	/* Indicators that may not start a plain scalar; '-' may when a non-blank follows
	 * ("--logdir"), but not as a document marker ("---"). */
	if (strchr("?:,[]{}#&*!|>'\"%@` \t", s[0]) ||
	    (s[0] == '-' && (!s[1] || s[1] == ' ' || strncmp(s, "---", 3) == 0)) ||
	    strncmp(s, "...", 3) == 0)
		return false;
	if (s[len - 1] == ' ' || s[len - 1] == ':')
		return false;
	if (strstr(s, ": ") || strstr(s, " #") || strchr(s, '\t'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (needs_escape((const unsigned char *)s + i, len - i))
			return false;
	return !is_special_word(s) && !may_be_number(s);
}

/* May s be a literal block (|)? Only when that keeps it exact and readable back:
 * several lines, nothing that needs escaping but newlines and tabs, a first line
 * that starts with neither a blank nor a newline (the reader takes the indentation
 * from it), and no line of blanks only (a reader may count those as indentation). */
static bool block_ok(const char *s, size_t len)
{
	size_t line_start = 0;
	bool blank = true;

	if (len == 0 || !memchr(s, '\n', len) || strlen(s) != len || s[0] == ' ' || s[0] == '\t' ||
	    s[0] == '\n')
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			if (blank && i > line_start)
				return false;
			line_start = i + 1;
			blank = true;
			continue;
		}
		if (s[i] != '\t' && needs_escape((const unsigned char *)s + i, len - i))
			return false;
		if (s[i] != ' ' && s[i] != '\t')
			blank = false;
	}
	return !(blank && len > line_start);
}

/* One C0 control or DEL inside double quotes: YAML's short escapes, else \xHH. */
static void put_c0_escape(struct strbuf *sb, unsigned char c)
{
	static const char FROM[] = "\a\b\t\n\v\f\r\x1b", TO[] = "abtnvfre";
	const char *p = c ? memchr(FROM, c, sizeof(FROM) - 1) : NULL;

	if (c == 0)
		strbuf_puts(sb, "\\0");
	else if (p)
		strbuf_printf(sb, "\\%c", TO[p - FROM]);
	else
		strbuf_printf(sb, "\\x%02X", c);
}

static void put_double_quoted(struct strbuf *sb, const char *s, size_t len)
{
	strbuf_putc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		const unsigned char *c = (const unsigned char *)s + i;
		size_t n = needs_escape(c, len - i);

		if (*c == '"' || *c == '\\') {
			strbuf_putc(sb, '\\');
			strbuf_putc(sb, (char)*c);
		} else if (n == 0) {
			strbuf_putc(sb, (char)*c);
		} else if (n == 1) {
			put_c0_escape(sb, *c);
		} else if (bidi_control(c, len - i)) {
			strbuf_printf(sb, "\\u%04X", (unsigned)bidi_control(c, len - i));
			i += n - 1;
		} else if (n == 2) {
			if (c[1] == 0x85)
				strbuf_puts(sb, "\\N");
			else
				strbuf_printf(sb, "\\x%02X", c[1]);
			i += 1;
		} else {
			if (c[0] == 0xE2)
				strbuf_puts(sb, c[2] == 0xA8 ? "\\L" : "\\P");
			else
				strbuf_printf(sb, "\\u%s",
				              c[1] == 0xBB   ? "FEFF"
				              : c[2] == 0xBE ? "FFFE"
				                             : "FFFF");
			i += 2;
		}
	}
	strbuf_putc(sb, '"');
}

/* A literal block: header, then each line at indent (empty lines stay empty). */
static void put_block(struct strbuf *sb, const char *s, size_t len, int indent)
{
	size_t end = len, trailing = 0;

	while (end > 0 && s[end - 1] == '\n') {
		end--;
		trailing++;
	}
	strbuf_puts(sb, trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+");
	for (size_t i = 0; i < end;) {
		const char *nl = memchr(s + i, '\n', end - i);
		size_t n = nl ? (size_t)(nl - (s + i)) : end - i;

		strbuf_putc(sb, '\n');
		if (n) {
			put_indent(sb, indent);
			strbuf_append(sb, s + i, n);
		}
		i += n + 1;
	}
	/* Keep chomping: the newlines after the last line are content. */
	for (size_t k = 1; k < trailing; k++)
		strbuf_putc(sb, '\n');
}

void render_yaml_put_real(struct strbuf *sb, double d)
{
	char buf[48];
	char *e;

	snprintf(buf, sizeof(buf), "%.*g", render_real_digits(d), d);
	/* YAML 1.1 floats need a '.' ("1e+20" would read as a string). */
	if (!strchr(buf, '.')) {
		e = strchr(buf, 'e');
		if (e) {
			memmove(e + 2, e, strlen(e) + 1);
			e[0] = '.';
			e[1] = '0';
		} else {
			strcat(buf, ".0");
		}
	}
	strbuf_puts(sb, buf);
}

/* A scalar; block_indent is where a literal block's lines go (-1: never a block, for keys). */
static void put_scalar(struct strbuf *sb, const json_t *v, int block_indent)
{
	const char *s;
	size_t len;

	switch (json_typeof(v)) {
	case JSON_NULL:
		strbuf_puts(sb, "null");
		return;
	case JSON_TRUE:
		strbuf_puts(sb, "true");
		return;
	case JSON_FALSE:
		strbuf_puts(sb, "false");
		return;
	case JSON_INTEGER:
		strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	case JSON_REAL:
		render_yaml_put_real(sb, json_real_value(v));
		return;
	default:
		break;
	}
	s = json_string_value(v);
	len = json_string_length(v);
	render_yaml_put_string(sb, s, len, block_indent);
}

static void put_key(struct strbuf *sb, const char *key)
{
	size_t len = strlen(key);

	if (plain_ok(key, len))
		strbuf_append(sb, key, len);
	else
		put_double_quoted(sb, key, len);
}

/* A mapping's key and its colon, after the indentation of the entry at indent. */
void render_yaml_put_key(struct strbuf *sb, const char *key, int indent)
{
	if (strlen(key) > YAML_SIMPLE_KEY_MAX) {
		strbuf_puts(sb, "? ");
		put_key(sb, key);
		strbuf_putc(sb, '\n');
		put_indent(sb, indent);
	} else {
		put_key(sb, key);
	}
	strbuf_putc(sb, ':');
}

void render_yaml_put_string(struct strbuf *sb, const char *s, size_t len, int block_indent)
{
	if (plain_ok(s, len))
		strbuf_append(sb, s, len);
	else if (block_indent >= 0 && block_ok(s, len))
		put_block(sb, s, len, block_indent);
	else
		put_double_quoted(sb, s, len);
}

static bool is_collection(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v) > 0) ||
	       (json_is_array(v) && json_array_size(v) > 0);
}

static void emit_mapping(struct strbuf *sb, const json_t *v, int indent, bool first_inline);
static void emit_sequence(struct strbuf *sb, const json_t *v, int indent, bool first_inline);

/* What follows "key:" (or "-") of an entry at indent: the value and its newline. */
static void emit_value(struct strbuf *sb, const json_t *v, int indent, bool in_sequence)
{
	if (!is_collection(v)) {
		strbuf_putc(sb, ' ');
		if (json_is_object(v))
			strbuf_puts(sb, "{}");
		else if (json_is_array(v))
			strbuf_puts(sb, "[]");
		else
			put_scalar(sb, v, indent + YAML_INDENT);
		strbuf_putc(sb, '\n');
	} else if (in_sequence) {
		/* "- key: v" and "- - x": the collection starts on the dash's line. */
		strbuf_putc(sb, ' ');
		if (json_is_object(v))
			emit_mapping(sb, v, indent + YAML_INDENT, true);
		else
			emit_sequence(sb, v, indent + YAML_INDENT, true);
	} else {
		strbuf_putc(sb, '\n');
		/* kubectl's layout: a mapping's sequence stays at the key's column. */
		if (json_is_object(v))
			emit_mapping(sb, v, indent + YAML_INDENT, false);
		else
			emit_sequence(sb, v, indent, false);
	}
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void emit_mapping(struct strbuf *sb, const json_t *v, int indent, bool first_inline)
{
	size_t n = json_object_size(v), i = 0;
	const char **keys = malloc(n * sizeof(*keys));
	const char *key;
	json_t *value;

	if (!keys) {
		sb->oom = true;
		return;
	}
	json_object_foreach((json_t *)v, key, value) keys[i++] = key;
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < n; i++) {
		if (i > 0 || !first_inline)
			put_indent(sb, indent);
		render_yaml_put_key(sb, keys[i], indent);
		emit_value(sb, json_object_get(v, keys[i]), indent, false);
	}
	free(keys);
}

static void emit_sequence(struct strbuf *sb, const json_t *v, int indent, bool first_inline)
{
	for (size_t i = 0; i < json_array_size(v); i++) {
		if (i > 0 || !first_inline)
			put_indent(sb, indent);
		strbuf_putc(sb, '-');
		emit_value(sb, json_array_get(v, i), indent, true);
	}
}

void render_yaml_emit(struct strbuf *sb, const json_t *v)
{
	if (json_is_object(v) && json_object_size(v) > 0) {
		emit_mapping(sb, v, 0, false);
	} else if (json_is_array(v) && json_array_size(v) > 0) {
		emit_sequence(sb, v, 0, false);
	} else if (json_is_object(v)) {
		strbuf_puts(sb, "{}\n");
	} else if (json_is_array(v)) {
		strbuf_puts(sb, "[]\n");
	} else {
		put_scalar(sb, v, YAML_INDENT);
		strbuf_putc(sb, '\n');
	}
}

void render_yaml_emit_object(struct strbuf *sb, const json_t *obj)
{
	json_t *shown = NULL, *meta = json_object_get(obj, "metadata");

	if (json_object_get(meta, "managedFields")) {
		shown = json_deep_copy(obj);
		json_object_del(json_object_get(shown, "metadata"), "managedFields");
	}
	strbuf_puts(sb, "---\n");
	render_yaml_emit(sb, shown ? shown : obj);
	json_decref(shown);
}
