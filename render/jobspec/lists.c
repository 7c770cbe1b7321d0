/*
 * The keys of the small spec that hold structure: tolerations, image pull
 * secrets, sync, and commands written as lists of words. Each checks its value
 * and fills the struct job_spec (see validate.c for the key table).
 *
 * Pure: no I/O. Called by validate.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/lists.h"
#include "render/jobspec/values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/suggest.h"
#include "k8s/names.h"
#include "k8s/base/strbuf.h"

/* ---- commands ---- */

/* A word as the shell takes it: as it is when it holds nothing special, else
 * single-quoted ('it'\''s'). */
static void shell_word(struct strbuf *sb, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                    "_./:=@%+,-") == strlen(w)) {
		strbuf_puts(sb, w);
		return;
	}
	strbuf_putc(sb, '\'');
	for (; *w; w++)
		if (*w == '\'')
			strbuf_puts(sb, "'\\''");
		else
			strbuf_putc(sb, *w);
	strbuf_putc(sb, '\'');
}

/* command: [python, main.py, --lr, 0.1] runs as the words, shell-quoted. */
int spec_command_list(struct spec_ctx *c, const char *key, const json_t *v, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *item;
	size_t i;

	json_array_foreach(v, i, item)
	{
		const struct yaml_node_info *iat = yaml_doc_item(c->doc, v, i);
		char path[64], *w = NULL;
		int rc;

		snprintf(path, sizeof(path), "%s[%zu]", key, i);
		rc = json_is_null(item) ? spec_fail(c, iat, false, path, "is empty")
		                        : spec_get_string(c, path, item, iat, &w);
		if (rc < 0) {
			strbuf_free(&sb);
			return rc;
		}
		if (i)
			strbuf_putc(&sb, ' ');
		shell_word(&sb, w);
		free(w);
	}
	if (!strbuf_ok(&sb)) {
		strbuf_free(&sb);
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	}
	*out = strbuf_take(&sb);
	return *out ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
}

/* ---- lists ---- */

/* One toleration: a Toleration mapping, "all", or kubectl taint's KEY[=VALUE][:EFFECT]. */
static const char *const TOLERATION_FIELDS[] = {"key",    "operator",          "value",
                                                "effect", "tolerationSeconds", NULL};

/* Arena's KEY=VALUE:EFFECT (VALUE and EFFECT optional) into the mapping t. */
static int toleration_shorthand(struct spec_ctx *c, const char *text, json_t *t)
{
	char buf[512], *eq, *colon;
	int rc = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	colon = strrchr(buf, ':');
	if (colon)
		*colon++ = '\0';
	eq = strchr(buf, '=');
	if (eq)
		*eq++ = '\0';
	rc |= json_object_set_new(t, "key", json_string(buf));
	rc |= json_object_set_new(t, "operator", json_string(eq ? "Equal" : "Exists"));
	if (eq)
		rc |= json_object_set_new(t, "value", json_string(eq));
	if (colon)
		rc |= json_object_set_new(t, "effect", json_string(colon));
	return rc < 0 ? k8s_error_set(c->err, ENOMEM, "out of memory") : 0;
}

/* One field k of a toleration, checked, and copied into t unless t is the item itself
 * (a shorthand, already there). 0 or the error. */
