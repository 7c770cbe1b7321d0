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
 *
 * Each open(2) of a file is a handle (staging_create's attr.handle, staging_open's
 * *handle) that writes, truncates, flushes and releases name. A spec is taken at a
 * flush only when that handle wrote it whole: it made the file, emptied it (O_TRUNC,
 * truncate to 0) or found it empty, without O_APPEND, and no other handle wrote to
 * it since (docs/submit.md, "A writer that did not finish"). Other writers stage it.
 *
 * An entry whose spec is being submitted is busy (from the take until staging_idle):
 * opening its spec for writing, or renaming onto it, waits until it is not, and is
 * then EEXIST when the submission made a job named as the entry that still exists,
 * so that the spec file shows what was launched.
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
#define STAGING_QUIET_MS  500 /* an entry unchanged this long, nothing in it open for
                               * writing and its writers ended: its copy is over (and a
                               * change after such a pause starts another copy) */
#define STAGING_STAY_MS   10000 /* ... or this long, when a writer goes on running (a
                                 * notebook, a file manager, an IDE's sync) */
#define STAGING_BUSY_WAIT_MS 3000 /* an open (or rename) of a spec waiting for its entry's
                                   * submission: the kernel holds the directory's lock
                                   * for an O_CREAT open, so ls waits too; then EBUSY */
#define STAGING_BUSY_MAKE_WAIT_MS 300000 /* a close, or a folder's make, waiting so */
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
	STAGING_CHECKED,    /* "checked" (check/): dry-run only, objects.yaml says what */
	STAGING_STAGED      /* "staged": written, not whole (appended to...), not submitted;
	                     * `error` says why and how to submit it */
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
	uint64_t handle; /* staging_create: the handle of this open */
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

/* Why a spec that was written is not submitted at a flush or rename. */
enum staging_unfinished {
	STAGING_WHOLE,      /* written whole by the flushing handle: it is submitted */
	STAGING_NOT_WHOLE,  /* appended to (O_APPEND) or changed in place: staged, never
	                     * submitted by a close */
	STAGING_CLASHED,    /* written by two handles at once (two cp to one name): it
	                     * may mix both; refused */
	STAGING_REPLACED,   /* another handle emptied and rewrote it since: that one's
	                     * close submits it, this one's outcome is not recorded */
	STAGING_ABANDONED,  /* its writer was killed or failed (the caller's word) */
	STAGING_STILL_OPEN, /* renamed to a spec's name while open for writing */
};

