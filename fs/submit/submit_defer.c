/*
 * A copied folder's job, made once its copy is over (submit_defer.h).
 *
 * Design note: why a copied folder waits.
 *
 * `cp -r mnist/ submit/` closes spec.yaml before it copies train.py (cp goes in
 * the source directory's order), and FUSE tells no "end of copy": the kernel
 * sends each file's create, writes and release, and nothing after the last. So
 * the job of submit/NAME/spec.yaml cannot be created at that close without
 * losing the code that follows, and there is no later moment the daemon is told
 * of. What stands for "the copy is over" is three facts at once: no file below
 * submit/NAME/ open for writing (staging.c counts each open that writes),
 * nothing created, written or renamed there for STAGING_QUIET_MS (500 ms;
 * staging.c stamps each entry's last change on the monotonic clock), and every
 * process that wrote there ended (writers.h asks /proc; one that goes on
 * running, a notebook or a file manager, counts as done after STAGING_STAY_MS of
 * quiet, and one that looks up jobs/NAME counts as done at once). Quiet alone
 * was the rule until issue 33: a `tar x` that paused a second in the middle of a
 * file shipped its first part, and one that paused between two files left the
 * second out. A file whose writer was killed half-way fails the folder's copy:
 * no job is made from part of it. What shipped is checked byte for byte against
 * what was taken (the ConfigMap the API server stored), and the folder against
 * what was taken (a change meanwhile undoes the job).
 *
 * What the user still sees at close(2): the close of the spec checks it (parse,
 * validate, the dry runs, submit.c): a bad spec fails that close with its errno,
 * as a single file's would, and is not queued. A good one is queued here; its
 * status reads "submitting" until this thread takes the code (staging_take_code:
 * every file below NAME/ at that moment, at once) and makes the job (submit_run,
 * dry runs again with the code, then the objects, undone on failure); then
 * status and error say how it went, as a direct submission's do. A file written
 * after that changes nothing: the code was taken.
 *
 * The rules that follow from it:
 * - one thread makes them, one at a time, the first quiet one of the queue
 *   first; a spec written again before its copy was over replaces its first
 *   submission (the second close checked the newer text);
 * - a folder removed before it was quiet makes nothing (logged); one whose copy
 *   had a name that could not be made (a link, a special file) fails as a whole,
 *   never a job made from part of it (staging_copy_failed);
 * - a lookup of jobs/NAME while NAME waits here waits for it, at most
 *   SUBMIT_DEFER_WAIT_MS (submit_defer_wait; each job made wakes every waiter,
 *   which looks again), so `cp -r mnist/ submit/ && cat jobs/mnist/status`
 *   shows the job; check/'s entries make no job and are not waited for;
 * - at unmount the thread stops and what still waits is dropped, each one said
 *   in the daemon's log, nothing made (submit_defer_stop).
 *
 * One unit with submit.c: submit.c queues a folder's spec here at its close
 * (submit_defer_add), and this file records the outcome through submit.c's own
 * record keeping (submit_area_path, submit_note_made, submit_record_checked), so
 * that a deferred submission and a direct one write status, error and the job's
 * note in one way. The two are one unit split for size: the calls run both ways
 * on purpose (tests/tools/check_layers.py's ONE_UNIT).
 *
 * Locks: w.mu guards the queue, `running` and `finished`. Under it next_ready
 * asks each queued entry how long it has been quiet, which takes an area table's
 * lock and then that staging tree's lock (areas.c, staging.c); those take
 * nothing of this file. make_one runs with no lock held (it waits on the
 * network); no FUSE request is answered under w.mu.
 *
 * Tested by tests/unit/test_fs_submit_defer.c and, through a mount,
 * tests/integration/test_submit_code.py and test_submit_writers.py.
 */
#include "fs/submit/submit_defer.h"
#include "fs/submit/submit_run.h"
#include "fs/submit/submit.h"
#include "fs/submit/areas.h"
#include "fs/submit/writers.h"
#include "k8s/base/say.h"
#include "k8s/base/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "fs/submit/staging.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

struct pending {
	struct pending *next;
	char *ns; /* where it is made */
	bool check; /* check/'s: dry-run with its code, nothing made */
	struct staging_submission sub;
};

struct submit_defer {
	struct fs *fs;
	struct worker w;         /* the thread (w.cond: a new submission, or stop); w.mu
	                            guards what follows */
	pthread_cond_t finished; /* one was made (or failed) */
	struct pending *queue;
	struct pending *running;
};

static void pending_free(struct pending *p)
{
	if (!p)
		return;
	staging_submission_clear(&p->sub);
	free(p->ns);
	free(p);
}

