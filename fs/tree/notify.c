/*
 * The notifier: the one thread that tells the kernel what changed (notify.h).
 *
 * Design note: what the kernel is told, and when.
 *
 * Why tell at all: the kernel caches names, attributes, pages and listings, and
 * arenafs lets it (names and attributes for 30 s, listings until they change:
 * content.c's timeouts, dirs.c) because every change is told. A change not told
 * is a stale file for up to a timeout; a change told twice costs a request.
 *
 * Who tells: only this thread, never a request handler, and with no lock held
 * while it sends. A notification may wait for a directory lock the kernel holds
 * for a request in progress, and that request may wait for a lock of ours: a
 * deadlock (docs/fuse.md). So the work goes in two steps, each pass of the loop:
 * gather (under the cache's read lock and an inode's lock, as the model and
 * content need them), then send the gathered actions, holding nothing.
 *
 * What comes in (queued under w.mu, taken all at once by each pass):
 * - a cache change, from a reflector or the queue poller (notify_cache_change,
 *   the cache's change hook): the object's keys (place_key: its own, its job's,
 *   its node's, the tables of its namespace, cluster/...) become the batch's;
 * - a name whose dentry the kernel moved to an inode that no longer stands there
 *   (notify_name_gone: a job's folder renamed into the trash, trash.c), told as
 *   inval_entry once the request that moved it has ended;
 * - a log that grew, from a stream thread (notify_log_grew): at most one queued
 *   per inode (log_queued), its log_seq counted so that a waiter knows when the
 *   notice went out;
 * - the time: once a second (NOTIFY_HEALTH_POLL_MS) the cache's health, and the
 *   inode table going over max_inodes (notify_inodes_over).
 * Before the mount's init (and after stop) nothing is queued: the kernel knows
 * no inode then. A change that arrives during a pass waits for the next.
 *
 * What goes out, per inode filed under a key of the batch (each once a pass,
 * in address order):
 * - its name now means nothing, or another object (a job deleted, a container
 *   restarted, a name that became NAME.TYPE): the inode is unmapped first, then
 *   inval_entry(parent, name), so that the kernel's next lookup makes a new
 *   inode and never reaches the old one;
 * - a file whose text changed: re-rendered now (content_refresh: st_mtime is the
 *   moment of the change), then inval_inode(ino, 0): its pages and attributes;
 *   a file whose text did not change is told nothing;
 * - a file that shows ages (PLACE_AGES): inval_inode(ino, 0) on any change of
 *   its object, as it is rendered again at each open anyway;
 * - a directory: inval_inode(ino, 0) (its attributes and the listing the kernel
 *   keeps), and inval_entry for each name that comes and goes in it
 *   (tensorboard_url, logs.previous, code) that appeared or vanished;
 * - a log: inval_inode(ino, -1), attributes only (the pages it has are still
 *   right: a log only grows); the open of a log waits (notify_wait_log, at most
 *   LOG_NOTIFY_WAIT_MS) until its size notice is out, so that tail's first fstat
 *   sees the size;
 * - a file of code/: nothing, its identity holds its key, size and mode, so the
 *   name check above has seen any change.
 * The health, once a second: cluster/health by its key; when the cluster turns
 * unreachable or reachable again, every file that ends with the stale note.
 * Over max_inodes: inval_entry for at most NOTIFY_EVICT_MAX idle inodes, least
 * recently used first (submit/'s kept); the kernel's FORGETs free them, and a
 * second later malloc_trim hands the freed pages back.
 * An ENOENT from the kernel (it had nothing cached) is no error.
 *
 * Locks: w.mu guards the queue, evict, log_seq, log_sent and log_queued of every
 * inode, and is a leaf (no other lock is taken under it). Gathering takes the
 * cache's read lock, then an inode's lock, in docs/architecture.md's order.
 * Sending takes none.
 *
 * Tested through mounts, where the kernel is the one told: tests/integration/
 * test_tree_live.py (changes seen by cat, ls and stat within the timeouts) and
 * test_tree_logs.py (tail -f of a growing log).
 */
