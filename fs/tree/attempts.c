/*
 * The attempts of a pod's main container (attempts.h; docs/tree.md,
 * "instances/POD/attempts/"). Attempt N is the container instance of
 * restartCount N-1. While the pod lives its status says how many there were:
 * 1..restartCount have ended, and restartCount+1 is the current one once it has
 * run (running or terminated; a container waiting to start again is no attempt
 * yet). What the status no longer says (an attempt before the last) comes from
 * the copy kept on disk, or the record of one dropped; an attempt known by its
 * number alone says how little is known. Once the pod is gone, its attempts are
 * those kept or dropped.
 *
 * Under the cache's read lock: v's strings point into the cache's pod and into the
 * copies of kept entries this holds.
 *
 * It is handed the job and pod (model.c's model_attempts finds them for a node), so
 * that it calls nothing of the path model that calls it: no circle of calls.
 */
#include "fs/tree/attempts.h"
#include "fs/logs/logkeep.h"
#include "k8s/base/timefmt.h"
#include "render/pods.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void attempts_free(struct attempts *a)
{
	free(a->v);
	if (a->kept)
		logkeep_entries_free(a->kept, a->n_kept);
	memset(a, 0, sizeof(*a));
}

const struct attempt_view *attempts_find(const struct attempts *a, int number)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].number == number)
			return &a->v[i];
	return NULL;
}

/* The kept (else dropped) copy of instance of container, or NULL. */
static const struct logkeep_entry *copy_of(const struct attempts *a, const char *container,
					   int instance)
{
	const struct logkeep_entry *found = NULL;

	for (size_t i = 0; i < a->n_kept; i++) {
		const struct logkeep_entry *e = a->kept[i];

		if (e->meta.instance != instance || strcmp(e->meta.container, container) != 0)
			continue;
		if (!found || (found->dropped && !e->dropped))
			found = e;
	}
	return found;
}

static void from_state(struct attempt_view *v, const struct container_state *st)
{
	v->running = st->kind == CONTAINER_RUNNING;
	v->known = st->kind == CONTAINER_TERMINATED;
	v->exit_code = st->exit_code;
	v->reason = st->reason;
	v->started = st->started;
	v->finished = st->finished;
}

/* Fills v (its number set) from its copy, when the pod's status no longer says. */
static void from_copy(struct attempt_view *v, const struct logkeep_entry *e, bool state)
{
	if (!e)
		return;
	if (state) {
		v->known = e->meta.started > 0 || e->meta.reason[0];
		v->exit_code = e->meta.exit_code;
		v->reason = e->meta.reason;
		v->started = e->meta.started;
		v->finished = e->meta.finished;
	}
	if (!e->dropped) {
		v->log = ATTEMPT_LOG_KEPT;
		v->size = e->size;
	} else {
		v->log = e->dropped_why == EFBIG ? ATTEMPT_LOG_TOO_BIG : ATTEMPT_LOG_DROPPED;
		v->dropped = e->dropped;
	}
}

int attempts_of(struct fs *fs, const struct job *job, const struct pod *pod, const char *pod_uid,
		struct attempts *out)
{
	const struct container *c = NULL;
	const char *container = NULL;
	size_t cap = 0;
	int last = -1, ci;

	memset(out, 0, sizeof(*out));
	if (!job || !pod_uid)
		return 0;
	if (fs->kept_logs)
		out->n_kept = logkeep_of_pod(fs->kept_logs, job->meta.namespace, job->kind,
					     job->meta.name, job->meta.uid, pod_uid, &out->kept);
	ci = pod ? render_pod_main_container(pod) : -1;
	if (ci >= 0) {
		c = &pod->containers[ci];
		container = c->name;
		last = c->restart_count - 1;
		if (c->state.kind == CONTAINER_RUNNING || c->state.kind == CONTAINER_TERMINATED)
			last = c->restart_count;
	} else if (!pod) {
		/* gone: the container of its newest copy, and that copy's instance */
		for (size_t i = 0; i < out->n_kept; i++)
			if (!container || out->kept[i]->meta.instance > last) {
				container = out->kept[i]->meta.container;
				last = out->kept[i]->meta.instance;
			}
	}
	if (last < 0)
		return 0;
	cap = c ? (size_t)last + 1 : out->n_kept;
	out->v = calloc(cap, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (int instance = 0; instance <= last; instance++) {
		const struct logkeep_entry *e = copy_of(out, container, instance);
		struct attempt_view *v;

		if (!c && !e)
			continue;   /* gone: only what was kept or dropped */
		if (out->n == cap)
			break;
		v = &out->v[out->n++];
		v->number = instance + 1;
		v->of = c ? last + 1 : 0;
		v->container = container;
		v->keep_logs = fs->kept_logs ? fs->opts.keep_logs : 0;
		v->now = time_now();
		v->log = ATTEMPT_LOG_LOST;
		if (c && instance == c->restart_count) {
			from_state(v, &c->state);
			v->log = ATTEMPT_LOG_SERVED;
		} else if (c && instance == c->restart_count - 1 &&
			   c->last_state.kind == CONTAINER_TERMINATED) {
			from_state(v, &c->last_state);
			v->log = ATTEMPT_LOG_SERVED;
		}
		from_copy(v, e, !v->known && !v->running);
		/* the running attempt's log is its live one, kept or not */
		if (v->running)
			v->log = ATTEMPT_LOG_SERVED;
	}
	return 0;   /* oldest first, as made */
}
