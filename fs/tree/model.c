/*
 * The path model: the names each directory holds now and what each stands for,
 * checked against the cache. The fixed names come from the table of places
 * (places.c); the names of jobs, pods, nodes and namespaces from the cache.
 * Lookups, listings and the notifier's revalidation all go through
 * model_lookup(), so a name exists in a listing exactly when it can be looked up.
 *
 * Order: jobs/ newest first (naming.c); everything else by name (strcmp, so
 * README comes before cluster/), as the table lists them.
 *
 * Called under the cache's read lock; knows no FUSE and no file formats (render/
 * decides whether a job has a TensorBoard).
 */
#include "fs/tree/model.h"
#include "fs/tree/view.h"
#include "fs/tree/attempts.h"
#include "fs/code/codetree.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "render/job_times.h"
#include "render/pods.h"
#include "render/tensorboard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/logs/logkeep.h"
#include "fs/tree/naming.h"
#include "fs/submit/trash.h"

/* ---- the objects a node stands for ---- */

static bool same_uid(const struct obj_meta *m, const char *uid)
{
	return uid && strcmp(m->uid, uid) == 0;
}

const struct job *model_job(struct fs *fs, const struct fs_node *node)
{
	const struct job *job;

	if (!node->ns || !node->job || node->kind < 0)
		return NULL;
	job = cache_find_job(fs->cache, node->ns, node->kind, node->job);
	/* Pod places hold the pod's uid: their job is only checked to exist. */
	if (job && place_of(node->type)->source == SRC_JOB && !same_uid(&job->meta, node->uid))
		return NULL;
	return job;
}

const struct pod *model_pod(struct fs *fs, const struct fs_node *node)
{
	const struct pod *pod;

	if (!node->ns || !node->pod)
		return NULL;
	pod = cache_find_pod(fs->cache, node->ns, node->pod);
	if (pod && (place_of(node->type)->source == SRC_POD ||
		    place_of(node->type)->source == SRC_ATTEMPT) && !same_uid(&pod->meta, node->uid))
		return NULL;
	return pod;
}

const struct k8s_node *model_node(struct fs *fs, const struct fs_node *node)
{
	const struct k8s_node *n;

	if (!node->node)
		return NULL;
	n = cache_find_node(fs->cache, node->node);
	return n && same_uid(&n->meta, node->uid) ? n : NULL;
}

/* ---- building nodes ---- */

static int set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? strdup(value) : NULL;
	return value && !*field ? -ENOMEM : 0;
}

/* A child of parent: the same names (ns, job, pod, node, uid), another type. */
static int child_of(const struct fs_node *parent, enum fs_type type, struct fs_node *out)
{
	int ret = fs_node_copy(out, parent);

	if (ret)
		return ret;
	out->type = type;
	out->restarts = 0;
	return set_str(&out->identity, parent->identity ? parent->identity : "");
}

static int static_node(enum fs_type type, const char *ns, struct fs_node *out)
{
	*out = (struct fs_node)FS_NODE_INIT;
	out->type = type;
	if (set_str(&out->identity, "") || set_str(&out->ns, ns)) {
		fs_node_clear(out);
		return -ENOMEM;
	}
	return 0;
}

static int job_node(const struct job *job, struct fs_node *out)
{
	*out = (struct fs_node)FS_NODE_INIT;
	out->type = FS_JOB_DIR;
	out->kind = job->kind;
	if (set_str(&out->ns, job->meta.namespace) || set_str(&out->job, job->meta.name) ||
	    set_str(&out->uid, job->meta.uid) || set_str(&out->identity, job->meta.uid)) {
		fs_node_clear(out);
		return -ENOMEM;
	}
	return 0;
}

/* A pod's directory in instances/, of a pod in the cache or one gone whose log is kept. */
static int pod_dir_node(const struct fs_node *instances, const char *name, const char *uid,
			struct fs_node *out)
{
	int ret = child_of(instances, FS_POD_DIR, out);

	if (!ret && (set_str(&out->pod, name) || set_str(&out->uid, uid) ||
		     set_str(&out->identity, uid)))
		ret = -ENOMEM;
	if (ret)
		fs_node_clear(out);
	return ret;
}

static int pod_node(const struct fs_node *instances, const struct pod *pod, struct fs_node *out)
{
	return pod_dir_node(instances, pod->meta.name, pod->meta.uid, out);
}

