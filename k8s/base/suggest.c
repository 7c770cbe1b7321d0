/*
 * The closest word of a list (see suggest.h): an edit distance over the words
 * lowercased without '_' and '-'. Pure; no locks. Callers: render/jobspec/ (keys,
 * choices, toleration fields), mount/options.c (mount options), k8s/auth/kubeconfig.c
 * (contexts). Tested by tests/unit/test_k8s_suggest.c.
 */
#include "k8s/base/suggest.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

/* Lowercase, without '_' and '-': "workingDir", "working-dir", "working_dir" agree. */
static void normalize_word(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++)
		if (*s != '_' && *s != '-')
			buf[n++] = (char)tolower((unsigned char)*s);
	buf[n] = '\0';
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *k8s_suggest(const char *s, const char *const *words)
{
	char ns[64], nw[64];
	const char *best = NULL;
	size_t best_d = 3;

	normalize_word(s, ns, sizeof(ns));
	for (const char *const *w = words; *w; w++) {
		size_t d;

		normalize_word(*w, nw, sizeof(nw));
		if (strcmp(ns, nw) == 0)
			return *w;
		d = edit_distance(ns, nw);
		/* two edits in a short word is another word, not a typo */
		if (d < best_d && d * 3 <= strlen(nw)) {
			best_d = d;
			best = *w;
		}
	}
	return best;
}
