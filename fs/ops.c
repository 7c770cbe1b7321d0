/*
 * The FUSE low-level operations of the tree: lookup/forget, getattr, open/read/
 * release, statfs, access, and the writes (refused with EROFS, mkdir in a job's
 * directories EACCES, or passed to submit.c for submit/ and rmdir of jobs/NAME, see
 * submit.h; symlink, link and mknod in submit/ are EPERM there; a write of
 * jobs/NAME/suspend to suspend.c; the trash `.Trash-UID/` and a rename of a job's
 * folder into it to trash.c, see trash.h).
 * Directory listing is in dirs.c.
 *
 * What the kernel is asked to cache, and for how long, is content.c's choice.
 * A small file is a snapshot taken at open (the handle's text), and every read of
 * a handle must come from its snapshot. At open this file decides between the
 * page cache and direct I/O:
 * - through the page cache while every handle reading that way has the same
 *   version: keep_cache when the kernel's pages are of that version (`cat
 *   jobs/NAME/status` of every job then costs no read requests), else the kernel
 *   drops them at open;
 * - direct_io when a handle of another version still reads through the page
 *   cache (its pages would mix with this one's: "PENCEEDED"), when the text no
 *   longer has the size last reported (a stale st_size would cut or pad it), or
 *   when the text shows ages;
 * - logs open with direct_io: they grow while open; so does jobs/NAME/progress
 *   (PLACE_GROWS, shows ages), whose handle reads the latest text when it extends
 *   the handle's, or at offset 0 (content_follow): tail -f follows it.
 * Never nonseekable (tail seeks), never flushed (noflush: nothing to write back).
 * xattr operations are left out on purpose: the kernel then stops asking
 * (ENOSYS once disables them), which keeps `ls -l` at one request per entry.
 */
#include "fs/fs.h"
#include "fs/base/fs_struct.h"
#include "fs/base/handles.h"
#include "fs/base/places.h"
#include "fs/dirs.h"
#include "fs/netops.h"
#include "fs/tree/content.h"
#include "fs/tree/gpumetrics.h"
#include "fs/tree/model.h"
#include "fs/tree/notify.h"
#include "fs/code/codetree.h"
#include "fs/code/codefetch.h"
#include "fs/logs/logfile.h"
#include "fs/submit/submit_defer.h"
#include "fs/submit/suspend.h"
#include "k8s/base/say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <unistd.h>

#include "fs/submit/submit.h"
#include "fs/submit/trash.h"
#include "fs/submit/trash_moves.h"

#define OPS_NAME_MAX 255

static struct fs *req_fs(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static struct fs_handle *fi_handle(struct fuse_file_info *fi)
{
	return (struct fs_handle *)(uintptr_t)fi->fh;
}

/* May this request change anything? 0, or the errno to answer. */
static int may_write(struct fs *fs, fuse_req_t req)
{
	if (fs->opts.readonly)
		return EROFS;
	if (fs->opts.allow_other && fuse_req_ctx(req)->uid != fs->uid)
		return EACCES;
	return 0;
}

static void ops_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs *fs = userdata;

	/* Content comes from the cluster: the kernel must not write back, and must ask
	 * again when size or mtime changed (auto_inval_data, on by default). */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	/* opendir answers ENOSYS, and the kernel keeps listings itself (dirs.c) */
	fs->no_opendir = conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT;
	/* Threads started before the daemonizing fork would not exist in the child:
	 * the notifier starts here, in the process that serves. */
	notify_start(fs->notifier, fs->se);
}