static int k8s_node_node(const struct k8s_node *n, struct fs_node *out)
{
	*out = (struct fs_node)FS_NODE_INIT;
	out->type = FS_NODE_DIR;
	if (set_str(&out->node, n->meta.name) || set_str(&out->uid, n->meta.uid) ||
	    set_str(&out->identity, n->meta.uid)) {
		fs_node_clear(out);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A log place: the pod's main container, one inode per container instance
 * (restartCount), so that a restart makes a new file. A pod without containers
 * (or a job without a main pod) gets an empty log named after the parent alone.
 */
static int log_node(const struct fs_node *parent, enum fs_type type, const struct pod *pod,
		    struct fs_node *out)
{
	const struct container *c = NULL;
	char id[512];
	int ret, ci;

	ret = child_of(parent, type, out);
	if (ret)
		return ret;
	ci = pod ? render_pod_main_container(pod) : -1;
	if (ci >= 0)
		c = &pod->containers[ci];
	if (!c) {
		snprintf(id, sizeof(id), "%s/none", parent->uid ? parent->uid : "");
	} else {
		out->restarts = c->restart_count;
		snprintf(id, sizeof(id), "%s/%s/%s%d", pod->meta.uid, c->name,
			 type == FS_POD_LOGS_PREVIOUS ? "prev" : "", c->restart_count);
		if (set_str(&out->pod, pod->meta.name) || set_str(&out->container, c->name))
			ret = -ENOMEM;
	}
	if (!ret)
		ret = set_str(&out->identity, id);
	if (ret)
		fs_node_clear(out);
	return ret;
}

/* ---- the conditional names ---- */

static bool job_has_code(struct fs *fs, const struct fs_node *job_dir)
{
	return codetree_has_code(fs, job_dir);
}

static bool job_has_tensorboard(struct fs *fs, const struct fs_node *job_dir)
{
	const struct job *job = model_job(fs, job_dir);
	struct fs_job_view jv;
	struct strbuf sb = STRBUF_INIT;
	bool has;

	if (!job || view_job(fs, job, VIEW_SERVICES | VIEW_NODES, &jv))
		return false;
	has = render_job_tensorboard_url(&sb, &jv.v);
	strbuf_free(&sb);
	view_job_free(&jv);
	return has;
}

static bool pod_has_previous(struct fs *fs, const struct fs_node *pod_dir)
{
	const struct pod *pod = model_pod(fs, pod_dir);
	int ci = pod ? render_pod_main_container(pod) : -1;
	const struct container *c = ci >= 0 ? &pod->containers[ci] : NULL;

	return c && (c->restart_count > 0 || c->last_state.kind == CONTAINER_TERMINATED);
}

bool model_place_exists(struct fs *fs, const struct place *p, const struct fs_node *parent)
{
	switch (p->when) {
	case PLACE_WHEN_CODE:
		return job_has_code(fs, parent);
	case PLACE_WHEN_TENSORBOARD:
		return job_has_tensorboard(fs, parent);
	case PLACE_WHEN_PREVIOUS:
		return pod_has_previous(fs, parent);
	case PLACE_WHEN_ALWAYS:
		break;
	}
	return true;
}

static const struct pod *pod_of_job(struct fs *fs, const struct job *job, const char *name)
{
	const struct pod **pods = NULL, *found = NULL;
	size_t n = cache_pods_of_job(fs->cache, job, &pods);

	for (size_t i = 0; i < n && !found; i++)
		if (strcmp(pods[i]->meta.name, name) == 0)
			found = pods[i];
	free(pods);
	return found;
}

/* ---- pods gone whose logs are kept (keep_logs, logkeep.h) ---- */

static bool job_has_ended(struct fs *fs, const struct job *job)
{
	struct fs_job_view jv;
	bool ended;

	if (view_job(fs, job, VIEW_PODS, &jv))
		return false;
	ended = render_job_ended(&jv.v);
	view_job_free(&jv);
	return ended;
}

/*
 * The kept log of the job's pod called name, once the job has ended and no pod of
 * that name is the job's in the cache: a finished job's instances/ keeps the pods
 * whose logs were kept. NULL when there is none; the caller frees it.
 */
static struct logkeep_entry *kept_pod(struct fs *fs, const struct job *job, const char *name)
{
	struct logkeep_entry **e = NULL, *found = NULL;
	size_t n, best = 0;

	if (!fs->kept_logs || !job || pod_of_job(fs, job, name) || !job_has_ended(fs, job))
		return NULL;
	n = logkeep_of_job(fs->kept_logs, job->meta.namespace, job->kind, job->meta.name, job->meta.uid,
			   &e);
	/* its last attempt's (every attempt has a copy of its own) */
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i]->meta.pod, name) == 0 &&
		    (!found || e[i]->meta.instance > found->meta.instance)) {
			found = e[i];
			best = i;
		}
	if (found)
		e[best] = NULL;
	logkeep_entries_free(e, n);
	return found;
}