#include "fs/tree/notify.h"
#include "fs/tree/model.h"
#include "fs/tree/content.h"
#include "fs/tree/listing.h"
#include "fs/logs/logfile.h"
#include "fs/logs/logkeep.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"
#include "k8s/base/invariant.h"
#include "k8s/base/worker.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#define NOTIFY_HEALTH_POLL_MS 1000
#define NOTIFY_KEY_MAX 600
#define NOTIFY_EVICT_MAX 4096                /* entries invalidated per pass */
#define NOTIFY_TRIM_AFTER_MS 1000            /* after evicting, once the FORGETs are in */

enum item_type { ITEM_CHANGE, ITEM_LOG, ITEM_NAME };

struct item {
	struct item *next;
	enum item_type type;
	struct fs_inode *in;                 /* ITEM_LOG, pinned */
	fuse_ino_t parent;                   /* ITEM_NAME: inval_entry(parent, name) */
	enum cache_object_type object;
	enum cache_change_type change;
	int job_kind;
	char *ns, *name, *owner_job, *involved, *node_name, *old_node_name; /* one allocation */
};

struct fs_notifier {
	struct fs *fs;
	struct fuse_session *se;
	struct worker w;                     /* the thread; w.mu guards what follows */
	pthread_cond_t sent;                 /* log notices went out */
	struct item *head, **tail;
	bool evict;                          /* the inode table is over its limit */

	struct cache_health health;          /* thread only */
	bool health_known;
	struct logs_kept_state keep;         /* thread only: what cluster/health showed of it */
	bool trim_due;                       /* thread only: memory was freed, see trim */
	struct timespec trim_at;
};

/* What the thread will tell the kernel, gathered before any is sent. */
struct action {
	fuse_ino_t ino;                      /* inval_inode(ino), or with name inval_entry */
	char *name;                          /* NULL: inval_inode */
	off_t off;                           /* inval_inode: 0 drops pages too, -1 attributes only */
};

struct batch {
	struct action *a;
	size_t n, cap;
	char **keys;                         /* object keys to revalidate */
	size_t nkeys, capkeys;
};

int notify_new(struct fs *fs, struct fs_notifier **out)
{
	struct fs_notifier *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->fs = fs;
	worker_init(&n->w);
	worker_cond_init(&n->sent);
	n->tail = &n->head;
	*out = n;
	return 0;
}

