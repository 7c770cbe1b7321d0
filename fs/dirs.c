/*
 * Directory listings: opendir takes a snapshot of the names (model.c's listing,
 * or submit.c's), and readdir / readdirplus page through it, so
 * offsets stay stable while jobs come and go: a listing that shifts under `ls`
 * or `find` skips or repeats entries.
 *
 * readdirplus answers attributes with each directory's name, from the cache, so
 * `ls -l` of jobs/ costs no LOOKUP per job; files get their name and type only
 * (their size is a render away). d_type is always filled so `find` need not stat.
 */
#include "fs/fs_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/submit.h"
#include "util/hash.h"

struct dir_handle {
	struct fs_inode *dir;        /* pinned */
	struct model_entry *e;
	size_t n;
};

static struct fs *req_fs(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* What a listing shows: names, types and the identities inode numbers come from. */
static uint64_t listing_hash(const struct model_entry *e, size_t n)
{
	uint64_t h = HASH_FNV1A_INIT;

	for (size_t i = 0; i < n; i++) {
		h = hash_fnv1a(h, e[i].name, strlen(e[i].name) + 1);
		h = hash_fnv1a(h, &e[i].node.type, sizeof(e[i].node.type));
		if (e[i].node.identity)
			h = hash_fnv1a_str(h, e[i].node.identity);
	}
	return h;
}

/*
 * The kernel may keep a listing in its page cache (cache_readdir) and serve the
 * next opendir's getdents from it, with no READDIR request: `find` and `ls -R`
 * walking ten thousand job directories pay then an OPENDIR and a RELEASEDIR each,
 * not two readdirs more. keep_cache tells it the listing it has is still right:
 * the same names, types and numbers as this opendir's snapshot. Otherwise it drops
 * its copy and reads this one. submit/'s listings change under the user's own
 * hand and are not cached.
 */
static void cache_listing(struct fs_inode *dir, const struct model_entry *e, size_t n,
			  struct fuse_file_info *fi)
{
	uint64_t h;

	if (fs_type_is_submit(dir->node.type))
		return;
	h = listing_hash(e, n);
	fi->cache_readdir = 1;
	pthread_mutex_lock(&dir->lock);
	if (dir->rendered && dir->listing_hash == h)
		fi->keep_cache = 1;
	dir->listing_hash = h;
	dir->rendered = true;
	pthread_mutex_unlock(&dir->lock);
}

void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct fs_inode *in = inode_table_get(fs->inodes, ino);
	struct dir_handle *h;
	int ret = 0;

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
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		inode_table_put(fs->inodes, in);
		return;
	}
	if (fs_type_is_submit(in->node.type)) {
		ret = submit_list(fs, in, &h->e, &h->n);
	} else {
		cache_read_lock(fs->cache);
		ret = model_list(fs, &in->node, &h->e, &h->n);
		cache_read_unlock(fs->cache);
	}
	if (ret) {
		free(h);
		fuse_reply_err(req, -ret);
		inode_table_put(fs->inodes, in);
		return;
	}
	h->dir = in;
	fi->fh = (uintptr_t)h;
	cache_listing(in, h->e, h->n, fi);
	if (fuse_reply_open(req, fi) < 0) {
		model_free(h->e, h->n);
		free(h);
		inode_table_put(fs->inodes, in);
	}
}

static struct dir_handle *dir_handle(struct fuse_file_info *fi)
{
	return (struct dir_handle *)(uintptr_t)fi->fh;
}

static fuse_ino_t parent_ino(const struct fs_inode *dir)
{
	return dir->parent ? dir->parent->ino : dir->ino;
}

/* A d_ino for an entry: the number its inode has or will get at lookup. */
static fuse_ino_t entry_ino(struct fs *fs, struct fs_inode *dir, const struct model_entry *e)
{
	return inode_table_number(fs->inodes, dir, e->name, &e->node);
}