static void reply_negative(struct fs *fs, fuse_req_t req, enum fs_type parent_type)
{
	struct fuse_entry_param e;
	double t = content_negative_timeout(fs, parent_type);

	if (t <= 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.entry_timeout = t;
	fuse_reply_entry(req, &e);
}

/* The child of parent called name, pinned, with *err set when there is none. */
static struct fs_inode *child_inode(struct fs *fs, struct fs_inode *parent, const char *name,
				    int *err)
{
	struct fs_node node;
	struct fs_inode *in;
	char objkey[600];
	int ret;

	cache_read_lock(fs->cache);
	ret = model_lookup(fs, &parent->node, name, &node);
	cache_read_unlock(fs->cache);
	if (ret) {
		*err = -ret;
		return NULL;
	}
	place_node_key(&node, objkey, sizeof(objkey));
	in = inode_table_child(fs->inodes, parent, name, &node, objkey[0] ? objkey : NULL);
	fs_node_clear(&node);
	*err = in ? 0 : ENOMEM;
	return in;
}

/* Is parent/name the trash or in it (trash.c's)? name NULL: is parent. */
static bool is_trash_place(struct fs *fs, const struct fs_inode *parent, const char *name)
{
	return fs_type_is_trash(parent->node.type) ||
	       (name && parent->node.type == FS_ROOT && trash_is_name(fs, name));
}

/* Would a render of in wait for Prometheus (its GPU figures are stale)? */
static bool waits_for_gpus(struct fs *fs, const struct fs_inode *in)
{
	return (place_of(in->node.type)->flags & PLACE_GPU_METRICS) &&
	       gpu_metrics_would_wait(fs->gpu_metrics);
}

/* Would a stat of in wait for the cluster? jobs/NAME/suspend's mode may ask it
 * (an access review not kept yet); a file of GPU figures is rendered to be sized. */
static bool waits_for_mode(struct fs *fs, const struct fs_inode *in)
{
	return (in->node.type == FS_JOB_SUSPEND && !suspend_mode_known(fs, &in->node)) ||
	       waits_for_gpus(fs, in);
}

static void ops_lookup(fuse_req_t req, fuse_ino_t parent_ino, const char *name)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *parent = inode_table_get(fs->inodes, parent_ino), *in = NULL;
	struct fuse_entry_param e;
	int err = 0;

	if (!parent) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (fs_type_is_submit(parent->node.type)) {
		submit_lookup(fs, req, parent, name);
		goto out;
	}
	if (is_trash_place(fs, parent, name)) {
		trash_lookup(fs, req, parent, name);
		goto out;
	}
	if (strlen(name) > OPS_NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		goto out;
	}
	in = child_inode(fs, parent, name, &err);
	/* Waits (a copy's end, an access review) go to a network thread, the lookup
	 * again from the start there; nothing was changed or answered yet. A name no
	 * copy makes is answered here (a wait of 0 only asks). */
	if (((!in && err == ENOENT && parent->node.type == FS_JOBS_DIR &&
	      submit_defer_wait(fs->defer, parent->node.ns, name, 0,
	                        fuse_req_ctx(req)->pid)) ||
	     (in && waits_for_mode(fs, in))) &&
	    netops_name(fs, ops_lookup, req, parent_ino, name) == 0)
		goto out;
	/* A folder copied into submit/ is made a moment after cp returns (submit_defer.c):
	 * `cp -r mnist/ submit/ && cat jobs/mnist/status` waits for it here. */
	if (!in && err == ENOENT && parent->node.type == FS_JOBS_DIR &&
	    submit_defer_wait(fs->defer, parent->node.ns, name, SUBMIT_DEFER_WAIT_MS,
	                      fuse_req_ctx(req)->pid))
		in = child_inode(fs, parent, name, &err);
	if (!in) {
		if (err == ENOENT)
			reply_negative(fs, req, parent->node.type);
		else
			fuse_reply_err(req, err);
		goto out;
	}
	err = -content_fill_entry(fs, in, &e);
	if (err) {
		/* gone between the lookup and its attributes (a TensorBoard removed) */
		if (err == ENOENT)
			reply_negative(fs, req, parent->node.type);
		else
			fuse_reply_err(req, err);
		goto out;
	}
	inode_table_ref(fs->inodes, in, 1);
	if (fuse_reply_entry(req, &e) < 0)
		inode_table_forget(fs->inodes, in->ino, 1); /* interrupted: the kernel has none */
out:
	inode_table_put(fs->inodes, in);
	inode_table_put(fs->inodes, parent);
}

static void ops_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	inode_table_forget(req_fs(req)->inodes, ino, nlookup);
	fuse_reply_none(req);
}

static void ops_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct fs *fs = req_fs(req);

	for (size_t i = 0; i < count; i++)
		inode_table_forget(fs->inodes, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void ops_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in = inode_table_get(fs->inodes, ino);
	struct stat st;
	int ret;

	(void)fi;
	if (!in) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (fs_type_is_submit(in->node.type)) {
		submit_getattr(fs, req, in);
		goto out;
	}
	if (fs_type_is_trash(in->node.type)) {
		trash_getattr(fs, req, in);
		goto out;
	}
	if (waits_for_mode(fs, in) && netops_file(fs, ops_getattr, req, ino, fi) == 0)
		goto out;
	ret = content_stat(fs, in, &st);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, content_attr_timeout(fs, in->node.type));
