/*
 * Tests of render/suspend_note.c: the paragraph jobs/NAME/info ends with after a
 * write of suspend was refused (which, when, why on one line).
 */
#include "render/suspend_note.h"
#include "tests/unit/harness.h"

TEST(render_suspend_note_says_which_when_and_why)
{
	struct strbuf sb = STRBUF_INIT;
	struct suspend_note refused = {1796000000, true,
	                               "tfjobs.kubeflow.org \"x\" is forbidden:\ncannot\tpatch"};
	struct suspend_note resume = {1796000030, false, ""};

	render_suspend_note(&sb, &refused);
	CHECK_STR_EQ(strbuf_str(&sb),
	             "\nSuspend: refused at 2026-11-30 00:53:20 (jobs/NAME/suspend): "
	             "tfjobs.kubeflow.org \"x\" is forbidden: cannot patch\n");
	strbuf_reset(&sb);
	render_suspend_note(&sb, &resume);
	CHECK_STR_EQ(strbuf_str(&sb),
	             "\nResume: refused at 2026-11-30 00:53:50 (jobs/NAME/suspend): unknown reason\n");
	strbuf_free(&sb);
}
