/*
 * Tests of k8s/logs/loglines.c: timestamps cut off, and a stream broken at any byte and
 * resumed with sinceTime gives every line exactly once — with a server that
 * honours sinceTime to the nanosecond and with one that (like the kubelet behind
 * the API server) rounds it down to the second, with lines sharing a timestamp,
 * and with a line longer than the hold limit.
 */
#include "tests/unit/harness.h"

#include <stdlib.h>

#include "k8s/logs/loglines.h"
#include "k8s/base/strbuf.h"

struct line {
	const char *ts;
	int64_t sec;
	int32_t nsec;
	char *text; /* incl. '\n' */
};

#define NLINES 24

static struct line lines[NLINES];
static struct strbuf expected = STRBUF_INIT;
static bool made;

/* Five lines a second, in time order as a kubelet writes them, pairs sharing a timestamp,
 * Go's trimmed fractions ("…:40.5Z"), and one line of 100 KiB. */
static void make_lines(void)
{
	static char ts[NLINES][40];
	static const int32_t nsecs[NLINES] = {
	    0,         5,         500000000, 500000000, 999999999, 0,  123456789, 123456789,
	    200000000, 300000000, 1,         2,         3,         4,  400000000, 0,
	    10,        20,        30,        40,        50,        60, 60,        999000000};

	if (made)
		return;
	made = true;
	for (int i = 0; i < NLINES; i++) {
		int64_t sec = 1767225600 + i / 5; /* 2026-01-01T00:00:00Z + i/5 s */
		int32_t ns = nsecs[i];
		char frac[16] = "";
		struct strbuf t = STRBUF_INIT;

		if (ns) {
			/* RFC3339Nano: trailing zeros trimmed */
			int n = snprintf(frac, sizeof(frac), ".%09d", ns);

			while (n > 1 && frac[n - 1] == '0')
				frac[--n] = '\0';
		}
		snprintf(ts[i], sizeof(ts[i]), "2026-01-01T00:00:%02d%sZ", (int)(sec - 1767225600),
		         frac);
		if (i == 13) {
			for (int k = 0; k < 100 * 1024; k++)
				strbuf_putc(&t, (char)('a' + k % 26));
			strbuf_putc(&t, '\n');
		} else if (i == 7) {
			strbuf_puts(&t, "  indented, with a space and\ttab\n");
		} else if (i == 9) {
			strbuf_puts(&t, "\n"); /* an empty line */
		} else {
			strbuf_printf(&t, "line %d of the log\n", i);
		}
		lines[i] = (struct line){ts[i], sec, ns, strbuf_take(&t)};
		strbuf_puts(&expected, lines[i].text);
	}
}

/* The stream a server sends for sinceTime since (NULL: everything). */
static void server_stream(const char *since, bool round_to_second, struct strbuf *out)
{
	struct logts s = {0, 0};

	if (since) {
		CHECK_INT_EQ(loglines_parse_ts(since, strlen(since), &s), 0);
		if (round_to_second)
			s.nsec = 0;
	}
	for (int i = 0; i < NLINES; i++) {
		if (since &&
		    (lines[i].sec < s.sec || (lines[i].sec == s.sec && lines[i].nsec < s.nsec)))
			continue;
		strbuf_printf(out, "%s ", lines[i].ts);
		strbuf_puts(out, lines[i].text);
	}
}

static int collect(void *arg, const char *data, size_t len)
{
	strbuf_append(arg, data, len);
	return 0;
}

static int feed_chunks(struct loglines *l, const char *data, size_t len, size_t chunk,
                       struct strbuf *out)
{
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		int rc = loglines_feed(l, data + off, n, collect, out);

		if (rc)
			return rc;
	}
	return 0;
}

/* Breaks the stream after `cut` bytes, resumes once, and checks the result. */
static bool run_break(size_t cut, bool round, size_t chunk)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT, out = STRBUF_INIT;
	struct loglines l;
	bool ok;

	server_stream(NULL, round, &first);
	loglines_init(&l);
	feed_chunks(&l, first.buf, cut, chunk, &out);
	loglines_resume(&l);
	server_stream(loglines_since(&l), round, &second);
	feed_chunks(&l, second.buf, second.len, chunk, &out);
	loglines_finish(&l, collect, &out);
	ok = out.len == expected.len && memcmp(out.buf, expected.buf, out.len) == 0;
	if (!ok)
		harness_fail(__FILE__, __LINE__,
		             "break at %zu (round %d, chunk %zu): %zu bytes out, %zu expected", cut,
		             round, chunk, out.len, expected.len);
	loglines_free(&l);
	strbuf_free(&first);
	strbuf_free(&second);
	strbuf_free(&out);
	return ok;
}

TEST(loglines_timestamps_are_cut_off)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	struct loglines l;

	make_lines();
	server_stream(NULL, false, &in);
	loglines_init(&l);
	CHECK_INT_EQ(feed_chunks(&l, in.buf, in.len, in.len, &out), 0);
	CHECK_INT_EQ(loglines_finish(&l, collect, &out), 0);
	CHECK_INT_EQ(out.len, expected.len);
	CHECK(out.len == expected.len && memcmp(out.buf, expected.buf, out.len) == 0);
	CHECK_STR_EQ(loglines_since(&l), lines[NLINES - 1].ts);
	loglines_free(&l);
	strbuf_free(&in);
	strbuf_free(&out);
}

