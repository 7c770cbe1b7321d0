/* Tests render/table.c: tabwriter's layout, no trailing blanks, single-line cells. */
#include "render/table.h"
#include "render/text.h"
#include "tests/unit/harness.h"

#include <stdlib.h>

TEST(table_aligns_like_tabwriter)
{
	struct strbuf sb = STRBUF_INIT;
	struct render_table t;

	render_table_init(&t, 3);
	render_table_add(&t, (const char *[]){"NAME", "STATUS", "NODE"});
	render_table_add_rule(&t);
	render_table_add(&t, (const char *[]){"a-long-name", "Running", "n1"});
	render_table_add(&t, (const char *[]){"b", "", ""}); /* empty cells: no trailing blanks */
	render_table_add(&t, (const char *[]){"grüße", NULL, "n2"}); /* width in characters */
	render_table_render(&sb, &t, "  ");
	CHECK_STR_EQ(strbuf_str(&sb), "  NAME         STATUS   NODE\n"
	                              "  ----         ------   ----\n"
	                              "  a-long-name  Running  n1\n"
	                              "  b\n"
	                              "  grüße                 n2\n");
	render_table_free(&t);
	strbuf_free(&sb);
}

TEST(table_cells_are_one_line_and_bounded)
{
	struct strbuf sb = STRBUF_INIT;
	struct render_table t;
	char *big = malloc(RENDER_CELL_MAX * 2);

	memset(big, 'y', RENDER_CELL_MAX * 2 - 1);
	big[RENDER_CELL_MAX * 2 - 1] = '\0';
	render_table_init(&t, 2);
	render_table_add(&t, (const char *[]){"a\nb\tc\x1b\x7f", "\xc2\x9b[2Jx"});
	render_table_add(&t, (const char *[]){"k", big});
	render_table_render(&sb, &t, "");
	/* ESC and DEL, then the C1 CSI of the next cell, are blanks. */
	CHECK(strncmp(strbuf_str(&sb), "a b c     [2Jx\nk        yyy", 27) == 0);
	CHECK_INT_EQ(sb.len, 15 + 9 + RENDER_CELL_MAX + 1);
	CHECK(strstr(strbuf_str(&sb), "yyy...\n") != NULL);
	render_table_free(&t);
	strbuf_free(&sb);
	free(big);
}

TEST(oneline_cuts_at_a_character_boundary)
{
	struct strbuf sb = STRBUF_INIT;

	render_put_oneline(&sb, "ééé", 6); /* 6 bytes: fits */
	strbuf_putc(&sb, '|');
	render_put_oneline(&sb, "éééé", 6); /* 8 bytes: 3 left for text, not half an é */
	CHECK_STR_EQ(strbuf_str(&sb), "ééé|é...");
	strbuf_free(&sb);
}

TEST(short_durations_as_arena)
{
	char b[32];

	CHECK_STR_EQ(render_short_duration(-5, b, sizeof(b)), "<invalid>");
	CHECK_STR_EQ(render_short_duration(-1, b, sizeof(b)), "0s");
	CHECK_STR_EQ(render_short_duration(59, b, sizeof(b)), "59s");
	CHECK_STR_EQ(render_short_duration(618, b, sizeof(b)), "10m");
	CHECK_STR_EQ(render_short_duration(3600 * 23 + 59, b, sizeof(b)), "23h");
	CHECK_STR_EQ(render_short_duration(86400 * 3, b, sizeof(b)), "3d");
	CHECK_STR_EQ(render_short_duration(86400 * 800, b, sizeof(b)), "2y");
	CHECK_STR_EQ(render_time_or_na(0, b, sizeof(b)), "N/A");
	CHECK_STR_EQ(render_time_or_na(1796205600, b, sizeof(b)), "2026-12-02 10:00:00");
}

TEST(real_digits_are_the_shortest_exact)
{
	CHECK_INT_EQ(render_real_digits(0.1), 1);
	CHECK_INT_EQ(render_real_digits(2.5), 2);
	CHECK_INT_EQ(render_real_digits(0.30000000000000004), 17);
	CHECK_INT_EQ(render_real_digits(1e20), 1);
}
