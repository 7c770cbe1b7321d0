/*
 * create / delete / get (see api.h). Paths come from urlpath_resource(), which
 * checks names and namespaces before they reach a URL. create sends
 * fieldValidation=Strict, as kubectl does by default, so that a typo in a
 * manifest is an error rather than a silently dropped field.
 */
#include "k8s/api/api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/objects/kinds.h"
#include "k8s/names.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"

/* The kinds arenafs creates beside the jobs (Arena's TensorBoard, data volumes, ...). */
static const struct {
	const char *api_version;
	const char *kind;
	struct k8s_resource res;
} RESOURCES[] = {
    {"v1", "Pod", {"/api/v1", "pods", true}},
    {"v1", "Service", {"/api/v1", "services", true}},
    {"v1", "ConfigMap", {"/api/v1", "configmaps", true}},
    {"v1", "Secret", {"/api/v1", "secrets", true}},
    {"v1", "PersistentVolumeClaim", {"/api/v1", "persistentvolumeclaims", true}},
    {"v1", "ServiceAccount", {"/api/v1", "serviceaccounts", true}},
    {"apps/v1", "Deployment", {"/apis/apps/v1", "deployments", true}},
    {"batch/v1", "Job", {"/apis/batch/v1", "jobs", true}},
};

/* "/apis/G/V" of the job kinds, built once from kinds.c's table. */
static char job_api_paths[JOB_KIND_COUNT][96];
static pthread_once_t job_api_paths_once = PTHREAD_ONCE_INIT;

static void job_api_paths_build(void)
{
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		snprintf(job_api_paths[k], sizeof(job_api_paths[k]), "/apis/%s/%s",
		         kinds_info(k)->group, kinds_info(k)->version);
}

int k8s_resource_for(const char *api_version, const char *kind, struct k8s_resource *out,
                     struct k8s_error *err)
{
	int k;

	if (!api_version || !kind)
		return k8s_error_set(err, EINVAL, "the object has no apiVersion or kind");
	for (size_t i = 0; i < sizeof(RESOURCES) / sizeof(RESOURCES[0]); i++) {
		if (strcmp(RESOURCES[i].api_version, api_version) == 0 &&
		    strcmp(RESOURCES[i].kind, kind) == 0) {
			*out = RESOURCES[i].res;
			return 0;
		}
	}
	k = kinds_by_api(api_version, kind);
	if (k < 0)
		return k8s_error_set(err, EINVAL, "arenafs does not create %s objects of %s", kind,
		                     api_version);
	k8s_job_resource(k, out);
	return 0;
}

void k8s_job_resource(enum job_kind kind, struct k8s_resource *out)
{
	pthread_once(&job_api_paths_once, job_api_paths_build);
	out->api_path = job_api_paths[kind];
	out->plural = kinds_info(kind)->plural;
	out->namespaced = true;
}

int k8s_create(struct k8s_client *c, const char *ns, json_t *obj, bool dry_run, json_t **created,
               struct k8s_error *err)
{
	const char *api = json_string_value(json_object_get(obj, "apiVersion"));
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	json_t *meta = json_object_get(obj, "metadata");
	const char *obj_ns = json_string_value(json_object_get(meta, "namespace"));
	struct strbuf path = STRBUF_INIT;
	struct k8s_resource res;
	struct k8s_response r = {0};
	char *body = NULL;
	int rc;

	if (created)
		*created = NULL;
	if ((rc = k8s_resource_for(api, kind, &res, err)))
		return rc;
	if (res.namespaced && obj_ns && *obj_ns && (!ns || strcmp(obj_ns, ns) != 0))
		/* kubectl's check, with its words */
		return k8s_error_set(err, EINVAL,
		                     "the namespace from the provided object \"%s\" does not match "
		                     "the namespace \"%s\"",
		                     obj_ns, ns ? ns : "");
	rc = urlpath_resource(&path, res.api_path, res.namespaced ? ns : NULL, res.plural, NULL,
	                      NULL, err);
	if (!rc && res.namespaced && (!ns || !*ns))
		rc = k8s_error_set(err, EINVAL, "creating a %s needs a namespace", kind);
	if (rc)
		goto out;
	urlpath_add_query(&path, "fieldValidation", "Strict");
	if (dry_run)
		urlpath_add_query(&path, "dryRun", "All");
	body = json_dumps(obj, JSON_COMPACT);
	if (!body || !strbuf_ok(&path)) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = k8s_request(c, "POST", strbuf_str(&path), NULL, body, &r, err);
	if (rc)
		goto out;
	if (created) {
		*created = json_loadb(r.body, r.len, 0, NULL);
		if (!*created)
			rc = k8s_error_set(err, EIO,
			                   "the API server answered the create of %s with "
			                   "something that is not JSON",
			                   kind);
	}
out:
	k8s_response_free(&r);
	free(body);
	strbuf_free(&path);
	return rc;
}

static const char *propagation_name(enum k8s_propagation p)
{
	switch (p) {
	case K8S_PROPAGATE_FOREGROUND:
		return "Foreground";
	case K8S_PROPAGATE_ORPHAN:
		return "Orphan";
	default:
		return "Background";
	}
}

/* DeleteOptions, as kubectl sends them; with uid, a precondition (kubectl delete
 * --now does not, the garbage collector does): the server deletes the object only
 * while it is that one, else answers 409 Conflict. malloc'd, or NULL. */
