/*
 * jobs/NAME/why: the one reason the job is where it is, in one line of plain
 * words, from what the cluster already says (the job's conditions, its pods'
 * states, the events of both). The same line heads jobs/NAME/info.
 *
 * The first of these that holds is the answer (a finished job's end outranks
 * what its pods did on the way; a refused pod outranks one still waiting):
 * 1. succeeded: when, and how long it ran;
 * 2. failed: the instance and container that failed, its exit code and reason
 *    (OOMKilled said in words), where its log is, and its last lines below (indented)
 *    when fs/ had them without a request (v->failed_log_tail); else the job's own
 *    message;
 * 3. held by Kueue (queued, preempted, evicted): its LocalQueue and ClusterQueue,
 *    its place in line and Kueue's own message (render_queue_why, queues.c);
 *    else suspended (runPolicy.suspend, TrainJob's spec.suspend): said so, and
 *    that a queue may be what holds it;
 * 4. pods refused: the operator's FailedCreate* event, or that of a batch Job or
 *    JobSet the job owns, which makes its pods (a TrainJob's); a PriorityClass that
 *    does not exist, a quota exceeded; while the job has fewer pods than replicas;
 * 5. an image that cannot be pulled (ErrImagePull, ImagePullBackOff, ...);
 * 6. waiting for the scheduler: its message (which resource, how many nodes lack
 *    it), from the pod's PodScheduled condition, else its FailedScheduling event;
 * 7. a container crashing and restarting (CrashLoopBackOff), or restarted: how
 *    many times, the last exit;
 * 8. pods still starting (ContainerCreating, Init:0/1);
 * 9. no pods yet;
 * 10. running, since when; else the status word and since when; and GPUs it holds
 *     that sat idle the whole of the last 10 minutes (render_job_idle_gpus).
 * Never empty; one line but for a failed log's last lines. Messages from the cluster are made single-line and bounded, so a
 * hostile one cannot forge lines.
 *
 * Pure: ages from v->now. Tested by tests/unit/test_render_why.c; fuzzed by
 * tests/fuzz/fuzz_render.c.
 */
#include "render/why.h"
#include "render/job_gpus.h"
#include "render/job_times.h"
#include "render/status.h"
#include "render/queues.h"
#include "render/text.h"
#include "k8s/base/textsafe.h"

#include <stdio.h>
#include <string.h>

/* The longest message of the cluster quoted: the line stays readable. */
#define WHY_MESSAGE_MAX 512
/* The most lines of a failed instance's log quoted below the line. */
#define WHY_LOG_LINES 5

static void put_msg(struct strbuf *sb, const char *s)
{
	render_put_oneline(sb, s, WHY_MESSAGE_MAX);
}

/* Ends the sentence: a message of the cluster that ends in its own period keeps it. */
static void end_sentence(struct strbuf *sb)
{
	strbuf_puts(sb, sb->len && sb->buf && sb->buf[sb->len - 1] == '.' ? "\n" : ".\n");
}

static void put_time(struct strbuf *sb, int64_t t)
{
	char buf[32];

	strbuf_printf(sb, "%s UTC", render_time_or_na(t, buf, sizeof(buf)));
}

static void put_ago(struct strbuf *sb, int64_t t, int64_t now)
{
	char buf[32];

	strbuf_printf(sb, "%s ago", render_short_duration(now - t, buf, sizeof(buf)));
}

/* "exit code 1 (Error)", "exit code 137: killed for lack of memory (OOMKilled)". */
static void put_exit(struct strbuf *sb, const struct container_state *st)
{
	if (strcmp(st->reason, "OOMKilled") == 0) {
		strbuf_printf(sb, "exit code %d: killed for lack of memory (OOMKilled)",
		              st->exit_code);
		return;
	}
	strbuf_printf(sb, "exit code %d", st->exit_code);
	if (st->reason[0]) {
		strbuf_puts(sb, " (");
		put_msg(sb, st->reason);
		strbuf_putc(sb, ')');
	}
}

