/*
 * The bytes of jobs/NAME/code/'s files: the job's ConfigMap, fetched with one GET
 * the first time any file of that job's code is opened, and kept. The ConfigMap
 * is immutable and the job's own (docs/tree.md, "jobs/NAME/code/"), so what was
 * read once stays right for that job (its uid): `cat code/FILE...`, `cp -r code/ .` or
 * `grep -r` make one request per job, never one per file, and nothing is asked
 * again while the job's code is kept.
 *
 * Memory is bounded: the code of the last CODE_KEEP_JOBS jobs read, and beyond
 * CODE_KEEP_BYTES the least recently read go first (a ConfigMap holds at most
 * about 1 MiB, the API server's limit). Open files keep their own reference to
 * their bytes, so one pushed out is still read whole; opened again, its job's
 * ConfigMap is fetched again.
 *
 * Opens of the same job's code while its ConfigMap is on the way wait for that
 * one request. A ConfigMap that cannot be read is remembered for
 * CODE_RETRY_SECONDS, so that `cp -r` of a job whose ConfigMap is gone makes one
 * request and logs one line, then asked again (the server may be back). The
 * errors (docs/tree.md): deleted → ENODATA, 401/403 → EACCES, no answer in time
 * → ETIMEDOUT, anything else (unreachable, 5xx, not this job's, not what the
 * annotation says) → EIO; while the cache's watches are down (cluster/health),
 * EIO at once, without a request that would retry until its deadline.
 *
 * Blocking: called by ops.c at open, on a FUSE worker, with no lock held; the
 * store's mutex is a leaf and is never held across the request.
 */
#include "fs/code/codefetch.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "k8s/api/configmap.h"

#define CODE_KEEP_JOBS 8
#define CODE_KEEP_BYTES (16u << 20)
#define CODE_RETRY_SECONDS 5

struct kept_file {
	char *key;
	struct fs_text *text;
};

enum fetch_state { FETCHING, READY, FAILED };

struct kept_job {
	char uid[128];
	char configmap[256];
	enum fetch_state state;
	int err;                     /* FAILED: the errno every open answers */
	int64_t failed_at;           /* FAILED: when, monotonic seconds */
	struct kept_file *files;
	size_t n_files;
	size_t bytes;
	bool disagreement_logged;    /* a file unlike the annotation was logged */
	uint64_t used;               /* the store's tick when last read */
	struct kept_job *next;
};

struct code_store {
	pthread_mutex_t lock;
	pthread_cond_t fetched;      /* a FETCHING entry changed state */
	struct kept_job *jobs;
	size_t n_jobs;
	size_t bytes;
	uint64_t tick;
};

static int64_t monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

int codefetch_new(struct code_store **out)
{
	struct code_store *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->fetched, NULL);
	return 0;
}

static void files_free(struct kept_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].key);
		fs_text_put(files[i].text);
	}
	free(files);
}

static void kept_free(struct kept_job *j)
{
	files_free(j->files, j->n_files);
	free(j);
}

