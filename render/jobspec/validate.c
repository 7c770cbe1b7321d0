/*
 * The small spec (docs/spec.md): its keys, their types and defaults, and
 * the rules between them (per job type), into a validated struct job_spec.
 * docs/spec.md is the user's side of this file: keep the two together.
 *
 * Pure: no I/O. Called by spec.c; build.c turns the result into a job.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/validate.h"
#include "render/jobspec/errors.h"
#include "render/jobspec/lists.h"
#include "render/jobspec/values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/suggest.h"
#include "k8s/names.h"

typedef int (*key_handler)(struct spec_ctx *c, const char *key, const json_t *v,
                           const struct yaml_node_info *at);

struct key_def {
	const char *name;
	key_handler check;
	int only_kind; /* -1: every type; else the one kind (MPI: both) it belongs to */
	const char *only_why;
};

/* ---- simple keys ---- */

static int h_name(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at)
{
	char buf[128];
	const char *why;
	char *name = NULL;
	int rc = spec_get_string(c, key, v, at, &name);

	if (rc < 0)
		return rc;
	why = spec_name_problem(name, SPEC_NAME_MAX, buf, sizeof(buf));
	if (why) {
		rc = spec_fail(c, at, false, key,
		               "\"%s\" %s (a job name is a DNS-1035 label: a lowercase letter "
		               "first, then lowercase letters, digits and '-'; at most %d "
		               "characters, as Arena allows)",
		               name, why, SPEC_NAME_MAX);
		free(name);
		return rc;
	}
	free(c->s->name);
	c->s->name = name;
	return 0;
}

static int h_image(struct spec_ctx *c, const char *key, const json_t *v,
                   const struct yaml_node_info *at)
{
	char **dst = strcmp(key, "image") == 0 ? &c->s->image : &c->s->tensorboard_image;
	int rc = spec_get_string(c, key, v, at, dst);

	if (rc < 0)
		return rc;
	if (!**dst || strpbrk(*dst, " \t\r\n"))
		return spec_fail(c, at, false, key,
		                 "\"%s\" is not an image reference (e.g. "
		                 "tensorflow/tensorflow:2.15.0-gpu)",
		                 *dst);
	return 0;
}

static int h_text(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at)
{
	char **dst = strcmp(key, "command") == 0 ? &c->s->command
	             : strcmp(key, "shell") == 0 ? &c->s->shell
	                                         : &c->s->worker_command;
	char *s = NULL;
	int rc = json_is_array(v) && dst != &c->s->shell ? spec_command_list(c, key, v, &s)
	                                                 : spec_get_string(c, key, v, at, &s);

	if (rc < 0)
		return rc;
	if (strspn(s, " \t\r\n") == strlen(s)) {
		free(s);
		return spec_fail(c, at, false, key, "is empty");
	}
	free(*dst);
	*dst = s;
	return 0;
}

static int h_path(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at)
{
	char **dst = strcmp(key, "working_dir") == 0 ? &c->s->working_dir
	             : strcmp(key, "code_dir") == 0  ? &c->s->code_dir
	                                             : &c->s->logdir;
	char *p = NULL;
	int rc = spec_get_path(c, key, v, at, &p);

	if (rc < 0)
		return rc;
	free(*dst);
	*dst = p;
	return 0;
}

static int h_count(struct spec_ctx *c, const char *key, const json_t *v,
                   const struct yaml_node_info *at)
{
	struct job_spec *s = c->s;

	if (strcmp(key, "gpus") == 0)
		return spec_get_int(c, key, v, at, 0, 1024, &s->gpus);
	if (strcmp(key, "workers") == 0 || strcmp(key, "nodes") == 0)
		return spec_get_int(c, key, v, at, 0, 10000, &s->workers);
	if (strcmp(key, "ps") == 0)
		return spec_get_int(c, key, v, at, 0, 10000, &s->ps);
	if (strcmp(key, "slots_per_worker") == 0)
		return spec_get_int(c, key, v, at, 1, 1024, &s->slots_per_worker);
	s->has_retry = true;
	return spec_get_int(c, key, v, at, 0, 0x7fffffffLL, &s->retry);
}

