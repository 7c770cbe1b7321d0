/*
 * Gathering what render/ needs from the cache: a job with its pods, services,
 * nodes and events (its own, its pods', and those of the batch Jobs and JobSets
 * between them, by the owner chain: struct job_view), the jobs of a namespace or
 * of all with their pods (the tables of jobs), the nodes with the pods bound to them
 * (struct node_view), and the moment a pod last changed.
 *
 * Called under the cache's read lock by model.c and content.c; the pointers stay
 * valid until it is released. Only the parts asked for are gathered, so that
 * reading every status file costs one pod lookup per job, not a scan of the events.
 * One part touches the disk: a failed instance's kept log, whose last 4 KiB `why`
 * quotes (VIEW_LOG_TAIL: an open and one pread, under the read lock, of a file the
 * keeper wrote; never a request).
 */
#include "fs/tree/view.h"
#include "k8s/cache/cache.h"
#include "k8s/base/timefmt.h"
#include "fs/logs/logkeep.h"
#include "render/render.h"
#include "render/why.h"
#include "render/job_times.h"
#include "render/pods.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most of a failed instance's kept log read for why's last lines. */
#define VIEW_LOG_TAIL_BYTES 4096

static bool add_event(const struct event ***arr, size_t *n, size_t *cap, const struct event *e)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		const struct event **na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return false;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = e;
	return true;
}

/* Events of involved objects named name in ns, of kind kind_name (the uid decides when
 * the event carries one: a re-created job must not show its predecessor's events). */
static int gather_events(struct fs *fs, const char *ns, const char *name, const char *kind_name,
			 const char *uid, const struct event ***arr, size_t *n, size_t *cap)
{
	const struct event **found = NULL;
	size_t nf = cache_events_for(fs->cache, ns, name, &found);
	int ret = 0;

	for (size_t i = 0; i < nf; i++) {
		const struct event *e = found[i];

		if (strcmp(e->involved_kind, kind_name) != 0)
			continue;
		if (e->involved_uid[0] && uid[0] && strcmp(e->involved_uid, uid) != 0)
			continue;
		if (!add_event(arr, n, cap, e)) {
			ret = -ENOMEM;
			break;
		}
	}
	free(found);
	return ret;
}

/* How deep the owner chain is followed below a job: job -> JobSet -> batch Jobs is
 * two; a loop of ownerReferences (a hostile server's) stops here. */
#define VIEW_OWNED_DEPTH 4

/* Events of what the object of uid owns, and of what that owns, down the owner
 * chain (a TrainJob's JobSet and its batch Jobs, an MPIJob's launcher Job); the
 * pods are gathered as the job's. One index lookup per object: no request. */
static int gather_owned_events(struct fs *fs, const char *ns, const char *uid, int depth,
			       const struct event ***arr, size_t *n, size_t *cap)
{
	const struct owned **owned = NULL;
	size_t no;
	int ret = 0;

	if (depth >= VIEW_OWNED_DEPTH || !*uid)
		return 0;
	no = cache_owned_by(fs->cache, ns, uid, &owned);
	for (size_t i = 0; i < no && !ret; i++) {
		ret = gather_events(fs, ns, owned[i]->meta.name, owned_kinds(owned[i]->kind)->kind_name,
				    owned[i]->meta.uid, arr, n, cap);
		if (!ret)
			ret = gather_owned_events(fs, ns, owned[i]->meta.uid, depth + 1, arr, n, cap);
	}
	free(owned);
	return ret;
}

static int kept_by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pods of an ended job gone from the cache whose logs are kept (model.c lists
 * them in instances/), by name. Needs the pods gathered. */
static int gather_kept(struct fs *fs, struct fs_job_view *out)
{
	struct job_view *v = &out->v;
	const struct job *job = v->job;

	if (!fs->kept_logs || !render_job_ended(v))
		return 0;
	logkeep_state(fs->kept_logs, &out->keep);
	if (out->keep.err)
		v->keep = &out->keep;   /* info says why a log it meant to keep is gone */
	out->n_kept = logkeep_of_job(fs->kept_logs, job->meta.namespace, job->kind, job->meta.name,
				     job->meta.uid, &out->kept);
	if (!out->n_kept)
		return 0;
	out->kept_names = calloc(out->n_kept, sizeof(*out->kept_names));
	if (!out->kept_names)
		return -ENOMEM;
	for (size_t i = 0; i < out->n_kept; i++) {
		const char *pod = out->kept[i]->meta.pod;
		bool listed = false;

		for (size_t j = 0; j < v->n_pods && !listed; j++)
			listed = strcmp(v->pods[j]->meta.name, pod) == 0;
		for (size_t j = 0; j < v->n_kept_pods && !listed; j++)
			listed = strcmp(out->kept_names[j], pod) == 0;
		if (!listed)
			out->kept_names[v->n_kept_pods++] = pod;
	}
	if (v->n_kept_pods > 1)
		qsort(out->kept_names, v->n_kept_pods, sizeof(*out->kept_names), kept_by_name);
	v->kept_pods = out->kept_names;
	return 0;
}