static char *delete_options(enum k8s_propagation prop, const char *uid)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1",
	                      "propagationPolicy", propagation_name(prop));
	char *body = NULL;

	if (o && uid && uid[0] &&
	    json_object_set_new(o, "preconditions", json_pack("{s:s}", "uid", uid)) < 0) {
		json_decref(o);
		return NULL;
	}
	if (o)
		body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return body;
}

int k8s_delete(struct k8s_client *c, const struct k8s_resource *res, const char *ns,
               const char *name, const char *uid, enum k8s_propagation prop,
               struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_response r = {0};
	char *body = NULL;
	int rc;

	rc = urlpath_resource(&path, res->api_path, res->namespaced ? ns : NULL, res->plural, name,
	                      NULL, err);
	if (rc)
		goto out;
	body = delete_options(prop, uid);
	if (!strbuf_ok(&path) || !body) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = k8s_request(c, "DELETE", strbuf_str(&path), NULL, body, &r, err);
out:
	k8s_response_free(&r);
	strbuf_free(&path);
	free(body);
	return rc;
}

int k8s_delete_object(struct k8s_client *c, const char *ns, const json_t *obj,
                      enum k8s_propagation prop, struct k8s_error *err)
{
	const char *api = json_string_value(json_object_get(obj, "apiVersion"));
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const json_t *meta = json_object_get(obj, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *uid = json_string_value(json_object_get(meta, "uid"));
	struct k8s_resource res;
	int rc = k8s_resource_for(api, kind, &res, err);

	if (rc)
		return rc;
	if (!name)
		return k8s_error_set(err, EINVAL, "the %s to delete has no name", kind);
	return k8s_delete(c, &res, ns, name, uid, prop, err);
}

int k8s_merge_patch(struct k8s_client *c, const struct k8s_resource *res, const char *ns,
                    const char *name, const char *patch, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_response r = {0};
	int rc;

	rc = urlpath_resource(&path, res->api_path, res->namespaced ? ns : NULL, res->plural, name,
	                      NULL, err);
	if (!rc && !strbuf_ok(&path))
		rc = k8s_error_set(err, ENOMEM, "out of memory");
	if (!rc)
		rc = k8s_request(c, "PATCH", strbuf_str(&path), "application/merge-patch+json", patch,
		                 &r, err);
	k8s_response_free(&r);
	strbuf_free(&path);
	return rc;
}

int k8s_get(struct k8s_client *c, const struct k8s_resource *res, const char *ns, const char *name,
            json_t **out, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int rc;

	*out = NULL;
	rc = urlpath_resource(&path, res->api_path, res->namespaced ? ns : NULL, res->plural, name,
	                      NULL, err);
	if (!rc)
		rc = k8s_get_json(c, strbuf_str(&path), out, err);
	strbuf_free(&path);
	return rc;
}

int k8s_access_review(struct k8s_client *c, const char *verb, const char *group,
                      const char *resource, const char *ns, struct k8s_access *out,
                      struct k8s_error *err)
{
	struct k8s_response r = {0};
	json_t *review, *answer = NULL, *status;
	const char *reason;
	char *body = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	review = json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:s}}}", "kind", "SelfSubjectAccessReview",
	                   "apiVersion", "authorization.k8s.io/v1", "spec", "resourceAttributes",
	                   "verb", verb, "group", group, "resource", resource);
	if (review && ns)
		json_object_set_new(json_object_get(json_object_get(review, "spec"),
		                                     "resourceAttributes"),
		                    "namespace", json_string(ns));
	body = review ? json_dumps(review, JSON_COMPACT) : NULL;
	json_decref(review);
	if (!body)
		return k8s_error_set(err, ENOMEM, "out of memory");
	rc = k8s_request(c, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", NULL,
	                 body, &r, err);
	free(body);
	if (rc)
		return rc;
	answer = json_loadb(r.body, r.len, 0, NULL);
	status = json_object_get(answer, "status");
	if (!json_is_object(status)) {
		rc = k8s_error_set(err, EIO, "the API server answered a SelfSubjectAccessReview with "
		                             "no status");
		goto out;
	}
	out->allowed = json_is_true(json_object_get(status, "allowed"));
	reason = json_string_value(json_object_get(status, "reason"));
	if (!reason || !*reason)
		reason = json_string_value(json_object_get(status, "evaluationError"));
	snprintf(out->reason, sizeof(out->reason), "%s", reason ? reason : "");
out:
	json_decref(answer);
	k8s_response_free(&r);
	return rc;
}

const char *k8s_object_uid(const json_t *obj)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
}

char *k8s_suspend_patch(const char *suspend_field, const char *uid, bool on)
{
	json_t *root = json_object(), *spec = json_object(), *at = spec, *md = NULL;
	char *field = strdup(suspend_field), *save = NULL, *part, *next, *text = NULL;

	if (!root || !spec || !field) {
		json_decref(spec);
		goto out;
	}
	/* root owns spec from here (set_new takes it even when it fails) */
	if (json_object_set_new(root, "spec", spec))
		goto out;
	/* "runPolicy.suspend" → {"spec":{"runPolicy":{"suspend":true}}} */
	for (part = strtok_r(field, ".", &save); part; part = next) {
		next = strtok_r(NULL, ".", &save);
		if (!next) {
			if (json_object_set_new(at, part, json_boolean(on)))
				goto out;
			break;
		}
		json_t *child = json_object();

		if (!child || json_object_set_new(at, part, child))
			goto out;
		at = child;
	}
	if (uid && *uid) {
		md = json_pack("{s:s}", "uid", uid);
		if (!md || json_object_set_new(root, "metadata", md))
			goto out;
	}
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
out:
	free(field);
	json_decref(root);
	return text;
}
