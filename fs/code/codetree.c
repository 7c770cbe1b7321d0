/*
 * The path model of jobs/NAME/code/: which names each of its directories holds
 * and what they stand for, from the job's arenafs.io/code annotation alone
 * (codeindex.h), so that ls, find and stat of code/ ask the cluster nothing. The
 * bytes are codefetch.c's.
 *
 * A lookup parses nothing twice: the parsed annotation of the last few job
 * objects (by uid and resourceVersion, so a changed annotation is parsed again)
 * is kept in a small memo, shared by lookups, listings and the notifier, which
 * revalidates every code/ entry the kernel holds whenever the job changes.
 * An annotation with lines left out is logged once per job.
 *
 * Nodes: code/ and its subdirectories carry the job's names and uid, plus their
 * path below code/; a file's identity also holds its ConfigMap, key, size and
 * mode, so that a changed annotation gives it a new inode rather than other bytes
 * under a size the kernel cached.
 *
 * Called by model.c and content.c under the cache's read lock; the memo's mutex
 * is a leaf.
 */
#include "fs/code/codetree.h"
#include "fs/base/places.h"
#include "k8s/cache/cache.h"
#include "k8s/base/say.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fs/code/codeindex.h"

#define MEMO_SLOTS 16            /* parsed annotations kept */
#define WARNED_SLOTS 32          /* jobs whose annotation's faults were logged */

struct parsed {
	atomic_uint refs;
	char *uid;
	char *rv;
	int err;                     /* code_index_parse's: -EINVAL means no code/ */
	struct code_index ix;
};

struct codetree_memo {
	pthread_mutex_t lock;
	struct parsed *slot[MEMO_SLOTS];   /* most recently used first */
	char warned[WARNED_SLOTS][64];     /* uids, a ring */
	size_t next_warned;
};

static void parsed_put(struct parsed *p)
{
	if (p && atomic_fetch_sub(&p->refs, 1) == 1) {
		code_index_free(&p->ix);
		free(p->uid);
		free(p->rv);
		free(p);
	}
}

int codetree_memo_new(struct codetree_memo **out)
{
	struct codetree_memo *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	return 0;
}

void codetree_memo_free(struct codetree_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		parsed_put(m->slot[i]);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* Logs what a job's annotation left out, once per job (under m->lock). */
static void warn_once(struct codetree_memo *m, const struct job *job, const struct parsed *p)
{
	if (p->err == 0 && p->ix.skipped == 0)
		return;
	for (size_t i = 0; i < WARNED_SLOTS; i++)
		if (strcmp(m->warned[i], job->meta.uid) == 0)
			return;
	snprintf(m->warned[m->next_warned], sizeof(m->warned[0]), "%s", job->meta.uid);
	m->next_warned = (m->next_warned + 1) % WARNED_SLOTS;
	if (p->err)
		say(LOG_WARNING, "job %s/%s: annotation %s: %s: no code/", job->meta.namespace,
		    job->meta.name, CODE_ANNOTATION, p->ix.why);
	else
		say(LOG_WARNING, "job %s/%s: annotation %s: %zu file%s not shown in code/; the "
		    "first: %s", job->meta.namespace, job->meta.name, CODE_ANNOTATION,
		    p->ix.skipped, p->ix.skipped == 1 ? "" : "s", p->ix.why);
}

/* The parsed annotation of a job that has one, a reference (parsed_put), or NULL
 * (none, or out of memory). */
static struct parsed *parsed_of(struct fs *fs, const struct job *job)
{
	struct codetree_memo *m = fs->code_memo;
	struct parsed *p = NULL, *made;
	size_t i;

	if (!job->code_annotation)
		return NULL;
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < MEMO_SLOTS && m->slot[i]; i++)
		if (strcmp(m->slot[i]->uid, job->meta.uid) == 0 &&
		    strcmp(m->slot[i]->rv, job->meta.resource_version) == 0)
			break;
	if (i < MEMO_SLOTS && m->slot[i]) {
		p = m->slot[i];
		memmove(&m->slot[1], &m->slot[0], i * sizeof(m->slot[0]));
		m->slot[0] = p;
		atomic_fetch_add(&p->refs, 1);
	}
	pthread_mutex_unlock(&m->lock);
	if (p)
		return p;

	/* parsed outside the lock: another job's lookups need not wait for it */
	made = calloc(1, sizeof(*made));
	if (!made || !(made->uid = strdup(job->meta.uid)) ||
	    !(made->rv = strdup(job->meta.resource_version)) ||
	    (made->err = code_index_parse(job->code_annotation, &made->ix)) == -ENOMEM) {
		if (made) {
			code_index_free(&made->ix);
			free(made->uid);
			free(made->rv);
		}
		free(made);
		return NULL;
	}
	atomic_init(&made->refs, 2);   /* the memo's and the caller's */
	pthread_mutex_lock(&m->lock);
	warn_once(m, job, made);
	parsed_put(m->slot[MEMO_SLOTS - 1]);
	memmove(&m->slot[1], &m->slot[0], (MEMO_SLOTS - 1) * sizeof(m->slot[0]));
	m->slot[0] = made;
	pthread_mutex_unlock(&m->lock);
	return made;
}

static const char *node_path(const struct fs_node *n)
{
	return n->path ? n->path : "";
}

/* The job of a code/ place and its parsed annotation (a reference), or NULL when the
 * job is gone or has no code/. */
static struct parsed *code_of(struct fs *fs, const struct fs_node *node, const struct job **jobp)
{
	const struct job *job = fs->up.job(fs, node);
	struct parsed *p = job ? parsed_of(fs, job) : NULL;

	if (p && p->err) {
		parsed_put(p);
		p = NULL;
	}
	if (jobp)
		*jobp = job;
	return p;
}