void codefetch_free(struct code_store *s)
{
	if (!s)
		return;
	while (s->jobs) {
		struct kept_job *j = s->jobs;

		s->jobs = j->next;
		kept_free(j);
	}
	pthread_cond_destroy(&s->fetched);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static struct kept_job *find(struct code_store *s, const struct codetree_file *f)
{
	for (struct kept_job *j = s->jobs; j; j = j->next)
		if (strcmp(j->uid, f->uid) == 0 && strcmp(j->configmap, f->configmap) == 0)
			return j;
	return NULL;
}

/* Frees the least recently read entries beyond the bounds, never one being fetched
 * nor keep (the one just read). Under s->lock. */
static void evict(struct code_store *s, const struct kept_job *keep)
{
	while (s->n_jobs > CODE_KEEP_JOBS || s->bytes > CODE_KEEP_BYTES) {
		struct kept_job **victim = NULL;

		for (struct kept_job **pj = &s->jobs; *pj; pj = &(*pj)->next)
			if (*pj != keep && (*pj)->state != FETCHING &&
			    (!victim || (*pj)->used < (*victim)->used))
				victim = pj;
		if (!victim)
			return;
		struct kept_job *j = *victim;

		*victim = j->next;
		s->n_jobs--;
		s->bytes -= j->bytes;
		kept_free(j);
	}
}

/* The errno an open answers for a ConfigMap that could not be read. */
static int fetch_errno(int ret)
{
	switch (-ret) {
	case ENOENT:
		return ENODATA;      /* deleted: the bytes are gone, as a finished job's logs */
	case EACCES:
	case ETIMEDOUT:
	case ENOMEM:
		return -ret;
	default:
		return EIO;
	}
}

/* GETs the ConfigMap and keeps its files as texts in *files. 0, or the errno
 * (positive) with why in err. Blocking, no lock held. */
static int fetch(struct fs *fs, const struct codetree_file *f, struct kept_file **files,
		 size_t *n, size_t *bytes, struct k8s_error *err)
{
	struct k8s_configmap *cm = NULL;
	struct kept_file *kf = NULL;
	bool owned;
	int ret;

	*files = NULL;
	*n = *bytes = 0;
	ret = k8s_configmap_get(fs->client, f->ns, f->configmap, &cm, err);
	if (ret)
		return fetch_errno(ret);
	/* An owner other than the job: a ConfigMap of that name left by another job.
	 * None at all: one made before its job, which the write side then points at. */
	owned = cm->n_owners == 0;
	for (size_t i = 0; i < cm->n_owners && !owned; i++)
		owned = strcmp(cm->owner_uids[i], f->uid) == 0;
	if (!owned) {
		k8s_error_set(err, EIO, "it belongs to another object than this job (uid %s)",
			      f->uid);
		k8s_configmap_free(cm);
		return EIO;
	}
	if (cm->n_files && !(kf = calloc(cm->n_files, sizeof(*kf)))) {
		k8s_configmap_free(cm);
		k8s_error_set(err, ENOMEM, "out of memory");
		return ENOMEM;
	}
	for (size_t i = 0; i < cm->n_files; i++) {
		kf[i].key = strdup(cm->files[i].key);
		kf[i].text = fs_text_new(cm->files[i].data, cm->files[i].len);
		if (!kf[i].key || !kf[i].text) {
			files_free(kf, cm->n_files);
			k8s_configmap_free(cm);
			k8s_error_set(err, ENOMEM, "out of memory");
			return ENOMEM;
		}
	}
	*files = kf;
	*n = cm->n_files;
	*bytes = cm->bytes;
	k8s_configmap_free(cm);
	return 0;
}

/* What an open of f gets from a READY or FAILED entry. Under s->lock. */
static int answer(struct kept_job *j, const struct codetree_file *f, struct fs_text **out)
{
	const struct kept_file *kf = NULL;

	if (j->state == FAILED)
		return -j->err;
	for (size_t i = 0; i < j->n_files && !kf; i++)
		if (strcmp(j->files[i].key, f->key) == 0)
			kf = &j->files[i];
	if (!kf || kf->text->len != f->size) {
		/* never other bytes than the size the annotation gave (and stat showed) */
		if (!j->disagreement_logged && kf)
			say(LOG_WARNING, "job %s/%s: code/ unlike its annotation: key %s of "
			    "ConfigMap %s holds %zu bytes, not %llu: EIO", f->ns, f->job, f->key,
			    f->configmap, kf->text->len, (unsigned long long)f->size);
		else if (!j->disagreement_logged)
			say(LOG_WARNING, "job %s/%s: code/ unlike its annotation: ConfigMap %s has "
			    "no key %s: EIO", f->ns, f->job, f->configmap, f->key);
		j->disagreement_logged = true;
		return -EIO;
	}
	*out = fs_text_get(kf->text);
	return 0;
}

int codefetch_text(struct fs *fs, const struct codetree_file *f, struct fs_text **out)
{
	struct code_store *s = fs->code_store;
	struct kept_job *j;
	struct kept_file *files;
	struct k8s_error err;
	size_t n, bytes;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&s->lock);
	j = find(s, f);
	if (!j || j->state != READY) {
		struct cache_health h;

		/* While the watches are down, EIO at once, as an unread log: the request
		 * would retry until its deadline (30 s) for a server known to be gone.
		 * cluster/health says since when and why. */
		cache_get_health(fs->cache, &h);
		if (!h.connected) {
			pthread_mutex_unlock(&s->lock);
			return -EIO;
		}
	}
	for (;;) {
		j = find(s, f);
		if (!j) {
			if (!(j = calloc(1, sizeof(*j)))) {
				pthread_mutex_unlock(&s->lock);
				return -ENOMEM;
			}
			snprintf(j->uid, sizeof(j->uid), "%s", f->uid);
			snprintf(j->configmap, sizeof(j->configmap), "%s", f->configmap);
			j->next = s->jobs;
			s->jobs = j;
			s->n_jobs++;
			break;
		}
		if (j->state == FETCHING) {
			pthread_cond_wait(&s->fetched, &s->lock);
			continue;
		}
		if (j->state == FAILED && monotonic_seconds() - j->failed_at >= CODE_RETRY_SECONDS)
			break;
		j->used = ++s->tick;
		ret = answer(j, f, out);
		pthread_mutex_unlock(&s->lock);
		return ret;
	}
	j->state = FETCHING;
	pthread_mutex_unlock(&s->lock);

	k8s_error_clear(&err);
	ret = fetch(fs, f, &files, &n, &bytes, &err);
	if (ret)
		say(LOG_WARNING, "job %s/%s: code/ cannot be read: ConfigMap %s: %s (%s for %d s, "
		    "then asked again)", f->ns, f->job, f->configmap, err.message, strerror(ret),
		    CODE_RETRY_SECONDS);

	pthread_mutex_lock(&s->lock);
	if (ret) {
		j->state = FAILED;
		j->err = ret;
		j->failed_at = monotonic_seconds();
	} else {
		j->state = READY;
		j->files = files;
		j->n_files = n;
		j->bytes = bytes;
		s->bytes += bytes;
	}
	j->used = ++s->tick;
	pthread_cond_broadcast(&s->fetched);
	evict(s, j);
	ret = answer(j, f, out);
	pthread_mutex_unlock(&s->lock);
	return ret;
}
