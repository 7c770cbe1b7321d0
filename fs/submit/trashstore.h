/*
 * What the trash at the mount's top holds (trashstore.c), in memory for the mount's
 * life: whether `.Trash-UID/` was made, its `files/` (one entry per deleted job:
 * the name its trasher gave, the job it was and its spec, kept to bring it back)
 * and its `info/` (the files trashers write there: `X.trashinfo`, and GIO's
 * temporary `X.trashinfo.XXXXXX` renamed over it). It knows no FUSE and no
 * cluster: trash.c serves it and does the deleting and the resubmitting.
 *
 * Bounded (docs/tree.md, "The trash"): at most TRASH_ENTRIES_MAX entries and
 * TRASH_SPECS_MAX bytes of kept specs (a new entry drops the oldest, with its
 * info, as emptying it would), at most TRASH_INFO_FILES_MAX files in info/, each
 * at most TRASH_INFO_SIZE_MAX bytes (a .trashinfo is a hundred).
 *
 * One mutex, a leaf: never held across a request, no lock taken under it (model.c
 * and content.c take it under the cache's read lock: is the trash made).
 * Called by trash.c. Tested by
 * tests/unit/test_fs_trashstore.c.
 */
#ifndef ARENAFS_FS_SUBMIT_TRASHSTORE_H
#define ARENAFS_FS_SUBMIT_TRASHSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TRASH_ENTRIES_MAX    256
#define TRASH_SPECS_MAX      (16u << 20)
#define TRASH_INFO_FILES_MAX 512
#define TRASH_INFO_SIZE_MAX  4096
#define TRASH_INFO_SUFFIX    ".trashinfo"
#define TRASH_NAME_MAX       255   /* a name in files/ or info/, as any file system's */

struct trashstore;

/* The two folders of the trash. */
enum trash_dir { TRASH_FILES, TRASH_INFO };

/* The job an entry of files/ was: enough to bring it back, and to tell it. */
struct trash_job {
	char ns[64];
	int kind;        /* enum job_kind */
	char name[254];  /* its Kubernetes name (253 at most) */
	char uid[64];
	bool code;       /* it shipped code (jobs/NAME/code/), which went with it */
};

/* An entry or an info file as stat shows it. */
struct trash_stat {
	uint64_t id;     /* stable while it lives (renames keep it), never reused */
	size_t size;     /* info: its bytes; an entry: its kept spec's */
	size_t error_len; /* an entry: the last failed restore's words (0: none) */
	int64_t mtime;   /* seconds UTC: written last, or deleted */
	struct timespec listed; /* an entry: when what its folder lists last changed */
};

int trashstore_new(struct trashstore **out);
void trashstore_free(struct trashstore *t);

/* `.Trash-UID/` exists once made (mkdir), until removed empty (rmdir). */
bool trashstore_made(struct trashstore *t, int64_t *since);
/* When the names of dir last changed (its folder's st_mtime: the kernel keeps a
 * listing while it is the same, to the nanosecond). */
void trashstore_listed(struct trashstore *t, enum trash_dir dir, struct timespec *when);
/* 0, or -EEXIST when made. */
int trashstore_make(struct trashstore *t, int64_t now);
/* 0, or -ENOTEMPTY while it holds anything, -ENOENT when not made. */
int trashstore_unmake(struct trashstore *t);

/* The item called name in dir: 0 with *st, or -ENOENT. */
int trashstore_lookup(struct trashstore *t, enum trash_dir dir, const char *name,
		      struct trash_stat *st);
/* The item of id in dir: 0 with *st, or -ENOENT. */
int trashstore_stat(struct trashstore *t, enum trash_dir dir, uint64_t id,
		    struct trash_stat *st);
/* The names of dir, oldest first, and their ids (each array malloc'd, the names too):
 * 0 or -ENOMEM. */
int trashstore_list(struct trashstore *t, enum trash_dir dir, char ***names, uint64_t **ids,
		    size_t *n);
void trashstore_list_free(char **names, uint64_t *ids, size_t n);
/* Copies up to size bytes at off of an info file's bytes (error false), or of an
 * entry's kept spec (error false) or last restore's words (error true): the count,
 * or -ENOENT. */
long trashstore_read(struct trashstore *t, enum trash_dir dir, uint64_t id, bool error,
		     char *buf, size_t size, uint64_t off);

/* ---- info/ ---- */
/* A new empty file name: 0 with *id, -EEXIST, -ENOSPC (TRASH_INFO_FILES_MAX), -ENOMEM. */
int trashstore_info_create(struct trashstore *t, const char *name, int64_t now, uint64_t *id);
/* Writes len bytes at off: len, or -EFBIG past TRASH_INFO_SIZE_MAX, -ENOENT, -ENOMEM. */
long trashstore_info_write(struct trashstore *t, uint64_t id, const char *buf, size_t len,
			   uint64_t off, int64_t now);
/* Cuts or zero-extends to size: 0, -EFBIG, -ENOENT, -ENOMEM. */
int trashstore_info_truncate(struct trashstore *t, uint64_t id, uint64_t size, int64_t now);
/* Renames name to newname, replacing a file there unless noreplace (-EEXIST then):
 * 0, -ENOENT, -ENOMEM. */
int trashstore_info_rename(struct trashstore *t, const char *name, const char *newname,
			   bool noreplace);
/* Removes name: 0 or -ENOENT. */
int trashstore_info_unlink(struct trashstore *t, const char *name);

/* ---- files/ ---- */
/*
 * A deleted job as files/name, keeping spec (len bytes). When info/name.trashinfo
 * is missing (a plain mv), info (its text) is put there. Drops the oldest entries
 * beyond the bounds (say()s which). 0, -EEXIST (name taken), -EFBIG (a spec larger
 * than all the room), -ENOSPC (info/ full), -ENOMEM.
 */
int trashstore_entry_add(struct trashstore *t, const char *name, const struct trash_job *job,
			 const char *spec, size_t len, const char *info, int64_t now);
/* The job and a copy of the spec of files/name (*spec malloc'd): 0, -ENOENT, -ENOMEM. */
int trashstore_entry_get(struct trashstore *t, const char *name, struct trash_job *job,
			 char **spec, size_t *len);
/* Keeps why bringing files/name back failed (files/name/error). */
void trashstore_entry_failed(struct trashstore *t, const char *name, const char *why);
/* Forgets files/name and info/name.trashinfo (emptied, or brought back): 0 or -ENOENT. */
int trashstore_entry_forget(struct trashstore *t, const char *name);

#endif
