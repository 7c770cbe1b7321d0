/*
 * The keeper: the thread that keeps a copy of each terminated container's log
 * (keep_logs=SIZE, logkeep.h), so that it outlives its pod.
 *
 * The cache's change hook hands it the pods of jobs that changed (fs.c); the
 * thread looks each one up, and when its main container (the one whose log the
 * tree shows) has terminated and that instance is neither kept nor tried
 * already, it fetches the log once: a follow-less GET through the shared log
 * streams (k8s/logs/logstream.h), so that a reader who opens the same log meanwhile
 * shares that request. A whole log (the stream ended cleanly) is written to a
 * temporary file and committed; the notifier is then told the pod changed, so
 * that its log files and the job's info are looked at again. Nothing of this
 * runs on a FUSE worker, and only changes seen while mounted start a fetch: a
 * mount does not download every log the cluster holds.
 *
 * Every attempt: a container that ended and was restarted before the keeper saw it
 * terminated (a kubelet restarts it at once) still has that instance as its
 * lastState, whose log the kubelet serves as previous=true until the next restart:
 * a pod whose main container has a terminated lastState not kept yet has it fetched
 * so, once. Each instance is a copy of its own (logkeep.h), so the pod's attempts
 * all stay, within the budget.
 *
 * A copy that cannot be written (a full disk: ENOSPC) is a warning in the daemon's
 * log, shrinks the budget to what the disk holds (logkeep.h), and is tried once more
 * from the bytes already fetched when it fits then; cluster/health and info say
 * logs are not being kept until one is.
 *
 * Cost: one GET of pods/POD/log per terminated container instance, none when a
 * reader already had it open (docs/tree.md, "Logs kept after their pods"). At
 * most KEEPER_PARALLEL fetches run at once; a container that terminates just as
 * its pod is deleted (cleanPodPolicy) is fetched at once, before that.
 *
 * Locks: kp->w.mu guards the queue, the flags and each fetch's too_big; it is a leaf,
 * taken by the streams' callbacks, so the thread never holds it while calling
 * logstream_*() or the cache.
 */
#include "fs/logs/logkeeper.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/worker.h"
#include "render/pods.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fs/logs/logkeep.h"
#include "k8s/logs/logstream.h"
#include "k8s/base/fdio.h"
#include "k8s/base/hash.h"
#include "k8s/base/timefmt.h"

#define KEEPER_PARALLEL 4          /* fetches at once */
#define KEEPER_QUEUE_MAX 100000    /* pods waiting to be looked at */
#define KEEPER_TRIED_SLOTS 4096    /* instances fetched or given up, remembered */
#define KEEPER_POLL_MS 1000
#define KEEPER_COPY_CHUNK (64u << 10)

struct pending {
	struct pending *next;
	char *ns, *pod;                 /* in the same allocation */
};

struct fetch {
	struct fetch *next;
	struct logkeeper *kp;
	struct logstream *ls;
	struct logkeep_meta meta;       /* strings owned (strs) */
	char *strs;
	char *container_id;
	bool previous;                  /* the instance before the current (lastState) */
	uint64_t id;                    /* hash of the instance */
	bool too_big;                   /* kp->w.mu */
};

struct logkeeper {
	struct fs *fs;
	struct worker w;                /* the thread; w.mu guards what follows */
	uint64_t events;                /* bumped by every push and callback */
	struct pending *head, **tail;
	size_t queued;

	/* the thread's own */
	struct fetch *active;
	size_t nactive;
	uint64_t tried[KEEPER_TRIED_SLOTS];
};

int logkeeper_new(struct fs *fs, struct logkeeper **out)
{
	struct logkeeper *kp = calloc(1, sizeof(*kp));

	if (!kp)
		return -ENOMEM;
	kp->fs = fs;
	worker_init(&kp->w);
	kp->tail = &kp->head;
	*out = kp;
	return 0;
}