/* Of a job without pods, the kept log of its main instance: the latest to finish of
 * those that were the main instance when kept. NULL when none; the caller frees it. */
static struct logkeep_entry *kept_main(struct fs *fs, const struct job *job)
{
	struct logkeep_entry **e = NULL, *found = NULL;
	size_t n, best = 0;

	if (!fs->kept_logs || !job)
		return NULL;
	n = logkeep_of_job(fs->kept_logs, job->meta.namespace, job->kind, job->meta.name, job->meta.uid,
			   &e);
	for (size_t i = 0; i < n; i++)
		if (e[i]->meta.main && (!found || e[i]->meta.finished > found->meta.finished)) {
			found = e[i];
			best = i;
		}
	if (found)
		e[best] = NULL;
	logkeep_entries_free(e, n);
	return found;
}

/* The log place of a kept copy (a pod that is gone): its instance's identity, so that
 * the file is the one it was while the pod lived. */
static int kept_log_node(const struct fs_node *parent, enum fs_type type,
			 const struct logkeep_entry *e, struct fs_node *out)
{
	char id[512];
	int ret = child_of(parent, type, out);

	if (ret)
		return ret;
	out->restarts = e->meta.instance;
	snprintf(id, sizeof(id), "%s/%s/%d", e->meta.pod_uid, e->meta.container, e->meta.instance);
	if (set_str(&out->pod, e->meta.pod) || set_str(&out->container, e->meta.container) ||
	    set_str(&out->identity, id)) {
		fs_node_clear(out);
		return -ENOMEM;
	}
	return 0;
}

/* A pod directory of a kept copy: named and identified as the pod was. */
static int kept_pod_node(const struct fs_node *instances, const struct logkeep_entry *e,
			 struct fs_node *out)
{
	return pod_dir_node(instances, e->meta.pod, e->meta.pod_uid, out);
}

/* The kept copy a pod directory stands for, when its pod is gone; the caller frees. */
static struct logkeep_entry *kept_of_pod_dir(struct fs *fs, const struct fs_node *dir)
{
	struct logkeep_entry *e;

	if (!fs->kept_logs || !dir->pod || model_pod(fs, dir))
		return NULL;
	e = kept_pod(fs, model_job(fs, dir), dir->pod);
	if (e && (!dir->uid || strcmp(e->meta.pod_uid, dir->uid) != 0)) {
		logkeep_entry_free(e);
		e = NULL;
	}
	return e;
}

bool model_pod_kept(struct fs *fs, const struct fs_node *pod_dir, int64_t *finished)
{
	struct logkeep_entry *e = kept_of_pod_dir(fs, pod_dir);

	if (e && finished)
		*finished = e->meta.finished;
	logkeep_entry_free(e);
	return e != NULL;
}

struct find_arg {
	struct fs *fs;
	const char *ns;
};

static const struct job *find_job(void *arg, int kind, const char *name)
{
	struct find_arg *a = arg;

	return a->fs->served[kind] ? cache_find_job(a->fs->cache, a->ns, kind, name) : NULL;
}

/* namespaces/ lists the other namespaces with jobs (not kube-system and the
 * like); by name it finds any other namespace that exists and these credentials
 * can see, with or without jobs, so that namespaces/NS/submit/ takes a first
 * job there (docs/tree.md, "namespaces/NS/jobs/ and what RBAC hides"). */
static bool is_other_namespace(struct fs *fs, const char *name)
{
	const char **names = NULL;
	size_t n;
	bool found = false;

	if (strcmp(name, fs->namespace) == 0)
		return false;
	if (cache_find_namespace(fs->cache, name))
		return true;
	n = cache_namespaces(fs->cache, &names);
	for (size_t i = 0; i < n && !found; i++)
		found = strcmp(names[i], name) == 0;
	free(names);
	return found;
}

