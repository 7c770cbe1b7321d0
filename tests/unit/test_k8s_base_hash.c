/*
 * Tests k8s/base/hash.h's hash_text, a rendered text's identity (fs/tree/content.c):
 * a text with any one byte changed, anywhere (in the four lanes' words or the bytes
 * after them), or one byte longer, hashes differently; the same text the same.
 */
#include "k8s/base/hash.h"
#include "tests/unit/harness.h"

TEST(hash_text_tells_a_text_from_one_with_any_byte_changed)
{
	char text[1003];
	uint64_t h;
	int same = 0;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 26);
	h = hash_text(text, sizeof(text));
	CHECK(hash_text(text, sizeof(text)) == h);
	CHECK(hash_text(text, sizeof(text) - 1) != h);
	for (size_t i = 0; i < sizeof(text); i++) {
		for (int bit = 0; bit < 8; bit++) {
			text[i] ^= (char)(1 << bit);
			same += hash_text(text, sizeof(text)) == h;
			text[i] ^= (char)(1 << bit);
		}
	}
	CHECK_INT_EQ(same, 0);
}
