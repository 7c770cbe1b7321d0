/*
 * A full manifest in submit/ (docs/spec.md: "created as it stands"): only
 * what must hold before it reaches the API server is checked here (a supported,
 * served kind; a name the training-operator accepts; the namespace), the rest is
 * left to the server's own validation (the dryRun create of fs/submit/submit_run.c).
 *
 * Pure: no I/O. Called by spec.c and build.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/manifest.h"
#include "render/jobspec/validate.h"
#include "render/jobspec/values.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "k8s/names.h"

/* "TFJob (kubeflow.org/v1), ..." for messages. */
static void supported_kinds(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info(k);

		if (ki->read_only)
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s %s/%s", n ? ", " : "",
		                      ki->kind_name, ki->group, ki->version);
	}
}

/* "kubeflow.org/v1 (served by this cluster) or kubeflow.org/v2beta1 (...)": the
 * versions arenafs submits kind at; false when it submits no kind of that name. */
static bool submitted_versions(const char *kind, const bool *served, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info(k);

		if (ki->read_only || strcmp(ki->kind_name, kind) != 0)
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s/%s%s", n ? " or " : "",
		                      ki->group, ki->version,
		                      !served     ? ""
		                      : served[k] ? " (served by this cluster)"
		                                  : " (not served by this cluster)");
	}
	return n > 0;
}

static int check_kind(struct spec_ctx *c, const char *api, const char *kind)
{
	const struct yaml_node_info *at = yaml_doc_member(c->doc, c->root, "kind");
	char list[512];
	int k = kinds_by_api(api, kind);

	/* a kind it submits, at a version it does not: the fault is apiVersion's */
	if (k < 0 && submitted_versions(kind, c->served, list, sizeof(list)))
		return spec_fail(c, yaml_doc_member(c->doc, c->root, "apiVersion"), false,
		                 "apiVersion", "arenafs submits %s as %s, not as %s", kind, list, api);
	if (k < 0 || kinds_info(k)->read_only) {
		supported_kinds(list, sizeof(list));
		return spec_fail(c, at, false, "kind",
		                 "apiVersion %s, kind %s is not a training job arenafs submits; it "
		                 "submits %s",
		                 api, kind, list);
	}
	if (c->served && !c->served[k]) {
		const struct job_kind_info *ki = kinds_info(k);

		spec_served_types(c->served, list, sizeof(list));
		return spec_fail(c, at, false, "kind",
		                 "this cluster does not serve %s/%s %s (no %s.%s CRD at that "
		                 "version); the types it serves: %s",
		                 ki->group, ki->version, ki->kind_name, ki->plural, ki->group,
		                 *list ? list : "none");
	}
	c->s->kind = (enum job_kind)k;
	return 0;
}

static int check_metadata(struct spec_ctx *c, json_t *manifest)
{
	json_t *meta = json_object_get(manifest, "metadata");
	const json_t *meta_in = json_object_get(c->root, "metadata");
	const json_t *name, *ns;
	char buf[128], got[96];
	const char *why;
	int rc;

	if (meta && !json_is_object(meta)) {
		spec_describe(meta, yaml_doc_member(c->doc, c->root, "metadata"), got, sizeof(got));
		return spec_fail(c, yaml_doc_member(c->doc, c->root, "metadata"), false, "metadata",
		                 "expected a mapping, got %s", got);
	}
	name = meta ? json_object_get(meta, "name") : NULL;
	if (name && !json_is_string(name)) {
		spec_describe(name, yaml_doc_member(c->doc, meta_in, "name"), got, sizeof(got));
		return spec_fail(c, yaml_doc_member(c->doc, meta_in, "name"), false,
		                 "metadata.name", "expected a string, got %s", got);
	}
	if (name) {
		why = spec_name_problem(json_string_value(name), K8S_DNS1123_LABEL_MAX, buf,
		                        sizeof(buf));
		if (why)
			return spec_fail(
			    c, yaml_doc_member(c->doc, meta_in, "name"), false, "metadata.name",
			    "\"%s\" %s (the training operators take DNS-1035 labels: a "
			    "lowercase letter first, then lowercase letters, digits and "
			    "'-', at most %d)",
			    json_string_value(name), why, K8S_DNS1123_LABEL_MAX);
		c->s->name = strdup(json_string_value(name));
		if (!c->s->name)
			return k8s_error_set(c->err, ENOMEM, "out of memory");
	}
	/* the entry's name wins over metadata.name, as over a small spec's name: */
	rc = spec_choose_name(c, K8S_DNS1123_LABEL_MAX);
	if (rc < 0)
		return rc;
	if (!meta) {
		meta = json_object();
		if (!meta || json_object_set_new(manifest, "metadata", meta) < 0)
			return k8s_error_set(c->err, ENOMEM, "out of memory");
	}
	if (json_object_set_new(meta, "name", json_string(c->s->name)) < 0)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	ns = json_object_get(meta, "namespace");
	if (ns && (!json_is_string(ns) || !k8s_is_dns1123_label(json_string_value(ns)))) {
		spec_describe(ns, yaml_doc_member(c->doc, meta_in, "namespace"), got, sizeof(got));
		return spec_fail(c, yaml_doc_member(c->doc, meta_in, "namespace"), false,
		                 "metadata.namespace", "%s is not a namespace name", got);
	}
	return 0;
}

int spec_validate_manifest(struct spec_ctx *c)
{
	const json_t *api = json_object_get(c->root, "apiVersion");
	const json_t *kind = json_object_get(c->root, "kind");
	const json_t *spec = json_object_get(c->root, "spec");
	json_t *manifest;
	int rc;

	if (!json_is_string(api) || !json_is_string(kind))
		return spec_fail(c, yaml_doc_member(c->doc, c->root, api ? "kind" : "apiVersion"),
		                 true, api ? "kind" : "apiVersion",
		                 "a manifest needs both apiVersion and kind as strings (a small "
		                 "spec has neither: it starts with type:)");
	rc = check_kind(c, json_string_value(api), json_string_value(kind));
	if (rc < 0)
		return rc;
	if (!json_is_object(spec))
		return spec_fail(c, yaml_doc_member(c->doc, c->root, "spec"), false, "spec",
		                 "required: a %s manifest holds its replicas under spec:",
		                 json_string_value(kind));
	manifest = json_deep_copy(c->root);
	if (!manifest)
		return k8s_error_set(c->err, ENOMEM, "out of memory");
	rc = check_metadata(c, manifest);
	if (rc < 0) {
		json_decref(manifest);
		return rc;
	}
	c->s->manifest = manifest;
	return 0;
}

int spec_build_manifest(const struct job_spec *s, const char *ns, json_t **out,
                        struct k8s_error *err)
{
	json_t *job = json_deep_copy(s->manifest);
	json_t *meta = job ? json_object_get(job, "metadata") : NULL;
	const char *have;

	*out = NULL;
	if (!meta) {
		json_decref(job);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	have = json_string_value(json_object_get(meta, "namespace"));
	if (have && strcmp(have, ns) != 0) {
		int rc = k8s_error_set(err, EINVAL,
		                       "metadata.namespace: the manifest is for namespace \"%s\", "
		                       "but this submit/ creates jobs in \"%s\"; copy it to "
		                       "namespaces/%s/submit/ (submit/ itself when %s is the mount's "
		                       "namespace), or remove the field",
		                       have, ns, have, have);

		json_decref(job);
		return rc;
	}
	if (!have && json_object_set_new(meta, "namespace", json_string(ns)) < 0) {
		json_decref(job);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	*out = job;
	return 0;
}
