/*
 * Directory listings: a snapshot of the names (model.c's listing, or submit.c's)
 * that readdir and readdirplus page through, so offsets stay stable while jobs
 * come and go: a listing that shifts under `ls` or `find` skips or repeats
 * entries.
 *
 * The kernel keeps listings in its page cache. Where it can (kernel 5.1 and
 * later: FUSE_CAP_NO_OPENDIR_SUPPORT), opendir answers ENOSYS: the kernel then
 * sends no OPENDIR and no RELEASEDIR at all, and serves every listing from its
 * cache until told otherwise, so a walk of ten thousand job directories made
 * again costs no request (find took 3.5 times tmpfs' time with an OPENDIR and a
 * RELEASEDIR a directory, and the FUSE ceiling of docs/benchmarks.md 1.07 times
 * without). It is told otherwise by the notifier, which drops a directory's
 * pages whenever its object changes (notify.c), and for submit/ by the
 * directory's mtime, which moves with every name added or removed and is asked
 * again each time (zero timeouts). With no handle, the directory's inode keeps
 * the listing a reader started at offset 0 until that reader reaches its end.
 * Elsewhere opendir takes the snapshot into a handle and lets the kernel cache
 * it (cache_readdir) while its names, types and identities stay the same.
 *
 * readdirplus answers attributes with each directory's name, from the cache, so
 * `ls -l` of jobs/ costs no LOOKUP per job; files get their name and type only
 * (their size is a render away). d_type is always filled so `find` need not stat.
 */
#include "fs/dirs.h"
#include "fs/base/fs_struct.h"
#include "fs/base/places.h"
#include "fs/tree/content.h"
#include "fs/tree/model.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fs/submit/submit.h"
#include "fs/submit/trash.h"
#include "k8s/base/hash.h"

struct dir_listing {
	atomic_uint refs;
	struct fs_entry *e;
	size_t n;
};

struct dir_handle {
	struct fs_inode *dir;        /* pinned */
	struct dir_listing *l;
};

static struct fs *req_fs(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static struct dir_listing *listing_get(struct dir_listing *l)
{
	if (l)
		atomic_fetch_add(&l->refs, 1);
	return l;
}

static void listing_put(struct dir_listing *l)
{
	if (l && atomic_fetch_sub(&l->refs, 1) == 1) {
		fs_entries_free(l->e, l->n);
		free(l);
	}
}

void dirs_inode_free(struct fs_inode *in)
{
	listing_put(in->listing);
	in->listing = NULL;
}

/* The names of dir now, refs = 1. */
static int listing_make(struct fs *fs, struct fs_inode *dir, struct dir_listing **out)
{
	struct dir_listing *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	if (fs_type_is_submit(dir->node.type)) {
		ret = submit_list(fs, dir, &l->e, &l->n);
	} else if (fs_type_is_trash(dir->node.type)) {
		ret = trash_list(fs, dir, &l->e, &l->n);
	} else {
		cache_read_lock(fs->cache);
		ret = model_list(fs, &dir->node, &l->e, &l->n);
		cache_read_unlock(fs->cache);
	}
	if (ret) {
		free(l);
		return ret;
	}
	atomic_init(&l->refs, 1);
	*out = l;
	return 0;
}

/* What a listing shows: names, types and the identities inode numbers come from. */
static uint64_t listing_hash(const struct dir_listing *l)
{
	uint64_t h = HASH_FNV1A_INIT;

	for (size_t i = 0; i < l->n; i++) {
		h = hash_fnv1a(h, l->e[i].name, strlen(l->e[i].name) + 1);
		h = hash_fnv1a(h, &l->e[i].node.type, sizeof(l->e[i].node.type));
		if (l->e[i].node.identity)
			h = hash_fnv1a_str(h, l->e[i].node.identity);
	}
	return h;
}

/* With a handle: the kernel may keep the listing while it is the same as the one it
 * has (keep_cache), else it drops its copy and reads this one. submit/'s listings
 * change under the user's own hand and are not cached, nor are the trash's. */
static void cache_listing(struct fs_inode *dir, const struct dir_listing *l,
			  struct fuse_file_info *fi)
{
	uint64_t h;

	if (fs_type_is_submit(dir->node.type) || fs_type_is_trash(dir->node.type))
		return;
	h = listing_hash(l);
	fi->cache_readdir = 1;
	inode_lock(dir);
	if (dir->rendered && dir->listing_hash == h)
		fi->keep_cache = 1;
	dir->listing_hash = h;
	dir->rendered = true;
	inode_unlock(dir);
}

void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in;
	struct dir_handle *h;
	int ret;

	if (fs->no_opendir) {
		fuse_reply_err(req, ENOSYS);    /* from now on the kernel opens directories itself */
		return;
	}
	in = inode_table_get(fs->inodes, ino);
	if (!in) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!fs_type_is_dir(in->node.type)) {
		fuse_reply_err(req, ENOTDIR);
		inode_table_put(fs->inodes, in);
		return;
	}
	h = calloc(1, sizeof(*h));
	ret = h ? listing_make(fs, in, &h->l) : -ENOMEM;
	if (ret) {
		free(h);
		fuse_reply_err(req, -ret);
		inode_table_put(fs->inodes, in);
		return;
	}
	h->dir = in;
	fi->fh = (uintptr_t)h;
	cache_listing(in, h->l, fi);
	if (fuse_reply_open(req, fi) < 0) {
		listing_put(h->l);
		free(h);
		inode_table_put(fs->inodes, in);
	}
}

