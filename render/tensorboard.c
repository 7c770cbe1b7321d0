/*
 * jobs/NAME/tensorboard_url: Arena's rule (pkg/training/tensorboard.go).
 *
 * The job's TensorBoard is a Service in its namespace labelled release=<job>;
 * one also labelled role=tensorboard (what `arena submit --tensorboard` and
 * arenafs create) is preferred, then by name. Its URL:
 * - type LoadBalancer with an ingress: http://<ingress>:<spec.ports[0].port>;
 * - else http://<InternalIP of the first Ready node>:<spec.ports[0].nodePort>,
 *   "first" in name order (the API server's list order, which Arena used).
 * A Service that gives no URL (no nodePort, no Ready node with an InternalIP) is
 * passed over for the next one; with none, the job has no tensorboard_url.
 * Departure: IPv6 addresses are put in brackets, so the URL is one.
 *
 * Pure; tested by tests/unit/test_render_tensorboard.c.
 */
#include "render/tensorboard.h"
#include "render/render.h"
#include "render/text.h"

#include <stdlib.h>
#include <string.h>

static bool service_of_job(const struct service *s, const struct job *job)
{
	const char *release = render_kv(&s->meta.labels, "release");

	return release && strcmp(release, job->meta.name) == 0 &&
	       strcmp(s->meta.namespace, job->meta.namespace) == 0;
}

static bool is_tensorboard(const struct service *s)
{
	const char *role = render_kv(&s->meta.labels, "role");

	return role && strcmp(role, "tensorboard") == 0;
}

static int service_cmp(const void *a, const void *b)
{
	const struct service *sa = *(const struct service *const *)a;
	const struct service *sb = *(const struct service *const *)b;

	if (is_tensorboard(sa) != is_tensorboard(sb))
		return is_tensorboard(sa) ? -1 : 1;
	return strcmp(sa->meta.name, sb->meta.name);
}

/* The first Ready node with an InternalIP, by name; NULL when none. */
static const struct k8s_node *first_ready_node(const struct job_view *v)
{
	const struct k8s_node *best = NULL;

	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct k8s_node *n = v->nodes[i];

		if (n->ready && n->internal_ip[0] &&
		    (!best || strcmp(n->meta.name, best->meta.name) < 0))
			best = n;
	}
	return best;
}

/* Appends the service's URL; false (nothing appended) when it gives none. */
static bool service_url(struct strbuf *sb, const struct service *s, const struct job_view *v)
{
	const struct k8s_node *node;

	if (strcmp(s->type, "LoadBalancer") == 0 && s->lb_ingress[0] && s->port > 0) {
		strbuf_puts(sb, "http://");
		render_put_url_host(sb, s->lb_ingress);
		strbuf_printf(sb, ":%d\n", s->port);
		return true;
	}
	if (s->node_port <= 0 || !(node = first_ready_node(v)))
		return false;
	strbuf_puts(sb, "http://");
	render_put_url_host(sb, node->internal_ip);
	strbuf_printf(sb, ":%d\n", s->node_port);
	return true;
}

bool render_job_tensorboard_url(struct strbuf *sb, const struct job_view *v)
{
	const struct service **cand;
	size_t n = 0;
	bool found = false;

	if (v->n_services == 0)
		return false;
	cand = malloc(v->n_services * sizeof(*cand));
	if (!cand) {
		sb->oom = true;
		return false;
	}
	for (size_t i = 0; i < v->n_services; i++)
		if (service_of_job(v->services[i], v->job))
			cand[n++] = v->services[i];
	if (n)
		qsort(cand, n, sizeof(*cand), service_cmp);
	for (size_t i = 0; i < n && !found; i++)
		found = service_url(sb, cand[i], v);
	free(cand);
	return found;
}
