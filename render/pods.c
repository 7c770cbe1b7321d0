/*
 * The files of jobs/NAME/instances/POD/ (node, ip, gpus; status is in status.c)
 * and the two choices the tree makes for a job's `logs`: which pod (the main
 * instance) and which container of it.
 *
 * The main instance is Arena's chief (pkg/training/trainer_*.go isChiefPod):
 * TF's Chief (or Master), PyTorch's/XGBoost's/Paddle's Master, MPI's and ET's
 * Launcher, Spark's (and Arena's Volcano) driver, Ray's head (where Arena picks
 * the submitter pod, which arenafs does not tie to the job);
 * without one, Worker 0 — also what the training operators mark with
 * training.kubeflow.org/job-role=master. Past Arena (which then needs -i): index 0
 * of any other type but PS/Evaluator (TrainJob's node-0), else any pod. Among
 * equals, a pod not being deleted, then the newest (a retried launcher), then the
 * first by name — so the choice is stable.
 *
 * Pure; tested by tests/unit/test_render_pods.c.
 */
#include "render/pods.h"
#include "render/render.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

void render_pod_node(struct strbuf *sb, const struct pod *pod)
{
	/* The node it is bound to, even while its containers are still being created
	 * (info's NODE column says N/A then, as arena get does). */
	strbuf_puts(sb, pod->node_name[0] ? pod->node_name : RENDER_NA);
	strbuf_putc(sb, '\n');
}

void render_pod_ip(struct strbuf *sb, const struct pod *pod)
{
	strbuf_puts(sb, pod->pod_ip[0] ? pod->pod_ip : RENDER_NA);
	strbuf_putc(sb, '\n');
}

void render_pod_gpus(struct strbuf *sb, const struct pod *pod)
{
	strbuf_printf(sb, "%d\n", pod->gpus);
}

static int container_index(const struct pod *pod, const char *name)
{
	for (size_t i = 0; i < pod->n_containers; i++)
		if (strcmp(pod->containers[i].name, name) == 0)
			return (int)i;
	return -1;
}

int render_pod_main_container(const struct pod *pod)
{
	const char *def =
	    render_kv(&pod->meta.annotations, "kubectl.kubernetes.io/default-container");
	int i;

	if (pod->n_containers == 0)
		return -1;
	if (def && (i = container_index(pod, def)) >= 0)
		return i;
	/* The container the operator requires ("tensorflow", "pytorch"...). When only a
	 * label tied the pod to its job the kind is unknown: any kind's name will do. */
	if (pod->job_kind >= 0 && pod->job_kind < JOB_KIND_COUNT) {
		if ((i = container_index(pod, kinds_info(pod->job_kind)->container)) >= 0)
			return i;
	} else {
		for (int k = 0; k < JOB_KIND_COUNT; k++)
			if ((i = container_index(pod, kinds_info(k)->container)) >= 0)
				return i;
	}
	return 0;
}

enum main_rank { RANK_CHIEF, RANK_WORKER0, RANK_INDEX0, RANK_OTHER };

static enum main_rank pod_rank(const struct pod *p)
{
	const char *t = p->replica_type;

	if (strcmp(t, "chief") == 0 || strcmp(t, "master") == 0 || strcmp(t, "launcher") == 0 ||
	    strcmp(t, "driver") == 0 || strcmp(t, "head") == 0 ||
	    strcmp(p->job_role, "master") == 0 || strcmp(p->job_role, "launcher") == 0)
		return RANK_CHIEF;
	if (strcmp(t, "worker") == 0 && p->replica_index == 0)
		return RANK_WORKER0;
	if (p->replica_index == 0 && strcmp(t, "ps") != 0 && strcmp(t, "evaluator") != 0)
		return RANK_INDEX0;
	return RANK_OTHER;
}

/* True when a should be the main pod rather than b. */
static bool pod_better(const struct pod *a, const struct pod *b)
{
	enum main_rank ra = pod_rank(a), rb = pod_rank(b);

	if (ra != rb)
		return ra < rb;
	if (!a->meta.deleted != !b->meta.deleted)
		return !a->meta.deleted;
	if (a->meta.created != b->meta.created)
		return a->meta.created > b->meta.created;
	return strcmp(a->meta.name, b->meta.name) < 0;
}

int render_job_main_pod(const struct job_view *v)
{
	int best = -1;

	for (size_t i = 0; i < v->n_pods; i++)
		if (best < 0 || pod_better(v->pods[i], v->pods[best]))
			best = (int)i;
	return best;
}
