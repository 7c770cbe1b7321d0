/*
 * A struct fs over a cache filled by hand, for the tests of fs/'s logic files
 * (test_fs_model.c, test_fs_view.c, test_fs_content.c): fs_new() and fs_attach()
 * as mount/ calls them, on a store with no feed (k8s/cache/store.h) and a
 * kubeconfig of namespace "default"; no session, no thread, no network. Objects
 * are decoded from JSON (k8s/objects/), as the reflectors would put them.
 */
#ifndef ARENAFS_TEST_FS_FIXTURE_H
#define ARENAFS_TEST_FS_FIXTURE_H

#include <stdint.h>

#include "fs/base/fs_struct.h"
#include "k8s/auth/config.h"
#include "k8s/cache/store.h"
#include "k8s/objects/kinds.h"

struct fx_fs {
	struct fs *fs;
	struct k8s_cache *cache;
	struct k8s_config cfg;
	uint32_t rv;                 /* the next resourceVersion */
};

/* Every kind served; aborts the run on failure. */
void fx_fs_init(struct fx_fs *x);
void fx_fs_free(struct fx_fs *x);
/* A job of kind in namespace ns, created at `created` (Unix seconds), with uid. */
void fx_fs_job(struct fx_fs *x, const char *ns, enum job_kind kind, const char *name,
	       const char *uid, int64_t created);
/* A running pod of that job (its operator's labels), replica type and index, on node. */
void fx_fs_pod(struct fx_fs *x, const char *ns, enum job_kind kind, const char *job,
	       const char *name, const char *replica_type, int index, const char *node);
/* A pod of that job whose container "tensorflow" restarted (restartCount restarts,
 * running; its last instance ended with exit code 1, Error). */
void fx_fs_pod_restarted(struct fx_fs *x, const char *ns, enum job_kind kind, const char *job,
			 const char *name, int restarts);
void fx_fs_node(struct fx_fs *x, const char *name);

#endif