/* chief/evaluator: Arena's --chief/--evaluator are switches; 0/1 or false/true here. */
static int h_switch(struct spec_ctx *c, const char *key, const json_t *v,
                    const struct yaml_node_info *at)
{
	long long *dst = strcmp(key, "chief") == 0 ? &c->s->chief : &c->s->evaluator;
	bool on;

	if (json_is_boolean(v)) {
		int rc = spec_get_bool(c, key, v, at, &on);

		*dst = on;
		return rc;
	}
	if (json_is_integer(v) && json_integer_value(v) > 1)
		return spec_fail(c, at, false, key,
		                 "a TFJob has at most one %s (0 or 1, or false/true), got %lld",
		                 strcmp(key, "chief") == 0 ? "Chief" : "Evaluator",
		                 (long long)json_integer_value(v));
	return spec_get_int(c, key, v, at, 0, 1, dst);
}

static int h_quantity(struct spec_ctx *c, const char *key, const json_t *v,
                      const struct yaml_node_info *at)
{
	char **dst = strcmp(key, "cpu") == 0      ? &c->s->cpu
	             : strcmp(key, "memory") == 0 ? &c->s->memory
	                                          : &c->s->share_memory;
	char *q = NULL;
	int rc = spec_get_quantity(c, key, v, at, &q);

	if (rc < 0)
		return rc;
	free(*dst);
	*dst = q;
	/* share_memory: 0 turns the /dev/shm volume off */
	if (dst == &c->s->share_memory && strspn(q, "0.") == strlen(q)) {
		free(*dst);
		*dst = NULL;
	}
	return 0;
}

static int h_seconds(struct spec_ctx *c, const char *key, const json_t *v,
                     const struct yaml_node_info *at)
{
	if (strcmp(key, "ttl_after_finished") == 0) {
		c->s->has_ttl = true;
		return spec_get_seconds(c, key, v, at, &c->s->ttl);
	}
	c->s->has_deadline = true;
	return spec_get_seconds(c, key, v, at, &c->s->deadline);
}

static int h_tensorboard(struct spec_ctx *c, const char *key, const json_t *v,
                         const struct yaml_node_info *at)
{
	return spec_get_bool(c, key, v, at, &c->s->tensorboard);
}

static int h_priority(struct spec_ctx *c, const char *key, const json_t *v,
                      const struct yaml_node_info *at)
{
	int rc = spec_get_string(c, key, v, at, &c->s->priority);

	if (rc == 0 && !k8s_is_dns1123_subdomain(c->s->priority))
		return spec_fail(c, at, false, key,
		                 "\"%s\" is not a PriorityClass name (lowercase letters, digits, "
		                 "'-' and '.')",
		                 c->s->priority);
	return rc;
}

static int h_queue(struct spec_ctx *c, const char *key, const json_t *v,
                   const struct yaml_node_info *at)
{
	int rc = spec_get_string(c, key, v, at, &c->s->queue);

	/* a label value, and a LocalQueue's name: a DNS-1123 label fits both */
	if (rc == 0 && !k8s_is_dns1123_label(c->s->queue))
		return spec_fail(c, at, false, key,
		                 "\"%s\" is not a LocalQueue name (at most 63 lowercase letters, "
		                 "digits and '-')",
		                 c->s->queue);
	return rc;
}

static int h_choice(struct spec_ctx *c, const char *key, const json_t *v,
                    const struct yaml_node_info *at)
{
	static const char *const PULL[] = {"Always", "IfNotPresent", "Never", NULL};
	static const char *const CLEAN[] = {"All", "Running", "None", NULL};
	static const char *const NPROC[] = {"auto", "cpu", "gpu", NULL};

	if (strcmp(key, "image_pull_policy") == 0)
		return spec_get_choice(c, key, v, at, PULL, &c->s->pull_policy);
	if (strcmp(key, "clean_pod_policy") == 0)
		return spec_get_choice(c, key, v, at, CLEAN, &c->s->clean_pod_policy);
	/* nproc_per_node: auto, cpu, gpu or a number (PET_NPROC_PER_NODE) */
	if (json_is_integer(v)) {
		long long n;
		char buf[32];
		int rc = spec_get_int(c, key, v, at, 1, 1024, &n);

		if (rc < 0)
			return rc;
		snprintf(buf, sizeof(buf), "%lld", n);
		return spec_set_string(c, &c->s->nproc_per_node, buf);
	}
	return spec_get_choice(c, key, v, at, NPROC, &c->s->nproc_per_node);
}

