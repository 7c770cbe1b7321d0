/*
 * jobs/NAME/suspend (suspend.h): a write of 1 or 0 becomes one PATCH of the job,
 * application/merge-patch+json, setting the field its kind names (kinds.h
 * suspend_field: runPolicy.suspend for the training-operator's and mpi-operator's
 * kinds, spec.suspend for TrainJob). The kernel holds only this file's lock
 * during a write, not its directory's, so the PATCH runs on the FUSE worker of the
 * write, no arenafs lock held, bounded by the client's request_timeout. The
 * status word is not guessed from the write: it follows the operator's Suspended
 * condition through the watch (render/status.c). A refused write is told where
 * the job is: jobs/NAME/info ends with its note (render_suspend_note) until a
 * write succeeds; the table of those (notes.h) is a leaf lock, never held across
 * the PATCH.
 *
 * One action, one deadline (docs/reliability.md, "One action, one deadline"):
 * `echo 1 > suspend` is a lookup (whose mode may ask an access review), an open,
 * a truncate and a write (the PATCH), one right after the other. The requests
 * each makes of the cluster share one deadline, request_timeout from the first:
 * a job's action goes on while its requests follow each other within
 * ACTION_GAP_MS, and a request after a longer pause begins a new one. The table
 * of actions under way (actions_mu, a leaf) is never held across a request.
 */
#include "fs/submit/suspend.h"
#include "fs/submit/access.h"
#include "fs/submit/notes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fs/base/fs_struct.h"
#include "fs/base/node.h"
#include "k8s/api/api.h"
#include "k8s/http/client.h"
#include "k8s/base/deadline.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"
#include "k8s/objects/kinds.h"

#define SUSPENDS_MAX 64 /* jobs whose refusal is told; the oldest goes first */
#define ACTIONS_MAX  64 /* jobs acted on at once; beyond, the oldest action is forgotten */
#define ACTION_GAP_MS 2000 /* a pause this long between two requests ends an action: two
                           * seconds, as one command's requests may be that far apart on a
                           * busy machine (seen: over one second at load 25) */

/* One job's action under way: its deadline, and when its last request ended. */
struct action {
	char uid[64];
	int64_t deadline, last;
};

static pthread_mutex_t actions_mu = PTHREAD_MUTEX_INITIALIZER;
static struct action actions[ACTIONS_MAX]; /* guarded by actions_mu */

/* Sets the calling thread's deadline to node's action's, begun now when none goes
 * on; returns the deadline it replaced (deadline_restore). */
static int64_t action_begin(struct fs *fs, const struct fs_node *node)
{
	int64_t now = time_monotonic_ms(), deadline;
	struct action *a = NULL, *oldest = &actions[0];
	const char *uid = node->uid ? node->uid : "";

	pthread_mutex_lock(&actions_mu);
	for (size_t i = 0; i < ACTIONS_MAX && !a; i++) {
		if (strcmp(actions[i].uid, uid) == 0 && actions[i].last)
			a = &actions[i];
		else if (actions[i].last < oldest->last)
			oldest = &actions[i];
	}
	if (!a || now - a->last >= ACTION_GAP_MS) {
		a = a ? a : oldest;
		snprintf(a->uid, sizeof(a->uid), "%s", uid);
		a->deadline = now + (fs->client ? k8s_client_request_timeout(fs->client) : 0);
	}
	a->last = now;
	deadline = a->deadline;
	pthread_mutex_unlock(&actions_mu);
	return deadline_begin(deadline);
}

/* node's request ended: the pause before the next one counts from now. */
static void action_end(const struct fs_node *node, int64_t previous)
{
	const char *uid = node->uid ? node->uid : "";

	pthread_mutex_lock(&actions_mu);
	for (size_t i = 0; i < ACTIONS_MAX; i++)
		if (strcmp(actions[i].uid, uid) == 0 && actions[i].last)
			actions[i].last = time_monotonic_ms();
	pthread_mutex_unlock(&actions_mu);
	deadline_restore(previous);
}

