/*
 * Log files (jobs/NAME/logs, instances/POD/logs, logs.previous): each inode
 * stands for one container instance (model.c names it by restartCount), and
 * while it is open it holds one reference on that instance's shared follow
 * stream (k8s/logstream.h).
 *
 * What users' tools need from it (reference/fuse.md):
 * - st_size is the bytes buffered and grows; every append is passed to the
 *   notifier, which tells the kernel the attributes changed, so GNU tail -f
 *   (which polls fstat on FUSE and reads exactly the growth) prints new lines.
 * - open() waits a little for the first bytes, and for the kernel to have been
 *   told the size, so `cat logs` and tail's first fstat see the log so far.
 * - reads at the end of what has arrived wait while the stream is still
 *   catching up (bytes arrived within LOG_QUIET_MS), and for a finished
 *   container until its log is complete: `cat` of a finished log is whole.
 * - a pending container has no instance yet: an empty file, never an error;
 *   its stream starts when the cache shows the container started.
 *
 * Locks: in->lock guards in->log's stream pointer and counters and may be held
 * while calling logstream_*; log->mu (a leaf) guards what the stream's callback
 * writes, because the callback may run under the stream's own lock.
 */
#include "fs/fs_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "k8s/logstream.h"

#define LOG_QUIET_MS 100           /* a stream silent this long has caught up */
#define LOG_READ_IDLE_MS 30000     /* a finished container's log: wait this long for bytes */
#define LOG_NOTIFY_WAIT_MS 500     /* open waits this long for the size notice to go out */
#define LOG_POLL_MS 20

struct fs_log {
	/* guarded by in->lock */
	struct logstream *ls;        /* NULL: no stream (not open, or no instance yet) */
	unsigned nopen;
	bool finished;               /* the stream reads a terminated instance once */
	uint64_t last_size;          /* of the last stream, kept for stat after close */
	int64_t last_mtime;

	/* guarded by mu: written by the stream's callback */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	uint64_t appended;
	int64_t last_append_ms;      /* CLOCK_MONOTONIC */

	struct fs *fs;
	struct fs_inode *in;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wait_ms(struct fs_log *log, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_cond_timedwait(&log->cond, &log->mu, &ts);
}

static struct fs_log *log_state(struct fs *fs, struct fs_inode *in)
{
	pthread_condattr_t ca;
	struct fs_log *log = in->log;

	if (log)
		return log;
	log = calloc(1, sizeof(*log));
	if (!log)
		return NULL;
	pthread_mutex_init(&log->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&log->cond, &ca);
	pthread_condattr_destroy(&ca);
	log->fs = fs;
	log->in = in;
	in->log = log;
	return log;
}

/* The stream's thread: bytes arrived. Must not block (client.h) nor take in->lock. */
static void log_appended(void *arg, uint64_t new_size)
{
	struct fs_log *log = arg;

	pthread_mutex_lock(&log->mu);
	log->appended = new_size;
	log->last_append_ms = mono_ms();
	pthread_cond_broadcast(&log->cond);
	pthread_mutex_unlock(&log->mu);
	notify_log_grew(log->fs->notifier, log->in);
}

/* Does the identity (POD_UID/...) still name this pod? */
static bool identity_is_pod(const char *identity, const struct pod *pod)
{
	size_t n = strlen(pod->meta.uid);

	return n && strncmp(identity, pod->meta.uid, n) == 0 && identity[n] == '/';
}

/*
 * The stream key of the instance in stands for, from the cache. Returns false when
 * there is nothing to stream (yet): a pending container, a pod that is gone, an
 * instance older than the one before the current. Strings point into the cache:
 * call under the read lock and copy them before it is released.
 */
static bool instance_key(struct fs *fs, const struct fs_node *node, struct logstream_key *key)
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
	memset(key, 0, sizeof(*key));
	key->namespace = pod->meta.namespace;
	key->pod = pod->meta.name;
	key->container = c->name;
	if (node->type != FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts) {
		/* the current instance: streamable once it has started */
		if (!c->container_id[0])
			return false;
		key->container_id = c->container_id;
		key->finished = c->state.kind == CONTAINER_TERMINATED;
		return true;
	}
	/* logs.previous, or the logs of an instance that has just been replaced */
	if ((node->type == FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts) ||
	    (node->type != FS_POD_LOGS_PREVIOUS && c->restart_count == node->restarts + 1)) {
		if (c->last_state.kind != CONTAINER_TERMINATED)
			return false;
		key->container_id = c->last_state.container_id;
		key->previous = true;
		key->finished = true;
		return true;
	}
	return false;
}

