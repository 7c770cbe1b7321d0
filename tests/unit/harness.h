/*
 * A small unit-test harness for the rooms (util/, k8s/, render/, spec/, fs/).
 *
 * Each test file defines tests with TEST(name) { ... }; they register themselves
 * (constructor attribute), and tests/unit/main.c runs them all, optionally only
 * those whose name contains argv[1]. A failed CHECK prints the file, line and the
 * values it saw, and marks the test failed; the test goes on so one run shows
 * every broken expectation. The last line of output is "N passed, N failed".
 */
#ifndef ARENAFS_TEST_HARNESS_H
#define ARENAFS_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void harness_register(struct unit_test *t);
/* Marks the running test failed; printf-style detail. */
void harness_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A path under tests/fixtures/, resolved from the source tree. Static buffer. */
const char *harness_fixture(const char *name);

#define TEST(name)                                                                                 \
	static void test_##name(void);                                                             \
	static struct unit_test unit_test_##name = {#name, test_##name, NULL};                     \
	__attribute__((constructor)) static void register_##name(void)                             \
	{                                                                                          \
		harness_register(&unit_test_##name);                                               \
	}                                                                                          \
	static void test_##name(void)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                      \
	} while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_)                                                                      \
			harness_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_); \
	} while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                             \
			harness_fail(__FILE__, __LINE__, "%s == %s:\n  got:      \"%s\"\n  expected: \"%s\"", \
				     #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");              \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                            \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !n_ || !strstr(h_, n_))                                                 \
			harness_fail(__FILE__, __LINE__, "%s contains %s:\n  text:   \"%s\"\n  wanted: \"%s\"", \
				     #hay, #needle, h_ ? h_ : "(null)", n_ ? n_ : "(null)");       \
	} while (0)

#endif