out:
	inode_table_put(fs->inodes, in);
}

/* `echo 1 > suspend` truncates before it writes (the kernel sends the O_TRUNC as
 * a setattr of size 0): nothing to cut, the text is the cluster's; the attributes
 * as they are. Any other change is refused. */
static void suspend_setattr(struct fs *fs, fuse_req_t req, struct fs_inode *in,
			    const struct stat *attr, int to_set)
{
	struct stat st;
	int ret;

	if (!suspend_supported(&in->node)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if ((to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW |
	                FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_CTIME)) ||
	    ((to_set & FUSE_SET_ATTR_SIZE) && attr->st_size != 0)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	ret = content_stat(fs, in, &st);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, 0);
}

static void ops_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in = inode_table_get(fs->inodes, ino);
	int err = may_write(fs, req);

	if (!in) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!err && waits_for_mode(fs, in) &&
	    netops_setattr(fs, ops_setattr, req, ino, attr, to_set, fi) == 0)
		;
	else if (!err && fs_type_is_submit(in->node.type))
		submit_setattr(fs, req, in, attr, to_set, fi);
	else if (!err && fs_type_is_trash(in->node.type))
		trash_setattr(fs, req, in, attr, to_set);
	else if (!err && in->node.type == FS_JOB_SUSPEND)
		suspend_setattr(fs, req, in, attr, to_set);
	else
		fuse_reply_err(req, err ? err : EROFS);
	inode_table_put(fs->inodes, in);
}

static void close_regular(struct fs *fs, struct fs_handle *h)
{
	if (h->log)
		logfile_release(fs, h->in);
	if (!h->log && !fs_type_is_code(h->in->node.type)) {
		struct fs_text *drop = NULL;

		inode_lock(h->in);
		if (h->cached)
			h->in->cached_opens--;
		/* A job's, pod's or node's large text stays only while it is read (its
		 * readers hold their own references): a walk of the tree leaves thousands
		 * of inodes behind, and each kept its info or job.json until something
		 * refreshed it. cluster/'s few tables stay: they cost the most to render. */
		if (h->in->text && h->in->text->len > CONTENT_KEEP_MAX &&
		    fs_type_is_per_object(h->in->node.type)) {
			drop = h->in->text;
			h->in->text = NULL;
		}
		inode_unlock(h->in);
		fs_text_put(drop);
	}
	inode_table_put(fs->inodes, h->in);
	fs_handle_free(fs, h);
}

/*
 * A file of code/: its bytes, from the job's ConfigMap (one GET for the job's whole
 * code the first time, codefetch.c), a snapshot as any file's. They never change
 * for this inode (its identity holds key, size and mode; the ConfigMap is
 * immutable), so the kernel may keep its pages across opens.
 */
static int open_code(struct fs *fs, struct fs_inode *in, struct fs_handle *h,
		     struct fuse_file_info *fi)
{
	struct codetree_file cf;
	int ret;

	cache_read_lock(fs->cache);
	ret = codetree_file(fs, &in->node, &cf);
	cache_read_unlock(fs->cache);
	if (!ret)
		ret = codefetch_text(fs, &cf, &h->text);   /* blocking, no lock held */
	if (!ret)
		fi->keep_cache = 1;
	return ret;
}

static void open_regular(struct fs *fs, fuse_req_t req, struct fs_inode *in,
			 struct fuse_file_info *fi)
{
	struct fs_handle *h = fs_handle_new(fs, in);
	bool changed;
	int ret;

	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (fs_type_is_log(in->node.type)) {
		ret = logfile_open(fs, in);
		if (ret) {
			fs_handle_free(fs, h);
			fuse_reply_err(req, -ret);
			return;
		}
		h->log = true;
		fi->direct_io = 1;
	} else if (fs_type_is_code(in->node.type)) {
		ret = open_code(fs, in, h, fi);
		if (ret) {
			fs_handle_free(fs, h);
			fuse_reply_err(req, -ret);
			return;
		}
	} else {
		/* One hold of inode_lock(in) from the render to the snapshot: a getattr or the
		 * notifier refreshing in between drops a large text (in->text NULL). */
		inode_lock(in);
		ret = content_refresh_locked(fs, in, true, &changed);
		if (ret) {
			inode_unlock(in);
			fs_handle_free(fs, h);
			fuse_reply_err(req, -ret);
			return;
		}
		h->text = fs_text_get(in->text);
		if (fs_type_is_volatile(in->node.type) ||
		    (in->reported && in->reported_size != h->text->len) ||
		    (in->cached_opens > 0 && in->cached_version != in->version)) {
			fi->direct_io = 1;
		} else {
			h->cached = true;
			in->cached_opens++;
			in->cached_version = in->version;
			if (in->kernel_version == in->version)
				fi->keep_cache = 1;
			in->kernel_version = in->version;
		}
		inode_unlock(in);
	}
	fi->noflush = 1;
	fi->fh = (uintptr_t)h;
	inode_table_pin(fs->inodes, in);
	if (fuse_reply_open(req, fi) < 0)
		close_regular(fs, h);   /* interrupted: no release will come for this handle */
}

