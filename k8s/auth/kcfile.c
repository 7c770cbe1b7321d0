/*
 * One kubeconfig file as libyaml parsed it, and the primitives kubeconfig.c
 * reads it with (see kcfile.h): typed field access whose errors name the file,
 * line and column, path resolution against the file's folder, and certificate
 * material read from a file or a -data field into memory.
 */
#include "k8s/auth/kcfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "k8s/base/base64.h"
#include "k8s/base/strbuf.h"

#define PEM_FILE_MAX (1 << 20) /* a certificate bundle larger than this is not one */

int kc_error(struct k8s_error *err, const struct kc_file *f, const yaml_node_t *n, const char *what)
{
	if (!n)
		return k8s_error_set(err, EINVAL, "%s: %s", f->path, what);
	return k8s_error_set(err, EINVAL, "%s:%zu:%zu: %s", f->path, n->start_mark.line + 1,
	                     n->start_mark.column + 1, what);
}

const char *kc_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* An explicit `~`, `null` or empty plain scalar means "unset", as in go-yaml. */
bool kc_is_null(const yaml_node_t *n)
{
	const char *s = kc_scalar(n);

	if (!n)
		return true;
	if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	       strcmp(s, "NULL") == 0;
}

yaml_node_t *kc_map_get(struct kc_file *f, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = kc_scalar(yaml_document_get_node(&f->doc, p->key));

		if (k && strcmp(k, key) == 0) {
			yaml_node_t *v = yaml_document_get_node(&f->doc, p->value);

			return kc_is_null(v) ? NULL : v;
		}
	}
	return NULL;
}

/* A string field: NULL when absent; -EINVAL when present but not a scalar. */
int kc_get_str(struct kc_file *f, yaml_node_t *map, const char *key, const char **out,
               struct k8s_error *err)
{
	yaml_node_t *n = kc_map_get(f, map, key);
	char what[128];

	*out = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_SCALAR_NODE) {
		snprintf(what, sizeof(what), "%s must be a string", key);
		return kc_error(err, f, n, what);
	}
	*out = kc_scalar(n);
	return 0;
}

/* go-yaml v2 (sigs.k8s.io/yaml) booleans. */
int kc_get_bool(struct kc_file *f, yaml_node_t *map, const char *key, bool *out,
                struct k8s_error *err)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
	                                  "on",   "On",   "ON",   "y",   "Y"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO",
	                                 "off",   "Off",   "OFF",   "n",  "N"};
	yaml_node_t *n = kc_map_get(f, map, key);
	const char *s = kc_scalar(n);
	char what[128];

	*out = false;
	if (!n)
		return 0;
	if (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			if (strcmp(s, yes[i]) == 0) {
				*out = true;
				return 0;
			}
			if (strcmp(s, no[i]) == 0)
				return 0;
		}
	}
	snprintf(what, sizeof(what), "%s must be true or false", key);
	return kc_error(err, f, n, what);
}

static int kc_file_parse(struct kc_file *f, FILE *fp, struct k8s_error *err)
{
	yaml_parser_t parser;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return k8s_error_set(err, ENOMEM, "out of memory reading %s", f->path);
	yaml_parser_set_input_file(&parser, fp);
	if (!yaml_parser_load(&parser, &f->doc)) {
		const yaml_mark_t *m = &parser.problem_mark;

		const yaml_mark_t *cm = &parser.context_mark;

		if (parser.context)
			rc = k8s_error_set(
			    err, EINVAL,
			    "%s:%zu:%zu: invalid YAML: %s %s started at line %zu column %zu",
			    f->path, m->line + 1, m->column + 1,
			    parser.problem ? parser.problem : "error", parser.context, cm->line + 1,
			    cm->column + 1);
		else
			rc = k8s_error_set(err, EINVAL, "%s:%zu:%zu: invalid YAML: %s", f->path,
			                   m->line + 1, m->column + 1,
			                   parser.problem ? parser.problem : "error");
		memset(&f->doc, 0, sizeof(f->doc));
	}
	yaml_parser_delete(&parser);
	return rc;
}

void kc_file_free(struct kc_file *f)
{
	if (!f)
		return;
	yaml_document_delete(&f->doc);
	free(f->path);
	free(f->dir);
	free(f);
}

/* path made absolute against the working directory (not resolving links, as Go's filepath.Abs). */
static char *kc_absolute_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char cwd[4096];

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		strbuf_puts(&sb, cwd);
		strbuf_putc(&sb, '/');
	}
	strbuf_puts(&sb, path);
	return strbuf_take(&sb);
}

