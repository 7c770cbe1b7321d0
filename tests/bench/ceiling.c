/*
 * ceiling: the FUSE ceiling of make bench (tests/bench/bench.py, the table
 * against the limit). It loads a directory tree (the tmpfs copy of a mounted
 * arenafs) whole into memory at start, names, modes, sizes, contents and mtimes,
 * then serves it read-only with no work per request: an inode number is an
 * index into one array, a directory's children are a run of it sorted by name,
 * a read replies with a pointer into the file's bytes, and nothing is allocated
 * or locked per request. Attributes are the copy's own (lstat), so that a
 * command prints on it what it prints on the copy. A command's time on it is
 * what FUSE's own round trips cost on this machine: arenafs cannot do better
 * with the same kernel-facing choices, which this copies:
 * - init: no writeback cache; READDIRPLUS wanted, with the READDIRPLUS_AUTO that
 *   libfuse asks by default (fs/ops.c, ops_init);
 * - timeouts (fs/tree/content.c, defaults of fs/fs.h): a file's attributes
 *   attr_timeout, a directory's entry_timeout; a name in a directory whose
 *   entries are all directories (jobs/, nodes/, instances/: names of objects,
 *   which come and go) entry_timeout and no negative entry; any other name (the
 *   fixed ones: status, info, ...) static_timeout, negative entries too;
 * - open: keep_cache and noflush (a small file whose pages in the kernel are of
 *   its current text); opendir: neither keep_cache nor cache_readdir;
 * - no xattr operations (ENOSYS once, then the kernel stops asking);
 * - the multi-threaded loop of mount/main.c, with libfuse's defaults.
 * Other choices, to measure what they would save (tests/bench/ceiling_choices.py;
 * docs/benchmarks.md has what it found): -o readdirplus=no|always, no_keep_cache,
 * cache_readdir, no_open and no_opendir (ENOSYS: the kernel stops sending OPEN
 * or OPENDIR and their RELEASE, and caches as keep_cache and cache_readdir
 * would), attr_timeout=S, entry_timeout=S, static_timeout=S, and libfuse's own
 * mount options (ro: the kernel then keeps atime, see ceiling_choices.py);
 * -o counts prints the requests of each operation on stderr at exit.
 *
 *   ceiling [-f] [-d] [-s] [-o OPTIONS] SOURCE MOUNTPOINT
 *
 * Not part of arenafs: make bench, its smoke test and ceiling_choices.py run it.
 */
#include "fs/fs.h"      /* FUSE_USE_VERSION, fuse_lowlevel.h, arenafs' default timeouts */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum readdirplus { RDPLUS_AUTO, RDPLUS_ALWAYS, RDPLUS_NO };

struct ceiling_opts {
	double attr_timeout;
	double entry_timeout;
	double static_timeout;
	int readdirplus;        /* enum readdirplus */
	int no_keep_cache;
	int cache_readdir;
	int no_open;
	int no_opendir;
	int counts;
	char *source;
};

struct cnode {
	char *name;             /* NULL for the root */
	char *data;             /* a file's bytes, size of them */
	off_t size;
	blkcnt_t blocks;
	struct timespec mtime;
	mode_t mode;
	nlink_t nlink;
	uint32_t parent;        /* index; the root is its own parent */
	uint32_t first, n;      /* a directory's children: nodes[first .. first + n), by name */
	bool objects;           /* a directory whose entries are all directories */
};

enum op {
	OP_LOOKUP, OP_FORGET, OP_GETATTR, OP_ACCESS, OP_OPEN, OP_READ, OP_RELEASE,
	OP_OPENDIR, OP_READDIR, OP_READDIRPLUS, OP_RELEASEDIR, OP_COUNT
};

static const char *const OP_NAMES[OP_COUNT] = {
	"lookup", "forget", "getattr", "access", "open", "read", "release",
	"opendir", "readdir", "readdirplus", "releasedir",
};

struct ceiling {
	struct ceiling_opts opts;
	struct cnode *nodes;    /* read-only once served; inode number = index + 1 */
	size_t count, cap;
	uid_t uid;
	gid_t gid;
	bool no_open;           /* -o no_open and the kernel supports it (set at init) */
	bool no_opendir;
	pthread_key_t dirbuf;   /* each thread's reply buffer for directories */
	atomic_ulong counts[OP_COUNT];
};

#define CEILING_OPT(t, p, v) {t, offsetof(struct ceiling_opts, p), v}

