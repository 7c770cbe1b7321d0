/*
 * The operations of the trash, `.Trash-UID/` (trash.h): its places shown to the
 * kernel from the store (trashstore.h), what is made and removed in it; its
 * renames, which delete a job and bring it back, are trash_moves.c's.
 *
 * What the trashers do, which this file and trash_moves.c answer (docs/tree.md,
 * "The trash"; docs/fuse.md, as strace shows it):
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
 * rename that fails drops it (nothing half-made), and a plain
 * `mv jobs/NAME .Trash-UID/files/` gets one made (trash_moves.c).
 *
 * Called by ops.c and dirs.c (model.c and content.c: trash_made). Takes no lock of
 * its own: the store's, a leaf.
 */
#include "fs/submit/trash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fs/base/handles.h"
#include "fs/base/places.h"
#include "fs/submit/trashstore.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"

#define TRASH_IDENTITY "trash:"

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