/* Reads path into a new kc_file. -ENOENT (err filled) when it does not exist. */
int kc_file_load(const char *path, struct kc_file **out, struct k8s_error *err)
{
	struct kc_file *f = calloc(1, sizeof(*f));
	FILE *fp = NULL;
	struct stat st;
	char *slash;
	int rc;

	*out = NULL;
	if (!f || !(f->path = strdup(path)) || !(f->dir = kc_absolute_path(path))) {
		rc = k8s_error_set(err, ENOMEM, "out of memory reading %s", path);
		goto out;
	}
	/* The directory is made absolute now: the daemon changes to / when it detaches. */
	slash = strrchr(f->dir, '/');
	if (slash && slash != f->dir)
		*slash = '\0';
	else
		slash[1] = '\0';
	fp = fopen(path, "r");
	if (!fp) {
		rc = k8s_error_set(err, errno, "cannot read kubeconfig %s: %s", path,
		                   strerror(errno));
		goto out;
	}
	/* fopen opens a directory, and libyaml's read of it fails as "input error" */
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = k8s_error_set(err, EISDIR,
		                   "cannot read kubeconfig %s: it is a directory, not a kubeconfig "
		                   "file (kubectl's is ~/.kube/config)",
		                   path);
		goto out;
	}
	rc = kc_file_parse(f, fp, err);
out:
	if (fp)
		fclose(fp);
	if (rc) {
		kc_file_free(f);
	} else {
		*out = f;
	}
	return rc;
}

char *kc_resolve_path(const struct kc_file *f, const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (path[0] != '/') {
		strbuf_puts(&sb, f->dir);
		strbuf_putc(&sb, '/');
	}
	strbuf_puts(&sb, path);
	return strbuf_take(&sb);
}

/* Reads a whole PEM file into memory. what/owner only name it in errors. */
int kc_read_pem_file(const char *path, const char *what, const char *owner, char **out, size_t *len,
                     struct k8s_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	FILE *fp = fopen(path, "r");
	size_t n;
	int rc = 0;

	if (!fp)
		return k8s_error_set(err, EINVAL, "cannot read %s %s of %s: %s", what, path, owner,
		                     strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len <= PEM_FILE_MAX)
		strbuf_append(&sb, buf, n);
	if (ferror(fp))
		rc = k8s_error_set(err, EINVAL, "cannot read %s %s of %s: %s", what, path, owner,
		                   strerror(errno));
	else if (!strbuf_ok(&sb))
		rc = k8s_error_set(err, ENOMEM, "out of memory reading %s", path);
	else if (sb.len > PEM_FILE_MAX || !strstr(strbuf_str(&sb), "-----BEGIN "))
		rc = k8s_error_set(err, EINVAL, "%s %s of %s is not a PEM file", what, path, owner);
	fclose(fp);
	if (rc) {
		explicit_bzero(sb.buf, sb.cap);
		strbuf_free(&sb);
		return rc;
	}
	*len = sb.len;
	*out = strbuf_take(&sb);
	return 0;
}

/*
 * A certificate or key from KEY-data (base64 PEM, wins) or KEY (a file path).
 * Sets *out NULL when neither is given.
 */
int kc_read_pem(struct kc_file *f, yaml_node_t *map, const char *key, const char *owner, char **out,
                size_t *len, struct k8s_error *err)
{
	char data_key[64];
	const char *data, *path;
	char *resolved;
	int rc;

	*out = NULL;
	*len = 0;
	snprintf(data_key, sizeof(data_key), "%s-data", key);
	if ((rc = kc_get_str(f, map, data_key, &data, err)) ||
	    (rc = kc_get_str(f, map, key, &path, err)))
		return rc;
	if (data && *data) {
		char *pem = k8s_base64_decode(data, len);

		if (!pem && errno == ENOMEM)
			return k8s_error_set(err, ENOMEM, "out of memory reading %s", f->path);
		if (!pem || !strstr(pem, "-----BEGIN ")) {
			char what[400];

			if (pem)
				explicit_bzero(pem, *len);
			free(pem);
			/* the position and the key only: the value itself is never shown */
			snprintf(what, sizeof(what), "%s of %s is not base64-encoded PEM", data_key,
			         owner);
			return kc_error(err, f, kc_map_get(f, map, data_key), what);
		}
		*out = pem;
		return 0;
	}
	if (!path || !*path)
		return 0;
	resolved = kc_resolve_path(f, path);
	if (!resolved)
		return k8s_error_set(err, ENOMEM, "out of memory reading %s", f->path);
	rc = kc_read_pem_file(resolved, key, owner, out, len, err);
	free(resolved);
	return rc;
}
