/*
 * Tests of k8s/api/configmap.c: a ConfigMap's data (text, NUL bytes included) and
 * binaryData (base64) into byte strings, with its uid and owners; what is not a
 * ConfigMap is refused.
 */
#include "tests/unit/harness.h"

#include <errno.h>

#include "k8s/api/configmap.h"

static struct k8s_configmap *decode(const char *text, int *ret)
{
	json_t *j = json_loads(text, JSON_ALLOW_NUL, NULL);
	struct k8s_configmap *cm = NULL;
	struct k8s_error err;

	*ret = j ? k8s_configmap_decode(j, &cm, &err) : -999;
	json_decref(j);
	return cm;
}

TEST(configmap_data_and_binary_data_into_bytes)
{
	int ret;
	struct k8s_configmap *cm = decode(
	    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"immutable\":true,"
	    "\"metadata\":{\"name\":\"mnist-code\",\"uid\":\"cm-1\",\"ownerReferences\":["
	    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"name\":\"mnist\",\"uid\":\"job-1\"}]},"
	    "\"data\":{\"train.py\":\"print(1)\\n\",\"nul\":\"a\\u0000b\"},"
	    "\"binaryData\":{\"f1\":\"AAEC/w==\"}}",
	    &ret);
	const struct k8s_configmap_file *f;

	CHECK_INT_EQ(ret, 0);
	if (!cm)
		return;
	CHECK_STR_EQ(cm->uid, "cm-1");
	CHECK(cm->immutable);
	CHECK_INT_EQ(cm->n_owners, 1);
	CHECK_STR_EQ(cm->owner_uids[0], "job-1");
	CHECK_INT_EQ(cm->n_files, 3);
	CHECK_INT_EQ(cm->bytes, 9 + 3 + 4);
	f = k8s_configmap_find(cm, "train.py");
	CHECK(f && f->len == 9 && memcmp(f->data, "print(1)\n", 9) == 0);
	f = k8s_configmap_find(cm, "nul");
	CHECK(f && f->len == 3 && memcmp(f->data, "a\0b", 3) == 0);
	f = k8s_configmap_find(cm, "f1");
	CHECK(f && f->len == 4 && memcmp(f->data, "\x00\x01\x02\xff", 4) == 0);
	CHECK(k8s_configmap_find(cm, "nonesuch") == NULL);
	k8s_configmap_free(cm);
}

TEST(configmap_empty_and_refused)
{
	int ret;
	struct k8s_configmap *cm = decode("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"e\"}}",
					  &ret);

	CHECK_INT_EQ(ret, 0);
	if (cm) {
		CHECK_INT_EQ(cm->n_files, 0);
		CHECK_INT_EQ(cm->n_owners, 0);
		CHECK(!cm->immutable);
		k8s_configmap_free(cm);
	}
	CHECK(decode("{\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"}}", &ret) == NULL);
	CHECK_INT_EQ(ret, -EINVAL);
	CHECK(decode("{\"kind\":\"ConfigMap\",\"binaryData\":{\"k\":\"not base64!\"}}", &ret) ==
	      NULL);
	CHECK_INT_EQ(ret, -EINVAL);
	CHECK(decode("{\"kind\":\"ConfigMap\",\"data\":{\"k\":3}}", &ret) == NULL);
	CHECK_INT_EQ(ret, -EINVAL);
	CHECK(decode("{\"kind\":\"ConfigMap\",\"data\":[]}", &ret) == NULL);
	CHECK_INT_EQ(ret, -EINVAL);
}
