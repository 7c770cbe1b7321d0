/*
 * Tests render/jobspec/spec.c, validate.c, values.c and manifest.c: what a spec must
 * hold, the messages a bad one gets (with line and column), full manifests, the
 * job's name (the staging entry's wins over name:), and resubmitting the stored
 * spec.
 */
#include "render/jobspec/spec.h"
#include "tests/unit/harness.h"
#include "tests/unit/json_path.h"
#include "tests/unit/jobspec_testing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python main.py\n"

TEST(spec_minimal_spec_takes_defaults)
{
	struct job_spec *s = PARSE(BASE, "mnist", SERVED_ALL);

	if (!s)
		return;
	CHECK_STR_EQ(spec_name(s), "mnist");
	CHECK_INT_EQ(spec_kind(s), JOB_TFJOB);
	CHECK(!spec_wants_tensorboard(s));
	CHECK(!spec_is_manifest(s));
	spec_free(s);
	s = PARSE("name: resnet\ntype: pytorch\nimage: p\ncommand: x\ntensorboard: yes\n", NULL,
	          SERVED_ALL);
	if (!s)
		return;
	CHECK_STR_EQ(spec_name(s), "resnet");
	CHECK_INT_EQ(spec_kind(s), JOB_PYTORCHJOB);
	CHECK(spec_wants_tensorboard(s));
	spec_free(s);
}

/* The staging entry's name wins over name: when it can name a job (a rerun: cp
 * jobs/A/spec.yaml submit/B.yaml); when it cannot, name: does. */
TEST(spec_entry_name_wins_over_the_spec_name)
{
	struct job_spec *s = PARSE("name: resnet\n" BASE, "mnist", SERVED_ALL);

	if (s)
		CHECK_STR_EQ(spec_name(s), "mnist");
	spec_free(s);
	s = PARSE("name: resnet\n" BASE, "train_v2", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_name(s), "resnet");
	spec_free(s);
	s = PARSE("name: resnet\n" BASE, "", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_name(s), "resnet");
	spec_free(s);
	/* 50 characters: too long for a small spec's job, so name: names it */
	s = PARSE("name: resnet\n" BASE, "a234567890123456789012345678901234567890123456789x",
	          SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_name(s), "resnet");
	spec_free(s);
	/* a name: that could name no job is wrong even when the entry's name is used */
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: Resnet\n"),
	                   "line 4, column 7: name: \"Resnet\" must be lowercase");
}

TEST(spec_yaml_syntax_error_has_line_and_column)
{
	const char *m = SPEC_ERROR("type: tfjob\nimage: x\ncommand: [python, main.py\ngpus: 1\n");

	CHECK_STR_CONTAINS(m, "line 4, column 5: YAML syntax error");
	m = SPEC_ERROR("type: tfjob\n  image: x\n");
	CHECK_STR_CONTAINS(m, "line 2, column 8: YAML syntax error: mapping values are not "
	                      "allowed in this context");
}

TEST(spec_unknown_key_is_named_with_a_guess)
{
	CHECK_STR_EQ(SPEC_ERROR(BASE "gpu: 2\n"), "line 4, column 1: gpu: unknown key (did you "
	                                          "mean gpus?)");
	CHECK_STR_EQ(SPEC_ERROR(BASE "workingDir: /x\n"),
	             "line 4, column 1: workingDir: unknown key (did you mean working_dir?)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "flavour: large\n"),
	                   "line 4, column 1: flavour: unknown key; the spec's keys are listed in "
	                   "docs/spec.md");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "sync: {mode: git, source: u, brnch: x}\n"),
	                   "sync.brnch: unknown key (did you mean branch?)");
}

TEST(spec_wrong_types_name_the_key_and_value)
{
	CHECK_STR_EQ(SPEC_ERROR(BASE "gpus: two\n"),
	             "line 4, column 7: gpus: expected an integer, got \"two\"");
	CHECK_STR_EQ(SPEC_ERROR(BASE "gpus: \"2\"\n"),
	             "line 4, column 7: gpus: expected an integer, got \"2\" (a quoted string: "
	             "write it without quotes)");
	CHECK_STR_EQ(SPEC_ERROR(BASE "workers: 1.5\n"),
	             "line 4, column 10: workers: expected an integer, got 1.5");
	CHECK_STR_EQ(SPEC_ERROR(BASE "gpus: -1\n"),
	             "line 4, column 7: gpus: must be at least 0, got -1");
	CHECK_STR_EQ(SPEC_ERROR(BASE "env: [A, B]\n"),
	             "line 4, column 6: env: expected a mapping (key: value lines), got a list");
	CHECK_STR_EQ(SPEC_ERROR(BASE "tensorboard: maybe\n"),
	             "line 4, column 14: tensorboard: expected true or false, got \"maybe\"");
	CHECK_STR_EQ(SPEC_ERROR(BASE "image_pull_policy: always\n"),
	             "line 4, column 20: image_pull_policy: \"always\" is not one of Always, "
	             "IfNotPresent, Never (did you mean Always?)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "env:\n  BATCH: {a: 1}\n"),
	                   "line 5, column 10: env.BATCH: expected a string, got a mapping");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "ttl_after_finished: soon\n"),
	                   "ttl_after_finished: expected seconds (an integer) or a duration");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "chief: 2\n"), "chief: a TFJob has at most one Chief");
	/* a value that only looks like a number to YAML 1.1 is still shown as written */
	CHECK_STR_EQ(SPEC_ERROR(BASE "retry: yes\n"),
	             "line 4, column 8: retry: expected an integer, got yes");
}

