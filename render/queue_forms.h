/*
 * render/queue_forms.c's face: cluster/queues.json and .yaml (every ClusterQueue),
 * queues/list.json and .yaml (a namespace's LocalQueues), the facts of the queue
 * tables as documents (docs/tree.md, "JSON and YAML forms").
 * Pure: no I/O, no locks, no clock (v->now).
 */
#ifndef ARENAFS_RENDER_QUEUE_FORMS_H
#define ARENAFS_RENDER_QUEUE_FORMS_H

#include "k8s/base/strbuf.h"
#include "render/queues.h"

void render_queues_cluster_json(struct strbuf *sb, const struct queue_view *v);
void render_queues_cluster_yaml(struct strbuf *sb, const struct queue_view *v);
void render_queues_local_json(struct strbuf *sb, const struct queue_view *v);
void render_queues_local_yaml(struct strbuf *sb, const struct queue_view *v);

#endif
