/*
 * Tests of render/delete_note.c: the paragraph jobs/NAME/info ends with while an
 * rmdir's delete outlives its rmdir (under way), and after it failed (when and
 * why, on one line, and what to do).
 */
#include "tests/unit/harness.h"
#include "render/delete_note.h"

TEST(render_delete_note_under_way_and_failed)
{
	struct strbuf sb = STRBUF_INIT;
	struct delete_note under_way = {1796000000, 0, NULL};
	struct delete_note failed = {1796000000, 1796000030,
	                             "tfjobs.kubeflow.org \"x\" is forbidden:\nno\tway"};

	render_delete_note(&sb, &under_way);
	CHECK_STR_EQ(strbuf_str(&sb),
	             "\nDelete: asked at 2026-11-30 00:53:20 (rmdir); the API server has not "
	             "answered yet, and the job stays until it does\n");
	strbuf_reset(&sb);
	render_delete_note(&sb, &failed);
	CHECK_STR_EQ(strbuf_str(&sb),
	             "\nDelete: asked at 2026-11-30 00:53:20 (rmdir), failed at 2026-11-30 "
	             "00:53:50: tfjobs.kubeflow.org \"x\" is forbidden: no way; the job was not "
	             "deleted (rmdir again to retry)\n");
	strbuf_free(&sb);
}
