/*
 * One submission, from a spec's text to objects in the cluster (docs/submit.md):
 * parse and validate (render/jobspec/spec.h), dry-run every object so that the API
 * server's own validation (names, admission, a taken name) speaks before anything
 * exists, ask for the PriorityClasses its pods name and the Kueue LocalQueue it
 * names (its queue: label), create the job, then its
 * local code's ConfigMap and its TensorBoard (owned by the job), and delete what
 * was made when a later object fails, so that a failure leaves nothing behind.
 * What ships is checked: the code's ConfigMap as the API server stored it must
 * hold the bytes sent, and a folder's files must still be what was taken
 * (rq->verify), or all is undone. A cluster cache/health already finds
 * unreachable is not asked at all: the submission fails at once (EIO) rather
 * than wait request_timeout for a server that is not there.
 * A check stops after the dry runs (a directory entry's close: its code is still
 * being copied, fs/submit/submit_defer.c makes it once the copy is over; and
 * check/'s dry run, which keeps the server's answers as YAML: docs/submit.md,
 * "Checking a spec").
 *
 * It blocks on the network (each request has the client's deadline) on the FUSE
 * worker thread of the close(2) or rename(2) that submits; FUSE runs others
 * meanwhile. Also: waiting until the cache shows a change the tree made, so that
 * `cp spec.yaml submit/ && cat jobs/NAME/status` and `rmdir` followed by `ls`
 * see it. Called by fs/submit/submit.c; no FUSE here.
 */
#include "fs/submit/submit_run.h"
#include "fs/submit/submit.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "k8s/api/api.h"
#include "fs/submit/staging.h"
#include "fs/base/runtimes_list.h"
#include "render/jobspec/asks.h"
#include "render/jobspec/spec.h"
#include "render/yaml_emit.h"
#include "k8s/base/timefmt.h"

#define SUBMIT_CACHE_POLL_MS 20
/* A spec this long gives the heap back when its submission is over (see submit_run). */
#define SUBMIT_TRIM_FROM (64 * 1024)

/* The created objects to undo, in the order they were made, with what they are. */
struct made {
	json_t *objs[4];
	const char *what[4];
	size_t n;
};

bool submit_wait_job(struct fs *fs, const char *ns, int kind, const char *name, const char *uid,
                     bool present, int timeout_ms)
{
	int64_t deadline = time_monotonic_ms() + timeout_ms;
	struct timespec pause = {0, SUBMIT_CACHE_POLL_MS * 1000000L};

	for (;;) {
		const struct job *job;
		bool there;

		cache_read_lock(fs->cache);
		job = cache_find_job(fs->cache, ns, kind, name);
		there = job && (!uid || strcmp(job->meta.uid, uid) == 0);
		cache_read_unlock(fs->cache);
		if (there == present)
			return true;
		if (time_monotonic_ms() >= deadline)
			return false;
		nanosleep(&pause, NULL);
	}
}

/* Dry-runs or creates obj; the error names what was being made. */
static int create(struct fs *fs, const char *ns, json_t *obj, bool dry_run, const char *what,
                  json_t **created, struct k8s_error *err)
{
	int rc = k8s_create(fs->client, ns, obj, dry_run, created, err);

	if (rc)
		k8s_error_prefix(err, "%s %s: ", dry_run ? "checking" : "creating", what);
	return rc;
}

/*
 * Dry-runs obj and, for check/, appends what the API server answered (its defaults
 * and its admission webhooks' changes applied) as one YAML document, as `kubectl
 * get -o yaml` shows it. *answer (when not NULL) keeps the answer.
 */
static int check(struct fs *fs, const char *ns, json_t *obj, const char *what,
                 struct strbuf *objects, json_t **answer, struct k8s_error *err)
{
	json_t *got = NULL;
	int rc = create(fs, ns, obj, true, what, &got, err);

	if (rc == 0 && objects && got)
		render_yaml_emit_object(objects, got);
	if (answer)
		*answer = got;
	else
		json_decref(got);
	return rc;
}

