/*
 * rmdir jobs/NAME's DELETE, run on a thread of its own so that the rmdir holds
 * jobs/ for at most DELETES_HOLD_MS. The kernel keeps jobs/' lock for the whole
 * rmdir: `ls jobs/` and lookups of names it has not cached wait for it, and a
 * DELETE to a cluster that does not answer takes request_timeout (30 s). So the
 * rmdir waits for the answer only that long; then it answers EINPROGRESS and the
 * DELETE goes on. What it comes to afterwards is told where the job is:
 * jobs/NAME/info ends with a note while it is under way and after it failed
 * (render_delete_note), the daemon logs it, and a job deleted leaves jobs/ when
 * the watch shows it gone (docs/submit.md, "rmdir jobs/NAME").
 *
 * Called by submit.c (rmdir) and content.c (the note). No request is made under
 * the table's mutex, and no lock but its notes' (notes.h, a leaf) taken under it.
 */
#ifndef ARENAFS_FS_SUBMIT_DELETES_H
#define ARENAFS_FS_SUBMIT_DELETES_H

#include <stddef.h>
#include <stdint.h>

#include "k8s/error.h"
#include "render/delete_note.h"

#define DELETES_HOLD_MS 3000 /* the longest an rmdir holds jobs/: answer, then the watch */

struct fs;
struct fs_node;
struct fs_deletes;

int deletes_new(struct fs *fs, struct fs_deletes **out);
/* Waits for the DELETEs under way (each ends by request_timeout), then frees. */
void deletes_free(struct fs_deletes *d);

/*
 * Deletes the job of node (FS_JOB_DIR), or joins its delete under way, and waits
 * for the answer until deadline_ms (time_monotonic_ms): 0, or the answer's -errno
 * with err filled, or -EINPROGRESS when there was none by then (the DELETE goes
 * on; deletes_note then tells of it).
 */
int deletes_run(struct fs_deletes *d, const struct fs_node *node, int64_t deadline_ms,
                struct k8s_error *err);

/*
 * The note of the delete of the job with uid that no rmdir heard the end of: 1 with
 * *note filled (its reason points into buf), else 0.
 */
int deletes_note(struct fs_deletes *d, const char *uid, struct delete_note *note, char *buf,
                 size_t size);

#endif