/* ---- mappings ---- */

static bool is_pvc_name(const char *s)
{
	return k8s_is_dns1123_subdomain(s);
}

static bool is_mount_path(const char *s)
{
	return spec_is_abs_path(s) && strcmp(s, "/") != 0;
}

static bool is_label_key(const char *s)
{
	return k8s_is_qualified_name(s);
}

/* Drops trailing slashes of the values ("/data/" mounts where "/data" does). */
static void trim_slashes(json_t *map)
{
	const char *key;
	json_t *val;

	json_object_foreach(map, key, val)
	{
		char v[4096];
		size_t n;

		snprintf(v, sizeof(v), "%s", json_string_value(val));
		n = strlen(v);
		while (n > 1 && v[n - 1] == '/')
			v[--n] = '\0';
		json_string_set(val, v);
	}
}

/* Set by arenafs itself: a spec may not set them. */
static const char *const RESERVED_ENV[] = {"workers", "gpus", NULL};
static const char *const RESERVED_LABELS[] = {"app", "release", "createdBy",
                                              SPEC_LABEL_SUBMITTED_BY, NULL};
static const char *const RESERVED_ANNOTATIONS[] = {SPEC_ANNOTATION, SPEC_ANNOT_REQUEST_GPUS, NULL};

static int h_map(struct spec_ctx *c, const char *key, const json_t *v,
                 const struct yaml_node_info *at)
{
	static const struct spec_map_rule ENV = {k8s_is_env_var_name,
	                                         "a valid environment variable name (letters, "
	                                         "digits, '_', '-' and '.', not a digit first)",
	                                         NULL, NULL, false};
	static const struct spec_map_rule LABELS = {
	    is_label_key, "a valid label key ([prefix/]name, name at most 63 of A-Z a-z 0-9 - _ .)",
	    k8s_is_label_value,
	    "a valid label value (at most 63 of A-Z a-z 0-9 - _ ., starting and ending with a "
	    "letter or digit)",
	    false};
	static const struct spec_map_rule ANNOTATIONS = {
	    is_label_key, "a valid annotation key ([prefix/]name)", NULL, NULL, false};
	static const struct spec_map_rule DATA = {
	    is_pvc_name, "a PersistentVolumeClaim name (lowercase letters, digits, '-' and '.')",
	    is_mount_path, "an absolute mount path (below /, without ..)", false};
	static const struct spec_map_rule DATA_DIR = {
	    is_mount_path, "an absolute host path (below /, without ..)", is_mount_path,
	    "an absolute mount path (below /, without ..)", true};
	struct job_spec *s = c->s;
	const struct spec_map_rule *rule;
	json_t **dst;
	int rc;

	if (strcmp(key, "env") == 0)
		rule = &ENV, dst = &s->env;
	else if (strcmp(key, "labels") == 0)
		rule = &LABELS, dst = &s->labels;
	else if (strcmp(key, "selector") == 0)
		rule = &LABELS, dst = &s->selector;
	else if (strcmp(key, "annotations") == 0)
		rule = &ANNOTATIONS, dst = &s->annotations;
	else if (strcmp(key, "data") == 0)
		rule = &DATA, dst = &s->data;
	else
		rule = &DATA_DIR, dst = &s->data_dir;
	json_decref(*dst);
	*dst = NULL;
	rc = spec_get_string_map(c, key, v, at, rule, dst);
	if (rc < 0)
		return rc;
	if (dst == &s->data || dst == &s->data_dir)
		trim_slashes(*dst);
	if (dst == &s->env)
		for (const char *const *w = RESERVED_ENV; *w; w++)
			if (json_object_get(*dst, *w))
				return spec_fail(c, yaml_doc_member(c->doc, v, *w), true, key,
				                 "%s is set by arenafs from the spec's %s: key (as "
				                 "Arena does); set that instead",
				                 *w, *w);
	if (dst == &s->labels)
		for (const char *const *w = RESERVED_LABELS; *w; w++)
			if (json_object_get(*dst, *w))
				return spec_fail(c, yaml_doc_member(c->doc, v, *w), true, key,
				                 "%s is a label arenafs sets itself (app=<type>, "
				                 "release=<name>, createdBy=<Kind>, %s=%s)",
				                 *w, SPEC_LABEL_SUBMITTED_BY,
				                 SPEC_SUBMITTED_BY_VALUE);
	if (dst == &s->annotations)
		for (const char *const *w = RESERVED_ANNOTATIONS; *w; w++)
			if (json_object_get(*dst, *w))
				return spec_fail(c, yaml_doc_member(c->doc, v, *w), true, key,
				                 "%s is an annotation arenafs sets itself", *w);
	return 0;
}