/* Creates obj for real and records it in m, to be undone if a later object fails. */
static int make(struct fs *fs, const char *ns, struct made *m, json_t *obj, const char *what,
                struct k8s_error *err)
{
	json_t *made_obj;
	int rc = create(fs, ns, obj, false, what, &made_obj, err);

	if (rc)
		return rc;
	m->what[m->n] = what;
	m->objs[m->n++] = made_obj;
	return 0;
}

/*
 * The API server admits a job whose pod templates name a PriorityClass that does
 * not exist (it is the pods that are refused, one FailedCreate event at a time,
 * and the job waits forever): ask before anything is made. Only "not found"
 * refuses; credentials that may not read PriorityClasses (403) cannot tell, and
 * a server that does not answer will fail the dry run that follows anyway.
 */
static int check_priority_classes(struct fs *fs, const json_t *job, struct k8s_error *err)
{
	static const struct k8s_resource classes = {"/apis/scheduling.k8s.io/v1",
	                                            "priorityclasses", false};
	const char *names[8];
	size_t n = spec_priority_classes(job, names, 8);

	for (size_t i = 0; i < n; i++) {
		struct k8s_error get_err;
		json_t *pc = NULL;
		int rc;

		k8s_error_clear(&get_err);
		rc = k8s_get(fs->client, &classes, NULL, names[i], &pc, &get_err);
		json_decref(pc);
		if (rc && get_err.code == 404)
			return k8s_error_set(err, EINVAL,
			                     "priority: no PriorityClass \"%s\" in this cluster: its "
			                     "pods would never be created (kubectl get priorityclasses "
			                     "lists those there are)",
			                     names[i]);
	}
	return 0;
}

/* The LocalQueues the cache has, "ns/name" (ns NULL) or "name", comma-joined into
 * names; how many. Under no lock (takes the read lock). */
static size_t queue_names(struct fs *fs, const char *ns, const char *want, bool *found,
                          struct strbuf *names)
{
	const struct localqueue **lqs = NULL;
	size_t n;

	cache_read_lock(fs->cache);
	n = cache_localqueues(fs->cache, ns, &lqs);
	for (size_t i = 0; i < n; i++) {
		if (want && strcmp(lqs[i]->meta.name, want) == 0)
			*found = true;
		if (names->len)
			strbuf_puts(names, ", ");
		if (!ns)
			strbuf_printf(names, "%s/", lqs[i]->meta.namespace);
		strbuf_puts(names, lqs[i]->meta.name);
	}
	cache_read_unlock(fs->cache);
	free(lqs);
	return n;
}

/*
 * A job labelled for a Kueue LocalQueue (the spec's `queue:`, or a manifest's own
 * label) that does not exist is admitted by the API server and then waits for
 * ever, suspended: refuse it before anything is made, naming the queues there
 * are. The cache answers; a queue it does not have is asked for once (one made a
 * moment ago, or credentials that may not list queues): only "not found" refuses.
 */
static int check_queue(struct fs *fs, const char *ns, const json_t *job, struct k8s_error *err)
{
	const char *queue = spec_queue_of(job);
	struct strbuf names = STRBUF_INIT;
	struct k8s_error get_err;
	struct kueue_api api;
	char path[96];
	json_t *lq = NULL;
	bool found = false;
	size_t n;
	int rc;

	if (!queue)
		return 0;
	cache_kueue(fs->cache, &api);
	if (!api.version[0])
		return k8s_error_set(err, EINVAL,
		                     "queue: \"%s\": this cluster has no Kueue (kueue.x-k8s.io is not "
		                     "served), so no LocalQueue can admit the job; leave queue: out",
		                     queue);
	n = queue_names(fs, ns, queue, &found, &names);
	if (found) {
		strbuf_free(&names);
		return 0;
	}
	snprintf(path, sizeof(path), "/apis/%s/%s", KUEUE_GROUP, api.version);
	k8s_error_clear(&get_err);
	rc = k8s_get(fs->client, &(struct k8s_resource){path, "localqueues", true}, ns, queue, &lq,
	             &get_err);
	json_decref(lq);
	if (rc == 0 || get_err.code != 404) {
		strbuf_free(&names);
		return 0;
	}
	if (n)
		rc = k8s_error_set(err, EINVAL,
		                   "queue: no LocalQueue \"%s\" in namespace %s; its LocalQueues: %s "
		                   "(queues/list)",
		                   queue, ns, strbuf_ok(&names) ? strbuf_str(&names) : "?");
	else if (queue_names(fs, NULL, NULL, &found, &names), names.len)
		rc = k8s_error_set(err, EINVAL,
		                   "queue: namespace %s has no LocalQueue, so Kueue cannot admit the "
		                   "job (\"%s\"); LocalQueues exist in other namespaces: %s",
		                   ns, queue, strbuf_ok(&names) ? strbuf_str(&names) : "?");
	else
		rc = k8s_error_set(err, EINVAL,
		                   "queue: namespace %s has no LocalQueue, so Kueue cannot admit the "
		                   "job (\"%s\"); this cluster has no LocalQueue at all",
		                   ns, queue);
	strbuf_free(&names);
	return rc;
}

