/*
 * spec/: the spec compiler, a user's spec YAML → Kubernetes objects (the other
 * direction from render/'s objects → text). The small job spec of docs/spec.md:
 * parsing (libyaml), validation, and the objects it becomes, matching
 * what `arena submit` creates for the same flags; a full manifest is checked and
 * taken as it stands. Pure: no I/O, no locks, no clock; the caller
 * (fs/submit/submit_run.c) creates the objects. Unit-tested in tests/unit/test_jobspec_*.c.
 *
 *   spec.c         spec_parse: YAML, small spec or full manifest, the annotation text
 *   values.c       checkers for one value each (int, string, quantity, maps, names)
 *   validate.c     the keys of the small spec and the per-type rules
 *   errors.c       a small spec's mistakes, all of them, in line order
 *   lists.c        the structured keys: tolerations, pull secrets, sync, commands
 *   manifest.c     full manifests: checks and the job as given
 *   job.c          spec_build_job: the manifest's, the TrainJob's or the small spec's job
 *   build.c        the job object of a small spec, and the pieces trainjob.c shares
 *   asks.c         what a job object asks of the cluster (PriorityClasses, queue, runtime)
 *   trainjob.c     the TrainJob of a small spec of type trainjob
 *   tensorboard.c  the TensorBoard Deployment and Service
 *   code.c         local code: the ConfigMap and its mount in every replica
 *   yaml_parse.c   YAML → JSON with positions (render/jobspec/yaml_parse.h)
 *   yaml_scalar.c  one scalar's YAML 1.1 value, for yaml_parse.c
 *   yaml_anchors.c the anchors of a document being read, by name, for yaml_parse.c
 *   yaml_probe.c   a text's top-level keys from events alone, before reading it
 *
 * What they share and nobody else sees is in render/jobspec/spec_internal.h.
 *
 * Errors are EINVAL with a message a user can act on: the YAML line and column,
 * the key that is wrong and why, the types the cluster offers.
 */
#ifndef ARENAFS_SPEC_SPEC_H
#define ARENAFS_SPEC_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"
#include "k8s/objects/kinds.h"

struct job_spec;

/* The annotation holding the small spec on the job, for spec.yaml and resubmission. */
#define SPEC_ANNOTATION "arenafs.io/spec"
/* The label that puts a job in a Kueue LocalQueue (the small spec's `queue:`; a
 * manifest's own labels stand). */
#define SPEC_QUEUE_LABEL KUEUE_QUEUE_LABEL

/* The annotation listing the job's local code (render/jobspec/code.c), and the label of its
 * ConfigMap (value: the job's name). */
#define SPEC_CODE_ANNOTATION "arenafs.io/code"

/*
 * Parses and validates text. entry_name (the staging entry's name: NAME of
 * submit/NAME.yaml or submit/NAME/spec.yaml) names the job when it is a valid job
 * name, winning over the spec's `name:` (a manifest's metadata.name); otherwise,
 * or when NULL, the spec's own name is used, and without one it is an error. A
 * full manifest (apiVersion + kind of a supported job) is accepted as it stands,
 * bar its name. served: the kinds the cluster offers (kinds_discover); NULL means
 * every kind (MPIJob: v1).
 * Errors: -EINVAL with err->message "line L, column C: KEY: what is wrong" (a
 * small spec: every mistake so, in line order, joined by "; "), or -ENOMEM. The
 * format is documented in docs/spec.md.
 */
int spec_parse(const char *text, size_t len, const char *entry_name,
	       const bool served[JOB_KIND_COUNT], struct job_spec **out, struct k8s_error *err);
void spec_free(struct job_spec *s);

const char *spec_name(const struct job_spec *s);
enum job_kind spec_kind(const struct job_spec *s);
bool spec_wants_tensorboard(const struct job_spec *s);
/* The text was a full manifest (created as it stands, no SPEC_ANNOTATION added). */
bool spec_is_manifest(const struct job_spec *s);
/* What the job's SPEC_ANNOTATION holds: the spec as written, saying the job's name
 * (its `name:` value replaced, or a `name:` line put in front, when the name came
 * from entry_name), so that it names the job it made. For a manifest: the text as
 * given (not stored on the job). Owned by s. */
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

/* One file of local code: path relative to the code directory, '/'-separated. */
struct spec_code_file {
	const char *path;
	const char *data;
	size_t len;
	unsigned mode; /* permission bits: executable ones stay executable */
};

/* Where local code is mounted and, unless the spec says otherwise, worked in. */
const char *spec_code_dir(const struct job_spec *s);
/*
 * Mounts the ConfigMap NAME-code holding files (read-only, at spec_code_dir) in
 * every container of every replica of job (spec_build_job's, or a manifest's), sets
 * their workingDir to it unless the spec chose one, and lists the files in the
 * job's SPEC_CODE_ANNOTATION. -EFBIG when that list is too long, -ENOMEM.
 */
int spec_add_code(const struct job_spec *s, json_t *job, const struct spec_code_file *files,
		  size_t n, struct k8s_error *err);
/* The ConfigMap itself, immutable, owned by created_job (NULL: no owner, for a dry
 * run before the job exists). Caller owns *out. */
int spec_build_code(const struct job_spec *s, const char *ns, const json_t *created_job,
		    const struct spec_code_file *files, size_t n, json_t **out,
		    struct k8s_error *err);
/* Does stored (the API server's answer to the create of the ConfigMap sent, from
 * spec_build_code) hold the same files, byte for byte? 0, or -EIO with the first key
 * that differs in key. */
int spec_code_stored(const json_t *sent, const json_t *stored, char *key, size_t size);

#endif
