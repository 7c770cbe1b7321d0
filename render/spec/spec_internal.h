/*
 * What the files of spec/ share and nobody else sees: the validated small spec
 * (struct job_spec), the validation context, and the value checkers. Which file
 * does what: see render/spec/spec.h.
 */
#ifndef ARENAFS_SPEC_SPEC_INTERNAL_H
#define ARENAFS_SPEC_SPEC_INTERNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "k8s/error.h"
#include "k8s/objects/kinds.h"
#include "render/spec/spec.h"
#include "render/spec/yaml_parse.h"

/* Arena's limit on job names (pkg/util/validate.go JobMaxLength): room for the
 * "-tensorboard" Service and the operators' "-<role>-<index>" pod names. */
#define SPEC_NAME_MAX 49
/* The API server's limit on all annotations of one object together (apimachinery
 * TotalAnnotationSizeLimitB). */
#define SPEC_ANNOTATIONS_MAX (256 * 1024)

/* Defaults, as Arena 0.15's flags and charts set them. */
#define SPEC_DEFAULT_SHELL        "sh"
#define SPEC_DEFAULT_WORKING_DIR  "/root"
#define SPEC_DEFAULT_CODE_DIR     "/code"
#define SPEC_DEFAULT_LOGDIR       "/training_logs"
#define SPEC_DEFAULT_SHARE_MEMORY "2Gi"
#define SPEC_DEFAULT_PULL_POLICY  "Always"
#define SPEC_GIT_SYNC_IMAGE       "registry.cn-zhangjiakou.aliyuncs.com/acs/git-sync:v3.3.5"
#define SPEC_RSYNC_IMAGE          "registry.cn-zhangjiakou.aliyuncs.com/acs/rsync:v3.1.0-aliyun"
#define SPEC_TENSORBOARD_IMAGE    "registry.cn-zhangjiakou.aliyuncs.com/acs/tensorflow:1.12.0-devel"
#define SPEC_TENSORBOARD_PORT     6006
/* Where the init container writes the code, and where Arena mounts it then. */
#define SPEC_SYNC_ROOT   "/code"
#define SPEC_SYNC_SUBDIR "/code"
/* TensorBoard logs kept on the node when the log dir is on no volume (Arena:
 * /arena_logs/training<random>; here per namespace and job, as spec/ has no dice). */
#define SPEC_HOST_LOG_ROOT   "/arena_logs"
#define SPEC_TB_LOCAL_LOGDIR "/output/training_logs"

/* Labels and annotations arenafs and Arena put on what they create. */
#define SPEC_LABEL_SUBMITTED_BY   "arenafs.io/submitted-by"
#define SPEC_SUBMITTED_BY_VALUE   "arenafs"
#define SPEC_ANNOT_REQUEST_GPUS   "requestGPUsOfJobOwner"
#define SPEC_ANNOT_DISABLE_TF_CFG "arena.kubeflow.org/disable-tf-config"

struct spec_sync {
	char *mode; /* "git" or "rsync" */
	char *source;
	char *branch; /* git only, or NULL */
	char *image;
	char *project; /* git: the repository's name, GIT_SYNC_DEST */
};

struct job_spec {
	char *name;
	enum job_kind kind;
	char *text;       /* what SPEC_ANNOTATION holds (the spec, with its name) */
	json_t *manifest; /* a full manifest as given; NULL for a small spec */

	/* the small spec, validated; strings are owned */
	char *image;
	char *command;
	char *shell;
	char *working_dir;
	bool working_dir_given; /* written in the spec, not the default */
	char *code_dir;         /* where local code is mounted (NULL: SPEC_DEFAULT_CODE_DIR) */
	char *worker_command; /* mpijob: what workers run instead of the command */
	long long gpus;
	long long workers; /* as written (pytorch-like kinds count the master in it);
	                      a trainjob's nodes: (numNodes) */
	long long ps, chief, evaluator;
	long long slots_per_worker;
	bool has_retry, has_ttl, has_deadline;
	long long retry, ttl, deadline;
	char *cpu, *memory;
	char *share_memory; /* NULL: none */
	char *priority;
	char *pull_policy;
	char *clean_pod_policy; /* NULL: the kind's default */
	char *nproc_per_node;
	char *runtime;      /* trainjob: spec.runtimeRef.name */
	char *runtime_kind; /* trainjob: ClusterTrainingRuntime (the default) or TrainingRuntime */
	json_t *env; /* objects of strings, in the spec's order */
	json_t *labels;
	json_t *annotations;
	json_t *selector;
	json_t *data;         /* PVC name → mount path */
	json_t *data_dir;     /* host path → mount path */
	json_t *tolerations;  /* array of Toleration objects */
	json_t *pull_secrets; /* array of strings */
	bool has_sync;
	struct spec_sync sync;
	bool tensorboard;
	char *logdir;
	char *tensorboard_image;
	bool local_logs; /* logdir is on no volume: a hostPath holds it */
};

/* Where validation is and how it reports. */
struct spec_ctx {
	const struct yaml_doc *doc;
	json_t *root;
	struct job_spec *s;
	const bool *served; /* may be NULL: every kind */
	const char *entry_name; /* the staging entry's name, or NULL (spec_parse) */
	struct k8s_error *err;
};

/* The owner reference (a one-element array) to job as the API server returned it
 * (its uid); Arena patches the same one into what it makes beside a job. */
int spec_owner_ref(const struct job_spec *s, const json_t *job, json_t **out,
                   struct k8s_error *err);

