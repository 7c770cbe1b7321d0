/*
 * The renames from and into the trash (trash_moves.h): a job's folder moved into
 * `.Trash-UID/files/` is deleted as rmdir deletes it and kept; moved back into
 * `jobs/` its spec is submitted again; moved into `expunged/` (gvfs) it is
 * forgotten; the info files renamed within `info/`; everything else refused with
 * the errno docs/tree.md's "The trash" gives. A rename that fails leaves no
 * `info/X.trashinfo` of its trasher behind.
 *
 * Called by ops.c, on a network thread for the two that talk to the cluster. Takes
 * no lock of its own: the store's (a leaf) and the cache's read lock, neither
 * across a request. Tested by tests/integration/test_tree_trash.py.
 */
#include "fs/submit/trash_moves.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "fs/base/places.h"
#include "fs/submit/submit.h"
#include "fs/submit/submit_run.h"
#include "fs/submit/trash.h"
#include "fs/submit/trashstore.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"
#include "k8s/cache/cache.h"
#include "k8s/objects/kinds.h"
#include "render/job_files.h"

/* renameat2(2)'s flags, without <linux/fs.h> */
#define TRASH_RENAME_NOREPLACE (1 << 0)
#define TRASH_RENAME_EXCHANGE  (1 << 1)

/* What the trash says of a job it was not given: the words in the log and, when
 * it has an entry, in files/X/error. */
