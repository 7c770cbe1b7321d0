/*
 * Tests render/form_write.c: over thousands of random documents (nested objects and
 * arrays, keys and strings with controls, quotes, non-ASCII, YAML's special words,
 * numbers in strings, several lines, long keys), the writer's JSON is byte for byte
 * jansson's json_dumps (JSON_INDENT(4) | JSON_PRESERVE_ORDER) and a newline, and its
 * YAML is render/yaml_emit.c's of the same tree: the text the forms had when they
 * were built as jansson trees. And a string that is not UTF-8 is written with U+FFFD.
 */
#include "render/form_write.h"
#include "render/yaml_emit.h"
#include "tests/unit/harness.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* A small deterministic generator (xorshift): the same documents every run. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

/* Pieces strings are made of: what each syntax must quote, escape or keep. */
static const char *const PIECES[] = {
    "a", "job", "mnist-0", " ", "\n", "\t", "\"", "\\", "/", ":", ": ", " #", "-", "---",
    "?", "{", "[", ",", "&", "*", "!", "|", ">", "'", "%", "@", "`", "\x01", "\x1b", "\x7f",
    "\r", "\b", "\f", "é", "日本", "\xc2\x85", "\xe2\x80\xa8", "\xef\xbb\xbf", "😀", "true",
    "no", "on", "null", "~", "y", "123", "-7", "1.5", "0x1F", "1e3", "10.0.0.1",
    "2026-12-02T10:00:00Z", ".inf", "<<", "=", "N/A", "RUNNING", "123s", "",
};

static char *random_string(void)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned n = rnd(5);

	for (unsigned i = 0; i < n; i++)
		strbuf_puts(&sb, PIECES[rnd(sizeof(PIECES) / sizeof(PIECES[0]))]);
	/* now and then a key too long to be a simple YAML key */
	if (rnd(200) == 0)
		for (int i = 0; i < 1100; i++)
			strbuf_putc(&sb, 'k');
	if (!sb.buf)
		strbuf_puts(&sb, "");
	return strbuf_take(&sb);
}

static json_t *random_value(int depth)
{
	unsigned kind = rnd(depth > 4 ? 5 : 8);
	json_t *v;
	char *s;

	switch (kind) {
	case 0:
		return json_null();
	case 1:
		return json_boolean(rnd(2));
	case 2: {
		static const json_int_t INTS[] = {0, 1, -1, 42, 1796205600, -9223372036854775807LL,
		                                  9223372036854775807LL};
		return json_integer(rnd(3) ? (json_int_t)rnd(100000) - 500
		                           : INTS[rnd(sizeof(INTS) / sizeof(INTS[0]))]);
	}
	case 3:
	case 4:
		s = random_string();
		v = json_string(s);
		free(s);
		return v;
	case 5:
	case 6:
		v = json_object();
		for (unsigned i = 0, n = rnd(6); i < n; i++) {
			s = random_string();
			json_object_set_new(v, s, random_value(depth + 1));
			free(s);
		}
		return v;
	default:
		v = json_array();
		for (unsigned i = 0, n = rnd(5); i < n; i++)
			json_array_append_new(v, random_value(depth + 1));
		return v;
	}
}

