/*
 * The job object of a validated small spec, matching what Arena 0.15's charts
 * (charts/tfjob, pytorchjob, mpijob) render for the same flags: labels app,
 * release and createdBy on the job and its pod templates, the command run as
 * [shell, -c, command] in the working dir, env workers/gpus (and
 * NVIDIA_VISIBLE_DEVICES=void without GPUs), nvidia.com/gpu and cpu/memory as
 * requests and limits, PVC and hostPath volumes, the git-sync init container
 * writing into an emptyDir mounted at $working_dir/code, a 2Gi /dev/shm, node
 * selector, tolerations, priorityClassName, image pull secrets, and the
 * operators' runPolicy. Where the charts target an old operator (MPIJob
 * v1alpha1) the same intent is written in the served API's shape.
 *
 * Pure: no I/O. spec_build_small is called by job.c (spec_build_job).
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/names.h"

/* One replica type of the job. */
struct role {
	const char *type; /* the replica spec's key: "Worker" */
	long long replicas;
	const char *restart; /* ReplicaSpec.restartPolicy */
	long long gpus;      /* nvidia.com/gpu of each pod */
	bool cpu_memory;     /* the spec's cpu/memory apply */
	bool logs;           /* mounts the TensorBoard log hostPath (Arena: not PS, Evaluator) */
	bool run_command;    /* run [shell, -c, command]; else exec or the image's own */
	const char *const *exec;   /* a fixed command instead (mpi-operator v2 workers) */
	const char *shell_command; /* run_command: what to run (the command, or worker_command) */
};

/* The operators' default port per kind (training-operator SetDefaults). */
static const struct {
	enum job_kind kind;
	const char *name;
	int port;
} PORTS[] = {
    {JOB_TFJOB, "tfjob-port", 2222},           {JOB_PYTORCHJOB, "pytorchjob-port", 23456},
    {JOB_XGBOOSTJOB, "xgboostjob-port", 9999}, {JOB_PADDLEJOB, "master", 36543},
    {JOB_JAXJOB, "jaxjob-port", 6666},
};

/* mpi-operator v2beta1 launchers reach workers over ssh: workers run sshd (its examples). */
static const char *const MPI_V2_WORKER_EXEC[] = {"/usr/sbin/sshd", "-De", NULL};