/* ---- attempts/ (attempts.h) ---- */

int model_attempts(struct fs *fs, const struct fs_node *node, struct attempts *out)
{
	return attempts_of(fs, model_job(fs, node), model_pod(fs, node), node->uid, out);
}

static bool attempt_exists(struct fs *fs, const struct fs_node *node)
{
	struct attempts a;
	bool found = model_attempts(fs, node, &a) == 0 && attempts_find(&a, node->restarts + 1);

	attempts_free(&a);
	return found;
}

/* attempts/N/ for an attempt: its pod's names, the container and its instance, whose
 * identity is its log's (the same as logs of that instance: one memo, one copy). */
static int attempt_node(const struct fs_node *dir, const struct attempt_view *v,
			struct fs_node *out)
{
	char id[512];
	int ret = child_of(dir, FS_ATTEMPT_DIR, out);

	if (ret)
		return ret;
	out->restarts = v->number - 1;
	snprintf(id, sizeof(id), "%s/%s/%d", dir->uid ? dir->uid : "", v->container, v->number - 1);
	if (set_str(&out->container, v->container) || set_str(&out->identity, id)) {
		fs_node_clear(out);
		return -ENOMEM;
	}
	return 0;
}

/* "1", "2", ...: a number as attempts/ names it (no sign, no leading zero), else -1. */
static int attempt_number(const char *name)
{
	long n = 0;

	if (!name[0] || name[0] == '0' || strlen(name) > 9)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
	}
	return (int)n;
}

static int attempt_child(struct fs *fs, const struct fs_node *dir, const char *name,
			 struct fs_node *out)
{
	struct attempts a;
	const struct attempt_view *v;
	int n = attempt_number(name), ret;

	if (n < 1)
		return -ENOENT;
	ret = model_attempts(fs, dir, &a);
	v = ret ? NULL : attempts_find(&a, n);
	ret = ret ? ret : v ? attempt_node(dir, v, out) : -ENOENT;
	attempts_free(&a);
	return ret;
}

/* A file of attempts/N/: the attempt's node, its own type (restarts kept). */
static int attempt_file(const struct fs_node *dir, enum fs_type type, struct fs_node *out)
{
	int ret = fs_node_copy(out, dir);

	if (!ret)
		out->type = type;
	return ret;
}

/* ---- lookup ---- */

/* Does the object a directory stands for still exist (with its identity)? */
static bool dir_exists(struct fs *fs, const struct fs_node *dir)
{
	if (fs_type_is_code(dir->type))
		return codetree_dir_exists(fs, dir);
	switch (place_of(dir->type)->source) {
	case SRC_JOB:
		return model_job(fs, dir) != NULL;
	case SRC_POD:
		return model_pod(fs, dir) || model_pod_kept(fs, dir, NULL);
	case SRC_ATTEMPT:
		return attempt_exists(fs, dir);
	case SRC_NODE:
		return model_node(fs, dir) != NULL;
	case SRC_NAMESPACE:
		return is_other_namespace(fs, dir->ns);
	default:
		return true;
	}
}

/* A name in the directory of a pod that is gone (its log is kept): only `logs`. */
static int kept_child(struct fs *fs, const struct fs_node *parent, const struct place *p,
		      struct fs_node *out)
{
	struct logkeep_entry *e;
	int ret;

	if (!(p->flags & PLACE_LOG) && p->type != FS_POD_ATTEMPTS_DIR)
		return -ENOENT;
	if (!(e = kept_of_pod_dir(fs, parent)))
		return -ENOENT;
	ret = p->type == FS_POD_ATTEMPTS_DIR ? child_of(parent, p->type, out)
					     : kept_log_node(parent, p->type, e, out);
	logkeep_entry_free(e);
	return ret;
}

/* jobs/NAME/logs of a job without pods: its main instance's kept log, else none. */
static int job_kept_log(struct fs *fs, const struct fs_node *parent, const struct place *p,
			const struct job *job, struct fs_node *out)
{
	struct logkeep_entry *e = kept_main(fs, job);
	int ret;

	if (!e)
		return log_node(parent, p->type, NULL, out);
	ret = kept_log_node(parent, p->type, e, out);
	logkeep_entry_free(e);
	return ret;
}

