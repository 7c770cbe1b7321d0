/*
 * One submission (submit_run.c): spec -> dry run -> objects, undone on failure;
 * blocking, on a FUSE worker or the defer thread, never under a lock.
 */
#ifndef ARENAFS_FS_SUBMIT_SUBMIT_RUN_H
#define ARENAFS_FS_SUBMIT_SUBMIT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include "fs/base/fs_struct.h"
#include "fs/submit/staging.h"
#include "k8s/error.h"

#define SUBMIT_CACHE_WAIT_MS 3000    /* a made or deleted job shows in the tree before the reply */

struct staging_code;
struct strbuf;

/* The job a submission made, for submit/NAME/status to follow it. */
struct submit_made {
	char ns[64];
	int kind; /* enum job_kind */
	char name[64];
	char uid[64];
};

struct submit_request {
	const char *ns;                   /* where to create; NULL: the mount's namespace */
	const char *text;                 /* the spec */
	size_t len;
	const char *default_name;         /* the staging entry's name */
	bool check_only;                  /* parse, validate and dry-run: nothing is made */
	struct strbuf *objects;           /* with check_only, when not NULL: the API server's
	                                   * dry-run answers as YAML documents (check/) */
	const struct staging_code *code;  /* local code to ship with it, or NULL */
	struct submit_made *made;         /* when not NULL: which job was made */
	/* when not NULL: asked once everything is made, before it is reported; a
	 * failure (-errno, err says why) undoes it all. A folder's: do its files
	 * still hold what was shipped (submit_defer.c)? */
	int (*verify)(void *arg, struct k8s_error *err);
	void *verify_arg;
};

/* Parses, validates, dry-runs and creates the objects of a spec; nothing is left
 * behind on failure. 0 or -errno with err's message for the submission's `error`;
 * on success rq->made (when not NULL) says which job was made. */
int submit_run(struct fs *fs, const struct submit_request *rq, struct k8s_error *err);
/* Waits until the cache has (present) or no longer has the job (of that uid, when not
 * NULL), at most timeout_ms; whether it came to be. */
bool submit_wait_job(struct fs *fs, const char *ns, int kind, const char *name, const char *uid,
		     bool present, int timeout_ms);

#endif