static json_t *str_array(const char *const *words)
{
	json_t *a = json_array();

	for (; a && *words; words++)
		if (json_array_append_new(a, json_string(*words)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *copy_or_empty(const json_t *obj)
{
	return obj ? json_deep_copy(obj) : json_object();
}

json_t *spec_base_labels(const struct job_spec *s)
{
	const struct job_kind_info *ki = kinds_info(s->kind);

	return json_pack("{s:s, s:s, s:s, s:s}", "app", ki->type, "release", s->name, "createdBy",
	                 ki->kind_name, SPEC_LABEL_SUBMITTED_BY, SPEC_SUBMITTED_BY_VALUE);
}

json_t *spec_pull_secrets(const struct job_spec *s)
{
	json_t *list = json_array();
	json_t *name;
	size_t i;

	json_array_foreach(
	    s->pull_secrets, i,
	    name) if (!list || json_array_append_new(list, json_pack("{s:O}", "name", name)) < 0)
	{
		json_decref(list);
		return NULL;
	}
	return list;
}

static char *host_log_path(const struct job_spec *s, const char *ns)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s/%s", SPEC_HOST_LOG_ROOT, ns, s->name) < 0)
		return NULL;
	return p;
}

json_t *spec_host_log_volume(const struct job_spec *s, const char *ns)
{
	char *path = host_log_path(s, ns);
	json_t *vol;

	if (!path)
		return NULL;
	/* DirectoryOrCreate: Arena leaves the type empty, which fails on runtimes
	 * that do not create a missing bind source */
	vol = json_pack("{s:s, s:{s:s, s:s}}", "name", "training-logs-volume", "hostPath", "path",
	                path, "type", "DirectoryOrCreate");
	free(path);
	return vol;
}

/* Labels of the job and its pod templates: Arena's, arenafs', then the spec's. */
static json_t *job_labels(const struct job_spec *s)
{
	json_t *l = spec_base_labels(s);

	if (l && s->labels && json_object_update(l, s->labels) < 0) {
		json_decref(l);
		return NULL;
	}
	return l;
}

/* Annotations of the pod templates (Arena copies the job's): the spec's, the
 * requested GPUs, and what the kind adds. */
static json_t *pod_annotations(const struct job_spec *s, long long request_gpus, bool no_tf_config)
{
	json_t *a = copy_or_empty(s->annotations);
	char n[32];

	snprintf(n, sizeof(n), "%lld", request_gpus);
	if (!a || json_object_set_new(a, SPEC_ANNOT_REQUEST_GPUS, json_string(n)) < 0 ||
	    (no_tf_config &&
	     json_object_set_new(a, SPEC_ANNOT_DISABLE_TF_CFG, json_string("true")) < 0)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static int env_add(json_t *env, const char *name, const char *value)
{
	return json_array_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* The spec's env (in its order), then what Arena injects. */
static json_t *build_env(const struct job_spec *s, const struct role *r)
{
	json_t *env = json_array();
	const char *key;
	json_t *v;
	char n[32];
	int rc = env ? 0 : -1;

	json_object_foreach(s->env, key, v) rc |= env_add(env, key, json_string_value(v));
	snprintf(n, sizeof(n), "%lld", s->workers);
	rc |= env_add(env, "workers", n);
	snprintf(n, sizeof(n), "%lld", s->gpus);
	rc |= env_add(env, "gpus", n);
	/* without a GPU limit the NVIDIA runtime would expose every GPU of the node */
	if (r->gpus == 0 && !json_object_get(s->env, "NVIDIA_VISIBLE_DEVICES"))
		rc |= env_add(env, "NVIDIA_VISIBLE_DEVICES", "void");
	if (s->nproc_per_node && !json_object_get(s->env, "PET_NPROC_PER_NODE"))
		rc |= env_add(env, "PET_NPROC_PER_NODE", s->nproc_per_node);
	if (rc < 0) {
		json_decref(env);
		return NULL;
	}
	return env;
}

json_t *spec_resources(const struct job_spec *s, long long gpus, bool cpu_memory, bool *oom)
{
	json_t *req = json_object(), *res;
	char n[32];
	int rc = req ? 0 : -1;

	if (gpus > 0) {
		snprintf(n, sizeof(n), "%lld", gpus);
		rc |= json_object_set_new(req, "nvidia.com/gpu", json_string(n));
	}
	if (cpu_memory && s->cpu)
		rc |= json_object_set_new(req, "cpu", json_string(s->cpu));
	if (cpu_memory && s->memory)
		rc |= json_object_set_new(req, "memory", json_string(s->memory));
	if (rc < 0 || !json_object_size(req)) {
		*oom = rc < 0;
		json_decref(req);
		return NULL;
	}
	res = json_pack("{s:O, s:o}", "requests", req, "limits", req);
	*oom = !res;
	return res;
}

/* Volume names of the data PVCs: the PVC's own when it is a valid, free volume
 * name (as Arena names them), else pvc-<i>. */
static json_t *pvc_volume_names(const struct job_spec *s)
{
	json_t *names = json_array();
	const char *pvc;
	json_t *v;
	size_t i = 0;

	json_object_foreach(s->data, pvc, v)
	{
		char alt[64];
		const char *name = pvc;
		bool taken = !k8s_is_dns1123_label(pvc) || strcmp(pvc, "code-sync") == 0 ||
		             strcmp(pvc, "dshm") == 0 || strcmp(pvc, "training-logs-volume") == 0 ||
		             strncmp(pvc, "training-data-", 14) == 0 ||
		             strncmp(pvc, "pvc-", 4) == 0;

		if (taken) {
			snprintf(alt, sizeof(alt), "pvc-%zu", i);
			name = alt;
		}
		if (!names || json_array_append_new(names, json_string(name)) < 0) {
			json_decref(names);
			return NULL;
		}
		i++;
	}
	return names;
}

static char *code_mount_path(const struct job_spec *s)
{
	char *p = NULL;

	if (asprintf(&p, "%s%s", strcmp(s->working_dir, "/") ? s->working_dir : "",
	             SPEC_SYNC_SUBDIR) < 0)
		return NULL;
	return p;
}

/* Volumes and the main container's mounts, in one order. */
static int build_volumes(const struct job_spec *s, const char *ns, const struct role *r,
                         json_t *vols, json_t *mounts)
{
	json_t *pvc_names = pvc_volume_names(s);
	char *code = s->has_sync ? code_mount_path(s) : NULL;
	bool local_logs = s->tensorboard && s->local_logs && r->logs;
	const char *key;
	json_t *v;
	size_t i = 0;
	int rc = pvc_names ? 0 : -1;

	if (s->has_sync) {
		rc |= json_array_append_new(
		    vols, json_pack("{s:s, s:{}}", "name", "code-sync", "emptyDir"));
		rc |= code
		          ? json_array_append_new(mounts, json_pack("{s:s, s:s}", "name",
		                                                    "code-sync", "mountPath", code))
		          : -1;
	}
	json_object_foreach(s->data, key, v)
	{
		const char *name = json_string_value(json_array_get(pvc_names, i++));

		rc |= json_array_append_new(vols,
		                            json_pack("{s:s, s:{s:s}}", "name", name,
		                                      "persistentVolumeClaim", "claimName", key));
		rc |= json_array_append_new(mounts,
		                            json_pack("{s:s, s:O}", "name", name, "mountPath", v));
	}
	i = 0;
	json_object_foreach(s->data_dir, key, v)
	{
		char name[32];

		/* Arena's names for --data-dir volumes */
		snprintf(name, sizeof(name), "training-data-%zu", i++);
		rc |= json_array_append_new(
		    vols, json_pack("{s:s, s:{s:s}}", "name", name, "hostPath", "path", key));
		rc |= json_array_append_new(mounts,
		                            json_pack("{s:s, s:O}", "name", name, "mountPath", v));
	}
	if (s->share_memory) {
		rc |= json_array_append_new(vols, json_pack("{s:s, s:{s:s, s:s}}", "name", "dshm",
		                                            "emptyDir", "medium", "Memory",
		                                            "sizeLimit", s->share_memory));
		rc |= json_array_append_new(
		    mounts, json_pack("{s:s, s:s}", "name", "dshm", "mountPath", "/dev/shm"));
	}
	if (local_logs) {
		rc |= json_array_append_new(vols, spec_host_log_volume(s, ns));
		rc |= json_array_append_new(mounts,
		                            json_pack("{s:s, s:s}", "name", "training-logs-volume",
		                                      "mountPath", s->logdir));
	}
	json_decref(pvc_names);
	free(code);
	return rc < 0 ? -ENOMEM : 0;
}

/* Arena's init-code container: git-sync (or rsync) into the shared emptyDir. */
static json_t *build_init_container(const struct job_spec *s, const struct role *r)
{
	json_t *env = build_env(s, r);
	bool oom = false;
	json_t *res = spec_resources(s, 0, true, &oom);
	json_t *c;
	int rc = env && !oom ? 0 : -1;

	if (rc == 0 && strcmp(s->sync.mode, "git") == 0) {
		rc |= env_add(env, "GIT_SYNC_REPO", s->sync.source);
		rc |= env_add(env, "GIT_SYNC_DEST", s->sync.project);
		rc |= env_add(env, "GIT_SYNC_ROOT", SPEC_SYNC_ROOT);
		rc |= env_add(env, "GIT_SYNC_ONE_TIME", "true");
		if (s->sync.branch)
			rc |= env_add(env, "GIT_SYNC_BRANCH", s->sync.branch);
	}
	c = rc == 0
	        ? json_pack("{s:s, s:s, s:s, s:o, s:[{s:s, s:s}]}", "name", "init-code", "image",
	                    s->sync.image, "imagePullPolicy", s->pull_policy, "env", env,
	                    "volumeMounts", "name", "code-sync", "mountPath", SPEC_SYNC_ROOT)
	        : NULL;
	if (rc != 0)
		json_decref(env);
	if (c && strcmp(s->sync.mode, "rsync") == 0 &&
	    json_object_set_new(
	        c, "command",
	        json_pack("[s, s, s, s]", "rsync", "-avP", s->sync.source, SPEC_SYNC_ROOT)) < 0)
		rc = -1;
	if (c && res && json_object_set(c, "resources", res) < 0)
		rc = -1;
	json_decref(res);
	if (rc != 0 && c) {
		json_decref(c);
		c = NULL;
	}
	return c;
}

static json_t *build_container(const struct job_spec *s, const char *ns, const struct role *r,
                               json_t *vols)
{
	const struct job_kind_info *ki = kinds_info(s->kind);
	json_t *mounts = json_array();
	json_t *env = build_env(s, r);
	bool oom = false;
	json_t *res = spec_resources(s, r->gpus, r->cpu_memory, &oom);
	json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "name", ki->container, "image", s->image,
	                      "imagePullPolicy", s->pull_policy, "workingDir", s->working_dir);
	int rc = mounts && env && c && !oom ? 0 : -1;

	if (rc == 0 && r->run_command)
		rc |= json_object_set_new(c, "command",
		                          json_pack("[s, s, s]", s->shell, "-c", r->shell_command));
	else if (rc == 0 && r->exec)
		rc |= json_object_set_new(c, "command", str_array(r->exec));
	if (rc == 0)
		rc |= json_object_set(c, "env", env);
	if (rc == 0 && res)
		rc |= json_object_set(c, "resources", res);
	for (size_t i = 0; rc == 0 && i < sizeof(PORTS) / sizeof(PORTS[0]); i++)
		if (PORTS[i].kind == s->kind)
			rc |= json_object_set_new(c, "ports",
			                          json_pack("[{s:s, s:i}]", "name", PORTS[i].name,
			                                    "containerPort", PORTS[i].port));
	if (rc == 0)
		rc |= build_volumes(s, ns, r, vols, mounts);
	if (rc == 0 && json_array_size(mounts))
		rc |= json_object_set(c, "volumeMounts", mounts);
	json_decref(mounts);
	json_decref(env);
	json_decref(res);
	if (rc != 0) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static json_t *build_pod_template(const struct job_spec *s, const char *ns, const struct role *r,
                                  const json_t *labels, const json_t *annotations)
{
	json_t *vols = json_array();
	json_t *spec = json_object();
	json_t *container = vols ? build_container(s, ns, r, vols) : NULL;
	json_t *tpl;
	int rc = spec && container ? 0 : -1;

	if (rc == 0 && s->selector && json_object_size(s->selector))
		rc |= json_object_set(spec, "nodeSelector", s->selector);
	if (rc == 0 && s->tolerations && json_array_size(s->tolerations))
		rc |= json_object_set(spec, "tolerations", s->tolerations);
	if (rc == 0 && s->priority)
		rc |= json_object_set_new(spec, "priorityClassName", json_string(s->priority));
	if (rc == 0 && s->pull_secrets && json_array_size(s->pull_secrets))
		rc |= json_object_set_new(spec, "imagePullSecrets", spec_pull_secrets(s));
	if (rc == 0 && json_array_size(vols))
		rc |= json_object_set(spec, "volumes", vols);
	if (rc == 0 && s->has_sync)
		rc |= json_object_set_new(spec, "initContainers",
		                          json_pack("[o]", build_init_container(s, r)));
	if (rc == 0)
		rc |= json_object_set_new(spec, "containers", json_pack("[o]", container));
	else
		json_decref(container);
	json_decref(vols);
	tpl = rc == 0 ? json_pack("{s:{s:O, s:O}, s:o}", "metadata", "labels", labels,
	                          "annotations", annotations, "spec", spec)
	              : NULL;
	if (!tpl && rc != 0)
		json_decref(spec);
	return tpl;
}

/* ---- the kinds ---- */

struct plan {
	struct role roles[4];
	size_t nroles;
	const char *clean_default; /* Arena's --clean-task-policy default, or NULL */
	bool backoff_always;       /* Arena's chart writes backoffLimit: retry */
	long long request_gpus;
	bool no_tf_config; /* TFJob standalone mode */
};

static void add_role(struct plan *p, const char *type, long long replicas, const char *restart,
                     long long gpus)
{
	struct role *r = &p->roles[p->nroles++];

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->replicas = replicas;
	r->restart = restart;
	r->gpus = gpus;
	r->cpu_memory = true;
	r->logs = true;
	r->run_command = true;
}

/* What Arena makes of the counts, per kind (pkg/argsbuilder, charts/). */
static void plan_job(const struct job_spec *s, struct plan *p)
{
	long long n = s->workers, g = s->gpus;

	memset(p, 0, sizeof(*p));
	switch (s->kind) {
	case JOB_TFJOB: {
		long long chief = s->chief, workers = n;

		/* Arena's standalone mode: one worker and no PS runs as a lone Chief
		 * without TF_CONFIG */
		if (s->ps < 1 && workers == 1) {
			chief = 1;
			workers = 0;
			p->no_tf_config = true;
		}
		if (s->ps > 0) {
			add_role(p, "PS", s->ps, "Never", 0);
			p->roles[p->nroles - 1].logs = false;
		}
		if (workers > 0)
			add_role(p, "Worker", workers, chief ? "OnFailure" : "Never", g);
		if (chief)
			add_role(p, "Chief", 1, "Never", g);
		if (s->evaluator) {
			add_role(p, "Evaluator", 1, "Never", g);
			p->roles[p->nroles - 1].logs = false;
		}
		p->clean_default = "Running";
		p->request_gpus = (chief + s->evaluator + workers) * g;
		break;
	}
	case JOB_PYTORCHJOB:
	case JOB_XGBOOSTJOB:
		/* --workers counts the Master: Worker replicas are N-1 */
		add_role(p, "Master", 1, "Never", g);
		if (n > 1)
			add_role(p, "Worker", n - 1,
			         s->kind == JOB_PYTORCHJOB ? "OnFailure" : "Never", g);
		p->clean_default = s->kind == JOB_PYTORCHJOB ? "Running" : NULL;
		p->backoff_always = s->kind == JOB_PYTORCHJOB;
		p->request_gpus = n * g;
		break;
	case JOB_MPIJOB:
	case JOB_MPIJOB_V2:
		add_role(p, "Launcher", 1, "Never", 0);
		p->roles[0].cpu_memory = false;
		add_role(p, "Worker", n, "Never", g);
		if (s->worker_command) {
			p->roles[1].shell_command = s->worker_command;
		} else {
			/* v1: the operator makes workers `sleep 365d` and execs into them;
			 * v2beta1: the launcher ssh-es into them */
			p->roles[1].run_command = false;
			p->roles[1].exec = s->kind == JOB_MPIJOB_V2 ? MPI_V2_WORKER_EXEC : NULL;
		}
		p->clean_default = "All";
		p->backoff_always = true;
		p->request_gpus = n * g;
		break;
	default: /* PaddleJob, JAXJob: workers only */
		add_role(p, "Worker", n, "Never", g);
		p->request_gpus = n * g;
		break;
	}
	for (size_t i = 0; i < p->nroles; i++)
		if (!p->roles[i].shell_command)
			p->roles[i].shell_command = s->command;
}

static json_t *build_run_policy(const struct job_spec *s, const struct plan *p)
{
	const char *clean = s->clean_pod_policy ? s->clean_pod_policy : p->clean_default;
	json_t *rp = json_object();
	int rc = rp ? 0 : -1;

	if (rc == 0 && clean)
		rc |= json_object_set_new(rp, "cleanPodPolicy", json_string(clean));
	if (rc == 0 && s->has_ttl)
		rc |= json_object_set_new(rp, "ttlSecondsAfterFinished", json_integer(s->ttl));
	if (rc == 0 && s->has_deadline)
		rc |= json_object_set_new(rp, "activeDeadlineSeconds", json_integer(s->deadline));
	if (rc == 0 && (s->has_retry || p->backoff_always))
		rc |= json_object_set_new(rp, "backoffLimit", json_integer(s->retry));
	if (rc != 0) {
		json_decref(rp);
		return NULL;
	}
	return rp;
}

static json_t *job_annotations(const struct job_spec *s, const json_t *pod_annot)
{
	json_t *a = json_deep_copy(pod_annot);

	if (!a || json_object_set_new(a, SPEC_ANNOTATION, json_string(s->text)) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int spec_build_small(const struct job_spec *s, const char *ns, json_t **out)
{
	const struct job_kind_info *ki = kinds_info(s->kind);
	json_t *labels = job_labels(s), *pod_annot = NULL, *annot = NULL;
	json_t *replicas = json_object(), *spec = NULL, *job = NULL;
	char api[128];
	struct plan p;
	int rc;

	plan_job(s, &p);
	pod_annot = pod_annotations(s, p.request_gpus, p.no_tf_config);
	annot = pod_annot ? job_annotations(s, pod_annot) : NULL;
	rc = labels && replicas && annot ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < p.nroles; i++) {
		const struct role *r = &p.roles[i];
		json_t *tpl = build_pod_template(s, ns, r, labels, pod_annot);

		rc |= json_object_set_new(replicas, r->type,
		                          json_pack("{s:I, s:s, s:o}", "replicas",
		                                    (json_int_t)r->replicas, "restartPolicy",
		                                    r->restart, "template", tpl));
	}
	if (rc == 0)
		spec = json_pack("{s:o}", "runPolicy", build_run_policy(s, &p));
	if (spec && (s->kind == JOB_MPIJOB || s->kind == JOB_MPIJOB_V2))
		rc |=
		    json_object_set_new(spec, "slotsPerWorker", json_integer(s->slots_per_worker));
	if (spec && rc == 0)
		rc |= json_object_set(spec, ki->replica_field, replicas);
	snprintf(api, sizeof(api), "%s/%s", ki->group, ki->version);
	if (spec && rc == 0)
		job = json_pack("{s:s, s:s, s:{s:s, s:s, s:O, s:O}, s:o}", "apiVersion", api,
		                "kind", ki->kind_name, "metadata", "name", s->name, "namespace", ns,
		                "labels", labels, "annotations", annot, "spec", spec);
	else
		json_decref(spec);
	json_decref(labels);
	json_decref(pod_annot);
	json_decref(annot);
	json_decref(replicas);
	if (!job)
		return -ENOMEM;
	*out = job;
	return 0;
}

const char *spec_main_replica(const struct job_spec *s)
{
	switch (s->kind) {
	case JOB_TFJOB:
		return s->chief || (s->ps < 1 && s->workers == 1) ? "chief" : "worker";
	case JOB_PYTORCHJOB:
	case JOB_XGBOOSTJOB:
		return "master";
	default:
		return "worker";
	}
}
