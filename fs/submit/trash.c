/*
 * The operations of the trash, `.Trash-UID/` (trash.h): its places shown to the
 * kernel from the store (trashstore.h), a job's folder deleted by a rename into
 * files/ and brought back by a rename out of it.
 *
 * What the trashers do, which this file answers (docs/tree.md, "The trash"):
 * - send2trash (JupyterLab's Delete; its Linux code, plat_other.py): stat of the
 *   folder, access(W_OK), lstat up to the mount's top (st_dev), stat of
 *   `.Trash` (ENOENT: no shared trash), stat of `.Trash-UID` then mkdir of it,
 *   of `files` and `info`, when missing; open(info/X.trashinfo, O_CREAT|O_TRUNC),
 *   write, close; rename(jobs/NAME, .Trash-UID/files/X). An EXDEV would make it
 *   copy the folder into the home trash and remove it file by file: never here.
 * - GIO (`gio trash`, file managers): lstat of `.Trash` (a sticky directory would
 *   be the shared trash), lstat of `.Trash-UID` (a directory owned by the caller),
 *   or mkdir then lstat; mkdir of info/ and files/ (EEXIST is fine);
 *   open(info/X.trashinfo, O_CREAT|O_EXCL), the text written into a new
 *   info/X.trashinfo.XXXXXX renamed over it; rename of the folder into files/X,
 *   and unlink of the info file when that fails.
 * - gvfs (the trash:/// of Files): Restore renames files/X back to the info's
 *   Path; deleting an entry from the trash (Empty Trash) makes expunged/, renames
 *   files/X to expunged/N, removes info/X.trashinfo (ENOENT is fine) and then
 *   what is in expunged/. Here the rename forgets the entry, and expunged/ stays
 *   empty.
 * Either writes the info file before the rename, as the specification asks; a
 * rename that fails here drops it (nothing half-made), and a plain
 * `mv jobs/NAME .Trash-UID/files/` gets one made here.
 *
 * Called by ops.c and dirs.c (model.c and content.c: trash_made). Takes no lock of
 * its own: the store's (a leaf) and the cache's read lock, neither across a
 * request.
 */
#include "fs/submit/trash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "fs/base/handles.h"
#include "fs/base/places.h"
#include "fs/submit/submit.h"
#include "fs/submit/submit_run.h"
#include "fs/submit/trashstore.h"
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"
#include "k8s/cache/cache.h"
#include "k8s/objects/kinds.h"
#include "render/job_files.h"

#define TRASH_IDENTITY "trash:"
#define TRASH_NAME_MAX 255
/* renameat2(2)'s flags, without <linux/fs.h> */
#define TRASH_RENAME_NOREPLACE (1 << 0)
#define TRASH_RENAME_EXCHANGE  (1 << 1)

bool trash_is_name(struct fs *fs, const char *name)
{
	return strcmp(name, fs->trash_name) == 0;
}

bool trash_made(struct fs *fs)
{
	return trashstore_made(fs->trash, NULL);
}

/* The store's id an inode of an entry, its files or an info file stands for. */
static uint64_t item_id(const struct fs_inode *in)
{
	const char *id = in->node.identity;

	if (!id || strncmp(id, TRASH_IDENTITY, strlen(TRASH_IDENTITY)) != 0)
		return 0;
	return strtoull(id + strlen(TRASH_IDENTITY), NULL, 10);
}

/* The node of a trash place: its type, and the store's id (0: a fixed directory). */
static int trash_node(enum fs_type type, uint64_t id, struct fs_node *out)
{
	char identity[48];

	*out = (struct fs_node)FS_NODE_INIT;
	out->type = type;
	snprintf(identity, sizeof(identity), "%s%" PRIu64, TRASH_IDENTITY, id);
	out->identity = strdup(id ? identity : "trash");
	return out->identity ? 0 : -ENOMEM;
}