/* Issue 33: `gpus: 010` became 8 GPUs (YAML 1.1's octal) and `0x10` 16, with no
 * word; a count with a leading 0 or a base prefix is refused, saying what each
 * reading makes of it. */
TEST(spec_counts_with_a_leading_zero_or_a_base_are_refused)
{
	static const char *const cases[][2] = {
	    {BASE "gpus: 010\n", "line 4, column 7: gpus: 010 has a leading 0, which YAML 1.1 (as "
	                         "kubectl reads it) takes for octal, 8, and others for 10: write 8 "
	                         "or 10"},
	    {BASE "gpus: 0x10\n", "line 4, column 7: gpus: 0x10 is hexadecimal for 16: write "
	                          "counts in decimal (16)"},
	    {BASE "workers: 0o4\n", "line 4, column 10: workers: 0o4 is octal for 4: write counts "
	                            "in decimal (4)"},
	    {BASE "retry: 0b11\n", "line 4, column 8: retry: 0b11 is binary for 3: write counts in "
	                           "decimal (3)"},
	    /* the same either way: still refused, the number to write named */
	    {BASE "workers: 04\n", "line 4, column 10: workers: 04 has a leading 0: write 4"},
	    {BASE "ttl_after_finished: 0_90\n", "line 4, column 21: ttl_after_finished: 0_90 has a "
	                                        "leading 0: write 90"},
	    {BASE "gpus: 00\n", "line 4, column 7: gpus: 00 has a leading 0: write 0"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR_EQ(SPEC_ERROR(cases[i][0]), cases[i][1]);
	/* 0, 0.0 and 1_0 are what they look like; a quantity is the API server's to
	 * read, which reads 010 as 10 */
	json_t *job = JOB(BASE "gpus: 0\nworkers: 1_0\nretry: 0.0\ncpu: 010\n");

	if (!job)
		return;
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.Worker.replicas"), 10);
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Worker.template.spec.containers[0]."
	                         "resources.limits.cpu"),
	             "010");
	json_decref(job);
}

TEST(spec_integral_floats_are_integers_as_in_kubernetes)
{
	json_t *job = JOB(BASE "gpus: 2.0\nworkers: 1e1\n");

	if (!job)
		return;
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.Worker.replicas"), 10);
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Worker.template.spec.containers[0]."
	                         "resources.limits[\"nvidia.com/gpu\"]"),
	             "2");
	json_decref(job);
}

TEST(spec_required_keys)
{
	CHECK_STR_CONTAINS(SPEC_ERROR("type: tfjob\ncommand: x\n"),
	                   "image: required: the container image to run");
	CHECK_STR_CONTAINS(SPEC_ERROR("type: tfjob\nimage: x\n"), "command: required");
	CHECK_STR_CONTAINS(SPEC_ERROR("image: x\ncommand: y\n"),
	                   "type: required: the job type; this cluster serves tfjob, pytorchjob, "
	                   "mpijob, xgboostjob, paddlejob, jaxjob");
	CHECK_STR_CONTAINS(SPEC_ERROR("type: tfjob\nimage:\ncommand: y\n"), "image: required");
	CHECK_STR_CONTAINS(SPEC_ERROR("type: tfjob\nimage: x\ncommand: \"  \"\n"),
	                   "line 3, column 10: command: is empty");
	CHECK_STR_CONTAINS(SPEC_ERROR(""), "the spec is empty");
	CHECK_STR_CONTAINS(SPEC_ERROR("# just a comment\n"), "the spec is empty");
	CHECK_STR_EQ(SPEC_ERROR("- type: tfjob\n"),
	             "line 1, column 1: spec: expected a mapping of keys (type:, image:, command:, "
	             "...), got a list");
}

