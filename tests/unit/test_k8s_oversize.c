/*
 * Tests of an object too large to hold (issue 33, item 6): k8s/cache/oversize.c
 * finds the name, namespace and event type in an object's first bytes, wherever
 * they are cut; listparse.c and watchparse.c, told to skip such objects, hand
 * one over with its whole size and go on with the objects after it, in any
 * chunking (without the hook they still fail, test_k8s_listparse.c).
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/cache/listparse.h"
#include "k8s/cache/oversize.h"
#include "k8s/cache/watchparse.h"
#include "k8s/base/strbuf.h"

/* An object's start: a decoy "name" in the labels and in an array come first. */
static const char HEAD[] =
    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"metadata\":{\"labels\":"
    "{\"name\":\"decoy\"},\"finalizers\":[{\"name\":\"x\"}],\"name\":\"huge\","
    "\"namespace\":\"team-a\",\"annotations\":{\"padding\":\"";

TEST(oversize_finds_the_name_and_namespace_not_a_nested_one)
{
	struct oversize o;

	oversize_identify(HEAD, strlen(HEAD), false, 17u << 20, &o);
	CHECK_STR_EQ(o.name, "huge");
	CHECK_STR_EQ(o.ns, "team-a");
	CHECK_STR_EQ(o.type, "");
	CHECK(o.bytes == 17u << 20);
}

TEST(oversize_reads_an_event_and_any_cut_leaves_fields_empty_or_whole)
{
	struct strbuf ev = STRBUF_INIT;
	struct oversize o;

	strbuf_printf(&ev, "{\"type\":\"MODIFIED\",\"object\":%s", HEAD);
	oversize_identify(strbuf_str(&ev), ev.len, true, 1, &o);
	CHECK_STR_EQ(o.type, "MODIFIED");
	CHECK_STR_EQ(o.name, "huge");
	CHECK_STR_EQ(o.ns, "team-a");
	/* a list item's reading of an event finds no metadata at its top */
	oversize_identify(strbuf_str(&ev), ev.len, false, 1, &o);
	CHECK_STR_EQ(o.name, "");
	for (size_t cut = 0; cut <= ev.len; cut++) {
		oversize_identify(strbuf_str(&ev), cut, true, 1, &o);
		CHECK(o.name[0] == '\0' || strcmp(o.name, "huge") == 0);
		CHECK(o.ns[0] == '\0' || strcmp(o.ns, "team-a") == 0);
	}
	strbuf_free(&ev);
}

TEST(oversize_leaves_an_escaped_name_empty)
{
	static const char T[] = "{\"metadata\":{\"name\":\"a\\\"b\",\"namespace\":\"n\"}";
	struct oversize o;

	oversize_identify(T, strlen(T), false, 1, &o);
	CHECK_STR_EQ(o.name, "");
	CHECK_STR_EQ(o.ns, "n");
}

/* What the parsers hand over: the names read from each skipped object's start. */
struct seen {
	struct strbuf sb;
	bool in_event;
};

static int on_big(void *arg, const char *prefix, size_t len, size_t bytes)
{
	struct seen *s = arg;
	struct oversize o;

	CHECK(len <= OVERSIZE_PREFIX);
	oversize_identify(prefix, len, s->in_event, bytes, &o);
	strbuf_printf(&s->sb, "BIG %s/%s %zu|", o.ns, o.name, bytes);
	return 0;
}

static int on_item(void *arg, json_t *item)
{
	struct seen *s = arg;

	strbuf_printf(&s->sb, "%s|", json_string_value(json_object_get(
	                                 json_object_get(item, "metadata"), "name")));
	return 0;
}

