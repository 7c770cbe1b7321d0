/*
 * Tests of render/attempt.c: instances/POD/attempts/N/info for an attempt kept,
 * running, served by the node, dropped for the budget, too large, and one known by
 * its number alone; none is an empty text.
 */
#include "render/attempt.h"
#include "tests/unit/harness.h"

#define T0 1796000000

TEST(render_attempt_info_a_kept_attempt_says_how_it_ended)
{
	struct strbuf sb = STRBUF_INIT;
	struct attempt_view v = {.number = 2, .of = 3, .container = "pytorch", .known = true,
				 .exit_code = 137, .reason = "OOMKilled", .started = T0,
				 .finished = T0 + 75, .log = ATTEMPT_LOG_KEPT, .size = 2048,
				 .keep_logs = 256 << 20, .now = T0 + 100};

	render_attempt_info(&sb, &v);
	CHECK_STR_EQ(strbuf_str(&sb),
		     "Attempt:    2 of 3\n"
		     "Container:  pytorch\n"
		     "State:      Terminated, exit code 137 (OOMKilled)\n"
		     "Started:    2026-11-30 00:53:20\n"
		     "Ended:      2026-11-30 00:54:35 (after 1m)\n"
		     "Log:        kept, 2 KiB (attempts/2/log)\n");
	strbuf_free(&sb);
}

TEST(render_attempt_info_running_and_served)
{
	struct strbuf sb = STRBUF_INIT;
	struct attempt_view run = {.number = 3, .of = 3, .container = "pytorch", .running = true,
				   .started = T0, .log = ATTEMPT_LOG_SERVED,
				   .keep_logs = 256 << 20, .now = T0 + 30};
	struct attempt_view last = {.number = 2, .of = 3, .container = "pytorch", .known = true,
				    .exit_code = 1, .reason = "", .started = T0, .finished = T0 + 2,
				    .log = ATTEMPT_LOG_SERVED, .keep_logs = 0, .now = T0 + 30};

	render_attempt_info(&sb, &run);
	CHECK_STR_CONTAINS(strbuf_str(&sb), "State:      Running\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Started:    2026-11-30 00:53:20 (30s ago)\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Ended:      -\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Log:        live (attempts/3/log, as logs); kept once it ends\n");
	strbuf_reset(&sb);
	render_attempt_info(&sb, &last);
	CHECK_STR_CONTAINS(strbuf_str(&sb), "State:      Terminated, exit code 1\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "as logs.previous); not kept after that (keep_logs=0)\n");
	strbuf_free(&sb);
}

TEST(render_attempt_info_a_log_not_there_says_why)
{
	struct strbuf sb = STRBUF_INIT;
	struct attempt_view dropped = {.number = 1, .of = 0, .container = "c", .known = true,
				       .log = ATTEMPT_LOG_DROPPED, .dropped = T0 + 60,
				       .keep_logs = 5 << 10};
	struct attempt_view big = {.number = 1, .container = "c", .log = ATTEMPT_LOG_TOO_BIG,
				   .keep_logs = 1 << 20};
	struct attempt_view lost = {.number = 1, .of = 7, .container = "c\nd",
				    .log = ATTEMPT_LOG_LOST, .keep_logs = 1 << 20};

	render_attempt_info(&sb, &dropped);
	/* a gone pod: no "of N" */
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Attempt:    1\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb),
			   "Log:        dropped at 2026-11-30 00:54:20: the kept logs reached "
			   "keep_logs (5 KiB), the least recently read go first\n");
	strbuf_reset(&sb);
	render_attempt_info(&sb, &big);
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Log:        not kept: larger than keep_logs (1.0 MiB)\n");
	strbuf_reset(&sb);
	render_attempt_info(&sb, &lost);
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Container:  c d\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "State:      Terminated (how is unknown: it ended before arenafs saw it)\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Started:    unknown\nEnded:      unknown\n");
	CHECK_STR_CONTAINS(strbuf_str(&sb), "Log:        not kept: it ended before arenafs saw it");
	strbuf_free(&sb);
}
