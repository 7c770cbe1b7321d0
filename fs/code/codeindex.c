/*
 * The arenafs.io/code annotation → the files of code/ (codeindex.h). The lines are
 * cut in place in one copy of the annotation; the files are sorted by path, so
 * that a path is found by binary search and the entries below a directory
 * ("dir/...") are one run of the array.
 */
#include "fs/code/codeindex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_KEY_MAX 253         /* a ConfigMap key's length (Kubernetes' limit) */
#define CODE_MODE_MAX 07777

void code_index_free(struct code_index *ix)
{
	free(ix->files);
	free(ix->text);
	ix->files = NULL;
	ix->text = NULL;
	ix->configmap = NULL;
	ix->n = 0;
}

/* Counts a line left out; the first one's reason is kept. */
static void skip(struct code_index *ix, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void skip(struct code_index *ix, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ix->skipped++ > 0)
		return;
	n = snprintf(ix->why, sizeof(ix->why), "file line %zu: ", line);
	if (n < 0 || (size_t)n >= sizeof(ix->why))
		return;
	va_start(ap, fmt);
	vsnprintf(ix->why + n, sizeof(ix->why) - (size_t)n, fmt, ap);
	va_end(ap);
	/* the words go to the daemon's log: no terminal escapes from the cluster */
	for (char *c = ix->why; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* A ConfigMap's name: a DNS subdomain (lower-case letters, digits, '-', '.'). */
static bool valid_configmap(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
			return false;
	return true;
}

static bool valid_key(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > CODE_KEY_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '.' || *p == '_'))
			return false;
	return true;
}

/* NULL when path is safe to show below code/, else why not. */
static const char *unsafe_path(const char *path)
{
	const char *p = path;

	if (!*path)
		return "an empty path";
	if (strlen(path) > CODE_PATH_MAX)
		return "a path longer than 4096 bytes";
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0)
			return "an empty path component (a leading, doubled or trailing '/')";
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return "a '.' or '..' component";
		if (len > CODE_NAME_MAX)
			return "a component longer than 255 bytes";
		if (!slash)
			return NULL;
		p = slash + 1;
	}
}

/* Cuts the next space-separated field off *s (NUL-terminating it), or NULL. */
static char *field(char **s)
{
	char *f = *s, *sp = strchr(f, ' ');

	if (!sp)
		return NULL;
	*sp = '\0';
	*s = sp + 1;
	return f;
}

static bool parse_octal(const char *s, unsigned *out)
{
	unsigned v = 0;

	if (!*s || strlen(s) > 6)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			return false;
		v = v * 8 + (unsigned)(*s - '0');
	}
	if (v > CODE_MODE_MAX)
		return false;
	*out = v;
	return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 15)   /* under 10^15 bytes: no overflow, nothing real is near */
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* One file line into f; false (counted in ix) when it does not parse or is unsafe. */
static bool parse_line(struct code_index *ix, char *line, size_t lineno, struct code_file *f)
{
	char *rest = line, *mode = field(&rest), *size = mode ? field(&rest) : NULL;
	char *key = size ? field(&rest) : NULL;
	const char *bad;

	if (!key) {
		skip(ix, lineno, "not \"MODE SIZE KEY PATH\"");
		return false;
	}
	if (!parse_octal(mode, &f->mode)) {
		skip(ix, lineno, "mode \"%.16s\" is not octal", mode);
		return false;
	}
	if (!parse_size(size, &f->size)) {
		skip(ix, lineno, "size \"%.20s\" is not a number of bytes", size);
		return false;
	}
	if (!valid_key(key)) {
		skip(ix, lineno, "\"%.64s\" is not a ConfigMap key", key);
		return false;
	}
	if ((bad = unsafe_path(rest))) {
		skip(ix, lineno, "path \"%.64s\": %s", rest, bad);
		return false;
	}
	f->key = key;
	f->path = rest;
	f->line = lineno;
	return true;
}