/* The attributes of a trash place of type and id: 0, or -ENOENT when it is gone. */
static int trash_stat_of(struct fs *fs, enum fs_type type, uint64_t id, struct stat *st)
{
	struct trash_stat ts = {0};
	int64_t since;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (!trashstore_made(fs->trash, &since))
		return -ENOENT;
	ts.mtime = since;
	switch (type) {
	case FS_TRASH_DIR:
	case FS_TRASH_FILES_DIR:
	case FS_TRASH_INFO_DIR:
	case FS_TRASH_EXPUNGED_DIR:
		break;
	case FS_TRASH_ENTRY:
	case FS_TRASH_SPEC:
		ret = trashstore_stat(fs->trash, TRASH_FILES, id, &ts);
		break;
	case FS_TRASH_ERROR:
		ret = trashstore_stat(fs->trash, TRASH_FILES, id, &ts);
		if (!ret && !ts.error_len)
			ret = -ENOENT;
		ts.size = ts.error_len;
		break;
	case FS_TRASH_INFO_FILE:
		ret = trashstore_stat(fs->trash, TRASH_INFO, id, &ts);
		break;
	default:
		return -ENOENT;
	}
	if (ret)
		return ret;
	/* GIO takes a `.Trash-UID` only when it is a directory the caller owns: the
	 * mounting user is the one who may write (ops.c's may_write) */
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_blksize = 4096;
	st->st_mtim.tv_sec = ts.mtime;
	/* a listing the kernel keeps is served again while its folder's mtime is the same */
	if (type == FS_TRASH_FILES_DIR || type == FS_TRASH_INFO_DIR)
		trashstore_listed(fs->trash, type == FS_TRASH_FILES_DIR ? TRASH_FILES : TRASH_INFO,
				  &st->st_mtim);
	else if (type == FS_TRASH_ENTRY)
		st->st_mtim = ts.listed;
	st->st_ctim = st->st_atim = st->st_mtim;
	if (fs_type_is_dir(type)) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = type == FS_TRASH_DIR ? 5 : 2;
		st->st_size = 4096;
	} else {
		/* the kept spec and the restore's words are the daemon's, info/'s the trasher's */
		st->st_mode = S_IFREG | (type == FS_TRASH_INFO_FILE ? 0600 : 0444);
		st->st_nlink = 1;
		st->st_size = (off_t)ts.size;
		st->st_blocks = (blkcnt_t)((ts.size + 511) / 512);
	}
	return 0;
}

/* The child name of parent: its type and id, or -ENOENT. */
static int trash_child(struct fs *fs, const struct fs_inode *parent, const char *name,
		       enum fs_type *type, uint64_t *id)
{
	const struct place *p = place_child(parent->node.type, name);
	struct trash_stat ts;

	*id = 0;
	if (!trash_made(fs))
		return -ENOENT;
	switch (parent->node.type) {
	case FS_ROOT:
		*type = FS_TRASH_DIR;
		return trash_is_name(fs, name) ? 0 : -ENOENT;
	case FS_TRASH_DIR:
		if (!p)
			return -ENOENT;
		*type = p->type;
		return 0;
	case FS_TRASH_FILES_DIR:
	case FS_TRASH_INFO_DIR:
		*type = parent->node.type == FS_TRASH_FILES_DIR ? FS_TRASH_ENTRY : FS_TRASH_INFO_FILE;
		if (trashstore_lookup(fs->trash, *type == FS_TRASH_ENTRY ? TRASH_FILES : TRASH_INFO,
				      name, &ts) < 0)
			return -ENOENT;
		*id = ts.id;
		return 0;
	case FS_TRASH_ENTRY:
		if (!p || trashstore_stat(fs->trash, TRASH_FILES, item_id(parent), &ts) < 0 ||
		    (p->type == FS_TRASH_ERROR && !ts.error_len))
			return -ENOENT;
		*type = p->type;
		*id = ts.id;
		return 0;
	default:
		return -ENOENT;
	}
}

/* The inode of parent/name for type and id, pinned; NULL on ENOMEM. */
static struct fs_inode *trash_inode(struct fs *fs, struct fs_inode *parent, const char *name,
				    enum fs_type type, uint64_t id)
{
	struct fs_node node;
	struct fs_inode *in;

	if (trash_node(type, id, &node) < 0)
		return NULL;
	in = inode_table_child(fs->inodes, parent, name, &node, NULL);
	fs_node_clear(&node);
	return in;
}

/* Answers the entry parent/name of type and id (with a handle: create). */
static void reply_entry(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
			enum fs_type type, uint64_t id, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	struct fs_inode *in;
	struct fs_handle *h = NULL;
	int ret;

	memset(&e, 0, sizeof(e));
	in = trash_inode(fs, parent, name, type, id);
	if (!in) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ret = trash_stat_of(fs, type, id, &e.attr);
	if (!ret && fi && !(h = fs_handle_new(fs, in)))
		ret = -ENOMEM;
	if (ret) {
		fuse_reply_err(req, -ret);
		inode_table_put(fs->inodes, in);
		return;
	}
	e.ino = in->ino;
	e.generation = 1;
	e.attr.st_ino = in->ino;
	inode_table_ref(fs->inodes, in, 1);
	if (fi) {
		fi->direct_io = 1;
		fi->fh = (uintptr_t)h;
		if (fuse_reply_create(req, &e, fi) < 0) {
			inode_table_forget(fs->inodes, in->ino, 1);
			fs_handle_free(fs, h);
			inode_table_put(fs->inodes, in);
		}
		return; /* the handle keeps the pin until release */
	}
	if (fuse_reply_entry(req, &e) < 0)
		inode_table_forget(fs->inodes, in->ino, 1);
	inode_table_put(fs->inodes, in);
}

