/* Tests k8s/http/status.c: Status bodies and other error bodies become one readable error. */
#include "k8s/http/status.h"
#include "tests/unit/harness.h"

#include <errno.h>

static int decode(int code, const char *body, struct k8s_error *err)
{
	return k8s_status_decode(code, body, body ? strlen(body) : 0, err);
}

TEST(status_forbidden_keeps_the_servers_message)
{
	struct k8s_error err;
	const char *body =
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"pods is forbidden: User \\\"viewer\\\" cannot "
	    "create resource \\\"pods\\\" in API group \\\"\\\" in the namespace "
	    "\\\"default\\\"\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},"
	    "\"code\":403}";

	CHECK_INT_EQ(decode(403, body, &err), -EACCES);
	CHECK_INT_EQ(err.code, 403);
	CHECK_INT_EQ(err.err, EACCES);
	CHECK_STR_EQ(err.reason, "Forbidden");
	CHECK_STR_EQ(err.message, "pods is forbidden: User \"viewer\" cannot create resource "
	                          "\"pods\" in API group \"\" in the namespace \"default\"");
}

TEST(status_errno_per_reason)
{
	struct k8s_error err;

	CHECK_INT_EQ(decode(404,
	                    "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\","
	                    "\"message\":\"tfjobs.kubeflow.org \\\"x\\\" not found\"}",
	                    &err),
	             -ENOENT);
	CHECK_STR_EQ(err.message, "tfjobs.kubeflow.org \"x\" not found");
	CHECK_INT_EQ(decode(409,
	                    "{\"kind\":\"Status\",\"code\":409,\"reason\":\"AlreadyExists\","
	                    "\"message\":\"m\"}",
	                    &err),
	             -EEXIST);
	CHECK_INT_EQ(decode(409,
	                    "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\","
	                    "\"message\":\"m\"}",
	                    &err),
	             -EBUSY);
	CHECK_INT_EQ(decode(410, "{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\"}", &err),
	             -ESTALE);
	/* the resource does not take this verb: not a question of rights (EACCES) */
	CHECK_INT_EQ(decode(405,
	                    "{\"kind\":\"Status\",\"code\":405,\"reason\":\"MethodNotAllowed\","
	                    "\"message\":\"the server does not allow this method on the requested "
	                    "resource\"}",
	                    &err),
	             -EPERM);
	CHECK_INT_EQ(decode(504, "{\"kind\":\"Status\",\"code\":504,\"reason\":\"Timeout\"}", &err),
	             -ETIMEDOUT);
	CHECK_INT_EQ(decode(500, "{\"kind\":\"Status\",\"code\":500,\"reason\":\"Timeout\"}", &err),
	             -ETIMEDOUT);
	CHECK_INT_EQ(decode(429, "{\"kind\":\"Status\",\"code\":429}", &err), -EIO);
	CHECK_STR_EQ(err.reason, "TooManyRequests");
	CHECK_INT_EQ(decode(401,
	                    "{\"kind\":\"Status\",\"code\":401,\"reason\":\"Unauthorized\","
	                    "\"message\":\"Unauthorized\"}",
	                    &err),
	             -EACCES);
}

TEST(status_invalid_appends_missing_causes)
{
	struct k8s_error err;
	const char *body =
	    "{\"kind\":\"Status\",\"code\":422,\"reason\":\"Invalid\",\"message\":\"TFJob."
	    "kubeflow.org \\\"Bad_Name\\\" is invalid: metadata.name: Invalid value: "
	    "\\\"Bad_Name\\\"\",\"details\":{\"causes\":[{\"reason\":\"FieldValueInvalid\","
	    "\"message\":\"Invalid value: \\\"Bad_Name\\\"\",\"field\":\"metadata.name\"},"
	    "{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":"
	    "\"spec.tfReplicaSpecs\"}]}}";

	CHECK_INT_EQ(decode(422, body, &err), -EINVAL);
	CHECK_STR_EQ(err.message,
	             "TFJob.kubeflow.org \"Bad_Name\" is invalid: metadata.name: "
	             "Invalid value: \"Bad_Name\"; spec.tfReplicaSpecs: Required value");
}

TEST(status_non_status_bodies_read_like_client_go)
{
	struct k8s_error err;

	CHECK_INT_EQ(decode(503, "<html>\n<body>upstream down</body>", &err), -EIO);
	CHECK_STR_EQ(err.message, "the server is currently unable to handle the request "
	                          "(HTTP 503: <html>)");
	CHECK_STR_EQ(err.reason, "ServiceUnavailable");
	CHECK_INT_EQ(decode(404, "", &err), -ENOENT);
	CHECK_STR_EQ(err.message, "the server could not find the requested resource (HTTP 404)");
	CHECK_INT_EQ(decode(418, "\x01\xff tea", &err), -EIO);
	CHECK_STR_EQ(err.message, "the server returned an unexpected answer (HTTP 418: ?? tea)");
	CHECK_INT_EQ(decode(400, "{\"kind\":\"Pod\"}", &err), -EINVAL);
	CHECK_INT_EQ(err.code, 400);
}

TEST(status_from_watch_error_event)
{
	struct k8s_error err;
	json_t *st =
	    json_pack("{s:s, s:s, s:s, s:s, s:i}", "kind", "Status", "status", "Failure", "message",
	              "too old resource version: 123 (456)", "reason", "Expired", "code", 410);

	CHECK_INT_EQ(k8s_status_from_json(st, 200, &err), -ESTALE);
	CHECK_INT_EQ(err.code, 410);
	CHECK_STR_EQ(err.message, "too old resource version: 123 (456)");
	json_decref(st);
}