static void push(struct fs_notifier *n, struct item *it)
{
	it->next = NULL;
	*n->tail = it;
	n->tail = &it->next;
	pthread_cond_signal(&n->w.cond);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static char *scopy(char **p, const char *s)
{
	char *r;

	if (!s)
		return NULL;
	r = *p;
	memcpy(r, s, strlen(s) + 1);
	*p += strlen(s) + 1;
	return r;
}

void notify_cache_change(void *arg, const struct cache_change *c)
{
	struct fs *fs = arg;
	struct fs_notifier *n = fs->notifier;
	struct item *it;
	char *p;
	size_t len = slen(c->namespace) + slen(c->name) + slen(c->owner_job) +
		     slen(c->involved_name) + slen(c->node_name) + slen(c->old_node_name);

	/* A listing's mtime is when it last changed, whether or not the kernel looks. */
	if (c->type != CACHE_MODIFIED) {
		if (c->object == CACHE_JOB)
			fs_listing_touch(fs, FS_JOBS_DIR, c->namespace, time_now());
		else if (c->object == CACHE_NODE)
			fs_listing_touch(fs, FS_NODES_DIR, NULL, time_now());
		else if (c->object == CACHE_NAMESPACE)
			fs_listing_touch(fs, FS_NAMESPACES_DIR, NULL, time_now());
	}
	pthread_mutex_lock(&n->w.mu);
	if (!n->w.running || n->w.stop) {
		/* before the mount the kernel knows no inode: nothing to tell */
		pthread_mutex_unlock(&n->w.mu);
		return;
	}
	pthread_mutex_unlock(&n->w.mu);
	it = calloc(1, sizeof(*it) + len);
	if (!it) {
		say(LOG_WARNING, "out of memory: a change of %s is not passed to the kernel", c->name);
		return;
	}
	p = (char *)(it + 1);
	it->type = ITEM_CHANGE;
	it->object = c->object;
	it->change = c->type;
	it->job_kind = c->job_kind;
	it->ns = scopy(&p, c->namespace);
	it->name = scopy(&p, c->name);
	it->owner_job = scopy(&p, c->owner_job);
	it->involved = scopy(&p, c->involved_name);
	it->node_name = scopy(&p, c->node_name);
	it->old_node_name = scopy(&p, c->old_node_name);
	pthread_mutex_lock(&n->w.mu);
	if (n->w.stop)
		free(it);
	else
		push(n, it);
	pthread_mutex_unlock(&n->w.mu);
}

void notify_log_grew(struct fs_notifier *n, struct fs_inode *in)
{
	struct item *it = NULL;
	bool queue;

	pthread_mutex_lock(&n->w.mu);
	in->log_seq++;
	queue = n->w.running && !n->w.stop && !in->log_queued;
	if (queue)
		in->log_queued = true;
	pthread_mutex_unlock(&n->w.mu);
	if (!queue)
		return;
	it = calloc(1, sizeof(*it));
	inode_table_pin(n->fs->inodes, in);
	pthread_mutex_lock(&n->w.mu);
	if (!it || n->w.stop) {
		in->log_queued = false;
		pthread_mutex_unlock(&n->w.mu);
		free(it);
		inode_table_put(n->fs->inodes, in);
		return;
	}
	it->type = ITEM_LOG;
	it->in = in;
	push(n, it);
	pthread_mutex_unlock(&n->w.mu);
}

void notify_name_gone(struct fs_notifier *n, uint64_t parent, const char *name)
{
	struct item *it = calloc(1, sizeof(*it) + strlen(name) + 1);

	if (!it) {
		say(LOG_WARNING, "out of memory: the kernel keeps %s until its entry times out",
		    name);
		return;
	}
	it->type = ITEM_NAME;
	it->parent = parent;
	it->name = (char *)(it + 1);
	memcpy(it->name, name, strlen(name) + 1);
	pthread_mutex_lock(&n->w.mu);
	if (!n->w.running || n->w.stop)
		free(it);
	else
		push(n, it);
	pthread_mutex_unlock(&n->w.mu);
}

/* Has the monotonic time now reached the deadline? */
static bool reached(const struct timespec *now, const struct timespec *deadline)
{
	return now->tv_sec > deadline->tv_sec ||
	       (now->tv_sec == deadline->tv_sec && now->tv_nsec >= deadline->tv_nsec);
}

void notify_wait_log(struct fs_notifier *n, struct fs_inode *in, int timeout_ms)
{
	struct timespec ts;

	ts = worker_deadline(timeout_ms);
	pthread_mutex_lock(&n->w.mu);
	while (n->w.running && !n->w.stop && in->log_sent < in->log_seq)
		if (pthread_cond_timedwait(&n->sent, &n->w.mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&n->w.mu);
}

/* ---- gathering actions ---- */

static void add_action(struct batch *b, fuse_ino_t ino, const char *name, off_t off)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		struct action *na = realloc(b->a, nc * sizeof(*na));

		if (!na)
			return;     /* the attribute timeouts are the safety net */
		b->a = na;
		b->cap = nc;
	}
	b->a[b->n].ino = ino;
	b->a[b->n].off = off;
	b->a[b->n].name = name ? strdup(name) : NULL;
	if (name && !b->a[b->n].name)
		return;
	b->n++;
}

