/*
 * Status words: a job's (Arena's mapping — the ONE function behind jobs/NAME/status,
 * info, and anything else that shows a job's status) and a pod's (kubectl's STATUS
 * column, which Arena shows for instances).
 *
 * Job status, from Arena 0.15 (pkg/training/trainer_*.go, get_advanced.go):
 * - training-operator kinds (TFJob, PyTorchJob, XGBoostJob, PaddleJob, JAXJob):
 *   the first condition that is True in the order Succeeded → SUCCEEDED,
 *   Failed → FAILED, Running → RUNNING, Queuing → QUEUING; else PENDING. (The
 *   order is a priority, not the list order: a job keeps Running=False next to
 *   Succeeded=True, and a restarted one may list Failed before Running.)
 * - MPIJob (v1 and v2beta1): Arena reads the launcher — the job's own final word
 *   first (Succeeded/Failed conditions, where Arena read launcherStatus), then the
 *   launcher pod (the newest one: a v2beta1 launcher Job may retry): none or
 *   Pending → PENDING, Succeeded → SUCCEEDED, Failed → FAILED, else RUNNING.
 * - TrainJob (Arena has none): Complete → SUCCEEDED, Failed → FAILED; else RUNNING
 *   once a pod runs or has finished, PENDING before.
 * - every kind that can be suspended (kinds.h suspend_field): SUSPENDED when its
 *   condition Suspended is True and it has not ended (Succeeded, Complete, Failed
 *   come first). Arena has no such word (it shows PENDING: it reads only
 *   Succeeded, Failed, Running); arenafs says what the operator says, since a
 *   user who wrote jobs/NAME/suspend waits for exactly this word. The word follows
 *   the condition (the watch), not the spec: between the write and the
 *   operator's answer the job keeps its old word.
 * - Volcano Job, SparkApplication, RayJob: one state string (state.phase,
 *   applicationState.state, jobStatus) through the kind's words (kinds.c); a value
 *   Arena does not name is shown as it is ("Aborted", "STOPPED").
 * - ETJob (et-operator's TrainingJob, also Arena's DeepSpeedJob): status.phase
 *   Succeeded → SUCCEEDED, Failed → FAILED; then PENDING while the launcher pod is
 *   missing or Pending; then Scaling → SCALING, Failed with the annotation
 *   job-supervisor.kube-ai.io/job-status=timeout → MAX_WAIT_TIME_EXCEEDED, else
 *   RUNNING.
 * - every kind: RUNNING becomes PENDING while any of its pods is Pending (Arena's
 *   GetJobRealStatus, which turned a half-scheduled gang job into PENDING).
 *
 * Pure; no clock. Tested by tests/unit/test_render_status.c.
 */
#include "render/status.h"
#include "render/queues.h"
#include "render/render.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

static bool job_condition_true(const struct job *job, const char *type)
{
	for (size_t i = 0; i < job->n_conditions; i++)
		if (job->conditions[i].status && job->conditions[i].type &&
		    strcmp(job->conditions[i].type, type) == 0)
			return true;
	return false;
}

static bool pod_is_launcher(const struct pod *p)
{
	return strcmp(p->replica_type, "launcher") == 0 || strcmp(p->job_role, "launcher") == 0;
}

/* The newest launcher pod, or NULL. */
static const struct pod *mpi_launcher(const struct job_view *v)
{
	const struct pod *best = NULL;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];

		if (!pod_is_launcher(p))
			continue;
		if (!best || p->meta.created > best->meta.created ||
		    (p->meta.created == best->meta.created &&
		     strcmp(p->meta.name, best->meta.name) > 0))
			best = p;
	}
	return best;
}

static const char *mpi_status(const struct job_view *v)
{
	const struct pod *launcher;

	if (job_condition_true(v->job, "Succeeded"))
		return "SUCCEEDED";
	if (job_condition_true(v->job, "Failed"))
		return "FAILED";
	if (job_condition_true(v->job, "Suspended"))
		return "SUSPENDED";
	launcher = mpi_launcher(v);
	if (!launcher || launcher->phase == POD_PENDING)
		return "PENDING";
	if (launcher->phase == POD_SUCCEEDED)
		return "SUCCEEDED";
	if (launcher->phase == POD_FAILED)
		return "FAILED";
	return "RUNNING";
}

static const char *trainjob_status(const struct job_view *v)
{
	if (job_condition_true(v->job, "Complete"))
		return "SUCCEEDED";
	if (job_condition_true(v->job, "Failed"))
		return "FAILED";
	if (job_condition_true(v->job, "Suspended"))
		return "SUSPENDED";
	for (size_t i = 0; i < v->n_pods; i++)
		if (v->pods[i]->phase == POD_RUNNING || v->pods[i]->phase == POD_SUCCEEDED)
			return "RUNNING";
	return "PENDING";
}

#define ET_TIMEOUT_ANNOTATION "job-supervisor.kube-ai.io/job-status"

/* The kind's word for job->state: NULL when the kind has none for it. */
static const char *state_word(const struct job *job)
{
	const struct job_state_word *w = kinds_info(job->kind)->state_words;

	for (; w && w->state; w++)
		if (strcmp(w->state, job->state) == 0)
			return w->word;
	return NULL;
}

static const char *state_status(const struct job_view *v)
{
	const char *word = state_word(v->job);

	return word ? word : v->job->state;
}

