/* Tests k8s/base/strbuf.c: appends, padding, growth, taking the buffer. */
#include "k8s/base/strbuf.h"
#include "tests/unit/harness.h"

#include <stdlib.h>

TEST(strbuf_appends_and_pads)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR_EQ(strbuf_str(&sb), "");
	strbuf_puts(&sb, "NAME");
	strbuf_pad(&sb, "", 2);
	strbuf_printf(&sb, "%d/%d", 3, 8);
	strbuf_putc(&sb, '\n');
	CHECK_STR_EQ(strbuf_str(&sb), "NAME  3/8\n");
	CHECK_INT_EQ(sb.len, 10);
	CHECK(strbuf_ok(&sb));
	char *s = strbuf_take(&sb);
	CHECK_STR_EQ(s, "NAME  3/8\n");
	CHECK(sb.buf == NULL);
	free(s);
}

TEST(strbuf_grows_past_its_first_allocation)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < 10000; i++)
		strbuf_putc(&sb, 'x');
	CHECK_INT_EQ(sb.len, 10000);
	CHECK_INT_EQ(strlen(strbuf_str(&sb)), 10000);
	strbuf_free(&sb);
}
