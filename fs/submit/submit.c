/*
 * The FUSE operations of submit/ (submit.h) and of rmdir jobs/NAME: the staging
 * tree (staging.h) shown to the kernel, and the moments a spec is submitted.
 *
 * A spec is submitted when a written spec file is flushed, that is at close(2)
 * (cp, cp -r, install, `cat > f`, editors that write in place), or when a file is
 * renamed to a spec's name (rsync, editors that write a temporary file and rename
 * it). The outcome is the reply: close(2) or rename(2) fails with the errno of
 * docs/submit.md's table, and submit/NAME/status and error say what happened. A rename that
 * would submit a bad spec is refused and changes nothing.
 *
 * Only a spec its writer finished is submitted (docs/submit.md, "A writer that did
 * not finish"): the close must be of the handle that wrote the whole text (staging.h:
 * not `>>`, not a text another writer rewrote), and not the kernel's close of a
 * process killed by a signal or exiting with a failure (writers.h asks /proc). The
 * others are staged (status `staged`) or refused, and never launch a job. While an
 * entry's submission runs, opening its spec for writing waits, and is EEXIST when
 * the job it launched exists: what submit/ shows is what was launched.
 *
 * Everything below submit/ is answered with zero timeouts: the kernel asks again
 * each time, so status and error appear and change without invalidations. status
 * follows the job its submission made: each lookup, getattr and read of it first
 * asks the cache whether that job (by uid) is still there, and staging's text
 * becomes "deleted" when it is not, so that size and contents always agree.
 *
 * submit/ holds files and folders only: a symbolic link, hard link or special file
 * is EPERM (submit_refuse), and it, like any name of a folder's copy that could not
 * be made, marks that folder's copy as failed, so that its job is never made from
 * the rest (staging_copy_failed).
 *
 * Each namespace's submit/ has a staging tree of its own (areas.c): submit/ is the
 * mount's namespace's, namespaces/NS/submit/ namespace NS's, and an inode knows its
 * namespace (node.ns; NULL for the top submit/). Creating a name in
 * namespaces/NS/submit/ itself first asks whether these credentials may create jobs
 * in NS (access.c): where not, it is EACCES, and submit/'s own `error` says why.
 *
 * check/ and namespaces/NS/check/ (docs/submit.md, "Checking a spec") are the same
 * operations over trees of their own (fs->check_areas): the root's type is
 * FS_CHECK_DIR, the inodes below it carry the identity prefix "check:", and a
 * submission there stops after the dry runs, its answers in ENTRY/objects.yaml.
 *
 * rmdir of jobs/NAME runs its DELETE through deletes.c, which bounds how long the
 * rmdir (and so the kernel's lock of jobs/) waits for the cluster.
 *
 * Called by ops.c and dirs.c (submit.h).
 *
 * One unit with submit_defer.c, which makes a copied folder's job on its thread
 * and records the outcome through this file's submit_area_path, submit_note_made
 * and submit_record_checked: submit_defer.c's design note says why.
 */
#include "fs/submit/areas.h"
#include "fs/submit/access.h"
#include "fs/submit/submit_run.h"
#include "fs/submit/submit_defer.h"
#include "fs/submit/writers.h"
#include "fs/base/handles.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fs/submit/deletes.h"
#include "fs/submit/staging.h"
#include "fs/submit/submit.h"
#include "k8s/api/api.h"
#include "k8s/auth/config.h"
#include "k8s/http/client.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

#define SUBMIT_IDENTITY     "staging:"
#define CHECK_IDENTITY      "check:"
#define SUBMIT_NAME_MAX     255

/* The namespace a place of submit/ launches into. */
static const char *area_ns(struct fs *fs, const struct fs_inode *in)
{
	return in->node.ns ? in->node.ns : fs->namespace;
}

/* Is in check/ or below it (a dry run's place), rather than submit/? Below the
 * root, the identity says which: its inodes share submit/'s types. */
static bool is_check(const struct fs_inode *in)
{
	return in->node.type == FS_CHECK_DIR ||
	       (in->node.identity &&
	        strncmp(in->node.identity, CHECK_IDENTITY, strlen(CHECK_IDENTITY)) == 0);
}

static bool is_root(const struct fs_inode *in)
{
	return in->node.type == FS_SUBMIT_DIR || in->node.type == FS_CHECK_DIR;
}

/* The staging tree of in's submit/ (or check/), made when create; NULL when it has
 * none yet (or on ENOMEM with create). */