/* Queues the key of an object whose inodes are to be revalidated (place_key makes it). */
static void add_key(struct batch *b, enum place_source source, const char *ns, int kind,
		    const char *name)
{
	char key[NOTIFY_KEY_MAX];

	place_key(key, sizeof(key), source, ns, kind, name);
	/* duplicates are dropped in revalidate_keys, once sorted */
	if (b->nkeys == b->capkeys) {
		size_t nc = b->capkeys ? b->capkeys * 2 : 32;
		char **nk = realloc(b->keys, nc * sizeof(*nk));

		if (!nk)
			return;
		b->keys = nk;
		b->capkeys = nc;
	}
	if ((b->keys[b->nkeys] = strdup(key)))
		b->nkeys++;
}

static void add_job_keys(struct batch *b, const char *ns, int kind, const char *name)
{
	if (!ns || !name || !name[0])
		return;
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (kind < 0 || k == kind)
			add_key(b, SRC_JOB, ns, k, name);
}

/* The tables of jobs (cluster/list, list-all, top-job): a row of ns changed. */
static void add_table_keys(struct batch *b, const char *ns)
{
	add_key(b, SRC_NS_JOBS, ns, 0, NULL);
	add_key(b, SRC_ALL_JOBS, NULL, 0, NULL);
}

/* The jobs of the Workloads waiting in LocalQueue lq of ns (their why says where). */
static void add_line_keys(struct fs *fs, struct batch *b, const char *ns, const char *lq)
{
	const struct workload **w = NULL;
	size_t n;

	cache_read_lock(fs->cache);
	n = cache_workloads(fs->cache, ns, &w);
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i]->queue, lq) == 0)
			add_job_keys(b, ns, -1, w[i]->owner_name);
	cache_read_unlock(fs->cache);
	free(w);
}

/* The job at the top of o's owner chain (a batch Job's MPIJob, or its JobSet's
 * TrainJob): its keys. Under the read lock; as deep as view.c follows the chain. */
static void add_chain_keys(struct fs *fs, struct batch *b, const char *ns, const struct owned *o)
{
	for (int depth = 0; o && depth < 4; depth++) {
		const struct owned *up = NULL;

		for (int k = 0; k < OWNED_KIND_COUNT && !up; k++)
			if (strcmp(o->owner_kind, owned_kinds(k)->kind_name) == 0)
				up = cache_find_owned(fs->cache, (enum owned_kind)k, ns, o->owner_name);
		if (!up)
			add_job_keys(b, ns, -1, o->owner_name);
		o = up;
	}
}

/* The jobs whose events show those of the batch Job or JobSet called name. */
static void add_owned_keys(struct fs *fs, struct batch *b, const char *ns, const char *name)
{
	if (!ns || !name || !*name)
		return;
	cache_read_lock(fs->cache);
	for (int k = 0; k < OWNED_KIND_COUNT; k++)
		add_chain_keys(fs, b, ns, cache_find_owned(fs->cache, (enum owned_kind)k, ns, name));
	cache_read_unlock(fs->cache);
}

