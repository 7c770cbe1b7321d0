/* Tests k8s/names.c: the name rules a job, service or label must pass. */
#include "k8s/names.h"
#include "tests/unit/harness.h"

TEST(dns1123_label_accepts_and_rejects)
{
	CHECK(k8s_is_dns1123_label("mnist"));
	CHECK(k8s_is_dns1123_label("0abc"));
	CHECK(k8s_is_dns1123_label("a-b-c"));
	CHECK(!k8s_is_dns1123_label(""));
	CHECK(!k8s_is_dns1123_label("Mnist"));
	CHECK(!k8s_is_dns1123_label("-a"));
	CHECK(!k8s_is_dns1123_label("a-"));
	CHECK(!k8s_is_dns1123_label("a.b"));
	CHECK(!k8s_is_dns1123_label("a_b"));
	CHECK(!k8s_is_dns1123_label("../etc"));
	CHECK(k8s_is_dns1123_label("a23456789012345678901234567890123456789012345678901234567890123"));
	CHECK(!k8s_is_dns1123_label("a234567890123456789012345678901234567890123456789012345678901234"));
}

TEST(dns1035_label_needs_a_letter_first)
{
	CHECK(k8s_is_dns1035_label("mnist-1"));
	CHECK(!k8s_is_dns1035_label("1mnist"));
	CHECK(!k8s_is_dns1035_label("mnist.v2"));
}

TEST(dns1123_subdomain_allows_dots)
{
	CHECK(k8s_is_dns1123_subdomain("node-1.example.com"));
	CHECK(!k8s_is_dns1123_subdomain("node..1"));
	CHECK(!k8s_is_dns1123_subdomain(".node"));
	CHECK(!k8s_is_dns1123_subdomain("node/1"));
	CHECK(!k8s_is_dns1123_subdomain("node%2f1"));
}

TEST(label_values_and_keys)
{
	CHECK(k8s_is_label_value(""));
	CHECK(k8s_is_label_value("TFJob"));
	CHECK(k8s_is_label_value("a_b.c-d"));
	CHECK(!k8s_is_label_value("_a"));
	CHECK(!k8s_is_label_value("a b"));
	CHECK(k8s_is_qualified_name("app"));
	CHECK(k8s_is_qualified_name("arenafs.io/spec"));
	CHECK(k8s_is_qualified_name("training.kubeflow.org/job-name"));
	CHECK(!k8s_is_qualified_name("/spec"));
	CHECK(!k8s_is_qualified_name("Arenafs.io/spec"));
	CHECK(!k8s_is_qualified_name("a/b/c"));
}

TEST(env_var_names)
{
	CHECK(k8s_is_env_var_name("BATCH_SIZE"));
	CHECK(k8s_is_env_var_name("workers"));
	CHECK(k8s_is_env_var_name("_x.y-z"));
	CHECK(!k8s_is_env_var_name("1X"));
	CHECK(!k8s_is_env_var_name("A=B"));
	CHECK(!k8s_is_env_var_name(""));
}
