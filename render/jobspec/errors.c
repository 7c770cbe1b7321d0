/*
 * Every mistake of a small spec, in line order (see errors.h). Up to
 * SPEC_ERRORS_MAX are kept; a longer list, or one longer than an error message
 * holds, ends with "and N more". A spec's mistakes are few: the list is a plain
 * array, sorted once at the end.
 *
 * Pure: no I/O, no locks. Callers: values.c (spec_fail), validate.c.
 */
#include "render/jobspec/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/strbuf.h"

#define SPEC_ERRORS_MAX 16

struct spec_error {
	int line, column; /* 0: no place in the text */
	int seq;          /* the order found, among equals */
	char path[64];
	char message[K8S_ERROR_MESSAGE_MAX];
};

struct spec_errors {
	struct spec_error e[SPEC_ERRORS_MAX];
	int n;       /* kept */
	int dropped; /* found beyond SPEC_ERRORS_MAX */
};

int spec_errors_begin(struct spec_ctx *c)
{
	c->errors = calloc(1, sizeof(*c->errors));
	return c->errors ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
}

void spec_errors_add(struct spec_ctx *c, int line, int column, const char *path,
                     const char *message)
{
	struct spec_errors *l = c->errors;
	struct spec_error *e;

	if (!l)
		return;
	if (l->n == SPEC_ERRORS_MAX) {
		l->dropped++;
		return;
	}
	e = &l->e[l->n];
	e->line = line;
	e->column = column;
	e->seq = l->n++;
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->message, sizeof(e->message), "%s", message);
}

bool spec_errors_at(const struct spec_ctx *c, const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; c->errors && i < c->errors->n; i++) {
		const char *p = c->errors->e[i].path;

		if (strncmp(p, key, n) == 0 && (p[n] == '\0' || p[n] == '.' || p[n] == '['))
			return true;
	}
	return false;
}

/* Placed mistakes by line and column, then the unplaced ones; each in the order found. */
static int by_place(const void *a, const void *b)
{
	const struct spec_error *x = a, *y = b;
	long kx = x->line ? (long)x->line : 0x7fffffffL, ky = y->line ? (long)y->line : 0x7fffffffL;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return x->seq - y->seq;
}

int spec_errors_end(struct spec_ctx *c, int rc)
{
	struct spec_errors *l = c->errors;
	struct strbuf sb = STRBUF_INIT;
	int more;

	c->errors = NULL;
	if (!l)
		return rc;
	/* a hard error wins; with no mistake found, rc says how it went */
	if ((rc != 0 && rc != -EINVAL) || l->n == 0) {
		free(l);
		return rc;
	}
	qsort(l->e, (size_t)l->n, sizeof(l->e[0]), by_place);
	more = l->dropped;
	for (int i = 0; i < l->n; i++) {
		/* room for this one and a closing "; and N more" */
		if (i > 0 && sb.len + 2 + strlen(l->e[i].message) + 24 >= K8S_ERROR_MESSAGE_MAX) {
			more += l->n - i;
			break;
		}
		strbuf_printf(&sb, "%s%s", i ? "; " : "", l->e[i].message);
	}
	if (more)
		strbuf_printf(&sb, "; and %d more", more);
	rc = strbuf_ok(&sb) ? k8s_error_set(c->err, EINVAL, "%s", strbuf_str(&sb))
	                    : k8s_error_set(c->err, ENOMEM, "out of memory");
	strbuf_free(&sb);
	free(l);
	return rc;
}