/* The object keys a change touches. */
static void keys_of_change(struct fs *fs, struct batch *b, const struct item *it)
{
	const struct pod *pod;
	bool listing = it->change != CACHE_MODIFIED;

	switch (it->object) {
	case CACHE_JOB:
		/* a job coming or going can rename its namesakes of other kinds (NAME.TYPE) */
		add_job_keys(b, it->ns, listing ? -1 : it->job_kind, it->name);
		add_table_keys(b, it->ns);
		add_key(b, SRC_DATA, it->ns, 0, NULL);   /* data/list's JOBS column */
		if (listing) {
			add_key(b, SRC_JOBS, it->ns, 0, NULL);
			add_key(b, SRC_NAMESPACES, NULL, 0, NULL);
		}
		break;
	case CACHE_POD:
		add_key(b, SRC_POD, it->ns, 0, it->name);
		add_job_keys(b, it->ns, it->job_kind, it->owner_job);
		if (it->owner_job && it->owner_job[0])
			add_table_keys(b, it->ns);
		if (it->node_name && it->node_name[0])
			add_key(b, SRC_NODE, NULL, 0, it->node_name);
		if (it->old_node_name && it->old_node_name[0])
			add_key(b, SRC_NODE, NULL, 0, it->old_node_name);
		if ((it->node_name && it->node_name[0]) || (it->old_node_name && it->old_node_name[0]))
			add_key(b, SRC_CLUSTER, NULL, 0, NULL);
		break;
	case CACHE_NODE:
		add_key(b, SRC_NODE, NULL, 0, it->name);
		add_key(b, SRC_CLUSTER, NULL, 0, NULL);
		if (listing)
			add_key(b, SRC_NODES, NULL, 0, NULL);
		break;
	case CACHE_SERVICE:
		add_job_keys(b, it->ns, -1, it->owner_job);
		break;
	case CACHE_EVENT:
		/* the involved object: a job, or a pod whose job shows the event */
		add_job_keys(b, it->ns, -1, it->involved);
		cache_read_lock(fs->cache);
		pod = it->involved ? cache_find_pod(fs->cache, it->ns, it->involved) : NULL;
		if (pod && pod->job_name)
			add_job_keys(b, it->ns, pod->job_kind, pod->job_name);
		cache_read_unlock(fs->cache);
		/* or a batch Job or JobSet whose job shows it */
		add_owned_keys(fs, b, it->ns, it->involved);
		break;
	case CACHE_OWNED:
		/* a batch Job or JobSet came or went: its job's events gain or lose its
		 * own; its owner is the job, or a JobSet whose job it is */
		add_job_keys(b, it->ns, -1, it->owner_job);
		add_owned_keys(fs, b, it->ns, it->owner_job);
		break;
	case CACHE_PVC:
		add_key(b, SRC_DATA, it->ns, 0, NULL);
		break;
	case CACHE_WORKLOAD:
		/* its job's status, why and info, the tables' STATUS, the queue files */
		add_key(b, SRC_QUEUES, NULL, 0, NULL);
		add_job_keys(b, it->ns, -1, it->owner_job);
		add_table_keys(b, it->ns);
		break;
	case CACHE_QUEUE_LINE:
		/* the places of the jobs waiting in that LocalQueue moved */
		add_key(b, SRC_QUEUES, NULL, 0, NULL);
		add_line_keys(fs, b, it->ns, it->name);
		break;
	case CACHE_LOCALQUEUE:
	case CACHE_CLUSTERQUEUE:
	case CACHE_COHORT:
		add_key(b, SRC_QUEUES, NULL, 0, NULL);
		break;
	case CACHE_NAMESPACE:
		add_key(b, SRC_NAMESPACES, NULL, 0, NULL);
		break;
	}
}

/* Does the name still stand for this inode's object? If not, unmap it. */
static bool revalidate_name(struct fs *fs, struct batch *b, struct fs_inode *in)
{
	struct fs_node now;
	bool same;
	int ret;

	if (!in->parent)
		return true;
	if (!inode_table_is_mapped(fs->inodes, in))
		return false;   /* already replaced: its entry was invalidated then */
	cache_read_lock(fs->cache);
	ret = model_lookup(fs, &in->parent->node, in->name, &now);
	cache_read_unlock(fs->cache);
	same = ret == 0 && now.type == in->node.type &&
	       strcmp(now.identity ? now.identity : "", in->node.identity ? in->node.identity : "") == 0;
	if (ret == 0)
		fs_node_clear(&now);
	if (ret == -ENOMEM)
		return true;    /* cannot tell: leave it to the timeouts */
	if (!same) {
		inode_table_unmap(fs->inodes, in);
		add_action(b, in->parent->ino, in->name, 0);
	}
	return same;
}