/* Takes the code and makes the job of p, recording the outcome in its entry. */
static struct staging *pending_area(struct fs *fs, const struct pending *p)
{
	return areas_get(p->check ? fs->check_areas : fs->areas, p->ns, false);
}

/* What a folder's make checks before it reports: its files are still the code taken. */
struct still {
	struct staging *st;
	const char *entry;
	const struct staging_code *taken;
};

static int still_staged(void *arg, struct k8s_error *err)
{
	const struct still *s = arg;
	struct staging_code now;
	char which[512] = "";
	bool same;

	if (staging_take_code(s->st, s->entry, &now) < 0)
		return k8s_error_set(err, EBUSY, "the folder changed while its job was being made; "
		                     "copy it again");
	same = staging_code_equal(s->taken, &now, which, sizeof(which));
	staging_code_clear(&now);
	if (same)
		return 0;
	return k8s_error_set(err, EBUSY,
	                     "the folder changed while its job was being made (%s), so the job "
	                     "would not run what submit/ shows; copy it again", which);
}

static void make_one(struct fs *fs, struct pending *p)
{
	struct staging *st = pending_area(fs, p);
	struct staging_code code;
	struct k8s_error err;
	struct submit_made made = {"", 0, "", ""};
	struct strbuf objects = STRBUF_INIT;
	struct still still = {st, p->sub.entry, &code};
	struct submit_request rq = {p->ns, p->sub.text, p->sub.len, p->sub.default_name, p->check,
	                            p->check ? &objects : NULL, &code, &made, still_staged,
	                            &still};
	char where[320];
	int ret;

	k8s_error_clear(&err);
	submit_area_path(fs, p->ns, p->check, where, sizeof(where));
	if (st)
		staging_busy(st, p->sub.entry);
	ret = st ? staging_take_code(st, p->sub.entry, &code) : -ENOENT;
	if (ret == -ENOENT) {
		say(LOG_INFO, "%s%s was removed before its copy was over: not submitted", where,
		    p->sub.entry);
		if (st)
			staging_idle(st, p->sub.entry);
		return;
	}
	if (ret) {
		staging_code_explain(err.message, sizeof(err.message), ret, &code);
		staging_code_clear(&code);
	} else {
		submit_note_waiting(fs, st, p->sub.entry);
		ret = submit_run(fs, &rq, &err);
		staging_code_clear(&code);
	}
	if (!ret && p->check)
		submit_record_checked(st, p->sub.entry, &objects);
	else
		staging_set_outcome(st, p->sub.entry, ret ? STAGING_FAILED : STAGING_SUBMITTED,
		                    err.message);
	strbuf_free(&objects);
	if (ret)
		say(LOG_INFO, "%s%s refused: %s", where, p->sub.entry, err.message);
	else if (!p->check)
		submit_note_made(fs, st, p->sub.entry, &made);
	staging_idle(st, p->sub.entry);
}

/* Is the copy into p's entry over (see the top of this file)? Else *wait_ms until
 * it may be. Reads /proc for its writers, under d->w.mu (a leaf: no network). */
static bool copy_over(struct staging *st, const struct pending *p, int64_t *wait_ms)
{
	struct staging_copy_state cs;
	bool running = false, over;

	*wait_ms = STAGING_QUIET_MS;
	if (staging_entry_state(st, p->sub.entry, &cs) < 0)
		return true; /* gone (make_one says so), or ENOMEM: as before writers counted */
	if (cs.quiet_ms < STAGING_QUIET_MS)
		*wait_ms = STAGING_QUIET_MS - cs.quiet_ms;
	else if (cs.open_for_writing == 0 && cs.quiet_ms < STAGING_STAY_MS)
		for (size_t i = 0; i < cs.n_writers && !running; i++)
			running = writer_running(&(struct writer_id){cs.writers[i].tgid,
			                                             cs.writers[i].starttime});
	over = cs.quiet_ms >= STAGING_QUIET_MS && cs.open_for_writing == 0 && !running;
	staging_copy_state_clear(&cs);
	return over;
}

/* The first queued submission whose copy is over, taken off the queue; else NULL
 * with *wait_ms until the next may be. Under d->w.mu. */
static struct pending *next_ready(struct submit_defer *d, int64_t *wait_ms)
{
	*wait_ms = STAGING_QUIET_MS;
	for (struct pending **pp = &d->queue; *pp; pp = &(*pp)->next) {
		struct pending *p = *pp;
		struct staging *st = pending_area(d->fs, p);
		int64_t wait = 0;

		if (!st || copy_over(st, p, &wait)) {
			*pp = p->next;
			return p;
		}
		if (wait < *wait_ms)
			*wait_ms = wait;
	}
	return NULL;
}

