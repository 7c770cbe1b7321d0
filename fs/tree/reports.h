/*
 * The reports of a TrainJob's progress the mount has seen, oldest first, for the
 * lines of jobs/NAME/progress (reports.c). The cluster keeps only the last report
 * (status.trainerStatus); `tail -f` wants a file that grows by a line per report,
 * so the file's inode keeps the points it has shown: at most REPORTS_MAX, then it
 * starts over from the newest (the file shrinks: tail says "file truncated" and
 * prints it), and a report older than the last (the timeline changed) starts over
 * too. What a point says is render/progress.h's.
 *
 * Callers: fs/tree/content.c, which notes the job's point at each render of the
 * file and hands the history to the renderer; fs.c frees it with its inode.
 * Locks: none of its own; a history is its inode's, guarded by inode_lock(in).
 * Test: tests/unit/test_fs_reports.c.
 */
#ifndef ARENAFS_FS_TREE_REPORTS_H
#define ARENAFS_FS_TREE_REPORTS_H

#include <stddef.h>

#include "render/progress.h"

/* A file of 64 reports of ~60 bytes is ~4 KiB: a screenful for cat, a bound on the
 * memory of an inode kept by a follower. */
#define REPORTS_MAX 64

struct report_history {
	size_t n, cap;
	struct progress_point *p;   /* oldest first; texts owned */
};

/* Adds pt (taking its text) to *h (made on first use) unless it is the last point
 * again, whose text is then freed. 0, or -ENOMEM (pt's text freed, *h unchanged). */
int reports_note(struct report_history **h, struct progress_point *pt);
/* Frees h and its points' texts (NULL: nothing). */
void reports_free(struct report_history *h);

#endif
