/*
 * Tests of k8s/cache/watchparse.c: events split across every chunk boundary, several in
 * one chunk, bookmarks, ERROR 410, garbage and over-long lines.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

#include "k8s/cache/watchparse.h"
#include "k8s/base/strbuf.h"

/* Five events as the API server writes them; the pod's message holds an escaped
 * "\r\n" and a '}' inside a string, which must not end anything. */
static const char STREAM[] =
    "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
    "{\"name\":\"mnist-worker-0\",\"namespace\":\"default\",\"resourceVersion\":\"11\"},"
    "\"status\":{\"message\":\"line one\\r\\nline two }\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
    "{\"name\":\"mnist-worker-0\",\"namespace\":\"default\",\"resourceVersion\":\"12\"}}}\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
    "{\"resourceVersion\":\"15\"}}}\n"
    "{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
    "{\"name\":\"mnist-worker-0\",\"namespace\":\"default\",\"resourceVersion\":\"16\"}}}\n"
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"too old resource version: 123 (456)\","
    "\"reason\":\"Expired\",\"code\":410}}\n";

static const char EXPECTED[] = "ADDED mnist-worker-0 11 msg=line one\r\nline two }\n"
                               "MODIFIED mnist-worker-0 12\n"
                               "BOOKMARK  15\n"
                               "DELETED mnist-worker-0 16\n"
                               "ERROR gone\n";

static int record(void *arg, const struct watch_event *ev)
{
	struct strbuf *sb = arg;
	json_t *meta = json_object_get(ev->object, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
	const char *msg =
	    json_string_value(json_object_get(json_object_get(ev->object, "status"), "message"));

	strbuf_puts(sb, watch_event_type_name(ev->type));
	if (ev->type == WATCH_ERROR) {
		strbuf_puts(sb, watch_event_is_gone(ev) ? " gone\n" : " other\n");
		return 0;
	}
	strbuf_printf(sb, " %s %s", name ? name : "", rv ? rv : "");
	if (msg)
		strbuf_printf(sb, " msg=%s", msg);
	strbuf_putc(sb, '\n');
	return 0;
}

/* Feeds STREAM cut at the given offsets (sorted, ending with len). */
static int feed_cuts(const char *data, size_t len, const size_t *cuts, size_t ncuts,
                     struct strbuf *out, struct k8s_error *err)
{
	struct watch_parser p;
	size_t from = 0;
	int rc = 0;

	watchparse_init(&p, 0);
	for (size_t i = 0; i <= ncuts && rc == 0; i++) {
		size_t to = i < ncuts ? cuts[i] : len;

		rc = watchparse_feed(&p, data + from, to - from, record, out, err);
		from = to;
	}
	if (rc == 0)
		rc = watchparse_finish(&p, record, out, err);
	watchparse_free(&p);
	return rc;
}

TEST(watchparse_whole_stream_in_one_chunk)
{
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(STREAM, sizeof(STREAM) - 1, NULL, 0, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), EXPECTED);
	strbuf_free(&out);
}

TEST(watchparse_split_at_every_byte_boundary)
{
	size_t len = sizeof(STREAM) - 1;
	int bad = 0;

	for (size_t cut = 1; cut < len; cut++) {
		struct strbuf out = STRBUF_INIT;
		struct k8s_error err;
		int rc = feed_cuts(STREAM, len, &cut, 1, &out, &err);

		if (rc != 0 || strcmp(strbuf_str(&out), EXPECTED) != 0) {
			if (bad++ < 3)
				harness_fail(__FILE__, __LINE__, "cut at %zu: rc %d, got:\n%s", cut,
				             rc, strbuf_str(&out));
		}
		strbuf_free(&out);
	}
	CHECK_INT_EQ(bad, 0);
}

TEST(watchparse_split_at_every_pair_of_boundaries)
{
	size_t len = sizeof(STREAM) - 1;
	int bad = 0;

	/* Every 7th first cut keeps the run short while still crossing every event. */
	for (size_t a = 1; a < len; a += 7) {
		for (size_t b = a; b < len; b++) {
			size_t cuts[2] = {a, b};
			struct strbuf out = STRBUF_INIT;
			struct k8s_error err;
			int rc = feed_cuts(STREAM, len, cuts, 2, &out, &err);

			if (rc != 0 || strcmp(strbuf_str(&out), EXPECTED) != 0)
				if (bad++ < 3)
					harness_fail(__FILE__, __LINE__, "cuts %zu,%zu: rc %d", a,
					             b, rc);
			strbuf_free(&out);
		}
	}
	CHECK_INT_EQ(bad, 0);
}

TEST(watchparse_one_byte_at_a_time)
{
	size_t len = sizeof(STREAM) - 1;
	size_t *cuts = malloc(len * sizeof(*cuts));
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	for (size_t i = 0; i < len - 1; i++)
		cuts[i] = i + 1;
	CHECK_INT_EQ(feed_cuts(STREAM, len, cuts, len - 1, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), EXPECTED);
	free(cuts);
	strbuf_free(&out);
}

TEST(watchparse_crlf_and_blank_lines_are_whitespace)
{
	const char *s = "\r\n{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
	                "\"resourceVersion\":\"1\"}}}\r\n\n  \n{\"type\":\"BOOKMARK\",\"object\":"
	                "{\"metadata\":{\"resourceVersion\":\"2\"}}}\r\n";
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(s, strlen(s), NULL, 0, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), "ADDED a 1\nBOOKMARK  2\n");
	strbuf_free(&out);
}

