/* Tests k8s/base/base64.c: kubeconfig's -data fields and basic auth. */
#include "k8s/base/base64.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

TEST(base64_round_trips_and_ignores_whitespace)
{
	static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
	                                    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t len = 99;
		char *enc = k8s_base64_encode(plain[i], strlen(plain[i]));
		char *dec = k8s_base64_decode(coded[i], &len);

		CHECK_STR_EQ(enc, coded[i]);
		CHECK_STR_EQ(dec, plain[i]);
		CHECK_INT_EQ(len, strlen(plain[i]));
		free(enc);
		free(dec);
	}
	{
		size_t len;
		char *dec = k8s_base64_decode("Zm9v\nYmFy\r\n", &len);

		CHECK_STR_EQ(dec, "foobar");
		free(dec);
		dec = k8s_base64_decode("Zm9vYg", &len); /* unpadded */
		CHECK_STR_EQ(dec, "foob");
		free(dec);
	}
}

TEST(base64_rejects_what_is_not_base64)
{
	size_t len;

	CHECK(k8s_base64_decode("Zm9v!", &len) == NULL);
	CHECK_INT_EQ(errno, EINVAL);
	CHECK(k8s_base64_decode("Zg==Zg==", &len) == NULL); /* data after padding */
	CHECK(k8s_base64_decode("Z", &len) == NULL);        /* a lone sextet */
	CHECK(k8s_base64_decode("Zh==", &len) == NULL);     /* non-zero padding bits */
}
