/*
 * The text and attributes of each place of the tree: which render/ function
 * makes a file, when its text is made again, its st_mtime, and the timeouts of
 * the kernel's caches for it.
 *
 * A file's text is rendered at lookup/getattr/open when the cache changed since
 * it was last made (or always for files that show ages), and kept in the inode;
 * open handles share it (fs_text), so a reader sees one version. st_mtime is
 * when the text last changed: first the object's own time (render_job_mtime,
 * the pod's latest transition, ...), then the moment a re-render differed.
 * Files that show ages (info, events) keep the object's time, or `ls -lt`
 * would reorder them every second.
 *
 * Called by ops.c, dirs.c and notify.c; takes inode->lock, then the cache's
 * read lock.
 */
#include "fs/fs_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
			t = later(t, view_pod_mtime(v[i].pods[k], now));
	}
	return t;
}

static unsigned job_view_parts(enum fs_type t)
{
	switch (t) {
	case FS_JOB_INFO:
		return VIEW_ALL;
	case FS_JOB_EVENTS:
		return VIEW_PODS | VIEW_EVENTS;
	case FS_JOB_TENSORBOARD:
		return VIEW_PODS | VIEW_SERVICES | VIEW_NODES;
	default:
		return VIEW_PODS; /* render_job_mtime follows the pods */
	}
}

static int render_job_file(struct fs *fs, const struct fs_node *node, struct strbuf *sb,
			   int64_t *mtime)
{
	const struct job *job = model_job(fs, node);
	struct fs_job_view jv;
	int ret = 0;

	if (!job)
		return -ENOENT;
	if (view_job(fs, job, job_view_parts(node->type), &jv))
		return -ENOMEM;
	*mtime = render_job_mtime(&jv.v);
	switch (node->type) {
	case FS_JOB_STATUS:
		render_job_status(sb, &jv.v);
		break;
	case FS_JOB_TYPE:
		render_job_type(sb, job);
		break;
	case FS_JOB_INFO: {
		struct cache_health h;

		render_job_info(sb, &jv.v);
		cache_get_health(fs->cache, &h);
		render_stale_note(sb, &h);
		break;
	}
	case FS_JOB_EVENTS:
		render_job_events(sb, &jv.v);
		break;
	case FS_JOB_GPUS:
		render_job_gpus(sb, &jv.v);
		break;
	case FS_JOB_TENSORBOARD:
		if (!render_job_tensorboard_url(sb, &jv.v))
			ret = -ENOENT;
		break;
	case FS_JOB_SPEC:
		render_job_spec_yaml(sb, job);
		break;
	case FS_JOB_JSON:
		render_job_json(sb, job);
		break;
	default:
		ret = -EINVAL;
	}
	view_job_free(&jv);
	return ret;
}

static int render_pod_file(struct fs *fs, const struct fs_node *node, struct strbuf *sb,
			   int64_t *mtime)
{
	const struct pod *pod = model_pod(fs, node);

	if (!pod)
		return -ENOENT;
	*mtime = view_pod_mtime(pod, fs_now());
	switch (node->type) {
	case FS_POD_STATUS:
		render_pod_status(sb, pod);
		return 0;
	case FS_POD_NODE:
		render_pod_node(sb, pod);
		return 0;
	case FS_POD_IP:
		render_pod_ip(sb, pod);
		return 0;
	case FS_POD_GPUS:
		render_pod_gpus(sb, pod);
		return 0;
	default:
		return -EINVAL;
	}
}

static int render_node_file(struct fs *fs, const struct fs_node *node, struct strbuf *sb,
			    int64_t *mtime)
{
	const struct node *kn = model_node(fs, node);
	struct node_view *v;
	size_t n;

	if (!kn)
		return -ENOENT;
	*mtime = kn->meta.created;
	switch (node->type) {
	case FS_NODE_STATUS:
		render_node_status(sb, kn);
		return 0;
	case FS_NODE_IP:
		render_node_ip(sb, kn);
		return 0;
	case FS_NODE_ROLE:
		render_node_role(sb, kn);
		return 0;
	case FS_NODE_GPUS:
	case FS_NODE_INFO:
		if (view_nodes(fs, kn, &v, &n))
			return -ENOMEM;
		*mtime = nodes_mtime(v, n, fs_now());
		if (node->type == FS_NODE_GPUS)
			render_node_gpus(sb, &v[0]);
		else
			render_node_info(sb, &v[0]);
		view_nodes_free(v, n);
		return 0;
	default:
		return -EINVAL;
	}
}

