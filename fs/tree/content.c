/*
 * The text and attributes of each place of the tree: which render/ function
 * makes a file, when its text is made again, its st_mtime, and the timeouts of
 * the kernel's caches for it.
 *
 * A file's text is rendered at lookup/getattr/open when the cache changed since
 * it was last made (or always for files that show ages). The inode keeps its
 * length and hash, and the text itself while it is small or being opened: a walk
 * of the whole tree must not leave every info and job.json in memory. Open
 * handles share the text (fs_text), so a reader sees one version. st_mtime is
 * when the text last changed: first the object's own time (render_job_mtime,
 * the pod's latest transition, ...), then the moment a re-render differed.
 * Files that show ages (info, events) keep the object's time, or `ls -lt`
 * would reorder them every second.
 *
 * Called by ops.c, dirs.c and notify.c; takes inode_lock, then the cache's
 * read lock. Which renderer makes a file is its row's in places.c.
 */
#include "fs/tree/content.h"
#include "fs/tree/model.h"
#include "fs/submit/suspend.h"
#include "fs/submit/trash.h"
#include "fs/tree/view.h"
#include "fs/tree/attempts.h"
#include "fs/tree/listing.h"
#include "fs/code/codetree.h"
#include "fs/logs/logfile.h"
#include "fs/logs/logkeep.h"
#include "fs/tree/gpumetrics.h"
#include "fs/tree/reports.h"
#include "fs/tree/runtimes.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"
#include "render/render.h"
#include "render/cluster.h"
#include "render/job_files.h"
#include "render/progress.h"
#include "render/readme.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/submit/deletes.h"
#include "k8s/base/hash.h"
#include "render/delete_note.h"