static int toleration_field(struct spec_ctx *c, const char *path, const char *k, json_t *v,
                            const struct yaml_node_info *vat, json_t *t, bool copy)
{
	static const char *const OPERATORS[] = {"Exists", "Equal", NULL};
	static const char *const EFFECTS[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
	const char *near = k8s_suggest(k, TOLERATION_FIELDS);
	char sub[128], *s = NULL;
	int rc;

	snprintf(sub, sizeof(sub), "%s.%s", path, k);
	if (!near || strcmp(near, k) != 0)
		return near ? spec_fail(c, vat, true, sub, "unknown toleration field (did you mean %s?)",
		                        near)
		            : spec_fail(c, vat, true, sub,
		                        "unknown toleration field (known: key, operator, "
		                        "value, effect, tolerationSeconds)");
	if (strcmp(k, "tolerationSeconds") == 0) {
		long long n;

		rc = spec_get_int(c, sub, v, vat, 0, 0x7fffffffffffLL, &n);
		if (rc == 0 && copy && json_object_set_new(t, k, json_integer(n)) < 0)
			rc = k8s_error_set(c->err, ENOMEM, "out of memory");
		return rc;
	}
	if (strcmp(k, "operator") == 0)
		rc = spec_get_choice(c, sub, v, vat, OPERATORS, &s);
	else if (strcmp(k, "effect") == 0)
		rc = spec_get_choice(c, sub, v, vat, EFFECTS, &s);
	else
		rc = spec_get_string(c, sub, v, vat, &s);
	if (rc == 0 && strcmp(k, "key") == 0 && *s && !k8s_is_qualified_name(s))
		rc = spec_fail(c, vat, false, sub, "\"%s\" is not a valid taint key", s);
	if (rc == 0 && strcmp(k, "value") == 0 && !k8s_is_label_value(s))
		rc = spec_fail(c, vat, false, sub, "\"%s\" is not a valid taint value", s);
	if (rc == 0 && copy && json_object_set_new(t, k, json_string(s)) < 0)
		rc = k8s_error_set(c->err, ENOMEM, "out of memory");
	free(s);
	return rc;
}

/* The rules between a toleration's fields, as the API server's validation has them. */
static int toleration_rules(struct spec_ctx *c, const char *path,
                            const struct yaml_node_info *at, const json_t *t)
{
	const char *op = json_string_value(json_object_get(t, "operator"));
	const char *eff = json_string_value(json_object_get(t, "effect"));

	if (op && strcmp(op, "Exists") == 0 && json_object_get(t, "value") &&
	    *json_string_value(json_object_get(t, "value")))
		return spec_fail(c, at, false, path,
		                 "a toleration with operator Exists takes no value");
	if (json_object_get(t, "tolerationSeconds") && (!eff || strcmp(eff, "NoExecute")))
		return spec_fail(c, at, false, path,
		                 "tolerationSeconds goes only with effect NoExecute");
	if ((!op || strcmp(op, "Equal") == 0) && !json_string_length(json_object_get(t, "key")))
		return spec_fail(c, at, false, path,
		                 "a toleration without a key needs operator Exists");
	return 0;
}

static int toleration_item(struct spec_ctx *c, const char *path, const json_t *item,
                           const struct yaml_node_info *at, json_t **out)
{
	char got[96];
	json_t *t = json_object();
	const char *k;
	json_t *v;
	int rc = 0;

	if (!t)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	if (json_is_string(item) && strcmp(json_string_value(item), "all") == 0) {
		if (json_object_set_new(t, "operator", json_string("Exists")) < 0) {
			json_decref(t);
			return k8s_error_set(c->err, ENOMEM, "out of memory");
		}
		*out = t;
		return 0;
	}
	if (json_is_string(item)) {
		rc = toleration_shorthand(c, json_string_value(item), t);
		if (rc < 0) {
			json_decref(t);
			return rc;
		}
		item = t;
	} else if (!json_is_object(item)) {
		json_decref(t);
		spec_describe(item, at, got, sizeof(got));
		return spec_fail(c, at, false, path,
		                 "expected a toleration (a mapping with key, operator, value, "
		                 "effect; or \"all\"; or KEY=VALUE:EFFECT), got %s",
		                 got);
	}
	json_object_foreach((json_t *)item, k, v)
	{
		const struct yaml_node_info *vat =
		    item == t ? at : yaml_doc_member(c->doc, item, k);

		rc = toleration_field(c, path, k, v, vat, t, item != t);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		rc = toleration_rules(c, path, at, t);
	if (rc < 0) {
		json_decref(t);
		return rc;
	}
	*out = t;
	return 0;
}

int spec_key_tolerations(struct spec_ctx *c, const char *key, const json_t *v,
                         const struct yaml_node_info *at)
{
	json_t *list;
	char got[96];

	if (!json_is_array(v)) {
		spec_describe(v, at, got, sizeof(got));
		return spec_fail(c, at, false, key, "expected a list of tolerations, got %s", got);
	}
	list = json_array();
	if (!list)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < json_array_size(v); i++) {
		char path[64];
		json_t *t = NULL;
		int rc;

		snprintf(path, sizeof(path), "%s[%zu]", key, i);
		rc =
		    toleration_item(c, path, json_array_get(v, i), yaml_doc_item(c->doc, v, i), &t);
		if (rc < 0) {
			json_decref(list);
			return rc;
		}
		if (json_array_append_new(list, t) < 0) {
			json_decref(list);
			return k8s_error_set(c->err, ENOMEM, "out of memory");
		}
	}
	json_decref(c->s->tolerations);
	c->s->tolerations = list;
	return 0;
}

int spec_key_pull_secrets(struct spec_ctx *c, const char *key, const json_t *v,
                          const struct yaml_node_info *at)
{
	json_t *list = json_array();
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	char got[96];

	if (!list)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
		const struct yaml_node_info *iat =
		    json_is_array(v) ? yaml_doc_item(c->doc, v, i) : at;

		if (!json_is_string(item) || !k8s_is_dns1123_subdomain(json_string_value(item))) {
			spec_describe(item, iat, got, sizeof(got));
			json_decref(list);
			return spec_fail(
			    c, iat, false, key,
			    "expected Secret names (a name or a list of names), got %s", got);
		}
		json_array_append(list, (json_t *)item);
	}
	json_decref(c->s->pull_secrets);
	c->s->pull_secrets = list;
	return 0;
}

