/*
 * render/suspend_note.c's face: the paragraph jobs/NAME/info ends with after a write
 * of jobs/NAME/suspend was refused (fs/submit/suspend.h).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_SUSPEND_NOTE_H
#define ARENAFS_RENDER_SUSPEND_NOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* The last write of jobs/NAME/suspend that was refused (fs/submit/suspend.h). */
struct suspend_note {
	int64_t at;         /* when (seconds, UTC) */
	bool on;            /* it asked to suspend (else to resume) */
	const char *reason; /* why (an API server's message: made single-line) */
};
/* The paragraph jobs/NAME/info ends with after such a refusal. */
void render_suspend_note(struct strbuf *sb, const struct suspend_note *n);

#endif
