/*
 * Tests render/yaml_emit.c: kubectl's layout, the quoting YAML 1.1 needs, block
 * scalars, escapes, reals — and that the text reads back as the same JSON with
 * /usr/bin/python3's yaml.safe_load and with render/jobspec/yaml_parse.c.
 */
#include "render/yaml_emit.h"
#include "render/jobspec/yaml_parse.h"
#include "tests/unit/harness.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* The YAML of a JSON text (parsed with NULs allowed). Caller frees. */
static char *emit_json(const char *json)
{
	json_error_t jerr;
	json_t *v = json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	struct strbuf sb = STRBUF_INIT;

	if (!v) {
		harness_fail(__FILE__, __LINE__, "bad test JSON %s: %s", json, jerr.text);
		return strdup("");
	}
	render_yaml_emit(&sb, v);
	json_decref(v);
	return strbuf_take(&sb);
}

#define CHECK_EMIT(json, expected)                                                                 \
	do {                                                                                       \
		char *y_ = emit_json(json);                                                        \
		CHECK_STR_EQ(y_, expected);                                                        \
		free(y_);                                                                          \
	} while (0)

TEST(yaml_emit_layout_is_kubectls)
{
	CHECK_EMIT("{\"b\":\"x\",\"a\":1,\"c\":[1,2],\"d\":{\"f\":{},\"e\":[]},"
	           "\"g\":[{\"i\":2,\"h\":{\"k\":[true,null]}}],\"j\":[[1,2],[3],[]]}",
	           "a: 1\n"
	           "b: x\n"
	           "c:\n"
	           "- 1\n"
	           "- 2\n"
	           "d:\n"
	           "  e: []\n"
	           "  f: {}\n"
	           "g:\n"
	           "- h:\n"
	           "    k:\n"
	           "    - true\n"
	           "    - null\n"
	           "  i: 2\n"
	           "j:\n"
	           "- - 1\n"
	           "  - 2\n"
	           "- - 3\n"
	           "- []\n");
	CHECK_EMIT("{}", "{}\n");
	CHECK_EMIT("[]", "[]\n");
	CHECK_EMIT("\"x\"", "x\n");
	CHECK_EMIT("[{}, {\"a\": []}]", "- {}\n- a: []\n");
}

TEST(yaml_emit_quotes_what_would_not_read_as_a_string)
{
	CHECK_EMIT(
	    "[\"123\", \"-7\", \"+1\", \"1.5\", \"1e3\", \"0x1F\", \"0o17\", \"1_000\", \"1:30\"]",
	    "- \"123\"\n- \"-7\"\n- \"+1\"\n- \"1.5\"\n- \"1e3\"\n- \"0x1F\"\n- \"0o17\"\n"
	    "- \"1_000\"\n- \"1:30\"\n");
	CHECK_EMIT("[\"true\", \"False\", \"yes\", \"NO\", \"on\", \"Off\", \"y\", \"N\"]",
	           "- \"true\"\n- \"False\"\n- \"yes\"\n- \"NO\"\n- \"on\"\n- \"Off\"\n- \"y\"\n- "
	           "\"N\"\n");
	CHECK_EMIT("[\"null\", \"~\", \"\", \".inf\", \"-.Inf\", \".NaN\", \"=\", \"<<\"]",
	           "- \"null\"\n- \"~\"\n- \"\"\n- \".inf\"\n- \"-.Inf\"\n- \".NaN\"\n- \"=\"\n- "
	           "\"<<\"\n");
	CHECK_EMIT("[\"2001-12-14\", \"2001-12-14t21:59:43.10-05:00\", \"10.0.0.1\"]",
	           "- \"2001-12-14\"\n- \"2001-12-14t21:59:43.10-05:00\"\n- \"10.0.0.1\"\n");
	/* Indicators, comments, mapping separators, blanks at the ends. */
	CHECK_EMIT(
	    "[\"- x\", \"-\", \"---\", \"...\", \"#x\", \"a: b\", \"a #b\", \"x:\", \" x\", \"x \","
	    " \"@x\", \"*x\", \"&x\", \"!x\", \"%x\", \"`x\", \"|x\", \">x\", \"'x\", \"\\\"x\","
	    " \"[x\", \"{x\", \"?x\", \",x\", \":x\", \"a\\tb\"]",
	    "- \"- x\"\n- \"-\"\n- \"---\"\n- \"...\"\n- \"#x\"\n- \"a: b\"\n- \"a #b\"\n- \"x:\"\n"
	    "- \" x\"\n- \"x \"\n- \"@x\"\n- \"*x\"\n- \"&x\"\n- \"!x\"\n- \"%x\"\n- \"`x\"\n"
	    "- \"|x\"\n- \">x\"\n- \"'x\"\n- \"\\\"x\"\n- \"[x\"\n- \"{x\"\n- \"?x\"\n- \",x\"\n"
	    "- \":x\"\n- \"a\\tb\"\n");
}