/*
 * trainjob's runtime: NAME (a ClusterTrainingRuntime, Trainer's default kind) or
 * TrainingRuntime/NAME (the namespace's own); ClusterTrainingRuntime/NAME also.
 */
static int h_runtime(struct spec_ctx *c, const char *key, const json_t *v,
                     const struct yaml_node_info *at)
{
	static const char *const KINDS[] = {"ClusterTrainingRuntime", "TrainingRuntime"};
	struct job_spec *s = c->s;
	const char *kind = KINDS[0], *name, *slash;
	char buf[128], *text = NULL;
	const char *why;
	int rc = spec_get_string(c, key, v, at, &text);

	if (rc < 0)
		return rc;
	name = text;
	if ((slash = strchr(text, '/'))) {
		kind = NULL;
		for (size_t i = 0; i < 2; i++)
			if ((size_t)(slash - text) == strlen(KINDS[i]) &&
			    strncmp(text, KINDS[i], strlen(KINDS[i])) == 0)
				kind = KINDS[i];
		name = slash + 1;
	}
	why = kind ? spec_name_problem(name, K8S_DNS1123_SUBDOMAIN_MAX, buf, sizeof(buf)) : NULL;
	if (!kind)
		rc = spec_fail(c, at, false, key,
		               "\"%s\": expected NAME (a ClusterTrainingRuntime) or "
		               "TrainingRuntime/NAME",
		               text);
	else if (why)
		rc = spec_fail(c, at, false, key, "\"%s\" %s (a runtime's name)", name, why);
	else if (spec_set_string(c, &s->runtime, name) < 0 ||
	         spec_set_string(c, &s->runtime_kind, kind) < 0)
		rc = -ENOMEM;
	free(text);
	return rc;
}

/* ---- the table ---- */

#define ALL -1

static const struct key_def KEYS[] = {
    {"type", NULL, ALL, NULL},
    {"name", h_name, ALL, NULL},
    {"image", h_image, ALL, NULL},
    {"command", h_text, ALL, NULL},
    {"shell", h_text, ALL, NULL},
    {"working_dir", h_path, ALL, NULL},
    {"code_dir", h_path, ALL, NULL},
    {"gpus", h_count, ALL, NULL},
    {"workers", h_count, ALL, NULL},
    {"ps", h_count, JOB_TFJOB, "parameter servers"},
    {"chief", h_switch, JOB_TFJOB, "a Chief"},
    {"evaluator", h_switch, JOB_TFJOB, "an Evaluator"},
    {"cpu", h_quantity, ALL, NULL},
    {"memory", h_quantity, ALL, NULL},
    {"share_memory", h_quantity, ALL, NULL},
    {"env", h_map, ALL, NULL},
    {"data", h_map, ALL, NULL},
    {"data_dir", h_map, ALL, NULL},
    {"sync", spec_key_sync, ALL, NULL},
    {"tensorboard", h_tensorboard, ALL, NULL},
    {"logdir", h_path, ALL, NULL},
    {"tensorboard_image", h_image, ALL, NULL},
    {"selector", h_map, ALL, NULL},
    {"tolerations", spec_key_tolerations, ALL, NULL},
    {"priority", h_priority, ALL, NULL},
    {"queue", h_queue, ALL, NULL},
    {"retry", h_count, ALL, NULL},
    {"labels", h_map, ALL, NULL},
    {"annotations", h_map, ALL, NULL},
    {"image_pull_secrets", spec_key_pull_secrets, ALL, NULL},
    {"image_pull_policy", h_choice, ALL, NULL},
    {"clean_pod_policy", h_choice, ALL, NULL},
    {"ttl_after_finished", h_seconds, ALL, NULL},
    {"running_timeout", h_seconds, ALL, NULL},
    {"slots_per_worker", h_count, JOB_MPIJOB, "slots per worker"},
    {"worker_command", h_text, JOB_MPIJOB, "a worker command of its own"},
    {"nproc_per_node", h_choice, JOB_PYTORCHJOB, "nproc_per_node"},
    {"runtime", h_runtime, JOB_TRAINJOB, "a runtime"},
    {"nodes", h_count, JOB_TRAINJOB, "nodes (the other types count workers)"},
};

