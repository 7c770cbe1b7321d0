/*
 * Log files (jobs/NAME/logs, instances/POD/logs, logs.previous, attempts/N/log): each inode
 * stands for one container instance (model.c names it by restartCount), and
 * while it is open it holds one reference on that instance's shared follow
 * stream (k8s/logs/logstream.h).
 *
 * What users' tools need from it (docs/fuse.md):
 * - st_size is the bytes buffered and grows; every append is passed to the
 *   notifier, which tells the kernel the attributes changed, so GNU tail -f
 *   (which polls fstat on FUSE and reads exactly the growth) prints new lines.
 * - open() waits a little for the first bytes, and for the kernel to have been
 *   told the size, so `cat logs` and tail's first fstat see the log so far; for a
 *   terminated container it waits (as long) for the whole log, so that tools
 *   which fstat once after open (tail -n, cp) see its full size.
 * - reads at the end of what has arrived wait while the stream is still
 *   catching up (bytes arrived within LOG_QUIET_MS, and no line written since
 *   the stream's request began has come: a chatty container's `cat` ends at
 *   about now, not when its log pauses), and for a finished
 *   container until its log is complete: `cat` of a finished log is whole. No
 *   read waits more than log_wait for bytes.
 * - a pending container has no instance yet: an empty file, never an error;
 *   its stream starts when the cache shows the container started.
 * - a log that cannot be had is not an empty file (end_of_log): EIO when its
 *   stream failed or got nothing yet, ETIMEDOUT when a finished log stalls or
 *   the server has not answered a running one's stream for log_wait (a log is
 *   empty only when the server said so), ENODATA at open when a finished job's
 *   pods are gone.
 *
 * Size and mtime when no stream is open (docs/tree.md, "Size and mtime of a
 * log"): the Kubernetes API has no way to learn a log's length but to download
 * it, so stat never touches the network (`ls -l` over thousands of job
 * directories must not fetch thousands of logs). The size is what was read: 0
 * before the first open, then the largest size a stream reached. A terminated instance's
 * log read to its end is complete: that size is final, is kept for the inode's
 * life, and is promised again by the next open while its stream catches up
 * (reads below it wait for the bytes, because tar takes a short read for a
 * shrunken file and pads it with zeros). st_mtime is when the log last grew as
 * far as arenafs saw it, and for a terminated instance never later than its
 * finishedAt, which stands in when nothing was read (a fetch after the end
 * would otherwise stamp the log with the fetch time).
 *
 * Locks: inode_lock(in) guards in->log's stream pointer and counters and may be held
 * while calling logstream_*; log->mu (a leaf) guards what the stream's callback
 * writes, because the callback may run under the stream's own lock.
 */
#include "fs/logs/logfile.h"
#include "k8s/base/invariant.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/worker.h"
#include "render/job_files.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fs/logs/logkeep.h"
#include "k8s/logs/logstream.h"
#include "k8s/base/hash.h"
#include "k8s/base/timefmt.h"

#define LOG_QUIET_MS 100           /* a stream silent this long has caught up */
#define LOG_NOTIFY_WAIT_MS 500     /* open waits this long for the size notice to go out */
#define LOG_POLL_MS 20
#define LOG_MEMO_SLOTS 2048        /* instances whose read size outlives their inodes */
#define SLOW_OPEN_SAY_MS 60000     /* slow opens are told at most this often */

struct say {
	/* guarded by inode_lock(in) */
	struct logstream *ls;        /* NULL: no stream (not open, or no instance yet) */
	unsigned nopen;
	bool finished;               /* the stream reads a terminated instance once */
	uint64_t last_size;          /* the largest size a stream reached (stat after close) */
	int64_t last_mtime;          /* when a stream last appended bytes, 0: never */
	bool complete;               /* last_size is a terminated instance's whole log */

	/* guarded by mu: written by the stream's callback */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	uint64_t appended;
	int64_t last_append_ms;      /* CLOCK_MONOTONIC */

	struct fs *fs;
	struct fs_inode *in;
};

/*
 * What was read of each container instance, by the identity of its log nodes
 * (POD_UID/CONTAINER/RESTARTS, model.c): jobs/NAME/logs and instances/POD/logs of
 * the same instance are two inodes, and the kernel may forget an inode; both
 * should still show what either read. A direct-mapped cache: a collision forgets
 * the older instance, which then reads 0 again until opened. Its lock is a leaf.
 */
