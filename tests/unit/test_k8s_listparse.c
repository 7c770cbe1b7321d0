/*
 * Tests of k8s/cache/listparse.c: a list cut at every byte gives the same items and the
 * same rest; strings holding brackets, quotes and escapes end nothing; scalar and
 * empty items; members in any order; broken, truncated and over-long bodies fail
 * with their errno; random bytes never crash it.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

#include "k8s/cache/listparse.h"
#include "k8s/base/strbuf.h"

/* A page as the API server writes it; the second pod's message holds ']', '}',
 * '[', an escaped quote and an escaped backslash before a quote. */
static const char LIST[] =
    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"42\","
    "\"continue\":\"eyJ2Ijo\\\"x\"},\"items\":[{\"metadata\":{\"name\":\"a\"}},"
    "{\"metadata\":{\"name\":\"b\"},\"status\":{\"message\":\"x]} [\\\" \\\\\"}},"
    "{\"metadata\":{\"name\":\"c\",\"labels\":{\"items\":\"[\"}}}]}\n";

static const char EXPECTED[] = "a|b x]} [\" \\|c|";

struct got {
	struct strbuf sb;
	int stop_at; /* return 1 at this item (1-based), 0: never */
	int n;
};

static int record(void *arg, json_t *item)
{
	struct got *g = arg;
	const char *name =
	    json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
	const char *msg =
	    json_string_value(json_object_get(json_object_get(item, "status"), "message"));

	g->n++;
	if (json_is_integer(item))
		strbuf_printf(&g->sb, "%lld", (long long)json_integer_value(item));
	else
		strbuf_puts(&g->sb, name ? name : "?");
	if (msg)
		strbuf_printf(&g->sb, " %s", msg);
	strbuf_putc(&g->sb, '|');
	return g->stop_at && g->n == g->stop_at;
}

/* Feeds text in pieces of step bytes (0: whole); returns the rc of the first failure
 * or of finish, and the rest in *rest. */
static int parse_in_steps(const char *text, size_t len, size_t step, struct got *g,
                          json_t **rest, struct k8s_error *err)
{
	struct list_parser p;
	int rc = 0;

	listparse_init(&p, 0, record, g);
	for (size_t at = 0; at < len && rc == 0; at += step ? step : len) {
		size_t n = step && len - at > step ? step : len - at;

		rc = listparse_feed(&p, text + at, n, err);
	}
	if (rc == 0)
		rc = listparse_finish(&p, rest, err);
	listparse_free(&p);
	return rc;
}

TEST(listparse_items_and_rest_are_the_same_in_any_chunking)
{
	size_t len = strlen(LIST);

	for (size_t step = 0; step <= len; step++) {
		struct got g = {STRBUF_INIT, 0, 0};
		struct k8s_error err;
		json_t *rest = NULL;
		json_t *md;

		CHECK_INT_EQ(parse_in_steps(LIST, len, step, &g, &rest, &err), 0);
		CHECK_STR_EQ(strbuf_str(&g.sb), EXPECTED);
		md = json_object_get(rest, "metadata");
		CHECK_STR_EQ(json_string_value(json_object_get(md, "resourceVersion")), "42");
		CHECK_STR_EQ(json_string_value(json_object_get(md, "continue")), "eyJ2Ijo\"x");
		CHECK_STR_EQ(json_string_value(json_object_get(rest, "kind")), "PodList");
		CHECK_INT_EQ(json_array_size(json_object_get(rest, "items")), 0);
		json_decref(rest);
		strbuf_free(&g.sb);
	}
}

TEST(listparse_takes_members_in_any_order_and_odd_items)
{
	/* items first, white space everywhere, a scalar item, an empty object */
	static const char TEXT[] = " \r\n{ \"items\" : [ 7 , {\"metadata\":{\"name\":\"x\"}} ,{} ]"
	                           " , \"metadata\" : {\"resourceVersion\":\"9\"} }\n ";
	size_t len = strlen(TEXT);

	for (size_t step = 0; step <= len; step++) {
		struct got g = {STRBUF_INIT, 0, 0};
		struct k8s_error err;
		json_t *rest = NULL;

		CHECK_INT_EQ(parse_in_steps(TEXT, len, step, &g, &rest, &err), 0);
		CHECK_STR_EQ(strbuf_str(&g.sb), "7|x|?|");
		CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(rest, "metadata"),
		                                               "resourceVersion")),
		             "9");
		json_decref(rest);
		strbuf_free(&g.sb);
	}
}

TEST(listparse_empty_and_null_items)
{
	static const char *const TEXTS[] = {"{\"items\":[]}", "{\"items\":null,\"kind\":\"L\"}",
	                                    "{}", "{\"kind\":\"L\"}"};

	for (size_t i = 0; i < sizeof(TEXTS) / sizeof(TEXTS[0]); i++) {
		struct got g = {STRBUF_INIT, 0, 0};
		struct k8s_error err;
		json_t *rest = NULL;

		CHECK_INT_EQ(parse_in_steps(TEXTS[i], strlen(TEXTS[i]), 1, &g, &rest, &err), 0);
		CHECK_INT_EQ(g.n, 0);
		CHECK(json_is_object(rest));
		json_decref(rest);
		strbuf_free(&g.sb);
	}
}

