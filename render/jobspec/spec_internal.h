/*
 * What the files of render/jobspec/ share and nobody else sees: the validated small
 * spec (struct job_spec), the validation context and the constants. Each file's
 * functions for the others are in its own header (values.h, lists.h, validate.h,
 * manifest.h, build.h, trainjob.h, tensorboard.h). Which file does what: see
 * render/jobspec/spec.h.
 */
#ifndef ARENAFS_SPEC_SPEC_INTERNAL_H
#define ARENAFS_SPEC_SPEC_INTERNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "k8s/error.h"
#include "k8s/objects/kinds.h"
#include "gen/docdir.h"
#include "render/jobspec/spec.h"
#include "render/jobspec/yaml_parse.h"

/* Where a user reads the spec's keys: in the sources, and where make install
 * (and so the Debian package: /usr/share/doc/arenafs) puts it, which the Makefile
 * writes into gen/docdir.h from PREFIX (docs/packaging.md). */
#define SPEC_DOC "docs/spec.md (installed as " ARENAFS_DOC_DIR "/spec.md)"

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
	char *queue;        /* Kueue's LocalQueue: the job's KUEUE_QUEUE_LABEL, or NULL */
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
	/* A small spec's mistakes so far (render/jobspec/errors.h), every one reported;
	 * NULL: the first alone (a manifest). */
	struct spec_errors *errors;
	bool kind_known; /* type: was read: the rules of its kind apply */
};

/* What a mapping of strings must hold (env, labels, data, ...). */
struct spec_map_rule {
	bool (*key_ok)(const char *); /* NULL: any key */
	const char *what_key;         /* "a valid environment variable name" */
	bool (*val_ok)(const char *); /* NULL: any string */
	const char *what_val;
	bool null_is_key; /* `key:` with no value means the key itself (data_dir) */
};

#endif