struct log_memo {
	char identity[160];
	uint64_t size;
	int64_t grew;
	bool complete;
};
struct log_memo_table {
	pthread_mutex_t lock;
	struct log_memo slot[LOG_MEMO_SLOTS];
};

int logfile_memo_new(struct log_memo_table **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	pthread_mutex_init(&(*out)->lock, NULL);
	return 0;
}

void logfile_memo_free(struct log_memo_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static struct log_memo *memo_slot(struct log_memo_table *t, const char *identity)
{
	return &t->slot[hash_fnv1a_str(HASH_FNV1A_INIT, identity) % LOG_MEMO_SLOTS];
}

/* Folds what one inode learned into the memo, and the memo into it. */
static void memo_merge(struct fs *fs, const char *identity, uint64_t *size, int64_t *grew,
		       bool *complete)
{
	struct log_memo_table *t = fs->log_memo;
	struct log_memo *m;

	if (!identity || !identity[0] || strlen(identity) >= sizeof(m->identity))
		return;
	m = memo_slot(t, identity);
	pthread_mutex_lock(&t->lock);
	if (strcmp(m->identity, identity) != 0) {
		if (!*size && !*complete)
			goto out; /* nothing to tell, nothing known */
		snprintf(m->identity, sizeof(m->identity), "%s", identity);
		m->size = 0;
		m->grew = 0;
		m->complete = false;
	}
	if (*complete && !m->complete) {
		m->size = *size;
		m->complete = true;
	} else if (!m->complete && *size > m->size) {
		m->size = *size;
	}
	if (*grew > m->grew)
		m->grew = *grew;
	*size = m->size;
	*grew = m->grew;
	*complete = m->complete;
out:
	pthread_mutex_unlock(&t->lock);
}

static void wait_ms(struct say *log, int ms)
{
	struct timespec ts = worker_deadline(ms);

	pthread_cond_timedwait(&log->cond, &log->mu, &ts);
}

static struct say *log_state(struct fs *fs, struct fs_inode *in)
{
	struct say *log = in->log;

	if (log)
		return log;
	log = calloc(1, sizeof(*log));
	if (!log)
		return NULL;
	pthread_mutex_init(&log->mu, NULL);
	worker_cond_init(&log->cond);
	log->fs = fs;
	log->in = in;
	in->log = log;
	return log;
}

/* The stream's thread: bytes arrived. Must not block (client.h) nor take inode_lock(in). */
static void log_appended(void *arg, uint64_t new_size)
{
	struct say *log = arg;

	pthread_mutex_lock(&log->mu);
	log->appended = new_size;
	log->last_append_ms = time_monotonic_ms();
	pthread_cond_broadcast(&log->cond);
	pthread_mutex_unlock(&log->mu);
	log->fs->up.log_grew(log->fs, log->in);
}

/* Does the identity (POD_UID/...) still name this pod? */
static bool identity_is_pod(const char *identity, const struct pod *pod)
{
	size_t n = strlen(pod->meta.uid);

	return n && strncmp(identity, pod->meta.uid, n) == 0 && identity[n] == '/';
}

/* The container instance a log node stands for, from the cache. */
struct instance {
	const struct pod *pod;
	const struct container *c;
	const struct container_state *state; /* c->state, or c->last_state for a previous one */
	bool previous;                       /* the instance before the current one */
};

/*
 * Finds the instance of node; false when the pod is gone (or is another pod of that
 * name), has no such container, or the instance is older than the one before the
 * current. Pointers into the cache: call under the read lock.
 */
static bool instance_find(struct fs *fs, const struct fs_node *node, struct instance *out)
{
	const struct pod *pod;
	const struct container *c = NULL;

	if (!node->pod || !node->container || !(pod = cache_find_pod(fs->cache, node->ns, node->pod)))
		return false;
	if (!identity_is_pod(node->identity, pod))
		return false;
	for (size_t i = 0; i < pod->n_containers && !c; i++)
		if (strcmp(pod->containers[i].name, node->container) == 0)
			c = &pod->containers[i];
	if (!c)
		return false;
	out->pod = pod;
	out->c = c;
	if (node->type != FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts) {
		out->state = &c->state;
		out->previous = false;
		return true;
	}
	/* logs.previous, or the logs of an instance that has just been replaced */
	if ((node->type == FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts) ||
	    (node->type != FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts + 1)) {
		out->state = &c->last_state;
		out->previous = true;
		return true;
	}
	return false;
}

/*
 * The stream key of the instance node stands for. Returns false when there is
 * nothing to stream (yet): a pending container, a pod that is gone, an instance
 * older than the one before the current. Strings point into the cache: call under
 * the read lock and copy them before it is released.
 */
static bool instance_key(struct fs *fs, const struct fs_node *node, struct logstream_key *key)
{
	struct instance it;

	if (!instance_find(fs, node, &it))
		return false;
	memset(key, 0, sizeof(*key));
	key->namespace = it.pod->meta.namespace;
	key->pod = it.pod->meta.name;
	key->container = it.c->name;
	if (!it.previous) {
		/* the current instance: streamable once it has started. A kubelet sets
		 * containerID as it starts the container; a node agent that never sets
		 * it (kwok without a containerID in its stages) still has a log once the
		 * state says running or terminated. */
		if (!it.c->container_id[0] && it.state->kind != CONTAINER_RUNNING &&
		    it.state->kind != CONTAINER_TERMINATED)
			return false;
		key->container_id = it.c->container_id;
		key->finished = it.state->kind == CONTAINER_TERMINATED;
		return true;
	}
	if (it.state->kind != CONTAINER_TERMINATED)
		return false;
	key->container_id = it.state->container_id;
	key->previous = true;
	key->finished = true;
	return true;
}

/* A finished job without pods (cleanPodPolicy, a TTL, an admin): its log is gone
 * with them, which is not an empty log (info says the same). Cache read-locked. */
static bool job_log_is_gone(struct fs *fs, const struct fs_node *node)
{
	const struct job *job = fs->up.job(fs, node);

	return job && fs->up.job_ended_without_pods(fs, job);
}

static struct logkeep_ref kept_ref(const struct fs_node *node)
{
	return (struct logkeep_ref){node->ns, node->job, node->pod, node->container, node->identity};
}

/* The instance's kept copy (logkeep.h), when there is one: read from disk, with no
 * request, whether its pod is still there or not. Called with inode_lock(in) held. */
static bool attach_kept_locked(struct fs *fs, struct fs_inode *in, struct say *log)
{
	struct logkeep_ref r = kept_ref(&in->node);
	uint64_t size, ignored;
	int64_t finished = 0;

	assert(inode_lock_held(in));
	int fd;

	if (!fs->kept_logs || !in->node.pod || !in->node.container ||
	    !logkeep_has(fs->kept_logs, &r, &ignored, &finished) ||
	    logkeep_open_log(fs->kept_logs, &r, &fd, &size) < 0)
		return false;
	if (logstream_from_file(fd, size, finished ? finished : time_now(), &log->ls) < 0) {
		close(fd);
		log->ls = NULL;
		return false;
	}
	log->finished = true;
	inode_table_pin(fs->inodes, in);   /* as for a stream: detach_locked puts it */
	return true;
}

/* Starts the stream when there is an instance to stream. Called with inode_lock(in) held.
 * -ENODATA: a finished job's log whose pods are gone, and not kept. */
static int attach_locked(struct fs *fs, struct fs_inode *in, struct say *log)
{
	struct logstream_key key;
	char ns[256], pod[256], container[256], cid[256];
	struct k8s_error err;
	bool have, gone = false;
	int ret;

	assert(inode_lock_held(in));
	if (log->ls || attach_kept_locked(fs, in, log) || !fs->client)
		return 0;
	cache_read_lock(fs->cache);
	have = instance_key(fs, &in->node, &key);
	if (!have && in->node.type == FS_JOB_LOGS)
		gone = job_log_is_gone(fs, &in->node);
	if (have) {
		snprintf(ns, sizeof(ns), "%s", key.namespace);
		snprintf(pod, sizeof(pod), "%s", key.pod);
		snprintf(container, sizeof(container), "%s", key.container);
		snprintf(cid, sizeof(cid), "%s", key.container_id ? key.container_id : "");
		key.namespace = ns;
		key.pod = pod;
		key.container = container;
		key.container_id = cid;
	}
	cache_read_unlock(fs->cache);
	/* an attempt's log neither kept nor served any more: attempts/N/info says why */
	if (!have)
		return gone || in->node.type == FS_ATTEMPT_LOG ? -ENODATA : 0;
	/* half of log_wait: the probe's answer can come before the reader's deadline */
	key.probe_after_ms = fs->opts.log_wait_ms / 2 > 0 ? fs->opts.log_wait_ms / 2 : 1;
	k8s_error_clear(&err);
	ret = logstream_open(fs->streams, fs->client, &key, log_appended, log, &log->ls, &err);
	if (ret) {
		log->ls = NULL;
		say(LOG_DEBUG, "log of %s/%s: %s", ns, pod, err.message);
		return ret;
	}
	log->finished = key.finished;
	inode_table_pin(fs->inodes, in);   /* the callback's arg lives while the stream does */
	return 0;
}

/* Keeps what the attached stream has read: its size, when it last grew, and whether it
 * holds a terminated instance's whole log. Called with inode_lock(in) held. */
static void note_stream_locked(struct fs_inode *in, struct say *log)
{
	bool done = logstream_done(log->ls);
	uint64_t size = logstream_size(log->ls);
	char why[8];

	assert(inode_lock_held(in));
	if (size > 0) {
		int64_t t = logstream_mtime(log->ls);

		if (t > log->last_mtime)
			log->last_mtime = t;
	}
	if (log->finished && done) {
		/* "the log is incomplete: ...", "the pod is gone...": not the whole log */
		logstream_status(log->ls, why, sizeof(why));
		if (!why[0]) {
			log->last_size = size;
			log->complete = true;
		}
	}
	if (!log->complete && size > log->last_size)
		log->last_size = size;
	memo_merge(log->fs, in->node.identity, &log->last_size, &log->last_mtime, &log->complete);
}

/* st_size: what the open stream holds (a complete log's known size while a new stream
 * catches up: reads below it wait for the bytes), else what was read. */
static uint64_t size_locked(struct say *log)
{
	bool done;
	uint64_t size;

	if (!log->ls)
		return log->last_size;
	done = logstream_done(log->ls);
	size = logstream_size(log->ls);
	if (log->complete && !done && size < log->last_size)
		size = log->last_size;
	return size;
}

/*
 * The other log inodes of in's container instance (jobs/NAME/logs and
 * instances/POD/logs) may have told the kernel a size from before this read: have
 * the notifier tell it their attributes changed. Called without inode_lock(in).
 */
static void tell_siblings(struct fs *fs, struct fs_inode *in)
{
	static const enum fs_type places[] = {FS_JOB_LOGS, FS_POD_LOGS};
	struct fs_node where = in->node;  /* shallow: only read by place_node_key */
	char key[600];

	for (size_t p = 0; p < sizeof(places) / sizeof(places[0]); p++) {
		struct fs_inode **arr = NULL;
		size_t n;

		where.type = places[p];
		place_node_key(&where, key, sizeof(key));
		n = key[0] ? inode_table_by_object(fs->inodes, key, &arr) : 0;
		for (size_t i = 0; i < n; i++) {
			struct fs_inode *o = arr[i];

			if (o != in && fs_type_is_log(o->node.type) &&
			    strcmp(o->node.identity, in->node.identity) == 0)
				fs->up.log_grew(fs, o);
			inode_table_put(fs->inodes, o);
		}
		free(arr);
	}
}

/* Drops the stream; true when it had read something the instance's other inodes may
 * not show yet. */
static bool detach_locked(struct fs *fs, struct fs_inode *in, struct say *log)
{
	bool read;

	assert(inode_lock_held(in));
	if (!log->ls)
		return false;
	read = logstream_size(log->ls) > 0;
	note_stream_locked(in, log);
	logstream_release(log->ls, log_appended, log);
	log->ls = NULL;
	/* The put may free in only when nothing else holds it; the caller holds a pin. */
	inode_table_put(fs->inodes, in);
	return read;
}

/* Waits until the stream has given its first bytes and fallen quiet (a finished
 * container's: until it has ended), or log_wait_ms passed. */
static void wait_first_bytes(struct fs *fs, struct say *log, struct logstream *ls,
			     bool finished)
{
	int64_t deadline = time_monotonic_ms() + fs->opts.log_wait_ms;
	char why[256];

	for (;;) {
		int64_t now = time_monotonic_ms();
		uint64_t got;
		int64_t last;

		if (logstream_done(ls) || now >= deadline)
			return;
		logstream_status(ls, why, sizeof(why));
		if (why[0] && !finished)
			return;     /* waiting to start, unscheduled: nothing is coming yet */
		/* A joined stream may hold bytes from before this reference's callback. */
		got = logstream_size(ls);
		pthread_mutex_lock(&log->mu);
		last = log->last_append_ms;
		if (!finished && got > 0 &&
		    (now - last >= LOG_QUIET_MS || logstream_caught_up(ls))) {
			pthread_mutex_unlock(&log->mu);
			return;
		}
		wait_ms(log, LOG_POLL_MS);
		pthread_mutex_unlock(&log->mu);
	}
}

/* Opens that waited all of log_wait for the server (its first answer, or a
 * finished container's whole log), told at most once a minute with how many
 * there were: an open waits without a word otherwise, and a walk that opens every
 * log (rsync -a of the mount) is slow for a reason the user cannot see. */
static void note_slow_open(struct fs *fs, const struct fs_inode *in, int64_t took)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static int64_t said_at;   /* guarded by mu */
	static unsigned slow;     /* guarded by mu: since the last word */
	int64_t now = time_monotonic_ms();
	unsigned n = 0;

	pthread_mutex_lock(&mu);
	slow++;
	if (!said_at || now - said_at >= SLOW_OPEN_SAY_MS) {
		n = slow;
		slow = 0;
		said_at = now;
	}
	pthread_mutex_unlock(&mu);
	if (n)
		say(LOG_NOTICE, "log of %s/%s: its open waited %lld ms for the API server "
		    "(log_wait %d ms for the first bytes, or a finished container's whole log, "
		    "then %d ms for the kernel to be told the size); opens that waited so since "
		    "the last word: %u", in->node.ns, in->node.pod ? in->node.pod : "?",
		    (long long)took, fs->opts.log_wait_ms, LOG_NOTIFY_WAIT_MS, n);
}