void logkeeper_pod_changed(struct logkeeper *kp, const char *ns, const char *pod)
{
	size_t lns = strlen(ns) + 1, lpod = strlen(pod) + 1;
	struct pending *p;

	pthread_mutex_lock(&kp->w.mu);
	if (!kp->w.running || kp->w.stop || kp->queued >= KEEPER_QUEUE_MAX) {
		pthread_mutex_unlock(&kp->w.mu);
		return;
	}
	pthread_mutex_unlock(&kp->w.mu);
	p = malloc(sizeof(*p) + lns + lpod);
	if (!p)
		return;
	p->next = NULL;
	p->ns = (char *)(p + 1);
	p->pod = p->ns + lns;
	memcpy(p->ns, ns, lns);
	memcpy(p->pod, pod, lpod);
	pthread_mutex_lock(&kp->w.mu);
	*kp->tail = p;
	kp->tail = &p->next;
	kp->queued++;
	kp->events++;
	pthread_cond_signal(&kp->w.cond);
	pthread_mutex_unlock(&kp->w.mu);
}

/* ---- what to fetch ---- */

static bool tried(struct logkeeper *kp, uint64_t id)
{
	return kp->tried[id % KEEPER_TRIED_SLOTS] == id;
}

static void mark_tried(struct logkeeper *kp, uint64_t id)
{
	kp->tried[id % KEEPER_TRIED_SLOTS] = id;
}

static void untry(struct logkeeper *kp, uint64_t id)
{
	if (tried(kp, id))
		kp->tried[id % KEEPER_TRIED_SLOTS] = 0;
}

/* The job a pod belongs to (its kind may be unknown when only a label names it). */
static const struct job *job_of_pod(struct fs *fs, const struct pod *pod)
{
	if (pod->job_kind >= 0)
		return fs->served[pod->job_kind]
			       ? cache_find_job(fs->cache, pod->meta.namespace, pod->job_kind,
						pod->job_name)
			       : NULL;
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job *job = fs->served[k] ? cache_find_job(fs->cache,
			pod->meta.namespace, k, pod->job_name) : NULL;

		if (job)
			return job;
	}
	return NULL;
}

static bool is_main_pod(struct fs *fs, const struct job *job, const struct pod *pod)
{
	const struct pod *main = fs->up.job_main_pod(fs, job);

	return main && main == pod;
}

static void fetch_free(struct fetch *f)
{
	if (!f)
		return;
	free(f->strs);
	free(f);
}