/* A fixed name of parent (which exists): a node of the same names, its own type. */
static int fixed_child(struct fs *fs, const struct fs_node *parent, const struct place *p,
		       struct fs_node *out)
{
	int ret;

	if ((p->flags & PLACE_COMES_AND_GOES) && !model_place_exists(fs, p, parent))
		return -ENOENT;
	if (p->source == SRC_ATTEMPT)
		return attempt_file(parent, p->type, out);
	if (p->source == SRC_POD && !model_pod(fs, parent))
		return kept_child(fs, parent, p, out);
	if (p->flags & PLACE_LOG) {
		const struct job *job = p->source == SRC_JOB ? model_job(fs, parent) : NULL;
		const struct pod *pod = job ? view_job_main_pod(fs, job) : NULL;

		if (job && !pod)
			return job_kept_log(fs, parent, p, job, out);
		return log_node(parent, p->type, job ? pod : model_pod(fs, parent), out);
	}
	ret = child_of(parent, p->type, out);
	/* jobs/, data/ and queues/ of the root, cluster/list and top-job are the mount's
	 * namespace */
	if (!ret &&
	    (p->source == SRC_JOBS || p->source == SRC_NS_JOBS || p->source == SRC_DATA ||
	     p->type == FS_QUEUES_DIR) &&
	    !out->ns &&
	    set_str(&out->ns, fs->namespace)) {
		fs_node_clear(out);
		ret = -ENOMEM;
	}
	return ret;
}

/* instances/NAME of a finished job whose pod NAME is gone but its log kept. */
static int kept_instance(struct fs *fs, const struct fs_node *parent, const struct job *job,
			 const char *name, struct fs_node *out)
{
	struct logkeep_entry *e = kept_pod(fs, job, name);
	int ret;

	if (!e)
		return -ENOENT;
	ret = kept_pod_node(parent, e, out);
	logkeep_entry_free(e);
	return ret;
}

static int trash_root_node(struct fs_node *out)
{
	*out = (struct fs_node)FS_NODE_INIT;
	out->type = FS_TRASH_DIR;
	out->identity = strdup("trash");
	return out->identity ? 0 : -ENOMEM;
}

/* A name of a directory of objects: a job, a pod, a node, a namespace. */
static int object_child(struct fs *fs, const struct fs_node *parent, const char *name,
			struct fs_node *out)
{
	const struct job *job;
	const struct pod *pod;
	const struct k8s_node *kn;
	struct find_arg a = {fs, parent->ns};

	switch (parent->type) {
	case FS_JOBS_DIR:
		job = naming_find_job(name, find_job, &a);
		return job ? job_node(job, out) : -ENOENT;
	case FS_INSTANCES_DIR:
		if (!(job = model_job(fs, parent)))
			return -ENOENT;
		if ((pod = pod_of_job(fs, job, name)))
			return pod_node(parent, pod, out);
		return kept_instance(fs, parent, job, name, out);
	case FS_POD_ATTEMPTS_DIR:
		return dir_exists(fs, parent) ? attempt_child(fs, parent, name, out) : -ENOENT;
	case FS_NODES_DIR:
		kn = cache_find_node(fs->cache, name);
		return kn ? k8s_node_node(kn, out) : -ENOENT;
	case FS_NAMESPACES_DIR:
		return is_other_namespace(fs, name) ? static_node(FS_NS_DIR, name, out) : -ENOENT;
	case FS_CODE_DIR:
	case FS_CODE_SUBDIR:
		return codetree_lookup(fs, parent, name, out);
	case FS_ROOT:
		/* the trash, there once a trasher made it (trash.h) */
		return trash_is_name(fs, name) && trash_made(fs) ? trash_root_node(out) : -ENOENT;
	default:
		return -ENOENT;
	}
}

int model_lookup(struct fs *fs, const struct fs_node *parent, const char *name,
		 struct fs_node *out)
{
	const struct place *p = place_child(parent->type, name);

	*out = (struct fs_node)FS_NODE_INIT;
	if (p)
		return dir_exists(fs, parent) ? fixed_child(fs, parent, p, out) : -ENOENT;
	return object_child(fs, parent, name, out);
}

/* ---- listings ---- */

struct list_builder {
	struct fs_entry *e;
	size_t n, cap;
	int err;
};