TEST(yaml_emit_keeps_ordinary_strings_plain)
{
	CHECK_EMIT(
	    "[\"tensorflow/tensorflow:2.15.0-gpu\", \"8Gi\", \"2.15.0-gpu\", \"http://x.y:80/z\","
	    " \"--logdir\", \"a-b_c.d\", \"grüße\", \"python main.py --lr 0.1\", \"a#b\", \"x'y\"]",
	    "- tensorflow/tensorflow:2.15.0-gpu\n- 8Gi\n- 2.15.0-gpu\n- http://x.y:80/z\n"
	    "- --logdir\n- a-b_c.d\n- grüße\n- python main.py --lr 0.1\n- a#b\n- x'y\n");
	/* Keys follow the same rules. */
	CHECK_EMIT("{\"on\": 1, \"app\": 2, \"123\": 3, \"\": 4, \"a: b\": 5}",
	           "\"\": 4\n\"123\": 3\n\"a: b\": 5\napp: 2\n\"on\": 1\n");
}

TEST(yaml_emit_multiline_strings_as_literal_blocks)
{
	CHECK_EMIT("{\"a\": \"line1\\n  line2\\n\"}", "a: |\n  line1\n    line2\n");
	CHECK_EMIT("{\"a\": \"x\\ny\"}", "a: |-\n  x\n  y\n");
	CHECK_EMIT("{\"a\": \"x\\n\\ny\\n\\n\\n\", \"b\": 1}", "a: |+\n  x\n\n  y\n\n\nb: 1\n");
	CHECK_EMIT("[\"x\\ny\", {\"k\": \"p\\nq\\n\"}]", "- |-\n  x\n  y\n- k: |\n    p\n    q\n");
	CHECK_EMIT("\"top\\nlevel\\n\"", "|\n  top\n  level\n");
	/* What a literal block cannot hold exactly is double-quoted. */
	CHECK_EMIT(
	    "[\" lead\\nx\", \"\\nx\", \"a\\r\\nb\", \"x\\n  \\ny\", \"\\tx\\ny\", \"x\\n\"]",
	    "- \" lead\\nx\"\n- \"\\nx\"\n- \"a\\r\\nb\"\n- \"x\\n  \\ny\"\n- \"\\tx\\ny\"\n"
	    "- |\n  x\n");
	/* A tab inside a block line is fine. */
	CHECK_EMIT("[\"a\\tb\\nc\"]", "- |-\n  a\tb\n  c\n");
}

TEST(yaml_emit_escapes_what_yaml_cannot_hold_raw)
{
	CHECK_EMIT("[\"a\\u0000b\", \"\\u0001\\u001b\\u007f\", \"\\u0085\", \"\\u0090\", "
	           "\"x\\u2028y\\u2029\","
	           " \"\\ufeff\", \"\\uffff\", \"back\\\\slash\"]",
	           "- \"a\\0b\"\n- \"\\x01\\e\\x7F\"\n- \"\\N\"\n- \"\\x90\"\n- \"x\\Ly\\P\"\n"
	           "- \"\\uFEFF\"\n- \"\\uFFFF\"\n- back\\slash\n");
	CHECK_EMIT("[\"q\\\"\\\\\\n\\u0007\"]", "- \"q\\\"\\\\\\n\\a\"\n");
	/* bidirectional controls by number, so that spec.yaml reads in the order it
	 * holds; Hebrew and Arabic letters stay as they are */
	CHECK_EMIT("[\"python train.py \\u202e--lr\\u202c\", \"\\u061c\\u200e\\u2069\", \"\\u05d0\"]",
	           "- \"python train.py \\u202E--lr\\u202C\"\n- \"\\u061C\\u200E\\u2069\"\n"
	           "- \xd7\x90\n");
}