/* Opens that wait for the cluster: a log's first bytes, code/'s ConfigMap, and
 * suspend's for writing (its access review and PATCH are one action, suspend.h). */
static bool open_waits(const struct fs_inode *in, int acc)
{
	enum fs_type t = in->node.type;

	return fs_type_is_log(t) || fs_type_is_code(t) ||
	       (t == FS_JOB_SUSPEND && acc != O_RDONLY);
}

static void ops_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in = inode_table_get(fs->inodes, ino);
	int acc = fi->flags & O_ACCMODE;

	if (!in) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if ((open_waits(in, acc) || waits_for_gpus(fs, in)) &&
	    netops_file(fs, ops_open, req, ino, fi) == 0) {
		inode_table_put(fs->inodes, in);
		return;
	}
	if (fs_type_is_submit(in->node.type)) {
		int err = acc != O_RDONLY ? may_write(fs, req) : 0;

		if (err)
			fuse_reply_err(req, err);
		else
			submit_open(fs, req, in, fi);
	} else if (fs_type_is_trash(in->node.type)) {
		int err = acc != O_RDONLY ? may_write(fs, req) : 0;

		if (err)
			fuse_reply_err(req, err);
		else
			trash_open(fs, req, in, fi);
	} else if (fs_type_is_dir(in->node.type)) {
		fuse_reply_err(req, EISDIR);
	} else if (in->node.type == FS_JOB_SUSPEND && acc != O_RDONLY) {
		int err = may_write(fs, req);

		if (!err && !suspend_supported(&in->node))
			err = EOPNOTSUPP;
		if (err) {
			fuse_reply_err(req, err);
		} else {
			fi->direct_io = 1; /* each write reaches suspend_write, whatever its offset */
			open_regular(fs, req, in, fi);
		}
	} else if (acc != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
	} else {
		open_regular(fs, req, in, fi);
	}
	inode_table_put(fs->inodes, in);
}

static bool handle_is_submit(struct fs_handle *h)
{
	return h && fs_type_is_submit(h->in->node.type);
}

static bool handle_is_trash(struct fs_handle *h)
{
	return h && fs_type_is_trash(h->in->node.type);
}

static void ops_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_handle *h = fi_handle(fi);
	char *buf;
	ssize_t n;

	(void)ino;
	if (!h) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (handle_is_submit(h)) {
		submit_read(fs, req, h->in, size, off, fi);
		return;
	}
	if (handle_is_trash(h)) {
		trash_read(fs, req, h->in, size, off);
		return;
	}
	/* a log's read may wait for its bytes (log_wait) */
	if (h->log && netops_read(fs, ops_read, req, ino, size, off, fi) == 0)
		return;
	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (h->text) {
		/* Held across the reply: once the kernel has the bytes the reader may close,
		 * and the RELEASE on another worker frees the handle (and its text) while
		 * this one is still returning from writev. */
		struct fs_text *t = place_of(h->in->node.type)->flags & PLACE_GROWS
			? content_follow(fs, h->in, &h->text, off) : fs_text_get(h->text);
		size_t start = (uint64_t)off < t->len ? (size_t)off : t->len;

		fuse_reply_buf(req, t->data + start, t->len - start < size ? t->len - start : size);
		fs_text_put(t);
		return;
	}
	buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = logfile_read(fs, h->in, buf, size, off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

static void ops_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_handle *h = fi_handle(fi);

	(void)ino;
	if (!h) {
		fuse_reply_err(req, 0);
		return;
	}
	if (handle_is_submit(h)) {
		/* the submit operations free their handle and its pin */
		if (netops_file(fs, ops_release, req, ino, fi) == 0)
			return;
		submit_release(fs, req, h->in, fi);
		return;
	}
	if (handle_is_trash(h)) {
		trash_release(fs, req, fi);
		return;
	}
	close_regular(fs, h);
	fuse_reply_err(req, 0);
}