/* The text of a regular (non-log) file and its object's time. Under the read lock. */
static int render_node_text(struct fs *fs, const struct fs_node *node, struct strbuf *sb,
			    int64_t *mtime)
{
	struct cache_health h;
	struct node_view *v;
	size_t n;

	*mtime = fs->started;
	switch (node->type) {
	case FS_README:
		render_readme(sb);
		return 0;
	case FS_CLUSTER_CONTEXT:
		render_cluster_context(sb, fs->cfg);
		return 0;
	case FS_CLUSTER_HEALTH:
		cache_get_health(fs->cache, &h);
		render_cluster_health(sb, &h);
		*mtime = later(h.since, fs->started);
		return 0;
	case FS_CLUSTER_GPUS:
	case FS_CLUSTER_TOP:
		if (view_nodes(fs, NULL, &v, &n))
			return -ENOMEM;
		if (node->type == FS_CLUSTER_GPUS)
			render_cluster_gpus(sb, v, n);
		else
			render_cluster_top(sb, v, n);
		*mtime = later(nodes_mtime(v, n, fs_now()), fs->started);
		view_nodes_free(v, n);
		return 0;
	case FS_JOB_STATUS ... FS_JOB_JSON:
		return render_job_file(fs, node, sb, mtime);
	case FS_POD_STATUS ... FS_POD_GPUS:
		return render_pod_file(fs, node, sb, mtime);
	case FS_NODE_GPUS ... FS_NODE_ROLE:
		return render_node_file(fs, node, sb, mtime);
	default:
		return -EINVAL;
	}
}

int content_refresh(struct fs *fs, struct fs_inode *in, bool *changed)
{
	struct strbuf sb = STRBUF_INIT;
	struct fs_text *text;
	int64_t natural = 0;
	uint64_t gen;
	int ret;

	*changed = false;
	pthread_mutex_lock(&in->lock);
	cache_read_lock(fs->cache);
	gen = cache_generation(fs->cache);
	if (in->text && in->text_gen == gen && !fs_type_is_volatile(in->node.type)) {
		ret = 0;
		goto unlock;
	}
	ret = render_node_text(fs, &in->node, &sb, &natural);
	cache_read_unlock(fs->cache);
	if (ret == 0 && !strbuf_ok(&sb))
		ret = -ENOMEM;
	if (ret)
		goto out;
	in->text_gen = gen;
	if (in->text && in->text->len == sb.len && memcmp(in->text->data, strbuf_str(&sb), sb.len) == 0)
		goto out;
	text = fs_text_new(strbuf_str(&sb), sb.len);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	if (!in->text || fs_type_is_volatile(in->node.type))
		in->mtime = natural;
	else
		in->mtime = later(fs_now(), in->mtime);
	fs_text_put(in->text);
	in->text = text;
	in->version++;
	*changed = true;
	goto out;
unlock:
	cache_read_unlock(fs->cache);
out:
	pthread_mutex_unlock(&in->lock);
	strbuf_free(&sb);
	return ret;
}

/* ---- attributes ---- */

