/*
 * Checkers for single values of a spec (see spec_internal.h): each takes the
 * JSON value and where it was in the text, and either gives the value in the
 * form the builders want or fails with a message that says where and why.
 *
 * Pure: no I/O. Used by validate.c and manifest.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/values.h"
#include "render/jobspec/errors.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/suggest.h"
#include "k8s/base/textsafe.h"
#include "k8s/names.h"

int spec_fail(struct spec_ctx *c, const struct yaml_node_info *at, bool at_key, const char *path,
              const char *fmt, ...)
{
	char msg[1024];
	const struct yaml_pos *p = at ? (at_key ? &at->key : &at->value) : NULL;
	va_list ap;
	char full[K8S_ERROR_MESSAGE_MAX];
	bool placed = p && p->line > 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (placed)
		snprintf(full, sizeof(full), "line %d, column %d: %s: %s", p->line, p->column, path,
		         msg);
	else
		snprintf(full, sizeof(full), "%s: %s", path, msg);
	spec_errors_add(c, placed ? p->line : 0, placed ? p->column : 0, path, full);
	return k8s_error_set(c->err, EINVAL, "%s", full);
}

void spec_describe(const json_t *v, const struct yaml_node_info *info, char *buf, size_t size)
{
	const char *text = info && info->text ? info->text : NULL;

	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = strlen(s);

		if (n > 60)
			snprintf(buf, size, "\"%.57s...\"", s);
		else
			snprintf(buf, size, "\"%s\"", s);
	} else if (json_is_object(v)) {
		snprintf(buf, size, "a mapping");
	} else if (json_is_array(v)) {
		snprintf(buf, size, "a list");
	} else if (json_is_null(v) || !v) {
		snprintf(buf, size, "nothing");
	} else if (text) {
		snprintf(buf, size, "%s", text);
	} else if (json_is_integer(v)) {
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, size, "%g", json_real_value(v));
	} else {
		snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
	}
}

/* A quoted string that would be a valid integer unquoted: worth a hint. */
static bool looks_integer(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A count written with a leading 0 (`gpus: 010`) or in another base (0x10, 0o10,
 * 0b10) is refused (issue 33): YAML 1.1 (kubectl's, and ours) reads 010 as octal,
 * 8, where a person, YAML 1.2 and a Kubernetes quantity read 10, and 0x10 in a
 * count is a slip more often than a wish. The message gives what each reading
 * makes of it. Manifests are not checked here: they mean what kubectl makes. */
static int refuse_unclear_base(struct spec_ctx *c, const char *path,
                               const struct yaml_node_info *info, long long n)
{
	const char *text = info && info->text ? info->text : NULL, *t = text, *base = NULL;
	char digits[64];
	size_t k = 0;
	long long decimal;
	char *end;

	if (!t)
		return 0;
	if (*t == '+' || *t == '-')
		t++;
	if (t[0] != '0' || !t[1] || t[1] == '.' || t[1] == 'e' || t[1] == 'E')
		return 0;
	if (t[1] == 'x' || t[1] == 'X')
		base = "hexadecimal";
	else if (t[1] == 'o' || t[1] == 'O')
		base = "octal";
	else if (t[1] == 'b' || t[1] == 'B')
		base = "binary";
	if (base)
		return spec_fail(c, info, false, path,
		                 "%s is %s for %lld: write counts in decimal (%lld)", text, base, n, n);
	/* 010 as a person reads it: the digits in base 10, underscores dropped as YAML does */
	for (const char *p = text; *p && k + 1 < sizeof(digits); p++)
		if (*p != '_')
			digits[k++] = *p;
	digits[k] = '\0';
	decimal = strtoll(digits, &end, 10);
	if (*end != '\0' || decimal == n)
		return spec_fail(c, info, false, path, "%s has a leading 0: write %lld", text, n);
	return spec_fail(c, info, false, path,
	                 "%s has a leading 0, which YAML 1.1 (as kubectl reads it) takes for "
	                 "octal, %lld, and others for %lld: write %lld or %lld",
	                 text, n, decimal, n, decimal);
}

int spec_get_int(struct spec_ctx *c, const char *path, const json_t *v,
                 const struct yaml_node_info *info, long long min, long long max, long long *out)
{
	char got[96];
	long long n;
	int rc;

	if (json_is_integer(v) && (rc = refuse_unclear_base(c, path, info, json_integer_value(v))) < 0)
		return rc;
	if (!json_is_integer(v)) {
		spec_describe(v, info, got, sizeof(got));
		if (json_is_string(v) && looks_integer(json_string_value(v)))
			return spec_fail(c, info, false, path,
			                 "expected an integer, got %s (a quoted string: write it "
			                 "without quotes)",
			                 got);
		return spec_fail(c, info, false, path, "expected an integer, got %s", got);
	}
	n = json_integer_value(v);
	if (n < min)
		return spec_fail(c, info, false, path, "must be at least %lld, got %lld", min, n);
	if (n > max)
		return spec_fail(c, info, false, path, "must be at most %lld, got %lld", max, n);
	*out = n;
	return 0;
}

int spec_get_string(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, char **out)
{
	char got[96];
	const char *s;
	char num[64];

	if (json_is_string(v)) {
		s = json_string_value(v);
		if (strlen(s) != json_string_length(v))
			return spec_fail(c, info, false, path, "holds a NUL character");
	} else if (json_is_number(v) || json_is_boolean(v)) {
		/* `BATCH_SIZE: 64` means the text 64, as written */
		if (info && info->text) {
			s = info->text;
		} else {
			spec_describe(v, NULL, num, sizeof(num));
			s = num;
		}
	} else {
		spec_describe(v, info, got, sizeof(got));
		return spec_fail(c, info, false, path, "expected a string, got %s", got);
	}
	*out = strdup(s);
	return *out ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
}

int spec_get_bool(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, bool *out)
{
	char got[96];

	if (!json_is_boolean(v)) {
		spec_describe(v, info, got, sizeof(got));
		return spec_fail(c, info, false, path, "expected true or false, got %s", got);
	}
	*out = json_is_true(v);
	return 0;
}

/*
 * resource.Quantity's grammar (apimachinery): a signed decimal number, then a
 * binary SI suffix (Ki Mi Gi Ti Pi Ei), a decimal SI suffix (m k M G T P E, or
 * none) or a decimal exponent (e3, E-2).
 */
static bool spec_is_quantity(const char *s)
{
	static const char *const SUFFIXES[] = {"",   "m",  "k",  "M",  "G",  "T",  "P", "E",
	                                       "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", NULL};
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char)*s))
		s++, digits++;
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s))
			s++, digits++;
	}
	if (!digits)
		return false;
	if ((*s == 'e' || *s == 'E') && s[1]) {
		const char *e = s + 1;

		if (*e == '+' || *e == '-')
			e++;
		if (!*e)
			return false;
		for (; *e; e++)
			if (!isdigit((unsigned char)*e))
				return false;
		return true;
	}
	for (const char *const *p = SUFFIXES; *p; p++)
		if (strcmp(s, *p) == 0)
			return true;
	return false;
}

