/*
 * struct fs_node's helpers (node.h): free and deep-copy its strings, free a listing.
 */
#include "fs/base/node.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fs_node_clear(struct fs_node *n)
{
	free(n->ns);
	free(n->job);
	free(n->pod);
	free(n->node);
	free(n->container);
	free(n->path);
	free(n->uid);
	free(n->identity);
	*n = (struct fs_node)FS_NODE_INIT;
}

static int dup_field(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int fs_node_copy(struct fs_node *dst, const struct fs_node *src)
{
	*dst = (struct fs_node)FS_NODE_INIT;
	dst->type = src->type;
	dst->kind = src->kind;
	dst->restarts = src->restarts;
	if (dup_field(&dst->ns, src->ns) || dup_field(&dst->job, src->job) ||
	    dup_field(&dst->pod, src->pod) || dup_field(&dst->node, src->node) ||
	    dup_field(&dst->container, src->container) || dup_field(&dst->path, src->path) ||
	    dup_field(&dst->uid, src->uid) ||
	    dup_field(&dst->identity, src->identity)) {
		fs_node_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

void fs_entries_free(struct fs_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++) {
		free(e[i].name);
		fs_node_clear(&e[i].node);
	}
	free(e);
}