/* For a directory with names that come and go: did any appear or vanish? */
static void revalidate_extras(struct fs *fs, struct batch *b, struct fs_inode *in)
{
	const struct place *const *c;
	size_t n = place_children(in->node.type, &c);
	unsigned has, changed;

	if (!place_optional_mask(in->node.type))
		return;
	has = model_extras(fs, &in->node);
	inode_lock(in);
	changed = has ^ in->extras;
	in->extras = has;
	in->extras_known = true;
	inode_unlock(in);
	for (size_t i = 0; i < n && changed; i++, changed >>= 1)
		if (changed & 1)
			add_action(b, in->ino, c[i]->name, 0);
}

static void revalidate_inode(struct fs *fs, struct batch *b, struct fs_inode *in)
{
	enum fs_type t = in->node.type;
	bool changed;
	int ret;

	if (!revalidate_name(fs, b, in))
		return;
	if (fs_type_is_dir(t)) {
		/* its attributes, and the listing the kernel may keep (dirs.c) */
		revalidate_extras(fs, b, in);
		add_action(b, in->ino, NULL, 0);
	} else if (fs_type_is_log(t)) {
		logfile_poke(fs, in);
		add_action(b, in->ino, NULL, -1);
	} else if (fs_type_is_volatile(t)) {
		add_action(b, in->ino, NULL, 0);
	} else if (fs_type_is_code(t)) {
		/* nothing: a code file's identity holds its key, size and mode (codetree.c),
		 * so revalidate_name has seen any change */
	} else {
		ret = content_refresh(fs, in, &changed);
		if (ret == 0 && changed)
			add_action(b, in->ino, NULL, 0);
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_pointer(const void *a, const void *b)
{
	const struct fs_inode *x = *(struct fs_inode *const *)a, *y = *(struct fs_inode *const *)b;

	return x < y ? -1 : x > y;
}

/* Revalidates each inode under the batch's keys once. */
static void revalidate_keys(struct fs *fs, struct batch *b)
{
	struct fs_inode **all = NULL;
	size_t n = 0, cap = 0;

	if (b->nkeys > 1)
		qsort(b->keys, b->nkeys, sizeof(*b->keys), by_string);
	for (size_t k = 0; k < b->nkeys; k++) {
		struct fs_inode **arr;
		size_t m;

		if (k > 0 && strcmp(b->keys[k], b->keys[k - 1]) == 0)
			continue;
		m = inode_table_by_object(fs->inodes, b->keys[k], &arr);

		if (m && n + m > cap) {
			size_t nc = (n + m) * 2;
			struct fs_inode **na = realloc(all, nc * sizeof(*na));

			if (!na) {
				for (size_t i = 0; i < m; i++)
					inode_table_put(fs->inodes, arr[i]);
				free(arr);
				continue;
			}
			all = na;
			cap = nc;
		}
		if (m)
			memcpy(all + n, arr, m * sizeof(*arr));
		n += m;
		free(arr);
	}
	if (n > 1)
		qsort(all, n, sizeof(*all), by_pointer);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || all[i] != all[i - 1])
			revalidate_inode(fs, b, all[i]);
		inode_table_put(fs->inodes, all[i]);
	}
	free(all);
}

static void send_actions(struct fs_notifier *n, struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct action *a = &b->a[i];
		int ret;

		if (a->name)
			ret = fuse_lowlevel_notify_inval_entry(n->se, a->ino, a->name, strlen(a->name));
		else
			ret = fuse_lowlevel_notify_inval_inode(n->se, a->ino, a->off, 0);
		/* ENOENT: the kernel does not have it cached, which is fine */
		if (ret < 0 && ret != -ENOENT)
			say(LOG_DEBUG, "notify %llu %s: %s", (unsigned long long)a->ino,
			    a->name ? a->name : "", strerror(-ret));
		free(a->name);
	}
	b->n = 0;
}

/* Beyond the inode limit, the kernel forgets the least recently used entries.
 * submit/'s are left: a file being staged is known by its inode. Returns how many
 * were handed out. */