/*
 * A TrainJob naming a runtime that does not exist: Trainer's webhook (v2.2.0)
 * refuses it, but its words name none that exists ("specified trainingRuntime
 * must be created before the TrainJob is created"), and a cluster whose
 * webhook is not called admits a job that never runs. Ask first, and answer
 * with the runtimes there are. Only "not found" refuses, as for PriorityClasses.
 */
static int check_runtime(struct fs *fs, const char *ns, const json_t *job, struct k8s_error *err)
{
	const char *kind, *name;
	bool asks = spec_runtime_of(job, &kind, &name);
	bool namespaced = asks && kind && strcmp(kind, "TrainingRuntime") == 0;
	struct runtimes there = {0};
	struct strbuf names = STRBUF_INIT;
	struct k8s_error get_err;
	json_t *obj = NULL;
	int rc;

	if (!asks)
		return 0;
	k8s_error_clear(&get_err);
	rc = k8s_get(fs->client, namespaced ? &runtimes_local : &runtimes_cluster, ns, name, &obj, &get_err);
	json_decref(obj);
	if (!rc || get_err.code != 404)
		return 0;
	k8s_error_clear(&get_err);
	if (runtimes_list(fs->client, ns, &there, &get_err) < 0)
		return 0;   /* the dry run that follows speaks for the server */
	render_runtime_names(&names, &there);
	if (!there.served)
		rc = k8s_error_set(err, EINVAL,
		                   "runtime: this cluster has no Kubeflow Trainer (no training "
		                   "runtimes, trainer.kubeflow.org): a trainjob cannot run here");
	else
		rc = k8s_error_set(err, EINVAL,
		                   "runtime: no %s \"%s\" in %s%s: its TrainJob would never run; "
		                   "the runtimes there are: %s (cat runtimes)",
		                   namespaced ? "TrainingRuntime" : "ClusterTrainingRuntime", name,
		                   namespaced ? "namespace " : "this cluster", namespaced ? ns : "",
		                   strbuf_ok(&names) ? strbuf_str(&names) : "(out of memory)");
	strbuf_free(&names);
	runtimes_clear(&there);
	return rc;
}

/*
 * The API server cannot be reached (cluster/health: disconnected, no answer at all):
 * -EIO at once, in the words of the check that would have waited, instead of
 * request_timeout's wait for each of its requests (issue 32).
 */
static int reachable(struct fs *fs, const char *what, struct k8s_error *err)
{
	struct cache_health h;
	char since[64];

	cache_get_health(fs->cache, &h);
	if (h.connected || !h.unreachable)
		return 0;
	return k8s_error_set(err, EIO,
	                     "checking %s: the cluster cannot be reached (cluster/health says "
	                     "disconnected since %s: %s), so nothing was sent; submit again "
	                     "once cluster/health says ok",
	                     what, time_format_rfc3339(h.since, since, sizeof(since)),
	                     h.last_error);
}