static bool type_is_static_dir(enum fs_type t)
{
	return t == FS_ROOT || t == FS_CLUSTER_DIR || t == FS_SUBMIT_DIR;
}

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
	if (type == FS_SUBMIT_DIR && !fs->opts.readonly)
		st->st_mode = S_IFDIR | 0755;
	switch (type) {
	case FS_ROOT:
		st->st_nlink = 7;     /* ., .. and cluster, jobs, namespaces, nodes, submit */
		break;
	case FS_JOB_DIR:
	case FS_NS_DIR:
		st->st_nlink = 3;     /* instances/, jobs/ */
		break;
	case FS_JOBS_DIR:
	case FS_INSTANCES_DIR:
	case FS_NODES_DIR:
	case FS_NAMESPACES_DIR:
		/* As many subdirectories as objects: 1 tells find and fts "unknown" rather
		 * than a count that could be stale between listing and stat. */
		st->st_nlink = 1;
		break;
	default:
		st->st_nlink = 2;
	}
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
	const struct node *kn;
	struct fs_job_view jv;

	switch (node->type) {
	case FS_JOB_DIR:
	case FS_INSTANCES_DIR:
		if (!(job = model_job(fs, node)))
			return -ENOENT;
		if (view_job(fs, job, VIEW_PODS, &jv))
			return -ENOMEM;
		*mtime = render_job_mtime(&jv.v);
		view_job_free(&jv);
		return 0;
	case FS_POD_DIR:
		if (!(pod = model_pod(fs, node)))
			return -ENOENT;
		*mtime = view_pod_mtime(pod, fs_now());
		return 0;
	case FS_NODE_DIR:
		if (!(kn = model_node(fs, node)))
			return -ENOENT;
		*mtime = kn->meta.created;
		return 0;
	case FS_JOBS_DIR:
	case FS_NODES_DIR:
	case FS_NAMESPACES_DIR:
		*mtime = fs_listing_mtime(fs, node->type, node->ns);
		return 0;
	case FS_NS_DIR:
		*mtime = fs_listing_mtime(fs, FS_JOBS_DIR, node->ns);
		return 0;
	default:
		*mtime = fs->started;
		return 0;
	}
}

int content_stat(struct fs *fs, struct fs_inode *in, struct stat *st)
{
	enum fs_type type = in->node.type;
	uint64_t size = 0;
	int64_t mtime = fs->started;
	bool changed;
	int ret = 0;

	content_stat_static(fs, type, st);
	st->st_ino = in->ino;
	if (fs_type_is_dir(type)) {
		cache_read_lock(fs->cache);
		ret = dir_mtime(fs, &in->node, &mtime);
		cache_read_unlock(fs->cache);
		if (ret)
			return ret;
		set_mtime(st, mtime);
		return 0;
	}
	if (fs_type_is_log(type)) {
		logfile_stat(fs, in, &size, &mtime);
	} else {
		ret = content_refresh(fs, in, &changed);
		if (ret)
			return ret;
		pthread_mutex_lock(&in->lock);
		size = in->text->len;
		mtime = in->mtime;
		pthread_mutex_unlock(&in->lock);
	}
	pthread_mutex_lock(&in->lock);
	in->reported_size = size;
	in->reported = true;
	pthread_mutex_unlock(&in->lock);
	st->st_size = (off_t)size;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	set_mtime(st, mtime);
	return 0;
}

/* ---- timeouts ---- */

double content_attr_timeout(struct fs *fs, enum fs_type type)
{
	if (type_is_static_dir(type))
		return fs->opts.static_timeout;
	if (fs_type_is_dir(type))
		return fs->opts.entry_timeout;
	return fs->opts.attr_timeout;
}

double content_entry_timeout(struct fs *fs, enum fs_type parent_type, enum fs_type type)
{
	switch (parent_type) {
	case FS_ROOT:
	case FS_CLUSTER_DIR:
	case FS_NS_DIR:
		return fs->opts.static_timeout;
	case FS_JOB_DIR:
	case FS_POD_DIR:
	case FS_NODE_DIR:
		/* Fixed names live as long as their object (whose own entry is short),
		 * except those that change inode (a restarted container's logs) or come
		 * and go (tensorboard_url, logs.previous). */
		if (fs_type_is_log(type) || type == FS_JOB_TENSORBOARD)
			return fs->opts.entry_timeout;
		return fs->opts.static_timeout;
	default:
		return fs->opts.entry_timeout;
	}
}

double content_negative_timeout(struct fs *fs, enum fs_type parent_type)
{
	switch (parent_type) {
	case FS_ROOT:
	case FS_CLUSTER_DIR:
	case FS_NODE_DIR:
	case FS_NS_DIR:
		return fs->opts.static_timeout;
	case FS_JOB_DIR:
	case FS_POD_DIR:
		/* tensorboard_url and logs.previous appear: the notifier invalidates their
		 * negative entries, and this is the safety net. */
		return fs->opts.entry_timeout;
	default:
		/* jobs/, instances/, nodes/, namespaces/, submit/: new names appear. */
		return 0;
	}
}
