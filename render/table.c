/*
 * The aligned tables of Arena's reports (table.h): the layout Go's
 * text/tabwriter gives with minwidth 0, padding 2, pad ' ', no flags — which is
 * how `arena get`, `arena top node` and `arena top job` print — so the columns
 * line up the same way. Two departures, both for files: no trailing blanks
 * (tabwriter pads an empty last-but-one cell), and cells are single-line.
 *
 * Pure; used by every render/ file that prints a table.
 */
#include "render/table.h"
#include "render/text.h"

#include <stdlib.h>
#include <string.h>

void render_table_init(struct render_table *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

static char *cell_dup(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	render_put_oneline(&sb, s ? s : "", RENDER_CELL_MAX);
	return strbuf_take(&sb);
}

void render_table_add(struct render_table *t, const char *const *cells)
{
	char **row;

	if (t->oom)
		return;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		char **p = realloc(t->cells, cap * t->ncols * sizeof(*p));

		if (!p) {
			t->oom = true;
			return;
		}
		t->cells = p;
		t->cap = cap;
	}
	row = t->cells + t->nrows * t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		row[c] = cell_dup(cells[c]);
		if (!row[c]) {
			while (c-- > 0)
				free(row[c]);
			t->oom = true;
			return;
		}
	}
	t->nrows++;
}

void render_table_add_rule(struct render_table *t)
{
	char **dashes;

	if (t->oom || t->nrows == 0)
		return;
	dashes = calloc(t->ncols, sizeof(*dashes));
	if (!dashes) {
		t->oom = true;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		size_t n = strlen(t->cells[c]);

		dashes[c] = malloc(n + 1);
		if (!dashes[c]) {
			t->oom = true;
			goto out;
		}
		memset(dashes[c], '-', n);
		dashes[c][n] = '\0';
	}
	render_table_add(t, (const char *const *)dashes);
out:
	for (size_t c = 0; c < t->ncols; c++)
		free(dashes[c]);
	free(dashes);
}

/* Characters on screen: UTF-8 lead bytes (tabwriter counts runes the same way). */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

void render_table_render(struct strbuf *sb, const struct render_table *t, const char *indent)
{
	size_t *width;

	if (t->oom) {
		sb->oom = true;
		return;
	}
	if (t->nrows == 0)
		return;
	width = calloc(t->ncols, sizeof(*width));
	if (!width) {
		sb->oom = true;
		return;
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = text_width(t->cells[r * t->ncols + c]);

			if (w > width[c])
				width[c] = w;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		size_t start = sb->len;

		strbuf_puts(sb, indent);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			strbuf_puts(sb, cell);
			if (c + 1 < t->ncols)
				for (size_t w = text_width(cell);
				     w < width[c] + RENDER_TABLE_PADDING; w++)
					strbuf_putc(sb, ' ');
		}
		/* No trailing blanks, not even after the indent of an empty row. */
		while (sb->len > start && sb->buf && sb->buf[sb->len - 1] == ' ')
			sb->buf[--sb->len] = '\0';
		strbuf_putc(sb, '\n');
	}
	free(width);
}

void render_table_free(struct render_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
