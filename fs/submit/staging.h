/*
 * submit/'s contents: an in-memory tree of the directories and files users copy in
 * (cp, cp -r, rsync, editors, shell redirection), and the outcome of each
 * submission as two read-only files of its entry, `status` and `error`.
 *
 * Plain data behind one mutex: no FUSE, no network. fs/submit/submit.c serves it to the
 * kernel and runs the submissions it hands out; tests/unit/test_fs_staging.c tests
 * it alone. Every function takes the lock itself, so callers never hold it.
 *
 * Nodes are named by ids that are never reused (the kernel's inodes carry them).
 * A removed file that is still open lives on, unlinked, until its last release, as
 * POSIX wants (an editor may unlink and go on writing).
 *
 * Which files are specs (docs/submit.md):
 *   submit/NAME/spec.yaml (or spec.yml, spec.json)   job NAME, outcome in submit/NAME/
 *   submit/NAME.yaml (or .yml, .json)                job NAME, outcome in submit/NAME/
 *   submit/spec.yaml (or .yml, .json)                the job its name: says, outcome
 *                                                    in submit/spec/
 * Names starting with '.' never are (rsync's and editors' temporary files), nor is
 * anything deeper. One tree stands for one namespace's submit/ (fs/submit/areas.c). A spec is taken when a file that was written is flushed (close),
 * or when a file is renamed to a spec's name.
 *
 * An entry whose last submission made a job records that job (staging_set_job), so
 * that its status can follow it: fs/submit/submit.c, which sees the cache, tells staging
 * when the job is gone (staging_follow), and status then says "deleted".
 */
#ifndef ARENAFS_FS_STAGING_H
#define ARENAFS_FS_STAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define STAGING_ROOT      1                  /* submit/ itself */
#define STAGING_FILE_MAX  (1024 * 1024)      /* a spec is small: larger files get EFBIG */
#define STAGING_BYTES_MAX (64 * 1024 * 1024) /* all file bytes together: then ENOSPC */
#define STAGING_NODES_MAX 10000              /* files and directories: then ENOSPC */
#define STAGING_CODE_MAX  (1024 * 1024)      /* a directory entry's code: one ConfigMap */
#define STAGING_QUIET_MS  500 /* an entry unchanged this long: its copy is over (and a
                               * change after such a pause starts another copy) */
#define STAGING_STATUS    "status"
#define STAGING_ERROR     "error"
#define STAGING_OBJECTS   "objects.yaml" /* check/'s: what the dry run answered */

/* The outcome of an entry's last submission, as its `status` file says it. */
enum staging_outcome {
	STAGING_NONE,       /* nothing submitted yet: no status file */
	STAGING_SUBMITTING, /* "submitting": the requests are under way */
	STAGING_SUBMITTED,  /* "submitted" */
	STAGING_FAILED,     /* "failed", and `error` says why */
	STAGING_DELETED,    /* "deleted": the job the submission made is gone */
	STAGING_CHECKED     /* "checked" (check/): dry-run only, objects.yaml says what */
};

/* The job an entry's last submission made (staging_followed_job's copy). */
struct staging_job {
	char *ns;
	int kind; /* enum job_kind; staging does not look at it */
	char *name;
	char *uid;
	bool seen; /* the cache has shown it once: its absence then means it is gone */
};

struct staging_attr {
	uint64_t id;
	bool dir;
	bool generated; /* status or error: read-only, written by arenafs */
	mode_t mode;    /* permission bits only */
	uint64_t size;
	unsigned nlink;
	struct timespec atime, mtime, ctime;
};

/* What setattr changes (chmod, truncate, utimens); unset fields are left alone. */
struct staging_set {
	bool mode_set, size_set, atime_set, mtime_set;
	mode_t mode;
	uint64_t size;
	struct timespec atime, mtime; /* tv_nsec UTIME_NOW: now */
};

struct staging_entry {
	char *name;
	uint64_t id;
	bool dir;
};

/* A spec to submit, owned by the caller (staging_submission_clear). */
struct staging_submission {
	char *text;
	size_t len;
	char *default_name; /* the job's name, winning over the spec's name:; NULL for
	                     * submit/spec.yaml (a job's spec.yaml copied as it is) */
	char *entry;        /* the top-level name whose status/error tell the outcome */
	bool in_dir;        /* submit/NAME/spec.yaml: the folder's other files are code */
};

struct staging;

int staging_new(struct staging **out);
void staging_free(struct staging *st);

/* The child of dir called name. -ENOENT, -ENOTDIR. */
int staging_lookup(struct staging *st, uint64_t dir, const char *name, struct staging_attr *out);
/* -ENOENT once the node is gone (removed and no longer open). */
int staging_getattr(struct staging *st, uint64_t id, struct staging_attr *out);
/* The children of dir by name; *out malloc'd (staging_list_free). */
int staging_list(struct staging *st, uint64_t dir, struct staging_entry **out, size_t *n);
void staging_list_free(struct staging_entry *e, size_t n);

/* -EEXIST, -ENOENT (dir gone), -ENOTDIR, -EACCES (status/error), -ENAMETOOLONG, -ENOSPC. */
int staging_mkdir(struct staging *st, uint64_t dir, const char *name, mode_t mode,
                  struct staging_attr *out);
/*
 * Creates the file dir/name, or finds it when it exists and !excl, and opens it
 * (staging_release closes). open_flags are open(2)'s: O_TRUNC empties an existing
 * file. -EEXIST (excl), -EISDIR, and mkdir's errors.
 */
int staging_create(struct staging *st, uint64_t dir, const char *name, mode_t mode, bool excl,
                   int open_flags, struct staging_attr *out);