/* {"items":[a, HEAD + padding + "}}}", c]}: the big item is n bytes. */
static char *list_with_a_big_item(size_t n, size_t *len, size_t *big)
{
	static const char PRE[] = "{\"items\":[{\"metadata\":{\"name\":\"a\"}},";
	static const char POST[] = ",{\"metadata\":{\"name\":\"c\"}}]}";
	size_t head = strlen(HEAD), pre = strlen(PRE);
	char *t = malloc(pre + n + sizeof(POST));

	if (!t)
		return NULL;
	memcpy(t, PRE, pre);
	memcpy(t + pre, HEAD, head);
	memset(t + pre + head, 'x', n - head - 4);
	memcpy(t + pre + n - 4, "\"}}}", 4);
	memcpy(t + pre + n, POST, sizeof(POST));
	*len = pre + n + sizeof(POST) - 1;
	*big = n;
	return t;
}

TEST(listparse_skips_an_item_over_the_limit_and_reads_the_next)
{
	static const size_t STEPS[] = {0, 65536, (1u << 20) + 7};
	size_t len, big;
	char *t = list_with_a_big_item(LISTPARSE_ITEM_MAX + 100, &len, &big);
	char want[128];

	CHECK(t != NULL);
	if (!t)
		return;
	snprintf(want, sizeof(want), "a|BIG team-a/huge %zu|c|", big);
	for (size_t k = 0; k < sizeof(STEPS) / sizeof(STEPS[0]); k++) {
		struct seen s = {STRBUF_INIT, false};
		struct list_parser p;
		struct k8s_error err;
		json_t *rest = NULL;
		size_t step = STEPS[k] ? STEPS[k] : len;
		int rc = 0;

		listparse_init(&p, 0, on_item, &s);
		listparse_on_oversize(&p, on_big);
		for (size_t at = 0; at < len && rc == 0; at += step)
			rc = listparse_feed(&p, t + at, len - at < step ? len - at : step, &err);
		CHECK_INT_EQ(rc, 0);
		CHECK_INT_EQ(listparse_finish(&p, &rest, &err), 0);
		CHECK_STR_EQ(strbuf_str(&s.sb), want);
		CHECK(p.item.cap <= OVERSIZE_PREFIX); /* no 16 MiB kept after it */
		json_decref(rest);
		listparse_free(&p);
		strbuf_free(&s.sb);
	}
	free(t);
}

static int on_event(void *arg, const struct watch_event *ev)
{
	struct seen *s = arg;

	strbuf_printf(&s->sb, "%s %s|", watch_event_type_name(ev->type),
	              json_string_value(json_object_get(json_object_get(ev->object, "metadata"),
	                                                "name")));
	return 0;
}

TEST(watchparse_skips_a_line_over_the_limit_and_reads_the_next)
{
	static const size_t STEPS[] = {0, 1, 7, 100};
	const size_t limit = 1000;
	struct strbuf t = STRBUF_INIT;
	size_t big;

	strbuf_puts(&t, "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n");
	big = t.len;
	strbuf_printf(&t, "{\"type\":\"MODIFIED\",\"object\":%s", HEAD);
	while (t.len - big < 4000)
		strbuf_putc(&t, 'x');
	strbuf_puts(&t, "\"}}}}");
	big = t.len - big;
	strbuf_puts(&t, "\n{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}");
	for (size_t k = 0; k < sizeof(STEPS) / sizeof(STEPS[0]); k++) {
		struct seen s = {STRBUF_INIT, true};
		struct watch_parser p;
		struct k8s_error err;
		size_t step = STEPS[k] ? STEPS[k] : t.len;
		char want[128];
		int rc = 0;

		watchparse_init(&p, limit);
		watchparse_on_oversize(&p, on_big);
		for (size_t at = 0; at < t.len && rc == 0; at += step)
			rc = watchparse_feed(&p, strbuf_str(&t) + at,
			                     t.len - at < step ? t.len - at : step, on_event, &s, &err);
		CHECK_INT_EQ(rc, 0);
		CHECK_INT_EQ(watchparse_finish(&p, on_event, &s, &err), 0);
		snprintf(want, sizeof(want), "ADDED a|BIG team-a/huge %zu|DELETED c|", big);
		CHECK_STR_EQ(strbuf_str(&s.sb), want);
		watchparse_free(&p);
		strbuf_free(&s.sb);
	}
	strbuf_free(&t);
}