TEST(spec_bad_names)
{
	struct job_spec *s;

	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: MNIST\n"),
	                   "line 4, column 7: name: \"MNIST\" must be lowercase");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: 1mnist\n"),
	                   "name: \"1mnist\" must start with a lowercase letter");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: mnist_v2\n"),
	                   "may hold only lowercase letters, digits and '-' (found '_')");
	/* a character beyond ASCII is quoted whole, a control character or a byte that
	 * is no UTF-8 by number: never half a character (found by the hostile machine) */
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: \"m\xc3\xa9\"\n"), "(found '\xc3\xa9')");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: \"a\\u0085b\"\n"),
	                   "(found U+0085, a control character)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: \"a\\u0001b\"\n"),
	                   "(found U+0001, a control character)");
	/* an RLO would be a blank in the error file (textsafe.h): named by number too */
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: \"a\\u202Eb\"\n"),
	                   "(found U+202E, a bidirectional text control)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: mnist-\n"), "must end with a letter or a digit");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "name: "
	                                   "a234567890123456789012345678901234567890123456789x\n"),
	                   "is 50 characters long; at most 49 are allowed");
	s = PARSE(BASE "name: a234567890123456789012345678901234567890123456789\n", NULL,
	          SERVED_ALL);
	CHECK(s != NULL);
	spec_free(s);
	/* the staging entry's name, when the spec has none */
	CHECK_STR_CONTAINS(spec_test_error(__FILE__, __LINE__, BASE, "My_Job", SERVED_ALL),
	                   "name: the job is named after its file or directory, \"My_Job\", which "
	                   "must be lowercase");
	CHECK_STR_CONTAINS(spec_test_error(__FILE__, __LINE__, BASE, NULL, SERVED_ALL),
	                   "name: required (no file or directory name gives it: a spec.yaml "
	                   "directly in submit/ takes its name from name:)");
}

TEST(spec_unknown_or_unserved_type_lists_the_available_ones)
{
	CHECK_STR_EQ(spec_test_error(__FILE__, __LINE__, "type: tfjobs\nimage: x\ncommand: y\n",
	                             "mnist", SERVED_TF_PT),
	             "line 1, column 7: type: \"tfjobs\" is not a job type (did you mean tfjob?); "
	             "this cluster serves tfjob, pytorchjob");
	CHECK_STR_EQ(spec_test_error(__FILE__, __LINE__, "type: sparkjob\nimage: x\ncommand: y\n",
	                             "mnist", SERVED_TF_PT),
	             "line 1, column 7: type: sparkjob (SparkApplication) is listed by arenafs, not "
	             "submitted; this cluster serves tfjob, pytorchjob");
	CHECK_STR_EQ(spec_test_error(__FILE__, __LINE__, "type: sparkjobs\nimage: x\ncommand: y\n",
	                             "mnist", SERVED_TF_PT),
	             "line 1, column 7: type: \"sparkjobs\" is not a job type; this cluster serves "
	             "tfjob, pytorchjob");
	CHECK_STR_EQ(spec_test_error(__FILE__, __LINE__, "type: mpijob\nimage: x\ncommand: y\n",
	                             "mnist", SERVED_TF_PT),
	             "line 1, column 7: type: this cluster does not serve mpijob (no "
	             "mpijobs.kubeflow.org CRD); it serves tfjob, pytorchjob");
	CHECK_STR_EQ(SPEC_ERROR("type: trainjob\nimage: x\ncommand: y\n"),
	             "runtime: required for a trainjob: the ClusterTrainingRuntime that makes its "
	             "pods (e.g. runtime: torch-distributed), or TrainingRuntime/NAME");
	/* MPIJob v2beta1 alone still reads as mpijob */
	CHECK_STR_CONTAINS(spec_test_error(__FILE__, __LINE__,
	                                   "type: xgboostjob\nimage: x\n"
	                                   "command: y\n",
	                                   "mnist", SERVED_MPI_V2),
	                   "it serves tfjob, mpijob");
}

TEST(spec_type_specific_keys)
{
	struct job_spec *s;

	CHECK_STR_EQ(SPEC_ERROR("type: pytorchjob\nimage: x\ncommand: y\nps: 2\n"),
	             "line 4, column 1: ps: only a tfjob has parameter servers (this is a "
	             "pytorchjob)");
	CHECK_STR_CONTAINS(
	    SPEC_ERROR(BASE "slots_per_worker: 2\n"),
	    "slots_per_worker: only a mpijob has slots per worker (this is a tfjob)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "nproc_per_node: 2\n"),
	                   "nproc_per_node: only a pytorchjob has");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "workers: 0\n"),
	                   "workers: a tfjob needs at least one worker (or chief: 1)");
	s = PARSE(BASE "workers: 0\nchief: 1\n", "mnist", SERVED_ALL);
	CHECK(s != NULL);
	spec_free(s);
	CHECK_STR_CONTAINS(
	    SPEC_ERROR("type: pytorchjob\nimage: x\ncommand: y\nworkers: 0\n"),
	    "workers: must be at least 1 (it counts the Master, as Arena's --workers "
	    "does), got 0");
}

TEST(spec_quantities)
{
	const char *good[] = {"4",     "0.5", "1.5", "500m",  "8Gi",
	                      "512Mi", "8G",  "1e3", "\"2\"", ".5"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char text[256];
		struct job_spec *s;

		snprintf(text, sizeof(text), BASE "cpu: %s\nmemory: %s\n", good[i], good[i]);
		s = PARSE(text, "mnist", SERVED_ALL);
		CHECK(s != NULL);
		spec_free(s);
	}
	CHECK_STR_EQ(SPEC_ERROR(BASE "memory: 8GB\n"),
	             "line 4, column 9: memory: \"8GB\" is not a quantity; write it like 4, 1.5, "
	             "500m, 512Mi or 8Gi (Kubernetes writes bytes without the B: 8Gi or 8G)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "cpu: two\n"), "cpu: \"two\" is not a quantity");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "cpu: 1.2.3\n"), "cpu: \"1.2.3\" is not a quantity");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "cpu: -1\n"), "cpu: must not be negative, got -1");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "memory: [1Gi]\n"), "memory: expected a quantity");
}