TEST(watchparse_last_event_without_newline_is_delivered_at_finish)
{
	const char *s = "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"b\","
	                "\"resourceVersion\":\"9\"}}}";
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(s, strlen(s), NULL, 0, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), "DELETED b 9\n");
	strbuf_free(&out);
}

TEST(watchparse_error_other_than_410_is_not_gone)
{
	const char *s =
	    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":500,"
	    "\"reason\":\"InternalError\",\"message\":\"etcd\"}}\n"
	    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"reason\":\"Expired\"}}\n";
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(s, strlen(s), NULL, 0, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), "ERROR other\nERROR gone\n");
	strbuf_free(&out);
}

TEST(watchparse_garbage_is_a_protocol_error)
{
	const char *cases[] = {
	    "<html>502 Bad Gateway</html>\n",
	    "{\"type\":\"ADDED\"}\n",                    /* no object */
	    "{\"type\":\"RENAMED\",\"object\":{}}\n",    /* unknown type */
	    "{\"type\":\"ADDED\",\"object\":\"pod\"}\n", /* object not an object */
	    "[1,2,3]\n",
	    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{}}\n", /* truncated JSON */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf out = STRBUF_INIT;
		struct k8s_error err;
		int rc = feed_cuts(cases[i], strlen(cases[i]), NULL, 0, &out, &err);

		if (rc != -EPROTO)
			harness_fail(__FILE__, __LINE__, "case %zu (%s): rc %d, want -EPROTO", i,
			             cases[i], rc);
		else
			CHECK_STR_CONTAINS(err.message, "watch stream");
		CHECK_STR_EQ(strbuf_str(&out), "");
		strbuf_free(&out);
	}
}

TEST(watchparse_events_before_garbage_are_delivered)
{
	const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
	                "\"resourceVersion\":\"1\"}}}\nnot json\n";
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(s, strlen(s), NULL, 0, &out, &err), -EPROTO);
	CHECK_STR_EQ(strbuf_str(&out), "ADDED a 1\n");
	CHECK_STR_CONTAINS(err.message, "not json");
	strbuf_free(&out);
}

TEST(watchparse_truncated_stream_is_an_error_at_finish)
{
	const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"";
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(feed_cuts(s, strlen(s), NULL, 0, &out, &err), -EPROTO);
	strbuf_free(&out);
}

/* A line over the limit fails whether it arrives whole or in pieces, and the
 * buffered part never grows past the limit. */
TEST(watchparse_huge_line_is_refused)
{
	const size_t limit = 1000;
	char big[4000];
	struct watch_parser p;
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;
	int rc = 0;

	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';

	watchparse_init(&p, limit);
	CHECK_INT_EQ(watchparse_feed(&p, big, sizeof(big), record, &out, &err), -E2BIG);
	CHECK_STR_CONTAINS(err.message, "longer than 1000 bytes");
	watchparse_free(&p);

	watchparse_init(&p, limit);
	for (size_t off = 0; off < sizeof(big) && rc == 0; off += 100)
		rc = watchparse_feed(&p, big + off, 100, record, &out, &err);
	CHECK_INT_EQ(rc, -E2BIG);
	CHECK(p.cap <= limit);
	watchparse_free(&p);
	CHECK_STR_EQ(strbuf_str(&out), "");
	strbuf_free(&out);
}

/* A line exactly at the limit is still fine. */
TEST(watchparse_line_at_the_limit_is_accepted)
{
	const char *ev =
	    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}";
	size_t n = strlen(ev);
	struct watch_parser p;
	struct strbuf out = STRBUF_INIT;
	struct k8s_error err;

	watchparse_init(&p, n);
	CHECK_INT_EQ(watchparse_feed(&p, ev, 10, record, &out, &err), 0);
	CHECK_INT_EQ(watchparse_feed(&p, ev + 10, n - 10, record, &out, &err), 0);
	CHECK_INT_EQ(watchparse_feed(&p, "\n", 1, record, &out, &err), 0);
	CHECK_STR_EQ(strbuf_str(&out), "BOOKMARK  7\n");
	CHECK_INT_EQ(p.events, 1);
	watchparse_free(&p);
	strbuf_free(&out);
}

static int stop_after_first(void *arg, const struct watch_event *ev)
{
	(void)ev;
	(*(int *)arg)++;
	return 42;
}

TEST(watchparse_callback_can_stop_the_feed)
{
	struct watch_parser p;
	struct k8s_error err;
	int calls = 0;

	watchparse_init(&p, 0);
	CHECK_INT_EQ(
	    watchparse_feed(&p, STREAM, sizeof(STREAM) - 1, stop_after_first, &calls, &err), 42);
	CHECK_INT_EQ(calls, 1);
	watchparse_free(&p);
}

/* What a watch may resume from: what kube-apiserver parses as a revision. */
TEST(watchparse_rv_valid_is_a_revision)
{
	static const char *const good[] = {"1", "42", "9007199254740993",
	                                   "18446744073709551615"};
	static const char *const bad[] = {"", "0", "007", "abc", "12a", "-1", " 1", "1.5",
	                                  "18446744073709551616", "123456789012345678901"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(watch_rv_valid(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!watch_rv_valid(bad[i]));
	CHECK(!watch_rv_valid(NULL));
}
