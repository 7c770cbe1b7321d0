/*
 * May these credentials create jobs in a namespace? namespaces/NS/submit/ asks
 * before it takes a new entry (docs/submit.md, "namespaces/NS/submit/"). And may
 * they patch a kind of job there? jobs/NAME/suspend asks for its mode and before
 * its write's PATCH (docs/tree.md, "jobs/NAME/suspend"). The API
 * server answers a SelfSubjectAccessReview (k8s_access_review) per job kind the
 * cluster serves, in kinds.h's order, until one says yes: a user may be allowed
 * PyTorchJobs and not TFJobs. The answer is kept per namespace for a while, so that
 * `cp *.yaml namespaces/NS/submit/` asks once, not once per file:
 *
 *   yes            ACCESS_ALLOWED_TTL_S; a stale yes costs nothing (the submission's
 *                  own 403 then says no, and access_forget drops the yes);
 *   no             ACCESS_DENIED_TTL_S, short: a user just given a RoleBinding should
 *                  not wait long;
 *   cannot tell    (unreachable, the review itself refused or not served): yes, kept
 *                  as long as a no, so that a cluster that is down does not cost a
 *                  request_timeout per file. Staging needs no cluster, and a
 *                  submission says what went wrong.
 *
 * Blocking (network) on the FUSE worker of the operation that asks; the table's
 * mutex is never held across a request. Called by fs/submit/submit.c.
 */
#include "fs/submit/access.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "k8s/api/api.h"

#define ACCESS_ALLOWED_TTL_S 60
#define ACCESS_DENIED_TTL_S  10
#define ACCESS_MAX           256  /* namespaces remembered; the oldest answer goes first */
#define ACCESS_KEY_MAX       192  /* "create NS" or "patch PLURAL.GROUP NS" */

struct access_answer {
	char key[ACCESS_KEY_MAX];    /* the question and its namespace */
	int64_t until;               /* time_now() after which it is asked again */
	bool allowed;
	char why[ACCESS_WHY_MAX];    /* the no, for namespaces/NS/submit/error */
};

struct access_cache {
	pthread_mutex_t lock;
	struct access_answer a[ACCESS_MAX]; /* guarded by lock */
	size_t n;
};

int access_new(struct access_cache **out)
{
	struct access_cache *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

void access_free(struct access_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* The slot of key, or NULL. Under the lock. */
static struct access_answer *find(struct access_cache *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->a[i].key, key) == 0)
			return &c->a[i];
	return NULL;
}

static void remember(struct access_cache *c, const char *key, bool allowed, const char *why,
                     int ttl)
{
	struct access_answer *a;

	if (strlen(key) >= ACCESS_KEY_MAX)
		return;
	pthread_mutex_lock(&c->lock);
	a = find(c, key);
	if (!a && c->n < ACCESS_MAX) {
		a = &c->a[c->n++];
	} else if (!a) {
		a = &c->a[0]; /* the one that expires first */
		for (size_t i = 1; i < c->n; i++)
			if (c->a[i].until < a->until)
				a = &c->a[i];
	}
	snprintf(a->key, sizeof(a->key), "%s", key);
	a->until = time_now() + ttl;
	a->allowed = allowed;
	snprintf(a->why, sizeof(a->why), "%s", allowed ? "" : why);
	pthread_mutex_unlock(&c->lock);
}

