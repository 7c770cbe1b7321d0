/* Tests render/jobspec/yaml_parse.c: YAML 1.1 as Kubernetes reads it, with positions. */
#include "render/jobspec/yaml_parse.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct yaml_doc *parse_ok(const char *text)
{
	struct k8s_error err;
	struct yaml_doc *d = NULL;
	int rc;

	k8s_error_clear(&err);
	rc = yaml_parse(text, strlen(text), &d, &err);
	if (rc != 0)
		harness_fail(__FILE__, __LINE__, "yaml_parse(%s) = %d: %s", text, rc, err.message);
	return d;
}

/* The compact JSON of text, or "ERROR: message". Caller frees. */
static char *as_json(const char *text)
{
	struct k8s_error err;
	struct yaml_doc *d = NULL;
	char *out;

	k8s_error_clear(&err);
	if (yaml_parse(text, strlen(text), &d, &err) < 0) {
		if (asprintf(&out, "ERROR: %s", err.message) < 0)
			out = NULL;
		return out;
	}
	out = json_dumps(yaml_doc_root(d), JSON_COMPACT | JSON_ENCODE_ANY);
	yaml_doc_free(d);
	return out;
}

#define CHECK_YAML(text, expected)                                                                 \
	do {                                                                                       \
		char *j_ = as_json(text);                                                          \
		CHECK_STR_EQ(j_, expected);                                                        \
		free(j_);                                                                          \
	} while (0)

#define CHECK_YAML_ERROR(text, needle)                                                             \
	do {                                                                                       \
		char *j_ = as_json(text);                                                          \
		CHECK_STR_CONTAINS(j_, "ERROR: ");                                                 \
		CHECK_STR_CONTAINS(j_, needle);                                                    \
		free(j_);                                                                          \
	} while (0)

/* The error text parses to, or "(parsed)": for texts whose JSON is too large to show. */
static void check_refused(const char *file, int line, const char *text, const char *needle)
{
	struct k8s_error err;
	struct yaml_doc *d = NULL;

	k8s_error_clear(&err);
	if (yaml_parse(text, strlen(text), &d, &err) == 0)
		harness_fail(file, line, "parsed, wanted an error saying \"%s\"", needle);
	else if (!strstr(err.message, needle))
		harness_fail(file, line, "error \"%s\", wanted one saying \"%s\"", err.message,
		             needle);
	yaml_doc_free(d);
}

TEST(yaml_plain_scalars_resolve_like_go_yaml_v2)
{
	CHECK_YAML("a: true\nb: yes\nc: On\nd: n\ne: FALSE\nf: off\n",
	           "{\"a\":true,\"b\":true,\"c\":true,\"d\":false,\"e\":false,\"f\":false}");
	CHECK_YAML("a: ~\nb:\nc: null\nd: Null\n", "{\"a\":null,\"b\":null,\"c\":null,\"d\":null}");
	CHECK_YAML("a: 42\nb: -7\nc: +3\nd: 0x1F\ne: 0o17\nf: 0b101\ng: 0777\nh: 1_000\n",
	           "{\"a\":42,\"b\":-7,\"c\":3,\"d\":31,\"e\":15,\"f\":5,\"g\":511,\"h\":1000}");
	CHECK_YAML("a: 1.5\nb: .5\nc: -2.25e1\n", "{\"a\":1.5,\"b\":0.5,\"c\":-22.5}");
	/* integral floats are integers in Go's JSON */
	CHECK_YAML("a: 2.0\nb: 1e3\nc: 08\n", "{\"a\":2,\"b\":1000,\"c\":8}");
	CHECK_YAML("a: two\nb: 8Gi\nc: 500m\nd: 2001-12-14\ne: 1.2.3\nf: 0x\n",
	           "{\"a\":\"two\",\"b\":\"8Gi\",\"c\":\"500m\",\"d\":\"2001-12-14\","
	           "\"e\":\"1.2.3\",\"f\":\"0x\"}");
	/* a leading '_' makes no number (go-yaml looks at the first character; found
	 * by test_render_yaml_emit's round trips) */
	CHECK_YAML("a: _1\nb: __2_\nc: -_1\n", "{\"a\":\"_1\",\"b\":\"__2_\",\"c\":-1}");
}

TEST(yaml_quoted_and_block_scalars_stay_strings)
{
	CHECK_YAML("a: \"true\"\nb: '42'\nc: \"null\"\nd: |\n  x\n  y\ne: >-\n  p\n  q\n",
	           "{\"a\":\"true\",\"b\":\"42\",\"c\":\"null\",\"d\":\"x\\ny\\n\",\"e\":\"p q\"}");
}

TEST(yaml_tags_are_honoured_or_refused)
{
	CHECK_YAML("a: !!str 42\nb: !!int \"7\"\nc: !!float 1\nd: !!bool \"yes\"\ne: ! 12\n",
	           "{\"a\":\"42\",\"b\":7,\"c\":1,\"d\":true,\"e\":\"12\"}");
	CHECK_YAML_ERROR("a: !!int two\n",
	                 "line 1, column 4: !!int value \"two\" is not an integer");
	CHECK_YAML_ERROR("a: !custom x\n", "tag !custom is not supported");
	CHECK_YAML_ERROR("a: .inf\n", "line 1, column 4: .inf has no JSON form");
}