static const struct fuse_opt CEILING_OPTS[] = {
	CEILING_OPT("attr_timeout=%lf", attr_timeout, 0),
	CEILING_OPT("entry_timeout=%lf", entry_timeout, 0),
	CEILING_OPT("static_timeout=%lf", static_timeout, 0),
	CEILING_OPT("readdirplus=auto", readdirplus, RDPLUS_AUTO),
	CEILING_OPT("readdirplus=always", readdirplus, RDPLUS_ALWAYS),
	CEILING_OPT("readdirplus=no", readdirplus, RDPLUS_NO),
	CEILING_OPT("no_keep_cache", no_keep_cache, 1),
	CEILING_OPT("cache_readdir", cache_readdir, 1),
	CEILING_OPT("no_open", no_open, 1),
	CEILING_OPT("no_opendir", no_opendir, 1),
	CEILING_OPT("counts", counts, 1),
	FUSE_OPT_END,
};

/* ---- the tree in memory ---- */

static const struct cnode *node_of(const struct ceiling *c, fuse_ino_t ino)
{
	return ino >= 1 && ino <= c->count ? &c->nodes[ino - 1] : NULL;
}

static void count(struct ceiling *c, enum op op)
{
	if (c->opts.counts)
		atomic_fetch_add_explicit(&c->counts[op], 1, memory_order_relaxed);
}

/* The child of dir called name: its index, or -1. */
static long child_find(const struct ceiling *c, const struct cnode *dir, const char *name)
{
	size_t lo = dir->first, hi = (size_t)dir->first + dir->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(name, c->nodes[mid].name);

		if (cmp == 0)
			return (long)mid;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static void fill_stat(const struct ceiling *c, size_t i, struct stat *st)
{
	const struct cnode *n = &c->nodes[i];

	memset(st, 0, sizeof(*st));
	st->st_ino = i + 1;
	st->st_mode = n->mode;
	st->st_nlink = n->nlink;
	st->st_size = n->size;
	st->st_blocks = n->blocks;
	st->st_uid = c->uid;
	st->st_gid = c->gid;
	st->st_mtim = st->st_ctim = st->st_atim = n->mtime;
}

static double attr_timeout(const struct ceiling *c, size_t i)
{
	return S_ISDIR(c->nodes[i].mode) ? c->opts.entry_timeout : c->opts.attr_timeout;
}

static double entry_timeout(const struct ceiling *c, size_t i)
{
	return i > 0 && c->nodes[c->nodes[i].parent].objects ? c->opts.entry_timeout
							     : c->opts.static_timeout;
}

static void fill_entry(const struct ceiling *c, size_t i, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = i + 1;
	e->generation = 1;
	fill_stat(c, i, &e->attr);
	e->attr_timeout = attr_timeout(c, i);
	e->entry_timeout = entry_timeout(c, i);
}

/* ---- loading ---- */

static int tree_add(struct ceiling *c, const char *name, const struct stat *st, uint32_t parent)
{
	struct cnode *n;

	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct cnode *nodes = realloc(c->nodes, cap * sizeof(*nodes));

		if (!nodes || cap > UINT32_MAX)
			return -ENOMEM;
		c->nodes = nodes;
		c->cap = cap;
	}
	n = &c->nodes[c->count];
	memset(n, 0, sizeof(*n));
	if (name && !(n->name = strdup(name)))
		return -ENOMEM;
	n->mode = st->st_mode;
	n->nlink = st->st_nlink;
	n->size = st->st_size;
	n->blocks = st->st_blocks;
	n->mtime = st->st_mtim;
	n->parent = parent;
	c->count++;
	return 0;
}

/* Reads the file name of dfd whole into n (its size is the bytes read). */
static int file_load(int dfd, const char *name, struct cnode *n)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	size_t got = 0;
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (n->size > 0 && !(n->data = malloc((size_t)n->size))) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)n->size) {
		ssize_t r = read(fd, n->data + got, (size_t)n->size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	n->size = (off_t)got;
out:
	close(fd);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct cnode *)a)->name, ((const struct cnode *)b)->name);
}

