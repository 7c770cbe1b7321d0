/* Tests k8s/base/strbuf.c and k8s/base/timefmt.c. */
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"
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

TEST(rfc3339_round_trip)
{
	char buf[32];

	CHECK_INT_EQ(time_parse_rfc3339("1970-01-01T00:00:00Z"), 0);
	CHECK_INT_EQ(time_parse_rfc3339("2026-12-02T10:14:29Z"), 1796206469);
	CHECK_INT_EQ(time_parse_rfc3339("2026-12-02T10:14:29.123456Z"), 1796206469);
	CHECK_INT_EQ(time_parse_rfc3339("2026-12-02T12:14:29+02:00"), 1796206469);
	CHECK_INT_EQ(time_parse_rfc3339("garbage"), 0);
	CHECK_INT_EQ(time_parse_rfc3339(NULL), 0);
	CHECK_STR_EQ(time_format_rfc3339(1796206469, buf, sizeof(buf)), "2026-12-02T10:14:29Z");
	CHECK_STR_EQ(time_format_human(1796206469, buf, sizeof(buf)), "2026-12-02 10:14:29");
}