static struct dir_handle *dir_handle(struct fuse_file_info *fi)
{
	return (struct dir_handle *)(uintptr_t)fi->fh;
}

/*
 * The directory (pinned) and the listing (a reference) a readdir at off pages
 * through: its handle's, or with no opendir the one its inode keeps, made anew at
 * offset 0. 0 or -errno.
 */
static int listing_at(struct fs *fs, fuse_ino_t ino, struct fuse_file_info *fi, off_t off,
		      struct fs_inode **dirp, struct dir_listing **out)
{
	struct fs_inode *dir;
	struct dir_listing *l = NULL, *old;
	int ret;

	if (fi->fh) {
		struct dir_handle *h = dir_handle(fi);

		inode_table_pin(fs->inodes, h->dir);
		*dirp = h->dir;
		*out = listing_get(h->l);
		return 0;
	}
	dir = inode_table_get(fs->inodes, ino);
	if (!dir)
		return -ENOENT;
	if (!fs_type_is_dir(dir->node.type)) {
		inode_table_put(fs->inodes, dir);
		return -ENOTDIR;
	}
	if (off > 0) {
		inode_lock(dir);
		l = listing_get(dir->listing);
		inode_unlock(dir);
	}
	if (!l) {
		ret = listing_make(fs, dir, &l);
		if (ret) {
			inode_table_put(fs->inodes, dir);
			return ret;
		}
		inode_lock(dir);
		old = dir->listing;
		dir->listing = listing_get(l);
		inode_unlock(dir);
		listing_put(old);
	}
	*dirp = dir;
	*out = l;
	return 0;
}

/* Ends a readdir. A reader that reached the end of the listing its directory kept
 * is done with it: ten thousand job directories need not keep theirs. */
static void listing_end(struct fs *fs, struct fs_inode *dir, struct dir_listing *l,
			bool at_end)
{
	inode_lock(dir);
	if (at_end && dir->listing == l) {
		dir->listing = NULL;
		listing_put(l);
	}
	inode_unlock(dir);
	listing_put(l);
	inode_table_put(fs->inodes, dir);
}

static fuse_ino_t parent_ino(const struct fs_inode *dir)
{
	return dir->parent ? dir->parent->ino : dir->ino;
}

/* A d_ino for an entry: the number its inode has or will get at lookup. */
static fuse_ino_t entry_ino(struct fs *fs, struct fs_inode *dir, const struct fs_entry *e)
{
	return inode_table_number(fs->inodes, dir, e->name, &e->node);
}

void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *dir;
	struct dir_listing *l;
	char *buf;
	size_t pos = 0, i;
	int ret = listing_at(fs, ino, fi, off, &dir, &l);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	if (!(buf = malloc(size ? size : 1))) {
		listing_end(fs, dir, l, false);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (i = off < 0 ? 0 : (size_t)off; i < l->n + 2; i++) {
		struct stat st;
		const char *name;
		size_t len;

		memset(&st, 0, sizeof(st));
		if (i < 2) {
			name = i == 0 ? "." : "..";
			st.st_ino = i == 0 ? dir->ino : parent_ino(dir);
			st.st_mode = S_IFDIR;
		} else {
			const struct fs_entry *e = &l->e[i - 2];

			name = e->name;
			st.st_ino = entry_ino(fs, dir, e);
			st.st_mode = fs_type_is_dir(e->node.type) ? S_IFDIR : S_IFREG;
		}
		len = fuse_add_direntry(req, buf + pos, size - pos, name, &st, (off_t)(i + 1));
		if (len > size - pos)
			break;
		pos += len;
	}
	listing_end(fs, dir, l, i >= l->n + 2);
	fuse_reply_buf(req, buf, pos);
	free(buf);
}

