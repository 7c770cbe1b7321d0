/*
 * Tests k8s/api/api.c and k8s/api/discovery.c against the scripted server (testsrv.c):
 * the paths, queries and bodies they send, and how they read the answers.
 */
#include "k8s/api/api.h"
#include "k8s/api/discovery.h"
#include "k8s/objects/kinds.h"
#include "tests/unit/harness.h"
#include "tests/unit/testsrv.h"

#include <errno.h>

/* Scripts list only the fields a response needs; the rest are zero on purpose. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct api_fixture {
	struct testsrv srv;
	char server[64];
	struct k8s_config cfg;
	struct k8s_client *client;
};

static bool api_start(struct api_fixture *f)
{
	struct k8s_error err;

	memset(f, 0, sizeof(*f));
	if (testsrv_start(&f->srv) != 0)
		return false;
	snprintf(f->server, sizeof(f->server), "http://127.0.0.1:%d", f->srv.port);
	f->cfg.server = f->server;
	if (k8s_client_new(&f->cfg, NULL, &f->client, &err) != 0) {
		testsrv_stop(&f->srv);
		return false;
	}
	return true;
}

static void api_stop(struct api_fixture *f)
{
	k8s_client_free(f->client);
	testsrv_stop(&f->srv);
}

#define SCRIPT(f, ...)                                                                             \
	do {                                                                                       \
		struct testsrv_response s_[] = {__VA_ARGS__};                                      \
		memcpy((f)->srv.script, s_, sizeof(s_));                                           \
		(f)->srv.n_script = (int)(sizeof(s_) / sizeof(s_[0]));                             \
	} while (0)

TEST(api_resource_for_jobs_and_companions)
{
	struct k8s_resource r;
	struct k8s_error err;

	CHECK_INT_EQ(k8s_resource_for("kubeflow.org/v1", "TFJob", &r, &err), 0);
	CHECK_STR_EQ(r.api_path, "/apis/kubeflow.org/v1");
	CHECK_STR_EQ(r.plural, "tfjobs");
	CHECK(r.namespaced);
	CHECK_INT_EQ(k8s_resource_for("kubeflow.org/v2beta1", "MPIJob", &r, &err), 0);
	CHECK_STR_EQ(r.api_path, "/apis/kubeflow.org/v2beta1");
	CHECK_INT_EQ(k8s_resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob", &r, &err), 0);
	CHECK_STR_EQ(r.plural, "trainjobs");
	CHECK_INT_EQ(k8s_resource_for("apps/v1", "Deployment", &r, &err), 0);
	CHECK_STR_EQ(r.api_path, "/apis/apps/v1");
	CHECK_INT_EQ(k8s_resource_for("v1", "PersistentVolumeClaim", &r, &err), 0);
	CHECK_STR_EQ(r.plural, "persistentvolumeclaims");
	CHECK_INT_EQ(k8s_resource_for("v1", "Secret", &r, &err), 0);
	CHECK_INT_EQ(k8s_resource_for("v1", "Node", &r, &err), -EINVAL);
	CHECK_STR_EQ(err.message, "arenafs does not create Node objects of v1");
	CHECK_INT_EQ(k8s_resource_for("kubeflow.org/v2", "TFJob", &r, &err), -EINVAL);
}

TEST(api_create_posts_with_strict_validation_and_dry_run)
{
	struct api_fixture f;
	struct k8s_error err;
	json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "kubeflow.org/v1", "kind",
	                        "TFJob", "metadata", "name", "mnist", "namespace", "team-a");
	json_t *created = NULL;

	CHECK(api_start(&f));
	SCRIPT(&f, {201, NULL, "{\"kind\":\"TFJob\",\"metadata\":{\"uid\":\"u-1\"}}"},
	       {409, NULL,
	        "{\"kind\":\"Status\",\"code\":409,\"reason\":\"AlreadyExists\","
	        "\"message\":\"tfjobs.kubeflow.org \\\"mnist\\\" already exists\"}"});
	CHECK_INT_EQ(k8s_create(f.client, "team-a", obj, true, &created, &err), 0);
	CHECK_STR_EQ(
	    json_string_value(json_object_get(json_object_get(created, "metadata"), "uid")), "u-1");
	json_decref(created);
	CHECK_STR_CONTAINS(f.srv.seen[0], "POST /apis/kubeflow.org/v1/namespaces/team-a/tfjobs"
	                                  "?fieldValidation=Strict&dryRun=All HTTP/1.1\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"name\":\"mnist\"");
	CHECK_INT_EQ(k8s_create(f.client, "team-a", obj, false, NULL, &err), -EEXIST);
	CHECK_STR_EQ(err.message, "tfjobs.kubeflow.org \"mnist\" already exists");
	CHECK(!strstr(f.srv.seen[1], "dryRun"));
	/* namespace checks happen before anything is sent */
	CHECK_INT_EQ(k8s_create(f.client, "default", obj, false, NULL, &err), -EINVAL);
	CHECK_STR_EQ(err.message,
	             "the namespace from the provided object \"team-a\" does not match "
	             "the namespace \"default\"");
	json_object_del(json_object_get(obj, "metadata"), "namespace");
	CHECK_INT_EQ(k8s_create(f.client, "../x", obj, false, NULL, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "invalid namespace \"../x\"");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 2);
	json_decref(obj);
	api_stop(&f);
}

