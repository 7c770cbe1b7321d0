/*
 * Tests render/jobspec/errors.c through spec_parse: a small spec's mistakes are all
 * reported at once, in line order, the unplaced ones (a key missing) last; a
 * refused value is not blamed twice; a long list ends with "and N more" within
 * one error message; a manifest still reports its first mistake; the pointer to the
 * spec's keys names where make install (PREFIX) puts docs/spec.md.
 */
#include "gen/docdir.h"
#include "render/jobspec/spec.h"
#include "tests/unit/harness.h"
#include "tests/unit/jobspec_testing.h"

#include <stdio.h>
#include <string.h>

/* The spec: three mistakes, the last one by line found first before. */
TEST(spec_errors_every_mistake_in_line_order)
{
	CHECK_STR_EQ(SPEC_ERROR("type: tfjob\n"
	                        "image: tensorflow/tensorflow:2.15.0\n"
	                        "command: python main.py\n"
	                        "gpus: two\n"
	                        "workrs: 2\n"
	                        "memory: 4GG\n"),
	             "line 4, column 7: gpus: expected an integer, got \"two\"; "
	             "line 5, column 1: workrs: unknown key (did you mean workers?); "
	             "line 6, column 9: memory: \"4GG\" is not a quantity; write it like 4, 1.5, "
	             "500m, 512Mi or 8Gi");
}

/* A key missing has no line: it comes after the mistakes that have one. */
TEST(spec_errors_missing_keys_come_last)
{
	CHECK_STR_EQ(SPEC_ERROR("type: tfjob\ngpus: -1\n"),
	             "line 2, column 7: gpus: must be at least 0, got -1; "
	             "image: required: the container image to run (e.g. image: "
	             "tensorflow/tensorflow:2.15.0-gpu); "
	             "command: required: what the containers run, with sh -c (e.g. command: "
	             "python /root/code/main.py)");
}

/* A wrong type is reported with the others; what only one type has is not judged
 * without a type. */
TEST(spec_errors_a_wrong_type_does_not_hide_the_rest)
{
	const char *m = SPEC_ERROR("type: tfjobb\nimage: x\ncommand: y\nps: 1\ncpu: lots\n");

	CHECK_STR_CONTAINS(m, "line 1, column 7: type: \"tfjobb\" is not a job type (did you "
	                      "mean tfjob?)");
	CHECK_STR_CONTAINS(m, "; line 5, column 6: cpu: \"lots\" is not a quantity");
	CHECK(!strstr(m, "ps:"));
}

/* A value refused is not blamed again by the rules about it (workers: -1 is not
 * also "must be at least 1"), nor a sync: refused by the defaults after it. */
TEST(spec_errors_a_refused_value_is_reported_once)
{
	const char *m = SPEC_ERROR("type: pytorchjob\nimage: x\ncommand: y\nworkers: -1\n"
	                           "sync: {mode: svn, source: x}\nname: Big\n");

	CHECK_STR_CONTAINS(m, "line 4, column 10: workers: must be at least 0, got -1; ");
	CHECK_STR_CONTAINS(m, "; line 5, column 14: sync.mode: \"svn\" is not one of git, rsync");
	CHECK_STR_CONTAINS(m, "; line 6, column 7: name: \"Big\" must be lowercase");
	CHECK(!strstr(m, "at least 1"));
}

/* Forty mistakes: as many as one message holds, then how many more there are. */
TEST(spec_errors_a_long_list_ends_with_how_many_more)
{
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof(text), "type: tfjob\nimage: x\ncommand: y\n");
	const char *m;

	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "unknown_key_number_%02d: 1\n", i);
	m = SPEC_ERROR(text);
	CHECK_STR_CONTAINS(m, "line 4, column 1: unknown_key_number_00: unknown key");
	CHECK(strstr(m, " more") && strstr(m, "; and "));
	CHECK(strlen(m) < 2048);
	CHECK(!strstr(m, "unknown_key_number_39"));
}

/* A manifest is the API's to judge: its first mistake alone, as before. */
TEST(spec_errors_a_manifest_reports_its_first)
{
	const char *m = SPEC_ERROR("apiVersion: kubeflow.org/v1\nkind: TFJob\n");

	CHECK_STR_CONTAINS(m, "spec: required");
	CHECK(!strstr(m, "; "));
}

/* A key no guess fits sends the user to the keys' list, in the sources and where it
 * is installed (the Makefile's PREFIX: /usr/share/doc/arenafs for the package). */
TEST(spec_errors_point_at_the_installed_docs)
{
	CHECK_STR_CONTAINS(SPEC_ERROR("type: tfjob\nimage: x\ncommand: y\nflavour: large\n"),
	                   "line 4, column 1: flavour: unknown key; the spec's keys are listed in "
	                   "docs/spec.md (installed as " ARENAFS_DOC_DIR "/spec.md) (type, image,");
	CHECK_STR_CONTAINS(ARENAFS_DOC_DIR, "/share/doc/arenafs");
}