int spec_get_quantity(struct spec_ctx *c, const char *path, const json_t *v,
                      const struct yaml_node_info *info, char **out)
{
	char got[96];
	char *q = NULL;
	int rc;

	if (!json_is_string(v) && !json_is_number(v)) {
		spec_describe(v, info, got, sizeof(got));
		return spec_fail(c, info, false, path,
		                 "expected a quantity such as 4, 500m or 8Gi, got %s", got);
	}
	rc = spec_get_string(c, path, v, info, &q);
	if (rc < 0)
		return rc;
	if (!spec_is_quantity(q)) {
		const char *hint = strchr(q, 'B') ? " (Kubernetes writes bytes without the B: 8Gi "
		                                    "or 8G)"
		                                  : "";

		spec_describe(v, info, got, sizeof(got));
		rc = spec_fail(c, info, false, path,
		               "%s is not a quantity; write it like 4, 1.5, 500m, 512Mi or 8Gi%s",
		               got, hint);
		free(q);
		return rc;
	}
	if (q[0] == '-') {
		rc = spec_fail(c, info, false, path, "must not be negative, got %s", q);
		free(q);
		return rc;
	}
	*out = q;
	return 0;
}

bool spec_is_abs_path(const char *s)
{
	if (!s || s[0] != '/')
		return false;
	for (const char *p = s; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		if (!slash)
			break;
		p = slash + 1;
	}
	return true;
}

