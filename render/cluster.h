/*
 * render/cluster.c's face: cluster/context and cluster/health (cluster.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_CLUSTER_H
#define ARENAFS_RENDER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "render/render.h"
#include "k8s/auth/config.h"
#include "k8s/cache/health.h"

void render_cluster_context(struct strbuf *sb, const struct k8s_config *cfg);

void render_cluster_health(struct strbuf *sb, const struct cache_health *h);

/* For files that show the cluster's state: nothing while connected, else one
 * paragraph saying the state is the one last seen, since when and why. */
void render_stale_note(struct strbuf *sb, const struct cache_health *h);

/* cluster/health's line on kept logs (keep_logs): nothing while they are kept as
 * asked, else whether they are being kept, why not, and the budget the disk left. */
void render_logs_kept_line(struct strbuf *sb, const struct logs_kept_state *s);

#endif
