/*
 * The path model (model.c): (parent node, name) -> child node, a directory's
 * entries, the job, pod or node a node stands for. Everything under the cache's
 * read lock. Called by the operations (ops.c, dirs.c), content.c and notify.c;
 * the rooms below the tree reach model_job through struct fs's `up`.
 */
#ifndef ARENAFS_FS_TREE_MODEL_H
#define ARENAFS_FS_TREE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/base/fs_struct.h"
#include "fs/base/node.h"
#include "fs/base/places.h"
#include "k8s/objects/objects.h"

/* The child of parent called name: 0 with *out filled (caller clears), -ENOENT. */
int model_lookup(struct fs *fs, const struct fs_node *parent, const char *name,
		 struct fs_node *out);
/* The entries of a directory, in listing order; *out malloc'd (fs_entries_free). */
int model_list(struct fs *fs, const struct fs_node *dir, struct fs_entry **out, size_t *n);
/* Which of dir's names that come and go exist now (bits as place_optional_mask);
 * takes the cache's read lock itself. */
unsigned model_extras(struct fs *fs, const struct fs_node *dir);
/* Whether a place that comes and goes (its row's `when`) exists now below parent. */
bool model_place_exists(struct fs *fs, const struct place *p, const struct fs_node *parent);
/* Whether a pod directory stands for a pod that is gone but whose log is kept (it then
 * holds only `logs`); *finished (may be NULL): when that container finished. */
bool model_pod_kept(struct fs *fs, const struct fs_node *pod_dir, int64_t *finished);
/* The job, pod or node a node stands for, when it still exists with its identity. */
const struct job *model_job(struct fs *fs, const struct fs_node *node);
const struct pod *model_pod(struct fs *fs, const struct fs_node *node);
const struct k8s_node *model_node(struct fs *fs, const struct fs_node *node);
/* The attempts of the pod a node (instances/POD/ or below) stands for: attempts_of
 * (attempts.h) with its job, pod and uid. */
struct attempts;
int model_attempts(struct fs *fs, const struct fs_node *node, struct attempts *out);

#endif
