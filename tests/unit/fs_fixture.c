/* The fs over a hand-filled cache of fs_fixture.h. */
#include "tests/unit/fs_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fs/fs.h"
#include "k8s/objects/objects.h"

static void put(struct fx_fs *x, enum cache_object_type type, void *obj)
{
	struct store_change ch;
	int rc;

	if (!obj) {
		fprintf(stderr, "fs_fixture: an object did not decode\n");
		abort();
	}
	rc = store_put(x->cache, type, obj, 1, &ch);
	if (rc < 0) {
		fprintf(stderr, "fs_fixture: store_put: %d\n", rc);
		abort();
	}
	if (rc == 1)
		store_change_release(&ch);
}

void fx_fs_init(struct fx_fs *x)
{
	struct fs_options o;
	bool served[JOB_KIND_COUNT];

	memset(x, 0, sizeof(*x));
	x->rv = 1;
	x->cfg.namespace = "default";
	x->cfg.source = "test";
	x->cache = store_new("default", NULL);
	fs_options_default(&o);
	o.keep_logs = 0;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		served[k] = true;
	if (!x->cache || fs_new(&o, &x->fs) < 0) {
		fprintf(stderr, "fs_fixture: cannot make the fs\n");
		abort();
	}
	fs_attach(x->fs, NULL, x->cache, &x->cfg, served);
}

void fx_fs_free(struct fx_fs *x)
{
	fs_stop(x->fs);
	fs_free(x->fs);
	store_free(x->cache);
}

static char *rv(struct fx_fs *x, char *buf, size_t size)
{
	snprintf(buf, size, "%u", x->rv++);
	return buf;
}

void fx_fs_job(struct fx_fs *x, const char *ns, enum job_kind kind, const char *name,
	       const char *uid, int64_t created)
{
	const struct job_kind_info *ki = kinds_info(kind);
	char api[64], ver[16], when[32];
	time_t t = (time_t)created;
	json_t *o;

	snprintf(api, sizeof(api), "%s/%s", ki->group, ki->version);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	o = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s}}", "apiVersion", api, "kind",
		      ki->kind_name, "metadata", "name", name, "namespace", ns, "uid", uid,
		      "resourceVersion", rv(x, ver, sizeof(ver)), "creationTimestamp", when);
	put(x, CACHE_JOB, job_decode(o, kind));
	json_decref(o);
}

void fx_fs_pod(struct fx_fs *x, const char *ns, enum job_kind kind, const char *job,
	       const char *name, const char *replica_type, int index, const char *node)
{
	char ver[16], idx[16];
	json_t *o;

	snprintf(idx, sizeof(idx), "%d", index);
	o = json_pack("{s:{s:s,s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s}},s:{s:s},s:{s:s}}", "metadata",
		      "name", name, "namespace", ns, "uid", name, "resourceVersion",
		      rv(x, ver, sizeof(ver)), "labels", "training.kubeflow.org/job-name", job,
		      "training.kubeflow.org/operator-name", kinds_info(kind)->operator_name,
		      "training.kubeflow.org/replica-type", replica_type,
		      "training.kubeflow.org/replica-index", idx, "spec", "nodeName", node,
		      "status", "phase", "Running");
	put(x, CACHE_POD, pod_decode(o));
	json_decref(o);
}

void fx_fs_pod_restarted(struct fx_fs *x, const char *ns, enum job_kind kind, const char *job,
			 const char *name, int restarts)
{
	char ver[16];
	json_t *o;

	o = json_pack("{s:{s:s,s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s}},"
		      "s:{s:s,s:[{s:s}]},"
		      "s:{s:s,s:[{s:s,s:i,s:s,s:{s:{s:s}},s:{s:{s:i,s:s,s:s,s:s,s:s}}}]}}",
		      "metadata", "name", name, "namespace", ns, "uid", name, "resourceVersion",
		      rv(x, ver, sizeof(ver)), "labels", "training.kubeflow.org/job-name", job,
		      "training.kubeflow.org/operator-name", kinds_info(kind)->operator_name,
		      "training.kubeflow.org/replica-type", "worker",
		      "training.kubeflow.org/replica-index", "0",
		      "spec", "nodeName", "n1", "containers", "name", "tensorflow",
		      "status", "phase", "Running", "containerStatuses", "name", "tensorflow",
		      "restartCount", restarts, "containerID", "containerd://now",
		      "state", "running", "startedAt", "2026-12-06T10:00:10Z",
		      "lastState", "terminated", "exitCode", 1, "reason", "Error",
		      "containerID", "containerd://before", "startedAt", "2026-12-06T10:00:00Z",
		      "finishedAt", "2026-12-06T10:00:05Z");
	put(x, CACHE_POD, pod_decode(o));
	json_decref(o);
}

void fx_fs_node(struct fx_fs *x, const char *name)
{
	char ver[16];
	json_t *o = json_pack("{s:{s:s,s:s,s:s}}", "metadata", "name", name, "uid", name,
			      "resourceVersion", rv(x, ver, sizeof(ver)));

	put(x, CACHE_NODE, node_decode(o));
	json_decref(o);
}