static size_t evict_idle(struct fs *fs, struct batch *b)
{
	struct inode_evict *ev;
	size_t n = inode_table_evict(fs->inodes, NOTIFY_EVICT_MAX, &ev);

	for (size_t i = 0; i < n; i++)
		if (!fs_type_is_submit(ev[i].type))
			add_action(b, ev[i].parent, ev[i].name, 0);
	inode_table_evict_free(ev, n);
	return n;
}

/*
 * A walk of the tree makes and frees inodes by the tens of thousands, between the
 * texts rendered for its reads, and glibc keeps the pages of what was freed in
 * its heaps: at 10,000 jobs, 13 MiB of a 124 MiB daemon after an rsync of the
 * tree. So once evicted inodes had time to be forgotten, the notifier gives the
 * free pages back (malloc_trim, a walk of the heaps' free chunks; at most once
 * per second, only after evictions).
 */
static void trim_after_evicting(struct fs_notifier *n, size_t evicted, const struct timespec *now)
{
	if (evicted && !n->trim_due) {
		n->trim_due = true;
		n->trim_at = worker_deadline(NOTIFY_TRIM_AFTER_MS);
		return;
	}
	if (n->trim_due && reached(now, &n->trim_at)) {
		n->trim_due = false;
		malloc_trim(0);
	}
}

void notify_inodes_over(void *arg)
{
	struct fs_notifier *n = arg;

	pthread_mutex_lock(&n->w.mu);
	n->evict = true;
	pthread_cond_signal(&n->w.cond);
	pthread_mutex_unlock(&n->w.mu);
}

/* The files that end with the stale-cluster note (info, the tables of jobs). */
static void refresh_stale_note_files(struct fs *fs, struct batch *b)
{
	bool want[FS_TYPE_COUNT] = {false};
	struct fs_inode **arr = NULL;
	size_t count;

	for (int t = 0; t < FS_TYPE_COUNT; t++)
		want[t] = place_of((enum fs_type)t)->flags & PLACE_STALE_NOTE;
	count = inode_table_by_type(fs->inodes, want, &arr);
	for (size_t i = 0; i < count; i++) {
		revalidate_inode(fs, b, arr[i]);
		inode_table_put(fs->inodes, arr[i]);
	}
	free(arr);
}

static void check_health(struct fs_notifier *n, struct batch *b)
{
	struct fs *fs = n->fs;
	struct cache_health h;
	struct logs_kept_state keep = {0};

	cache_get_health(fs->cache, &h);
	if (fs->kept_logs)
		logkeep_state(fs->kept_logs, &keep);
	if (n->health_known && h.connected == n->health.connected && h.since == n->health.since &&
	    strcmp(h.last_error, n->health.last_error) == 0 && h.skipped == n->health.skipped &&
	    keep.err == n->keep.err && keep.since == n->keep.since && keep.budget == n->keep.budget)
		return;
	n->keep = keep;
	if (h.skipped && !(n->health_known && n->health.skipped))
		say(LOG_WARNING, "the server sent %s: not shown (see cluster/health)",
		    h.skipped_last);
	/* the first health seen may already be an outage (lists answered, every
	 * watch failed): said as a change from connected would be */
	if (h.connected != (n->health_known ? n->health.connected : true)) {
		say(LOG_NOTICE, h.connected ? "the cluster is reachable again"
					    : "the cluster is unreachable; serving the last state (see cluster/health)");
		refresh_stale_note_files(fs, b);   /* each says so, or stops saying so */
	}
	n->health = h;
	n->health_known = true;
	add_key(b, SRC_HEALTH, NULL, 0, NULL);
}