static bool failed_state(const struct container_state *st)
{
	return st->kind == CONTAINER_TERMINATED &&
	       (st->exit_code != 0 || strcmp(st->reason, "OOMKilled") == 0);
}

/* The container that failed first: its pod and container. */
static bool first_failure(const struct job_view *v, const struct pod **pod,
                          const struct container **cont, const struct container_state **state)
{
	int64_t best = 0;

	*pod = NULL;
	for (size_t i = 0; i < v->n_pods; i++)
		for (size_t k = 0; k < v->pods[i]->n_containers; k++) {
			const struct container *c = &v->pods[i]->containers[k];
			const struct container_state *st =
			    failed_state(&c->state) ? &c->state
			    : failed_state(&c->last_state) ? &c->last_state : NULL;

			if (st && (!*pod || st->finished < best)) {
				*pod = v->pods[i];
				*cont = c;
				*state = st;
				best = st->finished;
			}
		}
	return *pod != NULL;
}

bool render_job_why_failure(const struct job_view *v, const struct pod **pod,
                            const struct container **c, bool *previous)
{
	const struct container_state *st;

	if (!first_failure(v, pod, c, &st))
		return false;
	*previous = st != &(*c)->state;
	return true;
}

/* Does the tail hold anything but newlines? */
static bool tail_has_text(const char *tail, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (tail[i] != '\n')
			return true;
	return false;
}

/* The last WHY_LOG_LINES lines of the len bytes of tail, each indented, cut at
 * WHY_MESSAGE_MAX bytes and made one safe line (its bytes as written: NUL and what
 * is not UTF-8 shown, not ending it). */
static void put_log_tail(struct strbuf *sb, const char *tail, size_t len)
{
	const char *end = tail + len, *start;
	int lines = 0;

	while (end > tail && end[-1] == '\n')
		end--;
	start = end;
	while (start > tail && lines < WHY_LOG_LINES) {
		start--;
		if (*start == '\n' && ++lines == WHY_LOG_LINES) {
			start++;
			break;
		}
	}
	while (start < end) {
		const char *nl = memchr(start, '\n', (size_t)(end - start));
		size_t n = nl ? (size_t)(nl - start) : (size_t)(end - start);

		strbuf_puts(sb, "    ");
		textsafe_line(sb, start, textsafe_cut(start, n, WHY_MESSAGE_MAX));
		strbuf_putc(sb, '\n');
		start += n + 1;
	}
}

static const struct job_condition *condition(const struct job *job, const char *type)
{
	for (size_t i = 0; i < job->n_conditions; i++)
		if (job->conditions[i].status && strcmp(job->conditions[i].type, type) == 0)
			return &job->conditions[i];
	return NULL;
}

static void put_instance(struct strbuf *sb, const struct pod *p, const struct container *c)
{
	strbuf_puts(sb, "instance ");
	put_msg(sb, p->meta.name);
	if (c && p->n_containers > 1) {
		strbuf_puts(sb, ", container ");
		put_msg(sb, c->name);
	}
}

static void why_succeeded(struct strbuf *sb, const struct job_view *v)
{
	char buf[32];
	int64_t end = render_job_end(v), start = render_job_start(v);

	strbuf_puts(sb, "Succeeded");
	if (end) {
		strbuf_puts(sb, " at ");
		put_time(sb, end);
	}
	if (start && end)
		strbuf_printf(sb, ", after running %s",
		              render_short_duration(end - start, buf, sizeof(buf)));
	end_sentence(sb);
}