/* The ConfigMap as stored (the create's answer) holds the bytes sent, or -EIO. */
static int code_stored(const json_t *sent, const json_t *stored, const char *what,
                       struct k8s_error *err)
{
	char key[256];

	if (spec_code_stored(sent, stored, key, sizeof(key)) == 0)
		return 0;
	return k8s_error_set(err, EIO,
	                     "creating %s: the API server's answer holds other bytes than were "
	                     "sent (key %s), so the job would not run what was copied",
	                     what, key);
}

static void append(struct k8s_error *err, const char *text)
{
	size_t len = strlen(err->message);

	snprintf(err->message + len, sizeof(err->message) - len, "%s", text);
}

/* Deletes what this submission made, newest first, and says in err what became of it. */
static void undo(struct fs *fs, const char *ns, struct made *m, struct k8s_error *err)
{
	struct k8s_error derr;
	char names[512] = "";
	bool failed = false;

	for (size_t i = m->n; i-- > 0;) {
		k8s_error_clear(&derr);
		if (k8s_delete_object(fs->client, ns, m->objs[i],
		                      K8S_PROPAGATE_BACKGROUND, &derr) != 0 &&
		    derr.err != ENOENT)
			failed = true;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		         names[0] ? ", " : "", m->what[i]);
		if (failed)
			break;
	}
	append(err, "; ");
	append(err, names);
	if (failed) {
		append(err, ", made before it, could not be deleted again: ");
		append(err, derr.message);
		append(err, " (rmdir the job to delete it)");
	} else {
		append(err, m->n > 1 ? ", made before it, have been deleted again"
		                     : ", made before it, has been deleted again");
	}
}

static void made_free(struct made *m)
{
	for (size_t i = 0; i < m->n; i++)
		json_decref(m->objs[i]);
	m->n = 0;
}

/* The TensorBoard's Deployment and Service for job (dry-run or made), when asked for. */
static int tensorboard_objects(const char *ns, const struct job_spec *s, const json_t *job,
                               json_t **dep, json_t **svc, struct k8s_error *err)
{
	*dep = *svc = NULL;
	if (!spec_wants_tensorboard(s))
		return 0;
	return spec_build_tensorboard(s, ns, job, dep, svc, err);
}

/* Which job was made (the uid from the API server's answer). */
static void tell_made(struct submit_made *made, const char *ns, const struct job_spec *s,
                      const json_t *job)
{
	const char *uid = k8s_object_uid(job);

	if (!made)
		return;
	snprintf(made->ns, sizeof(made->ns), "%s", ns);
	made->kind = spec_kind(s);
	snprintf(made->name, sizeof(made->name), "%s", spec_name(s));
	snprintf(made->uid, sizeof(made->uid), "%s", uid ? uid : "");
}