void trash_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name)
{
	enum fs_type type;
	uint64_t id;
	int ret = trash_child(fs, parent, name, &type, &id);

	if (ret)
		fuse_reply_err(req, -ret); /* no negative entry: names come and go */
	else
		reply_entry(fs, req, parent, name, type, id, NULL);
}

void trash_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in)
{
	struct stat st;
	int ret = trash_stat_of(fs, in->node.type, item_id(in), &st);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	st.st_ino = in->ino;
	fuse_reply_attr(req, &st, 0);
}

void trash_setattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *attr,
		   int to_set)
{
	int ret = 0;

	/* A size is an info file's to change (O_TRUNC); times, mode and owner are
	 * accepted and kept as they are, as submit/ does for `cp -a`. */
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (in->node.type != FS_TRASH_INFO_FILE)
			ret = fs_type_is_dir(in->node.type) ? -EISDIR : -EACCES;
		else if (attr->st_size < 0)
			ret = -EINVAL;
		else
			ret = trashstore_info_truncate(fs->trash, item_id(in),
						       (uint64_t)attr->st_size, time_now());
	}
	if (ret)
		fuse_reply_err(req, -ret);
	else
		trash_getattr(fs, req, in);
}

int trash_list(struct fs *fs, struct fs_inode *dir, struct fs_entry **out, size_t *n)
{
	enum fs_type t = dir->node.type;
	char **names = NULL;
	uint64_t *ids = NULL;
	size_t count = 0, k = 0;
	struct fs_entry *e;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!trash_made(fs))
		return -ENOENT;
	if (t == FS_TRASH_FILES_DIR || t == FS_TRASH_INFO_DIR) {
		ret = trashstore_list(fs->trash, t == FS_TRASH_FILES_DIR ? TRASH_FILES : TRASH_INFO,
				      &names, &ids, &count);
	} else {
		const struct place *const *c;
		size_t nc = place_children(t, &c);

		names = calloc(nc ? nc : 1, sizeof(*names));
		ids = calloc(nc ? nc : 1, sizeof(*ids));
		if (!names || !ids)
			ret = -ENOMEM;
		for (size_t i = 0; i < nc && !ret; i++) {
			enum fs_type ct;
			uint64_t id;

			if (trash_child(fs, dir, c[i]->name, &ct, &id) < 0)
				continue;
			ids[count] = id;
			if (!(names[count++] = strdup(c[i]->name)))
				ret = -ENOMEM;
		}
	}
	e = ret ? NULL : calloc(count ? count : 1, sizeof(*e));
	if (!ret && !e)
		ret = -ENOMEM;
	for (k = 0; k < count && !ret; k++) {
		enum fs_type ct = t == FS_TRASH_FILES_DIR ? FS_TRASH_ENTRY :
				  t == FS_TRASH_INFO_DIR ? FS_TRASH_INFO_FILE :
				  place_child(t, names[k])->type;

		ret = trash_node(ct, ids[k], &e[k].node);
		e[k].name = names[k]; /* taken over */
		names[k] = NULL;
	}
	if (ret) {
		fs_entries_free(e, k);
		trashstore_list_free(names, ids, count);
		return ret;
	}
	trashstore_list_free(names, ids, count);
	*out = e;
	*n = count;
	return 0;
}

void trash_mkdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name)
{
	int ret;

	if (parent->node.type == FS_ROOT) {
		/* what send2trash and GIO do on a mount without a trash: make it */
		ret = trashstore_make(fs->trash, time_now());
		if (ret == 0) {
			say(LOG_INFO, "trash: %s made; a job's folder moved into its files/ is "
			    "deleted and kept there", fs->trash_name);
			reply_entry(fs, req, parent, name, FS_TRASH_DIR, 0, NULL);
		} else {
			fuse_reply_err(req, -ret);
		}
		return;
	}
	/* files/ and info/ are there with the trash; nothing else is made in it: a deleted
	 * job comes into files/ by a rename of its folder, info/ holds files only */
	if (parent->node.type == FS_TRASH_DIR && place_child(FS_TRASH_DIR, name))
		fuse_reply_err(req, trash_made(fs) ? EEXIST : ENOENT);
	else
		fuse_reply_err(req, EPERM);
}

