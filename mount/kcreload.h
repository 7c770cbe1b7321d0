/*
 * Following a rewritten kubeconfig while mounted (kcreload.c): new credentials
 * for the same server are taken without a remount, as kubectl's next run would
 * take them; another server is reported, not followed.
 */
#ifndef ARENAFS_MOUNT_KCRELOAD_H
#define ARENAFS_MOUNT_KCRELOAD_H

#include "k8s/http/client.h"
#include "k8s/auth/config.h"

struct kc_reload;

/* Starts watching the files cfg was read from (nothing for in-cluster: *out NULL).
 * opts: how cfg was loaded. 0, or -errno. */
int kc_reload_start(struct k8s_client *client, const struct k8s_config_options *opts,
                    const struct k8s_config *cfg, struct kc_reload **out);
/* Stops the thread; the configs it loaded stay (the client may point into them). */
void kc_reload_stop(struct kc_reload *r);
/* Frees what it loaded: only after the client is freed. */
void kc_reload_free(struct kc_reload *r);

#endif