TEST(spec_maps_check_their_keys_and_values)
{
	CHECK_STR_EQ(SPEC_ERROR(BASE "env: {1X: a}\n"),
	             "line 4, column 7: env: \"1X\" is not a valid environment variable name "
	             "(letters, digits, '_', '-' and '.', not a digit first)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "env: {workers: \"4\"}\n"),
	                   "env: workers is set by arenafs from the spec's workers: key");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "data: {Bad_PVC: /data}\n"),
	                   "data: \"Bad_PVC\" is not a PersistentVolumeClaim name");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "data: {pvc: data}\n"),
	                   "data.pvc: \"data\" is not an absolute mount path");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "data: {pvc: /a/../etc}\n"),
	                   "is not an absolute mount path");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "data_dir: {relative: /x}\n"),
	                   "data_dir: \"relative\" is not an absolute host path");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "labels: {team: \"a b\"}\n"),
	                   "labels.team: \"a b\" is not a valid label value");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "labels: {release: x}\n"),
	                   "labels: release is a label arenafs sets itself");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "annotations: {\"arenafs.io/spec\": x}\n"),
	                   "annotations: arenafs.io/spec is an annotation arenafs sets itself");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "selector: {\"bad key!\": x}\n"),
	                   "selector: \"bad key!\" is not a valid label key");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "priority: High\n"),
	                   "priority: \"High\" is not a PriorityClass name");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "image_pull_secrets: [Reg]\n"),
	                   "image_pull_secrets: expected Secret names");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "working_dir: root\n"),
	                   "working_dir: \"root\" is not an absolute path");
}

TEST(spec_mount_points_must_differ)
{
	struct job_spec *s;

	CHECK_STR_EQ(SPEC_ERROR(BASE "data: {a: /data}\ndata_dir: {/mnt: /data/}\n"),
	             "data_dir: mounts on /data, where data mounts already");
	CHECK_STR_CONTAINS(
	    SPEC_ERROR(BASE "data: {a: /dev/shm}\n"),
	    "share_memory (/dev/shm): mounts on /dev/shm, where data mounts already");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "data: {a: /root/code}\nsync: https://g/x.git\n"),
	                   "sync (working_dir/code): mounts on /root/code");
	s = PARSE(BASE "data: {a: /dev/shm}\nshare_memory: 0\n", "mnist", SERVED_ALL);
	CHECK(s != NULL);
	spec_free(s);
}

TEST(spec_tolerations_are_checked)
{
	CHECK_STR_EQ(SPEC_ERROR(BASE "tolerations: [{key: a, effect: NoSchedul}]\n"),
	             "line 4, column 32: tolerations[0].effect: \"NoSchedul\" is not one of "
	             "NoSchedule, PreferNoSchedule, NoExecute (did you mean NoSchedule?)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "tolerations:\n  - {key: a}\n  - {keys: b}\n"),
	                   "line 6, column 6: tolerations[1].keys: unknown toleration field (did "
	                   "you mean key?)");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "tolerations: [{operator: Exists, key: a, value: b}]\n"),
	                   "a toleration with operator Exists takes no value");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "tolerations: [{key: a, tolerationSeconds: 5}]\n"),
	                   "tolerationSeconds goes only with effect NoExecute");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "tolerations: {key: a}\n"),
	                   "tolerations: expected a list of tolerations, got a mapping");
}

TEST(spec_duplicate_key_is_an_error)
{
	CHECK_STR_EQ(SPEC_ERROR(BASE "gpus: 1\ngpus: 2\n"),
	             "line 5, column 1: duplicate key \"gpus\" (first at line 4, column 1)");
}

TEST(spec_sync_forms)
{
	struct job_spec *s;

	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "sync: {mode: svn, source: x}\n"),
	                   "sync.mode: \"svn\" is not one of git, rsync");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "sync: {mode: git}\n"), "sync: source: required");
	CHECK_STR_CONTAINS(SPEC_ERROR(BASE "sync: {mode: rsync, source: a::b, branch: x}\n"),
	                   "sync.branch: only mode git has a branch");
	s = PARSE(BASE "sync: git@github.com:org/repo.git\n", "mnist", SERVED_ALL);
	CHECK(s != NULL);
	spec_free(s);
}

TEST(spec_nulls_count_as_absent)
{
	json_t *job = JOB(BASE "gpus:\nenv: {A: ~}\nlogdir: null\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_env(job, "spec.tfReplicaSpecs.Chief.template.spec.containers[0]", "gpus"),
	             "0");
	CHECK_STR_EQ(jp_env(job, "spec.tfReplicaSpecs.Chief.template.spec.containers[0]", "A"), "");
	json_decref(job);
}