void trash_create(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  struct fuse_file_info *fi)
{
	uint64_t id;
	int ret;

	if (parent->node.type != FS_TRASH_INFO_DIR) {
		fuse_reply_err(req, EPERM); /* files/ holds deleted jobs, made by a rename */
		return;
	}
	if (strlen(name) > TRASH_NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	ret = trash_made(fs) ? trashstore_info_create(fs->trash, name, time_now(), &id) : -ENOENT;
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(fs, req, parent, name, FS_TRASH_INFO_FILE, id, fi);
}

void trash_open(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi)
{
	struct fs_handle *h;
	struct stat st;
	int ret = trash_stat_of(fs, in->node.type, item_id(in), &st);

	if (!ret && fs_type_is_dir(in->node.type))
		ret = -EISDIR;
	else if (!ret && (fi->flags & O_ACCMODE) != O_RDONLY && in->node.type != FS_TRASH_INFO_FILE)
		ret = -EACCES; /* the kept spec is the daemon's: 0444 */
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	h = fs_handle_new(fs, in);
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fi->direct_io = 1; /* every read and write reaches the store */
	fi->fh = (uintptr_t)h;
	inode_table_pin(fs->inodes, in);
	if (fuse_reply_open(req, fi) < 0) {
		inode_table_put(fs->inodes, in);
		fs_handle_free(fs, h);
	}
}

void trash_read(struct fs *fs, fuse_req_t req, struct fs_inode *in, size_t size, off_t off)
{
	enum fs_type t = in->node.type;
	char *buf = malloc(size ? size : 1);
	long n;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = off < 0 ? -EINVAL :
	    trashstore_read(fs->trash, t == FS_TRASH_INFO_FILE ? TRASH_INFO : TRASH_FILES,
			    item_id(in), t == FS_TRASH_ERROR, buf, size, (uint64_t)off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

void trash_write(struct fs *fs, fuse_req_t req, struct fs_inode *in, const char *buf,
		 size_t size, off_t off)
{
	long n = in->node.type != FS_TRASH_INFO_FILE ? -EBADF :
		 off < 0 ? -EINVAL :
		 trashstore_info_write(fs->trash, item_id(in), buf, size, (uint64_t)off, time_now());

	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

void trash_release(struct fs *fs, fuse_req_t req, struct fuse_file_info *fi)
{
	struct fs_handle *h = (struct fs_handle *)(uintptr_t)fi->fh;

	inode_table_put(fs->inodes, h->in);
	fs_handle_free(fs, h);
	fuse_reply_err(req, 0);
}

/* rmdir of files/ or info/ (or expunged/, always empty): they stand while the trash
 * does, so an empty one is "removed" with nothing changed (rm -rf .Trash-UID then
 * removes the trash itself). */
static int remove_folder(struct fs *fs, const char *name)
{
	char **names;
	uint64_t *ids;
	size_t n;
	int ret;

	ret = trashstore_list(fs->trash, strcmp(name, "files") == 0 ? TRASH_FILES : TRASH_INFO,
			      &names, &ids, &n);
	if (ret)
		return ret;
	trashstore_list_free(names, ids, n);
	return n ? -ENOTEMPTY : 0;
}

void trash_remove(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  bool dir)
{
	enum fs_type type;
	uint64_t id;
	int ret = trash_child(fs, parent, name, &type, &id);

	if (!ret && dir != fs_type_is_dir(type))
		ret = dir ? -ENOTDIR : -EISDIR;
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	switch (type) {
	case FS_TRASH_DIR:
		ret = trashstore_unmake(fs->trash);
		break;
	case FS_TRASH_FILES_DIR:
	case FS_TRASH_INFO_DIR:
		ret = remove_folder(fs, name);
		break;
	case FS_TRASH_EXPUNGED_DIR:
		ret = 0; /* empty, and there while the trash is */
		break;
	case FS_TRASH_ENTRY:
		/* emptying the trash: the deleted job is forgotten, with its info */
		ret = trashstore_entry_forget(fs->trash, name);
		break;
	case FS_TRASH_INFO_FILE:
		ret = trashstore_info_unlink(fs->trash, name);
		break;
	default:
		/* spec.yaml and error, as `rm -r files/X` removes them first: they go with X */
		ret = 0;
	}
	fuse_reply_err(req, -ret);
}

/* ---- renames ---- */

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
