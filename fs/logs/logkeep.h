/*
 * Kept logs (keep_logs=SIZE, docs/tree.md "Logs kept after their pods"): a copy on
 * local disk of each container log the keeper (logkeeper.c) fetched once its
 * container terminated, so that jobs/NAME/logs and instances/POD/logs still read
 * after the pods are deleted, and a terminated log is read again without a request.
 *
 * Layout, below DIR ($XDG_CACHE_HOME/arenafs/logs, else ~/.cache/arenafs/logs):
 *
 *     DIR/CLUSTER/server.url                   the API server's URL, for people
 *     DIR/CLUSTER/NS/JOB/POD/CONTAINER.N       the log of instance N (restartCount),
 *                                              as kubectl logs prints it
 *     DIR/CLUSTER/NS/JOB/POD/CONTAINER.N.meta  which instance it is (logkeep.c)
 *
 * CLUSTER is 16 hex digits of a hash of the server's URL, so that two clusters never
 * share copies; the uids in the meta file tell a copy from another cluster at the same
 * address, or from an earlier job or pod of the same name, apart. Directories are
 * 0700, files 0600. Each name is checked to be one path component (no '/', no
 * leading '.', so never '..') before it is used; a name that is not is not kept.
 * Beyond SIZE bytes (or LOGKEEP_MAX_LOGS logs) the least recently used copies are
 * deleted; reading a copy marks it used (its file's mtime keeps that order across
 * mounts).
 *
 * Thread-safe: one mutex, a leaf (taken under the cache's read lock by model.c);
 * lookups touch memory only, opening and committing touch the disk.
 */
#ifndef ARENAFS_FS_LOGKEEP_H
#define ARENAFS_FS_LOGKEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/logs/logkeep_index.h"
#include "render/render.h"

#define LOGKEEP_MAX_LOGS 20000   /* the index costs about 250 bytes a log */
#define LOGKEEP_MAX_DROPPED 4096 /* copies dropped, remembered (memory only) */
/* Of what the disk holds, 1/SLACK is left for meta files, directories and blocks. */
#define LOGKEEP_DISK_SLACK 8

struct logkeep;

/*
 * Opens DIR/CLUSTER for server (creating what is missing) and reads what is kept
 * there, deleting leftovers of an interrupted write and what is over budget.
 * -errno with why filled.
 */
int logkeep_open(const char *dir, const char *server, uint64_t budget, struct logkeep **out,
		 char *why, size_t why_size);
void logkeep_free(struct logkeep *k);
/* DIR/CLUSTER. */
const char *logkeep_dir(const struct logkeep *k);

/* The copy of one container instance, named as a log node names it: identity is
 * "POD_UID/CONTAINER/N", or "POD_UID/CONTAINER/prevN" for the instance before N. */
struct logkeep_ref {
	const char *ns, *job, *pod, *container, *identity;
};

/* Whether it is kept: its size and finishedAt. Memory only. */
bool logkeep_has(struct logkeep *k, const struct logkeep_ref *r, uint64_t *size,
		 int64_t *finished);
/* Opens it for reading and marks it used: *fd (the caller closes it) and *size.
 * -ENOENT when it is not kept (or its file went: it is forgotten then). */
int logkeep_open_log(struct logkeep *k, const struct logkeep_ref *r, int *fd, uint64_t *size);

/* The kept logs of a job (its kind and uid must match), copies for the caller:
 * logkeep_entries_free(). Memory only. */
size_t logkeep_of_job(struct logkeep *k, const char *ns, int kind, const char *job,
		      const char *job_uid, struct logkeep_entry ***out);
void logkeep_entries_free(struct logkeep_entry **e, size_t n);
/* The copies of one pod's instances (every attempt's log: instances/POD/attempts/),
 * kept or dropped (->dropped set, size 0): those it remembers dropping, the newest
 * LOGKEEP_MAX_DROPPED since the mount. Copies for the caller, in no order. */
size_t logkeep_of_pod(struct logkeep *k, const char *ns, int kind, const char *job,
		      const char *job_uid, const char *pod_uid, struct logkeep_entry ***out);
/* An instance's log that will not be kept (why: EFBIG, larger than keep_logs):
 * remembered as a dropped copy is, so that its attempt says so. */
void logkeep_not_kept(struct logkeep *k, const struct logkeep_meta *meta, int why);

/* A new temporary file in DIR/CLUSTER for a copy being written: its fd, and its
 * name in name (at least 32 bytes). */
int logkeep_tmp(struct logkeep *k, char *name, size_t name_size);
/* Puts the temporary file name (size bytes) in place as the copy meta describes
 * (replacing an older copy of that instance), and deletes the least recently used
 * beyond the budget. The temporary file is gone afterwards, kept or not. -EINVAL
 * for a name that is not a path component, -EFBIG when it alone passes the budget. */
int logkeep_commit(struct logkeep *k, const struct logkeep_meta *meta, const char *name,
		   uint64_t size);
/* Deletes a temporary file that will not be committed. */
void logkeep_discard(struct logkeep *k, const char *name);

/* Makes room for a copy of size bytes before it is written: the budget is set to
 * what the disk holds now (at most keep_logs), and the least recently used copies
 * go until it fits. -EFBIG when it alone passes keep_logs, -ENOSPC when it passes
 * what the disk holds. */
int logkeep_make_room(struct logkeep *k, uint64_t size);
/* A copy of NS/POD could not be kept (err, positive): remembered for
 * logkeep_state(); for want of space (ENOSPC, EDQUOT) the budget first shrinks to
 * what the disk holds, dropping the least recently used copies to fit. */
void logkeep_failed(struct logkeep *k, const char *ns, const char *pod, int err, int64_t now);
/* A copy was kept: the failure above is over. */
void logkeep_kept(struct logkeep *k);
/* What keeping is up against, for cluster/health and info. */
void logkeep_state(struct logkeep *k, struct logs_kept_state *out);

/* For tests and tools: the bytes and count kept. */
void logkeep_usage(struct logkeep *k, uint64_t *bytes, size_t *n);

#endif