TEST(api_access_review_asks_and_reads_the_answer)
{
	struct api_fixture f;
	struct k8s_access a;
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(&f,
	       {201, NULL,
	        "{\"kind\":\"SelfSubjectAccessReview\",\"status\":{\"allowed\":true,"
	        "\"reason\":\"RBAC: allowed by RoleBinding \\\"edit/team-a\\\"\"}}"},
	       {201, NULL, "{\"kind\":\"SelfSubjectAccessReview\",\"status\":{\"allowed\":false}}"},
	       {201, NULL,
	        "{\"status\":{\"allowed\":false,\"evaluationError\":\"webhook down\"}}"},
	       {201, NULL, "{\"kind\":\"SelfSubjectAccessReview\"}"},
	       {403, NULL,
	        "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\","
	        "\"message\":\"selfsubjectaccessreviews.authorization.k8s.io is forbidden\"}"});
	CHECK_INT_EQ(k8s_access_review(f.client, "create", "kubeflow.org", "tfjobs", "team-a", &a,
	                               &err),
	             0);
	CHECK(a.allowed);
	CHECK_STR_EQ(a.reason, "RBAC: allowed by RoleBinding \"edit/team-a\"");
	CHECK_STR_CONTAINS(f.srv.seen[0],
	                   "POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"kind\":\"SelfSubjectAccessReview\"");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"apiVersion\":\"authorization.k8s.io/v1\"");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"namespace\":\"team-a\"");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"resource\":\"tfjobs\"");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"group\":\"kubeflow.org\"");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"verb\":\"create\"");
	/* RBAC's no comes without a reason */
	CHECK_INT_EQ(k8s_access_review(f.client, "create", "kubeflow.org", "tfjobs", "prod", &a,
	                               &err),
	             0);
	CHECK(!a.allowed);
	CHECK_STR_EQ(a.reason, "");
	CHECK_INT_EQ(k8s_access_review(f.client, "list", "", "nodes", NULL, &a, &err), 0);
	CHECK(!a.allowed);
	CHECK_STR_EQ(a.reason, "webhook down");
	CHECK(!strstr(f.srv.seen[2], "namespace"));
	/* an answer without a status, and a question that may not be asked, are errors */
	CHECK_INT_EQ(k8s_access_review(f.client, "create", "kubeflow.org", "tfjobs", "x", &a, &err),
	             -EIO);
	CHECK_INT_EQ(k8s_access_review(f.client, "create", "kubeflow.org", "tfjobs", "x", &a, &err),
	             -EACCES);
	CHECK_STR_CONTAINS(err.message, "forbidden");
	api_stop(&f);
}

TEST(api_delete_sends_delete_options_and_get_decodes)
{
	struct api_fixture f;
	struct k8s_resource res = {"/apis/kubeflow.org/v1", "pytorchjobs", true};
	struct k8s_error err;
	json_t *obj = NULL;

	CHECK(api_start(&f));
	SCRIPT(&f, {200, NULL, "{\"kind\":\"Status\",\"status\":\"Success\"}"},
	       {200, NULL, "{\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"bert\"}}"});
	CHECK_INT_EQ(
	    k8s_delete(f.client, &res, "default", "bert", NULL, K8S_PROPAGATE_FOREGROUND, &err), 0);
	CHECK_STR_CONTAINS(
	    f.srv.seen[0],
	    "DELETE /apis/kubeflow.org/v1/namespaces/default/pytorchjobs/bert HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[0], "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                                  "\"propagationPolicy\":\"Foreground\"}");
	CHECK_INT_EQ(k8s_get(f.client, &res, "default", "bert", &obj, &err), 0);
	CHECK_STR_EQ(json_string_value(json_object_get(obj, "kind")), "PyTorchJob");
	json_decref(obj);
	CHECK_INT_EQ(
	    k8s_delete(f.client, &res, "default", "../../nodes/n1", NULL, K8S_PROPAGATE_BACKGROUND,
	               &err),
	    -EINVAL);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 2);
	api_stop(&f);
}