TEST(yaml_emit_numbers)
{
	CHECK_EMIT(
	    "[0, -12, 9007199254740993, 0.1, 1.0, 1e20, -0.0, 1.5e-07, 2.5, 0.30000000000000004]",
	    "- 0\n- -12\n- 9007199254740993\n- 0.1\n- 1.0\n- 1.0e+20\n- -0.0\n- 1.5e-07\n"
	    "- 2.5\n- 0.30000000000000004\n");
}

TEST(yaml_emit_long_keys_are_explicit)
{
	char key[1200], json[1400], *y;

	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	snprintf(json, sizeof(json), "{\"%s\": [1]}", key);
	y = emit_json(json);
	CHECK(strncmp(y, "? kkk", 5) == 0);
	CHECK_STR_CONTAINS(y, "k\n:\n- 1\n");
	free(y);
}

/* ---- round trips ---- */

/* A deterministic generator of hostile strings. */
static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state >> 11);
}

static json_t *random_string(void)
{
	static const char *const PIECES[] = {
	    "a",
	    "Z",
	    "0",
	    "1",
	    "9",
	    ".",
	    "-",
	    "+",
	    "_",
	    ":",
	    "#",
	    " ",
	    "  ",
	    "\n",
	    "\t",
	    "'",
	    "\"",
	    "\\",
	    "/",
	    "~",
	    "?",
	    "!",
	    "&",
	    "*",
	    "[",
	    "]",
	    "{",
	    "}",
	    ",",
	    "|",
	    ">",
	    "%",
	    "@",
	    "`",
	    "=",
	    "<<",
	    "e",
	    "x",
	    "true",
	    "on",
	    "null",
	    "---",
	    "...",
	    "ü",
	    "\xe2\x80\xa8",
	    "\xe2\x80\xae",
	    "\xd8\x9c",
	    "\xc2\x85",
	    "\x01",
	    "\x7f",
	    "\r",
	    "inf",
	    "0x",
	    "2001-12-14",
	    "\xef\xbb\xbf",
	    "yes",
	};
	char buf[128] = "";
	size_t n = rng() % 7;

	for (size_t i = 0; i < n; i++)
		strncat(buf, PIECES[rng() % (sizeof(PIECES) / sizeof(PIECES[0]))],
		        sizeof(buf) - strlen(buf) - 1);
	return json_string(buf);
}

/* A document of many hostile keys and values, and a few of every other type. */
static json_t *hostile_document(void)
{
	json_t *doc = json_object(), *list = json_array(), *nested = json_object();

	for (int i = 0; i < 1500; i++) {
		json_t *k = random_string();

		json_object_set_new(doc, json_string_value(k), random_string());
		json_decref(k);
		json_array_append_new(list, random_string());
	}
	json_object_set_new(nested, "deep", json_pack("[[[{s:[]}]], {s:{}}, [], {}]", "x", "y"));
	json_object_set_new(
	    nested, "numbers",
	    json_pack("[i, I, f, f, f, b, n]", -3, (json_int_t)1 << 60, 0.1, 1e20, -2.5e-8, 1));
	json_object_set_new(nested, "nul", json_stringn("a\0b", 3));
	json_object_set_new(nested, "script",
	                    json_string("#!/bin/sh\nset -e\n\necho \"hi: there\"\n"));
	json_object_set_new(doc, "~list", list);
	json_object_set_new(doc, "~nested", nested);
	return doc;
}

/* Numbers equal as values (yaml_parse turns an integral float into an integer, as
 * Kubernetes' decoder does). */