/* The path of node i below source, in buf (PATH_MAX). */
static int node_path(const struct ceiling *c, size_t i, char *buf)
{
	const char *names[PATH_MAX / 2];
	size_t depth = 0, len;

	for (; i != 0; i = c->nodes[i].parent) {
		if (depth == PATH_MAX / 2)
			return -ENAMETOOLONG;
		names[depth++] = c->nodes[i].name;
	}
	len = strlen(c->opts.source);
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, c->opts.source, len + 1);
	while (depth > 0) {
		int r = snprintf(buf + len, PATH_MAX - len, "/%s", names[--depth]);

		if (r < 0 || (size_t)r >= PATH_MAX - len)
			return -ENAMETOOLONG;
		len += (size_t)r;
	}
	return 0;
}

/* Appends directory i's entries, sorted by name, and loads its files. */
static int dir_load(struct ceiling *c, size_t i)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t first = c->count;
	DIR *d;
	int ret = node_path(c, i, path);

	if (ret)
		return ret;
	if (!(d = opendir(path)))
		return -errno;
	while ((errno = 0, de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			goto out;
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "ceiling: %s/%s: not a file or directory, left out\n", path,
				de->d_name);
			continue;
		}
		ret = tree_add(c, de->d_name, &st, (uint32_t)i);
		if (!ret && S_ISREG(st.st_mode))
			ret = file_load(dirfd(d), de->d_name, &c->nodes[c->count - 1]);
		if (ret)
			goto out;
	}
	if (errno) {
		ret = -errno;
		goto out;
	}
	qsort(c->nodes + first, c->count - first, sizeof(*c->nodes), by_name);
	c->nodes[i].first = (uint32_t)first;
	c->nodes[i].n = (uint32_t)(c->count - first);
	/* an empty directory too: in arenafs' tree that is jobs/ or instances/ of none */
	c->nodes[i].objects = true;
	for (size_t k = first; k < c->count; k++)
		if (!S_ISDIR(c->nodes[k].mode))
			c->nodes[i].objects = false;
out:
	if (ret)
		fprintf(stderr, "ceiling: %s: %s\n", path, strerror(-ret));
	closedir(d);
	return ret;
}

/* Breadth first, so that each directory's children are one run of the array. */
static int tree_load(struct ceiling *c)
{
	struct stat st;
	int ret;

	if (stat(c->opts.source, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	c->uid = st.st_uid;
	c->gid = st.st_gid;
	ret = tree_add(c, NULL, &st, 0);
	for (size_t i = 0; !ret && i < c->count; i++)
		if (S_ISDIR(c->nodes[i].mode))
			ret = dir_load(c, i);
	return ret;
}

static void tree_free(struct ceiling *c)
{
	for (size_t i = 0; i < c->count; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].data);
	}
	free(c->nodes);
}

/* ---- the operations ---- */

static struct ceiling *req_ceiling(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void ceiling_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ceiling *c = userdata;

	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	if (c->opts.readdirplus == RDPLUS_NO)
		conn->want &= ~(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	else if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	if (c->opts.readdirplus == RDPLUS_ALWAYS)
		conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	c->no_open = c->opts.no_open && (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT);
	c->no_opendir = c->opts.no_opendir && (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT);
}

static void ceiling_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ceiling *c = req_ceiling(req);
	const struct cnode *p = node_of(c, parent);
	struct fuse_entry_param e;
	long i;

	count(c, OP_LOOKUP);
	if (!p || !S_ISDIR(p->mode)) {
		fuse_reply_err(req, p ? ENOTDIR : ENOENT);
		return;
	}
	i = child_find(c, p, name);
	if (i >= 0) {
		fill_entry(c, (size_t)i, &e);
		fuse_reply_entry(req, &e);
	} else if (p->objects || c->opts.static_timeout <= 0) {
		fuse_reply_err(req, ENOENT);
	} else {
		memset(&e, 0, sizeof(e));
		e.entry_timeout = c->opts.static_timeout;
		fuse_reply_entry(req, &e);
	}
}

/* Nothing to release: the tree lives as long as the mount. */
static void ceiling_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	(void)ino, (void)nlookup;
	count(req_ceiling(req), OP_FORGET);
	fuse_reply_none(req);
}

static void ceiling_forget_multi(fuse_req_t req, size_t n, struct fuse_forget_data *forgets)
{
	(void)n, (void)forgets;
	count(req_ceiling(req), OP_FORGET);
	fuse_reply_none(req);
}

static void ceiling_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ceiling *c = req_ceiling(req);
	struct stat st;

	(void)fi;
	count(c, OP_GETATTR);
	if (!node_of(c, ino)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_stat(c, ino - 1, &st);
	fuse_reply_attr(req, &st, attr_timeout(c, ino - 1));
}