/* Issue 33: rmdir deletes the object its folder shows, by uid: a precondition the
 * server checks (409 Conflict when the name holds another object now). */
TEST(api_delete_with_a_uid_sends_it_as_a_precondition)
{
	struct api_fixture f;
	struct k8s_resource res = {"/apis/kubeflow.org/v1", "tfjobs", true};
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(&f, {200, NULL, "{\"kind\":\"Status\",\"status\":\"Success\"}"},
	       {409, NULL,
	        "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Conflict\",\"code\":409,"
	        "\"message\":\"Precondition failed: UID in precondition: u\\\"1, UID in object "
	        "meta: u2\"}"});
	CHECK_INT_EQ(k8s_delete(f.client, &res, "default", "mnist", "u\"1",
	                        K8S_PROPAGATE_BACKGROUND, &err),
	             0);
	CHECK_STR_CONTAINS(f.srv.seen[0], "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                                  "\"propagationPolicy\":\"Background\","
	                                  "\"preconditions\":{\"uid\":\"u\\\"1\"}}");
	CHECK_INT_EQ(k8s_delete(f.client, &res, "default", "mnist", "u\"1",
	                        K8S_PROPAGATE_BACKGROUND, &err),
	             -EBUSY);
	CHECK_INT_EQ(err.code, 409);
	CHECK_STR_CONTAINS(err.message, "Precondition failed");
	api_stop(&f);
}

TEST(api_delete_object_finds_its_resource_from_the_object)
{
	struct api_fixture f;
	struct k8s_error err;
	json_t *svc = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Service",
	                        "metadata", "name", "mnist-tensorboard");
	json_t *node = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Node",
	                         "metadata", "name", "n1");
	json_t *nameless = json_pack("{s:s, s:s, s:{}}", "apiVersion", "apps/v1", "kind",
	                             "Deployment", "metadata");

	CHECK(api_start(&f));
	SCRIPT(&f, {200, NULL, "{\"kind\":\"Status\",\"status\":\"Success\"}"});
	CHECK_INT_EQ(k8s_delete_object(f.client, "team-a", svc, K8S_PROPAGATE_BACKGROUND, &err), 0);
	CHECK_STR_CONTAINS(f.srv.seen[0],
	                   "DELETE /api/v1/namespaces/team-a/services/mnist-tensorboard HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\"propagationPolicy\":\"Background\"");
	/* nothing is sent for what arenafs never creates, or an object without a name */
	CHECK_INT_EQ(k8s_delete_object(f.client, "team-a", node, K8S_PROPAGATE_BACKGROUND, &err),
	             -EINVAL);
	CHECK_INT_EQ(k8s_delete_object(f.client, "team-a", nameless, K8S_PROPAGATE_BACKGROUND, &err),
	             -EINVAL);
	CHECK_STR_EQ(err.message, "the Deployment to delete has no name");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 1);
	json_decref(svc);
	json_decref(node);
	json_decref(nameless);
	api_stop(&f);
}

TEST(discovery_finds_served_kinds_and_one_mpi_version)
{
	struct api_fixture f;
	bool served[JOB_KIND_COUNT];
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(
	    &f,
	    {200, NULL,
	     "{\"kind\":\"APIGroupList\",\"groups\":[{\"name\":\"apps\",\"versions\":[{"
	     "\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}]},{\"name\":\"kubeflow.org\","
	     "\"versions\":[{\"groupVersion\":\"kubeflow.org/v1\",\"version\":\"v1\"},{"
	     "\"groupVersion\":\"kubeflow.org/v2beta1\",\"version\":\"v2beta1\"}]}]}"},
	    {200, NULL,
	     "{\"kind\":\"APIResourceList\",\"resources\":[{\"name\":\"tfjobs\"},{\"name\":"
	     "\"tfjobs/status\"},{\"name\":\"pytorchjobs\"},{\"name\":\"mpijobs\"}]}"},
	    {200, NULL, "{\"kind\":\"APIResourceList\",\"resources\":[{\"name\":\"mpijobs\"}]}"});
	CHECK_INT_EQ(kinds_discover(f.client, served, &err), 0);
	CHECK(served[JOB_TFJOB]);
	CHECK(served[JOB_PYTORCHJOB]);
	CHECK(served[JOB_MPIJOB]);
	CHECK(!served[JOB_MPIJOB_V2]); /* the same CRD: only one of the two is watched */
	CHECK(!served[JOB_XGBOOSTJOB]);
	CHECK(!served[JOB_TRAINJOB]);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 3); /* one document per group version */
	CHECK_STR_CONTAINS(f.srv.seen[0], "GET /apis HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[1], "GET /apis/kubeflow.org/v1 HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[2], "GET /apis/kubeflow.org/v2beta1 HTTP/1.1");
	api_stop(&f);
}