/* Takes node (cleared on success and failure). */
static void list_add(struct list_builder *b, const char *name, struct fs_node *node)
{
	if (b->err)
		goto drop;
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 16;
		struct fs_entry *ne = realloc(b->e, nc * sizeof(*ne));

		if (!ne)
			goto oom;
		b->e = ne;
		b->cap = nc;
	}
	b->e[b->n].name = strdup(name);
	if (!b->e[b->n].name)
		goto oom;
	b->e[b->n].node = *node;
	*node = (struct fs_node)FS_NODE_INIT;
	b->n++;
	return;
oom:
	b->err = -ENOMEM;
drop:
	fs_node_clear(node);
}

/* The fixed names of a directory that exist now, through model_lookup. */
static void list_fixed(struct fs *fs, const struct fs_node *dir, struct list_builder *b)
{
	const struct place *const *c;
	size_t n = place_children(dir->type, &c);

	for (size_t i = 0; i < n; i++) {
		struct fs_node child;
		int ret = model_lookup(fs, dir, c[i]->name, &child);

		if (ret == 0)
			list_add(b, c[i]->name, &child);
		else if (ret != -ENOENT)
			b->err = ret;
	}
}

static void list_jobs(struct fs *fs, const char *ns, struct list_builder *b)
{
	const struct job **jobs = NULL;
	struct fs_job_name *names = NULL;
	size_t n = cache_jobs(fs->cache, ns, &jobs), kept = 0;
	int listed = 0;

	if (n && !jobs) {
		b->err = -ENOMEM;
		return;
	}
	/* Kinds not served cannot be in the cache; drop them anyway so that listing and
	 * lookup (find_job) agree. */
	for (size_t i = 0; i < n; i++)
		if (fs->served[jobs[i]->kind])
			jobs[kept++] = jobs[i];
	listed = naming_list_jobs((const struct job *const *)jobs, kept, &names);
	if (listed < 0) {
		b->err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < listed; i++) {
		struct fs_node node;

		if (job_node(names[i].job, &node) < 0) {
			b->err = -ENOMEM;
			break;
		}
		list_add(b, names[i].display, &node);
	}
out:
	naming_free(names, listed > 0 ? (size_t)listed : 0);
	free(jobs);
}

static int entry_by_name(const void *a, const void *b)
{
	return strcmp(((const struct fs_entry *)a)->name, ((const struct fs_entry *)b)->name);
}

/* The pods of a finished job that are gone but whose logs are kept (kept_pod). */
static void list_kept_pods(struct fs *fs, const struct fs_node *dir, const struct job *job,
			   struct list_builder *b)
{
	struct logkeep_entry **e = NULL;
	size_t n, first = b->n;

	if (!fs->kept_logs || !job_has_ended(fs, job))
		return;
	n = logkeep_of_job(fs->kept_logs, job->meta.namespace, job->kind, job->meta.name, job->meta.uid,
			   &e);
	for (size_t i = 0; i < n && !b->err; i++) {
		struct fs_node node;
		bool listed = pod_of_job(fs, job, e[i]->meta.pod) != NULL;

		for (size_t j = first; j < b->n && !listed; j++)
			listed = strcmp(b->e[j].name, e[i]->meta.pod) == 0;
		if (listed)
			continue;
		if (kept_pod_node(dir, e[i], &node) < 0)
			b->err = -ENOMEM;
		else
			list_add(b, e[i]->meta.pod, &node);
	}
	logkeep_entries_free(e, n);
}

static void list_pods(struct fs *fs, const struct fs_node *dir, struct list_builder *b)
{
	const struct job *job = model_job(fs, dir);
	const struct pod **pods = NULL;
	size_t n;

	if (!job) {
		b->err = -ENOENT;
		return;
	}
	n = cache_pods_of_job(fs->cache, job, &pods);
	for (size_t i = 0; i < n && !b->err; i++) {
		struct fs_node node;

		if (pod_node(dir, pods[i], &node) < 0)
			b->err = -ENOMEM;
		else
			list_add(b, pods[i]->meta.name, &node);
	}
	free(pods);
	list_kept_pods(fs, dir, job, b);
	if (b->n > 1 && !b->err)
		qsort(b->e, b->n, sizeof(*b->e), entry_by_name);
}

static int node_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct k8s_node *const *)a)->meta.name,
		      (*(const struct k8s_node *const *)b)->meta.name);
}