TEST(yaml_keys_stay_as_written)
{
	CHECK_YAML("on: 1\n2: b\n~: c\n", "{\"on\":1,\"2\":\"b\",\"~\":\"c\"}");
	CHECK_YAML_ERROR("? [a, b]\n: c\n",
	                 "line 1, column 3: a mapping key must be a plain value");
}

TEST(yaml_duplicate_key_names_both_places)
{
	CHECK_YAML_ERROR("type: tfjob\ngpus: 1\nimage: x\ngpus: 2\n",
	                 "line 4, column 1: duplicate key \"gpus\" (first at line 2, column 1)");
	CHECK_YAML_ERROR("env:\n  A: 1\n  A: 2\n", "line 3, column 3: duplicate key \"A\"");
}

TEST(yaml_syntax_error_has_line_and_column)
{
	char *j = as_json("type: tfjob\nimage: [a, b\ncommand: x\n");

	CHECK_STR_CONTAINS(j, "ERROR: line ");
	CHECK_STR_CONTAINS(j, "YAML syntax error");
	free(j);
	CHECK_YAML_ERROR("a: b: c\n", "line 1, column 5: YAML syntax error: mapping values are not "
	                              "allowed in this context");
	CHECK_YAML_ERROR("a:\n\tb: 1\n", "line 2, column 1: YAML syntax error");
}

TEST(yaml_anchors_aliases_and_merge_keys)
{
	CHECK_YAML("base: &b {cpu: \"1\", memory: 1Gi}\nw: *b\n",
	           "{\"base\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"w\":{\"cpu\":\"1\",\"memory\":"
	           "\"1Gi\"}}");
	CHECK_YAML("base: &b {cpu: \"1\", memory: 1Gi}\nw:\n  <<: *b\n  cpu: \"2\"\n",
	           "{\"base\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"w\":{\"cpu\":\"2\",\"memory\":"
	           "\"1Gi\"}}");
	CHECK_YAML("a: &x 1\nb: &y {k: v}\nc:\n  <<: [*y, {k: w, j: z}]\n  n: *x\n",
	           "{\"a\":1,\"b\":{\"k\":\"v\"},\"c\":{\"n\":1,\"k\":\"v\",\"j\":\"z\"}}");
	CHECK_YAML_ERROR("a: *nope\n", "line 1, column 4: alias *nope refers to no anchor");
	CHECK_YAML_ERROR("a: &x 1\nb:\n  <<: *x\n", "line 3, column 3: the merge key << needs a "
	                                            "mapping");
}

TEST(yaml_alias_bomb_is_an_error)
{
	const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	                   "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	                   "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	                   "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	                   "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	                   "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";

	CHECK_YAML_ERROR(bomb, "expands to more than 100000 nodes");
}

/* A text of n anchors and n aliases, each alias naming an anchor far from its
 * own place (the last, the first, ...): "x: [&a0 v, ...]\ny: [*aK, ...]\n". */
static char *anchors_and_aliases(size_t n)
{
	size_t cap = n * 32 + 64, len = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	len += (size_t)snprintf(t + len, cap - len, "x: [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "%s&a%zu v", i ? ", " : "", i);
	len += (size_t)snprintf(t + len, cap - len, "]\ny: [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "%s*a%zu", i ? ", " : "",
		                        i % 2 ? i : n - 1 - i);
	snprintf(t + len, cap - len, "]\n");
	return t;
}

/* Finding an alias's anchor is a lookup, not a walk of every anchor before it: 20,000
 * anchors and 20,000 aliases took 200 million comparisons (2.3 s a close for a
 * 249 KB manifest). The bound is a few steps per node of the text. */
TEST(yaml_alias_resolution_takes_steps_in_proportion_to_the_text)
{
	const size_t n = 20000;
	char *text = anchors_and_aliases(n);
	struct yaml_doc *d;

	if (!text)
		return;
	d = parse_ok(text);
	if (d) {
		json_t *y = json_object_get(yaml_doc_root(d), "y");

		CHECK_INT_EQ(json_array_size(y), n);
		CHECK_STR_EQ(json_string_value(json_array_get(y, 0)), "v");
		CHECK(yaml_doc_steps(d) >= 2 * n); /* one an event at least: it counts */
		if (yaml_doc_steps(d) > 8 * 2 * n)
			harness_fail(__FILE__, __LINE__,
			             "%zu anchors and %zu aliases took %zu steps, more than %zu",
			             n, n, yaml_doc_steps(d), 8 * 2 * n);
	}
	yaml_doc_free(d);
	free(text);
}

/* A mapping that merges another (`<<: *m`) holds all of m's values: an alias of it
 * expands to that much, not to one node per key. Counted one per key, five levels
 * of merges made a document of 2.5 million nodes that counted as about 1,100. */
TEST(yaml_merged_values_count_in_full_against_the_node_limit)
{
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof(text), "a: &n0 [x, x, x, x, x, x, x, x, x, x]\n");

	for (int level = 1; level <= 5; level++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "m%d: &m%d {", level, level);
		for (int k = 0; k < 10; k++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%sk%d: *n%d",
			                        k ? ", " : "", k, level - 1);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "}\nn%d: &n%d {<<: *m%d}\n",
		                        level, level, level);
	}
	CHECK(len < sizeof(text));
	check_refused(__FILE__, __LINE__, text, "expands to more than 100000 nodes");
}