static const char *state_chief_status(const struct job_view *v)
{
	const char *word = state_word(v->job);
	const char *timeout = render_kv(&v->job->meta.annotations, ET_TIMEOUT_ANNOTATION);
	const struct pod *launcher;

	if (word && strcmp(word, "FAILED") == 0 && timeout && strcmp(timeout, "timeout") == 0)
		word = "MAX_WAIT_TIME_EXCEEDED";
	if (word && (strcmp(word, "SUCCEEDED") == 0 || strcmp(word, "FAILED") == 0))
		return word;
	launcher = mpi_launcher(v);
	if (!launcher || launcher->phase == POD_PENDING)
		return "PENDING";
	return word ? word : "RUNNING";
}

static const char *operator_status(const struct job_view *v)
{
	if (job_condition_true(v->job, "Succeeded"))
		return "SUCCEEDED";
	if (job_condition_true(v->job, "Failed"))
		return "FAILED";
	if (job_condition_true(v->job, "Suspended"))
		return "SUSPENDED";
	if (job_condition_true(v->job, "Running"))
		return "RUNNING";
	if (job_condition_true(v->job, "Queuing"))
		return "QUEUING";
	return "PENDING";
}

const char *render_job_status_word(const struct job_view *v)
{
	const char *word;

	switch (kinds_info(v->job->kind)->status_rule) {
	case STATUS_MPI_LAUNCHER:
		word = mpi_status(v);
		break;
	case STATUS_TRAINJOB:
		word = trainjob_status(v);
		break;
	case STATUS_STATE:
		word = state_status(v);
		break;
	case STATUS_STATE_CHIEF:
		word = state_chief_status(v);
		break;
	default:
		word = operator_status(v);
		break;
	}
	/* Kueue holds it: its word outranks the SUSPENDED or PENDING its suspend brings,
	 * never an end */
	if (strcmp(word, "SUCCEEDED") != 0 && strcmp(word, "FAILED") != 0 &&
	    render_queue_word(&v->queue))
		return render_queue_word(&v->queue);
	if (strcmp(word, "RUNNING") == 0)
		for (size_t i = 0; i < v->n_pods; i++)
			if (v->pods[i]->phase == POD_PENDING)
				return "PENDING";
	return word;
}

void render_job_status(struct strbuf *sb, const struct job_view *v)
{
	strbuf_puts(sb, render_job_status_word(v));
	strbuf_putc(sb, '\n');
}

static const char *pod_phase_name(enum pod_phase phase)
{
	switch (phase) {
	case POD_PENDING:
		return "Pending";
	case POD_RUNNING:
		return "Running";
	case POD_SUCCEEDED:
		return "Succeeded";
	case POD_FAILED:
		return "Failed";
	default:
		return "Unknown";
	}
}

/* The init containers' part of kubectl's STATUS; true when one is still at work. */
static bool init_status(const struct pod *pod, char *buf, size_t size)
{
	for (size_t i = 0; i < pod->n_init_containers; i++) {
		const struct container_state *st = &pod->init_containers[i].state;

		/* kubectl walks status.initContainerStatuses: an unreported one is absent. */
		if (st->kind == CONTAINER_NONE)
			continue;
		if (st->kind == CONTAINER_TERMINATED && st->exit_code == 0)
			continue;
		if (st->kind == CONTAINER_TERMINATED && st->reason[0])
			snprintf(buf, size, "Init:%s", st->reason);
		else if (st->kind == CONTAINER_TERMINATED)
			snprintf(buf, size, "Init:ExitCode:%d", st->exit_code);
		else if (st->kind == CONTAINER_WAITING && st->reason[0] &&
		         strcmp(st->reason, "PodInitializing") != 0)
			snprintf(buf, size, "Init:%s", st->reason);
		else
			snprintf(buf, size, "Init:%zu/%zu", i, pod->n_init_containers);
		return true;
	}
	return false;
}

/* The containers' part: the first container (in spec order) that waits or ended
 * with a reason names the status, as kubectl's reverse walk leaves it. */
static void containers_status(const struct pod *pod, char *buf, size_t size)
{
	bool has_running = false;

	for (size_t i = pod->n_containers; i-- > 0;) {
		const struct container *c = &pod->containers[i];
		const struct container_state *st = &c->state;

		if (st->kind == CONTAINER_WAITING && st->reason[0])
			snprintf(buf, size, "%s", st->reason);
		else if (st->kind == CONTAINER_TERMINATED && st->reason[0])
			snprintf(buf, size, "%s", st->reason);
		else if (st->kind == CONTAINER_TERMINATED)
			snprintf(buf, size, "ExitCode:%d", st->exit_code);
		else if (c->ready && st->kind == CONTAINER_RUNNING)
			has_running = true;
	}
	/* A sidecar still running keeps a pod whose main container completed Running. */
	if (has_running && strcmp(buf, "Completed") == 0)
		snprintf(buf, size, "Running");
}

const char *render_pod_status_word(const struct pod *pod, char *buf, size_t size)
{
	snprintf(buf, size, "%s", pod->reason[0] ? pod->reason : pod_phase_name(pod->phase));
	if (!init_status(pod, buf, size))
		containers_status(pod, buf, size);
	if (pod->meta.deleted)
		snprintf(buf, size, "%s",
		         strcmp(pod->reason, "NodeLost") == 0 ? "Unknown" : "Terminating");
	return buf;
}

void render_pod_status(struct strbuf *sb, const struct pod *pod)
{
	char buf[128];

	render_put_oneline(sb, render_pod_status_word(pod, buf, sizeof(buf)), 0);
	strbuf_putc(sb, '\n');
}
