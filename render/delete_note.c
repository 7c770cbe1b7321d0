/*
 * The note jobs/NAME/info ends with while an rmdir's delete of the job goes on
 * after the rmdir returned (EINPROGRESS: the API server did not answer within
 * the time rmdir may hold jobs/), or failed after it did: nobody else was told,
 * so the job's own report says it (docs/submit.md, "rmdir jobs/NAME").
 *
 * Pure. Called by fs/tree/content.c; tested by tests/unit/test_render_delete_note.c.
 */
#include "render/delete_note.h"
#include "render/text.h"

#include "k8s/base/timefmt.h"

/* The longest reason shown; the whole error is in the daemon's log. */
#define DELETE_REASON_MAX 512

void render_delete_note(struct strbuf *sb, const struct delete_note *n)
{
	char asked[32], ended[32];

	time_format_human(n->asked, asked, sizeof(asked));
	if (!n->ended) {
		strbuf_printf(sb, "\nDelete: asked at %s (rmdir); the API server has not answered "
		                  "yet, and the job stays until it does\n",
		              asked);
		return;
	}
	strbuf_printf(sb, "\nDelete: asked at %s (rmdir), failed at %s: ", asked,
	              time_format_human(n->ended, ended, sizeof(ended)));
	render_put_oneline(sb, n->reason && *n->reason ? n->reason : "unknown reason",
	                   DELETE_REASON_MAX);
	strbuf_puts(sb, "; the job was not deleted (rmdir again to retry)\n");
}
