/*
 * rmdir's DELETEs, each on a thread of its own, and the outcome of those that
 * outlived their rmdir (deletes.h): the list holds the DELETEs under way, the notes
 * (notes.h) what info tells of those no rmdir waits for (under way, or failed). The
 * notes' lock is taken under d->lock, and alone by deletes_note. Tested by
 * tests/integration/test_submit_delete.py (a DELETE the server delays, then
 * answers or refuses).
 */
#include "fs/submit/deletes.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "fs/base/fs_struct.h"
#include "fs/base/node.h"
#include "fs/submit/notes.h"
#include "k8s/api/api.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"
#include "k8s/objects/kinds.h"
#include "render/delete_note.h"

#define DELETES_NOTE_KEEP_S 3600 /* a failed delete's note, unless tried again sooner */

/* One job's DELETE under way, or answered to rmdirs still waiting for it. */
struct deletion {
	struct deletion *next;
	struct fs_deletes *owner;
	char *ns, *name, *uid;
	int kind;
	int64_t asked, ended; /* seconds, UTC */
	unsigned waiters;     /* rmdirs waiting for the answer now */
	bool done;
	int ret;
	struct k8s_error err;
};

struct fs_deletes {
	struct fs *fs;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a DELETE answered */
	struct deletion *list;
	unsigned running;    /* threads not yet finished */
	struct notes *notes; /* by uid: asked, ended (0: under way), the failure */
};

static void deletion_free(struct deletion *e)
{
	if (!e)
		return;
	free(e->ns);
	free(e->name);
	free(e->uid);
	free(e);
}

/* Takes e off the list. Under d->lock. */
static void unlist(struct fs_deletes *d, struct deletion *e)
{
	for (struct deletion **p = &d->list; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return;
		}
}

static void log_outcome(const struct deletion *e, bool heard)
{
	const char *kind = kinds_info(e->kind)->kind_name;

	if (e->ret == 0)
		say(LOG_INFO, "deleted %s %s in namespace %s%s", kind, e->name, e->ns,
		    heard ? "" : " (after its rmdir returned)");
	else if (e->ret != -ENOENT)
		say(LOG_WARNING, "rmdir %s/%s: %s%s", e->ns, e->name, e->err.message,
		    heard ? "" : " (after the rmdir returned; its info says so)");
}

/* What info tells of e, which no rmdir waits for now: that it is under way, that it
 * failed, or nothing (deleted, or gone before). Under d->lock. */
static void tell(struct fs_deletes *d, const struct deletion *e)
{
	/* a note not kept (out of memory) leaves the log to tell */
	if (!e->done)
		(void)notes_put(d->notes, e->uid, &(struct note){e->asked, 0, 0, ""});
	else if (e->ret != 0 && e->ret != -ENOENT)
		(void)notes_put(d->notes, e->uid,
				&(struct note){e->asked, e->ended, 0, e->err.message});
	else
		notes_forget(d->notes, e->uid);
}