static void *defer_thread(void *arg)
{
	struct submit_defer *d = arg;

	pthread_mutex_lock(&d->w.mu);
	while (!d->w.stop) {
		int64_t wait_ms;
		struct pending *p = next_ready(d, &wait_ms);

		if (!p) {
			if (d->queue)
				worker_sleep(&d->w, wait_ms);
			else
				pthread_cond_wait(&d->w.cond, &d->w.mu);
			continue;
		}
		d->running = p;
		pthread_mutex_unlock(&d->w.mu);
		make_one(d->fs, p);
		pthread_mutex_lock(&d->w.mu);
		d->running = NULL;
		pending_free(p);
		pthread_cond_broadcast(&d->finished);
	}
	pthread_mutex_unlock(&d->w.mu);
	return NULL;
}

int submit_defer_new(struct fs *fs, struct submit_defer **out)
{
	struct submit_defer *d = calloc(1, sizeof(*d));

	*out = d;
	if (!d)
		return -ENOMEM;
	d->fs = fs;
	worker_init(&d->w);
	pthread_cond_init(&d->finished, NULL);
	return 0;
}

int submit_defer_add(struct submit_defer *d, const char *ns, bool check,
                     struct staging_submission *sub)
{
	struct pending *p = calloc(1, sizeof(*p)), **pp;
	int ret = 0;

	if (!p || !(p->ns = strdup(ns ? ns : d->fs->namespace))) {
		free(p);
		return -ENOMEM;
	}
	p->check = check;
	p->sub = *sub; /* taken over */
	memset(sub, 0, sizeof(*sub));
	/* once stopped (unmounting), what is added waits in the queue, and
	 * submit_defer_stop says it was not submitted */
	ret = worker_start(&d->w, defer_thread, d);
	if (ret == -ESHUTDOWN)
		ret = 0;
	pthread_mutex_lock(&d->w.mu);
	if (ret == 0) {
		/* A spec written again before its copy was over replaces the first. */
		for (pp = &d->queue; *pp; pp = &(*pp)->next)
			if (strcmp((*pp)->sub.entry, p->sub.entry) == 0 &&
			    strcmp((*pp)->ns, p->ns) == 0 && (*pp)->check == p->check) {
				struct pending *old = *pp;

				*pp = old->next;
				pending_free(old);
				break;
			}
		for (pp = &d->queue; *pp; pp = &(*pp)->next)
			;
		*pp = p;
		p = NULL;
		pthread_cond_signal(&d->w.cond);
	}
	pthread_mutex_unlock(&d->w.mu);
	pending_free(p);
	return ret;
}

static bool is_waiting(const struct pending *p, const char *ns, const char *name)
{
	/* a check makes no job: nothing to wait for */
	return p && !p->check && strcmp(p->sub.entry, name) == 0 && strcmp(ns, p->ns) == 0;
}

bool submit_defer_wait(struct submit_defer *d, const char *ns, const char *name, int timeout_ms,
                       pid_t asker)
{
	struct timespec until = time_realtime_after_ms(timeout_ms);
	struct writer_id who;
	bool waited = false;

	if (writer_identify(asker, &who) < 0)
		who.tgid = 0;
	pthread_mutex_lock(&d->w.mu);
	for (;;) {
		bool waiting = is_waiting(d->running, ns, name);

		for (struct pending *p = d->queue; p && !waiting; p = p->next)
			if ((waiting = is_waiting(p, ns, name)) && who.tgid && !waited) {
				struct staging *st = pending_area(d->fs, p);

				if (st)
					staging_writer_done(st, name, who.tgid);
				pthread_cond_signal(&d->w.cond); /* the copy may be over now */
			}
		if (!waiting)
			break;
		waited = true;
		/* each submission made wakes every waiter, which looks again */
		if (pthread_cond_timedwait(&d->finished, &d->w.mu, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&d->w.mu);
	return waited;
}

void submit_defer_stop(struct submit_defer *d)
{
	if (!d)
		return;
	worker_stop(&d->w);
	while (d->queue) {
		struct pending *p = d->queue;
		char where[320];

		submit_area_path(d->fs, p->ns, p->check, where, sizeof(where));
		say(LOG_WARNING, "unmounted before the copy into %s%s was over: not submitted",
		    where, p->sub.entry);
		d->queue = p->next;
		pending_free(p);
	}
}

void submit_defer_free(struct submit_defer *d)
{
	if (!d)
		return;
	submit_defer_stop(d);
	worker_destroy(&d->w);
	pthread_cond_destroy(&d->finished);
	free(d);
}