static void ops_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_handle *h = fi_handle(fi);

	/* a flush of a spec submits it: POSTs, on a network thread */
	if (handle_is_submit(h) && netops_file(fs, ops_flush, req, ino, fi) == 0)
		return;
	if (handle_is_submit(h))
		submit_flush(fs, req, h->in, fi);
	else
		fuse_reply_err(req, 0);
}

static void ops_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = req_fs(req);
	struct statvfs st;

	(void)ino;
	/* Answered here, never from the network: df and file managers call it often. */
	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_files = inode_table_count(fs->inodes);
	st.f_namemax = OPS_NAME_MAX;
	if (fs->opts.readonly)
		st.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &st);
}

/* A file of code/ shipped executable (test -x, a script run from the mount). */
static bool code_executable(struct fs *fs, struct fs_inode *in)
{
	struct stat st;

	return in->node.type == FS_CODE_FILE && content_stat(fs, in, &st) == 0 &&
	       (st.st_mode & 0111);
}

static void ops_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in = inode_table_get(fs->inodes, ino);
	int err = 0;

	if (!in) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* W_OK inside a job's directory says whether rm -r may remove it (remove_in_job):
	 * GNU rm asks before it unlinks, and gives up on an error other than EACCES. */
	if (mask & W_OK) {
		bool in_job = fs_type_in_job(in->node.type) ||
			      (in->parent && fs_type_in_job(in->parent->node.type));
		bool changeable = fs_type_is_submit(in->node.type) ||
				  fs_type_is_trash(in->node.type) || in_job;

		err = changeable ? may_write(fs, req) : EROFS;
	}
	if (!err && (mask & X_OK) && !fs_type_is_dir(in->node.type) &&
	    in->node.type != FS_SUBMIT_FILE && !code_executable(fs, in))
		err = EACCES;
	fuse_reply_err(req, err);
	inode_table_put(fs->inodes, in);
}

/* ---- writes: submit/ only ---- */

/* The parent inode of a write (dir: of a mkdir), pinned, when it is in submit/. */
static struct fs_inode *write_parent(fuse_req_t req, fuse_ino_t ino, bool dir)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in;
	int err = may_write(fs, req);

	if (err) {
		fuse_reply_err(req, err);
		return NULL;
	}
	in = inode_table_get(fs->inodes, ino);
	if (!in) {
		fuse_reply_err(req, ENOENT);
		return NULL;
	}
	if (!fs_type_is_submit(in->node.type) && !fs_type_is_trash(in->node.type)) {
		/* A job's directories say W_OK (ops_access: rm -r removes them), so a
		 * directory made in one is EACCES, not EROFS: JupyterLab makes
		 * .ipynb_checkpoints/ beside every file it opens where access() says
		 * W_OK, and takes only EACCES (its 403) as "no checkpoints here";
		 * EROFS failed the opening of the file (docs/notebooks.md). */
		fuse_reply_err(req, dir && fs_type_in_job(in->node.type) ? EACCES : EROFS);
		inode_table_put(fs->inodes, in);
		return NULL;
	}
	return in;
}

/* A new name at the top of a submit/ or check/ may ask for an access review
 * (namespaces/NS/submit/, access.h). */
static bool new_entry_waits(const struct fs_inode *parent)
{
	return parent->node.type == FS_SUBMIT_DIR || parent->node.type == FS_CHECK_DIR;
}

/* mkdir of `.Trash-UID` at the root (send2trash, GIO), or in the trash: trash.c's. */
static bool trash_mkdir_at(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p = inode_table_get(fs->inodes, parent);
	int err;

	if (!p || !is_trash_place(fs, p, name)) {
		inode_table_put(fs->inodes, p);
		return false;
	}
	err = may_write(fs, req);
	if (err)
		fuse_reply_err(req, err);
	else
		trash_mkdir(fs, req, p, name);
	inode_table_put(fs->inodes, p);
	return true;
}