static struct staging *area(struct fs *fs, const struct fs_inode *in, bool create)
{
	return areas_get(is_check(in) ? fs->check_areas : fs->areas, area_ns(fs, in), create);
}

/* Is creating in in checked against RBAC first: namespaces/NS/submit/ itself, for
 * another namespace than the mount's (whose submit/ the user chose by mounting it;
 * there the submission's own 403 answers). */
static bool checked_root(struct fs *fs, const struct fs_inode *in)
{
	return is_root(in) && strcmp(area_ns(fs, in), fs->namespace) != 0;
}

void submit_area_path(struct fs *fs, const char *ns, bool check, char *buf, size_t size)
{
	const char *area = check ? "check" : "submit";

	if (strcmp(ns, fs->namespace) == 0)
		snprintf(buf, size, "%s/", area);
	else
		snprintf(buf, size, "namespaces/%s/%s/", ns, area);
}

/* Does the cache hold the job of this uid (1), none of that name (0), or another (-1)? */
static int job_in_cache(struct fs *fs, const char *ns, int kind, const char *name,
                        const char *uid)
{
	const struct job *j;
	int there;

	cache_read_lock(fs->cache);
	j = cache_find_job(fs->cache, ns, kind, name);
	there = !j ? 0 : j->meta.uid && strcmp(j->meta.uid, uid) == 0 ? 1 : -1;
	cache_read_unlock(fs->cache);
	return there;
}

/* Status files follow the job their entry's submission made (staging.h): once the
 * cache has shown it, its absence means it is gone; another job of its name (another
 * uid) means so at once. Before the cache has shown it (a slow watch), it counts as
 * there. id: any node of submit/; only status files follow. */
static void follow_job(struct fs *fs, struct staging *st, uint64_t id)
{
	struct staging_job job;
	int there;

	if (staging_followed_job(st, id, &job) <= 0)
		return;
	there = job_in_cache(fs, job.ns, job.kind, job.name, job.uid);
	if (there > 0 && !job.seen)
		staging_follow(st, id, job.uid, true);
	else if (there < 0 || (there == 0 && job.seen))
		staging_follow(st, id, job.uid, false);
	staging_job_clear(&job);
}

void submit_note_waiting(struct fs *fs, struct staging *st, const char *entry)
{
	int timeout_ms = fs->client ? k8s_client_request_timeout(fs->client) : 0;
	char why[512], since[32];

	/* issue 32: a cluster that went down was a silent wait of request_timeout; the
	 * entry says at once what it waits for, and `error` then says how it ended */
	snprintf(why, sizeof(why),
	         "waiting since %s for the API server at %s to answer; the submission fails "
	         "if it has not answered within request_timeout (%d s)",
	         time_format_human(time_now(), since, sizeof(since)),
	         fs->cfg && fs->cfg->server ? fs->cfg->server : "(none)", timeout_ms / 1000);
	staging_set_outcome(st, entry, STAGING_SUBMITTING, why);
}

void submit_note_made(struct fs *fs, struct staging *st, const char *entry,
                      const struct submit_made *made)
{
	/* without a uid (never from an API server) status stays "submitted" */
	if (made->uid[0])
		staging_set_job(st, entry, made->ns, made->kind, made->name, made->uid,
		                job_in_cache(fs, made->ns, made->kind, made->name, made->uid) > 0);
}

/* The staging node an inode of submit/ stands for. */
static uint64_t staging_id(const struct fs_inode *in)
{
	if (is_root(in))
		return STAGING_ROOT;
	return strtoull(strchr(in->node.identity, ':') + 1, NULL, 10);
}

/* The staging handle of an open file (its priv), 0 when none (setattr by path). */
static uint64_t staging_handle(const struct fuse_file_info *fi)
{
	const struct fs_handle *h = fi ? (const struct fs_handle *)(uintptr_t)fi->fh : NULL;

	return h ? (uint64_t)(uintptr_t)h->priv : 0;
}

/*
 * The process behind req wrote below a folder of submit/ (node id): while it runs,
 * the folder's copy may not be over (submit_defer.c). Asked of /proc once per
 * thread and copy.
 */
static void note_writer(struct staging *st, uint64_t id, fuse_req_t req)
{
	pid_t tid = fuse_req_ctx(req)->pid;
	struct writer_id w;

	if (tid <= 0 || staging_knows_writer(st, id, tid) || writer_identify(tid, &w) < 0)
		return;
	staging_add_writer(st, id, &(struct staging_writer){tid, w.tgid, w.starttime});
}

