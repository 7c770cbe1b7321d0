/*
 * render/node_info.c's face: nodes/NAME/info (arena top node -d).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_NODE_INFO_H
#define ARENAFS_RENDER_NODE_INFO_H

#include "k8s/base/strbuf.h"
#include "render/render.h"

/* `arena top node -d` for v's node, with its GPUs' figures when v->gpu_metrics has
 * any of them (docs/tree.md, "nodes/NAME/info"). */
void render_node_info(struct strbuf *sb, const struct node_view *v);

#endif
