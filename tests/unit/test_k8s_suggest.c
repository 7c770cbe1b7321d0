/* Tests k8s/base/suggest.c: the word a typo meant, among the spec's keys and the
 * mount options, and no guess where none is close. */
#include "k8s/base/suggest.h"
#include "tests/unit/harness.h"

#include <stddef.h>

TEST(suggest_finds_the_word_a_typo_meant)
{
	static const char *const OPTIONS[] = {"request_timeout", "startup_timeout", "keep_logs",
	                                      "context", "readonly", NULL};

	CHECK_STR_EQ(k8s_suggest("request_timout", OPTIONS), "request_timeout");
	CHECK_STR_EQ(k8s_suggest("contxt", OPTIONS), "context");
	/* case, '_' and '-' do not count */
	CHECK_STR_EQ(k8s_suggest("Keep-Logs", OPTIONS), "keep_logs");
	CHECK_STR_EQ(k8s_suggest("readonly", OPTIONS), "readonly");
	/* too far from every word, or a short word two edits away: no guess */
	CHECK(k8s_suggest("bogus_option", OPTIONS) == NULL);
	CHECK(k8s_suggest("ro", OPTIONS) == NULL);
	CHECK(k8s_suggest("", OPTIONS) == NULL);
}
