/*
 * Runs every registered unit test (see harness.h) and prints "N passed, N failed"
 * as the last line; exits 1 when any failed. `unit_tests SUBSTRING` runs only the
 * tests whose name contains SUBSTRING.
 */
#include "tests/unit/harness.h"

#include <stdarg.h>
#include <stdlib.h>

static struct unit_test *tests;
static int current_failed;

void harness_register(struct unit_test *t)
{
	t->next = tests;
	tests = t;
}

void harness_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	current_failed = 1;
}

const char *harness_fixture(const char *name)
{
	static char path[4096];
	const char *root = getenv("ARENAFS_SRC");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", root ? root : ".", name);
	return path;
}

/* Registration runs in link order, reversed; put the list back in source order. */
static void reverse_tests(void)
{
	struct unit_test *prev = NULL, *t = tests, *next;

	while (t) {
		next = t->next;
		t->next = prev;
		prev = t;
		t = next;
	}
	tests = prev;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;

	reverse_tests();
	for (struct unit_test *t = tests; t; t = t->next) {
		if (filter && !strstr(t->name, filter))
			continue;
		current_failed = 0;
		t->fn();
		if (current_failed) {
			fprintf(stderr, "FAIL %s\n", t->name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