/* ---- sync ---- */

/* git: the repository's name, as Arena's GIT_SYNC_DEST ("…/repo.git" → "repo"). */
static char *git_project(const char *source)
{
	char buf[1024], *last, *dot;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", source);
	n = strlen(buf);
	while (n && buf[n - 1] == '/')
		buf[--n] = '\0';
	last = strrchr(buf, '/');
	last = last ? last + 1 : buf;
	if (strchr(last, ':') && !strrchr(buf, '/'))
		last = strrchr(last, ':') + 1; /* git@host:repo.git */
	dot = strstr(last, ".git");
	if (dot)
		*dot = '\0';
	return *last ? strdup(last) : NULL;
}

static int read_sync(struct spec_ctx *c, const char *key, const json_t *v,
                     const struct yaml_node_info *at)
{
	static const char *const FIELDS[] = {"mode", "source", "branch", "image", NULL};
	static const char *const MODES[] = {"git", "rsync", NULL};
	struct spec_sync *y = &c->s->sync;
	const char *k;
	json_t *val;
	char got[96], sub[64];
	int rc = 0;

	if (json_is_string(v)) { /* sync: URL means git */
		rc = spec_set_string(c, &y->source, json_string_value(v));
		if (rc == 0)
			rc = spec_set_string(c, &y->mode, "git");
		if (rc == 0 && !(y->project = git_project(y->source)))
			rc = spec_fail(c, at, false, key, "\"%s\" names no repository", y->source);
		return rc;
	}
	if (!json_is_object(v)) {
		spec_describe(v, at, got, sizeof(got));
		return spec_fail(c, at, false, key,
		                 "expected {mode: git, source: URL, branch: BRANCH}, got %s", got);
	}
	json_object_foreach((json_t *)v, k, val)
	{
		const struct yaml_node_info *vat = yaml_doc_member(c->doc, v, k);
		const char *near = k8s_suggest(k, FIELDS);

		snprintf(sub, sizeof(sub), "%s.%s", key, k);
		if (!near || strcmp(near, k) != 0)
			return near ? spec_fail(c, vat, true, sub, "unknown key (did you mean %s?)",
			                        near)
			            : spec_fail(c, vat, true, sub,
			                        "unknown key (known: mode, source, branch, image)");
		if (json_is_null(val))
			continue;
		if (strcmp(k, "mode") == 0)
			rc = spec_get_choice(c, sub, val, vat, MODES, &y->mode);
		else if (strcmp(k, "source") == 0)
			rc = spec_get_string(c, sub, val, vat, &y->source);
		else if (strcmp(k, "branch") == 0)
			rc = spec_get_string(c, sub, val, vat, &y->branch);
		else
			rc = spec_get_string(c, sub, val, vat, &y->image);
		if (rc < 0)
			return rc;
	}
	if (!y->source || !*y->source)
		return spec_fail(c, at, false, key,
		                 "source: required (the git URL or rsync source)");
	if (!y->mode && (rc = spec_set_string(c, &y->mode, "git")) < 0)
		return rc;
	if (y->branch && strcmp(y->mode, "git") != 0)
		return spec_fail(c, yaml_doc_member(c->doc, v, "branch"), true, "sync.branch",
		                 "only mode git has a branch");
	if (strcmp(y->mode, "git") == 0 && !(y->project = git_project(y->source)))
		return spec_fail(c, yaml_doc_member(c->doc, v, "source"), false, "sync.source",
		                 "\"%s\" names no repository", y->source);
	return 0;
}

/* The job has code to sync only when sync: was read whole: a refused sync: leaves
 * no half-made mode or source for the defaults and rules checked after it. */
int spec_key_sync(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at)
{
	int rc = read_sync(c, key, v, at);

	c->s->has_sync = rc == 0;
	return rc;
}
