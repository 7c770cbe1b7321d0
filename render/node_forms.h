/*
 * render/node_forms.c's face: cluster/top.json and top.yaml (arena top node -o json|yaml).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_NODE_FORMS_H
#define ARENAFS_RENDER_NODE_FORMS_H

#include <stddef.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"

void render_cluster_top_json(struct strbuf *sb, const struct node_view *nodes, size_t n);
void render_cluster_top_yaml(struct strbuf *sb, const struct node_view *nodes, size_t n);

#endif