/* Says v to the writer, as a form renderer says its document. */
static void write_value(struct form *f, const char *key, const json_t *v)
{
	const char *k;
	json_t *item;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		render_form_object(f, key);
		json_object_foreach((json_t *)v, k, item) write_value(f, k, item);
		render_form_end(f);
		break;
	case JSON_ARRAY:
		render_form_array(f, key);
		json_array_foreach(v, i, item) write_value(f, NULL, item);
		render_form_end(f);
		break;
	case JSON_STRING:
		render_form_stringn(f, key, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		render_form_int(f, key, json_integer_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		render_form_bool(f, key, json_is_true(v));
		break;
	default:
		render_form_null(f, key);
	}
}

static char *written(const json_t *doc, bool yaml)
{
	struct strbuf sb = STRBUF_INIT;
	struct form f;

	render_form_init(&f, &sb, yaml);
	write_value(&f, NULL, doc);
	render_form_finish(&f);
	return strbuf_take(&sb);
}

static char *jansson_json(const json_t *doc)
{
	char *text = json_dumps(doc, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
	struct strbuf sb = STRBUF_INIT;

	strbuf_puts(&sb, text);
	strbuf_putc(&sb, '\n');
	free(text);
	return strbuf_take(&sb);
}

static char *emitted_yaml(const json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;

	render_yaml_emit(&sb, doc);
	return strbuf_take(&sb);
}

TEST(form_write_is_jansson_and_yaml_emit_byte_for_byte_over_random_documents)
{
	int failures = 0;

	for (int i = 0; i < 4000 && failures < 3; i++) {
		json_t *doc = rnd(2) ? json_object() : json_array();
		json_t *filled = random_value(0);
		char *got_json, *want_json, *got_yaml, *want_yaml;

		/* a form's top is an object or an array */
		if (json_is_object(filled) || json_is_array(filled)) {
			json_decref(doc);
			doc = filled;
		} else if (json_is_object(doc)) {
			json_object_set_new(doc, "v", filled);
		} else {
			json_array_append_new(doc, filled);
		}
		got_json = written(doc, false);
		want_json = jansson_json(doc);
		got_yaml = written(doc, true);
		want_yaml = emitted_yaml(doc);
		if (!got_json || !got_yaml || strcmp(got_json, want_json) != 0 ||
		    strcmp(got_yaml, want_yaml) != 0) {
			failures++;
			CHECK_STR_EQ(got_json, want_json);
			CHECK_STR_EQ(got_yaml, want_yaml);
		}
		free(got_json);
		free(want_json);
		free(got_yaml);
		free(want_yaml);
		json_decref(doc);
	}
	CHECK_INT_EQ(failures, 0);
}

TEST(form_write_lays_out_a_form_as_arena_and_kubectl_do)
{
	json_t *doc = json_loads("[{\"name\": \"a\", \"instances\": [{\"z\": 1, \"b\": []}],"
	                         " \"gpuMetrics\": {}, \"queue\": null}, {}]", 0, NULL);
	char *text;

	text = written(doc, false);
	CHECK_STR_EQ(text, "[\n"
	                   "    {\n"
	                   "        \"name\": \"a\",\n"
	                   "        \"instances\": [\n"
	                   "            {\n"
	                   "                \"z\": 1,\n"
	                   "                \"b\": []\n"
	                   "            }\n"
	                   "        ],\n"
	                   "        \"gpuMetrics\": {},\n"
	                   "        \"queue\": null\n"
	                   "    },\n"
	                   "    {}\n"
	                   "]\n");
	free(text);
	text = written(doc, true);
	CHECK_STR_EQ(text, "- gpuMetrics: {}\n"
	                   "  instances:\n"
	                   "  - b: []\n"
	                   "    z: 1\n"
	                   "  name: a\n"
	                   "  queue: null\n"
	                   "- {}\n");
	free(text);
	json_decref(doc);
}

/* A string cut from a longer one (a why line up to its newline) is styled as itself:
 * plain, not quoted for what follows its end. */
TEST(form_write_styles_a_cut_string_by_its_own_bytes)
{
	struct strbuf sb = STRBUF_INIT;
	struct form f;

	render_form_init(&f, &sb, true);
	render_form_object(&f, NULL);
	render_form_stringn(&f, "why", "Running since 10:00.\n  more", 20);
	render_form_stringn(&f, "num", "123abc", 3);
	render_form_end(&f);
	render_form_finish(&f);
	CHECK_STR_EQ(strbuf_str(&sb), "num: \"123\"\nwhy: Running since 10:00.\n");
	strbuf_free(&sb);
}

TEST(form_write_writes_what_is_not_utf8_as_the_replacement_character)
{
	struct strbuf sb = STRBUF_INIT;
	struct form f;

	render_form_init(&f, &sb, false);
	render_form_object(&f, NULL);
	render_form_string(&f, "s", "a\xff" "b\xc3");
	render_form_string(&f, "surrogate", "\xed\xa0\x80");
	render_form_end(&f);
	render_form_finish(&f);
	CHECK(strbuf_ok(&sb));
	CHECK_STR_EQ(strbuf_str(&sb), "{\n    \"s\": \"a\xef\xbf\xbd" "b\xef\xbf\xbd\",\n"
	                              "    \"surrogate\": \"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"\n}\n");
	strbuf_free(&sb);
}

TEST(form_write_fails_a_document_too_deep_as_out_of_memory)
{
	struct strbuf sb = STRBUF_INIT;
	struct form f;

	render_form_init(&f, &sb, true);
	for (int i = 0; i <= FORM_DEPTH_MAX; i++)
		render_form_array(&f, NULL);
	for (int i = 0; i <= FORM_DEPTH_MAX; i++)
		render_form_end(&f);
	render_form_finish(&f);
	CHECK(!strbuf_ok(&sb));
	strbuf_free(&sb);
}
