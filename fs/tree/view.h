/*
 * Gathering a job's, the jobs' or a node's objects from the cache for render/
 * (view.c), under the cache's read lock: what a renderer is handed. The parts a
 * job's file needs (VIEW_*) are its row's in places.c.
 */
#ifndef ARENAFS_FS_TREE_VIEW_H
#define ARENAFS_FS_TREE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/base/fs_struct.h"
#include "fs/base/places.h"
#include "k8s/objects/objects.h"
#include "render/render.h"

struct fs_job_view {
	struct job_view v;
	const struct pod **pods;
	const struct service **services;
	const struct k8s_node **nodes;
	const struct event **events;
	struct logkeep_entry **kept;     /* VIEW_KEPT: what v.kept_pods points into */
	size_t n_kept;
	const char **kept_names;
	struct logs_kept_state keep;     /* what v.keep points to, when keeping fails */
	char *log_tail;                  /* VIEW_LOG_TAIL: what v.failed_log_tail points to */
};
int view_job(struct fs *fs, const struct job *job, unsigned want, struct fs_job_view *out);
void view_job_free(struct fs_job_view *jv);
/* Every job of ns (NULL: of every namespace the tree shows) whose kind is served, each
 * with its pods, the other parts want names (VIEW_SERVICES, VIEW_NODES, VIEW_EVENTS:
 * a table's row in places.c) and one now; *out malloc'd (view_jobs_free). */
int view_jobs(struct fs *fs, const char *ns, unsigned want, struct job_view **out, size_t *n);
void view_jobs_free(struct job_view *v, size_t n);
/* One node_view per node (by name), each with its pods; *out malloc'd (view_nodes_free). */
int view_nodes(struct fs *fs, const struct k8s_node *only, struct node_view **out, size_t *n);
void view_nodes_free(struct node_view *v, size_t n);
/* The main pod of a job (render_job_main_pod over its pods), or NULL. */
const struct pod *view_job_main_pod(struct fs *fs, const struct job *job);
/* A finished job without pods (cleanPodPolicy, a TTL, an admin): its log is gone
 * with them, which is not an empty log (info says the same). */
bool view_job_ended_without_pods(struct fs *fs, const struct job *job);

#endif
