/*
 * The note jobs/NAME/info ends with after a write of jobs/NAME/suspend was
 * refused (EACCES for credentials that may not patch the job, EINVAL for other
 * text, ...): the write's errno says that it failed, this says why, where the
 * job is, as submit/'s error file does for a submission (docs/tree.md,
 * "jobs/NAME/suspend"). Gone after a write that succeeds.
 *
 * Pure. Called by fs/tree/content.c; tested by tests/unit/test_render_suspend_note.c.
 */
#include "render/suspend_note.h"
#include "render/text.h"

#include "k8s/base/timefmt.h"

/* The longest reason shown; the whole error is in the daemon's log. */
#define SUSPEND_REASON_MAX 512

void render_suspend_note(struct strbuf *sb, const struct suspend_note *n)
{
	char at[32];

	strbuf_printf(sb, "\n%s: refused at %s (jobs/NAME/suspend): ", n->on ? "Suspend" : "Resume",
	              time_format_human(n->at, at, sizeof(at)));
	render_put_oneline(sb, n->reason && *n->reason ? n->reason : "unknown reason",
	                   SUSPEND_REASON_MAX);
	strbuf_putc(sb, '\n');
}