TEST(spec_annotation_holds_the_spec_with_its_name)
{
	const char *text = "# my job\n" BASE "gpus: 1\n";
	struct job_spec *s = PARSE(text, "mnist", SERVED_ALL);
	char want[512];

	if (!s)
		return;
	snprintf(want, sizeof(want), "name: mnist\n%s", text);
	CHECK_STR_EQ(spec_text(s), want);
	spec_free(s);
	/* with a name: as written, the same */
	s = PARSE("name: resnet\n" BASE, "resnet", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_text(s), "name: resnet\n" BASE);
	spec_free(s);
	/* a flow mapping takes the name inside; a document start line before it */
	s = PARSE("{type: tfjob, image: x, command: y}", "flow", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_text(s), "{name: flow, type: tfjob, image: x, command: y}");
	spec_free(s);
	s = PARSE("# c\n--- # start\n" BASE, "yes", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_text(s), "# c\n--- # start\nname: \"yes\"\n" BASE);
	spec_free(s);
	s = PARSE("--- {type: tfjob, image: x, command: y}\n", "odd", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_text(s), "--- {name: odd, type: tfjob, image: x, command: y}\n");
	spec_free(s);
}

/* Named after its entry, the stored spec says that name: its name: is replaced. */
static void check_renamed(const char *file, int line, const char *text, const char *name,
                          const char *want)
{
	struct job_spec *s = spec_test_parse(file, line, text, name, SERVED_ALL);

	if (!s)
		return;
	if (strcmp(spec_text(s), want) != 0)
		harness_fail(file, line, "stored spec:\n%s\nexpected:\n%s", spec_text(s), want);
	spec_free(s);
}

TEST(spec_annotation_says_the_entry_name)
{
	check_renamed(__FILE__, __LINE__, "name: resnet\n" BASE, "again", "name: again\n" BASE);
	check_renamed(__FILE__, __LINE__, BASE "name: \"resnet\" # the old one\n", "yes",
	              BASE "name: \"yes\" # the old one\n");
	check_renamed(__FILE__, __LINE__, "{type: tfjob, name: 'resnet', image: x, command: y}",
	              "again", "{type: tfjob, name: again, image: x, command: y}");
	check_renamed(__FILE__, __LINE__, "name: |-\n  resnet\n" BASE, "again",
	              "name: again\n" BASE);
	check_renamed(__FILE__, __LINE__, "name:\n" BASE, "again", "name: again\n" BASE);
	/* positions count characters: an é before the name is two bytes */
	check_renamed(__FILE__, __LINE__, "env: {A: \"\xC3\xA9\"}\nname: resnet\n" BASE, "again",
	              "env: {A: \"\xC3\xA9\"}\nname: again\n" BASE);
	check_renamed(__FILE__, __LINE__, "\xEF\xBB\xBFname: resnet\n" BASE, "again",
	              "\xEF\xBB\xBFname: again\n" BASE);
	/* a name from a merge key: an explicit one in front wins over it */
	check_renamed(__FILE__, __LINE__, "x-base: &b {name: resnet}\n<<: *b\n" BASE, "again",
	              "name: again\nx-base: &b {name: resnet}\n<<: *b\n" BASE);
	/* an anchored name used elsewhere: no edit keeps the meaning, so JSON */
	check_renamed(__FILE__, __LINE__, "name: &n resnet\nlabels: {model: *n}\n" BASE, "again",
	              "{\n  \"name\": \"again\",\n  \"labels\": {\n    \"model\": "
	              "\"resnet\"\n  },\n"
	              "  \"type\": \"tfjob\",\n  \"image\": \"tensorflow/tensorflow:2.15.0\",\n"
	              "  \"command\": \"python main.py\"\n}\n");
}

/* The job made from a spec under entry name, or NULL (after a failure). */
static json_t *job_of(const char *file, int line, const char *text, const char *name,
                      const bool *served)
{
	struct job_spec *s = spec_test_parse(file, line, text, name, served);
	struct k8s_error err;
	json_t *job = NULL;

	if (s && spec_build_job(s, "team-a", &job, &err) != 0)
		harness_fail(file, line, "build: %s", err.message);
	spec_free(s);
	return job;
}

static void check_same_job(const char *file, int line, const json_t *job, const json_t *job2)
{
	if (job && job2 && !json_equal(job, job2)) {
		char *a = json_dumps(job, JSON_COMPACT), *b = json_dumps(job2, JSON_COMPACT);

		harness_fail(file, line, "resubmitted job differs:\n  first:  %s\n  second: %s", a,
		             b);
		free(a);
		free(b);
	}
}

/*
 * The spec stored on the job, submitted again as it is named (submit/spec.yaml: no
 * entry name), makes the same job; under another entry name (a rerun) the job of
 * that name, whose stored spec says it.
 */