/* Few nodes, many bytes: one long string repeated by aliases would make every later
 * copy of the document (the request's body, the checks) that large. */
TEST(yaml_alias_bomb_of_bytes_is_an_error)
{
	size_t big = 200 * 1024, len = 0;
	char *text = malloc(big + 256);

	if (!text)
		return;
	len += (size_t)sprintf(text, "a: &a ");
	memset(text + len, 'x', big);
	len += big;
	len += (size_t)sprintf(text + len, "\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, "
	                                   "*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
	check_refused(__FILE__, __LINE__, text, "expands to more than 3 MiB");
	free(text);
}

TEST(yaml_documents_one_taken_empty_ones_ignored)
{
	CHECK_YAML("", "null");
	CHECK_YAML("# only a comment\n", "null");
	CHECK_YAML("---\na: 1\n", "{\"a\":1}");
	CHECK_YAML("a: 1\n---\n", "{\"a\":1}");
	CHECK_YAML("a: 1\n...\n", "{\"a\":1}");
	CHECK_YAML_ERROR("a: 1\n---\nb: 2\n",
	                 "line 2, column 1: a second YAML document starts here");
}

TEST(yaml_deep_nesting_is_refused)
{
	char text[400];
	size_t n = 0;

	for (int i = 0; i < YAML_MAX_DEPTH + 5; i++)
		text[n++] = '[';
	text[n] = '\0';
	CHECK_YAML_ERROR(text, "nested deeper than");
}

TEST(yaml_positions_of_keys_values_and_items)
{
	struct yaml_doc *d = parse_ok("type: tfjob\nenv:\n  A: \"1\"\n  B: two\ntolerations:\n"
	                              "  - key: k\n    operator: Exists\n  - all\n");
	const json_t *root, *env, *tol;
	const struct yaml_node_info *i;

	if (!d)
		return;
	root = yaml_doc_root(d);
	i = yaml_doc_top(d);
	CHECK(i != NULL);
	if (i)
		CHECK_INT_EQ(i->value.line, 1);
	i = yaml_doc_member(d, root, "env");
	CHECK(i != NULL);
	if (i) {
		CHECK_INT_EQ(i->key.line, 2);
		CHECK_INT_EQ(i->key.column, 1);
		CHECK_INT_EQ(i->value.line, 3);
		CHECK_INT_EQ(i->value.column, 3);
		CHECK(i->text == NULL);
	}
	env = json_object_get(root, "env");
	i = yaml_doc_member(d, env, "B");
	CHECK(i != NULL);
	if (i) {
		CHECK_INT_EQ(i->key.line, 4);
		CHECK_INT_EQ(i->key.column, 3);
		CHECK_INT_EQ(i->value.column, 6);
		CHECK_STR_EQ(i->text, "two");
		CHECK(!i->quoted);
	}
	i = yaml_doc_member(d, env, "A");
	CHECK(i && i->quoted);
	tol = json_object_get(root, "tolerations");
	i = yaml_doc_item(d, tol, 1);
	CHECK(i != NULL);
	if (i) {
		CHECK_INT_EQ(i->value.line, 8);
		CHECK_INT_EQ(i->value.column, 5);
		CHECK_STR_EQ(i->text, "all");
	}
	i = yaml_doc_member(d, json_array_get(tol, 0), "operator");
	CHECK(i != NULL);
	if (i)
		CHECK_INT_EQ(i->key.line, 7);
	CHECK(yaml_doc_member(d, root, "missing") == NULL);
	CHECK(yaml_doc_item(d, tol, 5) == NULL);
	yaml_doc_free(d);
}

TEST(yaml_merged_keys_keep_their_source_position)
{
	struct yaml_doc *d = parse_ok("base: &b\n  cpu: \"1\"\nw:\n  <<: *b\n  memory: 1Gi\n");
	const struct yaml_node_info *i;

	if (!d)
		return;
	i = yaml_doc_member(d, json_object_get(yaml_doc_root(d), "w"), "cpu");
	CHECK(i != NULL);
	if (i) {
		CHECK_INT_EQ(i->key.line, 2);
		CHECK_STR_EQ(i->text, "1");
	}
	yaml_doc_free(d);
}

TEST(yaml_invalid_utf8_is_an_error)
{
	CHECK_YAML_ERROR("a: \xff\xfe\n", "UTF-8");
}