/* The end of the failed instance's log (why.c names it), when arenafs kept it: read
 * from the kept copy on disk, never from the cluster (a file's text is made from
 * what is at hand). Only a failed current instance is quoted (the one before a
 * restart is in attempts/ and logs.previous). No copy, or one that cannot be read: no tail, and why says where the log is. */
static int gather_log_tail(struct fs *fs, struct fs_job_view *out)
{
	const struct pod *pod;
	const struct container *c;
	bool previous;
	char identity[512];
	struct logkeep_ref ref;
	uint64_t size;
	off_t from;
	ssize_t n;
	int fd;

	if (!fs->kept_logs || !render_job_why_failure(&out->v, &pod, &c, &previous) || previous)
		return 0;
	snprintf(identity, sizeof(identity), "%s/%s/%d", pod->meta.uid, c->name,
		 c->restart_count);
	ref = (struct logkeep_ref){out->v.job->meta.namespace, out->v.job->meta.name,
				   pod->meta.name, c->name, identity};
	if (logkeep_open_log(fs->kept_logs, &ref, &fd, &size) < 0)
		return 0;
	out->log_tail = malloc(VIEW_LOG_TAIL_BYTES + 1);
	if (!out->log_tail) {
		close(fd);
		return -ENOMEM;
	}
	from = size > VIEW_LOG_TAIL_BYTES ? (off_t)(size - VIEW_LOG_TAIL_BYTES) : 0;
	n = pread(fd, out->log_tail, VIEW_LOG_TAIL_BYTES, from);
	close(fd);
	if (n <= 0) {
		free(out->log_tail);
		out->log_tail = NULL;
		return 0;
	}
	out->log_tail[n] = '\0';
	out->v.failed_log_tail = out->log_tail;
	out->v.failed_log_tail_len = (size_t)n; /* a log may hold NUL: its bytes, not a string */
	return 0;
}

/* Kueue's word on the job: its Workload (by the owner index), its queues, its place. */
static void gather_queue(struct fs *fs, const struct job *job, struct job_queue *q)
{
	const struct workload *w = cache_workload_of_job(fs->cache, job);
	const struct queue_line *line;
	struct kueue_api api;
	const char *cq;

	if (!w)
		return;
	cache_kueue(fs->cache, &api);
	q->workload = w;
	q->visibility = api.visibility[0] != '\0';
	q->lq = *w->queue ? cache_find_localqueue(fs->cache, w->meta.namespace, w->queue) : NULL;
	cq = *w->cluster_queue ? w->cluster_queue : q->lq ? q->lq->cluster_queue : "";
	q->cq = *cq ? cache_find_clusterqueue(fs->cache, cq) : NULL;
	line = *w->queue ? cache_queue_line(fs->cache, w->meta.namespace, w->queue) : NULL;
	for (size_t i = 0; line && i < line->n_places && !q->place; i++)
		if (strcmp(line->places[i].workload, w->meta.name) == 0)
			q->place = &line->places[i];
}

int view_job(struct fs *fs, const struct job *job, unsigned want, struct fs_job_view *out)
{
	struct job_view *v = &out->v;
	size_t cap = 0;
	int ret = 0;

	assert(cache_read_locked(fs->cache));
	memset(out, 0, sizeof(*out));
	v->job = job;
	v->now = time_now();
	gather_queue(fs, job, &v->queue);
	if (want & (VIEW_PODS | VIEW_EVENTS)) {
		v->n_pods = cache_pods_of_job(fs->cache, job, &out->pods);
		v->pods = (const struct pod *const *)out->pods;
	}
	if (want & VIEW_SERVICES) {
		v->n_services = cache_services_of_job(fs->cache, job->meta.namespace, job->meta.name,
						      &out->services);
		v->services = (const struct service *const *)out->services;
	}
	/* Nodes only give a TensorBoard's address: without a service of the job they are
	 * not needed, and gathering them costs a scan of every node per job. */
	if ((want & VIEW_NODES) && (!(want & VIEW_SERVICES) || v->n_services)) {
		v->n_nodes = cache_nodes(fs->cache, &out->nodes);
		v->nodes = (const struct k8s_node *const *)out->nodes;
	}
	if (want & VIEW_EVENTS) {
		const struct job_kind_info *ki = kinds_info(job->kind);

		ret = gather_events(fs, job->meta.namespace, job->meta.name, ki->kind_name,
				    job->meta.uid, &out->events, &v->n_events, &cap);
		if (!ret)
			ret = gather_owned_events(fs, job->meta.namespace, job->meta.uid, 0,
						  &out->events, &v->n_events, &cap);
		for (size_t i = 0; !ret && i < v->n_pods; i++)
			ret = gather_events(fs, job->meta.namespace, v->pods[i]->meta.name, "Pod",
					    v->pods[i]->meta.uid, &out->events, &v->n_events, &cap);
		v->events = (const struct event *const *)out->events;
	}
	if (!ret && (want & VIEW_KEPT))
		ret = gather_kept(fs, out);
	if (!ret && (want & VIEW_LOG_TAIL))
		ret = gather_log_tail(fs, out);
	if (ret)
		view_job_free(out);
	return ret;
}