static void check_round_trip(const char *file, int line, const char *text, const bool *served)
{
	json_t *job = job_of(file, line, text, "mnist", served), *job2 = NULL, *rerun = NULL;
	const char *stored = job ? jp_str(job, "metadata.annotations[\"arenafs.io/spec\"]") : NULL;
	const char *again;

	if (!stored) {
		harness_fail(file, line, "no arenafs.io/spec annotation");
		goto out;
	}
	job2 = job_of(file, line, stored, NULL, served);
	check_same_job(file, line, job, job2);
	rerun = job_of(file, line, stored, "rerun", served);
	if (!rerun)
		goto out;
	if (strcmp(jp_str(rerun, "metadata.name"), "rerun") != 0)
		harness_fail(file, line, "rerun named %s", jp_str(rerun, "metadata.name"));
	again = jp_str(rerun, "metadata.annotations[\"arenafs.io/spec\"]");
	json_decref(job2);
	job2 = job_of(file, line, again ? again : "", NULL, served);
	check_same_job(file, line, rerun, job2);
out:
	json_decref(job);
	json_decref(job2);
	json_decref(rerun);
}

TEST(spec_round_trip_through_the_annotation)
{
	check_round_trip(__FILE__, __LINE__,
	                 "type: tfjob\nimage: tf\ncommand: |\n  cd /root/code\n  python main.py\n"
	                 "gpus: 1\nworkers: 2\nps: 1\nenv: {BATCH: 64}\ntensorboard: true\n"
	                 "data: {d: /data}\nlogdir: /data/logs\n",
	                 SERVED_ALL);
	check_round_trip(__FILE__, __LINE__,
	                 "---\ntype: mpijob\nimage: m\ncommand: mpirun x\nworkers: 2\n",
	                 SERVED_MPI_V2);
	check_round_trip(__FILE__, __LINE__,
	                 "name: resnet\ntype: pytorchjob\nimage: p\ncommand: x\nworkers: 4\n"
	                 "sync: {source: https://github.com/a/b.git}\n",
	                 SERVED_ALL);
}

TEST(spec_anchors_resolve_in_a_spec)
{
	/* x- keys are ignored: a place for anchors, as in docker compose files */
	json_t *job = JOB("x-resources: &r {cpu: 2, memory: 4Gi}\n" BASE
	                  "cpu: 1\nlabels: &l {team: ml}\nselector: *l\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Chief.template.spec.nodeSelector.team"),
	             "ml");
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Chief.template.spec.containers[0].resources."
	                         "limits.cpu"),
	             "1");
	json_decref(job);
	CHECK_STR_CONTAINS(SPEC_ERROR("defaults: &d {cpu: 2}\n" BASE),
	                   "line 1, column 1: defaults: unknown key");
}

/* ---- full manifests ---- */

static const char MANIFEST[] = "apiVersion: kubeflow.org/v1\n"
                               "kind: PyTorchJob\n"
                               "metadata:\n"
                               "  name: raw-job\n"
                               "  labels: {team: ml}\n"
                               "spec:\n"
                               "  pytorchReplicaSpecs:\n"
                               "    Master:\n"
                               "      replicas: 1\n"
                               "      template:\n"
                               "        spec:\n"
                               "          containers:\n"
                               "            - name: pytorch\n"
                               "              image: p\n";