TEST(discovery_mpi_operator_only_and_forbidden_group)
{
	struct api_fixture f;
	bool served[JOB_KIND_COUNT];
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(&f,
	       {200, NULL,
	        "{\"groups\":[{\"name\":\"kubeflow.org\",\"versions\":[{\"version\":\"v2beta1\"}]},"
	        "{\"name\":\"trainer.kubeflow.org\",\"versions\":[{\"version\":\"v1alpha1\"}]}]}"},
	       {200, NULL, "{\"resources\":[{\"name\":\"mpijobs\"}]}"},
	       {403, NULL, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\"}"});
	CHECK_INT_EQ(kinds_discover(f.client, served, &err), 0);
	CHECK(!served[JOB_MPIJOB]);
	CHECK(served[JOB_MPIJOB_V2]);
	CHECK(!served[JOB_TRAINJOB]);
	CHECK_INT_EQ(kinds_by_type("mpi", served), JOB_MPIJOB_V2);
	api_stop(&f);
}

TEST(discovery_of_kueue_takes_v1beta2_and_its_visibility_api)
{
	struct api_fixture f;
	struct kueue_api api;
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(&f,
	       {200, NULL,
	        "{\"groups\":[{\"name\":\"kueue.x-k8s.io\",\"versions\":[{\"version\":\"v1beta2\"},"
	        "{\"version\":\"v1beta1\"}]},{\"name\":\"visibility.kueue.x-k8s.io\",\"versions\":"
	        "[{\"version\":\"v1beta2\"},{\"version\":\"v1beta1\"}]}]}"},
	       {200, NULL,
	        "{\"resources\":[{\"name\":\"workloads\"},{\"name\":\"localqueues\"},"
	        "{\"name\":\"clusterqueues\"},{\"name\":\"clusterqueues/status\"}]}"},
	       {200, NULL,
	        "{\"resources\":[{\"name\":\"localqueues\"},{\"name\":\"localqueues/"
	        "pendingworkloads\"}]}"});
	CHECK_INT_EQ(kueue_discover(f.client, &api, &err), 0);
	CHECK_STR_EQ(api.version, "v1beta2");
	CHECK_STR_EQ(api.visibility, "v1beta2");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 3);
	CHECK_STR_CONTAINS(f.srv.seen[1], "GET /apis/kueue.x-k8s.io/v1beta2 HTTP/1.1");
	CHECK_STR_CONTAINS(f.srv.seen[2], "GET /apis/visibility.kueue.x-k8s.io/v1beta2 HTTP/1.1");
	api_stop(&f);
}

TEST(discovery_of_kueue_without_it_or_with_an_old_one)
{
	struct api_fixture f;
	struct kueue_api api;
	struct k8s_error err;

	CHECK(api_start(&f));
	SCRIPT(&f,
	       {200, NULL, "{\"groups\":[{\"name\":\"apps\",\"versions\":[{\"version\":\"v1\"}]}]}"},
	       /* Kueue before v1beta2, whose visibility API these credentials may not read */
	       {200, NULL,
	        "{\"groups\":[{\"name\":\"kueue.x-k8s.io\",\"versions\":[{\"version\":"
	        "\"v1beta1\"}]},{\"name\":\"visibility.kueue.x-k8s.io\",\"versions\":[{"
	        "\"version\":\"v1beta1\"}]}]}"},
	       {200, NULL,
	        "{\"resources\":[{\"name\":\"workloads\"},{\"name\":\"localqueues\"},"
	        "{\"name\":\"clusterqueues\"}]}"},
	       {403, NULL, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\"}"});
	CHECK_INT_EQ(kueue_discover(f.client, &api, &err), 0);
	CHECK_STR_EQ(api.version, "");       /* no Kueue: nothing more is asked */
	CHECK_STR_EQ(api.visibility, "");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 1);
	CHECK_INT_EQ(kueue_discover(f.client, &api, &err), 0);
	CHECK_STR_EQ(api.version, "v1beta1");
	CHECK_STR_EQ(api.visibility, "");
	api_stop(&f);
}

TEST(api_suspend_patch_sets_the_kinds_field_with_the_uid)
{
	char *p = k8s_suspend_patch(kinds_info(JOB_TFJOB)->suspend_field, "u-1", true);

	CHECK_STR_EQ(p, "{\"metadata\":{\"uid\":\"u-1\"},\"spec\":{\"runPolicy\":{\"suspend\":true}}}");
	free(p);
	p = k8s_suspend_patch(kinds_info(JOB_TRAINJOB)->suspend_field, "", false);
	CHECK_STR_EQ(p, "{\"spec\":{\"suspend\":false}}");
	free(p);
}