int spec_get_path(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, char **out)
{
	char *p = NULL;
	size_t n;
	int rc = spec_get_string(c, path, v, info, &p);

	if (rc < 0)
		return rc;
	/* "/data/" and "/data" are the same mount point */
	n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	if (!spec_is_abs_path(p) || strcmp(p, "/") == 0) {
		rc = spec_fail(c, info, false, path,
		               "\"%s\" is not an absolute path below / (it must start with / and "
		               "hold no ..)",
		               p);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* Go's time.ParseDuration, for the units a TTL needs: h, m, s. */
static bool parse_duration(const char *s, long long *out)
{
	long long total = 0;

	if (!*s)
		return false;
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return true;
	}
	while (*s) {
		long long n = 0, mult;

		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s)) {
			if (n > 100000000)
				return false;
			n = n * 10 + (*s++ - '0');
		}
		if (*s == 'h')
			mult = 3600;
		else if (*s == 'm' && s[1] != 's')
			mult = 60;
		else if (*s == 's')
			mult = 1;
		else
			return false;
		s++;
		total += n * mult;
		if (total > 0x7fffffffLL)
			return false;
	}
	*out = total;
	return true;
}

int spec_get_seconds(struct spec_ctx *c, const char *path, const json_t *v,
                     const struct yaml_node_info *info, long long *out)
{
	char got[96];

	if (json_is_integer(v))
		return spec_get_int(c, path, v, info, 0, 0x7fffffffLL, out);
	if (json_is_string(v) && parse_duration(json_string_value(v), out))
		return 0;
	spec_describe(v, info, got, sizeof(got));
	return spec_fail(c, info, false, path,
	                 "expected seconds (an integer) or a duration such as 90s, 30m, 1h30m; "
	                 "got %s",
	                 got);
}

int spec_get_choice(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, const char *const *choices, char **out)
{
	char list[256] = "";
	char *s = NULL;
	const char *near;
	int rc = spec_get_string(c, path, v, info, &s);

	if (rc < 0)
		return rc;
	for (const char *const *p = choices; *p; p++)
		if (strcmp(s, *p) == 0) {
			*out = s;
			return 0;
		}
	for (const char *const *p = choices; *p; p++) {
		size_t n = strlen(list);

		snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *p);
	}
	near = k8s_suggest(s, choices);
	if (near)
		rc = spec_fail(c, info, false, path, "\"%s\" is not one of %s (did you mean %s?)",
		               s, list, near);
	else
		rc = spec_fail(c, info, false, path, "\"%s\" is not one of %s", s, list);
	free(s);
	return rc;
}

int spec_get_string_map(struct spec_ctx *c, const char *path, const json_t *v,
                        const struct yaml_node_info *info, const struct spec_map_rule *rule,
                        json_t **out)
{
	char got[96], sub[512];
	const char *key;
	json_t *val;
	json_t *map;
	int rc = 0;

	if (!json_is_object(v)) {
		spec_describe(v, info, got, sizeof(got));
		return spec_fail(c, info, false, path,
		                 "expected a mapping (key: value lines), got %s", got);
	}
	map = json_object();
	if (!map)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	json_object_foreach((json_t *)v, key, val)
	{
		const struct yaml_node_info *at = yaml_doc_member(c->doc, v, key);
		char *s = NULL;

		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (rule->key_ok && !rule->key_ok(key)) {
			rc = spec_fail(c, at, true, path, "\"%s\" is not %s", key, rule->what_key);
			break;
		}
		if (json_is_null(val))
			s = strdup(rule->null_is_key ? key : "");
		else if ((rc = spec_get_string(c, sub, val, at, &s)) < 0)
			break;
		if (!s) {
			rc = k8s_error_set(c->err, ENOMEM, "out of memory");
			break;
		}
		if (rule->val_ok && !rule->val_ok(s)) {
			snprintf(got, sizeof(got), "\"%.60s\"", s);
			rc = spec_fail(c, at, false, sub, "%s is not %s", got, rule->what_val);
			free(s);
			break;
		}
		if (json_object_set_new(map, key, json_string(s)) < 0)
			rc = k8s_error_set(c->err, ENOMEM, "out of memory");
		free(s);
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		json_decref(map);
		return rc;
	}
	*out = map;
	return 0;
}

