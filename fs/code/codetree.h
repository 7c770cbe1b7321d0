/*
 * The path model of jobs/NAME/code/ (codetree.c), from the job's arenafs.io/code
 * annotation alone (codeindex.h): lookups, listings, a file's size and where its
 * bytes are. Called by the tree (model.c, content.c) and ops.c.
 */
#ifndef ARENAFS_FS_CODE_CODETREE_H
#define ARENAFS_FS_CODE_CODETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/base/fs_struct.h"
#include "fs/base/node.h"

int codetree_memo_new(struct codetree_memo **out);
void codetree_memo_free(struct codetree_memo *m);
/* Whether a job (its directory's node) has code/: an annotation that parses. */
bool codetree_has_code(struct fs *fs, const struct fs_node *job_dir);
/* The child of code/ or of a directory below it called name; 0 or -ENOENT, -ENOMEM. */
int codetree_lookup(struct fs *fs, const struct fs_node *dir, const char *name,
		    struct fs_node *out);
/* A directory of code/ (code/ itself too), by name; *out as model_list's (fs_entries_free). */
int codetree_list(struct fs *fs, const struct fs_node *dir, struct fs_entry **out, size_t *n);
/* Whether a directory of code/ (code/ itself too) still is one. */
bool codetree_dir_exists(struct fs *fs, const struct fs_node *dir);
/* What a file of code/ is, from the annotation, with where its bytes are. */
struct codetree_file {
	char ns[256];
	char job[256];
	char uid[128];
	char configmap[256];
	char key[256];
	uint64_t size;
	unsigned perm;               /* st_mode's permission bits (code_file_perm) */
	int64_t mtime;               /* the job's creation: the code never changes */
};
/* 0, or -ENOENT when the job or the file is gone or the node shows another version
 * of it (its identity). */
int codetree_file(struct fs *fs, const struct fs_node *node, struct codetree_file *out);
/* A directory of code/: the job's creation, or -ENOENT. */
int codetree_dir_mtime(struct fs *fs, const struct fs_node *dir, int64_t *mtime);

#endif