int logfile_open(struct fs *fs, struct fs_inode *in)
{
	struct say *log;
	struct logstream *ls = NULL;
	bool finished = false;
	int ret = 0;

	inode_lock(in);
	log = log_state(fs, in);
	if (!log) {
		ret = -ENOMEM;
		goto out;
	}
	memo_merge(log->fs, in->node.identity, &log->last_size, &log->last_mtime, &log->complete);
	ret = attach_locked(fs, in, log);
	if (ret)
		goto out;
	log->nopen++;
	ls = log->ls;
	finished = log->finished;
out:
	inode_unlock(in);
	if (ls) {
		int64_t began = time_monotonic_ms(), took;

		/* ls stays valid: this open's reference keeps it attached */
		wait_first_bytes(fs, log, ls, finished);
		fs->up.log_wait(fs, in, LOG_NOTIFY_WAIT_MS);
		took = time_monotonic_ms() - began;
		/* waited for the server, not for a container that prints nothing */
		if (took >= fs->opts.log_wait_ms &&
		    (logstream_unanswered_ms(ls) > 0 || (finished && !logstream_done(ls))))
			note_slow_open(fs, in, took);
	}
	return ret;
}

void logfile_release(struct fs *fs, struct fs_inode *in)
{
	struct say *log;
	bool read = false;

	inode_lock(in);
	log = in->log;
	if (log && log->nopen > 0 && --log->nopen == 0)
		read = detach_locked(fs, in, log);
	inode_unlock(in);
	if (read)
		tell_siblings(fs, in);
}