static void why_failed(struct strbuf *sb, const struct job_view *v)
{
	const struct pod *p;
	const struct container *c;
	const struct container_state *st;
	const struct job_condition *cond = condition(v->job, "Failed");
	int64_t end = render_job_end(v);

	strbuf_puts(sb, "Failed");
	if (end) {
		strbuf_puts(sb, " at ");
		put_time(sb, end);
	}
	if (first_failure(v, &p, &c, &st)) {
		strbuf_puts(sb, ": ");
		put_instance(sb, p, c);
		strbuf_puts(sb, " ended with ");
		put_exit(sb, st);
		strbuf_puts(sb, "; its log: instances/");
		put_msg(sb, p->meta.name);
		strbuf_puts(sb, st == &c->state ? "/logs" : "/logs.previous");
		if (v->failed_log_tail && tail_has_text(v->failed_log_tail, v->failed_log_tail_len)) {
			strbuf_puts(sb, ", which ends:\n");
			put_log_tail(sb, v->failed_log_tail, v->failed_log_tail_len);
			return;
		}
		end_sentence(sb);
		return;
	}
	if (cond && cond->message[0]) {
		strbuf_puts(sb, ": ");
		put_msg(sb, cond->message);
	} else if (!v->n_pods) {
		strbuf_puts(sb, "; its pods are gone, so which instance failed cannot be told");
	}
	end_sentence(sb);
}

static bool why_suspended(struct strbuf *sb, const struct job_view *v)
{
	const struct job_condition *cond = condition(v->job, "Suspended");

	if (!cond)
		return false;
	strbuf_puts(sb, "Suspended since ");
	put_time(sb, cond->last_transition);
	strbuf_puts(sb, ": no instance runs until it is resumed (by its owner, or by a queue "
	                "such as Kueue admitting it)");
	if (cond->message[0]) {
		strbuf_puts(sb, "; the operator says: ");
		put_msg(sb, cond->message);
	}
	end_sentence(sb);
	return true;
}

static int replicas_wanted(const struct job *job)
{
	int n = 0;

	for (size_t i = 0; i < job->n_replicas; i++)
		n += job->replicas[i].replicas;
	return n;
}

/* The newest event of the job itself, or of an object it owns between it and its
 * pods (a TrainJob's JobSet and batch Job, an MPIJob's launcher Job, whose
 * controllers make the pods), whose reason starts with prefix. */
static const struct event *newest_job_event(const struct job_view *v, const char *prefix)
{
	const struct event *best = NULL;

	for (size_t i = 0; i < v->n_events; i++) {
		const struct event *e = v->events[i];

		/* the view holds the events of the job, of what it owns (fs/tree/view.c
		 * follows the owner chain) and of its pods */
		if (strncmp(e->reason, prefix, strlen(prefix)) != 0 ||
		    strcmp(e->involved_kind, "Pod") == 0 ||
		    (strcmp(e->involved_name, v->job->meta.name) != 0 &&
		     strcmp(e->involved_kind, "Job") != 0 && strcmp(e->involved_kind, "JobSet") != 0))
			continue;
		if (!best || e->last_seen > best->last_seen)
			best = e;
	}
	return best;
}

static bool why_refused(struct strbuf *sb, const struct job_view *v)
{
	size_t live = 0;
	const struct event *e;

	for (size_t i = 0; i < v->n_pods; i++)
		if (!v->pods[i]->meta.deleted)
			live++;
	if ((int)live >= replicas_wanted(v->job) || !(e = newest_job_event(v, "FailedCreate")))
		return false;
	strbuf_printf(sb, "Pods refused: %zu of %d instances exist; the operator could not create "
	                  "the others: ",
	              live, replicas_wanted(v->job));
	put_msg(sb, e->message);
	strbuf_puts(sb, " (");
	put_msg(sb, e->reason);
	if (e->count > 1)
		strbuf_printf(sb, ", %d times", e->count);
	strbuf_puts(sb, ", last ");
	put_ago(sb, e->last_seen, v->now);
	strbuf_puts(sb, ").\n");
	return true;
}

static bool pull_failure(const char *reason)
{
	static const char *const reasons[] = {"ErrImagePull", "ImagePullBackOff", "InvalidImageName",
	                                      "ErrImageNeverPull", "RegistryUnavailable",
	                                      "ImageInspectError"};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reason, reasons[i]) == 0)
			return true;
	return false;
}