static void ops_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p;

	if (trash_mkdir_at(req, parent, name))
		return;
	p = write_parent(req, parent, true);

	if (p && new_entry_waits(p) && netops_mkdir(fs, ops_mkdir, req, parent, name, mode) == 0)
		inode_table_put(fs->inodes, p);
	else if (p) {
		submit_mkdir(fs, req, p, name, mode);
		inode_table_put(fs->inodes, p);
	}
}

static void ops_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p = write_parent(req, parent, false);

	if (p && fs_type_is_trash(p->node.type)) {
		trash_create(fs, req, p, name, fi);
		inode_table_put(fs->inodes, p);
	} else if (p && new_entry_waits(p) &&
	    netops_create(fs, ops_create, req, parent, name, mode, fi) == 0)
		inode_table_put(fs->inodes, p);
	else if (p) {
		submit_create(fs, req, p, name, mode, fi);
		inode_table_put(fs->inodes, p);
	}
}

static void ops_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_handle *h = fi_handle(fi);
	int err = may_write(fs, req);

	(void)ino;
	if (!err && handle_is_submit(h)) {
		submit_write(fs, req, h->in, buf, size, off, fi);
	} else if (!err && handle_is_trash(h)) {
		trash_write(fs, req, h->in, buf, size, off);
	} else if (!err && h && h->in->node.type == FS_JOB_SUSPEND &&
	           netops_write(fs, ops_write, req, ino, buf, size, off, fi) == 0) {
		return; /* the PATCH on a network thread */
	} else if (!err && h && h->in->node.type == FS_JOB_SUSPEND) {
		/* no lock held: the PATCH waits at most request_timeout, and holds only
		 * this file (the kernel's lock of the inode), never the job's directory */
		int ret = suspend_write(fs, &h->in->node, buf, size);

		(void)off;
		if (ret < 0)
			fuse_reply_err(req, -ret);
		else
			fuse_reply_write(req, (size_t)ret);
	} else {
		fuse_reply_err(req, err ? err : EBADF); /* the tree's files open read-only */
	}
}

/*
 * unlink or rmdir of something inside a job's directory, as `rm -r jobs/NAME` does
 * before it removes the directory itself: accepted without effect when the job may
 * be deleted, because GNU rm does not try to remove a directory once removing
 * anything in it failed (remove.c: mark_ancestor_dirs). What rm removes goes with
 * the job when the final rmdir deletes it.
 */
static void remove_in_job(struct fs *fs, fuse_req_t req, struct fs_inode *parent,
			  const char *name, bool dir)
{
	struct fs_inode *in;
	int err;

	in = child_inode(fs, parent, name, &err);
	if (in)
		err = fs_type_is_dir(in->node.type) == dir ? 0 : dir ? ENOTDIR : EISDIR;
	fuse_reply_err(req, err);
	inode_table_put(fs->inodes, in);
}

static void rmdir_job(struct fs *fs, fuse_req_t req, struct fs_inode *jobs, const char *name)
{
	struct fs_inode *job;
	int err;

	job = child_inode(fs, jobs, name, &err);
	if (!job) {
		fuse_reply_err(req, err);
		return;
	}
	submit_rmdir_job(fs, req, jobs, job);
	inode_table_put(fs->inodes, job);
}

/* unlink and rmdir: of a job (rmdir jobs/NAME), inside a job (rm -r), in submit/. */
static void ops_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);

static void ops_remove(fuse_req_t req, fuse_ino_t parent, const char *name, bool dir)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p;
	int err = may_write(fs, req);

	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	p = inode_table_get(fs->inodes, parent);
	if (!p)
		fuse_reply_err(req, ENOENT);
	else if (is_trash_place(fs, p, name))
		trash_remove(fs, req, p, name, dir);
	else if (dir && p->node.type == FS_JOBS_DIR &&
	         netops_name(fs, ops_rmdir, req, parent, name) == 0)
		; /* the DELETE on a network thread */
	else if (dir && p->node.type == FS_JOBS_DIR)
		rmdir_job(fs, req, p, name);
	else if (fs_type_in_job(p->node.type))
		remove_in_job(fs, req, p, name, dir);
	else if (fs_type_is_submit(p->node.type) && dir)
		submit_rmdir(fs, req, p, name);
	else if (fs_type_is_submit(p->node.type))
		submit_unlink(fs, req, p, name);
	else
		fuse_reply_err(req, EROFS);
	inode_table_put(fs->inodes, p);
}

static void ops_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	ops_remove(req, parent, name, false);
}

static void ops_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	ops_remove(req, parent, name, true);
}

static void ops_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		       const char *newname, unsigned int flags);