static void ceiling_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct ceiling *c = req_ceiling(req);

	count(c, OP_ACCESS);
	fuse_reply_err(req, !node_of(c, ino) ? ENOENT : (mask & W_OK) ? EROFS : 0);
}

/* open and opendir: a file opened for reading, or a directory. */
static void open_node(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, bool dir)
{
	struct ceiling *c = req_ceiling(req);
	const struct cnode *n = node_of(c, ino);

	count(c, dir ? OP_OPENDIR : OP_OPEN);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else if ((bool)S_ISDIR(n->mode) != dir)
		fuse_reply_err(req, dir ? ENOTDIR : EISDIR);
	else if (!dir && ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)))
		fuse_reply_err(req, EROFS);
	else if (dir ? c->no_opendir : c->no_open)
		fuse_reply_err(req, ENOSYS);
	else {
		if (dir) {
			fi->cache_readdir = c->opts.cache_readdir;
			fi->keep_cache = c->opts.cache_readdir;
		} else {
			fi->keep_cache = !c->opts.no_keep_cache;
			fi->noflush = 1;
		}
		fuse_reply_open(req, fi);
	}
}

static void ceiling_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	open_node(req, ino, fi, false);
}

static void ceiling_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	struct ceiling *c = req_ceiling(req);
	const struct cnode *n = node_of(c, ino);

	(void)fi;
	count(c, OP_READ);
	if (!n || S_ISDIR(n->mode)) {
		fuse_reply_err(req, n ? EISDIR : ENOENT);
		return;
	}
	if (off < 0 || off >= n->size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	fuse_reply_buf(req, n->data + off,
		       (size_t)(n->size - off) < size ? (size_t)(n->size - off) : size);
}

static void ceiling_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	count(req_ceiling(req), OP_RELEASE);
	fuse_reply_err(req, 0);
}

static void ceiling_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	open_node(req, ino, fi, true);
}

/* This thread's reply buffer of at least size bytes: allocated when a request first
 * asks that much, freed when the thread ends. */
static char *thread_buf(struct ceiling *c, size_t size)
{
	size_t *buf = pthread_getspecific(c->dirbuf);

	if (!buf || buf[0] < size) {
		size_t *bigger = realloc(buf, sizeof(size_t) + size);

		if (!bigger)
			return NULL;
		bigger[0] = size;
		buf = bigger;
		if (pthread_setspecific(c->dirbuf, buf) != 0) {
			free(buf);
			return NULL;
		}
	}
	return (char *)(buf + 1);
}

/* One page of directory ino from offset off: ".", "..", then its children. */
static void reply_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	struct ceiling *c = req_ceiling(req);
	const struct cnode *d = node_of(c, ino);
	char *buf = thread_buf(c, size);
	size_t pos = 0;

	if (!d || !S_ISDIR(d->mode) || !buf) {
		fuse_reply_err(req, !buf ? ENOMEM : d ? ENOTDIR : ENOENT);
		return;
	}
	for (size_t i = off < 0 ? 0 : (size_t)off; i < (size_t)d->n + 2; i++) {
		size_t node = i == 0 ? ino - 1 : i == 1 ? d->parent : d->first + i - 2;
		const char *name = i == 0 ? "." : i == 1 ? ".." : c->nodes[node].name;
		size_t len;

		if (plus) {
			struct fuse_entry_param e;

			if (i < 2) {
				/* The kernel takes no reference for . and ..: ino 0 says "no entry". */
				memset(&e, 0, sizeof(e));
				e.attr.st_ino = node + 1;
				e.attr.st_mode = S_IFDIR;
			} else {
				fill_entry(c, node, &e);
			}
			len = fuse_add_direntry_plus(req, buf + pos, size - pos, name, &e,
						     (off_t)(i + 1));
		} else {
			struct stat st;

			memset(&st, 0, sizeof(st));
			st.st_ino = node + 1;
			st.st_mode = c->nodes[node].mode & S_IFMT;
			len = fuse_add_direntry(req, buf + pos, size - pos, name, &st,
						(off_t)(i + 1));
		}
		if (len > size - pos)
			break;
		pos += len;
	}
	fuse_reply_buf(req, buf, pos);
}

static void ceiling_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	(void)fi;
	count(req_ceiling(req), OP_READDIR);
	reply_dir(req, ino, size, off, false);
}

