/*
 * Tests of fs/code/codeindex.c: the arenafs.io/code annotation into the tree of
 * jobs/NAME/code/ — files, the directories their paths imply, listings by name,
 * modes and sizes — and every line it must leave out (unsafe paths, lines that do
 * not parse, repeats, a file where a directory is).
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

#include "fs/code/codeindex.h"

/* The names of a directory of code/, "name" for files and "name/" for directories,
 * space-separated. */
static const char *listing(const struct code_index *ix, const char *dir, char *buf, size_t size)
{
	struct code_name *names;
	size_t n, used = 0;
	int ret = code_index_list(ix, dir, &names, &n);

	if (ret) {
		snprintf(buf, size, "error %d", ret);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s%s", i ? " " : "",
					 (int)names[i].len, names[i].name, names[i].file ? "" : "/");
	free(names);
	return buf;
}

TEST(fs_codeindex_the_contract_example)
{
	struct code_index ix;
	const struct code_file *f = NULL;
	char buf[256];

	CHECK_INT_EQ(code_index_parse("configmap mnist-code\n"
				      "0644 1234 train.py train.py\n"
				      "0755 88 f1 scripts/run.sh\n"
				      "0644 5 f2 data/small file.txt",
				      &ix), 0);
	CHECK_STR_EQ(ix.configmap, "mnist-code");
	CHECK_INT_EQ(ix.n, 3);
	CHECK_INT_EQ(ix.skipped, 0);
	CHECK_STR_EQ(ix.why, "");
	CHECK_STR_EQ(listing(&ix, "", buf, sizeof(buf)), "data/ scripts/ train.py");
	CHECK_STR_EQ(listing(&ix, "data", buf, sizeof(buf)), "small file.txt");
	CHECK_STR_EQ(listing(&ix, "scripts", buf, sizeof(buf)), "run.sh");
	CHECK_STR_EQ(listing(&ix, "train.py", buf, sizeof(buf)), "error -2");  /* a file */
	CHECK_STR_EQ(listing(&ix, "nonesuch", buf, sizeof(buf)), "error -2");

	CHECK_INT_EQ(code_index_find(&ix, "", NULL), CODE_DIR);
	CHECK_INT_EQ(code_index_find(&ix, "scripts", NULL), CODE_DIR);
	CHECK_INT_EQ(code_index_find(&ix, "scripts/run.sh", &f), CODE_FILE);
	if (f) {
		CHECK_STR_EQ(f->key, "f1");
		CHECK_INT_EQ(f->size, 88);
		CHECK_INT_EQ(f->mode, 0755);
		CHECK_INT_EQ(code_file_perm(f), 0555);
	}
	CHECK_INT_EQ(code_index_find(&ix, "data/small file.txt", &f), CODE_FILE);
	if (f) {
		CHECK_STR_EQ(f->key, "f2");
		CHECK_INT_EQ(f->size, 5);
		CHECK_INT_EQ(code_file_perm(f), 0444);
	}
	CHECK_INT_EQ(code_index_find(&ix, "data/small", NULL), CODE_NONE);
	CHECK_INT_EQ(code_index_find(&ix, "scripts/", NULL), CODE_NONE);
	CHECK_INT_EQ(code_index_find(&ix, "script", NULL), CODE_NONE);
	CHECK_INT_EQ(code_index_find(&ix, "train.py/x", NULL), CODE_NONE);
	code_index_free(&ix);
}

TEST(fs_codeindex_nested_directories_list_in_name_order)
{
	struct code_index ix;
	char buf[256];

	/* "a.txt" and "a-b" sort between "a" and "a/..." by path, but a listing is by
	 * name; a directory named by several files is listed once */
	CHECK_INT_EQ(code_index_parse("configmap c\n"
				      "0644 1 k1 a/b/c/deep.py\n"
				      "0644 1 k2 a.txt\n"
				      "0644 1 k3 a/b/x.py\n"
				      "0644 1 k4 a-b\n"
				      "0644 1 k5 a/b.py\n"
				      "0644 1 k6 a/b/c/other.py\n"
				      "0700 0 k7 z\n",
				      &ix), 0);
	CHECK_INT_EQ(ix.n, 7);
	CHECK_STR_EQ(listing(&ix, "", buf, sizeof(buf)), "a/ a-b a.txt z");
	CHECK_STR_EQ(listing(&ix, "a", buf, sizeof(buf)), "b/ b.py");
	CHECK_STR_EQ(listing(&ix, "a/b", buf, sizeof(buf)), "c/ x.py");
	CHECK_STR_EQ(listing(&ix, "a/b/c", buf, sizeof(buf)), "deep.py other.py");
	CHECK_INT_EQ(code_index_find(&ix, "a/b/c", NULL), CODE_DIR);
	CHECK_INT_EQ(code_index_find(&ix, "a-b", NULL), CODE_FILE);
	code_index_free(&ix);
}

