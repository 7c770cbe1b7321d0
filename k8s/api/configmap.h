/*
 * One ConfigMap, read once: its files (data as UTF-8 text, binaryData decoded from
 * base64), its uid and its owners. What fs/code/codefetch.c reads a job's shipped code
 * from; the cache watches no ConfigMaps (a cluster holds many, and the tree shows
 * only these few, on demand).
 */
#ifndef ARENAFS_K8S_CONFIGMAP_H
#define ARENAFS_K8S_CONFIGMAP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/http/client.h"
#include "k8s/error.h"

struct k8s_configmap_file {
	char *key;
	char *data;                  /* the bytes, NUL-terminated for convenience */
	size_t len;
};

struct k8s_configmap {
	char *uid;
	bool immutable;
	char **owner_uids;           /* metadata.ownerReferences[].uid */
	size_t n_owners;
	struct k8s_configmap_file *files;  /* data's keys, then binaryData's */
	size_t n_files;
	size_t bytes;                /* the files' lengths, summed */
};

/* The ConfigMap of a GET's body; -EINVAL (a binaryData value that is not base64,
 * not a ConfigMap) or -ENOMEM, with err filled. *out: k8s_configmap_free. */
int k8s_configmap_decode(const json_t *obj, struct k8s_configmap **out, struct k8s_error *err);
/* GETs ConfigMap name of namespace ns and decodes it. 0 or -errno, err filled
 * (k8s_errno_for_status: 404 ENOENT, 403 EACCES, ...). */
int k8s_configmap_get(struct k8s_client *c, const char *ns, const char *name,
		      struct k8s_configmap **out, struct k8s_error *err);
void k8s_configmap_free(struct k8s_configmap *cm);
/* The file of that key, or NULL. */
const struct k8s_configmap_file *k8s_configmap_find(const struct k8s_configmap *cm,
						    const char *key);

#endif