static void *delete_thread(void *arg)
{
	struct deletion *e = arg;
	struct fs_deletes *d = e->owner;
	struct k8s_resource res;
	struct k8s_error err;
	int ret;

	k8s_error_clear(&err);
	k8s_job_resource(e->kind, &res);
	/* Background, as kubectl and arena delete: the job goes at once and the garbage
	 * collector removes its pods and TensorBoard (owner references) after it. */
	/* Only the object the folder shows (its uid): not one made since under its name
	 * that the cache has not seen yet. */
	ret = k8s_delete(d->fs->client, &res, e->ns, e->name, e->uid, K8S_PROPAGATE_BACKGROUND,
	                 &err);
	if (ret == -EBUSY && err.code == 409 && e->uid[0])
		k8s_error_set(&err, EBUSY,
		              "not deleted: the %s %s the cluster holds now is another job than "
		              "the one its folder showed (uid %s), made since under its name; "
		              "look again (ls) before deleting it",
		              kinds_info(e->kind)->kind_name, e->name, e->uid);
	pthread_mutex_lock(&d->lock);
	e->done = true;
	e->ret = ret;
	e->err = err;
	e->ended = time(NULL);
	if (e->waiters == 0) {
		/* its rmdir answered EINPROGRESS: the log and, on failure, info tell */
		log_outcome(e, false);
		tell(d, e);
		unlist(d, e);
		deletion_free(e);
	}
	pthread_cond_broadcast(&d->changed);
	d->running--;
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static struct deletion *find(struct fs_deletes *d, const char *uid)
{
	for (struct deletion *e = d->list; e; e = e->next)
		if (strcmp(e->uid, uid) == 0)
			return e;
	return NULL;
}

/* A new deletion of node, listed and started. Under d->lock; NULL on failure. */
static struct deletion *start(struct fs_deletes *d, const struct fs_node *node, int *ret)
{
	struct deletion *e = calloc(1, sizeof(*e));
	pthread_attr_t attr;
	pthread_t t;

	*ret = -ENOMEM;
	if (!e || !(e->ns = strdup(node->ns)) || !(e->name = strdup(node->job)) ||
	    !(e->uid = strdup(node->uid ? node->uid : ""))) {
		deletion_free(e);
		return NULL;
	}
	e->owner = d;
	e->kind = node->kind;
	e->asked = time(NULL);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	*ret = -pthread_create(&t, &attr, delete_thread, e);
	pthread_attr_destroy(&attr);
	if (*ret) {
		deletion_free(e);
		return NULL;
	}
	d->running++;
	e->next = d->list;
	d->list = e;
	return e;
}

int deletes_run(struct fs_deletes *d, const struct fs_node *node, int64_t deadline_ms,
                struct k8s_error *err)
{
	struct deletion *e;
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	/* failed deletes nobody retried for a long time are forgotten */
	notes_prune(d->notes, time(NULL) - DELETES_NOTE_KEEP_S);
	/* a failed one, told in info, this rmdir tries again; one under way it joins,
	 * and it is this rmdir's to tell while it waits */
	notes_forget(d->notes, node->uid);
	e = find(d, node->uid ? node->uid : "");
	if (!e && !(e = start(d, node, &ret))) {
		k8s_error_set(err, -ret, "the delete could not be started: %s", strerror(-ret));
		pthread_mutex_unlock(&d->lock);
		return ret;
	}
	e->waiters++;
	while (!e->done) {
		int64_t left = deadline_ms - time_monotonic_ms();
		struct timespec until;

		if (left <= 0)
			break;
		until = time_realtime_after_ms(left);
		pthread_cond_timedwait(&d->changed, &d->lock, &until);
	}
	e->waiters--;
	if (e->done) {
		ret = e->ret;
		*err = e->err;
		if (e->waiters == 0) {
			log_outcome(e, true);
			unlist(d, e);
			deletion_free(e);
		}
	} else {
		ret = -EINPROGRESS;
		k8s_error_set(err, EINPROGRESS, "no answer to the DELETE yet: it goes on");
		if (e->waiters == 0)
			tell(d, e);
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

int deletes_note(struct fs_deletes *d, const char *uid, struct delete_note *note, char *buf,
                 size_t size)
{
	struct note n;

	if (!notes_get(d->notes, uid, &n, buf, size))
		return 0;
	note->asked = n.asked;
	note->ended = n.ended;
	note->reason = n.reason;
	return 1;
}

int deletes_new(struct fs *fs, struct fs_deletes **out)
{
	struct fs_deletes *d = calloc(1, sizeof(*d));

	*out = d;
	if (!d)
		return -ENOMEM;
	d->fs = fs;
	if (notes_new(0, &d->notes) < 0) {
		free(d);
		*out = NULL;
		return -ENOMEM;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->changed, NULL);
	return 0;
}

void deletes_free(struct fs_deletes *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	while (d->running)
		pthread_cond_wait(&d->changed, &d->lock);
	pthread_mutex_unlock(&d->lock);
	while (d->list) {
		struct deletion *e = d->list;

		d->list = e->next;
		deletion_free(e);
	}
	notes_free(d->notes);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->changed);
	free(d);
}
