/*
 * libFuzzer target: a user's spec, as copied into submit/ (spec/, the spec
 * compiler and its YAML reader): spec_parse, then spec_build_job of what it
 * accepts. Neither may crash, leak or read out of bounds, whatever the bytes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/error.h"
#include "render/jobspec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool served[JOB_KIND_COUNT];
	struct job_spec *s = NULL;
	struct k8s_error err;
	json_t *job = NULL;

	for (int k = 0; k < JOB_KIND_COUNT; k++)
		served[k] = true;
	if (spec_parse((const char *)data, size, "fuzz", served, &s, &err) == 0) {
		if (spec_build_job(s, "default", &job, &err) == 0)
			json_decref(job);
		spec_free(s);
	}
	return 0;
}