/* Brings the status of the entry the spec dir/name (name NULL: the file dir) submits
 * to up to date with the cache, so that a job deleted since is not taken as there. */
static void follow_entry(struct fs *fs, struct staging *st, uint64_t dir, const char *name)
{
	uint64_t status = staging_status_of(st, dir, name);

	if (status)
		follow_job(fs, st, status);
}

/* The inode of parent/name for a staging node, pinned; NULL on ENOMEM. */
static struct fs_inode *staging_inode(struct fs *fs, struct fs_inode *parent, const char *name,
                                      const struct staging_attr *a)
{
	struct fs_node node = FS_NODE_INIT;
	struct fs_inode *in;
	char identity[48];

	snprintf(identity, sizeof(identity), "%s%" PRIu64,
	         is_check(parent) ? CHECK_IDENTITY : SUBMIT_IDENTITY, a->id);
	node.type = a->dir ? FS_SUBMIT_SUBDIR : FS_SUBMIT_FILE;
	node.identity = strdup(identity);
	node.ns = strdup(area_ns(fs, parent));
	if (!node.identity || !node.ns) {
		fs_node_clear(&node);
		return NULL;
	}
	in = inode_table_child(fs->inodes, parent, name, &node, NULL);
	fs_node_clear(&node);
	return in;
}

static void attr_to_stat(struct fs *fs, const struct staging_attr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = (a->dir ? S_IFDIR : S_IFREG) | a->mode;
	if (a->id == STAGING_ROOT && fs->opts.readonly)
		st->st_mode = S_IFDIR | 0555;
	st->st_nlink = a->nlink;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_size = (off_t)a->size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((a->size + 511) / 512);
	st->st_atim = a->atime;
	st->st_mtim = a->mtime;
	st->st_ctim = a->ctime;
}

/* Fills e for the staging node a at parent/name; the inode (pinned) in *inp. */
static int fill_entry(struct fs *fs, struct fs_inode *parent, const char *name,
                      const struct staging_attr *a, struct fuse_entry_param *e,
                      struct fs_inode **inp)
{
	struct fs_inode *in = staging_inode(fs, parent, name, a);

	*inp = in;
	if (!in)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	e->ino = in->ino;
	e->generation = 1;
	attr_to_stat(fs, a, &e->attr);
	e->attr.st_ino = in->ino;
	return 0;
}

static void reply_entry(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
                        const struct staging_attr *a)
{
	struct fuse_entry_param e;
	struct fs_inode *in;
	int ret = fill_entry(fs, parent, name, a, &e, &in);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	inode_table_ref(fs->inodes, in, 1);
	if (fuse_reply_entry(req, &e) < 0)
		inode_table_forget(fs->inodes, in->ino, 1);
	inode_table_put(fs->inodes, in);
}

void submit_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name)
{
	struct staging *st = area(fs, parent, false);
	struct staging_attr a;
	int ret;

	if (strlen(name) > SUBMIT_NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	ret = st ? staging_lookup(st, staging_id(parent), name, &a) : -ENOENT;
	if (ret == 0 && a.generated && strcmp(name, STAGING_STATUS) == 0) {
		follow_job(fs, st, a.id);
		ret = staging_lookup(st, staging_id(parent), name, &a);
	}
	if (ret)
		fuse_reply_err(req, -ret); /* no negative entry: names come and go */
	else
		reply_entry(fs, req, parent, name, &a);
}

/* The reply of getattr and setattr: the attributes, never cached (timeout 0). */
static void reply_attr(struct fs *fs, fuse_req_t req, struct fs_inode *in, int ret,
                       const struct staging_attr *a)
{
	struct stat st;

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	attr_to_stat(fs, a, &st);
	st.st_ino = in->ino;
	fuse_reply_attr(req, &st, 0);
}

/* A submit/ whose tree is not made yet: empty, as a new one is, since the mount. */
static void empty_root(struct fs *fs, struct staging_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->id = STAGING_ROOT;
	a->dir = true;
	a->mode = 0755;
	a->size = 4096;
	a->nlink = 2;
	a->atime.tv_sec = a->mtime.tv_sec = a->ctime.tv_sec = fs->started;
}

void submit_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in)
{
	struct staging *st = area(fs, in, false);
	struct staging_attr a;
	int ret = 0;

	if (st) {
		follow_job(fs, st, staging_id(in));
		ret = staging_getattr(st, staging_id(in), &a);
	} else if (is_root(in)) {
		empty_root(fs, &a);
	} else {
		ret = -ENOENT;
	}
	reply_attr(fs, req, in, ret, &a);
}

