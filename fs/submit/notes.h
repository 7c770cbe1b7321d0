/*
 * A table of notes, one per job (by uid), for jobs/NAME/info to end with: when an
 * action on the job was asked, when it ended, and why it went wrong (notes.c). It
 * knows nothing of what a note means, nor how long one is worth keeping: its owners
 * decide that. deletes.c keeps the DELETEs that outlived their rmdir (under way,
 * then failed; pruned an hour after they ended), suspend.c the last refused write
 * of each job's suspend (the newest SUSPENDS_MAX, until a write succeeds).
 *
 * Called by deletes.c and suspend.c. Its mutex is a leaf: taken under deletes.c's
 * lock, never held across a request or another lock. Tested by
 * tests/unit/test_fs_notes.c.
 */
#ifndef ARENAFS_FS_SUBMIT_NOTES_H
#define ARENAFS_FS_SUBMIT_NOTES_H

#include <stddef.h>
#include <stdint.h>

#define NOTES_UID_MAX 64 /* a Kubernetes uid is 36; a longer one gets no note */

struct notes;

/* One job's note as told: times in seconds UTC (ended 0: not yet), arg the owner's
 * word for what was asked, reason a copy in the caller's buffer ("" for none). */
struct note {
	int64_t asked, ended;
	int arg;
	const char *reason;
};

/* An empty table that keeps at most max notes (the oldest goes first; 0: no bound). */
int notes_new(size_t max, struct notes **out);
void notes_free(struct notes *t);

/* Sets the note of uid (replacing its earlier one, which counts as new): 0, or
 * -EINVAL for an empty or too long uid, -ENOMEM (the note is then not kept). */
int notes_put(struct notes *t, const char *uid, const struct note *note);
/* Drops the note of uid, if any. */
void notes_forget(struct notes *t, const char *uid);
/* Drops the notes that ended (ended != 0) before the time before. */
void notes_prune(struct notes *t, int64_t before);

/* 1 with *note filled (its reason copied into buf) when uid has a note, else 0. */
int notes_get(struct notes *t, const char *uid, struct note *note, char *buf, size_t size);

#endif