int suspends_new(struct notes **out)
{
	return notes_new(SUSPENDS_MAX, out);
}

void suspends_free(struct notes *t)
{
	notes_free(t);
}

/* A write's outcome: a refusal is kept (the newest of each job), a success forgets. */
static void remember(struct notes *t, const char *uid, int rc, bool on,
		     const struct k8s_error *err)
{
	int64_t now = time_now();

	/* a note not kept (no uid, out of memory) leaves the log to tell */
	if (rc)
		(void)notes_put(t, uid, &(struct note){now, now, on, err->message});
	else
		notes_forget(t, uid);
}

int suspends_note(struct notes *t, const char *uid, struct suspend_note *note, char *buf,
		  size_t size)
{
	struct note n;

	if (!notes_get(t, uid, &n, buf, size))
		return 0;
	note->at = n.asked;
	note->on = n.arg;
	note->reason = n.reason;
	return 1;
}

bool suspend_supported(const struct fs_node *node)
{
	const struct job_kind_info *ki = kinds_info((enum job_kind)node->kind);

	return ki && ki->suspend_field;
}

int suspend_parse(const char *buf, size_t size, bool *on, struct k8s_error *err)
{
	if (size >= 1 && size <= 2 && (buf[0] == '0' || buf[0] == '1') &&
	    (size == 1 || buf[1] == '\n')) {
		*on = buf[0] == '1';
		return 0;
	}
	return k8s_error_set(err, EINVAL, "write 1 to suspend the job, 0 to resume it");
}

bool suspend_writable(struct fs *fs, const struct fs_node *node)
{
	char why[ACCESS_WHY_MAX];
	int64_t previous;
	bool yes;

	if (!suspend_supported(node))
		return false;
	if (suspend_mode_known(fs, node))
		return access_patch_jobs(fs, node->ns, node->kind, why, sizeof(why)) == 0;
	previous = action_begin(fs, node);
	yes = access_patch_jobs(fs, node->ns, node->kind, why, sizeof(why)) == 0;
	action_end(node, previous);
	return yes;
}

bool suspend_mode_known(struct fs *fs, const struct fs_node *node)
{
	return fs->opts.readonly || !suspend_supported(node) ||
	       access_patch_known(fs, node->ns, node->kind);
}

int suspend_write(struct fs *fs, const struct fs_node *node, const char *buf, size_t size)
{
	const struct job_kind_info *ki = kinds_info((enum job_kind)node->kind);
	struct k8s_error err = {0};
	struct k8s_resource res;
	char *patch = NULL;
	int64_t previous;
	bool on = false;
	int rc;

	if (!ki || !ki->suspend_field) {
		rc = k8s_error_set(&err, EOPNOTSUPP, "a %s cannot be suspended",
		                   ki ? ki->kind_name : "job of this kind");
		goto out;
	}
	rc = suspend_parse(buf, size, &on, &err);
	if (rc) {
		/* "yes" is no resume: say Suspend */
		on = true;
		goto out;
	}
	patch = k8s_suspend_patch(ki->suspend_field, node->uid, on);
	if (!patch) {
		rc = k8s_error_set(&err, ENOMEM, "out of memory");
		goto out;
	}
	/* Even where the mode says no (suspend_writable), the server decides: its 403
	 * is EACCES with its own words (who may not patch what, where) for info's note. */
	k8s_job_resource((enum job_kind)node->kind, &res);
	previous = action_begin(fs, node);
	rc = k8s_merge_patch(fs->client, &res, node->ns, node->job, patch, &err);
	action_end(node, previous);
	if (rc == -EACCES)
		access_forget_patch(fs, node->ns, node->kind);   /* a yes gone stale */
out:
	free(patch);
	remember(fs->suspends, node->uid, rc, on, &err);
	if (rc) {
		say(LOG_WARNING, "jobs/%s/suspend of namespace %s refused: %s", node->job,
		       node->ns, err.message);
		return rc;
	}
	return (int)size;
}
