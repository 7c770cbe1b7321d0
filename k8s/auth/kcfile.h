/*
 * kubeconfig files (internal to k8s/, used by kubeconfig.c): a parsed YAML
 * document kept with its path, and typed access to its mappings. Every error
 * names the file and, where a node is at fault, its line and column (1-based).
 * Error messages name keys, never the values of secret fields.
 */
#ifndef ARENAFS_K8S_KCFILE_H
#define ARENAFS_K8S_KCFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "k8s/error.h"

/* One parsed kubeconfig file. */
struct kc_file {
	char *path;
	char *dir; /* relative paths in this file are resolved against it */
	yaml_document_t doc;
};

/* Reads and parses path. -ENOENT (err filled) when it does not exist, -EISDIR when it is
 * a directory, -EINVAL for bad YAML. */
int kc_file_load(const char *path, struct kc_file **out, struct k8s_error *err);
void kc_file_free(struct kc_file *f);

/* -EINVAL with "FILE:LINE:COLUMN: what" (or "FILE: what" for n NULL). */
int kc_error(struct k8s_error *err, const struct kc_file *f, const yaml_node_t *n,
             const char *what);
/* The text of a scalar node, else NULL. */
const char *kc_scalar(const yaml_node_t *n);
/* An explicit ~, null or empty plain scalar: "unset", as in go-yaml. */
bool kc_is_null(const yaml_node_t *n);
/* The value of key in mapping map; NULL when absent or null. */
yaml_node_t *kc_map_get(struct kc_file *f, yaml_node_t *map, const char *key);
/* A string field (NULL when absent); -EINVAL when present but not a scalar. */
int kc_get_str(struct kc_file *f, yaml_node_t *map, const char *key, const char **out,
               struct k8s_error *err);
/* A boolean field as go-yaml v2 reads one (true/yes/on ...); false when absent. */
int kc_get_bool(struct kc_file *f, yaml_node_t *map, const char *key, bool *out,
                struct k8s_error *err);

/* path resolved against the folder of f (absolute paths unchanged); malloc'd, NULL on ENOMEM. */
char *kc_resolve_path(const struct kc_file *f, const char *path);
/* A whole PEM file in memory; what and owner name it in errors ("ca.crt", "cluster \"x\""). */
int kc_read_pem_file(const char *path, const char *what, const char *owner, char **out, size_t *len,
                     struct k8s_error *err);
/*
 * Certificate or key from KEY-data (base64 PEM, wins) or KEY (a path, resolved);
 * *out NULL when neither is given.
 */
int kc_read_pem(struct kc_file *f, yaml_node_t *map, const char *key, const char *owner, char **out,
                size_t *len, struct k8s_error *err);

#endif
