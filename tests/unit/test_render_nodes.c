/* Tests render/nodes.c: nodes/NAME/status, ip, role in arena top node's words. */
#include "render/nodes.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

TEST(node_files)
{
	struct k8s_node *n = fx_node("node-1", "10.0.0.1", true, 8, 8);
	char *s;

	s = FX_RENDER(render_node_status(sb, n); render_node_ip(sb, n); render_node_role(sb, n));
	CHECK_STR_EQ(s, "Ready\n10.0.0.1\n<none>\n");
	free(s);
	n->ready = false;
	n->unschedulable = true;
	fx_set(&n->internal_ip, "");
	fx_set(&n->roles, "control-plane,master");
	s = FX_RENDER(render_node_status(sb, n); render_node_ip(sb, n); render_node_role(sb, n));
	CHECK_STR_EQ(s, "NotReady,SchedulingDisabled\nN/A\ncontrol-plane,master\n");
	free(s);
	n->ready = true;
	s = FX_RENDER(render_node_status(sb, n));
	CHECK_STR_EQ(s, "Ready,SchedulingDisabled\n");
	free(s);
	fx_node_free(n);
}