/* Starts the stream when there is an instance to stream. Called with in->lock held. */
static int attach_locked(struct fs *fs, struct fs_inode *in, struct fs_log *log)
{
	struct logstream_key key;
	char ns[256], pod[256], container[256], cid[256];
	struct k8s_error err;
	bool have;
	int ret;

	if (log->ls || !fs->client)
		return 0;
	cache_read_lock(fs->cache);
	have = instance_key(fs, &in->node, &key);
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
	if (!have)
		return 0;
	k8s_error_clear(&err);
	ret = logstream_open(fs->client, &key, log_appended, log, &log->ls, &err);
	if (ret) {
		log->ls = NULL;
		fs_log(LOG_DEBUG, "log of %s/%s: %s", ns, pod, err.message);
		return ret;
	}
	log->finished = key.finished;
	inode_table_pin(fs->inodes, in);   /* the callback's arg lives while the stream does */
	return 0;
}

static void detach_locked(struct fs *fs, struct fs_inode *in, struct fs_log *log)
{
	if (!log->ls)
		return;
	log->last_size = logstream_size(log->ls);
	log->last_mtime = logstream_mtime(log->ls);
	logstream_release(log->ls, log_appended, log);
	log->ls = NULL;
	/* The put may free in only when nothing else holds it; the caller holds a pin. */
	inode_table_put(fs->inodes, in);
}

/* Waits until the stream has given its first bytes and fallen quiet, has ended, or
 * log_wait_ms passed. */
static void wait_first_bytes(struct fs *fs, struct fs_log *log, struct logstream *ls)
{
	int64_t deadline = mono_ms() + fs->opts.log_wait_ms;
	char why[256];

	for (;;) {
		int64_t now = mono_ms();
		uint64_t got;
		int64_t last;

		if (logstream_done(ls) || now >= deadline)
			return;
		logstream_status(ls, why, sizeof(why));
		if (why[0])
			return;     /* waiting to start, unscheduled: nothing is coming yet */
		/* A joined stream may hold bytes from before this reference's callback. */
		got = logstream_size(ls);
		pthread_mutex_lock(&log->mu);
		last = log->last_append_ms;
		if (got > 0 && now - last >= LOG_QUIET_MS) {
			pthread_mutex_unlock(&log->mu);
			return;
		}
		wait_ms(log, LOG_POLL_MS);
		pthread_mutex_unlock(&log->mu);
	}
}

int logfile_open(struct fs *fs, struct fs_inode *in)
{
	struct fs_log *log;
	struct logstream *ls = NULL;
	int ret = 0;

	pthread_mutex_lock(&in->lock);
	log = log_state(fs, in);
	if (!log) {
		ret = -ENOMEM;
		goto out;
	}
	ret = attach_locked(fs, in, log);
	if (ret)
		goto out;
	log->nopen++;
	ls = log->ls;
out:
	pthread_mutex_unlock(&in->lock);
	if (ls) {
		/* ls stays valid: this open's reference keeps it attached */
		wait_first_bytes(fs, log, ls);
		notify_wait_log(fs->notifier, in, LOG_NOTIFY_WAIT_MS);
	}
	return ret;
}