static bool why_image(struct strbuf *sb, const struct job_view *v)
{
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];

		for (size_t k = 0; k < p->n_init_containers + p->n_containers; k++) {
			const struct container *c = k < p->n_init_containers
			                                ? &p->init_containers[k]
			                                : &p->containers[k - p->n_init_containers];

			if (c->state.kind != CONTAINER_WAITING || !pull_failure(c->state.reason))
				continue;
			strbuf_puts(sb, "Image cannot be pulled: ");
			put_instance(sb, p, c);
			strbuf_puts(sb, " waits for image ");
			put_msg(sb, c->image);
			strbuf_puts(sb, " (");
			put_msg(sb, c->state.reason);
			if (c->state.message[0]) {
				strbuf_puts(sb, ": ");
				put_msg(sb, c->state.message);
			}
			strbuf_puts(sb, ").\n");
			return true;
		}
	}
	return false;
}

/* The scheduler's message for an unbound pod: its PodScheduled condition's, else its
 * newest FailedScheduling event's. */
static const char *scheduler_message(const struct job_view *v, const struct pod *p)
{
	const struct event *best = NULL;

	if (p->unschedulable[0])
		return p->unschedulable;
	for (size_t i = 0; i < v->n_events; i++) {
		const struct event *e = v->events[i];

		if (strcmp(e->reason, "FailedScheduling") == 0 &&
		    strcmp(e->involved_kind, "Pod") == 0 &&
		    strcmp(e->involved_name, p->meta.name) == 0 &&
		    (!best || e->last_seen > best->last_seen))
			best = e;
	}
	return best ? best->message : NULL;
}

static bool why_unscheduled(struct strbuf *sb, const struct job_view *v)
{
	char age[32];
	const struct pod *first = NULL;
	const char *msg = NULL;
	size_t waiting = 0;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];
		const char *m;

		if (p->phase != POD_PENDING || p->node_name[0] || p->meta.deleted ||
		    !(m = scheduler_message(v, p)))
			continue;
		if (!first) {
			first = p;
			msg = m;
		}
		waiting++;
	}
	if (!first)
		return false;
	strbuf_puts(sb, "Waiting for the scheduler: ");
	put_instance(sb, first, NULL);
	if (waiting > 1)
		strbuf_printf(sb, " and %zu more", waiting - 1);
	strbuf_printf(sb, "%s, pending %s: ", waiting > 1 ? " wait" : " waits",
	              render_short_duration(first->meta.created ? v->now - first->meta.created : 0,
	                                    age, sizeof(age)));
	put_msg(sb, msg);
	strbuf_puts(sb, "\n");
	return true;
}

/* The container restarted most, with its count; NULL when none restarted. */
static const struct container *most_restarted(const struct job_view *v, const struct pod **pod,
                                              int *total)
{
	const struct container *best = NULL;

	*total = 0;
	for (size_t i = 0; i < v->n_pods; i++)
		for (size_t k = 0; k < v->pods[i]->n_containers; k++) {
			const struct container *c = &v->pods[i]->containers[k];

			*total += c->restart_count;
			if (c->restart_count > 0 && (!best || c->restart_count > best->restart_count)) {
				best = c;
				*pod = v->pods[i];
			}
		}
	return best;
}

static void put_last_exit(struct strbuf *sb, const struct container *c, int64_t now)
{
	if (c->last_state.kind != CONTAINER_TERMINATED)
		return;
	strbuf_puts(sb, "; the last ended with ");
	put_exit(sb, &c->last_state);
	if (c->last_state.finished) {
		strbuf_puts(sb, " ");
		put_ago(sb, c->last_state.finished, now);
	}
}