static int refuse_restore(struct fs *fs, const char *entry, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse_restore(struct fs *fs, const char *entry, int err, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	say(LOG_WARNING, "trash: %s not brought back: %s", entry, why);
	trashstore_entry_failed(fs->trash, entry, why);
	return -err;
}

/* files/name renamed to jobs/newname (jobs: the FS_JOBS_DIR inode): resubmits its
 * kept spec in its namespace, under its own name. */
static int restore(struct fs *fs, const char *name, struct fs_inode *jobs, const char *newname)
{
	struct submit_made made;
	struct submit_request rq;
	struct trash_job job;
	struct k8s_error err;
	char shown[300];
	size_t len;
	char *spec;
	int ret = trashstore_entry_get(fs->trash, name, &job, &spec, &len);

	if (ret)
		return ret;
	snprintf(shown, sizeof(shown), "%s.%s", job.name, kinds_info(job.kind)->type);
	if (strcmp(jobs->node.ns, job.ns) != 0 ||
	    (strcmp(newname, job.name) != 0 && strcmp(newname, shown) != 0)) {
		ret = refuse_restore(fs, name, EPERM, "a deleted job comes back only as itself: "
				     "jobs/%s of namespace %s", job.name, job.ns);
	} else if (job.code) {
		ret = refuse_restore(fs, name, EOPNOTSUPP,
				     "it shipped code (jobs/%s/code/), deleted with it: copy its "
				     "folder into submit/ again", job.name);
	} else {
		memset(&rq, 0, sizeof(rq));
		memset(&made, 0, sizeof(made));
		rq.ns = job.ns;
		rq.text = spec;
		rq.len = len;
		rq.default_name = job.name;
		rq.made = &made;
		k8s_error_clear(&err);
		ret = submit_run(fs, &rq, &err);
		if (ret)
			ret = refuse_restore(fs, name, -ret, "%s", err.message);
	}
	free(spec);
	if (ret)
		return ret;
	say(LOG_INFO, "trash: %s brought back: %s %s submitted again in namespace %s", name,
	    kinds_info(made.kind)->kind_name, made.name, made.ns);
	/* as after cp into submit/: ls jobs/ shows it once rename returns */
	submit_wait_job(fs, made.ns, made.kind, made.name, made.uid, true, SUBMIT_CACHE_WAIT_MS);
	trashstore_entry_forget(fs->trash, name);
	return 0;
}

/* A failed trashing leaves no info/X.trashinfo without its files/X: GIO unlinks its
 * own, send2trash does not (and, on EXDEV, goes on to the home trash). */
static void drop_orphan_info(struct fs *fs, const char *name)
{
	struct trash_stat ts;
	char info[TRASH_NAME_MAX + 1];

	if (trashstore_lookup(fs->trash, TRASH_FILES, name, &ts) == 0 ||
	    (size_t)snprintf(info, sizeof(info), "%s%s", name, TRASH_INFO_SUFFIX) >= sizeof(info))
		return;
	(void)trashstore_info_unlink(fs->trash, info);
}

void trash_rename(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  struct fs_inode *newparent, const char *newname, unsigned int flags)
{
	enum fs_type from = parent->node.type, to = newparent->node.type;
	struct fs_inode *in;
	int ret;

	if (flags & TRASH_RENAME_EXCHANGE)
		ret = -EINVAL;
	else if (from == FS_TRASH_INFO_DIR && to == FS_TRASH_INFO_DIR)
		ret = strlen(newname) > TRASH_NAME_MAX ? -ENAMETOOLONG :
		      trashstore_info_rename(fs->trash, name, newname,
					     flags & TRASH_RENAME_NOREPLACE);
	else if (from == FS_TRASH_FILES_DIR && to == FS_JOBS_DIR)
		ret = restore(fs, name, newparent, newname);
	else if (from == FS_TRASH_FILES_DIR && to == FS_TRASH_EXPUNGED_DIR)
		ret = trashstore_entry_forget(fs->trash, name); /* gvfs emptying it */
	else if (fs_type_is_submit(from) || fs_type_is_submit(to))
		ret = -EXDEV;   /* another tree: mv copies (a trash entry's spec into submit/ runs) */
	else if (fs_type_is_trash(from) && fs_type_is_trash(to))
		ret = -EPERM;   /* files/ holds jobs deleted into it, info/ files: nothing moves */
	else
		ret = -EROFS;   /* the rest of the tree: only a job's whole folder goes to the trash */
	if (ret && to == FS_TRASH_FILES_DIR)
		drop_orphan_info(fs, newname);
	if (!ret && (in = inode_table_find(fs->inodes, parent, name))) {
		/* info/: the same file under its new name; files/X brought back: gone */
		if (from != FS_TRASH_INFO_DIR ||
		    inode_table_rename(fs->inodes, in, newparent, newname) < 0)
			inode_table_unmap(fs->inodes, in);
		inode_table_put(fs->inodes, in);
	}
	fuse_reply_err(req, -ret);
}

/* The info a plain mv gets: the job's path from the mount's top, the time now (local,
 * as the specification asks). */
static void info_text(struct fs *fs, const struct fs_inode *job, char *buf, size_t size)
{
	time_t now = (time_t)time_now();
	char when[32] = "";
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	/* Kubernetes names need no %-escape: [a-z0-9.-] */
	if (strcmp(job->node.ns, fs->namespace) == 0)
		snprintf(buf, size, "[Trash Info]\nPath=jobs/%s\nDeletionDate=%s\n", job->name,
			 when);
	else
		snprintf(buf, size, "[Trash Info]\nPath=namespaces/%s/jobs/%s\nDeletionDate=%s\n",
			 job->node.ns, job->name, when);
}

/* What of the job of node is kept: its spec as jobs/NAME/spec.yaml shows it. 0, or
 * -ENOENT when the cache no longer has it (this uid). */
static int keep_job(struct fs *fs, const struct fs_node *node, struct trash_job *tj,
		    struct strbuf *spec)
{
	const struct job *j;
	int ret = -ENOENT;

	memset(tj, 0, sizeof(*tj));
	cache_read_lock(fs->cache);
	j = cache_find_job(fs->cache, node->ns, node->kind, node->job);
	if (j && node->uid && j->meta.uid && strcmp(j->meta.uid, node->uid) == 0) {
		render_job_spec_yaml(spec, j);
		tj->code = j->code_annotation != NULL;
		ret = 0;
	}
	cache_read_unlock(fs->cache);
	snprintf(tj->ns, sizeof(tj->ns), "%s", node->ns);
	snprintf(tj->name, sizeof(tj->name), "%s", node->job);
	snprintf(tj->uid, sizeof(tj->uid), "%s", node->uid ? node->uid : "");
	tj->kind = node->kind;
	return ret;
}

void trash_put_job(struct fs *fs, fuse_req_t req, struct fs_inode *job,
		   struct fs_inode *newparent, const char *newname, unsigned int flags)
{
	struct strbuf spec = STRBUF_INIT;
	struct trash_job tj;
	char info[512];
	int ret = 0;

	if (flags & TRASH_RENAME_EXCHANGE)
		ret = -EINVAL;
	else if (newparent->node.type != FS_TRASH_FILES_DIR)
		ret = -EPERM;  /* a job goes into files/, nowhere else */
	else if (!trash_made(fs))
		ret = -ENOENT;
	else if (strlen(newname) + strlen(TRASH_INFO_SUFFIX) > TRASH_NAME_MAX)
		ret = -ENAMETOOLONG;
	else if (job->node.type != FS_JOB_DIR)
		ret = -ENOTDIR;
	if (!ret)
		ret = keep_job(fs, &job->node, &tj, &spec);
	if (!ret && spec.oom)
		ret = -ENOMEM;
	/* kept first (an entry that cannot be kept deletes nothing), then deleted as rmdir
	 * deletes; a delete that fails forgets it, and the trasher's info with it */
	if (!ret) {
		info_text(fs, job, info, sizeof(info));
		ret = trashstore_entry_add(fs->trash, newname, &tj, spec.buf ? spec.buf : "",
					   spec.len, info, time_now());
	}
	if (!ret) {
		ret = submit_delete_job(fs, &job->node);
		if (ret)
			trashstore_entry_forget(fs->trash, newname);
	}
	strbuf_free(&spec);
	if (ret && ret != -EEXIST)
		drop_orphan_info(fs, newname);
	if (!ret) {
		say(LOG_INFO, "trash: %s %s of namespace %s deleted, kept as %s/files/%s",
		    kinds_info(tj.kind)->kind_name, tj.name, tj.ns, fs->trash_name, newname);
		/* the kernel moves its entry of jobs/NAME, the job's inode, to files/X */
		fs->up.name_gone(fs, newparent->ino, newname);
	}
	fuse_reply_err(req, -ret);
}