/* Waits for the buffer to hold want bytes, as long as more is expected soon, and
 * never past deadline (log_wait after the read began: docs/tree.md). */
static void wait_for_bytes(struct say *log, struct logstream *ls, bool finished, uint64_t want,
                           int64_t deadline)
{
	for (;;) {
		int64_t now = time_monotonic_ms();
		bool more;

		if (logstream_done(ls) || logstream_size(ls) >= want || now >= deadline)
			return;
		pthread_mutex_lock(&log->mu);
		if (finished)
			more = true;
		else
			more = log->appended > 0 && now - log->last_append_ms < LOG_QUIET_MS &&
			       !logstream_caught_up(ls);
		if (more)
			wait_ms(log, LOG_POLL_MS);
		pthread_mutex_unlock(&log->mu);
		if (!more)
			return;
	}
}

/* Waits, never past deadline, until the server has answered the stream or it has
 * waited log_wait for an answer. */
static void wait_for_answer(struct fs *fs, struct say *log, struct logstream *ls,
                            int64_t deadline)
{
	for (;;) {
		int64_t waited = logstream_unanswered_ms(ls);

		if (!waited || waited >= fs->opts.log_wait_ms || logstream_done(ls) ||
		    time_monotonic_ms() >= deadline)
			return;
		pthread_mutex_lock(&log->mu);
		wait_ms(log, LOG_POLL_MS);
		pthread_mutex_unlock(&log->mu);
	}
}