void submit_setattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *attr,
                           int to_set, struct fuse_file_info *fi)
{
	struct staging *st = area(fs, in, true);
	struct staging_set set;
	struct staging_attr a;
	int ret;

	/* chown is accepted and changes nothing: the files are the mounting user's, and
	 * `cp -a` as root would fail on an error. */
	memset(&set, 0, sizeof(set));
	set.mode_set = to_set & FUSE_SET_ATTR_MODE;
	set.mode = attr->st_mode;
	set.size_set = to_set & FUSE_SET_ATTR_SIZE;
	set.size = attr->st_size < 0 ? 0 : (uint64_t)attr->st_size;
	set.atime_set = to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW);
	set.atime = attr->st_atim;
	if (to_set & FUSE_SET_ATTR_ATIME_NOW)
		set.atime.tv_nsec = UTIME_NOW;
	set.mtime_set = to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW);
	set.mtime = attr->st_mtim;
	if (to_set & FUSE_SET_ATTR_MTIME_NOW)
		set.mtime.tv_nsec = UTIME_NOW;
	if (set.size_set && attr->st_size < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	ret = st ? staging_setattr(st, staging_id(in), staging_handle(fi), &set, &a) : -ENOMEM;
	reply_attr(fs, req, in, ret, &a);
}

int submit_list(struct fs *fs, struct fs_inode *dir, struct fs_entry **out, size_t *n)
{
	struct staging *st = area(fs, dir, false);
	struct staging_entry *se;
	struct fs_entry *e;
	size_t count;
	int ret;

	*out = NULL;
	*n = 0;
	if (!st)
		return is_root(dir) ? 0 : -ENOENT; /* empty until written to */
	ret = staging_list(st, staging_id(dir), &se, &count);
	if (ret)
		return ret;
	e = calloc(count ? count : 1, sizeof(*e));
	if (!e) {
		staging_list_free(se, count);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		e[i].name = se[i].name; /* taken over */
		se[i].name = NULL;
		e[i].node = (struct fs_node)FS_NODE_INIT;
		e[i].node.type = se[i].dir ? FS_SUBMIT_SUBDIR : FS_SUBMIT_FILE;
	}
	staging_list_free(se, count);
	*out = e;
	*n = count;
	return 0;
}

/*
 * The tree a new name goes into, made when missing: 0, or -EACCES where the
 * credentials may not create jobs (checked_root), with the reason put in the
 * root's `error` (and removed once they may again).
 */
static int may_create(struct fs *fs, struct fs_inode *parent, struct staging **st)
{
	char why[ACCESS_WHY_MAX];
	int ret = 0;

	if (checked_root(fs, parent))
		ret = access_create_jobs(fs, area_ns(fs, parent), why, sizeof(why));
	*st = area(fs, parent, true);
	if (!*st)
		return -ENOMEM;
	if (checked_root(fs, parent))
		staging_set_notice(*st, ret ? why : NULL);
	return ret;
}

/*
 * A name in a folder of submit/ that could not be made (ret): the folder's copy is
 * incomplete, and its job must not be made from the rest. EEXIST is not a loss (the
 * name is there), nor ENOENT (the folder is gone).
 */
static void note_copy_failed(struct fs *fs, struct fs_inode *parent, const char *name,
                             int ret)
{
	struct staging *st = area(fs, parent, false);
	char what[160];

	if (!st || ret == -EEXIST || ret == -ENOENT)
		return;
	if (ret == -ENOSPC)
		snprintf(what, sizeof(what), "not made: submit/ is full (%d files and directories, "
		         "%d MiB of files, in all)", STAGING_NODES_MAX, STAGING_BYTES_MAX >> 20);
	else if (ret == -EACCES)
		snprintf(what, sizeof(what), "not made: status and error are arenafs' own names "
		         "in a folder of submit/");
	else
		snprintf(what, sizeof(what), "not made: %s", strerror(-ret));
	staging_copy_failed(st, staging_id(parent), name, what);
}

void submit_mkdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
                         mode_t mode)
{
	struct staging *st;
	struct staging_attr a;
	int ret = may_create(fs, parent, &st);

	if (!ret)
		ret = staging_mkdir(st, staging_id(parent), name, mode, &a);
	if (ret) {
		note_copy_failed(fs, parent, name, ret);
		fuse_reply_err(req, -ret);
		return;
	}
	note_writer(st, a.id, req);
	reply_entry(fs, req, parent, name, &a);
}

