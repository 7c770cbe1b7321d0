/* Tests render/tensorboard.c: Arena's two URL rules, the service preference, none. */
#include "render/render.h"
#include "render/tensorboard.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

struct tb_case {
	struct job *job;
	struct service *svc[3];
	struct k8s_node *nodes[3];
	size_t n_svc, n_nodes;
};

static char *url_of(struct tb_case *c, bool *found)
{
	struct job_view v = fx_view(c->job, NULL, 0);
	struct strbuf sb = STRBUF_INIT;

	v.services = (const struct service *const *)c->svc;
	v.n_services = c->n_svc;
	v.nodes = (const struct k8s_node *const *)c->nodes;
	v.n_nodes = c->n_nodes;
	*found = render_job_tensorboard_url(&sb, &v);
	return strbuf_take(&sb);
}

static void tb_free(struct tb_case *c)
{
	for (size_t i = 0; i < c->n_svc; i++)
		fx_service_free(c->svc[i]);
	for (size_t i = 0; i < c->n_nodes; i++)
		fx_node_free(c->nodes[i]);
	fx_job_free(c->job);
}

TEST(tensorboard_nodeport_on_first_ready_node)
{
	struct tb_case c = {fx_job(JOB_TFJOB, "mnist", FX_T0), {0}, {0}, 1, 3};
	bool found;
	char *s;

	c.svc[0] =
	    fx_service("mnist-tensorboard", "mnist", "tensorboard", "NodePort", 6006, 31234, "");
	c.nodes[0] = fx_node("node-c", "10.0.0.3", true, 0, 0);
	c.nodes[1] = fx_node("node-a", "10.0.0.1", false, 0, 0); /* not Ready */
	c.nodes[2] = fx_node("node-b", "10.0.0.2", true, 0, 0);
	s = url_of(&c, &found);
	CHECK(found);
	CHECK_STR_EQ(s, "http://10.0.0.2:31234\n");
	free(s);
	/* IPv6 node address: a URL still. */
	fx_set(&c.nodes[2]->internal_ip, "fd00::2");
	s = url_of(&c, &found);
	CHECK_STR_EQ(s, "http://[fd00::2]:31234\n");
	free(s);
	/* No Ready node: no URL. */
	c.nodes[0]->ready = c.nodes[2]->ready = false;
	s = url_of(&c, &found);
	CHECK(!found);
	CHECK_STR_EQ(s, "");
	free(s);
	tb_free(&c);
}

TEST(tensorboard_loadbalancer_ingress)
{
	struct tb_case c = {fx_job(JOB_TFJOB, "mnist", FX_T0), {0}, {0}, 1, 1};
	bool found;
	char *s;

	c.svc[0] = fx_service("mnist-tensorboard", "mnist", "tensorboard", "LoadBalancer", 6006,
	                      31234, "34.1.2.3");
	c.nodes[0] = fx_node("node-a", "10.0.0.1", true, 0, 0);
	s = url_of(&c, &found);
	CHECK_STR_EQ(s, "http://34.1.2.3:6006\n");
	free(s);
	/* A LoadBalancer still waiting for its ingress: the node port rule. */
	fx_set(&c.svc[0]->lb_ingress, "");
	s = url_of(&c, &found);
	CHECK_STR_EQ(s, "http://10.0.0.1:31234\n");
	free(s);
	tb_free(&c);
}

TEST(tensorboard_prefers_role_tensorboard_and_this_job)
{
	struct tb_case c = {fx_job(JOB_TFJOB, "mnist", FX_T0), {0}, {0}, 3, 1};
	bool found;
	char *s;

	c.svc[0] = fx_service("a-other", "mnist", NULL, "NodePort", 80, 30001, "");
	c.svc[1] = fx_service("z-tensorboard", "mnist", "tensorboard", "NodePort", 6006, 30002, "");
	c.svc[2] = fx_service("b-other-job", "mnist2", "tensorboard", "NodePort", 6006, 30003, "");
	c.nodes[0] = fx_node("node-a", "10.0.0.1", true, 0, 0);
	s = url_of(&c, &found);
	CHECK_STR_EQ(s, "http://10.0.0.1:30002\n");
	free(s);
	/* The role=tensorboard one gives no URL (ClusterIP): the next one of the job does. */
	fx_set(&c.svc[1]->type, "ClusterIP");
	c.svc[1]->node_port = 0;
	s = url_of(&c, &found);
	CHECK_STR_EQ(s, "http://10.0.0.1:30001\n");
	free(s);
	/* Same release in another namespace is another job's. */
	fx_set(&c.svc[0]->meta.namespace, "other");
	s = url_of(&c, &found);
	CHECK(!found);
	free(s);
	tb_free(&c);
}

TEST(tensorboard_none_without_services)
{
	struct tb_case c = {fx_job(JOB_TFJOB, "mnist", FX_T0), {0}, {0}, 0, 0};
	bool found;
	char *s = url_of(&c, &found);

	CHECK(!found);
	CHECK_STR_EQ(s, "");
	free(s);
	tb_free(&c);
}