/* A spec to submit, owned by the caller (staging_submission_clear). */
struct staging_submission {
	char *text;
	size_t len;
	char *default_name; /* the job's name, winning over the spec's name:; NULL for
	                     * submit/spec.yaml (a job's spec.yaml copied as it is) */
	char *entry;        /* the top-level name whose status/error tell the outcome */
	char *path;         /* the spec file below submit/: "NAME.yaml", "NAME/spec.yaml" */
	bool in_dir;        /* submit/NAME/spec.yaml: the folder's other files are code */
	enum staging_unfinished unfinished; /* not WHOLE: sub->entry only, not submitted */
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
 * (staging_release closes out->handle). open_flags are open(2)'s: O_TRUNC empties an
 * existing file. -EEXIST (excl, or a busy entry's spec whose job exists: see
 * above), -EBUSY (its entry stayed busy STAGING_BUSY_WAIT_MS), -EISDIR, and mkdir's
 * errors.
 */
int staging_create(struct staging *st, uint64_t dir, const char *name, mode_t mode, bool excl,
                   int open_flags, struct staging_attr *out);
/* Opens a file, its handle in *handle: -EISDIR, -EACCES (writing a generated file),
 * -ENOENT, and create's -EEXIST and -EBUSY for a spec opened for writing. */
int staging_open(struct staging *st, uint64_t id, int open_flags, uint64_t *handle);
void staging_release(struct staging *st, uint64_t id, uint64_t handle);

ssize_t staging_read(struct staging *st, uint64_t id, char *buf, size_t size, off_t off);
/* Through handle (0: none known). -EFBIG past STAGING_FILE_MAX, -ENOSPC past
 * STAGING_BYTES_MAX, -EACCES for generated. */
ssize_t staging_write(struct staging *st, uint64_t id, uint64_t handle, const char *buf,
                      size_t size, off_t off);
/* handle: the open it came through (ftruncate), 0 by path (truncate). */
int staging_setattr(struct staging *st, uint64_t id, uint64_t handle,
                    const struct staging_set *set, struct staging_attr *out);

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
 * A file was flushed (closed) through handle: when that handle wrote it since it was
 * last taken, and it is a spec (see above), still linked and not empty, returns 1
 * with *sub filled and the entry busy (staging_idle ends it); else 0. -ENOMEM. A
 * spec a write failed on since it was last emptied (EFBIG, ENOSPC) is never
 * submitted: -that errno, with only sub->entry filled, to record why. A spec the
 * handle did not write whole, or whose writer abandoned it (abandoned: the caller
 * knows), is not either: 0 with sub->entry and sub->unfinished saying why; an
 * abandoned text is never taken by a later flush either.
 */
int staging_take_flushed(struct staging *st, uint64_t id, uint64_t handle, bool abandoned,
                         struct staging_submission *sub);
/*
 * Renaming dir/name to newdir/newname would make a spec: returns 1 with *sub
 * filled from the file's text and the entry busy (the rename itself is left to the
 * caller); else 0; a file still open for writing: 0 with sub->unfinished
 * STAGING_STILL_OPEN. Waits while the target's entry is busy: -EBUSY, -EEXIST as
 * staging_create.
 */
int staging_take_renamed(struct staging *st, uint64_t dir, const char *name, uint64_t newdir,
                         const char *newname, struct staging_submission *sub);
void staging_submission_clear(struct staging_submission *sub);
/* The submission of entry is over (its outcome recorded, or queued to be made). */
void staging_idle(struct staging *st, const char *entry);
/* Marks entry busy (a folder's job being made), waiting while it already is. */
void staging_busy(struct staging *st, const char *entry);

/*
 * Records an outcome in submit/ENTRY/ (made when missing; nothing is recorded when
 * ENTRY is a file): status says it, error holds message (FAILED, STAGED, and
 * SUBMITTING when not NULL: why it waits) or goes away.
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

/* A process that wrote below an entry: the thread the kernel named, and its process
 * (fs/submit/writers.h says which). */
struct staging_writer {
	int tid;
	int tgid;
	uint64_t starttime;
};

/* Where a copy into a directory entry is (staging_entry_state). */
struct staging_copy_state {
	int64_t quiet_ms;               /* since anything below it last changed */
	unsigned open_for_writing;      /* its files open for writing now */
	struct staging_writer *writers; /* who wrote in this copy (malloc'd) */
	size_t n_writers;
};

/* -ENOENT when ENTRY is not a directory of submit/; -ENOMEM. The copy is over when
 * nothing is open for writing, it has been quiet STAGING_QUIET_MS and its writers
 * have ended, or quiet STAGING_STAY_MS. */
int staging_entry_state(struct staging *st, const char *entry, struct staging_copy_state *out);
void staging_copy_state_clear(struct staging_copy_state *s);
/* Does the entry of node id know thread tid as a writer of its copy (or is id in
 * no entry: nothing to know)? */
bool staging_knows_writer(struct staging *st, uint64_t id, int tid);
/* Records a writer of the copy into the entry of node id (forgotten with the copy:
 * a change after a pause starts another). */
void staging_add_writer(struct staging *st, uint64_t id, const struct staging_writer *w);
/* The process tgid says it is done writing into entry (it looked for the entry's
 * job): it no longer holds the copy open, however long it runs. */
void staging_writer_done(struct staging *st, const char *entry, int tgid);
/* The status file of the entry the spec dir/name would submit to (name NULL: the
 * file dir itself): its id, or 0. */
uint64_t staging_status_of(struct staging *st, uint64_t dir, const char *name);
/*
 * Something of a copy into a directory entry could not be made below dir: name, a
 * symbolic link, hard link, device or a name refused (what says which and why, one
 * line). The entry's copy is then incomplete, and its job is never made from the
 * rest: staging_take_code fails with -EPERM until a change after a pause of
 * STAGING_QUIET_MS (another copy) forgets it. Nothing is recorded for dir submit/
 * itself (no entry to fail).
 */
void staging_copy_failed(struct staging *st, uint64_t dir, const char *name, const char *what);
/* The file id, written through handle, was cut short (its writer was killed): as
 * staging_copy_failed for its name, when it is in a directory entry. */
void staging_copy_cut(struct staging *st, uint64_t id, uint64_t handle, const char *what);
/*
 * Copies the files to ship of ENTRY into *out (none for a single spec file).
 * -EFBIG (out->bytes says how large), -ENOSPC or another write's errno when a file
 * to ship was cut by a failed write, -EPERM when the copy failed to make something
 * (out->copy_failure says what), -EINVAL for a name with a newline,
 * -ENAMETOOLONG, -ENOENT, -ENOMEM. staging_code_explain words such an error.
 */
int staging_take_code(struct staging *st, const char *entry, struct staging_code *out);
/* Are a and b the same files, byte for byte? When not, the first path that differs
 * (or "") in which. */
bool staging_code_equal(const struct staging_code *a, const struct staging_code *b,
                        char *which, size_t size);
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
