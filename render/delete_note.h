/*
 * render/delete_note.c's face: the paragraph jobs/NAME/info ends with while an
 * rmdir's delete outlives the rmdir (fs/submit/deletes.h).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_DELETE_NOTE_H
#define ARENAFS_RENDER_DELETE_NOTE_H

#include <stdint.h>

#include "k8s/base/strbuf.h"

/* An rmdir's delete that outlived the rmdir (fs/submit/deletes.h): under way, or failed. */
struct delete_note {
	int64_t asked;      /* when rmdir asked (seconds, UTC) */
	int64_t ended;      /* when it failed; 0 while under way */
	const char *reason; /* why it failed (an API server's message: made single-line) */
};
/* The paragraph jobs/NAME/info ends with for such a delete. */
void render_delete_note(struct strbuf *sb, const struct delete_note *n);

#endif
