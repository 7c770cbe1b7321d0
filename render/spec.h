/*
 * The small job spec of SPEC.md section 4: parsing (libyaml), validation, and
 * the objects it becomes, matching what `arena submit` creates for the same
 * flags. Pure: no I/O; the caller (fs/submit.c) creates the objects.
 *
 * Errors are EINVAL with a message a user can act on: the YAML line and column,
 * the key that is wrong and why, the types the cluster offers.
 */
#ifndef ARENAFS_RENDER_SPEC_H
#define ARENAFS_RENDER_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"
#include "k8s/kinds.h"

struct job_spec;

/* The annotation holding the small spec on the job, for spec.yaml and resubmission. */
#define SPEC_ANNOTATION "arenafs.io/spec"

/*
 * Parses and validates text. default_name (the staging entry's name) is used when
 * the spec has no `name:` (a manifest: no metadata.name). A full manifest
 * (apiVersion + kind of a supported job) is accepted as it stands. served: the
 * kinds the cluster offers (kinds_discover); NULL means every kind (MPIJob: v1).
 * Errors: -EINVAL with err->message "line L, column C: KEY: what is wrong", or
 * -ENOMEM. The format is documented in docs/spec.md.
 */
int spec_parse(const char *text, size_t len, const char *default_name,
	       const bool served[JOB_KIND_COUNT], struct job_spec **out, struct k8s_error *err);
void spec_free(struct job_spec *s);

const char *spec_name(const struct job_spec *s);
enum job_kind spec_kind(const struct job_spec *s);
bool spec_wants_tensorboard(const struct job_spec *s);
/* The text was a full manifest (created as it stands, no SPEC_ANNOTATION added). */
bool spec_is_manifest(const struct job_spec *s);
/* What the job's SPEC_ANNOTATION holds: the spec as written, with a `name:` line
 * put in front when the name came from default_name (so resubmitting it under any
 * file name makes the same job). For a manifest: the text as given. Owned by s. */
const char *spec_text(const struct job_spec *s);

/* The job object for namespace ns; caller owns it. */
int spec_build_job(const struct job_spec *s, const char *ns, json_t **out, struct k8s_error *err);
/*
 * The TensorBoard Deployment and NodePort Service, owned by created_job (the job as
 * the API server returned it: its uid goes into ownerReferences). Only when
 * spec_wants_tensorboard(). Caller owns both.
 */
int spec_build_tensorboard(const struct job_spec *s, const char *ns, const json_t *created_job,
			   json_t **deployment, json_t **service, struct k8s_error *err);

#endif
