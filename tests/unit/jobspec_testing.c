/* Test helper for the spec tests (see jobspec_testing.h). */
#include "tests/unit/jobspec_testing.h"

#include <errno.h>
#include <string.h>

#include "tests/unit/harness.h"

const bool SERVED_ALL[JOB_KIND_COUNT] = {
    [JOB_TFJOB] = true,     [JOB_PYTORCHJOB] = true, [JOB_MPIJOB] = true,   [JOB_XGBOOSTJOB] = true,
    [JOB_PADDLEJOB] = true, [JOB_JAXJOB] = true,     [JOB_TRAINJOB] = true,
};
const bool SERVED_MPI_V2[JOB_KIND_COUNT] = {
    [JOB_TFJOB] = true,
    [JOB_MPIJOB_V2] = true,
};
const bool SERVED_TF_PT[JOB_KIND_COUNT] = {
    [JOB_TFJOB] = true,
    [JOB_PYTORCHJOB] = true,
};

struct job_spec *spec_test_parse(const char *file, int line, const char *text,
                                 const char *default_name, const bool *served)
{
	struct job_spec *s = NULL;
	struct k8s_error err;
	int rc = spec_parse(text, strlen(text), default_name, served, &s, &err);

	if (rc != 0) {
		harness_fail(file, line, "spec_parse = %d: %s\n  spec:\n%s", rc, err.message, text);
		return NULL;
	}
	return s;
}

json_t *spec_test_job(const char *file, int line, const char *text, const bool *served)
{
	struct job_spec *s = spec_test_parse(file, line, text, "mnist", served);
	struct k8s_error err;
	json_t *job = NULL;
	int rc;

	if (!s)
		return NULL;
	rc = spec_build_job(s, "team-a", &job, &err);
	if (rc != 0)
		harness_fail(file, line, "spec_build_job = %d: %s", rc, err.message);
	spec_free(s);
	return job;
}

const char *spec_test_error(const char *file, int line, const char *text, const char *default_name,
                            const bool *served)
{
	static struct k8s_error err;
	struct job_spec *s = NULL;
	int rc = spec_parse(text, strlen(text), default_name, served, &s, &err);

	if (rc != -EINVAL) {
		harness_fail(file, line, "spec_parse = %d, expected -EINVAL (%s)\n  spec:\n%s", rc,
		             rc ? err.message : "accepted", text);
		spec_free(s);
		return "";
	}
	if (err.err != EINVAL)
		harness_fail(file, line, "err.err = %d, expected EINVAL", err.err);
	return err.message;
}