/* The reason as a meta file keeps it: one word (letters and digits), at most 39. */
static void reason_word(char *out, size_t size, const char *reason)
{
	size_t n = 0;

	for (const char *r = reason ? reason : ""; *r && n + 1 < size; r++)
		if ((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') || (*r >= '0' && *r <= '9'))
			out[n++] = *r;
	out[n] = '\0';
}

/* A fetch of the pod's main container's log: of its current instance when it has
 * terminated, or (previous) of the instance before, its lastState; NULL when there is
 * nothing to fetch. Under the cache's read lock. */
static struct fetch *candidate(struct fs *fs, const char *ns, const char *name, bool previous)
{
	const struct pod *pod = cache_find_pod(fs->cache, ns, name);
	const struct job *job;
	const struct container *c;
	const struct container_state *st;
	const char *cid;
	struct fetch *f;
	char *p;
	size_t len;
	int ci;

	if (!pod || !pod->job_name || !(job = job_of_pod(fs, pod)))
		return NULL;
	ci = render_pod_main_container(pod);
	if (ci < 0)
		return NULL;
	c = &pod->containers[ci];
	st = previous ? &c->last_state : &c->state;
	if (st->kind != CONTAINER_TERMINATED || (previous && c->restart_count < 1))
		return NULL;
	cid = previous ? st->container_id : c->container_id;
	f = calloc(1, sizeof(*f));
	len = strlen(ns) + strlen(job->meta.name) + strlen(pod->meta.name) + strlen(c->name) +
	      strlen(job->meta.uid) + strlen(pod->meta.uid) + strlen(cid) + 7;
	if (!f || !(f->strs = malloc(len))) {
		free(f);
		return NULL;
	}
	p = f->strs;
#define TAKE(field, s) do { field = p; p = stpcpy(p, s) + 1; } while (0)
	TAKE(f->meta.ns, ns);
	TAKE(f->meta.job, job->meta.name);
	TAKE(f->meta.pod, pod->meta.name);
	TAKE(f->meta.container, c->name);
	TAKE(f->meta.job_uid, job->meta.uid);
	TAKE(f->meta.pod_uid, pod->meta.uid);
	TAKE(f->container_id, cid);
#undef TAKE
	f->previous = previous;
	f->meta.kind = job->kind;
	f->meta.instance = previous ? c->restart_count - 1 : c->restart_count;
	f->meta.finished = st->finished;
	f->meta.started = st->started;
	f->meta.exit_code = st->exit_code;
	reason_word(f->meta.reason, sizeof(f->meta.reason), st->reason);
	f->meta.main = is_main_pod(fs, job, pod);
	return f;
}

static uint64_t instance_id(const struct logkeep_meta *m)
{
	uint64_t h = hash_fnv1a_str(HASH_FNV1A_INIT, m->pod_uid);

	h = hash_fnv1a_str(hash_fnv1a(h, "/", 1), m->container);
	h = hash_fnv1a(h, &m->instance, sizeof(m->instance));
	return h ? h : 1;   /* 0 is an empty slot */
}

static void identity_of(const struct logkeep_meta *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%d", m->pod_uid, m->container, m->instance);
}

/* The stream's thread: bytes arrived, or the stream ended. Must not block. */
static void fetch_appended(void *arg, uint64_t new_size)
{
	struct fetch *f = arg;
	struct logkeeper *kp = f->kp;

	pthread_mutex_lock(&kp->w.mu);
	if (new_size > kp->fs->opts.keep_logs)
		f->too_big = true;
	kp->events++;
	pthread_cond_signal(&kp->w.cond);
	pthread_mutex_unlock(&kp->w.mu);
}

/* Looks at one pod's current or (previous) last instance; starts a fetch when it has
 * ended and is not kept. */
static void consider_instance(struct logkeeper *kp, const char *ns, const char *pod,
			      bool previous)
{
	struct fs *fs = kp->fs;
	struct logstream_key key;
	struct k8s_error err;
	struct fetch *f;
	char identity[600];
	uint64_t size;
	int64_t finished;
	struct logkeep_ref ref;

	cache_read_lock(fs->cache);
	f = candidate(fs, ns, pod, previous);
	cache_read_unlock(fs->cache);
	if (!f)
		return;
	f->kp = kp;
	f->id = instance_id(&f->meta);
	identity_of(&f->meta, identity, sizeof(identity));
	ref = (struct logkeep_ref){f->meta.ns, f->meta.job, f->meta.pod, f->meta.container,
				   identity};
	for (struct fetch *a = kp->active; a; a = a->next)
		if (a->id == f->id)
			goto skip;
	if (tried(kp, f->id) || logkeep_has(fs->kept_logs, &ref, &size, &finished))
		goto skip;
	mark_tried(kp, f->id);
	memset(&key, 0, sizeof(key));
	key.namespace = f->meta.ns;
	key.pod = f->meta.pod;
	key.container = f->meta.container;
	key.container_id = f->container_id;
	key.previous = f->previous;
	key.finished = true;
	k8s_error_clear(&err);
	if (logstream_open(fs->streams, fs->client, &key, fetch_appended, f, &f->ls, &err) < 0) {
		say(LOG_DEBUG, "log of %s/%s not kept: %s", ns, pod, err.message);
		goto skip;
	}
	f->next = kp->active;
	kp->active = f;
	kp->nactive++;
	return;
skip:
	fetch_free(f);
}

/* Looks at one pod: its main container's instance that ended, and the one before. */
static void consider(struct logkeeper *kp, const char *ns, const char *pod)
{
	consider_instance(kp, ns, pod, false);
	consider_instance(kp, ns, pod, true);
}

/* ---- keeping what was fetched ---- */

/* Is the instance fetched still the one the request named? A restart between the end
 * and the request would have given the next instance's log (or, for previous, the
 * instance after it). */
static bool still_that_instance(struct fs *fs, const struct fetch *f)
{
	const struct pod *pod;
	bool same = true;

	cache_read_lock(fs->cache);
	pod = cache_find_pod(fs->cache, f->meta.ns, f->meta.pod);
	if (pod && strcmp(pod->meta.uid, f->meta.pod_uid) == 0)
		for (size_t i = 0; i < pod->n_containers; i++)
			if (strcmp(pod->containers[i].name, f->meta.container) == 0)
				same = pod->containers[i].restart_count ==
				       f->meta.instance + (f->previous ? 1 : 0);
	cache_read_unlock(fs->cache);
	return same;
}

/* Copies the stream's bytes into a temporary file and commits it. */
static int keep(struct fs *fs, struct fetch *f, uint64_t size)
{
	char name[32], *buf = malloc(KEEPER_COPY_CHUNK);
	int fd = buf ? logkeep_tmp(fs->kept_logs, name, sizeof(name)) : -ENOMEM;
	uint64_t off = 0;
	int ret = 0;

	if (fd < 0) {
		free(buf);
		return fd;
	}
	while (off < size && ret == 0) {
		ssize_t n = logstream_read(f->ls, buf, KEEPER_COPY_CHUNK, off);

		if (n <= 0) {
			ret = n < 0 ? (int)n : -EIO;
			break;
		}
		ret = fd_write_all(fd, buf, (size_t)n, -1);
		off += (uint64_t)n;
	}
	free(buf);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret < 0) {
		logkeep_discard(fs->kept_logs, name);
		return ret;
	}
	return logkeep_commit(fs->kept_logs, &f->meta, name, size);
}

/* Keeps a copy, room made first; when the disk is fuller than the budget says (its
 * budget then shrinks to it: logkeep_failed), once more from the same bytes. */
static int keep_fitted(struct fs *fs, struct fetch *f, uint64_t size)
{
	int ret = logkeep_make_room(fs->kept_logs, size);

	if (ret < 0)
		return ret;
	ret = keep(fs, f, size);
	if (ret != -ENOSPC && ret != -EDQUOT)
		return ret;
	logkeep_failed(fs->kept_logs, f->meta.ns, f->meta.pod, -ret, time_now());
	if (logkeep_make_room(fs->kept_logs, size) < 0)
		return ret;
	return keep(fs, f, size);
}

/* A fetch is over (or too large to keep): keep it when it is the whole log. */
static void fetch_done(struct logkeeper *kp, struct fetch *f, bool too_big)
{
	struct fs *fs = kp->fs;
	char why[256];
	int ret;

	logstream_status(f->ls, why, sizeof(why));
	if (too_big) {
		say(LOG_DEBUG, "log of %s/%s not kept: larger than keep_logs", f->meta.ns,
		    f->meta.pod);
		logkeep_not_kept(fs->kept_logs, &f->meta, EFBIG);
	} else if (logstream_health(f->ls) != LOGSTREAM_OK || why[0]) {
		say(LOG_DEBUG, "log of %s/%s not kept: %s", f->meta.ns, f->meta.pod,
		    why[0] ? why : "the stream failed");
	} else if (!still_that_instance(fs, f)) {
		say(LOG_DEBUG, "log of %s/%s not kept: the container restarted meanwhile",
		    f->meta.ns, f->meta.pod);
		/* it is the instance before now: fetched again as previous */
		if (!f->previous)
			untry(kp, f->id);
	} else if ((ret = keep_fitted(fs, f, logstream_size(f->ls))) == -EINVAL || ret == -EFBIG) {
		/* a name that cannot be a path component, a log over keep_logs: this log's */
		say(LOG_DEBUG, "log of %s/%s not kept: %s", f->meta.ns, f->meta.pod,
		    strerror(-ret));
		if (ret == -EFBIG)
			logkeep_not_kept(fs->kept_logs, &f->meta, EFBIG);
	} else if (ret < 0) {
		/* the disk's: the logs after it will fail alike (ENOSPC, EDQUOT, EIO, EROFS) */
		logkeep_failed(fs->kept_logs, f->meta.ns, f->meta.pod, -ret, time_now());
		say(LOG_WARNING, "log of %s/%s not kept in %s: %s", f->meta.ns, f->meta.pod,
		    logkeep_dir(fs->kept_logs), strerror(-ret));
	} else {
		logkeep_kept(fs->kept_logs);
		/* its log files and the job's info are looked at again */
		struct cache_change c = {CACHE_POD, CACHE_MODIFIED, f->meta.ns, f->meta.pod,
					 f->meta.kind, f->meta.job, NULL, "", ""};

		fs->up.changed(fs, &c);
	}
	logstream_release(f->ls, fetch_appended, f);
	fetch_free(f);
}

/* Ends the fetches that are over. */
static void reap(struct logkeeper *kp)
{
	struct fetch **pp = &kp->active;

	while (*pp) {
		struct fetch *f = *pp;
		bool too_big;

		pthread_mutex_lock(&kp->w.mu);
		too_big = f->too_big;
		pthread_mutex_unlock(&kp->w.mu);
		if (!too_big && !logstream_done(f->ls)) {
			pp = &f->next;
			continue;
		}
		*pp = f->next;
		kp->nactive--;
		fetch_done(kp, f, too_big);
	}
}

static void *keeper_main(void *arg)
{
	struct logkeeper *kp = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&kp->w.mu);
	while (!kp->w.stop) {
		struct pending *p = NULL;

		if (kp->events == seen)
			worker_sleep(&kp->w, KEEPER_POLL_MS);
		seen = kp->events;
		/* one pod at a time while a fetch can start, the rest wait their turn */
		while (!kp->w.stop && kp->head && kp->nactive < KEEPER_PARALLEL) {
			p = kp->head;
			kp->head = p->next;
			if (!kp->head)
				kp->tail = &kp->head;
			kp->queued--;
			pthread_mutex_unlock(&kp->w.mu);
			consider(kp, p->ns, p->pod);
			free(p);
			pthread_mutex_lock(&kp->w.mu);
		}
		pthread_mutex_unlock(&kp->w.mu);
		reap(kp);
		pthread_mutex_lock(&kp->w.mu);
		if (kp->head && kp->nactive < KEEPER_PARALLEL)
			kp->events++;   /* a fetch ended: the queue goes on at once */
	}
	pthread_mutex_unlock(&kp->w.mu);
	return NULL;
}

int logkeeper_start(struct logkeeper *kp)
{
	int ret = worker_start(&kp->w, keeper_main, kp);

	return ret == -ESHUTDOWN ? 0 : ret;
}

void logkeeper_stop(struct logkeeper *kp)
{
	struct pending *p;

	if (!kp)
		return;
	worker_stop(&kp->w);
	while (kp->active) {
		struct fetch *f = kp->active;

		kp->active = f->next;
		logstream_release(f->ls, fetch_appended, f);
		fetch_free(f);
	}
	kp->nactive = 0;
	pthread_mutex_lock(&kp->w.mu);
	p = kp->head;
	kp->head = NULL;
	kp->tail = &kp->head;
	kp->queued = 0;
	pthread_mutex_unlock(&kp->w.mu);
	while (p) {
		struct pending *next = p->next;

		free(p);
		p = next;
	}
}

void logkeeper_free(struct logkeeper *kp)
{
	if (!kp)
		return;
	logkeeper_stop(kp);
	worker_destroy(&kp->w);
	free(kp);
}