/* What a TrainJob's small spec takes: its runtime makes the pods, so the keys
 * about pods, volumes and the run policy have nowhere to go in the TrainJob. */
static const char *const TRAINJOB_KEYS[] = {
    "type", "name", "runtime", "image", "command", "shell", "gpus", "nodes",
    "cpu",  "memory", "env", "labels", "annotations", "queue", NULL,
};

static bool trainjob_takes(const char *key)
{
	for (const char *const *k = TRAINJOB_KEYS; *k; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}
#define NKEYS (sizeof(KEYS) / sizeof(KEYS[0]))

static const struct key_def *key_find(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(KEYS[i].name, name) == 0)
			return &KEYS[i];
	return NULL;
}

static bool kind_is(enum job_kind k, int want)
{
	if (want == ALL)
		return true;
	if (want == JOB_MPIJOB)
		return k == JOB_MPIJOB || k == JOB_MPIJOB_V2;
	return (int)k == want;
}

void spec_served_types(const bool *served, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		if (kinds_info(k)->read_only || (served && !served[k]))
			continue;
		/* both MPIJob versions are "mpijob" */
		if (k == JOB_MPIJOB_V2 && (!served || served[JOB_MPIJOB]))
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? ", " : "",
		                      kinds_info(k)->type);
	}
}

static int check_type(struct spec_ctx *c)
{
	static const char *const TYPES[] = {"tfjob",  "pytorchjob", "mpijob", "xgboostjob",
	                                    "paddlejob", "jaxjob", "trainjob", NULL};
	const json_t *v = json_object_get(c->root, "type");
	const struct yaml_node_info *at = yaml_doc_member(c->doc, c->root, "type");
	char avail[256];
	char *t = NULL;
	int k, rc;

	spec_served_types(c->served, avail, sizeof(avail));
	if (!*avail)
		snprintf(avail, sizeof(avail), "none (is the training-operator installed?)");
	if (!v || json_is_null(v))
		return spec_fail(c, at, false, "type",
		                 "required: the job type; this cluster serves %s", avail);
	rc = spec_get_string(c, "type", v, at, &t);
	if (rc < 0)
		return rc;
	k = kinds_by_type(t, c->served);
	if (k < 0) {
		const char *near = k8s_suggest(t, TYPES);

		rc = near ? spec_fail(c, at, false, "type",
		                      "\"%s\" is not a job type (did you mean %s?); this cluster "
		                      "serves %s",
		                      t, near, avail)
		          : spec_fail(c, at, false, "type",
		                      "\"%s\" is not a job type; this cluster serves %s", t, avail);
	} else if (kinds_info(k)->read_only) {
		rc = spec_fail(c, at, false, "type",
		               "%s (%s) is listed by arenafs, not submitted; this cluster serves %s",
		               t, kinds_info(k)->kind_name, avail);
	} else if (c->served && !c->served[k]) {
		const struct job_kind_info *ki = kinds_info(k);

		rc = spec_fail(c, at, false, "type",
		               "this cluster does not serve %s (no %s.%s CRD); it serves %s", t,
		               ki->plural, ki->group, avail);
	}
	free(t);
	if (rc == 0)
		c->s->kind = (enum job_kind)k;
	return rc;
}

/* Every key the spec does not know, each named with a guess. */
static int check_unknown_keys(struct spec_ctx *c)
{
	const char *words[NKEYS + 1];
	const char *key;
	json_t *v;
	int rc = 0;

	for (size_t i = 0; i < NKEYS; i++)
		words[i] = KEYS[i].name;
	words[NKEYS] = NULL;
	json_object_foreach(c->root, key, v)
	{
		const struct yaml_node_info *at = yaml_doc_member(c->doc, c->root, key);
		const char *near;

		/* x-...: free for the user (YAML anchors), as docker compose does */
		if (key_find(key) || strncmp(key, "x-", 2) == 0)
			continue;
		near = k8s_suggest(key, words);
		if (near)
			rc = spec_fail(c, at, true, key, "unknown key (did you mean %s?)", near);
		else
			rc = spec_fail(c, at, true, key,
			               "unknown key; the spec's keys are listed in " SPEC_DOC
			               " (type, image, command, gpus, workers, cpu, memory, env, "
			               "data, ...)");
	}
	return rc;
}