static void ceiling_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
				struct fuse_file_info *fi)
{
	(void)fi;
	count(req_ceiling(req), OP_READDIRPLUS);
	reply_dir(req, ino, size, off, true);
}

static void ceiling_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	count(req_ceiling(req), OP_RELEASEDIR);
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops OPS = {
	.init = ceiling_init,
	.lookup = ceiling_lookup,
	.forget = ceiling_forget,
	.forget_multi = ceiling_forget_multi,
	.getattr = ceiling_getattr,
	.access = ceiling_access,
	.open = ceiling_open,
	.read = ceiling_read,
	.release = ceiling_release,
	.opendir = ceiling_opendir,
	.readdir = ceiling_readdir,
	.readdirplus = ceiling_readdirplus,
	.releasedir = ceiling_releasedir,
};

/* ---- main ---- */

/* The first word that is not an option is SOURCE; fuse_parse_cmdline takes the next. */
static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct ceiling_opts *o = data;

	(void)outargs;
	if (key != FUSE_OPT_KEY_NONOPT || o->source)
		return 1;
	o->source = strdup(arg);
	return o->source ? 0 : -1;
}

/* As mount/main.c serves: libfuse's defaults unless -o max_threads= etc. */
static int serve(struct fuse_session *se, const struct fuse_cmdline_opts *cmd)
{
	struct fuse_loop_config *lc;
	int ret;

	if (cmd->singlethread)
		return fuse_session_loop(se);
	lc = fuse_loop_cfg_create();
	if (!lc)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(lc, (unsigned int)cmd->clone_fd);
	if (cmd->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(lc, cmd->max_idle_threads);
	if (cmd->max_threads != UINT_MAX)
		fuse_loop_cfg_set_max_threads(lc, cmd->max_threads);
	ret = fuse_session_loop_mt(se, lc);
	fuse_loop_cfg_destroy(lc);
	return ret;
}

static void print_counts(struct ceiling *c)
{
	fprintf(stderr, "ceiling: requests:");
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(stderr, " %s %lu", OP_NAMES[op], atomic_load(&c->counts[op]));
	fprintf(stderr, "\n");
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd = {0};
	struct fuse_session *se = NULL;
	struct ceiling c = {0};
	bool key = false, signals = false;
	int ret = 1;

	c.opts.attr_timeout = FS_ATTR_TIMEOUT_DEFAULT;
	c.opts.entry_timeout = FS_ENTRY_TIMEOUT_DEFAULT;
	c.opts.static_timeout = FS_STATIC_TIMEOUT_DEFAULT;
	if (fuse_opt_parse(&args, &c.opts, CEILING_OPTS, opt_proc) != 0 ||
	    fuse_parse_cmdline(&args, &cmd) != 0)
		goto out;
	if (cmd.show_help || !c.opts.source || !cmd.mountpoint) {
		printf("usage: %s [-f] [-d] [-s] [-o OPTIONS] SOURCE MOUNTPOINT\n"
		       "  serves the tree SOURCE read-only from memory (tests/bench/ceiling.c)\n",
		       argv[0]);
		fuse_cmdline_help();
		ret = cmd.show_help ? 0 : 1;
		goto out;
	}
	if (pthread_key_create(&c.dirbuf, free) != 0)
		goto out;
	key = true;
	ret = tree_load(&c);
	if (ret) {
		fprintf(stderr, "ceiling: cannot load %s: %s\n", c.opts.source, strerror(-ret));
		ret = 1;
		goto out;
	}
	ret = 1;
	if (fuse_opt_add_arg(&args, "-osubtype=ceiling,fsname=ceiling") != 0)
		goto out;
	se = fuse_session_new(&args, &OPS, sizeof(OPS), &c);
	if (!se || fuse_set_signal_handlers(se) != 0)
		goto out;
	signals = true;
	if (fuse_session_mount(se, cmd.mountpoint) != 0)
		goto out;
	fuse_daemonize(cmd.foreground);
	/* -errno on failure; the number of the signal that stopped it is success */
	ret = serve(se, &cmd) < 0 ? 1 : 0;
	fuse_session_unmount(se);
	if (c.opts.counts)
		print_counts(&c);
out:
	if (signals)
		fuse_remove_signal_handlers(se);
	if (se)
		fuse_session_destroy(se);
	if (key) {
		free(pthread_getspecific(c.dirbuf));    /* -s: the main thread served */
		pthread_key_delete(c.dirbuf);
	}
	tree_free(&c);
	free(c.opts.source);
	free(cmd.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
