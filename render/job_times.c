/*
 * When a job started and ended (job_times.h): Duration from status.startTime (MPI
 * and TrainJob: the creation, as Arena times them) to completionTime, or to the
 * final condition's transition, or, for MPI's launcher alone, to when its pods'
 * containers finished. docs/tree.md, "jobs/NAME/info", says the same to users.
 *
 * Pure; tested by tests/unit/test_render_job_times.c.
 */
#include "render/job_times.h"
#include "render/status.h"
#include "k8s/objects/kinds.h"

#include <string.h>

bool render_job_ended(const struct job_view *v)
{
	const char *w = render_job_status_word(v);

	return strcmp(w, "SUCCEEDED") == 0 || strcmp(w, "FAILED") == 0;
}

int64_t render_job_start(const struct job_view *v)
{
	const struct job *job = v->job;

	if (job->start_time)
		return job->start_time;
	/* Arena's MPI and label-found kinds count from the creation */
	if (kinds_info(job->kind)->status_rule != STATUS_CONDITIONS)
		return job->meta.created;
	return 0;
}

static int64_t latest_finish_of_pods(const struct job_view *v)
{
	int64_t t = 0;

	for (size_t i = 0; i < v->n_pods; i++)
		for (size_t c = 0; c < v->pods[i]->n_containers; c++) {
			const struct container_state *st = &v->pods[i]->containers[c].state;

			if (st->kind == CONTAINER_TERMINATED && st->finished > t)
				t = st->finished;
		}
	return t;
}

int64_t render_job_end(const struct job_view *v)
{
	const char *status = render_job_status_word(v);
	const struct job *job = v->job;
	int64_t t = 0;

	if (strcmp(status, "SUCCEEDED") != 0 && strcmp(status, "FAILED") != 0)
		return 0;
	if (job->completion_time)
		return job->completion_time;
	for (size_t i = 0; i < job->n_conditions; i++) {
		const struct job_condition *c = &job->conditions[i];

		if (c->status &&
		    (strcmp(c->type, "Succeeded") == 0 || strcmp(c->type, "Failed") == 0 ||
		     strcmp(c->type, "Complete") == 0) &&
		    c->last_transition > t)
			t = c->last_transition;
	}
	/* MPI from its launcher pod alone: when that pod's containers ended. */
	return t ? t : latest_finish_of_pods(v);
}

int64_t render_job_duration(const struct job_view *v)
{
	int64_t start = render_job_start(v), end;

	/* never started: its wait, so that a job queued 5m does not read 0s */
	if (!start)
		start = v->job->meta.created;
	if (!start)
		return 0;
	end = render_job_end(v);
	return (end ? end : v->now) - start;
}