/* ---- rules between keys ---- */

/* Mount points must differ: two volumes on one path is an API error later. */
static int check_mounts(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	const char *paths[256], *whose[256];
	char code[4200];
	size_t n = 0;
	const char *key;
	json_t *v;

	json_object_foreach(s->data, key, v) if (n < 256) paths[n] = json_string_value(v),
	                                                  whose[n++] = "data";
	json_object_foreach(s->data_dir, key, v) if (n < 256) paths[n] = json_string_value(v),
	                                                      whose[n++] = "data_dir";
	if (s->has_sync) {
		snprintf(code, sizeof(code), "%s%s",
		         strcmp(s->working_dir, "/") ? s->working_dir : "", SPEC_SYNC_SUBDIR);
		paths[n] = code, whose[n++] = "sync (working_dir/code)";
	}
	if (s->share_memory)
		paths[n] = "/dev/shm", whose[n++] = "share_memory (/dev/shm)";
	if (s->tensorboard && s->local_logs)
		paths[n] = s->logdir, whose[n++] = "logdir";
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(paths[i], paths[j]) == 0)
				return spec_fail(c, NULL, false, whose[j],
				                 "mounts on %s, where %s mounts already", paths[j],
				                 whose[i]);
	return 0;
}

/* Is path at or below dir? */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int apply_defaults(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	const struct {
		char **field;
		const char *value;
	} defaults[] = {
	    {&s->shell, SPEC_DEFAULT_SHELL},
	    {&s->code_dir, SPEC_DEFAULT_CODE_DIR},
	    {&s->working_dir, SPEC_DEFAULT_WORKING_DIR},
	    {&s->logdir, SPEC_DEFAULT_LOGDIR},
	    {&s->pull_policy, SPEC_DEFAULT_PULL_POLICY},
	    {&s->tensorboard_image, SPEC_TENSORBOARD_IMAGE},
	    /* share_memory: 0 left it NULL on purpose */
	    {&s->share_memory, spec_has_key(c, "share_memory") ? NULL : SPEC_DEFAULT_SHARE_MEMORY},
	    {&s->sync.image, !s->has_sync                       ? NULL
	                     : strcmp(s->sync.mode, "git") == 0 ? SPEC_GIT_SYNC_IMAGE
	                                                        : SPEC_RSYNC_IMAGE},
	};

	s->working_dir_given = s->working_dir != NULL;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (!*defaults[i].field && defaults[i].value &&
		    spec_set_string(c, defaults[i].field, defaults[i].value) < 0)
			return -ENOMEM;
	/* Arena's v1alpha1 MPIJob used one slot per GPU; at least one */
	if (!s->slots_per_worker)
		s->slots_per_worker = s->gpus > 0 ? s->gpus : 1;
	return 0;
}

/* The rules of the job's kind: its runtime, its count of nodes or workers. */
static int check_kind_rules(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	int rc = 0;

	if (s->kind == JOB_TRAINJOB && !s->runtime && !spec_errors_at(c, "runtime"))
		rc = spec_fail(c, NULL, false, "runtime",
		               "required for a trainjob: the ClusterTrainingRuntime that makes its "
		               "pods (e.g. runtime: torch-distributed), or TrainingRuntime/NAME");
	if (spec_errors_at(c, "nodes") || spec_errors_at(c, "workers") ||
	    spec_errors_at(c, "chief"))
		return rc;
	if (s->kind == JOB_TRAINJOB && s->workers < 1)
		rc = spec_fail(c, yaml_doc_member(c->doc, c->root, "nodes"), false, "nodes",
		               "must be at least 1, got %lld", s->workers);
	else if (s->kind == JOB_TFJOB && s->workers == 0 && s->chief == 0)
		rc = spec_fail(c, yaml_doc_member(c->doc, c->root, "workers"), false, "workers",
		               "a tfjob needs at least one worker (or chief: 1)");
	else if (s->kind != JOB_TFJOB && s->kind != JOB_TRAINJOB && s->workers < 1)
		rc = spec_fail(c, yaml_doc_member(c->doc, c->root, "workers"), false, "workers",
		               "must be at least 1%s, got %lld",
		               s->kind == JOB_PYTORCHJOB || s->kind == JOB_XGBOOSTJOB
		                   ? " (it counts the Master, as Arena's --workers does)"
		                   : "",
		               s->workers);
	return rc;
}