TEST(fs_codeindex_an_empty_code_and_odd_first_lines)
{
	struct code_index ix;
	char buf[64];

	CHECK_INT_EQ(code_index_parse("configmap only", &ix), 0);
	CHECK_INT_EQ(ix.n, 0);
	CHECK_STR_EQ(listing(&ix, "", buf, sizeof(buf)), "");
	CHECK_INT_EQ(code_index_find(&ix, "", NULL), CODE_DIR);
	code_index_free(&ix);

	/* the first line must name a ConfigMap: else no code/ at all */
	CHECK_INT_EQ(code_index_parse("0644 1 k a.py\n", &ix), -EINVAL);
	CHECK_STR_CONTAINS(ix.why, "configmap NAME");
	code_index_free(&ix);
	CHECK_INT_EQ(code_index_parse("", &ix), -EINVAL);
	code_index_free(&ix);
	CHECK_INT_EQ(code_index_parse(NULL, &ix), -EINVAL);
	code_index_free(&ix);
	CHECK_INT_EQ(code_index_parse("configmap Bad_Name\n", &ix), -EINVAL);
	code_index_free(&ix);
	CHECK_INT_EQ(code_index_parse("configmap ../x\n", &ix), -EINVAL);
	code_index_free(&ix);
	CHECK_INT_EQ(code_index_parse("configmap \n", &ix), -EINVAL);
	code_index_free(&ix);
}

TEST(fs_codeindex_leaves_out_unsafe_paths)
{
	static const char *const bad[] = {
	    "../etc/passwd", "a/../../b", "..", ".", "./a", "a/./b", "/abs", "a//b", "a/",
	    "a/..",
	};
	char name[300], text[600];
	struct code_index ix;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "configmap c\n0644 1 k1 ok.py\n0644 1 k2 %s\n", bad[i]);
		CHECK_INT_EQ(code_index_parse(text, &ix), 0);
		CHECK_INT_EQ(ix.n, 1);
		CHECK_INT_EQ(ix.skipped, 1);
		CHECK_STR_CONTAINS(ix.why, "file line 2: path");
		CHECK_STR_EQ(ix.files[0].path, "ok.py");
		code_index_free(&ix);
	}
	/* a component of 255 bytes is a name, one of 256 is not */
	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(text, sizeof(text), "configmap c\n0644 1 k d/%s\n", name);
	CHECK_INT_EQ(code_index_parse(text, &ix), 0);
	CHECK_INT_EQ(ix.n, 1);
	code_index_free(&ix);
	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(text, sizeof(text), "configmap c\n0644 1 k d/%s\n", name);
	CHECK_INT_EQ(code_index_parse(text, &ix), 0);
	CHECK_INT_EQ(ix.n, 0);
	CHECK_STR_CONTAINS(ix.why, "longer than 255 bytes");
	code_index_free(&ix);
}

TEST(fs_codeindex_leaves_out_lines_that_do_not_parse)
{
	struct code_index ix;

	CHECK_INT_EQ(code_index_parse("configmap c\n"
				      "0644 1 k1 good.py\n"
				      "0644 1 k2\n"               /* no path */
				      "0648 1 k3 eight.py\n"      /* not octal */
				      "0644 -1 k4 minus.py\n"     /* not a size */
				      "0644 1e3 k5 exp.py\n"
				      "0644 1 k/6 slash-key.py\n" /* not a ConfigMap key */
				      "0644 1  empty-key.py\n"
				      "17777 1 k7 big-mode.py\n"
				      "0644 99999999999999999999 k8 huge.py\n"
				      "\n"                        /* blank lines are nothing */
				      "0755 2 k9 also good.sh\n"
				      "\x1b[31m 1 k10 escape.py\n",
				      &ix), 0);
	CHECK_INT_EQ(ix.n, 2);
	CHECK_INT_EQ(ix.skipped, 9);
	CHECK_STR_EQ(ix.files[0].path, "also good.sh");
	CHECK_STR_EQ(ix.files[1].path, "good.py");
	CHECK_STR_EQ(ix.why, "file line 2: not \"MODE SIZE KEY PATH\"");
	code_index_free(&ix);

	/* the reason goes to the log: no control characters in it */
	CHECK_INT_EQ(code_index_parse("configmap c\n\x1b[31m 1 k escape.py\n", &ix), 0);
	CHECK_INT_EQ(ix.skipped, 1);
	CHECK(strchr(ix.why, '\x1b') == NULL);
	CHECK_STR_CONTAINS(ix.why, "?[31m");
	code_index_free(&ix);
}

TEST(fs_codeindex_repeats_and_a_file_where_a_directory_is)
{
	struct code_index ix;
	const struct code_file *f = NULL;
	char buf[128];

	CHECK_INT_EQ(code_index_parse("configmap c\n"
				      "0644 1 first x.py\n"
				      "0644 2 second x.py\n"      /* the first line counts */
				      "0644 3 file lib\n"         /* lib/ is a directory */
				      "0644 4 inner lib/m.py\n"
				      "0644 5 deeper lib/m.py/n\n",  /* so lib/m.py is one too */
				      &ix), 0);
	CHECK_INT_EQ(ix.skipped, 3);
	CHECK_STR_EQ(listing(&ix, "", buf, sizeof(buf)), "lib/ x.py");
	CHECK_STR_EQ(listing(&ix, "lib", buf, sizeof(buf)), "m.py/");
	CHECK_STR_EQ(listing(&ix, "lib/m.py", buf, sizeof(buf)), "n");
	CHECK_INT_EQ(code_index_find(&ix, "x.py", &f), CODE_FILE);
	if (f)
		CHECK_STR_EQ(f->key, "first");
	CHECK_INT_EQ(code_index_find(&ix, "lib", NULL), CODE_DIR);
	code_index_free(&ix);
}