TEST(spec_manifest_passes_through)
{
	struct job_spec *s = PARSE(MANIFEST, "file-name", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL;

	if (!s)
		return;
	CHECK(spec_is_manifest(s));
	CHECK(!spec_wants_tensorboard(s));
	CHECK_STR_EQ(spec_name(s), "file-name");
	CHECK_INT_EQ(spec_kind(s), JOB_PYTORCHJOB);
	CHECK_STR_EQ(spec_text(s), MANIFEST);
	CHECK_INT_EQ(spec_build_job(s, "team-a", &job, &err), 0);
	if (job) {
		/* the entry's name wins over metadata.name, as for a small spec */
		CHECK_STR_EQ(jp_str(job, "metadata.name"), "file-name");
		CHECK_STR_EQ(jp_str(job, "metadata.namespace"), "team-a");
		CHECK_STR_EQ(jp_str(job, "metadata.labels.team"), "ml");
		CHECK(jp(job, "metadata.annotations") == NULL);
		CHECK(jp(job, "metadata.labels.app") == NULL);
		CHECK_INT_EQ(jp_int(job, "spec.pytorchReplicaSpecs.Master.replicas"), 1);
		CHECK_STR_EQ(jp_str(job,
		                    "spec.pytorchReplicaSpecs.Master.template.spec.containers[0]."
		                    "image"),
		             "p");
		CHECK_INT_EQ(jp_size(job, ""), 4);
	}
	json_decref(job);
	spec_free(s);
	/* no entry name (submit/spec.yaml), or one that names no job: metadata.name */
	s = PARSE(MANIFEST, NULL, SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_name(s), "raw-job");
	spec_free(s);
	s = PARSE(MANIFEST, "raw_job", SERVED_ALL);
	if (s)
		CHECK_STR_EQ(spec_name(s), "raw-job");
	spec_free(s);
}

TEST(spec_manifest_namespace_and_name)
{
	char text[1024];
	struct job_spec *s;
	struct k8s_error err;
	json_t *job = NULL;

	snprintf(text, sizeof(text), "%s", MANIFEST);
	*strstr(text, "  name: raw-job\n") = '\0';
	strcat(text, "  namespace: other\nspec: {}\n");
	s = PARSE(text, "from-file", SERVED_ALL);
	if (!s)
		return;
	/* no metadata.name: the file's name */
	CHECK_STR_EQ(spec_name(s), "from-file");
	CHECK_INT_EQ(spec_build_job(s, "team-a", &job, &err), -EINVAL);
	CHECK(job == NULL);
	CHECK_STR_CONTAINS(err.message, "metadata.namespace: the manifest is for namespace "
	                                "\"other\", but this submit/ creates jobs in \"team-a\"; "
	                                "copy it to namespaces/other/submit/ (submit/ itself when "
	                                "other is the mount's namespace), or remove the field");
	CHECK_INT_EQ(spec_build_job(s, "other", &job, &err), 0);
	if (job)
		CHECK_STR_EQ(jp_str(job, "metadata.name"), "from-file");
	json_decref(job);
	spec_free(s);
}

TEST(spec_manifest_errors)
{
	CHECK_STR_CONTAINS(SPEC_ERROR("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: "
	                              "Bad_Name}\nspec: {}\n"),
	                   "line 3, column 18: metadata.name: \"Bad_Name\" must be lowercase");
	CHECK_STR_CONTAINS(SPEC_ERROR("apiVersion: apps/v1\nkind: Deployment\nspec: {}\n"),
	                   "line 2, column 7: kind: apiVersion apps/v1, kind Deployment is not a "
	                   "training job arenafs submits; it submits TFJob kubeflow.org/v1");
	/* a kind arenafs submits at another version: the fault is apiVersion, on its line */
	CHECK_STR_CONTAINS(SPEC_ERROR("apiVersion: trainer.kubeflow.org/v2alpha1\nkind: TrainJob\n"
	                        "spec: {}\n"),
	             "line 1, column 13: apiVersion: arenafs submits TrainJob as "
	             "trainer.kubeflow.org/v1alpha1 (served by this cluster), not as "
	             "trainer.kubeflow.org/v2alpha1");
	CHECK_STR_CONTAINS(
	    SPEC_ERROR("apiVersion: kubeflow.org/v1alpha1\nkind: MPIJob\nspec: {}\n"),
	    "line 1, column 13: apiVersion: arenafs submits MPIJob as kubeflow.org/v1 (served by "
	    "this cluster) or kubeflow.org/v2beta1 (not served by this cluster), not as "
	    "kubeflow.org/v1alpha1");
	CHECK_STR_CONTAINS(
	    spec_test_error(__FILE__, __LINE__,
	                    "apiVersion: trainer.kubeflow.org/v2alpha1\nkind: TrainJob\nspec: {}\n",
	                    "x", SERVED_TF_PT),
	    "apiVersion: arenafs submits TrainJob as trainer.kubeflow.org/v1alpha1 (not served by "
	    "this cluster), not as trainer.kubeflow.org/v2alpha1");
	CHECK_STR_CONTAINS(
	    spec_test_error(__FILE__, __LINE__,
	                    "apiVersion: kubeflow.org/v1\nkind: XGBoostJob\nspec: {}\n", "x",
	                    SERVED_TF_PT),
	    "kind: this cluster does not serve kubeflow.org/v1 XGBoostJob");
	CHECK_STR_CONTAINS(SPEC_ERROR("kind: TFJob\nspec: {}\n"),
	                   "apiVersion: a manifest needs both apiVersion and kind");
	CHECK_STR_CONTAINS(SPEC_ERROR("apiVersion: kubeflow.org/v1\nkind: TFJob\n"),
	                   "spec: required");
	CHECK_STR_CONTAINS(SPEC_ERROR("apiVersion: kubeflow.org/v1\nkind: TFJob\nspec: {}\n---\n"
	                              "apiVersion: v1\nkind: Service\n"),
	                   "line 4, column 1: a second YAML document starts here");
}

TEST(spec_oversized_spec_is_refused)
{
	const char head[] = "type: tfjob\nimage: x\ncommand: |\n";
	const char line[] = "  echo\n";
	size_t n = 300 * 1024, len = sizeof(head) - 1;
	char *text = malloc(n + sizeof(head) + sizeof(line));

	if (!text)
		return;
	memcpy(text, head, len);
	while (len < n) {
		memcpy(text + len, line, sizeof(line) - 1);
		len += sizeof(line) - 1;
	}
	text[len] = '\0';
	{
		struct job_spec *s = NULL;
		struct k8s_error err;

		/* EFBIG, the size first in words a user reads as "too big", then why */
		CHECK(spec_parse(text, len, "mnist", SERVED_ALL, &s, &err) == -EFBIG);
		CHECK(s == NULL);
		CHECK_STR_CONTAINS(err.message, "the spec is too large: ");
		CHECK_STR_CONTAINS(err.message, "allows 262144 bytes of annotations");
	}
	free(text);
}

/* A text of len bytes: head, then lines of filler. Caller frees. */
static char *padded(const char *head, const char *filler, const char *tail, size_t len)
{
	size_t n = strlen(head), f = strlen(filler), t = strlen(tail);
	char *text = malloc(len + f + t + 1);

	if (!text)
		return NULL;
	memcpy(text, head, n);
	while (n + t < len) {
		memcpy(text + n, filler, f);
		n += f;
	}
	memcpy(text + n, tail, t + 1);
	return text;
}

/* Only a manifest may be larger than the annotation a small spec is kept in: a longer
 * text that is none is refused for its size before it is read in full (its end here
 * is not even YAML, which a full read would have said first). */
TEST(spec_a_small_spec_is_refused_for_its_size_before_it_is_read)
{
	char *text = padded("type: tfjob\nimage: x\ncommand: y\nx-list:\n", "- &a v\n- *a\n",
	                    "x-end: [\n", 300 * 1024);
	struct job_spec *s = NULL;
	struct k8s_error err;

	if (!text)
		return;
	CHECK_INT_EQ(spec_parse(text, strlen(text), "big", SERVED_ALL, &s, &err), -EFBIG);
	CHECK(s == NULL);
	CHECK_STR_CONTAINS(err.message, "the spec is too large: ");
	CHECK_STR_CONTAINS(err.message, "only a manifest");
	free(text);
	/* a manifest of that size is read */
	text = padded("apiVersion: kubeflow.org/v1\nkind: TFJob\nspec:\n  x-list:\n",
	              "  - &a v\n  - *a\n", "", 300 * 1024);
	if (!text)
		return;
	CHECK_INT_EQ(spec_parse(text, strlen(text), "big", SERVED_ALL, &s, &err), 0);
	CHECK(s && spec_is_manifest(s));
	spec_free(s);
	free(text);
}

/* Every example of docs/spec.md that starts with type: parses and builds. */
TEST(spec_examples_of_the_docs_build)
{
	const char *root = getenv("ARENAFS_SRC");
	char path[4096], line[1024], block[8192];
	size_t blen = 0;
	int examples = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/docs/spec.md", root ? root : ".");
	f = fopen(path, "r");
	if (!f) {
		harness_fail(__FILE__, __LINE__, "cannot open %s", path);
		return;
	}
	for (;;) {
		bool more = fgets(line, sizeof(line), f) != NULL;
		bool code = more && strncmp(line, "    ", 4) == 0;

		if (code && (blen || strncmp(line, "    type: ", 10) == 0)) {
			size_t n = strlen(line + 4);

			if (blen + n < sizeof(block)) {
				memcpy(block + blen, line + 4, n);
				blen += n;
			}
			continue;
		}
		if (blen) {
			json_t *job;

			block[blen] = '\0';
			job = spec_test_job(__FILE__, __LINE__, block, SERVED_ALL);
			CHECK(job != NULL);
			json_decref(job);
			examples++;
			blen = 0;
		}
		if (!more)
			break;
	}
	fclose(f);
	CHECK(examples >= 7);
}

/* A trainjob takes the keys its TrainJob has room for, runtime and nodes its own. */
TEST(spec_trainjob_keys_and_rules)
{
	static const char TJ[] = "type: trainjob\nruntime: torch-distributed\nimage: x\n"
	                           "command: y\n";
	char text[256];

	snprintf(text, sizeof(text), "%sworkers: 2\n", TJ);
	CHECK_STR_EQ(SPEC_ERROR(text),
	             "line 5, column 1: workers: a trainjob takes only type, name, runtime, image, "
	             "command, shell, gpus, nodes, cpu, memory, env, labels, annotations and queue: its "
	             "runtime makes the pods (a manifest can say more)");
	snprintf(text, sizeof(text), "%stensorboard: true\n", TJ);
	CHECK_STR_CONTAINS(SPEC_ERROR(text), "tensorboard: a trainjob takes only");
	snprintf(text, sizeof(text), "%snodes: 0\n", TJ);
	CHECK_STR_EQ(SPEC_ERROR(text), "line 5, column 8: nodes: must be at least 1, got 0");
	CHECK_STR_EQ(SPEC_ERROR("type: tfjob\nimage: x\ncommand: y\nnodes: 2\n"),
	             "line 4, column 1: nodes: only a trainjob has nodes (the other types count "
	             "workers) (this is a tfjob)");
	CHECK_STR_EQ(SPEC_ERROR("type: tfjob\nimage: x\ncommand: y\nruntime: torch\n"),
	             "line 4, column 1: runtime: only a trainjob has a runtime (this is a tfjob)");
	CHECK_STR_EQ(SPEC_ERROR("type: trainjob\nruntime: Foo/torch\nimage: x\ncommand: y\n"),
	             "line 2, column 10: runtime: \"Foo/torch\": expected NAME (a "
	             "ClusterTrainingRuntime) or TrainingRuntime/NAME");
	CHECK_STR_CONTAINS(
	    SPEC_ERROR("type: trainjob\nruntime: Torch_X\nimage: x\ncommand: y\n"),
	    "runtime: \"Torch_X\" ");
	/* not served: said as for every type */
	CHECK_STR_EQ(spec_test_error(__FILE__, __LINE__, TJ, "mnist", SERVED_TF_PT),
	             "line 1, column 7: type: this cluster does not serve trainjob (no "
	             "trainjobs.trainer.kubeflow.org CRD); it serves tfjob, pytorchjob");
}
