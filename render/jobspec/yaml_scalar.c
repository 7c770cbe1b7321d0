/*
 * YAML 1.1 scalar resolution as go-yaml v2 does it (see yaml_scalar.h):
 * booleans, nulls, Go's integer syntax, go-yaml's float pattern, and the
 * float → integer rule Go's JSON encoder implies.
 *
 * Pure: no I/O. Called by yaml_parse.c; tested through test_jobspec_yaml_parse.c.
 */
#include "render/jobspec/yaml_scalar.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *fail(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static json_t *fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return NULL;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static const char *const TRUE_WORDS[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                         "True", "TRUE", "on",  "On",  "ON",  NULL};
static const char *const FALSE_WORDS[] = {"n",     "N",     "no",  "No",  "NO",  "false",
                                          "False", "FALSE", "off", "Off", "OFF", NULL};
static const char *const NULL_WORDS[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const SPECIAL_FLOATS[] = {".nan",  ".NaN",  ".NAN",  ".inf",  ".Inf",
                                             ".INF",  "+.inf", "+.Inf", "+.INF", "-.inf",
                                             "-.Inf", "-.INF", NULL};

/* Go's strconv.ParseInt(s, 0, 64) after go-yaml dropped the underscores. */
static bool parse_go_int(const char *s, long long *out, bool *too_big)
{
	bool neg = false;
	unsigned long long v = 0, limit;
	int base = 10;

	*too_big = false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (s[0] == '0' && s[1])
		base = 8, s += 1;
	if (!*s)
		return false;
	limit = neg ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX;
	for (; *s; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (d >= base)
			return false;
		if (v > (limit - (unsigned long long)d) / (unsigned long long)base) {
			*too_big = true;
			return false;
		}
		v = v * (unsigned long long)base + (unsigned long long)d;
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return true;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool is_yaml_float(const char *s)
{
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9')
			s++, digits++;
		if (!digits)
			return false;
	} else {
		while (*s >= '0' && *s <= '9')
			s++, digits++;
		if (!digits)
			return false;
		if (*s == '.') {
			s++;
			while (*s >= '0' && *s <= '9')
				s++;
		}
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		digits = 0;
		if (*s == '+' || *s == '-')
			s++;
		while (*s >= '0' && *s <= '9')
			s++, digits++;
		if (!digits)
			return false;
	}
	return *s == '\0';
}

/* A number from text, or NULL when the text is not one (go-yaml's int/float rules). */
static json_t *resolve_number(const char *text)
{
	char plain[128];
	size_t n = 0;
	long long iv;
	bool too_big;

	for (const char *p = text; *p; p++) {
		if (*p == '_')
			continue;
		if (n + 1 >= sizeof(plain))
			return NULL;
		plain[n++] = *p;
	}
	plain[n] = '\0';
	if (parse_go_int(plain, &iv, &too_big))
		return json_integer(iv);
	if (is_yaml_float(plain) || too_big) {
		char *end;
		double d = strtod(plain, &end);

		if (*end != '\0' && !too_big)
			return NULL;
		if (too_big && *end != '\0') {
			/* hex/octal/binary beyond int64: go-yaml's ParseUint; as a real */
			unsigned long long u = strtoull(plain, &end, 0);

			if (*end != '\0')
				return NULL;
			d = (double)u;
		}
		/* Go's JSON encoder writes an integral float64 without a fraction,
		 * so Kubernetes reads `2.0` as the integer 2. */
		if (isfinite(d) && d == floor(d) && fabs(d) < 9.2e18)
			return json_integer((long long)d);
		return json_real(d);
	}
	return NULL;
}

json_t *yaml_scalar_json(const char *v, size_t len, const char *tag, bool plain, char *why,
                         size_t whysize, bool *oom)
{
	bool has_nul = strlen(v) != len;
	json_t *out = NULL;
	const char *t;

	*oom = false;
	if (tag && strcmp(tag, "!") != 0) {
		if (strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) != 0)
			return fail(why, whysize,
			            "tag %s is not supported (only YAML's own !! tags are)", tag);
		t = tag + strlen(YAML_TAG_PREFIX);
		if (strcmp(t, "str") == 0 || strcmp(t, "timestamp") == 0)
			out = json_stringn(v, len);
		else if (strcmp(t, "null") == 0)
			out = json_null();
		else if (strcmp(t, "bool") == 0 && in_list(v, TRUE_WORDS))
			out = json_true();
		else if (strcmp(t, "bool") == 0 && in_list(v, FALSE_WORDS))
			out = json_false();
		else if (strcmp(t, "bool") == 0)
			return fail(why, whysize, "!!bool value \"%s\" is not a boolean", v);
		else if (strcmp(t, "int") == 0 || strcmp(t, "float") == 0) {
			out = has_nul ? NULL : resolve_number(v);
			if (!out || (strcmp(t, "int") == 0 && !json_is_integer(out))) {
				json_decref(out);
				out = NULL;
				return fail(why, whysize, "!!%s value \"%s\" is not %s", t, v,
				            strcmp(t, "int") == 0 ? "an integer" : "a number");
			}
		} else
			return fail(why, whysize, "tag %s is not supported on a scalar", tag);
	} else if (!plain || tag) {
		out = json_stringn(v, len);
	} else if (in_list(v, NULL_WORDS)) {
		out = json_null();
	} else if (in_list(v, TRUE_WORDS)) {
		out = json_true();
	} else if (in_list(v, FALSE_WORDS)) {
		out = json_false();
	} else if (in_list(v, SPECIAL_FLOATS)) {
		return fail(why, whysize,
		            "%s has no JSON form (JSON numbers are finite); quote it for a string",
		            v);
	} else {
		/* go-yaml tries a number only for a scalar that starts with a digit, a
		 * sign or '.' (resolve.go's resolveTable): "_1" is a string, though
		 * with its underscores dropped it would read as 1 */
		out = v[0] && strchr("0123456789+-.", v[0]) ? resolve_number(v) : NULL;
		if (!out)
			out = json_stringn(v, len);
	}
	*oom = !out;
	return out;
}