/*
 * A read found nothing past off (docs/tree.md, "A log that cannot be read"): the
 * end of the log (0), or the log cannot be had. EIO: the stream ended without the
 * whole log (the pod went away, the API refused), or nothing of it could be
 * fetched yet (cluster/health says why); ETIMEDOUT: a finished container's log
 * stopped arriving for log_wait, or the server has not answered the stream at all
 * for log_wait (an empty buffer then says nothing about the log).
 */
static ssize_t end_of_log(struct fs *fs, struct fs_inode *in, struct logstream *ls,
                          bool finished)
{
	enum logstream_health h = logstream_health(ls);
	char why[256];

	if (h == LOGSTREAM_OK && logstream_done(ls))
		return 0;
	logstream_status(ls, why, sizeof(why));
	if (h == LOGSTREAM_FAILED || (h == LOGSTREAM_RETRYING && logstream_size(ls) == 0)) {
		say(LOG_INFO, "log of %s/%s: %s", in->node.ns, in->node.pod ? in->node.pod : "?",
		    why[0] ? why : "cannot be fetched");
		return -EIO;
	}
	if (finished && !logstream_done(ls)) {
		say(LOG_INFO, "log of %s/%s: nothing arrived for %d ms (log_wait)", in->node.ns,
		    in->node.pod ? in->node.pod : "?", fs->opts.log_wait_ms);
		return -ETIMEDOUT;
	}
	if (!logstream_done(ls) && logstream_unanswered_ms(ls) >= fs->opts.log_wait_ms) {
		say(LOG_INFO, "log of %s/%s: the API server has not answered for %d ms (log_wait)",
		    in->node.ns, in->node.pod ? in->node.pod : "?", fs->opts.log_wait_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

ssize_t logfile_read(struct fs *fs, struct fs_inode *in, char *buf, size_t size, off_t off)
{
	struct say *log;
	struct logstream *ls;
	bool finished;
	uint64_t promised;
	int64_t deadline = time_monotonic_ms() + fs->opts.log_wait_ms;
	ssize_t n;

	inode_lock(in);
	log = in->log;
	if (log && !log->ls && log->nopen > 0)
		attach_locked(fs, in, log);
	ls = log ? log->ls : NULL;
	finished = log && log->finished;
	promised = log && log->complete ? log->last_size : 0;
	inode_unlock(in);
	if (!ls)
		return 0;
	/* The handle being read keeps nopen > 0, so ls stays attached meanwhile. A read
	 * below the size promised for a complete log is filled whole: tar takes a short
	 * read for a file that shrank and pads it with zeros. */
	if ((uint64_t)off < promised)
		wait_for_bytes(log, ls, finished,
			       promised - (uint64_t)off < size ? promised : (uint64_t)off + size,
			       deadline);
	n = logstream_read(ls, buf, size, (uint64_t)off);
	if (n == 0) {
		wait_for_bytes(log, ls, finished, (uint64_t)off + 1, deadline);
		wait_for_answer(fs, log, ls, deadline);
		n = logstream_read(ls, buf, size, (uint64_t)off);
	}
	if (n == 0)
		n = end_of_log(fs, in, ls, finished);
	return n;
}

/*
 * st_mtime: when the log last grew as arenafs saw it (grew), but for a terminated
 * instance never later than its finishedAt, which a fetch after the end would pass;
 * before anything was read, the instance's finishedAt, else its startedAt, else the
 * pod's latest transition or a podless job's creation (fallback). Never later than
 * now.
 */
static int64_t log_mtime(int64_t grew, int64_t finished_at, int64_t started, int64_t fallback,
			 int64_t now)
{
	int64_t t;

	if (grew)
		t = finished_at && finished_at < grew ? finished_at : grew;
	else if (finished_at)
		t = finished_at;
	else if (started)
		t = started;
	else
		t = fallback;
	return t > now ? now : t;
}

void logfile_stat(struct fs *fs, struct fs_inode *in, uint64_t *size, int64_t *mtime)
{
	struct say *log;
	struct instance it;
	const struct pod *pod;
	const struct job *job;
	int64_t grew = 0, finished_at = 0, started = 0, fallback, now = time_now();
	int64_t kept_finished = 0;
	uint64_t kept_size = 0;
	struct logkeep_ref r = kept_ref(&in->node);
	bool complete = false, kept;

	*size = 0;
	/* a kept copy's size is known without a request: the whole log */
	kept = fs->kept_logs && in->node.pod && in->node.container &&
	       logkeep_has(fs->kept_logs, &r, &kept_size, &kept_finished);
	inode_lock(in);
	log = in->log;
	if (log && !log->ls && log->nopen > 0)
		attach_locked(fs, in, log);
	if (kept && !(log && log->ls)) {
		*size = kept_size;
		grew = log ? log->last_mtime : 0;
	} else if (log) {
		if (log->ls)
			note_stream_locked(in, log);
		else
			memo_merge(fs, in->node.identity, &log->last_size, &log->last_mtime,
				   &log->complete);
		*size = size_locked(log);
		grew = log->last_mtime;
	} else {
		memo_merge(fs, in->node.identity, size, &grew, &complete);
	}
	inode_unlock(in);

	cache_read_lock(fs->cache);
	if (instance_find(fs, &in->node, &it)) {
		if (it.state->kind == CONTAINER_TERMINATED)
			finished_at = it.state->finished;
		started = it.state->started;
	}
	if (!finished_at)
		finished_at = kept_finished;   /* a pod that is gone: its kept finishedAt */
	pod = in->node.pod ? cache_find_pod(fs->cache, in->node.ns, in->node.pod) : NULL;
	if (pod)
		fallback = render_pod_mtime(pod, now);
	else if ((job = fs->up.job(fs, &in->node)))
		fallback = job->meta.created; /* a job without pods: an empty log since then */
	else
		fallback = fs->started;
	cache_read_unlock(fs->cache);
	*mtime = log_mtime(grew, finished_at, started, fallback, now);
}

void logfile_poke(struct fs *fs, struct fs_inode *in)
{
	inode_lock(in);
	if (in->log && !in->log->ls && in->log->nopen > 0)
		attach_locked(fs, in, in->log);
	inode_unlock(in);
}

void logfile_free(struct fs_inode *in)
{
	struct say *log = in->log;

	if (!log)
		return;
	/* A stream pins its inode, so none can be attached here. */
	pthread_mutex_destroy(&log->mu);
	pthread_cond_destroy(&log->cond);
	free(log);
	in->log = NULL;
}

void logfile_stop_all(struct fs *fs)
{
	bool want[FS_TYPE_COUNT] = {false};
	struct fs_inode **arr = NULL;
	size_t n;

	for (int t = 0; t < FS_TYPE_COUNT; t++)
		want[t] = fs_type_is_log((enum fs_type)t);
	n = inode_table_by_type(fs->inodes, want, &arr);
	for (size_t i = 0; i < n; i++) {
		struct fs_inode *in = arr[i];

		inode_lock(in);
		if (in->log) {
			in->log->nopen = 0;
			detach_locked(fs, in, in->log);
		}
		inode_unlock(in);
		inode_table_put(fs->inodes, in);
	}
	free(arr);
}
