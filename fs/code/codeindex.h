/*
 * The files a job shipped, as its arenafs.io/code annotation lists them: the
 * contract between submit/'s write side and jobs/NAME/code/ (docs/tree.md,
 * "jobs/NAME/code/"). The annotation's lines, separated by "\n":
 *
 *     configmap mnist-code
 *     0644 1234 train.py train.py
 *     0755 88 f1 scripts/run.sh
 *     0644 5 f2 data/small file.txt
 *
 * first the ConfigMap holding the bytes (in the job's namespace), then one line
 * per file: mode (octal), size (bytes), the ConfigMap's key, and the path below
 * code/ (the rest of the line: it may hold spaces). Directories are implied by
 * the paths.
 *
 * The annotation comes from the cluster, so nothing in it is trusted: a line that
 * does not parse, a path with an empty, "." or ".." component, a component over
 * 255 bytes or a path over 4096, a path listed twice (the first counts), or a file
 * where a directory also is (the directory counts): each is left out, counted and
 * the first one described, for the daemon's log.
 *
 * Pure: no I/O, no locks. Tested by tests/unit/test_fs_codeindex.c.
 */
#ifndef ARENAFS_FS_CODEINDEX_H
#define ARENAFS_FS_CODEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CODE_ANNOTATION "arenafs.io/code"
#define CODE_NAME_MAX 255      /* bytes of one path component */
#define CODE_PATH_MAX 4096     /* bytes of a whole path */

struct code_file {
	const char *path;          /* below code/, components joined by '/' */
	const char *key;           /* its key in the ConfigMap */
	unsigned mode;             /* permission bits as shipped (0644, 0755) */
	uint64_t size;             /* bytes */
	size_t line;               /* its line in the annotation (1: the first file) */
};

struct code_index {
	char *configmap;           /* the ConfigMap's name */
	struct code_file *files;   /* by path (strcmp) */
	size_t n;
	size_t skipped;            /* lines left out */
	char why[200];             /* the first line left out, and why ("" when none) */
	char *text;                /* the annotation's copy the strings point into */
};

/* Parses an annotation. 0; -EINVAL when its first line is not "configmap NAME" (why
 * says so; nothing else is set); -ENOMEM. Free with code_index_free either way. */
int code_index_parse(const char *annotation, struct code_index *out);
void code_index_free(struct code_index *ix);

enum code_kind { CODE_NONE, CODE_DIR, CODE_FILE };

/* What path is below code/ ("" is code/ itself): a file (*file set when file is not
 * NULL), a directory, or nothing. */
enum code_kind code_index_find(const struct code_index *ix, const char *path,
			       const struct code_file **file);

/* A name directly in a directory of code/. */
struct code_name {
	const char *name;          /* points into a path: not NUL-terminated, len bytes */
	size_t len;
	const struct code_file *file;  /* NULL: a directory */
};

/* The names directly in directory dir ("" is code/), by name (strcmp, as the
 * tree's fixed names): *out malloc'd (NULL when empty). -ENOENT when dir is not a
 * directory, -ENOMEM. */
int code_index_list(const struct code_index *ix, const char *dir, struct code_name **out,
		    size_t *n);

/* The permission bits a file shows: readable by all, executable where it was
 * shipped executable (0644 → 0444, 0755 → 0555, 0700 → 0544), never writable. */
unsigned code_file_perm(const struct code_file *f);

#endif