TEST(listparse_reads_items_under_an_escaped_key_at_the_end)
{
	static const char TEXT[] = "{\"\\u0069tems\":[{\"metadata\":{\"name\":\"e\"}}],"
	                           "\"metadata\":{\"resourceVersion\":\"3\"}}";
	struct got g = {STRBUF_INIT, 0, 0};
	struct k8s_error err;
	json_t *rest = NULL;

	CHECK_INT_EQ(parse_in_steps(TEXT, strlen(TEXT), 5, &g, &rest, &err), 0);
	CHECK_STR_EQ(strbuf_str(&g.sb), "e|");
	json_decref(rest);
	strbuf_free(&g.sb);
}

TEST(listparse_broken_bodies_fail_with_eproto)
{
	static const char *const TEXTS[] = {
	    "",                                    /* nothing */
	    "[]",                                  /* not an object */
	    "{\"items\":[{\"a\":1}",               /* cut in the items */
	    "{\"items\":[{\"a\":1}]",              /* cut before the end */
	    "{\"items\":[{\"a\":}]}",              /* an item that is not JSON */
	    "{\"items\":[{\"a\":1},]}",            /* a trailing comma */
	    "{\"items\":[{\"a\":1} {\"b\":2}]}",   /* no comma */
	    "{\"items\":[]} x",                    /* data after the list */
	    "{\"kind\" \"L\"}",                    /* no colon */
	    "{\"kind\":\"L\" \"x\":1}",            /* no comma between members */
	    "{\"kind\":tru}",                      /* the rest is not JSON */
	    "{kind:1}",                            /* a key without quotes */
	};

	for (size_t i = 0; i < sizeof(TEXTS) / sizeof(TEXTS[0]); i++) {
		struct got g = {STRBUF_INIT, 0, 0};
		struct k8s_error err;
		json_t *rest = NULL;
		int rc = parse_in_steps(TEXTS[i], strlen(TEXTS[i]), 3, &g, &rest, &err);

		if (rc != -EPROTO)
			harness_fail(__FILE__, __LINE__, "\"%s\": rc %d, expected -EPROTO", TEXTS[i],
			             rc);
		CHECK(rest == NULL);
		strbuf_free(&g.sb);
	}
}

TEST(listparse_callback_stops_it)
{
	struct got g = {STRBUF_INIT, 2, 0};
	struct k8s_error err;
	json_t *rest = NULL;

	CHECK_INT_EQ(parse_in_steps(LIST, strlen(LIST), 7, &g, &rest, &err), 1);
	CHECK_INT_EQ(g.n, 2);
	CHECK(rest == NULL);
	strbuf_free(&g.sb);
}

TEST(listparse_limits_the_body)
{
	struct got g = {STRBUF_INIT, 0, 0};
	struct k8s_error err;
	struct list_parser p;

	listparse_init(&p, 20, record, &g);
	CHECK_INT_EQ(listparse_feed(&p, LIST, 10, &err), 0);
	CHECK_INT_EQ(listparse_feed(&p, LIST + 10, 11, &err), -EFBIG);
	CHECK_STR_CONTAINS(err.message, "larger than");
	CHECK_INT_EQ(listparse_feed(&p, "x", 1, &err), -EPROTO); /* it only fails after */
	listparse_free(&p);
	strbuf_free(&g.sb);
}

TEST(listparse_limits_an_item_and_the_rest)
{
	size_t n = LISTPARSE_ITEM_MAX + 64;
	char *big = malloc(n);
	struct got g = {STRBUF_INIT, 0, 0};
	struct k8s_error err;
	struct list_parser p;
	int rc = 0;

	CHECK(big != NULL);
	if (!big)
		return;
	/* one item of a string longer than the limit, fed in 64 KiB chunks */
	memset(big, 'x', n);
	memcpy(big, "{\"items\":[\"", 11);
	listparse_init(&p, 0, record, &g);
	for (size_t at = 0; at < n && rc == 0; at += 65536)
		rc = listparse_feed(&p, big + at, n - at < 65536 ? n - at : 65536, &err);
	CHECK_INT_EQ(rc, -E2BIG);
	listparse_free(&p);

	/* a member other than the items longer than the rest's limit */
	memset(big, 'x', n);
	memcpy(big, "{\"kind\":\"", 9);
	rc = 0;
	listparse_init(&p, 0, record, &g);
	for (size_t at = 0; at < n && rc == 0; at += 65536)
		rc = listparse_feed(&p, big + at, n - at < 65536 ? n - at : 65536, &err);
	CHECK_INT_EQ(rc, -E2BIG);
	listparse_free(&p);
	free(big);
	strbuf_free(&g.sb);
}

TEST(listparse_random_bytes_never_crash_it)
{
	static const char ALPHABET[] = "{}[]\":,\\ x1items";
	unsigned seed = 12345;
	char buf[256];

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(rand_r(&seed) % sizeof(buf));
		struct got g = {STRBUF_INIT, 0, 0};
		struct k8s_error err;
		json_t *rest = NULL;
		size_t step = 1 + (size_t)(rand_r(&seed) % 17);
		int rc;

		for (size_t i = 0; i < len; i++)
			buf[i] = ALPHABET[rand_r(&seed) % (sizeof(ALPHABET) - 1)];
		if (round % 2 && len > 10)
			memcpy(buf, "{\"items\":[", 10);
		rc = parse_in_steps(buf, len, step, &g, &rest, &err);
		CHECK(rc == 0 || rc == -EPROTO || rc == -E2BIG);
		CHECK((rc == 0) == (rest != NULL));
		json_decref(rest);
		strbuf_free(&g.sb);
	}
}