/* The handle of an open staging file (staging's handle kept in priv); generated
 * files (status, error) change size under a reader, so they bypass the page cache. */
static struct fs_handle *open_handle(struct fs *fs, struct fs_inode *in, bool generated,
                                     uint64_t handle, struct fuse_file_info *fi)
{
	struct fs_handle *h = fs_handle_new(fs, in);

	if (!h)
		return NULL;
	h->priv = (void *)(uintptr_t)handle;
	inode_table_pin(fs->inodes, in);
	fi->fh = (uintptr_t)h;
	fi->direct_io = generated;
	fi->keep_cache = 0;
	return h;
}

static void close_handle(struct fs *fs, struct fs_handle *h)
{
	struct staging *st = area(fs, h->in, false);

	if (st)
		staging_release(st, staging_id(h->in), (uint64_t)(uintptr_t)h->priv);
	inode_table_put(fs->inodes, h->in);
	fs_handle_free(fs, h);
}

void submit_create(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
                          mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	struct staging_attr a;
	struct staging *st;
	struct fs_inode *in;
	struct fs_handle *h;
	int ret;

	if (strlen(name) > SUBMIT_NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	ret = may_create(fs, parent, &st);
	if (!ret) {
		follow_entry(fs, st, staging_id(parent), name);
		ret = staging_create(st, staging_id(parent), name, mode, fi->flags & O_EXCL,
		                     fi->flags, &a);
	}
	if (ret) {
		note_copy_failed(fs, parent, name, ret);
		fuse_reply_err(req, -ret);
		return;
	}
	note_writer(st, a.id, req);
	ret = fill_entry(fs, parent, name, &a, &e, &in);
	h = in ? open_handle(fs, in, a.generated, a.handle, fi) : NULL;
	if (!h) {
		staging_release(st, a.id, a.handle);
		inode_table_put(fs->inodes, in);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	inode_table_ref(fs->inodes, in, 1);
	if (fuse_reply_create(req, &e, fi) < 0) {
		inode_table_forget(fs->inodes, in->ino, 1);
		close_handle(fs, h);
	}
	inode_table_put(fs->inodes, in);
}

/*
 * symlink(2), link(2) and mknod(2) in submit/: EPERM, as on a file system that has no
 * such thing (symlink(2): "does not support the creation of symbolic links"). A job
 * ships files, so a link would have to ship what it points to, which may lie
 * outside the folder (/etc/shadow, a data set) and which the daemon cannot even
 * find (a relative target is relative to where the user copied from). The folder
 * it was copied into is marked: its job is not made (docs/submit.md, "Local code").
 */
void submit_refuse(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
                   enum submit_refused kind, const char *target)
{
	struct staging *st = area(fs, parent, false);
	char what[512];

	if (kind == SUBMIT_SYMLINK)
		snprintf(what, sizeof(what),
		         "a symbolic link (to %.200s): submit/ takes files and folders only, so that "
		         "a job never ships what lies outside its folder; replace the link by what "
		         "it points to, or copy with cp -rL, which copies that",
		         target);
	else if (kind == SUBMIT_HARDLINK)
		snprintf(what, sizeof(what),
		         "a hard link (cp -a keeps them): submit/ takes files and folders only; "
		         "copy with cp -r, which copies each as a file");
	else
		snprintf(what, sizeof(what),
		         "a device, FIFO or socket: submit/ takes files and folders only");
	if (st)
		staging_copy_failed(st, staging_id(parent), name, what);
	fuse_reply_err(req, EPERM);
}

void submit_open(struct fs *fs, fuse_req_t req, struct fs_inode *in,
                        struct fuse_file_info *fi)
{
	struct staging *st = area(fs, in, false);
	struct staging_attr a;
	struct fs_handle *h;
	uint64_t id = staging_id(in), handle = 0;
	int ret;

	if (in->node.type != FS_SUBMIT_FILE) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (st && (fi->flags & O_ACCMODE) != O_RDONLY)
		follow_entry(fs, st, id, NULL);
	ret = st ? staging_open(st, id, fi->flags, &handle) : -ENOENT;
	if (!ret)
		ret = staging_getattr(st, id, &a);
	if (ret) {
		if (handle)
			staging_release(st, id, handle);
		fuse_reply_err(req, -ret);
		return;
	}
	h = open_handle(fs, in, a.generated, handle, fi);
	if (!h) {
		staging_release(st, id, handle);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (fuse_reply_open(req, fi) < 0)
		close_handle(fs, h);
}

void submit_read(struct fs *fs, fuse_req_t req, struct fs_inode *in, size_t size, off_t off,
                        struct fuse_file_info *fi)
{
	struct staging *st = area(fs, in, false);
	char *buf = malloc(size ? size : 1);
	ssize_t n;

	(void)fi;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (st && off == 0)
		follow_job(fs, st, staging_id(in));
	n = st ? staging_read(st, staging_id(in), buf, size, off) : -ENOENT;
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

void submit_write(struct fs *fs, fuse_req_t req, struct fs_inode *in, const char *buf,
                         size_t size, off_t off, struct fuse_file_info *fi)
{
	struct staging *st = area(fs, in, false);
	ssize_t n = st ? staging_write(st, staging_id(in), staging_handle(fi), buf, size, off)
	               : -ENOENT;

	if (st && n > 0)
		note_writer(st, staging_id(in), req);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

void submit_record_checked(struct staging *st, const char *entry, struct strbuf *objects)
{
	if (!strbuf_ok(objects)) {
		staging_set_outcome(st, entry, STAGING_FAILED,
		                    "out of memory writing the objects the dry run answered");
		return;
	}
	staging_set_outcome(st, entry, STAGING_CHECKED, NULL);
	staging_set_objects(st, entry, strbuf_str(objects));
}

/*
 * Submits sub, taken from st (namespace ns' submit/), and records the outcome; 0 or
 * -errno for the reply. A folder's spec (submit/NAME/spec.yaml) is only checked
 * here: its job is made with the folder's code once the copy is over
 * (submit_defer.c), and sub is taken over for that. In check/ (check), nothing is
 * made: the dry run's answers become the entry's objects.yaml; a folder's, with its
 * code's ConfigMap, once its copy is over (submit_defer.c again).
 */
static int submit_and_record(struct fs *fs, struct staging *st, const char *ns, bool check,
                             struct staging_submission *sub)
{
	struct submit_made made = {"", 0, "", ""};
	struct strbuf objects = STRBUF_INIT;
	struct submit_request rq = {ns, sub->text, sub->len, sub->default_name,
	                            sub->in_dir || check, check ? &objects : NULL, NULL, &made,
	                            NULL, NULL};
	struct k8s_error err;
	char where[320];
	int ret;

	k8s_error_clear(&err);
	submit_note_waiting(fs, st, sub->entry);
	ret = submit_run(fs, &rq, &err);
	if (ret == 0 && sub->in_dir) {
		char *entry = strdup(sub->entry);

		strbuf_free(&objects);
		staging_set_outcome(st, sub->entry, STAGING_SUBMITTING,
		                    "waiting for the copy into the folder to end: its job is made "
		                    "once no file in it is open for writing, nothing has changed for "
		                    "half a second and the processes that wrote it have ended");
		ret = entry ? submit_defer_add(fs->defer, ns, check, sub) : -ENOMEM;
		if (ret == 0) {
			staging_idle(st, entry); /* the make marks it busy again */
			free(entry);
			return 0;
		}
		free(entry);
		k8s_error_set(&err, -ret, "the submission could not be queued: %s",
		              strerror(-ret));
	}
	if (ret == 0 && check)
		submit_record_checked(st, sub->entry, &objects);
	else
		staging_set_outcome(st, sub->entry, ret ? STAGING_FAILED : STAGING_SUBMITTED,
		                    err.message);
	strbuf_free(&objects);
	if (!ret && !check)
		submit_note_made(fs, st, sub->entry, &made);
	staging_idle(st, sub->entry);
	if (ret == -EACCES)
		access_forget(fs, ns); /* RBAC changed: the next new name asks again */
	if (ret) {
		submit_area_path(fs, ns, check, where, sizeof(where));
		say(LOG_INFO, "%s%s refused: %s", where, sub->entry, err.message);
	}
	return ret;
}

/* A spec a write failed on: nothing is submitted, and the entry's error says why. */
static int record_lost(struct fs *fs, struct staging *st, const char *ns, bool check,
                       const struct staging_submission *sub, int ret)
{
	char why[256], where[320];

	if (ret == -EFBIG)
		snprintf(why, sizeof(why),
		         "the spec is too large: submit/ takes files of at most %d bytes (1 MiB); "
		         "a write past that failed with EFBIG and nothing was submitted",
		         STAGING_FILE_MAX);
	else if (ret == -ENOSPC)
		snprintf(why, sizeof(why),
		         "submit/ is full (%d MiB of files together): a write failed with ENOSPC "
		         "and nothing was submitted; remove what is no longer needed",
		         STAGING_BYTES_MAX >> 20);
	else
		snprintf(why, sizeof(why), "a write failed (%s): nothing was submitted",
		         strerror(-ret));
	staging_set_outcome(st, sub->entry, STAGING_FAILED, why);
	submit_area_path(fs, ns, check, where, sizeof(where));
	say(LOG_INFO, "%s%s refused: %s", where, sub->entry, why);
	return ret;
}

/*
 * A spec not submitted at its close or rename (sub->unfinished, staging.h): staged
 * (status `staged`) or refused, with the reason in its entry's `error`; the errno
 * for the reply (0 for staged: appending is no error). writer: who abandoned it.
 */
static int record_unfinished(struct fs *fs, struct staging *st, const char *ns, bool check,
                             const struct staging_submission *sub, const char *writer)
{
	enum staging_outcome outcome = STAGING_FAILED;
	char why[4096], where[320];
	const char *p = sub->path;
	int ret = -EBUSY;

	submit_area_path(fs, ns, check, where, sizeof(where));
	if (sub->unfinished == STAGING_REPLACED) {
		/* the one that rewrote it submits it at its close, and records that */
		say(LOG_INFO, "%s%s refused: another writer emptied and rewrote %s before this "
		    "one closed it", where, sub->entry, p);
		return ret;
	}
	if (sub->unfinished == STAGING_NOT_WHOLE) {
		outcome = STAGING_STAGED;
		ret = 0;
		snprintf(why, sizeof(why),
		         "not submitted: %s%s was appended to (>>) or changed in place, so it may "
		         "be incomplete; a spec is submitted when one writer writes it whole (cp, >, "
		         "an editor's save) or when it is renamed to its name: to submit it as it is "
		         "now, mv %s%s %s%s.part && mv %s%s.part %s%s",
		         where, p, where, p, where, p, where, p, where, p);
	} else if (sub->unfinished == STAGING_CLASHED) {
		snprintf(why, sizeof(why),
		         "not submitted: two processes wrote %s%s at once (two cp to one name?), so "
		         "it may mix both; write it again, once", where, p);
	} else if (sub->unfinished == STAGING_ABANDONED) {
		ret = -ECANCELED;
		snprintf(why, sizeof(why),
		         "not submitted: %s before it closed %s%s, which may hold only part of the "
		         "spec; write it again whole (cp, or > with the whole spec)",
		         writer, where, p);
	} else {
		snprintf(why, sizeof(why),
		         "not submitted: %s%s is still open for writing, so it may be incomplete; "
		         "rename it once its writer has closed it", where, p);
	}
	staging_set_outcome(st, sub->entry, outcome, why);
	if (ret)
		say(LOG_INFO, "%s%s refused: %s", where, sub->entry, why);
	return ret;
}

void submit_flush(struct fs *fs, fuse_req_t req, struct fs_inode *in,
                         struct fuse_file_info *fi)
{
	struct staging *st = area(fs, in, false);
	pid_t pid = fuse_req_ctx(req)->pid;
	struct staging_submission sub;
	struct writer_end end;
	char writer[160];
	int ret;

	if (!st) {
		fuse_reply_err(req, 0);
		return;
	}
	/* the kernel closing the files of a process killed, or failing, as it ends: a
	 * spec it wrote is not submitted, a folder it copied into makes no job */
	writer_end(pid, &end);
	writer_end_describe(&end, pid, writer, sizeof(writer));
	if (writer_end_abandons(&end)) {
		char what[256];

		snprintf(what, sizeof(what), "may be cut short: %s while writing it", writer);
		staging_copy_cut(st, staging_id(in), staging_handle(fi), what);
	}
	ret = staging_take_flushed(st, staging_id(in), staging_handle(fi),
	                           writer_end_abandons(&end), &sub);
	if (ret > 0)
		ret = submit_and_record(fs, st, area_ns(fs, in), is_check(in), &sub);
	else if (ret < 0 && sub.entry)
		ret = record_lost(fs, st, area_ns(fs, in), is_check(in), &sub, ret);
	else if (ret == 0 && sub.entry && sub.unfinished)
		ret = record_unfinished(fs, st, area_ns(fs, in), is_check(in), &sub, writer);
	staging_submission_clear(&sub);
	fuse_reply_err(req, -ret);
}

void submit_release(struct fs *fs, fuse_req_t req, struct fs_inode *in,
                           struct fuse_file_info *fi)
{
	(void)in;
	close_handle(fs, (struct fs_handle *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* The kernel dropped parent/name: so does the inode table. */
static void forget_name(struct fs *fs, struct fs_inode *parent, const char *name)
{
	struct fs_inode *in = inode_table_find(fs->inodes, parent, name);

	if (in) {
		inode_table_unmap(fs->inodes, in);
		inode_table_put(fs->inodes, in);
	}
}

void submit_unlink(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name)
{
	struct staging *st = area(fs, parent, false);
	int ret = st ? staging_unlink(st, staging_id(parent), name) : -ENOENT;

	if (!ret)
		forget_name(fs, parent, name);
	fuse_reply_err(req, -ret);
}

void submit_rmdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name)
{
	struct staging *st = area(fs, parent, false);
	int ret = st ? staging_rmdir(st, staging_id(parent), name) : -ENOENT;

	if (!ret)
		forget_name(fs, parent, name);
	fuse_reply_err(req, -ret);
}

void submit_rename(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
                          struct fs_inode *newparent, const char *newname, unsigned int flags)
{
	uint64_t from = staging_id(parent), to = staging_id(newparent);
	struct staging_submission sub = {0};
	struct staging *st = area(fs, parent, false);
	struct fs_inode *in;
	int ret = 0;

	if (strlen(newname) > SUBMIT_NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	/* Two namespaces' submit/ are two trees, as are submit/ and check/: mv copies,
	 * and the copy submits (or checks) there. */
	if (strcmp(area_ns(fs, parent), area_ns(fs, newparent)) != 0 ||
	    is_check(parent) != is_check(newparent)) {
		fuse_reply_err(req, EXDEV);
		return;
	}
	if (!st)
		ret = -ENOENT;
	else if (checked_root(fs, newparent))
		ret = may_create(fs, newparent, &st);
	/* A file renamed to a spec's name is a submission, made before the rename so that
	 * a bad spec leaves the old name in place (as an editor's failed save should). */
	if (!ret) {
		follow_entry(fs, st, to, newname);
		ret = staging_take_renamed(st, from, name, to, newname, &sub);
	}
	if (ret > 0)
		ret = submit_and_record(fs, st, area_ns(fs, parent), is_check(parent), &sub);
	else if (ret < 0 && sub.entry)
		ret = record_lost(fs, st, area_ns(fs, parent), is_check(parent), &sub, ret);
	else if (ret == 0 && sub.entry && sub.unfinished)
		ret = record_unfinished(fs, st, area_ns(fs, parent), is_check(parent), &sub, "");
	staging_submission_clear(&sub);
	if (!ret)
		ret = staging_rename(st, from, name, to, newname, flags);
	if (!ret && (in = inode_table_find(fs->inodes, parent, name))) {
		if (inode_table_rename(fs->inodes, in, newparent, newname) < 0)
			inode_table_unmap(fs->inodes, in); /* the next lookup makes a new one */
		inode_table_put(fs->inodes, in);
	}
	fuse_reply_err(req, -ret);
}

/* ---- rmdir jobs/NAME: arena delete ---- */

int submit_delete_job(struct fs *fs, const struct fs_node *n)
{
	/* The kernel holds jobs/ for the whole rmdir (ls and new lookups wait): one
	 * deadline for the DELETE's answer and the watch (deletes.h). */
	int64_t deadline = time_monotonic_ms() + DELETES_HOLD_MS, left;
	struct k8s_error err;
	int ret;

	if (n->type != FS_JOB_DIR)
		return -ENOTDIR;
	k8s_error_clear(&err);
	ret = deletes_run(fs->deletes, n, deadline, &err);
	if (ret == -EINPROGRESS)
		say(LOG_INFO, "rmdir %s/%s: no answer within %d ms; the delete goes on, and "
		    "the job's info says how it ends", n->ns, n->job, DELETES_HOLD_MS);
	if (ret && ret != -ENOENT)
		return ret;
	/* Gone from the cache (this uid), so that ls after rmdir no longer shows it. */
	left = deadline - time_monotonic_ms();
	if (left > 0)
		submit_wait_job(fs, n->ns, n->kind, n->job, n->uid, false, (int)left);
	return ret;
}

void submit_rmdir_job(struct fs *fs, fuse_req_t req, struct fs_inode *jobs_dir,
                             struct fs_inode *job)
{
	(void)jobs_dir;
	fuse_reply_err(req, -submit_delete_job(fs, &job->node));
}