/* The code's files as the spec compiler takes them; *out NULL when none ship. */
static int code_files(const struct submit_request *rq, struct spec_code_file **out, size_t *n)
{
	const struct staging_code *c = rq->code;

	*out = NULL;
	*n = 0;
	if (!c || c->n == 0)
		return 0;
	*out = calloc(c->n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		(*out)[i] = (struct spec_code_file){c->files[i].path, c->files[i].data,
		                                    c->files[i].len, c->files[i].mode};
	*n = c->n;
	return 0;
}

int submit_run(struct fs *fs, const struct submit_request *rq, struct k8s_error *err)
{
	const char *ns = rq->ns ? rq->ns : fs->namespace;
	struct job_spec *s = NULL;
	json_t *job = NULL, *checked = NULL, *dep = NULL, *svc = NULL, *cm = NULL;
	struct spec_code_file *files = NULL;
	struct made m = {{NULL}, {NULL}, 0};
	struct strbuf *objs = rq->check_only ? rq->objects : NULL;
	char what[128], cm_what[160], dep_what[160], svc_what[160];
	size_t nfiles = 0;
	int rc;

	rc = spec_parse(rq->text, rq->len, rq->default_name, fs->served, &s, err);
	if (rc)
		goto out;
	snprintf(what, sizeof(what), "%s %s", kinds_info(spec_kind(s))->kind_name, spec_name(s));
	snprintf(cm_what, sizeof(cm_what), "the code's ConfigMap %s-code", spec_name(s));
	snprintf(dep_what, sizeof(dep_what), "the TensorBoard Deployment %s-tensorboard",
	         spec_name(s));
	snprintf(svc_what, sizeof(svc_what), "the TensorBoard Service %s-tensorboard",
	         spec_name(s));
	if ((rc = spec_build_job(s, ns, &job, err)))
		goto out;
	if (code_files(rq, &files, &nfiles) < 0) {
		rc = k8s_error_set(err, ENOMEM, "out of memory taking the code");
		goto out;
	}
	if (files && ((rc = spec_add_code(s, job, files, nfiles, err)) ||
	              (rc = spec_build_code(s, ns, NULL, files, nfiles, &cm, err))))
		goto out;

	/* Everything is checked by the API server before anything is made; a server
	 * cluster/health finds unreachable is not asked (issue 32). */
	if ((rc = reachable(fs, what, err)) || (rc = check_priority_classes(fs, job, err)) ||
	    (rc = check_queue(fs, ns, job, err)) || (rc = check_runtime(fs, ns, job, err)) ||
	    (rc = check(fs, ns, job, what, objs, &checked, err)) ||
	    (cm && (rc = check(fs, ns, cm, cm_what, objs, NULL, err))) ||
	    (rc = tensorboard_objects(ns, s, checked, &dep, &svc, err)) ||
	    (dep && (rc = check(fs, ns, dep, dep_what, objs, NULL, err))) ||
	    (svc && (rc = check(fs, ns, svc, svc_what, objs, NULL, err))))
		goto out;
	json_decref(cm);
	json_decref(dep);
	json_decref(svc);
	cm = dep = svc = NULL;
	if (rq->check_only)
		goto out;

	if ((rc = make(fs, ns, &m, job, what, err)))
		goto out;
	/* The code and the TensorBoard are owned by the job as made: its uid goes in
	 * their ownerReferences, so the garbage collector deletes them with it. The
	 * job's pods wait for the ConfigMap (the kubelet retries the mount). What ships
	 * is checked last: the ConfigMap stored holds the bytes sent, and the caller's
	 * files are still what was taken (rq->verify); else all is undone. */
	if ((files && ((rc = spec_build_code(s, ns, m.objs[0], files, nfiles, &cm, err)) ||
	               (rc = make(fs, ns, &m, cm, cm_what, err)) ||
	               (rc = code_stored(cm, m.objs[m.n - 1], cm_what, err)))) ||
	    (rc = tensorboard_objects(ns, s, m.objs[0], &dep, &svc, err)) ||
	    (dep && (rc = make(fs, ns, &m, dep, dep_what, err))) ||
	    (svc && (rc = make(fs, ns, &m, svc, svc_what, err))) ||
	    (rq->verify && (rc = rq->verify(rq->verify_arg, err)))) {
		undo(fs, ns, &m, err);
		goto out;
	}
	/* Best effort: the job shows in jobs/ before close(2) returns, unless the watch
	 * is slow; then it appears a moment later. */
	submit_wait_job(fs, ns, spec_kind(s), spec_name(s), NULL, true, SUBMIT_CACHE_WAIT_MS);
	say(LOG_INFO, "submitted %s in namespace %s%s", what, ns,
	    files ? " with its code" : "");
	tell_made(rq->made, ns, s, m.objs[0]);
out:
	made_free(&m);
	free(files);
	json_decref(job);
	json_decref(checked);
	json_decref(cm);
	json_decref(dep);
	json_decref(svc);
	spec_free(s);
	/* Reading a spec of 1 MiB makes tens of MiB of small allocations (its nodes,
	 * their positions, a copy of the job), all freed by now; glibc keeps those pages
	 * in its heaps, and a few such specs took the daemon from 12 to 146 MiB for
	 * good. A submission is rare and this one was large: give them back. */
	if (rq->len >= SUBMIT_TRIM_FROM)
		malloc_trim(0);
	return rc;
}
