/*
 * render/nodes.c's face: a node's status, ip and role (nodes.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_NODES_H
#define ARENAFS_RENDER_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"

void render_node_status(struct strbuf *sb, const struct k8s_node *node);    /* Ready / NotReady */

void render_node_ip(struct strbuf *sb, const struct k8s_node *node);

void render_node_role(struct strbuf *sb, const struct k8s_node *node);

/* "Ready", "NotReady", with ",SchedulingDisabled" when cordoned (nodes.c). */
const char *render_node_status_word(const struct k8s_node *node);

#endif
