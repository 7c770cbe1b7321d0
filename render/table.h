/*
 * render/table.c's face: the aligned table Arena prints through Go's text/tabwriter
 * (table.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_TABLE_H
#define ARENAFS_RENDER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* Go's tabwriter as Arena configures it: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0). */
#define RENDER_TABLE_PADDING 2

/* The longest a cell may be: a message of many kB must not make a table unreadable,
 * and the whole text stays bounded. Longer cells end in "...". */
#define RENDER_CELL_MAX 4096

/*
 * A table laid out like Go's text/tabwriter: each column as wide as its widest
 * cell (counted in UTF-8 characters) plus RENDER_TABLE_PADDING spaces, the last
 * column not padded, and no trailing blanks. Cells are made single-line when
 * added (control characters become spaces), so a hostile message cannot break the
 * layout. Allocation failure is remembered and passed to the strbuf at render.
 */
struct render_table {
	size_t ncols;
	size_t nrows;
	size_t cap;   /* rows allocated */
	char **cells; /* nrows * ncols, owned */
	bool oom;
};

void render_table_init(struct render_table *t, size_t ncols);

/* Adds a row of t->ncols cells; NULL cells are empty. */
void render_table_add(struct render_table *t, const char *const *cells);

/* Adds a row of Arena's dashes under each header cell ("NAME" → "----"). */
void render_table_add_rule(struct render_table *t);

/* Appends the table, each line starting with indent. */
void render_table_render(struct strbuf *sb, const struct render_table *t, const char *indent);

void render_table_free(struct render_table *t);

#endif
