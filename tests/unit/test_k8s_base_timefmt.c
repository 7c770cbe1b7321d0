/* Tests k8s/base/timefmt.c: RFC 3339 to Unix seconds and back. */
#include "k8s/base/timefmt.h"
#include "tests/unit/harness.h"

#include <stdlib.h>

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