static bool loose_equal(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *va;
	size_t i;

	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b) ||
		       (json_is_integer(a) && json_is_integer(b) &&
		        json_integer_value(a) == json_integer_value(b));
	if (json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, key,
		                    va) if (!json_object_get(b, key) ||
		                            !loose_equal(va, json_object_get(b, key))) return false;
		return true;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		json_array_foreach(a, i,
		                   va) if (!loose_equal(va, json_array_get(b, i))) return false;
		return true;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

/* Reads YAML text with /usr/bin/python3's yaml.safe_load; the JSON it gives, or NULL. */
static json_t *python_load(const char *yaml_text)
{
	char path[] = "/tmp/arenafs-yaml-XXXXXX", cmd[256];
	struct strbuf out = STRBUF_INIT;
	json_t *v = NULL;
	json_error_t jerr;
	char buf[4096];
	size_t n;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, yaml_text, strlen(yaml_text)) != (ssize_t)strlen(yaml_text)) {
		harness_fail(__FILE__, __LINE__, "cannot write %s", path);
		goto out;
	}
	snprintf(cmd, sizeof(cmd),
	         "/usr/bin/python3 -c 'import sys, json, yaml; "
	         "sys.stdout.write(json.dumps(yaml.safe_load(open(sys.argv[1], "
	         "encoding=\"utf-8\"))))' %s",
	         path);
	f = popen(cmd, "r");
	if (!f) {
		harness_fail(__FILE__, __LINE__, "cannot run /usr/bin/python3");
		goto out;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_append(&out, buf, n);
	if (pclose(f) != 0)
		harness_fail(__FILE__, __LINE__, "python3 yaml.safe_load failed on:\n%s",
		             yaml_text);
	else if (!(v = json_loads(strbuf_str(&out), JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr)))
		harness_fail(__FILE__, __LINE__, "python3 gave no JSON: %s", jerr.text);
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	strbuf_free(&out);
	return v;
}

TEST(yaml_emit_round_trips_through_pyyaml_safe_load)
{
	json_t *doc = hostile_document(), *back;
	struct strbuf sb = STRBUF_INIT;

	render_yaml_emit(&sb, doc);
	/* the pieces' RLO and ALM went out escaped, and came back whole */
	CHECK(!strstr(strbuf_str(&sb), "\xe2\x80\xae") && !strstr(strbuf_str(&sb), "\xd8\x9c"));
	back = python_load(strbuf_str(&sb));
	if (back && !json_equal(doc, back)) {
		char *a = json_dumps(doc, JSON_SORT_KEYS), *b = json_dumps(back, JSON_SORT_KEYS);

		harness_fail(__FILE__, __LINE__,
		             "round trip differs:\n  sent: %.2000s\n  back: %.2000s", a, b);
		free(a);
		free(b);
	}
	json_decref(back);
	json_decref(doc);
	strbuf_free(&sb);
}

TEST(yaml_emit_round_trips_through_yaml_parse)
{
	json_t *doc = hostile_document();
	struct strbuf sb = STRBUF_INIT;
	struct yaml_doc *d = NULL;
	struct k8s_error err;

	render_yaml_emit(&sb, doc);
	k8s_error_clear(&err);
	if (yaml_parse(sb.buf, sb.len, &d, &err) != 0)
		harness_fail(__FILE__, __LINE__, "yaml_parse: %s", err.message);
	else if (!loose_equal(doc, yaml_doc_root(d)))
		harness_fail(__FILE__, __LINE__, "yaml_parse read something else back");
	yaml_doc_free(d);
	json_decref(doc);
	strbuf_free(&sb);
}

TEST(yaml_emit_object_leaves_out_managed_fields_as_kubectl_does)
{
	json_t *obj = json_pack("{s:s,s:{s:s,s:[{s:s}]}}", "kind", "TFJob", "metadata", "name",
	                        "mnist", "managedFields", "manager", "kubectl");
	struct strbuf sb = STRBUF_INIT;

	CHECK(obj != NULL);
	render_yaml_emit_object(&sb, obj);
	CHECK_STR_EQ(strbuf_str(&sb), "---\nkind: TFJob\nmetadata:\n  name: mnist\n");
	/* the object itself is left as it was */
	CHECK(json_object_get(json_object_get(obj, "metadata"), "managedFields") != NULL);
	json_decref(obj);
	strbuf_free(&sb);
}
