/*
 * Tests of render/jobspec/code.c: a folder's local code as a ConfigMap (text under data,
 * other bytes under binaryData, keys that are valid, owned by the job, immutable)
 * and as the job's volume, mounts and working directory in every replica, with
 * the annotation that lists the files for jobs/NAME/code/.
 */
#include "render/jobspec/spec.h"
#include "tests/unit/harness.h"
#include "tests/unit/json_path.h"
#include "tests/unit/jobspec_testing.h"

#include <errno.h>
#include <string.h>

static const struct spec_code_file FILES[] = {
    {"spec.yaml", "type: tfjob\n", 12, 0644},
    {"model/net.py", "X = 1\n", 6, 0644},
    {"run.sh", "#!/bin/sh\n", 10, 0755},
    {"weights.bin", "\x00\xff\x01", 3, 0644},
};
#define NFILES (sizeof(FILES) / sizeof(FILES[0]))

static const char TF2[] = "type: tfjob\nimage: tf\ncommand: python train.py\nworkers: 2\nps: 1\n";

/* The job of text with FILES added, or NULL (and a failed test). */
static json_t *job_with_code(const char *file, int line, const char *text)
{
	struct job_spec *s = spec_test_parse(file, line, text, "mnist", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL;

	if (!s)
		return NULL;
	if (spec_build_job(s, "team-a", &job, &err) != 0 ||
	    spec_add_code(s, job, FILES, NFILES, &err) != 0) {
		harness_fail(file, line, "%s", err.message);
		json_decref(job);
		job = NULL;
	}
	spec_free(s);
	return job;
}

TEST(spec_code_is_mounted_read_only_and_worked_in_by_every_replica)
{
	json_t *job = job_with_code(__FILE__, __LINE__, TF2);
	const char *roles[] = {"Worker", "PS"};
	char path[160];

	if (!job)
		return;
	for (size_t r = 0; r < 2; r++) {
		const json_t *pod, *vol = NULL, *v;
		size_t i;

		snprintf(path, sizeof(path), "spec.tfReplicaSpecs.%s.template.spec", roles[r]);
		pod = jp(job, path);
		json_array_foreach(json_object_get(pod, "volumes"), i, v)
			if (strcmp(jp_str(v, "name"), "arenafs-code") == 0)
				vol = v;
		CHECK(vol != NULL);
		CHECK_STR_EQ(jp_str(vol, "configMap.name"), "mnist-code");
		CHECK_INT_EQ(jp_size(vol, "configMap.items"), NFILES);
		CHECK_STR_EQ(jp_str(vol, "configMap.items[1].path"), "model/net.py");
		CHECK_INT_EQ(json_integer_value(jp(vol, "configMap.items[2].mode")), 0555);
		CHECK_INT_EQ(json_integer_value(jp(vol, "configMap.items[0].mode")), 0444);
		CHECK_STR_EQ(jp_str(pod, "containers[0].workingDir"), "/code");
		json_array_foreach(json_object_get(jp(pod, "containers[0]"), "volumeMounts"), i, v)
			if (strcmp(jp_str(v, "name"), "arenafs-code") == 0) {
				CHECK_STR_EQ(jp_str(v, "mountPath"), "/code");
				CHECK(json_is_true(json_object_get(v, "readOnly")));
			}
	}
	CHECK_STR_EQ(jp_str(job, "metadata.annotations[\"arenafs.io/code\"]"),
	             "configmap mnist-code\n"
	             "0644 12 spec.yaml spec.yaml\n"
	             "0644 6 _2 model/net.py\n"
	             "0755 10 run.sh run.sh\n"
	             "0644 3 weights.bin weights.bin\n");
	json_decref(job);
}

TEST(spec_code_dir_moves_the_mount_and_working_dir_keeps_the_containers_dir)
{
	json_t *job = job_with_code(__FILE__, __LINE__,
	                            "type: pytorchjob\nimage: p\ncommand: x\ncode_dir: /src\n"
	                            "working_dir: /workspace\n");
	const json_t *c, *m, *code = NULL;
	size_t i;

	if (!job)
		return;
	c = jp(job, "spec.pytorchReplicaSpecs.Master.template.spec.containers[0]");
	CHECK_STR_EQ(jp_str(c, "workingDir"), "/workspace");
	json_array_foreach(json_object_get(c, "volumeMounts"), i, m)
		if (strcmp(jp_str(m, "name"), "arenafs-code") == 0)
			code = m;
	CHECK(code != NULL);
	CHECK_STR_EQ(jp_str(code, "mountPath"), "/src");
	json_decref(job);
}

TEST(spec_code_configmap_holds_text_as_data_and_bytes_as_binary_data)
{
	struct job_spec *s = PARSE(TF2, "mnist", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL, *made, *cm = NULL;

	if (!s)
		return;
	CHECK_INT_EQ(spec_build_job(s, "team-a", &job, &err), 0);
	made = json_deep_copy(job);
	json_object_set_new(json_object_get(made, "metadata"), "uid", json_string("u-1"));
	CHECK_INT_EQ(spec_build_code(s, "team-a", made, FILES, NFILES, &cm, &err), 0);
	if (cm) {
		CHECK_STR_EQ(jp_str(cm, "metadata.name"), "mnist-code");
		CHECK_STR_EQ(jp_str(cm, "metadata.namespace"), "team-a");
		CHECK_STR_EQ(jp_str(cm, "metadata.labels[\"arenafs.io/code\"]"), "mnist");
		CHECK_STR_EQ(jp_str(cm, "metadata.ownerReferences[0].uid"), "u-1");
		CHECK(json_is_true(json_object_get(cm, "immutable")));
		CHECK_STR_EQ(jp_str(cm, "data[\"spec.yaml\"]"), "type: tfjob\n");
		CHECK_STR_EQ(jp_str(cm, "data._2"), "X = 1\n");
		CHECK_STR_EQ(jp_str(cm, "binaryData[\"weights.bin\"]"), "AP8B");
		CHECK(jp(cm, "data[\"weights.bin\"]") == NULL);
	}
	json_decref(cm);
	/* before the job exists (a dry run): no owner */
	CHECK_INT_EQ(spec_build_code(s, "team-a", NULL, FILES, NFILES, &cm, &err), 0);
	CHECK(cm && jp(cm, "metadata.ownerReferences") == NULL);
	json_decref(cm);
	json_decref(made);
	json_decref(job);
	spec_free(s);
}

/* A file whose name is not UTF-8 cannot be named in the ConfigMap or the annotation
 * (Kubernetes keeps text as UTF-8): EINVAL naming the file, its bytes escaped, not
 * "out of memory" (issue 23). */
TEST(spec_code_a_name_that_is_not_utf8_is_einval_saying_so)
{
	static const struct spec_code_file bad[] = {
	    {"spec.yaml", "type: tfjob\n", 12, 0644},
	    {"data/caf\xe9.txt", "x\n", 2, 0644},
	};
	struct job_spec *s = PARSE(TF2, "mnist", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL;

	if (!s)
		return;
	k8s_error_clear(&err);
	CHECK_INT_EQ(spec_build_job(s, "team-a", &job, &err), 0);
	CHECK_INT_EQ(spec_add_code(s, job, bad, 2, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "data/caf\\xe9.txt");
	CHECK_STR_CONTAINS(err.message, "is not UTF-8");
	CHECK(!strstr(err.message, "out of memory"));
	json_decref(job);
	spec_free(s);
}

/* The ConfigMap the API server answered the create with holds the bytes sent, or
 * the first key that differs is named (a key cut short, one missing, one added). */
TEST(spec_code_stored_names_the_first_key_that_differs)
{
	json_t *sent = json_pack("{s:{s:s,s:s},s:{s:s}}", "data", "a.py", "print(1)\n", "b.py",
	                         "x", "binaryData", "w.bin", "AP8B");
	json_t *stored = json_deep_copy(sent);
	char key[64] = "";

	CHECK_INT_EQ(spec_code_stored(sent, stored, key, sizeof(key)), 0);
	json_object_set_new(json_object_get(stored, "data"), "a.py", json_string("print("));
	CHECK_INT_EQ(spec_code_stored(sent, stored, key, sizeof(key)), -EIO);
	CHECK_STR_EQ(key, "a.py");
	json_decref(stored);
	stored = json_deep_copy(sent);
	json_object_del(json_object_get(stored, "binaryData"), "w.bin");
	CHECK_INT_EQ(spec_code_stored(sent, stored, key, sizeof(key)), -EIO);
	CHECK_STR_EQ(key, "w.bin");
	json_object_set_new(json_object_get(stored, "data"), "extra", json_string(""));
	json_object_set_new(json_object_get(stored, "binaryData"), "w.bin", json_string("AP8B"));
	CHECK_INT_EQ(spec_code_stored(sent, stored, key, sizeof(key)), -EIO);
	CHECK_STR_EQ(key, "extra");
	json_decref(stored);
	json_decref(sent);
}