static bool why_crashing(struct strbuf *sb, const struct job_view *v)
{
	for (size_t i = 0; i < v->n_pods; i++)
		for (size_t k = 0; k < v->pods[i]->n_containers; k++) {
			const struct pod *p = v->pods[i];
			const struct container *c = &p->containers[k];

			if (c->state.kind != CONTAINER_WAITING ||
			    strcmp(c->state.reason, "CrashLoopBackOff") != 0)
				continue;
			strbuf_puts(sb, "Crashing: ");
			put_instance(sb, p, c);
			strbuf_printf(sb, " has restarted %d time%s and waits to start again "
			                  "(CrashLoopBackOff)",
			              c->restart_count, c->restart_count == 1 ? "" : "s");
			put_last_exit(sb, c, v->now);
			strbuf_puts(sb, "; its log before: instances/");
			put_msg(sb, p->meta.name);
			strbuf_puts(sb, "/logs.previous.\n");
			return true;
		}
	return false;
}

/* Pending pods that are bound: the first one's waiting reason (ContainerCreating,
 * Init:0/1, PodInitializing) from kubectl's status word. */
static bool why_starting(struct strbuf *sb, const struct job_view *v)
{
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];
		char word[128];

		if (p->phase != POD_PENDING || p->meta.deleted)
			continue;
		strbuf_puts(sb, "Starting: ");
		put_instance(sb, p, NULL);
		strbuf_puts(sb, p->node_name[0] ? " is " : " is not yet scheduled, ");
		put_msg(sb, render_pod_status_word(p, word, sizeof(word)));
		if (p->node_name[0]) {
			strbuf_puts(sb, " on node ");
			put_msg(sb, p->node_name);
		}
		strbuf_puts(sb, ", created ");
		put_ago(sb, p->meta.created, v->now);
		end_sentence(sb);
		return true;
	}
	return false;
}

static void why_running(struct strbuf *sb, const struct job_view *v, const char *word)
{
	const struct pod *p = NULL;
	const struct container *c;
	int64_t start = render_job_start(v);
	int total;

	if (strcmp(word, "RUNNING") == 0)
		strbuf_puts(sb, "Running");
	else
		put_msg(sb, word);
	if (start) {
		char buf[32];

		strbuf_puts(sb, " since ");
		put_time(sb, start);
		strbuf_printf(sb, " (%s)", render_short_duration(v->now - start, buf, sizeof(buf)));
	}
	strbuf_printf(sb, ", %zu instance%s", v->n_pods, v->n_pods == 1 ? "" : "s");
	c = most_restarted(v, &p, &total);
	if (c && total == c->restart_count) {
		strbuf_puts(sb, "; ");
		put_instance(sb, p, c);
		strbuf_printf(sb, " restarted %d time%s", total, total == 1 ? "" : "s");
		put_last_exit(sb, c, v->now);
	} else if (c) {
		strbuf_printf(sb, "; restarted %d times in all, most ", total);
		put_instance(sb, p, c);
		strbuf_printf(sb, " (%d)", c->restart_count);
		put_last_exit(sb, c, v->now);
	}
	render_job_idle_gpus(sb, v);
	end_sentence(sb);
}

static void why_no_pods(struct strbuf *sb, const struct job_view *v)
{
	strbuf_puts(sb, "No instance yet: created ");
	put_ago(sb, v->job->meta.created, v->now);
	strbuf_puts(sb, ", the operator has made no pod for it");
	strbuf_puts(sb, " (its events: events).\n");
}

void render_job_why(struct strbuf *sb, const struct job_view *v)
{
	const char *word = render_job_status_word(v);

	if (strcmp(word, "SUCCEEDED") == 0) {
		why_succeeded(sb, v);
		return;
	}
	if (strcmp(word, "FAILED") == 0) {
		why_failed(sb, v);
		return;
	}
	if (render_queue_why(sb, &v->queue, v->now) || why_suspended(sb, v) || why_refused(sb, v) || why_image(sb, v) ||
	    why_unscheduled(sb, v) || why_crashing(sb, v) || why_starting(sb, v))
		return;
	if (v->n_pods == 0 && strcmp(word, "RUNNING") != 0) {
		why_no_pods(sb, v);
		return;
	}
	why_running(sb, v, word);
}
