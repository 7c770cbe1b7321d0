/*
 * FUSE requests run again on a network thread (netops.h): one record of copied
 * arguments per request, one function that calls the operation with them. The
 * request handle itself stays valid until it is answered, whichever thread does
 * it; what the kernel's message held (names, written bytes) does not, because
 * libfuse reuses its buffer once the operation returns: it is copied here.
 *
 * No lock; the pool's own. Called by ops.c; tested through the mount by
 * tests/integration/test_reads_while_writers_wait.py.
 */
#include "fs/netops.h"
#include "fs/base/netpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum call_kind { CALL_NAME, CALL_FILE, CALL_SETATTR, CALL_WRITE, CALL_READ, CALL_CREATE,
                 CALL_MKDIR, CALL_RENAME };

struct call {
	enum call_kind kind;
	union {
		netops_name_fn name;
		netops_file_fn file;
		netops_setattr_fn setattr;
		netops_write_fn write;
		netops_read_fn read;
		netops_create_fn create;
		netops_mkdir_fn mkdir;
		netops_rename_fn rename;
	} fn;
	fuse_req_t req;
	fuse_ino_t ino, ino2;
	char *name, *name2, *buf;
	size_t size;
	off_t off;
	struct stat attr;
	int to_set;
	mode_t mode;
	unsigned int flags;
	bool has_fi;
	struct fuse_file_info fi;
};

static void call_free(struct call *c)
{
	free(c->name);
	free(c->name2);
	free(c->buf);
	free(c);
}

static void call_run(void *arg)
{
	struct call *c = arg;
	struct fuse_file_info *fi = c->has_fi ? &c->fi : NULL;

	switch (c->kind) {
	case CALL_NAME:
		c->fn.name(c->req, c->ino, c->name);
		break;
	case CALL_FILE:
		c->fn.file(c->req, c->ino, fi);
		break;
	case CALL_SETATTR:
		c->fn.setattr(c->req, c->ino, &c->attr, c->to_set, fi);
		break;
	case CALL_WRITE:
		c->fn.write(c->req, c->ino, c->buf, c->size, c->off, fi);
		break;
	case CALL_READ:
		c->fn.read(c->req, c->ino, c->size, c->off, fi);
		break;
	case CALL_CREATE:
		c->fn.create(c->req, c->ino, c->name, c->mode, fi);
		break;
	case CALL_MKDIR:
		c->fn.mkdir(c->req, c->ino, c->name, c->mode);
		break;
	case CALL_RENAME:
		c->fn.rename(c->req, c->ino, c->name, c->ino2, c->name2, c->flags);
		break;
	}
	call_free(c);
}

/* A record for req with its names copied, or NULL. */
static struct call *call_new(enum call_kind kind, fuse_req_t req, fuse_ino_t ino,
                             const char *name, const char *name2, struct fuse_file_info *fi)
{
	struct call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->kind = kind;
	c->req = req;
	c->ino = ino;
	if ((name && !(c->name = strdup(name))) || (name2 && !(c->name2 = strdup(name2)))) {
		call_free(c);
		return NULL;
	}
	if (fi) {
		c->has_fi = true;
		c->fi = *fi;
	}
	return c;
}

/* Hands c to the pool; on failure it is freed and the caller answers. */
static int hand_over(struct fs *fs, struct call *c)
{
	int rc;

	if (!c)
		return -ENOMEM;
	if (!fs->netpool || netpool_on_pool()) {
		call_free(c);
		return -EALREADY;
	}
	rc = netpool_run(fs->netpool, call_run, c);
	if (rc)
		call_free(c);
	return rc;
}

int netops_name(struct fs *fs, netops_name_fn fn, fuse_req_t req, fuse_ino_t parent,
                const char *name)
{
	struct call *c = call_new(CALL_NAME, req, parent, name, NULL, NULL);

	if (c)
		c->fn.name = fn;
	return hand_over(fs, c);
}

int netops_file(struct fs *fs, netops_file_fn fn, fuse_req_t req, fuse_ino_t ino,
                struct fuse_file_info *fi)
{
	struct call *c = call_new(CALL_FILE, req, ino, NULL, NULL, fi);

	if (c)
		c->fn.file = fn;
	return hand_over(fs, c);
}

int netops_setattr(struct fs *fs, netops_setattr_fn fn, fuse_req_t req, fuse_ino_t ino,
                   const struct stat *attr, int to_set, struct fuse_file_info *fi)
{
	struct call *c = call_new(CALL_SETATTR, req, ino, NULL, NULL, fi);

	if (c) {
		c->fn.setattr = fn;
		c->attr = *attr;
		c->to_set = to_set;
	}
	return hand_over(fs, c);
}

int netops_write(struct fs *fs, netops_write_fn fn, fuse_req_t req, fuse_ino_t ino,
                 const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct call *c = call_new(CALL_WRITE, req, ino, NULL, NULL, fi);

	if (c) {
		c->fn.write = fn;
		c->size = size;
		c->off = off;
		c->buf = malloc(size ? size : 1);
		if (!c->buf) {
			call_free(c);
			return -ENOMEM;
		}
		memcpy(c->buf, buf, size);
	}
	return hand_over(fs, c);
}

int netops_read(struct fs *fs, netops_read_fn fn, fuse_req_t req, fuse_ino_t ino, size_t size,
                off_t off, struct fuse_file_info *fi)
{
	struct call *c = call_new(CALL_READ, req, ino, NULL, NULL, fi);

	if (c) {
		c->fn.read = fn;
		c->size = size;
		c->off = off;
	}
	return hand_over(fs, c);
}

int netops_create(struct fs *fs, netops_create_fn fn, fuse_req_t req, fuse_ino_t parent,
                  const char *name, mode_t mode, struct fuse_file_info *fi)
{
	struct call *c = call_new(CALL_CREATE, req, parent, name, NULL, fi);

	if (c) {
		c->fn.create = fn;
		c->mode = mode;
	}
	return hand_over(fs, c);
}

int netops_mkdir(struct fs *fs, netops_mkdir_fn fn, fuse_req_t req, fuse_ino_t parent,
                 const char *name, mode_t mode)
{
	struct call *c = call_new(CALL_MKDIR, req, parent, name, NULL, NULL);

	if (c) {
		c->fn.mkdir = fn;
		c->mode = mode;
	}
	return hand_over(fs, c);
}

int netops_rename(struct fs *fs, netops_rename_fn fn, fuse_req_t req, fuse_ino_t parent,
                  const char *name, fuse_ino_t newparent, const char *newname,
                  unsigned int flags)
{
	struct call *c = call_new(CALL_RENAME, req, parent, name, newname, NULL);

	if (c) {
		c->fn.rename = fn;
		c->ino2 = newparent;
		c->flags = flags;
	}
	return hand_over(fs, c);
}
