/*
 * The TensorBoard of `tensorboard: true`: a Deployment and a NodePort Service
 * named <job>-tensorboard, as Arena's charts make them (labels role=tensorboard,
 * release=<job>, app=<type>; port 6006; the pod placed beside the job's main pod,
 * whose node holds the logs when they are on no volume), owned by the job the
 * API server created (its uid), so that deleting the job collects both.
 *
 * Pure: no I/O. spec_build_tensorboard is called by fs/submit/submit_run.c after the job
 * exists.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/tensorboard.h"
#include "render/jobspec/build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does the log dir live on this mount point? */
static bool logs_under(const char *logdir, const char *mount)
{
	size_t n = strlen(mount);

	return strncmp(logdir, mount, n) == 0 && (logdir[n] == '\0' || logdir[n] == '/');
}

/*
 * Where TensorBoard reads the logs: the hostPath the job writes them to (mounted
 * at Arena's /output/training_logs), or the data volume that holds the log dir,
 * mounted where the job mounts it. Fills volumes, mounts and the --logdir value.
 */
static int log_volume(const struct job_spec *s, const char *ns, json_t *vols, json_t *mounts,
                      const char **logdir)
{
	const char *key;
	json_t *v;
	int rc = 0;

	if (s->local_logs) {
		*logdir = SPEC_TB_LOCAL_LOGDIR;
		rc |= json_array_append_new(vols, spec_host_log_volume(s, ns));
		rc |= json_array_append_new(mounts,
		                            json_pack("{s:s, s:s}", "name", "training-logs-volume",
		                                      "mountPath", SPEC_TB_LOCAL_LOGDIR));
		return rc < 0 ? -ENOMEM : 0;
	}
	*logdir = s->logdir;
	json_object_foreach(s->data, key, v) if (logs_under(s->logdir, json_string_value(v)))
	{
		rc |= json_array_append_new(vols,
		                            json_pack("{s:s, s:{s:s}}", "name", "logs",
		                                      "persistentVolumeClaim", "claimName", key));
		rc |= json_array_append_new(
		    mounts, json_pack("{s:s, s:O}", "name", "logs", "mountPath", v));
		return rc < 0 ? -ENOMEM : 0;
	}
	json_object_foreach(s->data_dir, key, v) if (logs_under(s->logdir, json_string_value(v)))
	{
		rc |= json_array_append_new(
		    vols, json_pack("{s:s, s:{s:s}}", "name", "logs", "hostPath", "path", key));
		rc |= json_array_append_new(
		    mounts, json_pack("{s:s, s:O}", "name", "logs", "mountPath", v));
		return rc < 0 ? -ENOMEM : 0;
	}
	return 0;
}

/* Required podAffinity to pod 0 of the main replica, as Arena's charts pin it. */
static json_t *affinity(const struct job_spec *s)
{
	bool mpi_v2 = s->kind == JOB_MPIJOB_V2;
	/* mpi-operator v2 labels roles with job-role; the training-operator with
	 * replica-type */
	json_t *match = json_pack("{s:s, s:s, s:s}", "training.kubeflow.org/job-name", s->name,
	                          mpi_v2 ? "training.kubeflow.org/job-role"
	                                 : "training.kubeflow.org/replica-type",
	                          spec_main_replica(s), "training.kubeflow.org/replica-index", "0");

	return json_pack("{s:{s:[{s:{s:o}, s:s}]}}", "podAffinity",
	                 "requiredDuringSchedulingIgnoredDuringExecution", "labelSelector",
	                 "matchLabels", match, "topologyKey", "kubernetes.io/hostname");
}

static json_t *tb_pod_spec(const struct job_spec *s, const char *ns)
{
	json_t *vols = json_array(), *mounts = json_array();
	json_t *spec = json_object(), *container;
	const char *logdir = s->logdir;
	int rc = vols && mounts && spec ? log_volume(s, ns, vols, mounts, &logdir) : -ENOMEM;

	container = rc == 0 ? json_pack("{s:s, s:s, s:s, s:[s, s, s, s, s], s:[{s:i}]}", "name",
	                                "tensorboard", "image", s->tensorboard_image,
	                                "imagePullPolicy", s->pull_policy, "command", "tensorboard",
	                                "--logdir", logdir, "--host", "0.0.0.0", "ports",
	                                "containerPort", SPEC_TENSORBOARD_PORT)
	                    : NULL;
	if (!container)
		rc = -ENOMEM;
	if (rc == 0 && json_array_size(mounts))
		rc = json_object_set(container, "volumeMounts", mounts);
	if (rc == 0 && s->tolerations && json_array_size(s->tolerations))
		rc = json_object_set(spec, "tolerations", s->tolerations);
	if (rc == 0 && s->priority)
		rc = json_object_set_new(spec, "priorityClassName", json_string(s->priority));
	if (rc == 0 && s->pull_secrets && json_array_size(s->pull_secrets))
		rc = json_object_set_new(spec, "imagePullSecrets", spec_pull_secrets(s));
	if (rc == 0)
		rc = json_object_set_new(spec, "affinity", affinity(s));
	if (rc == 0 && json_array_size(vols))
		rc = json_object_set(spec, "volumes", vols);
	if (rc == 0)
		rc = json_object_set_new(spec, "containers", json_pack("[O]", container));
	json_decref(container);
	json_decref(vols);
	json_decref(mounts);
	if (rc != 0) {
		json_decref(spec);
		return NULL;
	}
	return spec;
}