TEST(loglines_resume_after_a_break_at_every_byte_exact_since)
{
	size_t len, bad = 0;
	struct strbuf in = STRBUF_INIT;

	make_lines();
	server_stream(NULL, false, &in);
	len = in.len;
	strbuf_free(&in);
	/* every byte outside the long line, and a stride through it */
	for (size_t cut = 0; cut <= len && bad < 3; cut++) {
		if (!run_break(cut, false, 4096))
			bad++;
		if (cut > 400 && cut < len - 2000 && (cut % 1000) != 0)
			cut += 97;
	}
	CHECK_INT_EQ(bad, 0);
}

TEST(loglines_resume_when_since_is_rounded_to_the_second)
{
	size_t len, bad = 0;
	struct strbuf in = STRBUF_INIT;

	make_lines();
	server_stream(NULL, true, &in);
	len = in.len;
	strbuf_free(&in);
	for (size_t cut = 0; cut <= len && bad < 3; cut++) {
		if (!run_break(cut, true, 7)) /* tiny chunks: tokens split too */
			bad++;
		if (cut > 400 && cut < len - 2000)
			cut += 211;
	}
	CHECK_INT_EQ(bad, 0);
}

TEST(loglines_two_breaks_in_a_row)
{
	struct strbuf s1 = STRBUF_INIT, s2 = STRBUF_INIT, s3 = STRBUF_INIT, out = STRBUF_INIT;
	struct loglines l;

	make_lines();
	server_stream(NULL, true, &s1);
	loglines_init(&l);
	feed_chunks(&l, s1.buf, 150, 64, &out);
	loglines_resume(&l);
	server_stream(loglines_since(&l), true, &s2);
	feed_chunks(&l, s2.buf, 40, 64, &out); /* breaks again inside the repeats */
	loglines_resume(&l);
	server_stream(loglines_since(&l), true, &s3);
	feed_chunks(&l, s3.buf, s3.len, 64, &out);
	loglines_finish(&l, collect, &out);
	CHECK_INT_EQ(out.len, expected.len);
	CHECK(out.len == expected.len && memcmp(out.buf, expected.buf, out.len) == 0);
	loglines_free(&l);
	strbuf_free(&s1);
	strbuf_free(&s2);
	strbuf_free(&s3);
	strbuf_free(&out);
}

TEST(loglines_short_lines_are_passed_on_whole)
{
	struct loglines l;
	struct strbuf out = STRBUF_INIT;
	const char *s = "2026-01-01T00:00:00.1Z hello wor";

	loglines_init(&l);
	CHECK_INT_EQ(loglines_feed(&l, s, strlen(s), collect, &out), 0);
	CHECK_INT_EQ(out.len, 0); /* held until its newline */
	CHECK_INT_EQ(loglines_feed(&l, "ld\n", 3, collect, &out), 0);
	CHECK_STR_EQ(strbuf_str(&out), "hello world\n");
	loglines_free(&l);
	strbuf_free(&out);
}

TEST(loglines_lines_without_timestamps_pass_through)
{
	struct loglines l;
	struct strbuf out = STRBUF_INIT;
	const char *s = "plain line\nnot-a-time text\n2026-01-01T00:00:00Z stamped\nlast";

	loglines_init(&l);
	CHECK_INT_EQ(loglines_feed(&l, s, strlen(s), collect, &out), 0);
	CHECK_INT_EQ(loglines_finish(&l, collect, &out), 0);
	CHECK_STR_EQ(strbuf_str(&out), "plain line\nnot-a-time text\nstamped\nlast");
	CHECK_STR_EQ(loglines_since(&l), "2026-01-01T00:00:00Z");
	loglines_free(&l);
	strbuf_free(&out);
}

TEST(loglines_parse_timestamps)
{
	struct logts t;

	CHECK_INT_EQ(loglines_parse_ts("2026-01-01T00:00:01.5Z", 22, &t), 0);
	CHECK_INT_EQ(t.sec, 1767225601);
	CHECK_INT_EQ(t.nsec, 500000000);
	CHECK_INT_EQ(loglines_parse_ts("2026-01-01T00:00:01.123456789Z", 30, &t), 0);
	CHECK_INT_EQ(t.nsec, 123456789);
	CHECK_INT_EQ(loglines_parse_ts("2026-01-01T00:00:01Z", 20, &t), 0);
	CHECK_INT_EQ(t.nsec, 0);
	CHECK_INT_EQ(loglines_parse_ts("2026-01-01 hello", 16, &t), -1);
	CHECK_INT_EQ(loglines_parse_ts("2026-01-01T00:00:01.5", 21, &t), -1);
	CHECK_INT_EQ(loglines_parse_ts("hello", 5, &t), -1);
}
