/*
 * nodes/NAME/status, ip and role, in the words `arena top node` uses for its
 * STATUS, IPADDRESS and ROLE columns (pkg/apis/utils DefineNodeStatus, topnode
 * baseNode). nodes/NAME/gpus and info are GPU accounting: gpus.c.
 *
 * Pure; tested by tests/unit/test_render_nodes.c.
 */
#include "render/nodes.h"
#include "render/text.h"

const char *render_node_status_word(const struct k8s_node *node)
{
	/* kubectl's words; the Ready condition is all the cache keeps, so a node that
	 * reports none (Arena: "Unknown") reads NotReady. */
	if (node->unschedulable)
		return node->ready ? "Ready,SchedulingDisabled" : "NotReady,SchedulingDisabled";
	return node->ready ? "Ready" : "NotReady";
}

void render_node_status(struct strbuf *sb, const struct k8s_node *node)
{
	strbuf_puts(sb, render_node_status_word(node));
	strbuf_putc(sb, '\n');
}

void render_node_ip(struct strbuf *sb, const struct k8s_node *node)
{
	strbuf_puts(sb, node->internal_ip[0] ? node->internal_ip : RENDER_NA);
	strbuf_putc(sb, '\n');
}

void render_node_role(struct strbuf *sb, const struct k8s_node *node)
{
	strbuf_puts(sb, node->roles[0] ? node->roles : "<none>");
	strbuf_putc(sb, '\n');
}