void view_job_free(struct fs_job_view *jv)
{
	logkeep_entries_free(jv->kept, jv->n_kept);
	free(jv->kept_names);
	free(jv->log_tail);
	free(jv->pods);
	free(jv->services);
	free(jv->nodes);
	free(jv->events);
	memset(jv, 0, sizeof(*jv));
}

/* Appends the served jobs of ns, each with the parts want names, to the array at *out. */
static int add_jobs_of(struct fs *fs, const char *ns, unsigned want, int64_t now,
		       struct job_view **out, size_t *n, size_t *cap)
{
	const struct job **jobs = NULL;
	size_t count = cache_jobs(fs->cache, ns, &jobs);
	int ret = 0;

	if (count && !jobs)
		return -ENOMEM;
	for (size_t i = 0; i < count && !ret; i++) {
		struct fs_job_view jv;

		/* as jobs/ lists them (model.c): a kind not served is not in the tree */
		if (!fs->served[jobs[i]->kind])
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct job_view *na = realloc(*out, nc * sizeof(*na));

			if (!na) {
				ret = -ENOMEM;
				break;
			}
			*out = na;
			*cap = nc;
		}
		if ((ret = view_job(fs, jobs[i], want, &jv)) != 0)
			break;
		jv.v.now = now;
		/* takes jv's pods, services, nodes and events: view_jobs_free frees them */
		(*out)[(*n)++] = jv.v;
	}
	free(jobs);
	return ret;
}

int view_jobs(struct fs *fs, const char *ns, unsigned want, struct job_view **out, size_t *n)
{
	const char **names = NULL;
	size_t count = 1, cap = 0;
	int64_t now = time_now();
	int ret = 0;

	/* the parts a job_view points to alone: kept logs and a log tail need their
	 * fs_job_view kept, which an array of views does not */
	assert(!(want & (VIEW_KEPT | VIEW_LOG_TAIL)));
	*out = NULL;
	*n = 0;
	if (!ns) {
		count = cache_namespaces(fs->cache, &names);
		if (!names)
			return -ENOMEM;
	}
	for (size_t i = 0; i < count && !ret; i++)
		ret = add_jobs_of(fs, ns ? ns : names[i], want | VIEW_PODS, now, out, n, &cap);
	free(names);
	if (ret) {
		view_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void view_jobs_free(struct job_view *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free((void *)v[i].pods);
		free((void *)v[i].services);
		free((void *)v[i].nodes);
		free((void *)v[i].events);
	}
	free(v);
}

static int node_by_name(const void *a, const void *b)
{
	const struct node_view *x = a, *y = b;

	return strcmp(x->node->meta.name, y->node->meta.name);
}

int view_nodes(struct fs *fs, const struct k8s_node *only, struct node_view **out, size_t *n)
{
	const struct k8s_node **nodes = NULL;
	struct node_view *v;
	size_t count;
	int64_t now = time_now();

	*out = NULL;
	*n = 0;
	if (only) {
		count = 1;
	} else {
		count = cache_nodes(fs->cache, &nodes);
		if (count == 0)
			return 0;
	}
	v = calloc(count, sizeof(*v));
	if (!v) {
		free(nodes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		const struct pod **pods = NULL;

		v[i].node = only ? only : nodes[i];
		v[i].n_pods = cache_pods_on_node(fs->cache, v[i].node->meta.name, &pods);
		v[i].pods = (const struct pod *const *)pods;
		v[i].now = now;
	}
	free(nodes);
	if (count > 1)
		qsort(v, count, sizeof(*v), node_by_name);
	*out = v;
	*n = count;
	return 0;
}

void view_nodes_free(struct node_view *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free((void *)v[i].pods);
	free(v);
}

const struct pod *view_job_main_pod(struct fs *fs, const struct job *job)
{
	struct fs_job_view jv;
	const struct pod *pod = NULL;
	int i;

	if (view_job(fs, job, VIEW_PODS, &jv))
		return NULL;
	i = render_job_main_pod(&jv.v);
	if (i >= 0)
		pod = jv.v.pods[i];
	view_job_free(&jv);
	return pod;
}

bool view_job_ended_without_pods(struct fs *fs, const struct job *job)
{
	struct fs_job_view jv;
	bool gone = false;

	if (job && view_job(fs, job, VIEW_PODS, &jv) == 0) {
		gone = jv.v.n_pods == 0 && render_job_ended(&jv.v);
		view_job_free(&jv);
	}
	return gone;
}