/* A fresh answer for key: 1 yes, 0 no (why filled), -1 none. */
static int recall(struct access_cache *c, const char *key, char *why, size_t size)
{
	struct access_answer *a;
	int ret = -1;

	pthread_mutex_lock(&c->lock);
	a = find(c, key);
	if (a && a->until > time_now()) {
		ret = a->allowed;
		snprintf(why, size, "%s", a->why);
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

static void forget(struct access_cache *c, const char *key)
{
	struct access_answer *a;

	pthread_mutex_lock(&c->lock);
	a = find(c, key);
	if (a)
		a->until = 0;
	pthread_mutex_unlock(&c->lock);
}

static void create_key(char *key, size_t size, const char *ns)
{
	snprintf(key, size, "create %s", ns);
}

static void patch_key(char *key, size_t size, const struct job_kind_info *ki, const char *ns)
{
	snprintf(key, size, "patch %s.%s %s", ki->plural, ki->group, ns);
}

void access_forget(struct fs *fs, const char *ns)
{
	char key[ACCESS_KEY_MAX];

	create_key(key, sizeof(key), ns);
	forget(fs->access, key);
}

void access_forget_patch(struct fs *fs, const char *ns, int kind)
{
	char key[ACCESS_KEY_MAX];

	patch_key(key, sizeof(key), kinds_info((enum job_kind)kind), ns);
	forget(fs->access, key);
}

/* "tfjobs.kubeflow.org" of each kind asked about, comma-joined, for the no. */
static void add_name(char *list, size_t size, const struct job_kind_info *ki)
{
	size_t len = strlen(list);

	snprintf(list + len, size - len, "%s%s.%s", len ? ", " : "", ki->plural, ki->group);
}

/*
 * Asks the API server, kind by kind: 1 yes, 0 no (why filled), -1 cannot tell.
 * Both MPIJob versions are one resource (mpijobs.kubeflow.org): asked once.
 */
static int ask(struct fs *fs, const char *ns, char *why, size_t size)
{
	char names[256] = "", reason[sizeof(((struct k8s_access *)0)->reason)] = "";
	const struct job_kind_info *first = NULL;
	struct k8s_access a;
	struct k8s_error err;
	bool asked[JOB_KIND_COUNT] = {false};

	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info(k);
		bool dup = false;

		if (!fs->served[k])
			continue;
		for (int j = 0; j < k && !dup; j++)
			dup = asked[j] && strcmp(kinds_info(j)->plural, ki->plural) == 0 &&
			      strcmp(kinds_info(j)->group, ki->group) == 0;
		if (dup)
			continue;
		asked[k] = true;
		k8s_error_clear(&err);
		if (k8s_access_review(fs->client, "create", ki->group, ki->plural, ns, &a, &err))
			return -1;
		if (a.allowed)
			return 1;
		if (!first)
			first = ki;
		if (!reason[0])
			snprintf(reason, sizeof(reason), "%s", a.reason);
		add_name(names, sizeof(names), ki);
	}
	if (!first)
		return -1; /* no job kind served: nothing to ask about, submissions say so */
	snprintf(why, size,
	         "these credentials may not create jobs in namespace %s: the API server says no "
	         "to create %s%s%s (kubectl auth can-i create %s.%s -n %s); the namespace's "
	         "administrators can grant it with a RoleBinding",
	         ns, names, reason[0] ? ": " : "", reason, first->plural, first->group, ns);
	return 0;
}

/* May the credentials patch a kind in ns: 1 yes, 0 no (why filled), -1 cannot tell. */
static int ask_patch(struct fs *fs, const struct job_kind_info *ki, const char *ns, char *why,
                     size_t size)
{
	struct k8s_access a;
	struct k8s_error err;

	k8s_error_clear(&err);
	if (k8s_access_review(fs->client, "patch", ki->group, ki->plural, ns, &a, &err))
		return -1;
	if (a.allowed)
		return 1;
	snprintf(why, size,
	         "these credentials may not patch %s.%s in namespace %s%s%s (kubectl auth can-i "
	         "patch %s.%s -n %s); the namespace's administrators can grant it with a "
	         "RoleBinding",
	         ki->plural, ki->group, ns, a.reason[0] ? ": " : "", a.reason, ki->plural, ki->group,
	         ns);
	return 0;
}

/* The answer to the question of key, kept, else asked (ask_create or ask_patch with ki). */
static int answer(struct fs *fs, const char *key, const struct job_kind_info *ki,
                  const char *ns, char *why, size_t size)
{
	struct cache_health h;
	int answer;

	why[0] = '\0';
	answer = recall(fs->access, key, why, size);
	if (answer >= 0)
		return answer ? 0 : -EACCES;
	/* A cluster that cannot be reached cannot tell: no request_timeout per file. */
	cache_get_health(fs->cache, &h);
	answer = !h.connected ? -1 : ki ? ask_patch(fs, ki, ns, why, size) : ask(fs, ns, why, size);
	/* a refused submission is news; a read-only suspend file is not */
	if (answer == 0 && !ki)
		say(LOG_INFO, "namespaces/%s/submit/ refused: %s", ns, why);
	remember(fs->access, key, answer != 0, why,
	         answer > 0 ? ACCESS_ALLOWED_TTL_S : ACCESS_DENIED_TTL_S);
	return answer ? 0 : -EACCES;
}

int access_create_jobs(struct fs *fs, const char *ns, char *why, size_t size)
{
	char key[ACCESS_KEY_MAX];

	create_key(key, sizeof(key), ns);
	return answer(fs, key, NULL, ns, why, size);
}

int access_patch_jobs(struct fs *fs, const char *ns, int kind, char *why, size_t size)
{
	const struct job_kind_info *ki = kinds_info((enum job_kind)kind);
	char key[ACCESS_KEY_MAX];

	if (!ki)
		return 0;
	patch_key(key, sizeof(key), ki, ns);
	return answer(fs, key, ki, ns, why, size);
}

bool access_patch_known(struct fs *fs, const char *ns, int kind)
{
	const struct job_kind_info *ki = kinds_info((enum job_kind)kind);
	char key[ACCESS_KEY_MAX], why[ACCESS_WHY_MAX];
	struct cache_health h;

	if (!ki)
		return true;
	patch_key(key, sizeof(key), ki, ns);
	if (recall(fs->access, key, why, sizeof(why)) >= 0)
		return true;
	cache_get_health(fs->cache, &h);
	return !h.connected;
}