/* Opens a file: -EISDIR, -EACCES (writing a generated file), -ENOENT. */
int staging_open(struct staging *st, uint64_t id, int open_flags);
void staging_release(struct staging *st, uint64_t id);

ssize_t staging_read(struct staging *st, uint64_t id, char *buf, size_t size, off_t off);
/* -EFBIG past STAGING_FILE_MAX, -ENOSPC past STAGING_BYTES_MAX, -EACCES for generated. */
ssize_t staging_write(struct staging *st, uint64_t id, const char *buf, size_t size, off_t off);
int staging_setattr(struct staging *st, uint64_t id, const struct staging_set *set,
                    struct staging_attr *out);

/* Removes a file (generated ones too: rm -r must be able to empty an entry). */
int staging_unlink(struct staging *st, uint64_t dir, const char *name);
/* Removes an empty directory; status and error do not count, they go with it. */
int staging_rmdir(struct staging *st, uint64_t dir, const char *name);
/*
 * rename(2) within submit/: replaces a file or an empty directory; flags
 * RENAME_NOREPLACE (-EEXIST) and RENAME_EXCHANGE (-EINVAL: not offered).
 */
int staging_rename(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                   const char *newname, unsigned flags);

/*
 * A file was flushed (closed): when it was written since it was last taken, is a
 * spec (see above), still linked and not empty, returns 1 with *sub filled; else 0.
 * -ENOMEM. A spec a write failed on since it was last emptied (EFBIG, ENOSPC) is
 * never submitted: -that errno, with only sub->entry filled, to record why.
 */
int staging_take_flushed(struct staging *st, uint64_t id, struct staging_submission *sub);
/*
 * Renaming dir/name to newdir/newname would make a spec: returns 1 with *sub
 * filled from the file's text (the rename itself is left to the caller); else 0.
 */
int staging_take_renamed(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                         const char *newname, struct staging_submission *sub);
void staging_submission_clear(struct staging_submission *sub);

/*
 * Records an outcome in submit/ENTRY/ (made when missing; nothing is recorded when
 * ENTRY is a file): status says it, error holds message (FAILED) or goes away.
 */
int staging_set_outcome(struct staging *st, const char *entry, enum staging_outcome outcome,
                        const char *message);
/*
 * After a CHECKED outcome (check/): the generated file ENTRY/objects.yaml holds
 * text; any later outcome removes it. A user's own file of that name is left alone.
 */
int staging_set_objects(struct staging *st, const char *entry, const char *text);
/*
 * After a SUBMITTED outcome: the job it made, for status to follow, and whether the
 * cache already shows it. Any later outcome forgets it. Nothing is recorded when
 * ENTRY is no directory.
 */
int staging_set_job(struct staging *st, const char *entry, const char *ns, int kind,
                    const char *name, const char *uid, bool seen);
/*
 * The job the status file id follows: 1 with *job a copy (staging_job_clear) when id
 * is an entry's status and the entry's last submission made that job; else 0.
 * -ENOMEM.
 */
int staging_followed_job(struct staging *st, uint64_t id, struct staging_job *job);
/*
 * What the cache shows of the job with uid that status file id follows: there, it
 * is seen; not there, the outcome becomes DELETED. Nothing changes when the entry
 * has been submitted again since (another uid).
 */
void staging_follow(struct staging *st, uint64_t id, const char *uid, bool there);
void staging_job_clear(struct staging_job *job);

/*
 * Local code (docs/submit.md): the files of a directory entry other than its
 * status and error, hidden names (.git/, editors' temporaries) and __pycache__/,
 * shipped with its job in one ConfigMap, so at most STAGING_CODE_MAX bytes: a
 * write past that is -EFBIG and the entry's error says so.
 */
struct staging_code_file {
	char *path; /* relative to the entry, '/'-separated */
	char *data;
	size_t len;
	mode_t mode;
};

struct staging_code {
	struct staging_code_file *files;
	size_t n;
	size_t bytes;       /* all files' bytes; after -EFBIG, the size a write wanted */
	char *copy_failure; /* after -EPERM: what of the copy was refused (staging_copy_failed) */
};

/* Milliseconds since anything below the directory entry last changed (a copy into it
 * is over when this grows). -ENOENT when ENTRY is not a directory of submit/. */
int staging_entry_quiet_ms(struct staging *st, const char *entry, int64_t *ms);
/*
 * Something of a copy into a directory entry could not be made below dir: name, a
 * symbolic link, hard link, device or a name refused (what says which and why, one
 * line). The entry's copy is then incomplete, and its job is never made from the
 * rest: staging_take_code fails with -EPERM until a change after a pause of
 * STAGING_QUIET_MS (another copy) forgets it. Nothing is recorded for dir submit/
 * itself (no entry to fail).
 */
void staging_copy_failed(struct staging *st, uint64_t dir, const char *name, const char *what);
/*
 * Copies the files to ship of ENTRY into *out (none for a single spec file).
 * -EFBIG (out->bytes says how large), -ENOSPC or another write's errno when a file
 * to ship was cut by a failed write, -EPERM when the copy failed to make something
 * (out->copy_failure says what), -EINVAL for a name with a newline,
 * -ENAMETOOLONG, -ENOENT, -ENOMEM. staging_code_explain words such an error.
 */
int staging_take_code(struct staging *st, const char *entry, struct staging_code *out);
void staging_code_explain(char *buf, size_t size, int err, const struct staging_code *c);
void staging_code_clear(struct staging_code *c);

/*
 * Sets the generated file `error` at the root, holding message and a newline (why
 * nothing may be created here: namespaces/NS/submit/ where the credentials may not
 * create jobs), or removes it (message NULL). A user's own file of that name is
 * left alone.
 */
int staging_set_notice(struct staging *st, const char *message);

#endif