static void list_nodes(struct fs *fs, struct list_builder *b)
{
	const struct k8s_node **nodes = NULL;
	size_t n = cache_nodes(fs->cache, &nodes);

	if (n > 1)
		qsort(nodes, n, sizeof(*nodes), node_by_name);
	for (size_t i = 0; i < n && !b->err; i++) {
		struct fs_node node;

		if (k8s_node_node(nodes[i], &node) < 0)
			b->err = -ENOMEM;
		else
			list_add(b, nodes[i]->meta.name, &node);
	}
	free(nodes);
}

static int str_by_value(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void list_namespaces(struct fs *fs, struct list_builder *b)
{
	const char **names = NULL;
	size_t n = cache_namespaces(fs->cache, &names);

	if (n > 1)
		qsort(names, n, sizeof(*names), str_by_value);
	for (size_t i = 0; i < n && !b->err; i++) {
		struct fs_node node;

		if (strcmp(names[i], fs->namespace) == 0)
			continue;
		if (static_node(FS_NS_DIR, names[i], &node) < 0)
			b->err = -ENOMEM;
		else
			list_add(b, names[i], &node);
	}
	free(names);
}

/* 1, 2, ...: by number, oldest first (ls sorts them as text itself; ls -v by number). */
static void list_attempts(struct fs *fs, const struct fs_node *dir, struct list_builder *b)
{
	struct attempts a;

	if (!dir_exists(fs, dir)) {
		b->err = -ENOENT;
		return;
	}
	if (model_attempts(fs, dir, &a) < 0) {
		b->err = -ENOMEM;
		attempts_free(&a);
		return;
	}
	for (size_t i = 0; i < a.n && !b->err; i++) {
		struct fs_node node;
		char name[16];

		snprintf(name, sizeof(name), "%d", a.v[i].number);
		if (attempt_node(dir, &a.v[i], &node) < 0)
			b->err = -ENOMEM;
		else
			list_add(b, name, &node);
	}
	attempts_free(&a);
}

/* The root's `.Trash-UID`, while made: first, as '.' sorts before every fixed name. */
static void list_trash(struct fs *fs, const struct fs_node *dir, struct list_builder *b)
{
	struct fs_node node;

	if (dir->type != FS_ROOT || !trash_made(fs))
		return;
	if (trash_root_node(&node) < 0)
		b->err = -ENOMEM;
	else
		list_add(b, fs->trash_name, &node);
}

int model_list(struct fs *fs, const struct fs_node *dir, struct fs_entry **out, size_t *n)
{
	struct list_builder b = {NULL, 0, 0, 0};

	switch (dir->type) {
	case FS_JOBS_DIR:
		list_jobs(fs, dir->ns, &b);
		break;
	case FS_INSTANCES_DIR:
		list_pods(fs, dir, &b);
		break;
	case FS_NODES_DIR:
		list_nodes(fs, &b);
		break;
	case FS_NAMESPACES_DIR:
		list_namespaces(fs, &b);
		break;
	case FS_POD_ATTEMPTS_DIR:
		list_attempts(fs, dir, &b);
		break;
	case FS_CODE_DIR:
	case FS_CODE_SUBDIR:
		return codetree_list(fs, dir, out, n);
	default:
		if (!fs_type_is_dir(dir->type))
			b.err = -ENOTDIR;
		else if (!dir_exists(fs, dir))
			b.err = -ENOENT;
		else
			list_trash(fs, dir, &b);
		if (!b.err)
			list_fixed(fs, dir, &b);
	}
	if (b.err) {
		fs_entries_free(b.e, b.n);
		*out = NULL;
		*n = 0;
		return b.err;
	}
	*out = b.e;
	*n = b.n;
	return 0;
}

unsigned model_extras(struct fs *fs, const struct fs_node *dir)
{
	const struct place *const *c;
	size_t n = place_children(dir->type, &c);
	unsigned mask = place_optional_mask(dir->type), has = 0;

	if (!mask)
		return 0;
	cache_read_lock(fs->cache);
	for (size_t i = 0; i < n && i < sizeof(mask) * 8; i++) {
		struct fs_node child;

		if ((mask & (1u << i)) && model_lookup(fs, dir, c[i]->name, &child) == 0) {
			has |= 1u << i;
			fs_node_clear(&child);
		}
	}
	cache_read_unlock(fs->cache);
	return has;
}
