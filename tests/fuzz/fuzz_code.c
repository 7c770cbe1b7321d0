/*
 * libFuzzer target: the arenafs.io/code annotation (fs/code/codeindex.c), which comes
 * from the cluster. Every file it keeps must be findable, every directory
 * listable, and nothing it shows may be a name no file can have.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/code/codeindex.h"

/* Lists dir and checks each name against the rules, then each subdirectory. */
static void walk(const struct code_index *ix, const char *dir, int depth)
{
	struct code_name *names;
	size_t n;

	if (depth > 64 || code_index_list(ix, dir, &names, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char path[CODE_PATH_MAX + CODE_NAME_MAX + 2];
		const struct code_file *f = NULL;
		enum code_kind k;

		if (names[i].len == 0 || names[i].len > CODE_NAME_MAX ||
		    memchr(names[i].name, '/', names[i].len) ||
		    (names[i].len <= 2 && memcmp(names[i].name, "..", names[i].len) == 0))
			abort();
		if (i > 0 && names[i - 1].len == names[i].len &&
		    memcmp(names[i - 1].name, names[i].name, names[i].len) == 0)
			abort();    /* listed twice */
		snprintf(path, sizeof(path), "%s%s%.*s", dir, *dir ? "/" : "", (int)names[i].len,
			 names[i].name);
		k = code_index_find(ix, path, &f);
		if (k != (names[i].file ? CODE_FILE : CODE_DIR) || (names[i].file && f != names[i].file))
			abort();
		if (!names[i].file)
			walk(ix, path, depth + 1);
	}
	free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct code_index ix;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (code_index_parse(text, &ix) == 0) {
		for (size_t i = 0; i < ix.n; i++)
			if (code_index_find(&ix, ix.files[i].path, NULL) != CODE_FILE)
				abort();
		walk(&ix, "", 0);
	}
	code_index_free(&ix);
	free(text);
	return 0;
}