static int64_t later(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t nodes_mtime(const struct node_view *v, size_t n, int64_t now)
{
	int64_t t = 0;

	for (size_t i = 0; i < n; i++) {
		t = later(t, v[i].node->meta.created);
		for (size_t k = 0; k < v[i].n_pods; k++)
			t = later(t, render_pod_mtime(v[i].pods[k], now));
	}
	return t;
}

/* The note a PLACE_STALE_NOTE file ends with while the cluster is unreachable. */
static void stale_note(struct fs *fs, const struct place *p, struct strbuf *sb)
{
	struct cache_health h;

	if (!(p->flags & PLACE_STALE_NOTE))
		return;
	cache_get_health(fs->cache, &h);
	render_stale_note(sb, &h);
}

/* The notes a PLACE_DELETE_NOTE file ends with while an rmdir's delete of its job
 * goes on after the rmdir returned, or failed then (deletes.h); and after a write
 * of its suspend was refused (suspend.h). */
static void delete_note(struct fs *fs, const struct place *p, const struct fs_node *node,
			struct strbuf *sb)
{
	struct delete_note note;
	char reason[K8S_ERROR_MESSAGE_MAX];

	struct suspend_note snote;

	if ((p->flags & PLACE_DELETE_NOTE) &&
	    deletes_note(fs->deletes, node->uid, &note, reason, sizeof(reason)) > 0)
		render_delete_note(sb, &note);
	if ((p->flags & PLACE_DELETE_NOTE) &&
	    suspends_note(fs->suspends, node->uid, &snote, reason, sizeof(reason)) > 0)
		render_suspend_note(sb, &snote);
}

/* A PLACE_GROWS file's history: the job's last report noted in it (under the inode's
 * lock), its points handed to the renderer. */
static int note_report(const struct job *job, struct report_history **reports,
		       struct job_view *v)
{
	struct progress_point pt;
	int ret = render_progress_point(job, &pt);

	if (ret <= 0)
		return ret;
	if ((ret = reports_note(reports, &pt)) < 0)
		return ret;
	v->reports = (*reports)->p;
	v->n_reports = (*reports)->n;
	return 0;
}

static int render_job_file(struct fs *fs, const struct fs_node *node, const struct place *p,
			   const struct gpu_metrics *gm, struct report_history **reports,
			   struct strbuf *sb, int64_t *mtime)
{
	const struct job *job = model_job(fs, node);
	struct fs_job_view jv;

	if (!job)
		return -ENOENT;
	if (view_job(fs, job, p->view, &jv))
		return -ENOMEM;
	if (reports && note_report(job, reports, &jv.v) < 0) {
		view_job_free(&jv);
		return -ENOMEM;
	}
	jv.v.gpu_metrics = gm;
	*mtime = p->flags & PLACE_REPORT_TIME ? render_job_report_mtime(&jv.v)
	                                      : render_job_mtime(&jv.v);
	p->render.job(sb, &jv.v);
	view_job_free(&jv);
	stale_note(fs, p, sb);
	delete_note(fs, p, node, sb);
	/* a file that comes and goes renders nothing when it is gone */
	return (p->flags & PLACE_COMES_AND_GOES) && sb->len == 0 ? -ENOENT : 0;
}

static int render_nodes_file(struct fs *fs, const struct k8s_node *only, const struct place *p,
			     const struct gpu_metrics *gm, struct strbuf *sb, int64_t *mtime)
{
	struct node_view *v;
	size_t n;

	if (view_nodes(fs, only, &v, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i].gpu_metrics = gm;
	if (only)
		p->render.node_pods(sb, &v[0]);
	else
		p->render.cluster(sb, v, n);
	*mtime = later(nodes_mtime(v, n, time_now()), only ? 0 : fs->started);
	view_nodes_free(v, n);
	return 0;
}

/* A table of jobs: its time is when a job last changed or one came or went (which no
 * remaining job's time says), not earlier than the mount. */
static int render_jobs_file(struct fs *fs, const struct fs_node *node, const struct place *p,
			    const struct gpu_metrics *gm, struct strbuf *sb, int64_t *mtime)
{
	const char *ns = p->source == SRC_NS_JOBS ? node->ns : NULL;
	struct job_view *v;
	size_t n;
	int64_t t;

	if (p->source == SRC_NS_JOBS && !ns)
		return -EINVAL;
	if (view_jobs(fs, ns, p->view, &v, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i].gpu_metrics = gm;
	p->render.jobs(sb, v, n);
	t = later(fs->started, fs_listing_mtime(fs, FS_JOBS_DIR, ns));
	for (size_t i = 0; i < n; i++)
		t = later(t, render_job_mtime(&v[i]));
	*mtime = t;
	view_jobs_free(v, n);
	stale_note(fs, p, sb);
	return 0;
}

/* data/list: the namespace's claims and its jobs. Its time is when a claim last
 * changed or came (a claim's resourceVersion has no time: its creation, or the mount's). */
static int render_data_file(struct fs *fs, const struct fs_node *node, const struct place *p,
			    struct strbuf *sb, int64_t *mtime)
{
	struct data_view v = {0};
	const struct pvc **pvcs = NULL;
	const struct job **jobs = NULL;
	char why[512];

	if (!node->ns)
		return -EINVAL;
	v.ns = node->ns;
	if (cache_forbidden(fs->cache, CACHE_PVC, node->ns, why, sizeof(why))) {
		if (p->flags & PLACE_FORM)
			return -EACCES;       /* a 403 has no JSON form; the table says it */
		v.forbidden = why;
	}
	v.n_pvcs = cache_pvcs(fs->cache, node->ns, &pvcs);
	v.n_jobs = cache_jobs(fs->cache, node->ns, &jobs);
	v.pvcs = pvcs;
	v.jobs = jobs;
	v.now = time_now();
	p->render.data(sb, &v);
	*mtime = fs->started;
	for (size_t i = 0; i < v.n_pvcs; i++)
		*mtime = later(*mtime, pvcs[i]->meta.created);
	free(pvcs);
	free(jobs);
	stale_note(fs, p, sb);
	return 0;
}

/* cluster/queues (every ClusterQueue) and queues/list (node->ns's LocalQueues), and
 * their JSON and YAML forms:
 * Kueue's objects as the cache holds them. Its time: the latest creation or
 * condition transition of a queue or Workload shown, not earlier than the mount. */
static int render_queues_file(struct fs *fs, const struct fs_node *node, const struct place *p,
			      struct strbuf *sb, int64_t *mtime)
{
	bool cluster = p->parent == FS_CLUSTER_DIR;   /* cluster/queues and its forms */
	const char *ns = cluster ? NULL : node->ns;
	const struct clusterqueue **cqs = NULL;
	const struct localqueue **lqs = NULL;
	const struct workload **wls = NULL;
	const struct queue_line **lines = NULL;
	const struct kueue_cohort **cohorts = NULL;
	struct queue_view v = {0};
	struct kueue_api api;
	int64_t t = fs->started;

	if (!cluster && !ns)
		return -EINVAL;
	cache_kueue(fs->cache, &api);
	v.kueue = api.version[0] != '\0';
	v.visibility = api.visibility[0] != '\0';
	v.n_cqs = cache_clusterqueues(fs->cache, &cqs);
	v.n_lqs = cache_localqueues(fs->cache, ns, &lqs);
	v.n_workloads = cache_workloads(fs->cache, ns, &wls);
	v.n_lines = cache_objects(fs->cache, CACHE_QUEUE_LINE, (const void ***)&lines);
	v.n_cohorts = cache_cohorts(fs->cache, &cohorts);
	v.cohorts = cohorts;
	v.cqs = cqs;
	v.lqs = lqs;
	v.workloads = wls;
	v.lines = lines;
	v.now = time_now();
	p->render.queues(sb, &v);
	for (size_t i = 0; i < v.n_cqs; i++)
		t = later(t, cqs[i]->meta.created);
	for (size_t i = 0; i < v.n_lqs; i++)
		t = later(t, lqs[i]->meta.created);
	for (size_t i = 0; i < v.n_cohorts; i++)
		t = later(t, cohorts[i]->meta.created);
	for (size_t i = 0; i < v.n_workloads; i++) {
		t = later(t, wls[i]->meta.created);
		for (size_t j = 0; j < wls[i]->n_conditions; j++)
			t = later(t, wls[i]->conditions[j].last_transition);
	}
	*mtime = t < v.now ? t : v.now;
	free(cqs);
	free(lqs);
	free(wls);
	free(lines);
	free(cohorts);
	stale_note(fs, p, sb);
	return 0;
}

/* An attempt's info (p, sb; both NULL: only its time) and its time: when it ended, else
 * when it started. Under the read lock. */
static int attempt_text(struct fs *fs, const struct fs_node *node, const struct place *p,
			struct strbuf *sb, int64_t *mtime)
{
	struct attempts a;
	const struct attempt_view *v = NULL;
	int ret = model_attempts(fs, node, &a);

	if (!ret && !(v = attempts_find(&a, node->restarts + 1)))
		ret = -ENOENT;
	if (!ret) {
		*mtime = v->finished > 0 ? v->finished : v->started > 0 ? v->started : fs->started;
		if (p)
			p->render.attempt(sb, v);
	}
	attempts_free(&a);
	return ret;
}

/* The text of a regular (non-log) file and its object's time, made by its place's
 * renderer from what its source names (and gm, Prometheus's GPU figures, for a place
 * that shows them; reports, the history of a PLACE_GROWS file, else NULL). Under the
 * read lock. */
static int render_node_text(struct fs *fs, const struct fs_node *node,
			    const struct gpu_metrics *gm, struct report_history **reports,
			    struct strbuf *sb, int64_t *mtime)
{
	const struct place *p = place_of(node->type);
	const struct pod *pod;
	const struct k8s_node *kn;
	struct cache_health h;

	*mtime = fs->started;
	if (p->flags & (PLACE_DIR | PLACE_LOG | PLACE_SUBMIT | PLACE_CODE))
		return -EINVAL;
	switch (p->source) {
	case SRC_PLACES: {
		const struct readme_line *lines;
		size_t n = place_readme(&lines);

		p->render.readme(sb, lines, n);
		return 0;
	}
	case SRC_NONE:
		p->render.text(sb);
		return 0;
	case SRC_CONFIG:
		p->render.config(sb, fs->cfg);
		return 0;
	case SRC_HEALTH:
		cache_get_health(fs->cache, &h);
		p->render.health(sb, &h);
		*mtime = later(h.since, fs->started);
		if (fs->kept_logs) {
			struct logs_kept_state kept;

			logkeep_state(fs->kept_logs, &kept);
			render_logs_kept_line(sb, &kept);
			*mtime = later(*mtime, kept.since);
		}
		return 0;
	case SRC_CLUSTER:
		return render_nodes_file(fs, NULL, p, gm, sb, mtime);
	case SRC_JOB:
		return render_job_file(fs, node, p, gm, reports, sb, mtime);
	case SRC_NS_JOBS:
	case SRC_ALL_JOBS:
		return render_jobs_file(fs, node, p, gm, sb, mtime);
	case SRC_DATA:
		return render_data_file(fs, node, p, sb, mtime);
	case SRC_QUEUES:
		return render_queues_file(fs, node, p, sb, mtime);
	case SRC_RUNTIMES:
		runtimes_poller_render(fs->runtimes, sb, time_now(), p->render.runtimes);
		return 0;
	case SRC_ATTEMPT:
		return attempt_text(fs, node, p, sb, mtime);
	case SRC_POD:
		if (!(pod = model_pod(fs, node)))
			return -ENOENT;
		*mtime = render_pod_mtime(pod, time_now());
		if (p->flags & PLACE_GPU_METRICS)
			p->render.pod_gpus(sb, pod, gm);
		else
			p->render.pod(sb, pod);
		return 0;
	case SRC_NODE:
	case SRC_NODE_PODS:
		if (!(kn = model_node(fs, node)))
			return -ENOENT;
		*mtime = kn->meta.created;
		if (p->source == SRC_NODE_PODS)
			return render_nodes_file(fs, kn, p, gm, sb, mtime);
		p->render.node(sb, kn);
		return 0;
	default:
		return -EINVAL;
	}
}

int content_refresh_locked(struct fs *fs, struct fs_inode *in, bool hold, bool *changed)
{
	struct strbuf sb = STRBUF_INIT;
	struct fs_text *text = NULL;
	struct gpu_metrics *gm = NULL;
	int64_t natural = 0;
	uint64_t gen, hash;
	int ret;

	assert(inode_lock_held(in));
	*changed = false;
	/* asked before the cache's lock is taken: it may wait on Prometheus */
	if (place_of(in->node.type)->flags & PLACE_GPU_METRICS)
		gm = gpu_metrics_get(fs->gpu_metrics);
	cache_read_lock(fs->cache);
	gen = cache_generation(fs->cache);
	if (in->rendered && in->text_gen == gen && !fs_type_is_volatile(in->node.type) &&
	    (in->text || !hold)) {
		ret = 0;
		goto unlock;
	}
	ret = render_node_text(fs, &in->node, gm,
			       place_of(in->node.type)->flags & PLACE_GROWS ? &in->reports : NULL,
			       &sb, &natural);
	cache_read_unlock(fs->cache);
	if (ret == 0 && !strbuf_ok(&sb))
		ret = -ENOMEM;
	if (ret)
		goto out;
	/* tells a re-rendered text from the last one without keeping the last one */
	hash = hash_text(strbuf_str(&sb), sb.len);
	*changed = !in->rendered || in->text_len != sb.len || in->text_hash != hash;
	/* A large text stays only while it is read: 346k inodes after a walk of the tree
	 * would otherwise hold every info and job.json. Small ones cost less than a render. */
	if (hold || sb.len <= CONTENT_KEEP_MAX) {
		if (!*changed && in->text) {
			text = fs_text_get(in->text);
		} else if (!(text = fs_text_new(strbuf_str(&sb), sb.len))) {
			*changed = false;
			ret = -ENOMEM;
			goto out;
		}
	}
	in->text_gen = gen;
	if (*changed) {
		if (!in->rendered || fs_type_is_volatile(in->node.type))
			in->mtime = natural;
		else
			in->mtime = later(time_now(), in->mtime);
		in->version++;
		in->text_len = sb.len;
		in->text_hash = hash;
		in->rendered = true;
	}
	fs_text_put(in->text);
	in->text = text;
	goto out;
unlock:
	cache_read_unlock(fs->cache);
out:
	gpu_metrics_unref(gm);
	strbuf_free(&sb);
	return ret;
}

static bool text_extends(const struct fs_text *t, const struct fs_text *prefix)
{
	return t->len >= prefix->len && memcmp(t->data, prefix->data, prefix->len) == 0;
}

struct fs_text *content_follow(struct fs *fs, struct fs_inode *in, struct fs_text **held,
			       off_t off)
{
	struct fs_text *drop = NULL, *t;
	bool changed;

	inode_lock(in);
	/* a failed render (the job gone, no memory) leaves the handle its text */
	if (content_refresh_locked(fs, in, true, &changed) == 0 && in->text &&
	    in->text != *held && (off == 0 || text_extends(in->text, *held))) {
		drop = *held;
		*held = fs_text_get(in->text);
	}
	t = fs_text_get(*held);
	inode_unlock(in);
	fs_text_put(drop);
	return t;
}

int content_refresh(struct fs *fs, struct fs_inode *in, bool *changed)
{
	int ret;

	inode_lock(in);
	ret = content_refresh_locked(fs, in, false, changed);
	inode_unlock(in);
	return ret;
}

/* ---- attributes ---- */

void content_stat_static(struct fs *fs, enum fs_type type, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_mtim.tv_sec = st->st_ctim.tv_sec = st->st_atim.tv_sec = fs->started;
	if (!fs_type_is_dir(type)) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		return;
	}
	st->st_mode = S_IFDIR | 0555;
	if ((type == FS_SUBMIT_DIR || type == FS_CHECK_DIR) && !fs->opts.readonly)
		st->st_mode = S_IFDIR | 0755;
	st->st_nlink = place_nlink(type);
	st->st_size = 4096;
	st->st_blocks = 8;
}

static void set_mtime(struct stat *st, int64_t t)
{
	st->st_mtim.tv_sec = st->st_ctim.tv_sec = st->st_atim.tv_sec = t;
	st->st_mtim.tv_nsec = st->st_ctim.tv_nsec = st->st_atim.tv_nsec = 0;
}

/* A directory's existence and mtime, under the read lock. */
static int dir_mtime(struct fs *fs, const struct fs_node *node, int64_t *mtime)
{
	const struct job *job;
	const struct pod *pod;
	const struct k8s_node *kn;
	struct fs_job_view jv;

	if (fs_type_is_code(node->type))
		return codetree_dir_mtime(fs, node, mtime);
	switch (place_of(node->type)->source) {
	case SRC_JOB:
		if (!(job = model_job(fs, node)))
			return -ENOENT;
		if (view_job(fs, job, VIEW_PODS, &jv))
			return -ENOMEM;
		*mtime = render_job_mtime(&jv.v);
		view_job_free(&jv);
		return 0;
	case SRC_POD:
		if ((pod = model_pod(fs, node)))
			*mtime = render_pod_mtime(pod, time_now());
		else if (!model_pod_kept(fs, node, mtime))   /* gone, its log kept: when it ended */
			return -ENOENT;
		return 0;
	case SRC_ATTEMPT:
		return attempt_text(fs, node, NULL, NULL, mtime);
	case SRC_NODE:
		if (!(kn = model_node(fs, node)))
			return -ENOENT;
		*mtime = kn->meta.created;
		return 0;
	case SRC_JOBS:
	case SRC_NODES:
	case SRC_NAMESPACES:
		*mtime = fs_listing_mtime(fs, node->type, node->ns);
		return 0;
	case SRC_NAMESPACE:
		*mtime = fs_listing_mtime(fs, FS_JOBS_DIR, node->ns);
		return 0;
	default:
		*mtime = fs->started;
		return 0;
	}
}

/* The subdirectories that come and go (code/, .Trash-UID) a directory has now: its st_nlink
 * counts them. Under the read lock. */
static unsigned optional_subdirs(struct fs *fs, const struct fs_node *dir)
{
	const struct place *const *c;
	size_t n = place_children(dir->type, &c);
	unsigned count = 0;

	for (size_t i = 0; i < n; i++)
		if ((c[i]->flags & PLACE_DIR) && (c[i]->flags & PLACE_COMES_AND_GOES) &&
		    model_place_exists(fs, c[i], dir))
			count++;
	/* the root's .Trash-UID, once a trasher made it (trash.h) */
	if (dir->type == FS_ROOT && trash_made(fs))
		count++;
	return count;
}

int content_stat(struct fs *fs, struct fs_inode *in, struct stat *st)
{
	enum fs_type type = in->node.type;
	uint64_t size = 0;
	int64_t mtime = fs->started;
	struct codetree_file cf;
	bool changed;
	int ret = 0;

	content_stat_static(fs, type, st);
	st->st_ino = in->ino;
	/* the control file is writable where a write can do something (suspend.h): a kind
	 * with a suspend, credentials that may patch it */
	if (type == FS_JOB_SUSPEND && !fs->opts.readonly && suspend_writable(fs, &in->node))
		st->st_mode = S_IFREG | 0644;
	if (fs_type_is_dir(type)) {
		cache_read_lock(fs->cache);
		ret = dir_mtime(fs, &in->node, &mtime);
		if (!ret && st->st_nlink > 1)
			st->st_nlink += optional_subdirs(fs, &in->node);
		cache_read_unlock(fs->cache);
		if (ret)
			return ret;
		set_mtime(st, mtime);
		return 0;
	}
	if (fs_type_is_log(type)) {
		logfile_stat(fs, in, &size, &mtime);
	} else if (fs_type_is_code(type)) {
		/* from the annotation: a stat of code/ asks the cluster nothing */
		cache_read_lock(fs->cache);
		ret = codetree_file(fs, &in->node, &cf);
		cache_read_unlock(fs->cache);
		if (ret)
			return ret;
		st->st_mode = S_IFREG | cf.perm;
		size = cf.size;
		mtime = cf.mtime;
	} else {
		ret = content_refresh(fs, in, &changed);
		if (ret)
			return ret;
		inode_lock(in);
		size = in->text_len;
		mtime = in->mtime;
		inode_unlock(in);
	}
	inode_lock(in);
	in->reported_size = size;
	in->reported = true;
	inode_unlock(in);
	st->st_size = (off_t)size;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	set_mtime(st, mtime);
	return 0;
}

/* ---- timeouts ---- */

double content_attr_timeout(struct fs *fs, enum fs_type type)
{
	unsigned flags = place_of(type)->flags;

	if (flags & PLACE_FIXED_ATTR)
		return fs->opts.static_timeout;
	if (flags & PLACE_DIR)
		return fs->opts.entry_timeout;
	if (flags & PLACE_AGES)
		return fs->opts.attr_timeout < FS_AGES_TIMEOUT ? fs->opts.attr_timeout : FS_AGES_TIMEOUT;
	return fs->opts.attr_timeout;
}

static double content_entry_timeout(struct fs *fs, enum fs_type type)
{
	const struct place *p = place_of(type);

	/* Fixed names live as long as their parent (whose own entry is short), except
	 * those that change inode (a restarted container's logs) or come and go
	 * (tensorboard_url, logs.previous). Names of objects come and go. */
	if (p->name && !(p->flags & (PLACE_LOG | PLACE_COMES_AND_GOES)))
		return fs->opts.static_timeout;
	return fs->opts.entry_timeout;
}

double content_negative_timeout(struct fs *fs, enum fs_type parent_type)
{
	const struct place *const *c;

	/* jobs/, instances/, nodes/, namespaces/, submit/: new names appear. */
	if (place_object_child(parent_type) || !place_children(parent_type, &c))
		return 0;
	/* code, tensorboard_url and logs.previous appear: the notifier invalidates their
	 * negative entries, and this is the safety net. */
	if (place_optional_mask(parent_type))
		return fs->opts.entry_timeout < FS_NEGATIVE_TIMEOUT ? fs->opts.entry_timeout
								    : FS_NEGATIVE_TIMEOUT;
	return fs->opts.static_timeout;
}

/* ---- lookup entries (ops.c, dirs.c) ---- */

/* Remembers which of a directory's names that come and go are there, so that the
 * notifier can tell the kernel when that changes. */
static void set_extras(struct fs *fs, struct fs_inode *in)
{
	unsigned has;
	bool known;

	if (!place_optional_mask(in->node.type))
		return;
	inode_lock(in);
	known = in->extras_known;
	inode_unlock(in);
	if (known)
		return;
	has = model_extras(fs, &in->node);
	inode_lock(in);
	if (!in->extras_known) {
		in->extras = has;
		in->extras_known = true;
	}
	inode_unlock(in);
}

int content_fill_entry(struct fs *fs, struct fs_inode *in, struct fuse_entry_param *e)
{
	int ret;

	memset(e, 0, sizeof(*e));
	ret = content_stat(fs, in, &e->attr);
	if (ret)
		return ret;
	set_extras(fs, in);
	e->ino = in->ino;
	e->generation = 1;
	e->attr_timeout = content_attr_timeout(fs, in->node.type);
	e->entry_timeout = content_entry_timeout(fs, in->node.type);
	return 0;
}