void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct dir_handle *h = dir_handle(fi);
	char *buf = malloc(size ? size : 1);
	size_t pos = 0;

	(void)ino;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = off < 0 ? 0 : (size_t)off; i < h->n + 2; i++) {
		struct stat st;
		const char *name;
		size_t len;

		memset(&st, 0, sizeof(st));
		if (i < 2) {
			name = i == 0 ? "." : "..";
			st.st_ino = i == 0 ? h->dir->ino : parent_ino(h->dir);
			st.st_mode = S_IFDIR;
		} else {
			const struct model_entry *e = &h->e[i - 2];

			name = e->name;
			st.st_ino = entry_ino(fs, h->dir, e);
			st.st_mode = fs_type_is_dir(e->node.type) ? S_IFDIR : S_IFREG;
		}
		len = fuse_add_direntry(req, buf + pos, size - pos, name, &st, (off_t)(i + 1));
		if (len > size - pos)
			break;
		pos += len;
	}
	fuse_reply_buf(req, buf, pos);
	free(buf);
}

/* The entry of one listed name with its attributes; pinned inode in *inp, or NULL when
 * the name went away since opendir. */
static int plus_entry(struct fs *fs, struct dir_handle *h, const struct model_entry *e,
		      struct fs_inode **inp, struct fuse_entry_param *ep)
{
	struct fs_inode *in;
	char objkey[600];
	int ret;

	*inp = NULL;
	place_node_key(&e->node, objkey, sizeof(objkey));
	in = inode_table_child(fs->inodes, h->dir, e->name, &e->node, objkey[0] ? objkey : NULL);
	if (!in)
		return -ENOMEM;
	ret = ops_fill_entry(fs, in, ep);
	if (ret) {
		inode_table_put(fs->inodes, in);
		return ret;
	}
	*inp = in;
	return 0;
}

void dirs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct dir_handle *h = dir_handle(fi);
	char *buf = malloc(size ? size : 1);
	/* an entry takes at least 88 bytes: at most this many references per reply */
	fuse_ino_t *refs = malloc((size / 88 + 1) * sizeof(*refs));
	size_t pos = 0, nrefs = 0;

	(void)ino;
	if (!buf || !refs) {
		free(buf);
		free(refs);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = off < 0 ? 0 : (size_t)off; i < h->n + 2; i++) {
		struct fuse_entry_param e;
		struct fs_inode *in = NULL;
		const char *name;
		size_t len;

		memset(&e, 0, sizeof(e));
		if (i < 2) {
			/* The kernel takes no reference for . and ..: ino 0 says "no entry". */
			name = i == 0 ? "." : "..";
			e.attr.st_ino = i == 0 ? h->dir->ino : parent_ino(h->dir);
			e.attr.st_mode = S_IFDIR;
		} else if (fs_type_is_submit(h->dir->node.type) ||
			   !fs_type_is_dir(h->e[i - 2].node.type)) {
			/* Name and type only: submit/'s entries and every file are looked up
			 * when stat'ed. A file's size needs its text rendered, and `find`
			 * or a file browser's listing would render every file of every job
			 * it walks, and leave an inode each behind. Directories are
			 * answered whole: `ls -l jobs/` costs no lookup per job. */
			name = h->e[i - 2].name;
			e.attr.st_ino = entry_ino(fs, h->dir, &h->e[i - 2]);
			e.attr.st_mode = fs_type_is_dir(h->e[i - 2].node.type) ? S_IFDIR : S_IFREG;
		} else {
			int ret = plus_entry(fs, h, &h->e[i - 2], &in, &e);

			name = h->e[i - 2].name;
			if (ret == -ENOENT)
				continue;     /* gone since opendir */
			if (ret) {
				if (pos == 0) {
					fuse_reply_err(req, -ret);
					free(buf);
					free(refs);
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
	if (fuse_reply_buf(req, buf, pos) < 0)
		for (size_t i = 0; i < nrefs; i++)   /* interrupted: the kernel linked none */
			inode_table_forget(fs->inodes, refs[i], 1);
	free(buf);
	free(refs);
}

void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = req_fs(req);
	struct dir_handle *h = dir_handle(fi);

	(void)ino;
	if (h) {
		model_free(h->e, h->n);
		inode_table_put(fs->inodes, h->dir);
		free(h);
	}
	fuse_reply_err(req, 0);
}