static int by_path_then_line(const void *a, const void *b)
{
	const struct code_file *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* Where entries below directory dir (len bytes, "dir/...") would sort against p:
 * < 0 before them, 0 among them, > 0 after them. */
static int cmp_below(const char *p, const char *dir, size_t len)
{
	int c = strncmp(p, dir, len);

	if (c)
		return c;
	return (int)(unsigned char)p[len] - '/';
}

/* The first file at or after the entries below dir (len > 0). */
static size_t first_below(const struct code_index *ix, const char *dir, size_t len)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_below(ix->files[mid].path, dir, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool has_below(const struct code_index *ix, const char *dir, size_t len)
{
	size_t i = first_below(ix, dir, len);

	return i < ix->n && cmp_below(ix->files[i].path, dir, len) == 0;
}

/* Drops repeated paths (the first line counts) and files where a directory is. */
static void drop_conflicts(struct code_index *ix)
{
	size_t kept = 0;

	for (size_t i = 0; i < ix->n; i++) {
		struct code_file *f = &ix->files[i];

		if (kept > 0 && strcmp(ix->files[kept - 1].path, f->path) == 0) {
			skip(ix, f->line, "path \"%.64s\" is listed twice", f->path);
			continue;
		}
		ix->files[kept++] = *f;
	}
	ix->n = kept;
	/* marked first, on the whole sorted array, then dropped: has_below searches it */
	for (size_t i = 0; i < ix->n; i++)
		if (has_below(ix, ix->files[i].path, strlen(ix->files[i].path)))
			ix->files[i].key = NULL;
	kept = 0;
	for (size_t i = 0; i < ix->n; i++) {
		struct code_file *f = &ix->files[i];

		if (!f->key) {
			skip(ix, f->line, "\"%.64s\" is a file and a directory", f->path);
			continue;
		}
		ix->files[kept++] = *f;
	}
	ix->n = kept;
}

int code_index_parse(const char *annotation, struct code_index *out)
{
	char *p, *nl, *first;
	size_t lines = 1, lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!(out->text = strdup(annotation ? annotation : "")))
		return -ENOMEM;
	for (const char *c = out->text; *c; c++)
		lines += *c == '\n';
	if (!(out->files = calloc(lines, sizeof(*out->files)))) {
		code_index_free(out);
		return -ENOMEM;
	}
	first = out->text;
	nl = strchr(first, '\n');
	if (nl)
		*nl = '\0';
	p = nl ? nl + 1 : NULL;
	if (strncmp(first, "configmap ", 10) != 0 || !valid_configmap(first + 10)) {
		snprintf(out->why, sizeof(out->why),
			 "the first line is not \"configmap NAME\" but \"%.64s\"", first);
		return -EINVAL;
	}
	out->configmap = first + 10;
	while (p) {
		char *line = p;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
		lineno++;
		if (!*line)
			continue;     /* a blank line, or the newline that ends the text */
		if (parse_line(out, line, lineno, &out->files[out->n]))
			out->n++;
	}
	if (out->n > 1)
		qsort(out->files, out->n, sizeof(*out->files), by_path_then_line);
	drop_conflicts(out);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct code_name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

enum code_kind code_index_find(const struct code_index *ix, const char *path,
			       const struct code_file **file)
{
	size_t len = strlen(path), lo = 0, hi = ix->n;

	if (len == 0)
		return CODE_DIR;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->files[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n && strcmp(ix->files[lo].path, path) == 0) {
		if (file)
			*file = &ix->files[lo];
		return CODE_FILE;
	}
	return has_below(ix, path, len) ? CODE_DIR : CODE_NONE;
}

int code_index_list(const struct code_index *ix, const char *dir, struct code_name **out,
		    size_t *n)
{
	size_t len = strlen(dir), start = 0, end = ix->n, skip_len = 0, count = 0;
	struct code_name *names;

	*out = NULL;
	*n = 0;
	if (len > 0) {
		start = first_below(ix, dir, len);
		if (start == ix->n || cmp_below(ix->files[start].path, dir, len) != 0)
			return -ENOENT;
		for (end = start; end < ix->n && cmp_below(ix->files[end].path, dir, len) == 0; end++)
			;
		skip_len = len + 1;
	}
	if (start == end)
		return 0;
	if (!(names = malloc((end - start) * sizeof(*names))))
		return -ENOMEM;
	for (size_t i = start; i < end; i++) {
		const char *name = ix->files[i].path + skip_len, *slash = strchr(name, '/');
		struct code_name c = {name, slash ? (size_t)(slash - name) : strlen(name),
				      slash ? NULL : &ix->files[i]};

		/* the entries below one subdirectory are one run: name it once */
		if (count > 0 && !c.file && !names[count - 1].file && names[count - 1].len == c.len &&
		    memcmp(names[count - 1].name, c.name, c.len) == 0)
			continue;
		names[count++] = c;
	}
	qsort(names, count, sizeof(*names), by_name);
	*out = names;
	*n = count;
	return 0;
}

unsigned code_file_perm(const struct code_file *f)
{
	return 0444 | (f->mode & 0111);
}