static void log_notice_sent(struct fs_notifier *n, struct item *it)
{
	uint64_t seq;
	int ret;

	pthread_mutex_lock(&n->w.mu);
	seq = it->in->log_seq;
	it->in->log_queued = false;
	pthread_mutex_unlock(&n->w.mu);
	/* attributes only: the pages the kernel has are still right, a log only grows */
	ret = fuse_lowlevel_notify_inval_inode(n->se, it->in->ino, -1, 0);
	if (ret < 0 && ret != -ENOENT)
		say(LOG_DEBUG, "notify log %llu: %s", (unsigned long long)it->in->ino,
		    strerror(-ret));
	pthread_mutex_lock(&n->w.mu);
	if (it->in->log_sent < seq)
		it->in->log_sent = seq;
	pthread_cond_broadcast(&n->sent);
	pthread_mutex_unlock(&n->w.mu);
	inode_table_put(n->fs->inodes, it->in);
}

/* Takes everything queued so far (n->w.mu held). */
static struct item *take_queue(struct fs_notifier *n)
{
	struct item *items = n->head;

	assert(mutex_is_held(&n->w.mu));
	n->head = NULL;
	n->tail = &n->head;
	return items;
}

/* Acts on items taken from the queue: a log notice is sent, a change becomes keys in b.
 * b NULL (stopping): nothing is sent, the log inodes' pins are dropped. */
static void drain(struct fs_notifier *n, struct item *items, struct batch *b)
{
	while (items) {
		struct item *it = items;

		items = it->next;
		if (it->type == ITEM_LOG && b)
			log_notice_sent(n, it);
		else if (it->type == ITEM_LOG)
			inode_table_put(n->fs->inodes, it->in);
		else if (it->type == ITEM_NAME && b)
			add_action(b, it->parent, it->name, 0);
		else if (it->type == ITEM_CHANGE && b)
			keys_of_change(n->fs, b, it);
		free(it);
	}
}

static void *notify_main(void *arg)
{
	struct fs_notifier *n = arg;
	struct batch b = {0};
	struct timespec next_health;

	next_health = worker_deadline(0);
	pthread_mutex_lock(&n->w.mu);
	while (!n->w.stop) {
		struct item *items;
		struct timespec now;
		size_t evicted;

		if (!n->head && !n->evict)
			pthread_cond_timedwait(&n->w.cond, &n->w.mu, &next_health);
		n->evict = false;
		items = take_queue(n);
		pthread_mutex_unlock(&n->w.mu);
		drain(n, items, &b);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (reached(&now, &next_health)) {
			check_health(n, &b);
			next_health = worker_deadline(NOTIFY_HEALTH_POLL_MS);
		}
		revalidate_keys(n->fs, &b);
		for (size_t i = 0; i < b.nkeys; i++)
			free(b.keys[i]);
		b.nkeys = 0;
		send_actions(n, &b);
		evicted = evict_idle(n->fs, &b);
		send_actions(n, &b);
		trim_after_evicting(n, evicted, &now);
		pthread_mutex_lock(&n->w.mu);
	}
	pthread_mutex_unlock(&n->w.mu);
	free(b.a);
	free(b.keys);
	return NULL;
}

void notify_start(struct fs_notifier *n, struct fuse_session *se)
{
	int ret;

	pthread_mutex_lock(&n->w.mu);
	if (!n->w.running)
		n->se = se;
	pthread_mutex_unlock(&n->w.mu);
	ret = worker_start(&n->w, notify_main, n);
	if (ret && ret != -ESHUTDOWN)
		say(LOG_ERR, "cannot start the notifier thread: %s", strerror(-ret));
}

void notify_stop(struct fs_notifier *n)
{
	struct item *items;

	/* those waiting for a log notice give up (they look at w.stop) */
	pthread_mutex_lock(&n->w.mu);
	n->w.stop = true;
	pthread_cond_broadcast(&n->sent);
	pthread_mutex_unlock(&n->w.mu);
	worker_stop(&n->w);
	pthread_mutex_lock(&n->w.mu);
	items = take_queue(n);
	pthread_mutex_unlock(&n->w.mu);
	drain(n, items, NULL);
}

void notify_free(struct fs_notifier *n)
{
	if (!n)
		return;
	notify_stop(n);
	worker_destroy(&n->w);
	pthread_cond_destroy(&n->sent);
	free(n);
}
