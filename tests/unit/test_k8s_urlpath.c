/* Tests k8s/http/urlpath.c: names and selectors can never change the path of a request. */
#include "k8s/http/urlpath.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

/* Decodes %XX in s[0..len) into a malloc'd string. */
static char *percent_decode(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len + 1) {
			char hex[3] = {s[i + 1], s[i + 2], 0};

			*o++ = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

TEST(urlpath_escape_keeps_only_unreserved)
{
	struct strbuf sb = STRBUF_INIT;

	urlpath_escape(&sb, "a-Z_0.~ /?#%+&=\xc3\xa9");
	CHECK_STR_EQ(strbuf_str(&sb), "a-Z_0.~%20%2F%3F%23%25%2B%26%3D%C3%A9");
	strbuf_free(&sb);
}

TEST(urlpath_query_values_are_escaped_and_joined)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_puts(&sb, "/api/v1/pods");
	urlpath_add_query(&sb, "labelSelector", "app in (a,b),!x");
	urlpath_add_query(&sb, "fieldSelector", "spec.nodeName=");
	urlpath_add_query(&sb, "continue", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTJ9+/=");
	urlpath_add_query(&sb, "sinceTime", "2026-12-02T10:14:29.5+01:00");
	CHECK_STR_EQ(strbuf_str(&sb), "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29%2C%21x"
	                              "&fieldSelector=spec.nodeName%3D"
	                              "&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTJ9%2B%2F%3D"
	                              "&sinceTime=2026-12-02T10%3A14%3A29.5%2B01%3A00");
	strbuf_free(&sb);
}

TEST(urlpath_resource_builds_paths)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT_EQ(urlpath_resource(&sb, "/apis/kubeflow.org/v1", "team-a", "tfjobs", "mnist",
	                              "status", NULL),
	             0);
	CHECK_STR_EQ(strbuf_str(&sb),
	             "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/mnist/status");
	strbuf_reset(&sb);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", NULL, "nodes", NULL, NULL, NULL), 0);
	CHECK_STR_EQ(strbuf_str(&sb), "/api/v1/nodes");
	strbuf_free(&sb);
}

/* Every hostile name is refused or ends up as exactly one segment that decodes to itself. */
TEST(urlpath_hostile_names_never_change_the_path)
{
	static const char *const hostile[] = {
	    "../secrets",
	    "..",
	    ".",
	    "a/../../b",
	    "%2f",
	    "%2e%2e",
	    "a%2Fb",
	    "a b",
	    "a?watch=true",
	    "a#frag",
	    "a;b",
	    "a\\b",
	    "\xc3\xa9t\xc3\xa9",
	    "\xe2\x80\xae"
	    "gnp.exe",
	    "\xff\xfe",
	    "a\r\nHost: evil",
	    "a&b=c",
	    "",
	    "*",
	    "~user",
	    "a+b",
	};
	const char *prefix = "/api/v1/namespaces/default/pods/";

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct k8s_error err;
		int rc =
		    urlpath_resource(&sb, "/api/v1", "default", "pods", hostile[i], "log", &err);

		if (rc) {
			CHECK_INT_EQ(rc, -EINVAL);
			CHECK_STR_CONTAINS(err.message, "invalid name");
		} else {
			const char *path = strbuf_str(&sb);
			size_t plen = strlen(prefix), total = strlen(path);
			const char *seg = path + plen;
			const char *end = strrchr(path, '/');
			char *decoded;

			CHECK(strncmp(path, prefix, plen) == 0);
			CHECK(total > plen + 4 && strcmp(path + total - 4, "/log") == 0);
			CHECK(end == path + total - 4); /* no extra '/' inside the name */
			CHECK(!strpbrk(path, "?# \r\n\\"));
			CHECK(strcmp(seg, "./log") != 0 && strcmp(seg, "../log") != 0);
			decoded = percent_decode(seg, (size_t)(end - seg));
			CHECK_STR_EQ(decoded, hostile[i]);
			free(decoded);
		}
		strbuf_free(&sb);
	}
}

TEST(urlpath_refuses_bad_namespace_and_dot_names)
{
	struct strbuf sb = STRBUF_INIT;
	struct k8s_error err;

	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "../kube-system", "pods", NULL, NULL, &err),
	             -EINVAL);
	CHECK_STR_CONTAINS(err.message, "invalid namespace \"../kube-system\"");
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "Default", "pods", "x", NULL, &err), -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "default", "pods", "..", NULL, &err),
	             -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "default", "pods", "a/b", NULL, &err),
	             -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "default", "pods", "a%2fb", NULL, &err),
	             -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1/../x", "default", "pods", "a", NULL, &err),
	             -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "default", "pods/x", "a", NULL, &err),
	             -EINVAL);
	CHECK_INT_EQ(urlpath_resource(&sb, "/api/v1", "default", "pods", "a", "../x", &err),
	             -EINVAL);
	CHECK(!urlpath_name_ok(NULL));
	CHECK(urlpath_name_ok("mnist-worker-0"));
	strbuf_free(&sb);
}
