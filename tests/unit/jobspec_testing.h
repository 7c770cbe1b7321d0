/*
 * Test helper for the spec tests: parse a spec and build its job in one call,
 * failing the running test (with the error message) when either fails.
 */
#ifndef ARENAFS_TEST_SPEC_TESTING_H
#define ARENAFS_TEST_SPEC_TESTING_H

#include <stdbool.h>

#include <jansson.h>

#include "render/jobspec/spec.h"

/* Kinds served in the tests: everything with MPIJob v1; with MPIJob v2beta1 only;
 * a cluster with only the TFJob and PyTorchJob CRDs. */
extern const bool SERVED_ALL[JOB_KIND_COUNT];
extern const bool SERVED_MPI_V2[JOB_KIND_COUNT];
extern const bool SERVED_TF_PT[JOB_KIND_COUNT];

/* spec_parse that must succeed; NULL (and a failed test) otherwise. */
struct job_spec *spec_test_parse(const char *file, int line, const char *text,
                                 const char *default_name, const bool *served);
/* spec_parse + spec_build_job in namespace "team-a"; the job, or NULL. */
json_t *spec_test_job(const char *file, int line, const char *text, const bool *served);
/* spec_parse that must fail with EINVAL; the message (static buffer), or "". */
const char *spec_test_error(const char *file, int line, const char *text, const char *default_name,
                            const bool *served);

#define PARSE(text, name, served) spec_test_parse(__FILE__, __LINE__, text, name, served)
#define JOB(text)                 spec_test_job(__FILE__, __LINE__, text, SERVED_ALL)
#define JOB_ON(text, served)      spec_test_job(__FILE__, __LINE__, text, served)
#define SPEC_ERROR(text)          spec_test_error(__FILE__, __LINE__, text, "mnist", SERVED_ALL)

#endif