void logfile_release(struct fs *fs, struct fs_inode *in)
{
	struct fs_log *log;

	pthread_mutex_lock(&in->lock);
	log = in->log;
	if (log && log->nopen > 0 && --log->nopen == 0)
		detach_locked(fs, in, log);
	pthread_mutex_unlock(&in->lock);
}

/* Waits for the buffer to grow past off, as long as more is expected soon. */
static void wait_for_more(struct fs_log *log, struct logstream *ls, bool finished, uint64_t off)
{
	int64_t start = mono_ms();

	for (;;) {
		int64_t now = mono_ms();
		bool more;

		if (logstream_done(ls) || logstream_size(ls) > off)
			return;
		pthread_mutex_lock(&log->mu);
		if (finished)
			more = now - start < LOG_READ_IDLE_MS;
		else
			more = log->appended > 0 && now - log->last_append_ms < LOG_QUIET_MS;
		if (more)
			wait_ms(log, LOG_POLL_MS);
		pthread_mutex_unlock(&log->mu);
		if (!more)
			return;
	}
}

ssize_t logfile_read(struct fs *fs, struct fs_inode *in, char *buf, size_t size, off_t off)
{
	struct fs_log *log;
	struct logstream *ls;
	bool finished;
	ssize_t n;

	pthread_mutex_lock(&in->lock);
	log = in->log;
	if (log && !log->ls && log->nopen > 0)
		attach_locked(fs, in, log);
	ls = log ? log->ls : NULL;
	finished = log && log->finished;
	pthread_mutex_unlock(&in->lock);
	if (!ls)
		return 0;
	/* The handle being read keeps nopen > 0, so ls stays attached meanwhile. */
	n = logstream_read(ls, buf, size, (uint64_t)off);
	if (n == 0) {
		wait_for_more(log, ls, finished, (uint64_t)off);
		n = logstream_read(ls, buf, size, (uint64_t)off);
	}
	return n;
}

void logfile_stat(struct fs *fs, struct fs_inode *in, uint64_t *size, int64_t *mtime)
{
	struct fs_log *log;
	const struct pod *pod;

	*size = 0;
	*mtime = 0;
	pthread_mutex_lock(&in->lock);
	log = in->log;
	if (log && !log->ls && log->nopen > 0)
		attach_locked(fs, in, log);
	if (log && log->ls) {
		*size = logstream_size(log->ls);
		*mtime = logstream_mtime(log->ls);
	} else if (log) {
		*size = log->last_size;
		*mtime = log->last_mtime;
	}
	pthread_mutex_unlock(&in->lock);
	if (*mtime == 0) {
		/* never streamed: the container's own time */
		cache_read_lock(fs->cache);
		pod = in->node.pod ? cache_find_pod(fs->cache, in->node.ns, in->node.pod) : NULL;
		*mtime = pod ? view_pod_mtime(pod, fs_now()) : fs->started;
		cache_read_unlock(fs->cache);
	}
}

void logfile_poke(struct fs *fs, struct fs_inode *in)
{
	pthread_mutex_lock(&in->lock);
	if (in->log && !in->log->ls && in->log->nopen > 0)
		attach_locked(fs, in, in->log);
	pthread_mutex_unlock(&in->lock);
}

void logfile_free(struct fs_inode *in)
{
	struct fs_log *log = in->log;

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

	want[FS_JOB_LOGS] = want[FS_POD_LOGS] = want[FS_POD_LOGS_PREVIOUS] = true;
	n = inode_table_by_type(fs->inodes, want, &arr);
	for (size_t i = 0; i < n; i++) {
		struct fs_inode *in = arr[i];

		pthread_mutex_lock(&in->lock);
		if (in->log) {
			in->log->nopen = 0;
			detach_locked(fs, in, in->log);
		}
		pthread_mutex_unlock(&in->lock);
		inode_table_put(fs->inodes, in);
	}
	free(arr);
}