/* ---- values.c ---- */

/*
 * Fails with "line L, column C: PATH: message" (EINVAL); at is where to point
 * (NULL: no position), at_key: the key rather than the value.
 */
int spec_fail(struct spec_ctx *c, const struct yaml_node_info *at, bool at_key, const char *path,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* How a value reads in a message: "two" quoted, 2.5, true, a mapping, a list, nothing. */
void spec_describe(const json_t *v, const struct yaml_node_info *info, char *buf, size_t size);

/* Each checks one value; info is where it came from (may be NULL). */
int spec_get_int(struct spec_ctx *c, const char *path, const json_t *v,
                 const struct yaml_node_info *info, long long min, long long max, long long *out);
/* A string; numbers and booleans are taken as written ("64", "yes"). */
int spec_get_string(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, char **out);
int spec_get_bool(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, bool *out);
/* A Kubernetes quantity (4, 500m, 8Gi, 1.5); negative ones are refused. */
int spec_get_quantity(struct spec_ctx *c, const char *path, const json_t *v,
                      const struct yaml_node_info *info, char **out);
/* An absolute path other than "/", with no ".." part. */
int spec_get_path(struct spec_ctx *c, const char *path, const json_t *v,
                  const struct yaml_node_info *info, char **out);
/* Seconds: an integer, or a Go duration such as "90s", "1h30m". */
int spec_get_seconds(struct spec_ctx *c, const char *path, const json_t *v,
                     const struct yaml_node_info *info, long long *out);
/* One of the words in choices (NULL-terminated). */
int spec_get_choice(struct spec_ctx *c, const char *path, const json_t *v,
                    const struct yaml_node_info *info, const char *const *choices, char **out);
/* What a mapping of strings must hold (env, labels, data, ...). */
struct spec_map_rule {
	bool (*key_ok)(const char *); /* NULL: any key */
	const char *what_key;         /* "a valid environment variable name" */
	bool (*val_ok)(const char *); /* NULL: any string */
	const char *what_val;
	bool null_is_key; /* `key:` with no value means the key itself (data_dir) */
};
/* A mapping of strings, checked by rule; a null value is "" unless rule->null_is_key. */
int spec_get_string_map(struct spec_ctx *c, const char *path, const json_t *v,
                        const struct yaml_node_info *info, const struct spec_map_rule *rule,
                        json_t **out);

/* Replaces *dst with a copy of src. */
int spec_set_string(struct spec_ctx *c, char **dst, const char *src);
/* Is key in the root mapping with a value (null counts as absent)? */
bool spec_has_key(const struct spec_ctx *c, const char *key);
/*
 * Names the job (c->s->name) after the staging entry (c->entry_name) when that is a
 * valid job name of at most max characters; else keeps the name the text gave
 * (name:, metadata.name), and without one fails saying why the entry's name is none.
 */
int spec_choose_name(struct spec_ctx *c, size_t max);

/* The closest of the words (NULL-terminated) to s, or NULL when none is close. */
const char *spec_suggest(const char *s, const char *const *words);
/* NULL when name is a valid job name of at most max bytes, else why not. */
const char *spec_name_problem(const char *name, size_t max, char *buf, size_t size);
bool spec_is_quantity(const char *s);
bool spec_is_abs_path(const char *s);

/* ---- lists.c: the handlers of structured keys ---- */

int spec_key_tolerations(struct spec_ctx *c, const char *key, const json_t *v,
                         const struct yaml_node_info *at);
int spec_key_pull_secrets(struct spec_ctx *c, const char *key, const json_t *v,
                          const struct yaml_node_info *at);
int spec_key_sync(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at);
/* command: [python, main.py] → "python main.py", each word shell-quoted as needed. */
int spec_command_list(struct spec_ctx *c, const char *key, const json_t *v, char **out);

/* ---- validate.c ---- */

/* Fills c->s from the small spec at c->root. */
int spec_validate_small(struct spec_ctx *c);
/* "tfjob, pytorchjob, mpijob": the types the cluster serves (for messages). */
void spec_served_types(const bool *served, char *buf, size_t size);

/* ---- manifest.c ---- */

int spec_validate_manifest(struct spec_ctx *c);
int spec_build_manifest(const struct job_spec *s, const char *ns, json_t **out,
                        struct k8s_error *err);

/* ---- build.c ---- */

/* The labels every object of the job carries (app, release, createdBy, arenafs). */
json_t *spec_base_labels(const struct job_spec *s);
/* The replica type whose pod 0 is the job's main pod, as the operators label it
 * (training.kubeflow.org/replica-type): "chief", "master" or "worker". */
const char *spec_main_replica(const struct job_spec *s);
/* requests and limits alike, as Arena's charts set them; NULL with nothing to set
 * (and on allocation failure: *oom tells them apart). */
json_t *spec_resources(const struct job_spec *s, long long gpus, bool cpu_memory, bool *oom);
/* imagePullSecrets: [{name: ...}] of the spec's image_pull_secrets. */
json_t *spec_pull_secrets(const struct job_spec *s);
/* The training-logs-volume: the hostPath holding the TensorBoard logs when
 * s->local_logs (/arena_logs/<ns>/<name>). */
json_t *spec_host_log_volume(const struct job_spec *s, const char *ns);

/* ---- trainjob.c ---- */

/* The TrainJob of a small spec of type trainjob; -ENOMEM is its only error. */
int spec_build_trainjob(const struct job_spec *s, const char *ns, json_t **out);

#endif