/* A rule about key is said unless key's own value was refused already. */
static bool rule_applies(const struct spec_ctx *c, const char *key)
{
	return !spec_errors_at(c, key);
}

/* The rules between keys; every one broken is reported. The rules of the job's
 * kind only when its type was read. */
static int check_rules(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	const char *key;
	json_t *v;
	int rc = 0;

	if (!s->image && rule_applies(c, "image"))
		rc = spec_fail(c, NULL, false, "image",
		               "required: the container image to run (e.g. image: "
		               "tensorflow/tensorflow:2.15.0-gpu)");
	if (!s->command && rule_applies(c, "command"))
		rc = spec_fail(c, NULL, false, "command",
		               "required: what the containers run, with sh -c (e.g. command: "
		               "python /root/code/main.py)");
	if (c->kind_known)
		rc = check_kind_rules(c) ?: rc;
	/* TensorBoard reads the logs from the volume they are written to; with none,
	 * from a hostPath on the node of the main pod (Arena's isLocalLogging). */
	s->local_logs = true;
	json_object_foreach(s->data, key, v) if (path_under(s->logdir, json_string_value(v)))
	    s->local_logs = false;
	json_object_foreach(s->data_dir, key, v) if (path_under(s->logdir, json_string_value(v)))
	    s->local_logs = false;
	return check_mounts(c) ?: rc;
}

/* Each key's value, by the rules of its kind when the type was read. */
static int check_keys(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	int rc = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		const struct key_def *k = &KEYS[i];
		const json_t *v = json_object_get(c->root, k->name);
		const struct yaml_node_info *at = yaml_doc_member(c->doc, c->root, k->name);
		int r;

		if (!k->check || !v || json_is_null(v))
			continue;
		/* without a type, what belongs to one kind cannot be judged */
		if (!c->kind_known && k->only_kind != ALL)
			continue;
		if (c->kind_known && s->kind == JOB_TRAINJOB && !trainjob_takes(k->name))
			r = spec_fail(c, at, true, k->name,
			              "a trainjob takes only type, name, runtime, image, command, "
			              "shell, gpus, nodes, cpu, memory, env, labels, annotations and "
			              "queue: its runtime makes the pods (a manifest can say more)");
		else if (c->kind_known && !kind_is(s->kind, k->only_kind))
			r = spec_fail(c, at, true, k->name, "only a %s has %s (this is a %s)",
			              kinds_info(k->only_kind)->type, k->only_why,
			              kinds_info(s->kind)->type);
		else
			r = k->check(c, k->name, v, at);
		if (r < 0 && r != -EINVAL)
			return r;
		if (r < 0)
			rc = r;
	}
	return rc;
}

/* A hard error (-ENOMEM) stops validation; a refused value (-EINVAL) does not:
 * the others are checked too, and all are reported (errors.h). */
static bool goes_on(int rc)
{
	return rc == 0 || rc == -EINVAL;
}

int spec_validate_small(struct spec_ctx *c)
{
	struct job_spec *s = c->s;
	char got[96];
	int rc, r;

	if (!json_is_object(c->root)) {
		spec_describe(c->root, yaml_doc_top(c->doc), got, sizeof(got));
		return spec_fail(
		    c, yaml_doc_top(c->doc), false, "spec",
		    "expected a mapping of keys (type:, image:, command:, ...), got %s", got);
	}
	s->workers = 1;
	rc = spec_errors_begin(c);
	if (rc < 0)
		return rc;
	r = check_unknown_keys(c);
	if (goes_on(r)) {
		r = check_type(c);
		c->kind_known = r == 0;
	}
	if (goes_on(r))
		r = check_keys(c);
	if (goes_on(r) && !spec_errors_at(c, "name"))
		r = spec_choose_name(c, SPEC_NAME_MAX);
	if (goes_on(r))
		r = apply_defaults(c);
	if (goes_on(r))
		r = check_rules(c);
	return spec_errors_end(c, r);
}
