/* Tests render/job_files.c: type, job.json as kubectl prints it, spec.yaml from the
 * annotation or from the object, and the job's mtime. */
#include "render/render.h"
#include "render/job_files.h"
#include "render/jobspec/yaml_parse.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

#define CHECK_PREFIX(s, prefix)                                                                    \
	do {                                                                                       \
		if (strncmp((s), (prefix), strlen(prefix)) != 0)                                   \
			harness_fail(__FILE__, __LINE__, "%s starts with:\n%s\n  text:\n%s", #s,   \
			             (prefix), (s));                                               \
	} while (0)

static const char RAW[] =
    "{\"kind\":\"TFJob\",\"apiVersion\":\"kubeflow.org/v1\","
    "\"metadata\":{\"name\":\"mnist\",\"namespace\":\"default\",\"uid\":\"u-1\","
    "\"resourceVersion\":\"42\","
    "\"generation\":1,\"creationTimestamp\":\"2026-12-02T09:00:00Z\",\"labels\":{\"app\":\"tfjob\"}"
    ","
    "\"managedFields\":[{\"manager\":\"kubectl\"}]},"
    "\"spec\":{\"tfReplicaSpecs\":{\"Worker\":{\"replicas\":1,\"template\":{\"spec\":{"
    "\"containers\":"
    "[{\"name\":\"tensorflow\",\"image\":\"tf:2\",\"args\":[\"--lr\",\"0.1\"],\"env\":[{\"name\":"
    "\"X\",\"value\":\"on\"}]}]}}}},"
    "\"lr\":0.1},"
    "\"status\":{\"conditions\":[{\"type\":\"Created\",\"status\":\"True\"}]}}";

TEST(job_type_file)
{
	struct job *j = fx_job(JOB_MPIJOB_V2, "h", FX_T0);
	char *s = FX_RENDER(render_job_type(sb, j));

	CHECK_STR_EQ(s, "mpijob\n");
	free(s);
	fx_job_free(j);
}

/* jobs/NAME/suspend: what the spec asks, one digit and a newline. */
TEST(job_suspend_file)
{
	struct job *j = fx_job(JOB_TFJOB, "s", FX_T0);
	char *s = FX_RENDER(render_job_suspend(sb, j));

	CHECK_STR_EQ(s, "0\n");
	free(s);
	j->suspend = true;
	s = FX_RENDER(render_job_suspend(sb, j));
	CHECK_STR_EQ(s, "1\n");
	free(s);
	fx_job_free(j);
}

TEST(job_json_as_kubectl_get_o_json)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0);
	json_t *back;
	char *s;

	fx_set(&j->raw_json, RAW);
	s = FX_RENDER(render_job_json(sb, j));
	CHECK_PREFIX(s, "{\n    \"apiVersion\": \"kubeflow.org/v1\",\n    \"kind\": \"TFJob\",\n"
	                "    \"metadata\": {\n        \"creationTimestamp\"");
	CHECK_STR_CONTAINS(s, "\"lr\": 0.1,\n");
	CHECK(!strstr(s, "managedFields"));
	CHECK(s[strlen(s) - 1] == '\n' && s[strlen(s) - 2] == '}');
	back = json_loads(s, 0, NULL);
	CHECK(back != NULL);
	CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(back, "metadata"), "uid")),
	             "u-1");
	json_decref(back);
	free(s);
	fx_job_free(j);
}

TEST(spec_yaml_from_the_annotation)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0);
	char *s;

	fx_set(&j->raw_json, RAW);
	fx_set(&j->spec_annotation, "name: mnist\ntype: tfjob\nimage: tf:2\ncommand: python a.py");
	s = FX_RENDER(render_job_spec_yaml(sb, j));
	CHECK_STR_EQ(s, "name: mnist\ntype: tfjob\nimage: tf:2\ncommand: python a.py\n");
	free(s);
	fx_set(&j->spec_annotation, "type: tfjob\n");
	s = FX_RENDER(render_job_spec_yaml(sb, j));
	CHECK_STR_EQ(s, "type: tfjob\n");
	free(s);
	fx_job_free(j);
}

TEST(spec_yaml_of_a_foreign_job_is_a_manifest_to_create_again)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0);
	struct yaml_doc *d = NULL;
	struct k8s_error err;
	json_t *expect;
	char *s;

	fx_set(&j->raw_json, RAW);
	s = FX_RENDER(render_job_spec_yaml(sb, j));
	CHECK_PREFIX(
	    s, "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  labels:\n    app: tfjob\n"
	       "  name: mnist\n  namespace: default\nspec:\n");
	CHECK_STR_CONTAINS(s, "            - --lr\n            - \"0.1\"\n");
	CHECK_STR_CONTAINS(s, "              value: \"on\"\n");
	CHECK(!strstr(s, "status") && !strstr(s, "uid") && !strstr(s, "resourceVersion") &&
	      !strstr(s, "creationTimestamp") && !strstr(s, "managedFields") &&
	      !strstr(s, "generation"));
	/* It reads back as the object less what the server set. */
	expect = json_loads(RAW, 0, NULL);
	json_object_del(expect, "status");
	json_object_del(json_object_get(expect, "metadata"), "uid");
	json_object_del(json_object_get(expect, "metadata"), "resourceVersion");
	json_object_del(json_object_get(expect, "metadata"), "generation");
	json_object_del(json_object_get(expect, "metadata"), "creationTimestamp");
	json_object_del(json_object_get(expect, "metadata"), "managedFields");
	k8s_error_clear(&err);
	CHECK_INT_EQ(yaml_parse(s, strlen(s), &d, &err), 0);
	CHECK(d && json_equal(expect, yaml_doc_root(d)));
	yaml_doc_free(d);
	json_decref(expect);
	free(s);
	fx_job_free(j);
}

TEST(job_mtime_is_the_latest_change)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 1000);
	struct pod *p = fx_pod("mnist-worker-0", j, "worker", 0, POD_RUNNING);
	struct job_view v = fx_view(j, NULL, 0);

	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 1000);
	j->start_time = FX_T0 - 900;
	fx_job_condition(j, "Running", true, FX_T0 - 800);
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 800);
	p->meta.created = FX_T0 - 850;
	fx_container(p, "tensorflow", 0);
	fx_state(&p->containers[0].state, CONTAINER_RUNNING, "", 0, FX_T0 - 700, 0);
	v = fx_view(j, (const struct pod *const *)&p, 1);
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 700);
	/* Deletion with a grace period still to run: never later than now. */
	p->meta.deleted = FX_T0 + 30;
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0);
	p->meta.deleted = 0;
	j->completion_time = FX_T0 - 100;
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 100);
	fx_pod_free(p);
	fx_job_free(j);
}