/*
 * The character at s (of the n bytes left), as a name's problem quotes it: itself
 * in quotes when it is printable UTF-8, else U+XXXX (a control character, or a
 * bidirectional one) or the byte in hex (not UTF-8). '%c' of its first byte cut a character in half
 * ("found '\xc2'" for U+0085), which left the message itself invalid UTF-8.
 */
static void describe_char(const char *s, size_t n, char *out, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = u[0] < 0x80 ? 1 : u[0] >= 0xc2 && u[0] <= 0xdf ? 2 :
	             u[0] >= 0xe0 && u[0] <= 0xef ? 3 : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	uint32_t cp = len == 1 ? u[0] : len ? u[0] & (0x7f >> len) : 0;

	for (size_t i = 1; i < len; i++) {
		if (i >= n || (u[i] & 0xc0) != 0x80) {
			len = 0;
			break;
		}
		cp = cp << 6 | (u[i] & 0x3f);
	}
	/* overlong forms, surrogates and past U+10FFFF are no UTF-8 either */
	if (len == 0 || (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		snprintf(out, size, "byte 0x%02X, which is not UTF-8", u[0]);
	else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		snprintf(out, size, "U+%04X, a control character", (unsigned)cp);
	else if (textsafe_is_bidi_control(cp))
		/* quoted, it would be a blank (textsafe.h) in the error that names it */
		snprintf(out, size, "U+%04X, a bidirectional text control", (unsigned)cp);
	else
		snprintf(out, size, "'%.*s'", (int)len, s);
}

const char *spec_name_problem(const char *name, size_t max, char *buf, size_t size)
{
	size_t n = strlen(name);

	if (n == 0)
		return "is empty";
	if (n > max) {
		snprintf(buf, size, "is %zu characters long; at most %zu are allowed", n, max);
		return buf;
	}
	for (size_t i = 0; i < n; i++)
		if (isupper((unsigned char)name[i]))
			return "must be lowercase";
	if (!(name[0] >= 'a' && name[0] <= 'z'))
		return "must start with a lowercase letter";
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || isdigit((unsigned char)name[i]) ||
		      name[i] == '-')) {
			char found[48];

			describe_char(name + i, n - i, found, sizeof(found));
			snprintf(buf, size, "may hold only lowercase letters, digits and '-' (found %s)",
			         found);
			return buf;
		}
	if (name[n - 1] == '-')
		return "must end with a letter or a digit";
	return k8s_is_dns1035_label(name) ? NULL : "is not a DNS-1035 label";
}

bool spec_has_key(const struct spec_ctx *c, const char *key)
{
	const json_t *v = json_object_get(c->root, key);

	return v && !json_is_null(v);
}

int spec_choose_name(struct spec_ctx *c, size_t max)
{
	const char *entry = c->entry_name && *c->entry_name ? c->entry_name : NULL;
	char buf[128];
	const char *why = entry ? spec_name_problem(entry, max, buf, sizeof(buf)) : NULL;

	if (entry && !why) {
		free(c->s->name);
		c->s->name = strdup(entry);
		return c->s->name ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
	}
	if (c->s->name)
		return 0;
	if (!entry)
		return spec_fail(c, NULL, false, "name",
		                 "required (no file or directory name gives it: a spec.yaml "
		                 "directly in submit/ takes its name from name:)");
	return spec_fail(c, NULL, false, "name",
	                 "the job is named after its file or directory, \"%s\", which %s; "
	                 "rename it, or set name: in the spec (a lowercase letter first, "
	                 "then lowercase letters, digits and '-'; at most %zu characters)",
	                 entry, why, max);
}

int spec_set_string(struct spec_ctx *c, char **dst, const char *src)
{
	free(*dst);
	*dst = strdup(src);
	return *dst ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
}