bool codetree_has_code(struct fs *fs, const struct fs_node *job_dir)
{
	struct parsed *p = code_of(fs, job_dir, NULL);

	parsed_put(p);
	return p != NULL;
}

/* "PARENT/NAME", or NAME below code/ itself; NULL on ENOMEM. */
static char *join(const char *dir, const char *name, size_t len)
{
	char *s;

	if (!*dir)
		return strndup(name, len);
	if (asprintf(&s, "%s/%.*s", dir, (int)len, name) < 0)
		return NULL;
	return s;
}

/* A file's identity: the job's uid, then what its bytes and attributes come from.
 * NULL on ENOMEM. */
static char *file_identity(const char *uid, const struct code_index *ix,
			   const struct code_file *f)
{
	char *s;

	if (asprintf(&s, "%s/%s/%s/%llu/%o", uid ? uid : "", ix->configmap, f->key,
		     (unsigned long long)f->size, f->mode) < 0)
		return NULL;
	return s;
}

/* The node of entry path (a file when f is set) below dir. Takes path. */
static int entry_node(const struct fs_node *dir, char *path, const struct code_index *ix,
		      const struct code_file *f, struct fs_node *out)
{
	int ret = fs_node_copy(out, dir);

	if (ret) {
		free(path);
		return ret;
	}
	free(out->path);
	out->path = path;
	out->type = f ? FS_CODE_FILE : FS_CODE_SUBDIR;
	if (f) {
		free(out->identity);
		if (!(out->identity = file_identity(dir->uid, ix, f))) {
			fs_node_clear(out);
			return -ENOMEM;
		}
	}
	return 0;
}

int codetree_lookup(struct fs *fs, const struct fs_node *dir, const char *name,
		    struct fs_node *out)
{
	const struct code_file *f = NULL;
	struct parsed *p = code_of(fs, dir, NULL);
	enum code_kind k;
	char *path;
	int ret;

	*out = (struct fs_node)FS_NODE_INIT;
	if (!p)
		return -ENOENT;
	path = join(node_path(dir), name, strlen(name));
	if (!path) {
		parsed_put(p);
		return -ENOMEM;
	}
	k = code_index_find(&p->ix, path, &f);
	if (k == CODE_NONE) {
		free(path);
		ret = -ENOENT;
	} else {
		ret = entry_node(dir, path, &p->ix, k == CODE_FILE ? f : NULL, out);
	}
	parsed_put(p);
	return ret;
}

bool codetree_dir_exists(struct fs *fs, const struct fs_node *dir)
{
	struct parsed *p = code_of(fs, dir, NULL);
	bool is_dir = p && code_index_find(&p->ix, node_path(dir), NULL) == CODE_DIR;

	parsed_put(p);
	return is_dir;
}

int codetree_list(struct fs *fs, const struct fs_node *dir, struct fs_entry **out, size_t *n)
{
	struct parsed *p = code_of(fs, dir, NULL);
	struct code_name *names = NULL;
	struct fs_entry *e = NULL;
	size_t count = 0, made = 0;
	int ret;

	*out = NULL;
	*n = 0;
	if (!p)
		return -ENOENT;
	ret = code_index_list(&p->ix, node_path(dir), &names, &count);
	if (!ret && count && !(e = calloc(count, sizeof(*e))))
		ret = -ENOMEM;
	for (; !ret && made < count; made++) {
		char *path = join(node_path(dir), names[made].name, names[made].len);

		e[made].name = strndup(names[made].name, names[made].len);
		if (!e[made].name || !path) {
			free(path);
			ret = -ENOMEM;
			break;
		}
		ret = entry_node(dir, path, &p->ix, names[made].file, &e[made].node);
	}
	free(names);
	parsed_put(p);
	if (ret) {
		fs_entries_free(e, count);   /* calloc'd: entries not reached are empty */
		return ret;
	}
	*out = e;
	*n = count;
	return 0;
}

int codetree_file(struct fs *fs, const struct fs_node *node, struct codetree_file *out)
{
	const struct code_file *f = NULL;
	const struct job *job;
	struct parsed *p = code_of(fs, node, &job);
	int ret = -ENOENT;
	char *id = NULL;

	if (!p)
		return -ENOENT;
	if (code_index_find(&p->ix, node_path(node), &f) == CODE_FILE &&
	    (id = file_identity(node->uid, &p->ix, f))) {
		/* another identity: the annotation changed under this inode */
		if (node->identity && strcmp(id, node->identity) == 0 &&
		    snprintf(out->ns, sizeof(out->ns), "%s", job->meta.namespace) <
			    (int)sizeof(out->ns) &&
		    snprintf(out->job, sizeof(out->job), "%s", job->meta.name) <
			    (int)sizeof(out->job) &&
		    snprintf(out->uid, sizeof(out->uid), "%s", job->meta.uid) <
			    (int)sizeof(out->uid)) {
			snprintf(out->configmap, sizeof(out->configmap), "%s", p->ix.configmap);
			snprintf(out->key, sizeof(out->key), "%s", f->key);
			out->size = f->size;
			out->perm = code_file_perm(f);
			out->mtime = job->meta.created;
			ret = 0;
		}
		free(id);
	}
	parsed_put(p);
	return ret;
}

int codetree_dir_mtime(struct fs *fs, const struct fs_node *dir, int64_t *mtime)
{
	const struct job *job;
	struct parsed *p = code_of(fs, dir, &job);
	bool is_dir = p && code_index_find(&p->ix, node_path(dir), NULL) == CODE_DIR;

	parsed_put(p);
	if (!is_dir)
		return -ENOENT;
	*mtime = job->meta.created;
	return 0;
}
