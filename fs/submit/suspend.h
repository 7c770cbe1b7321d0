/*
 * jobs/NAME/suspend, the control file (suspend.c): writing 1 asks the job's
 * operator to stop it and keep it (runPolicy.suspend, TrainJob's spec.suspend),
 * writing 0 to bring it back. The write PATCHes the job (a JSON merge patch) on
 * the FUSE worker of the write, no lock held; what the operator did shows in
 * jobs/NAME/status (SUSPENDED) when the watch brings it.
 *
 * Called by fs/ops.c (open, setattr, write) and fs/tree/content.c (the mode).
 * Tested by tests/unit/test_fs_suspend.c and tests/integration/test_suspend.py.
 */
#ifndef ARENAFS_FS_SUBMIT_SUSPEND_H
#define ARENAFS_FS_SUBMIT_SUSPEND_H

#include <stdbool.h>
#include <stddef.h>

#include "k8s/error.h"
#include "render/render.h"
#include "render/suspend_note.h"

struct fs;
struct fs_node;
struct notes;

/* The table of the last refused write of each job's suspend (by uid, the newest
 * SUSPENDS_MAX), for jobs/NAME/info's note: a table of notes (notes.h), its arg 1 for
 * a suspend asked, 0 for a resume. Its mutex is a leaf, never held across a request. */
int suspends_new(struct notes **out);
void suspends_free(struct notes *t);
/* 1 with note filled (its reason copied into buf) when the job of uid had a write
 * refused and none succeeded since, else 0. */
int suspends_note(struct notes *t, const char *uid, struct suspend_note *note, char *buf,
		  size_t size);

/* Whether the job node's kind has a suspend its operator honours (kinds.h). */
bool suspend_supported(const struct fs_node *node);

/* Whether a write can do something: the kind has a suspend and the credentials may
 * patch its jobs in the node's namespace (access.h: a SelfSubjectAccessReview, kept a
 * while; on a FUSE worker, no lock held). The file's mode: 0644, else 0444. */
bool suspend_writable(struct fs *fs, const struct fs_node *node);
/* Whether suspend_writable would answer without asking the cluster. */
bool suspend_mode_known(struct fs *fs, const struct fs_node *node);

/* What a write says: "1" or "0", then at most a newline (echo's). 0 with *on set, or
 * -EINVAL with err filled. Pure. */
int suspend_parse(const char *buf, size_t size, bool *on, struct k8s_error *err);

/* The write of buf to the suspend file of node (FS_JOB_SUSPEND): size, or -errno
 * (EINVAL for other text, EOPNOTSUPP for a kind without suspend, the PATCH's errno:
 * EACCES when the credentials may not patch the job). The reason goes to the
 * daemon's log and to jobs/NAME/info (suspends_note) until a write succeeds. */
int suspend_write(struct fs *fs, const struct fs_node *node, const char *buf, size_t size);

#endif