int spec_owner_ref(const struct job_spec *s, const json_t *job, json_t **out,
                   struct k8s_error *err)
{
	const json_t *meta = json_object_get(job, "metadata");
	const char *api = json_string_value(json_object_get(job, "apiVersion"));
	const char *kind = json_string_value(json_object_get(job, "kind"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *uid = json_string_value(json_object_get(meta, "uid"));

	if (!api || !kind || !name || !uid || !*uid)
		return k8s_error_set(err, EINVAL,
		                     "the created job lacks apiVersion, kind, metadata.name or "
		                     "metadata.uid; nothing can be owned by it");
	if (strcmp(name, s->name) != 0)
		return k8s_error_set(err, EINVAL,
		                     "the created job is \"%s\", not this spec's \"%s\"", name,
		                     s->name);
	/* blockOwnerDeletion: a foreground delete of the job waits for these */
	*out = json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", api, "kind", kind,
	                 "name", name, "uid", uid, "controller", 1, "blockOwnerDeletion", 1);
	return *out ? 0 : k8s_error_set(err, ENOMEM, "out of memory");
}

int spec_build_tensorboard(const struct job_spec *s, const char *ns, const json_t *created_job,
                           json_t **deployment, json_t **service, struct k8s_error *err)
{
	json_t *owners = NULL, *labels = NULL, *selector = NULL, *pod_labels = NULL, *spec;
	char name[128];
	int rc;

	*deployment = NULL;
	*service = NULL;
	if (!spec_wants_tensorboard(s))
		return k8s_error_set(err, EINVAL, "the spec asks for no TensorBoard");
	rc = spec_owner_ref(s, created_job, &owners, err);
	if (rc < 0)
		return rc;
	snprintf(name, sizeof(name), "%s-tensorboard", s->name);
	labels = spec_base_labels(s);
	selector = json_pack("{s:s, s:s, s:s}", "app", kinds_info(s->kind)->type, "release",
	                     s->name, "role", "tensorboard");
	pod_labels = json_deep_copy(selector);
	rc = labels && selector && pod_labels &&
	             json_object_set_new(labels, "role", json_string("tensorboard")) == 0 &&
	             json_object_set_new(pod_labels, SPEC_LABEL_SUBMITTED_BY,
	                                 json_string(SPEC_SUBMITTED_BY_VALUE)) == 0
	         ? 0
	         : -ENOMEM;
	spec = rc == 0 ? tb_pod_spec(s, ns) : NULL;
	if (spec)
		*deployment = json_pack(
		    "{s:s, s:s, s:{s:s, s:s, s:O, s:O}, s:{s:i, s:{s:O}, s:{s:{s:O}, s:o}}}",
		    "apiVersion", "apps/v1", "kind", "Deployment", "metadata", "name", name,
		    "namespace", ns, "labels", labels, "ownerReferences", owners, "spec",
		    "replicas", 1, "selector", "matchLabels", selector, "template", "metadata",
		    "labels", pod_labels, "spec", spec);
	if (*deployment)
		*service = json_pack(
		    "{s:s, s:s, s:{s:s, s:s, s:O, s:O}, s:{s:s, s:[{s:s, s:i, "
		    "s:i, s:s}], s:O}}",
		    "apiVersion", "v1", "kind", "Service", "metadata", "name", name, "namespace",
		    ns, "labels", labels, "ownerReferences", owners, "spec", "type", "NodePort",
		    "ports", "name", "tensorboard", "port", SPEC_TENSORBOARD_PORT, "targetPort",
		    SPEC_TENSORBOARD_PORT, "protocol", "TCP", "selector", selector);
	json_decref(owners);
	json_decref(labels);
	json_decref(selector);
	json_decref(pod_labels);
	if (!*service) {
		json_decref(*deployment);
		*deployment = NULL;
		return k8s_error_set(err, ENOMEM, "out of memory building the TensorBoard objects");
	}
	return 0;
}