/*
 * A rename from or into the trash (trash.h): jobs/NAME into files/ deletes the job,
 * files/X back into jobs/ resubmits it, both on a network thread; the others are
 * trash.c's to answer at once. False when neither end is the trash.
 */
static bool rename_trash(fuse_req_t req, fuse_ino_t parent, const char *name,
			 fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p = inode_table_get(fs->inodes, parent);
	struct fs_inode *np = inode_table_get(fs->inodes, newparent), *job;
	bool trash = p && np && (fs_type_is_trash(p->node.type) || fs_type_is_trash(np->node.type));
	bool waits = trash && ((p->node.type == FS_JOBS_DIR && fs_type_is_trash(np->node.type)) ||
			       (p->node.type == FS_TRASH_FILES_DIR && np->node.type == FS_JOBS_DIR));
	int err = trash ? may_write(fs, req) : 0;

	if (!trash || err) {
		if (err)
			fuse_reply_err(req, err);
	} else if (waits &&
	           netops_rename(fs, ops_rename, req, parent, name, newparent, newname, flags) == 0) {
		; /* a DELETE, or a submission: on a network thread */
	} else if (p->node.type == FS_JOBS_DIR) {
		job = child_inode(fs, p, name, &err);
		if (job)
			trash_put_job(fs, req, job, np, newname, flags);
		else
			fuse_reply_err(req, err);
		inode_table_put(fs->inodes, job);
	} else {
		trash_rename(fs, req, p, name, np, newname, flags);
	}
	inode_table_put(fs->inodes, np);
	inode_table_put(fs->inodes, p);
	return trash;
}

static void ops_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		       const char *newname, unsigned int flags)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p, *np;

	if (rename_trash(req, parent, name, newparent, newname, flags))
		return;
	p = write_parent(req, parent, false);
	if (!p)
		return;
	np = inode_table_get(fs->inodes, newparent);
	if (!np || !fs_type_is_submit(np->node.type))
		fuse_reply_err(req, np ? EXDEV : ENOENT);
	else if (netops_rename(fs, ops_rename, req, parent, name, newparent, newname, flags) == 0)
		; /* a rename may submit: POSTs on a network thread */
	else
		submit_rename(fs, req, p, name, np, newname, flags);
	inode_table_put(fs->inodes, np);
	inode_table_put(fs->inodes, p);
}

/* symlink, link and mknod: EROFS in the tree; in submit/, EPERM (submit_refuse). */
static void refuse_name(fuse_req_t req, fuse_ino_t parent, const char *name,
			enum submit_refused kind, const char *target)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *p = write_parent(req, parent, false);

	if (p && fs_type_is_trash(p->node.type))
		fuse_reply_err(req, EPERM); /* the trash holds deleted jobs and info files */
	else if (p)
		submit_refuse(fs, req, p, name, kind, target);
	inode_table_put(fs->inodes, p);
}

static void ops_refuse_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			     dev_t rdev)
{
	(void)mode, (void)rdev;
	refuse_name(req, parent, name, SUBMIT_SPECIAL, NULL);
}

static void ops_refuse_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
			       const char *name)
{
	refuse_name(req, parent, name, SUBMIT_SYMLINK, link);
}

static void ops_refuse_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
			    const char *newname)
{
	(void)ino;
	refuse_name(req, newparent, newname, SUBMIT_HARDLINK, NULL);
}

static const struct fuse_lowlevel_ops OPS = {
	.init = ops_init,
	.lookup = ops_lookup,
	.forget = ops_forget,
	.forget_multi = ops_forget_multi,
	.getattr = ops_getattr,
	.setattr = ops_setattr,
	.open = ops_open,
	.read = ops_read,
	.release = ops_release,
	.flush = ops_flush,
	.statfs = ops_statfs,
	.access = ops_access,
	.opendir = dirs_opendir,
	.readdir = dirs_readdir,
	.readdirplus = dirs_readdirplus,
	.releasedir = dirs_releasedir,
	.mkdir = ops_mkdir,
	.create = ops_create,
	.write = ops_write,
	.unlink = ops_unlink,
	.rmdir = ops_rmdir,
	.rename = ops_rename,
	.mknod = ops_refuse_mknod,
	.symlink = ops_refuse_symlink,
	.link = ops_refuse_link,
};

const struct fuse_lowlevel_ops *fs_lowlevel_ops(void)
{
	return &OPS;
}