/* The entry of one listed name with its attributes; pinned inode in *inp. -ENOENT when
 * the name went away since the listing was made. */
static int plus_entry(struct fs *fs, struct fs_inode *dir, const struct fs_entry *e,
		      struct fs_inode **inp, struct fuse_entry_param *ep)
{
	struct fs_inode *in;
	char objkey[600];
	int ret;

	*inp = NULL;
	place_node_key(&e->node, objkey, sizeof(objkey));
	in = inode_table_child(fs->inodes, dir, e->name, &e->node, objkey[0] ? objkey : NULL);
	if (!in)
		return -ENOMEM;
	ret = content_fill_entry(fs, in, ep);
	if (ret) {
		inode_table_put(fs->inodes, in);
		return ret;
	}
	*inp = in;
	return 0;
}

/* An entry of readdirplus without a reference (its name): . and .. (the kernel takes
 * none for them: ino 0 says "no entry"), and the entries given by name and type
 * only: submit/'s and the trash's entries and every file are looked up when stat'ed. A file's size
 * needs its text rendered, and `find` or a file browser's listing would render every
 * file of every job it walks, and leave an inode each behind. Directories are
 * answered whole (plus_entry): `ls -l jobs/` costs no lookup per job. */
static const char *plain_entry(struct fs *fs, struct fs_inode *dir, size_t i,
			       const struct fs_entry *le, struct fuse_entry_param *e)
{
	if (!le) {
		e->attr.st_ino = i == 0 ? dir->ino : parent_ino(dir);
		e->attr.st_mode = S_IFDIR;
		return i == 0 ? "." : "..";
	}
	e->attr.st_ino = entry_ino(fs, dir, le);
	e->attr.st_mode = fs_type_is_dir(le->node.type) ? S_IFDIR : S_IFREG;
	return le->name;
}

void dirs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *dir;
	struct dir_listing *l;
	char *buf;
	fuse_ino_t *refs;
	size_t pos = 0, nrefs = 0, i;
	int ret = listing_at(fs, ino, fi, off, &dir, &l);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	buf = malloc(size ? size : 1);
	/* an entry takes at least 88 bytes: at most this many references per reply */
	refs = malloc((size / 88 + 1) * sizeof(*refs));
	if (!buf || !refs) {
		free(buf);
		free(refs);
		listing_end(fs, dir, l, false);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (i = off < 0 ? 0 : (size_t)off; i < l->n + 2; i++) {
		const struct fs_entry *le = i >= 2 ? &l->e[i - 2] : NULL;
		struct fuse_entry_param e;
		struct fs_inode *in = NULL;
		const char *name;
		size_t len;

		memset(&e, 0, sizeof(e));
		if (!le || fs_type_is_submit(dir->node.type) || fs_type_is_trash(dir->node.type) ||
		    !fs_type_is_dir(le->node.type) || fs_type_is_trash(le->node.type)) {
			name = plain_entry(fs, dir, i, le, &e);
		} else {
			name = le->name;
			ret = plus_entry(fs, dir, le, &in, &e);
			if (ret == -ENOENT)
				continue;     /* gone since the listing was made */
			if (ret) {
				if (pos == 0) {
					free(buf);
					free(refs);
					listing_end(fs, dir, l, false);
					fuse_reply_err(req, -ret);
					return;
				}
				break;
			}
		}
		len = fuse_add_direntry_plus(req, buf + pos, size - pos, name, &e, (off_t)(i + 1));
		if (len > size - pos) {
			inode_table_put(fs->inodes, in);
			break;
		}
		pos += len;
		if (in) {
			/* each entry the kernel links counts as a lookup */
			inode_table_ref(fs->inodes, in, 1);
			refs[nrefs++] = in->ino;
			inode_table_put(fs->inodes, in);
		}
	}
	listing_end(fs, dir, l, i >= l->n + 2);
	if (fuse_reply_buf(req, buf, pos) < 0)
		for (size_t k = 0; k < nrefs; k++)   /* interrupted: the kernel linked none */
			inode_table_forget(fs->inodes, refs[k], 1);
	free(buf);
	free(refs);
}

void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct dir_handle *h = dir_handle(fi);

	(void)ino;
	if (h) {
		listing_put(h->l);
		inode_table_put(fs->inodes, h->dir);
		free(h);
	}
	fuse_reply_err(req, 0);
}
