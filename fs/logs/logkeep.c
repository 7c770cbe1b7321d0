/*
 * Kept logs on disk (logkeep.h): the cluster's directory, the meta files, the
 * scan at start, commits and the deletions the index (logkeep_index.c) asks for.
 *
 * Everything below the cluster's directory is reached with openat() from its
 * descriptor, component by component, with O_NOFOLLOW: a name is never joined
 * into a path that could climb out. A copy is written to a temporary file in the
 * cluster's directory and renamed into place, its meta file last, so that a copy
 * with a meta file is always whole; a copy left without one (a crash between the
 * renames) is deleted by the next scan.
 *
 * Every instance of a container (restartCount N) has a copy of its own, CONTAINER.N,
 * so that instances/POD/attempts/ shows each attempt's log (docs/tree.md,
 * "instances/POD/attempts/"); a copy of an earlier arenafs, named CONTAINER alone,
 * is renamed so by the scan. A copy the budget drops, or that was larger than
 * keep_logs, is remembered in a second index (memory only, the newest
 * LOGKEEP_MAX_DROPPED), so that its attempt says so instead of looking empty.
 *
 * The meta file, one "key value" a line:
 *
 *     arenafs-kept-log 1
 *     ns default
 *     job mnist
 *     kind 0
 *     pod mnist-worker-0
 *     container tensorflow
 *     job_uid 5c1f...
 *     pod_uid 9e2a...
 *     instance 0
 *     finished 1796202869
 *     main 1
 *     started 1796202859
 *     exit 1
 *     reason Error
 *
 * The disk: keep_logs is a wish, the disk's free space a fact. At open, before
 * each copy is written (logkeep_make_room) and when a write fails for want of
 * space (ENOSPC, EDQUOT), the budget becomes what the disk holds (the copies kept
 * plus the space free, less an eighth for meta files, directories and blocks),
 * never more than keep_logs, and the least recently used copies go to fit it:
 * room is made before a copy is written, not after. The last failure is
 * remembered for cluster/health and info (logkeep_state) until a copy is kept.
 */
#include "fs/logs/logkeep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "k8s/base/fdio.h"
#include "k8s/base/hash.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

#define META_MAX 4096
#define META_MAGIC "arenafs-kept-log 1"

struct logkeep {
	pthread_mutex_t mu;
	struct logkeep_index idx;
	int dirfd;                   /* DIR/CLUSTER */
	char *dir;
	/* under mu: what keeping is up against (logkeep_state) */
	uint64_t asked;              /* keep_logs */
	int err;                     /* the last copy's failure, 0 once one is kept */
	int64_t err_since;
	char err_log[200];           /* the log that failed: "NS/POD" */
	struct logkeep_index gone;   /* copies dropped (size 0), under mu */
};

/* ---- names ---- */

/* One path component we made: letters, digits, '-', '_' and (but for a container,
 * whose name has none, so that "C.meta" is never a container) '.', not first. */
static bool component_ok(const char *s, bool dots)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 253 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || (dots && c == '.')))
			return false;
	}
	return true;
}

static bool meta_names_ok(const struct logkeep_meta *m)
{
	return component_ok(m->ns, true) && component_ok(m->job, true) &&
	       component_ok(m->pod, true) && component_ok(m->container, false) &&
	       component_ok(m->pod_uid, false) && (!m->job_uid[0] || component_ok(m->job_uid, false));
}

static int make_key(struct strbuf *sb, const char *ns, const char *job, const char *pod,
		    const char *container, int instance)
{
	strbuf_printf(sb, "%s/%s/%s/%s.%d", ns, job, pod, container, instance);
	return strbuf_ok(sb) ? 0 : -ENOMEM;
}

static int meta_key(struct strbuf *sb, const struct logkeep_meta *m)
{
	return make_key(sb, m->ns, m->job, m->pod, m->container, m->instance);
}

/* The copy's file name in its pod's directory: the key's last component, C.N. */
static const char *file_of(const struct logkeep_entry *e)
{
	const char *slash = strrchr(e->key, '/');

	return slash ? slash + 1 : e->key;
}

/* The instance an identity names: N of "UID/C/N", N-1 of "UID/C/prevN"; -1 if none. */
static int identity_instance(const char *identity)
{
	const char *last = identity ? strrchr(identity, '/') : NULL;
	char *end;
	long n;
	bool prev;

	if (!last)
		return -1;
	prev = strncmp(last + 1, "prev", 4) == 0;
	n = strtol(last + 1 + (prev ? 4 : 0), &end, 10);
	if (end == last + 1 + (prev ? 4 : 0) || *end || n < 0 || n > 1000000000)
		return -1;
	return (int)n - (prev ? 1 : 0);
}

/* Whether the kept meta stands for the identity of a log node (logkeep.h). */
static bool logkeep_meta_is(const struct logkeep_meta *m, const char *identity)
{
	size_t nu = strlen(m->pod_uid), nc = strlen(m->container);
	const char *rest;
	char num[16];

	if (!identity || strncmp(identity, m->pod_uid, nu) != 0 || identity[nu] != '/' ||
	    strncmp(identity + nu + 1, m->container, nc) != 0 || identity[nu + 1 + nc] != '/')
		return false;
	rest = identity + nu + 1 + nc + 1;
	/* the current instance N, or the previous one of N+1 (logs.previous) */
	snprintf(num, sizeof(num), "%d", m->instance);
	if (strcmp(rest, num) == 0)
		return true;
	snprintf(num, sizeof(num), "prev%d", m->instance + 1);
	return strcmp(rest, num) == 0;
}

/* ---- directories ---- */

/* Opens (making it 0700 when missing) the directory name below dirfd. */
static int open_dir_at(int dirfd, const char *name, bool create)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* The directory of a pod's copies, NS/JOB/POD below the cluster's. */
static int open_pod_dir(struct logkeep *k, const char *ns, const char *job, const char *pod,
			bool create)
{
	const char *parts[] = {ns, job, pod};
	int fd = k->dirfd;

	for (size_t i = 0; i < 3; i++) {
		int next = open_dir_at(fd, parts[i], create);

		if (fd != k->dirfd)
			close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

/* mkdir -p of an absolute path, 0700 for what is made. */
static int make_path(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf) || path[0] != '/')
		return -EINVAL;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* ---- meta files ---- */

static void meta_write(struct strbuf *sb, const struct logkeep_meta *m)
{
	strbuf_printf(sb, META_MAGIC "\nns %s\njob %s\nkind %d\npod %s\ncontainer %s\n"
		      "job_uid %s\npod_uid %s\ninstance %d\nfinished %" PRId64 "\nmain %d\n",
		      m->ns, m->job, m->kind, m->pod, m->container, m->job_uid, m->pod_uid,
		      m->instance, m->finished, m->main ? 1 : 0);
	strbuf_printf(sb, "started %" PRId64 "\nexit %d\nreason %s\n", m->started, m->exit_code,
		      m->reason);
}

/* Parses text (NUL-terminated, modified) into m, whose strings point into text. */
static int meta_parse(char *text, struct logkeep_meta *m)
{
	char *line, *save = NULL;
	int fields = 0;

	memset(m, 0, sizeof(*m));
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, META_MAGIC) != 0)
		return -EINVAL;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *v = strchr(line, ' ');

		if (!v)
			return -EINVAL;
		*v++ = '\0';
		fields++;
		if (strcmp(line, "ns") == 0)
			m->ns = v;
		else if (strcmp(line, "job") == 0)
			m->job = v;
		else if (strcmp(line, "kind") == 0)
			m->kind = atoi(v);
		else if (strcmp(line, "pod") == 0)
			m->pod = v;
		else if (strcmp(line, "container") == 0)
			m->container = v;
		else if (strcmp(line, "job_uid") == 0)
			m->job_uid = v;
		else if (strcmp(line, "pod_uid") == 0)
			m->pod_uid = v;
		else if (strcmp(line, "instance") == 0)
			m->instance = atoi(v);
		else if (strcmp(line, "finished") == 0)
			m->finished = strtoll(v, NULL, 10);
		else if (strcmp(line, "main") == 0)
			m->main = strcmp(v, "1") == 0;
		else if (strcmp(line, "started") == 0)
			m->started = strtoll(v, NULL, 10), fields--;   /* optional: not in 1's first */
		else if (strcmp(line, "exit") == 0)
			m->exit_code = atoi(v), fields--;
		else if (strcmp(line, "reason") == 0)
			snprintf(m->reason, sizeof(m->reason), "%s", v), fields--;
		else
			fields--;   /* a later version's: ignored */
	}
	if (fields < 10 || !m->ns || !m->job || !m->pod || !m->container || !m->job_uid ||
	    !m->pod_uid)
		return -EINVAL;
	return 0;
}

/* ---- the scan at start ---- */

struct found {
	struct logkeep_entry *e;
	int64_t used;
};

struct scan {
	struct found *f;
	size_t n, cap;
};

static int by_use(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* An earlier arenafs' copy, CONTAINER and CONTAINER.meta (one per container): renamed
 * to CONTAINER.N, the name of its instance, the log first. */
static bool migrate(int podfd, const char *old, const char *name)
{
	char old_meta[300], meta[300];

	snprintf(old_meta, sizeof(old_meta), "%s.meta", old);
	snprintf(meta, sizeof(meta), "%s.meta", name);
	return renameat(podfd, old, podfd, name) == 0 &&
	       renameat(podfd, old_meta, podfd, meta) == 0;
}

/* Reads the meta file name (in the pod directory podfd) and adds what it describes. */
static void scan_meta(int podfd, const char *rel, const char *name, struct scan *s)
{
	char text[META_MAX + 1], log_name[256];
	struct logkeep_meta m;
	struct strbuf key = STRBUF_INIT;
	struct stat st;
	ssize_t n;
	int fd = openat(podfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = strlen(name) - strlen(".meta");

	if (fd < 0)
		return;
	n = read(fd, text, META_MAX);
	close(fd);
	if (n <= 0 || len >= sizeof(log_name))
		return;
	text[n] = '\0';
	memcpy(log_name, name, len);
	log_name[len] = '\0';
	/* the meta file must describe the copy where it lies */
	if (meta_parse(text, &m) < 0 || !meta_names_ok(&m) || meta_key(&key, &m) < 0 ||
	    strncmp(key.buf, rel, strlen(rel)) != 0)
		goto out;
	if (strcmp(log_name, m.container) == 0 && !migrate(podfd, log_name, key.buf + strlen(rel)))
		goto out;
	if (strcmp(key.buf + strlen(rel), log_name) != 0 && strcmp(log_name, m.container) != 0)
		goto out;
	if (fstatat(podfd, key.buf + strlen(rel), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		goto out;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		struct found *nf = realloc(s->f, nc * sizeof(*nf));

		if (!nf)
			goto out;
		s->f = nf;
		s->cap = nc;
	}
	s->f[s->n].e = logkeep_entry_new(key.buf, &m, (uint64_t)st.st_size);
	s->f[s->n].used = st.st_mtim.tv_sec;
	if (s->f[s->n].e)
		s->n++;
out:
	strbuf_free(&key);
}

/* Whether the pod directory podfd has a meta file for the copy name. */
static bool has_meta(int podfd, const char *name)
{
	char meta[300];
	struct stat st;

	return snprintf(meta, sizeof(meta), "%s.meta", name) < (int)sizeof(meta) &&
	       fstatat(podfd, meta, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Walks NS/JOB/POD (depth 0, 1, 2) below dirfd; rel is the path so far ("NS/JOB/"). */
static void scan_dir(int dirfd, int depth, const char *rel, struct scan *s)
{
	DIR *d;
	struct dirent *de;
	int fd = dup(dirfd);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		size_t n = strlen(name);
		char sub[1024];
		int subfd;

		if (name[0] == '.') {
			/* a temporary file an interrupted write left */
			if (depth == 0 && strncmp(name, ".tmp-", 5) == 0)
				unlinkat(dirfd, name, 0);
			continue;
		}
		if (depth == 3) {
			if (n > 5 && strcmp(name + n - 5, ".meta") == 0)
				scan_meta(dirfd, rel, name, s);
			else if (!has_meta(dirfd, name))
				unlinkat(dirfd, name, 0);   /* a copy whose meta file never came */
			continue;
		}
		if (!component_ok(name, true) ||
		    snprintf(sub, sizeof(sub), "%s%s/", rel, name) >= (int)sizeof(sub))
			continue;
		subfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (subfd < 0)
			continue;
		scan_dir(subfd, depth + 1, sub, s);
		close(subfd);
	}
	closedir(d);
}

/* ---- deleting ---- */

/* Deletes a copy and its meta file, then the directories left empty. Under k->mu. */
static void delete_copy(struct logkeep *k, const struct logkeep_entry *e)
{
	const struct logkeep_meta *m = &e->meta;
	char meta[300];
	int podfd = open_pod_dir(k, m->ns, m->job, m->pod, false);
	int jobfd, nsfd;

	if (podfd < 0)
		return;
	snprintf(meta, sizeof(meta), "%s.meta", file_of(e));
	unlinkat(podfd, meta, 0);
	unlinkat(podfd, file_of(e), 0);
	close(podfd);
	/* rmdir fails on a directory that still holds something: that is the test */
	nsfd = open_dir_at(k->dirfd, m->ns, false);
	if (nsfd < 0)
		return;
	jobfd = open_dir_at(nsfd, m->job, false);
	if (jobfd >= 0) {
		unlinkat(jobfd, m->pod, AT_REMOVEDIR);
		close(jobfd);
		unlinkat(nsfd, m->job, AT_REMOVEDIR);
	}
	close(nsfd);
	unlinkat(k->dirfd, m->ns, AT_REMOVEDIR);
}

/* Remembers that the copy of e's instance is gone (why: 0 the budget, EFBIG too large),
 * taking e. Under k->mu, or before k is shared. */
static void remember_gone(struct logkeep *k, struct logkeep_entry *e, int why)
{
	struct logkeep_entry *forgotten = NULL;

	e->size = 0;
	e->dropped = time_now();
	e->dropped_why = why;
	if (logkeep_index_put(&k->gone, e, &forgotten) < 0)
		logkeep_entry_free(e);
	while (forgotten) {
		struct logkeep_entry *next = forgotten->older;

		logkeep_entry_free(forgotten);
		forgotten = next;
	}
}

/* Deletes the copies the budget dropped, and remembers them. Under k->mu. */
static void delete_dropped(struct logkeep *k, struct logkeep_entry *dropped)
{
	while (dropped) {
		struct logkeep_entry *next = dropped->older;

		delete_copy(k, dropped);
		remember_gone(k, dropped, 0);
		dropped = next;
	}
}

/* ---- the disk's size ---- */

/* Sets the budget to what the disk holds, never above keep_logs (it grows back when
 * the disk has room again), dropping what no longer fits. Under k->mu, or before k
 * is shared. */
static void fit_disk(struct logkeep *k)
{
	struct logkeep_entry *dropped = NULL;
	struct statvfs st;
	uint64_t holds;

	if (fstatvfs(k->dirfd, &st) < 0)
		return;
	holds = k->idx.total + (uint64_t)st.f_bavail * st.f_frsize;
	holds -= holds / LOGKEEP_DISK_SLACK;
	k->idx.budget = holds < k->asked ? holds : k->asked;
	logkeep_index_make_room(&k->idx, 0, &dropped);
	delete_dropped(k, dropped);
}

int logkeep_make_room(struct logkeep *k, uint64_t size)
{
	struct logkeep_entry *dropped = NULL;
	bool fits;
	int ret;

	pthread_mutex_lock(&k->mu);
	fit_disk(k);
	fits = logkeep_index_make_room(&k->idx, size, &dropped);
	delete_dropped(k, dropped);
	/* too large for keep_logs, or for what the disk holds */
	ret = fits ? 0 : k->idx.budget < k->asked ? -ENOSPC : -EFBIG;
	pthread_mutex_unlock(&k->mu);
	return ret;
}

void logkeep_failed(struct logkeep *k, const char *ns, const char *pod, int err, int64_t now)
{
	pthread_mutex_lock(&k->mu);
	if (err == ENOSPC || err == EDQUOT)
		fit_disk(k);
	if (k->err != err)
		k->err_since = now;
	k->err = err;
	snprintf(k->err_log, sizeof(k->err_log), "%s/%s", ns, pod);
	pthread_mutex_unlock(&k->mu);
}

void logkeep_kept(struct logkeep *k)
{
	pthread_mutex_lock(&k->mu);
	k->err = 0;
	k->err_since = 0;
	k->err_log[0] = '\0';
	pthread_mutex_unlock(&k->mu);
}

void logkeep_state(struct logkeep *k, struct logs_kept_state *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&k->mu);
	out->budget = k->idx.budget;
	out->asked = k->asked;
	out->err = k->err;
	out->since = k->err_since;
	snprintf(out->log, sizeof(out->log), "%s", k->err_log);
	snprintf(out->dir, sizeof(out->dir), "%s", k->dir);
	pthread_mutex_unlock(&k->mu);
}

/* ---- open and free ---- */

int logkeep_open(const char *dir, const char *server, uint64_t budget, struct logkeep **out,
		 char *why, size_t why_size)
{
	struct logkeep *k = calloc(1, sizeof(*k));
	struct scan s = {NULL, 0, 0};
	int fd, ret;

	*out = NULL;
	if (!k || logkeep_index_init(&k->idx, budget, LOGKEEP_MAX_LOGS) < 0 ||
	    logkeep_index_init(&k->gone, UINT64_MAX, LOGKEEP_MAX_DROPPED) < 0 ||
	    asprintf(&k->dir, "%s/%016" PRIx64, dir,
		     hash_fnv1a_str(HASH_FNV1A_INIT, server ? server : "")) < 0) {
		if (k) {
			logkeep_index_clear(&k->idx);
			logkeep_index_clear(&k->gone);
		}
		free(k);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	k->dirfd = -1;
	pthread_mutex_init(&k->mu, NULL);
	ret = make_path(k->dir);
	if (ret == 0) {
		k->dirfd = open(k->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (k->dirfd < 0)
			ret = -errno;
	}
	/* DIR itself is arenafs': nobody else reads the logs below it */
	if (ret == 0 && chmod(dir, 0700) < 0)
		ret = -errno;
	if (ret < 0) {
		snprintf(why, why_size, "cannot use %s: %s", k->dir, strerror(-ret));
		logkeep_free(k);
		return ret;
	}
	fd = openat(k->dirfd, "server.url", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		fd_write_all(fd, server ? server : "", strlen(server ? server : ""), -1);
		fd_write_all(fd, "\n", 1, -1);
		close(fd);
	}
	scan_dir(k->dirfd, 0, "", &s);
	/* oldest first, so that the budget drops the least recently used */
	if (s.n > 1)
		qsort(s.f, s.n, sizeof(*s.f), by_use);
	for (size_t i = 0; i < s.n; i++) {
		struct logkeep_entry *dropped = NULL;

		if (logkeep_index_put(&k->idx, s.f[i].e, &dropped) < 0) {
			delete_copy(k, s.f[i].e);
			logkeep_entry_free(s.f[i].e);
		}
		delete_dropped(k, dropped);
	}
	free(s.f);
	k->asked = budget;
	fit_disk(k);
	*out = k;
	return 0;
}

void logkeep_free(struct logkeep *k)
{
	if (!k)
		return;
	logkeep_index_clear(&k->idx);
	logkeep_index_clear(&k->gone);
	if (k->dirfd >= 0)
		close(k->dirfd);
	pthread_mutex_destroy(&k->mu);
	free(k->dir);
	free(k);
}

const char *logkeep_dir(const struct logkeep *k)
{
	return k->dir;
}

void logkeep_usage(struct logkeep *k, uint64_t *bytes, size_t *n)
{
	pthread_mutex_lock(&k->mu);
	*bytes = k->idx.total;
	*n = k->idx.n;
	pthread_mutex_unlock(&k->mu);
}

/* ---- lookups ---- */

/* The entry of r, when it holds r's instance. Under k->mu. */
static struct logkeep_entry *find_ref(struct logkeep *k, const struct logkeep_ref *r)
{
	struct strbuf key = STRBUF_INIT;
	struct logkeep_entry *e = NULL;
	int instance = identity_instance(r->identity);

	if (r->ns && r->job && r->pod && r->container && instance >= 0 &&
	    make_key(&key, r->ns, r->job, r->pod, r->container, instance) == 0)
		e = logkeep_index_find(&k->idx, key.buf);
	strbuf_free(&key);
	return e && logkeep_meta_is(&e->meta, r->identity) ? e : NULL;
}

bool logkeep_has(struct logkeep *k, const struct logkeep_ref *r, uint64_t *size,
		 int64_t *finished)
{
	struct logkeep_entry *e;

	pthread_mutex_lock(&k->mu);
	e = find_ref(k, r);
	if (e) {
		*size = e->size;
		*finished = e->meta.finished;
	}
	pthread_mutex_unlock(&k->mu);
	return e != NULL;
}

int logkeep_open_log(struct logkeep *k, const struct logkeep_ref *r, int *fd, uint64_t *size)
{
	struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
	struct logkeep_entry *e;
	struct stat st;
	int podfd, ret = 0;

	*fd = -1;
	pthread_mutex_lock(&k->mu);
	e = find_ref(k, r);
	if (!e) {
		ret = -ENOENT;
		goto out;
	}
	podfd = open_pod_dir(k, e->meta.ns, e->meta.job, e->meta.pod, false);
	if (podfd >= 0) {
		*fd = openat(podfd, file_of(e), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		close(podfd);
	}
	if (*fd < 0 || fstat(*fd, &st) < 0 || (uint64_t)st.st_size != e->size) {
		/* deleted or replaced behind our back (another mount of the cluster) */
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		logkeep_index_remove(&k->idx, e);
		logkeep_entry_free(e);
		ret = -ENOENT;
		goto out;
	}
	*size = e->size;
	logkeep_index_touch(&k->idx, e);
	futimens(*fd, times);   /* the LRU order the next mount reads */
out:
	pthread_mutex_unlock(&k->mu);
	return ret;
}

struct entries {
	struct logkeep_entry **arr;
	size_t n, cap;
};

/* Appends copies of x's entries of the job (and of the pod pod_uid unless NULL). Under
 * k->mu. false when out of memory. */
static bool collect(struct logkeep_index *x, const char *ns, int kind, const char *job,
		    const char *job_uid, const char *pod_uid, struct entries *out)
{
	for (struct logkeep_entry *e = logkeep_index_job_chain(x, job_uid); e; e = e->jnext) {
		const struct logkeep_meta *m = &e->meta;
		struct logkeep_entry *copy;

		if (m->kind != kind || strcmp(m->ns, ns) != 0 || strcmp(m->job, job) != 0 ||
		    strcmp(m->job_uid, job_uid) != 0 || (pod_uid && strcmp(m->pod_uid, pod_uid) != 0))
			continue;
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 8;
			struct logkeep_entry **na = realloc(out->arr, nc * sizeof(*na));

			if (!na)
				return false;
			out->arr = na;
			out->cap = nc;
		}
		copy = logkeep_entry_new(e->key, m, e->size);
		if (!copy)
			return false;
		copy->dropped = e->dropped;
		copy->dropped_why = e->dropped_why;
		out->arr[out->n++] = copy;
	}
	return true;
}

size_t logkeep_of_job(struct logkeep *k, const char *ns, int kind, const char *job,
		      const char *job_uid, struct logkeep_entry ***out)
{
	struct entries got = {NULL, 0, 0};

	pthread_mutex_lock(&k->mu);
	collect(&k->idx, ns, kind, job, job_uid, NULL, &got);
	pthread_mutex_unlock(&k->mu);
	*out = got.arr;
	return got.n;
}

size_t logkeep_of_pod(struct logkeep *k, const char *ns, int kind, const char *job,
		      const char *job_uid, const char *pod_uid, struct logkeep_entry ***out)
{
	struct entries got = {NULL, 0, 0};

	pthread_mutex_lock(&k->mu);
	if (collect(&k->idx, ns, kind, job, job_uid, pod_uid, &got))
		collect(&k->gone, ns, kind, job, job_uid, pod_uid, &got);
	pthread_mutex_unlock(&k->mu);
	*out = got.arr;
	return got.n;
}

void logkeep_not_kept(struct logkeep *k, const struct logkeep_meta *meta, int why)
{
	struct strbuf key = STRBUF_INIT;
	struct logkeep_entry *e = NULL;

	if (meta_key(&key, meta) == 0)
		e = logkeep_entry_new(key.buf, meta, 0);
	strbuf_free(&key);
	if (!e)
		return;
	pthread_mutex_lock(&k->mu);
	remember_gone(k, e, why);
	pthread_mutex_unlock(&k->mu);
}

void logkeep_entries_free(struct logkeep_entry **e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		logkeep_entry_free(e[i]);
	free(e);
}

/* ---- writing ---- */

int logkeep_tmp(struct logkeep *k, char *name, size_t name_size)
{
	static const char ALNUM[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	struct timespec ts;

	for (int attempt = 0; attempt < 16; attempt++) {
		uint64_t h;
		int fd;

		clock_gettime(CLOCK_REALTIME, &ts);
		h = hash_fnv1a(HASH_FNV1A_INIT, &ts, sizeof(ts)) ^ ((uint64_t)getpid() << 20) ^
		    (uint64_t)attempt;
		if (name_size < 32)
			return -EINVAL;
		memcpy(name, ".tmp-", 5);
		for (int i = 0; i < 12; i++, h /= 36)
			name[5 + i] = ALNUM[h % 36];
		name[17] = '\0';
		fd = openat(k->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

void logkeep_discard(struct logkeep *k, const char *name)
{
	unlinkat(k->dirfd, name, 0);
}

/* Writes the meta file of m next to its copy: a temporary file renamed into place. */
static int put_meta(struct logkeep *k, int podfd, const char *file, const struct logkeep_meta *m)
{
	struct strbuf text = STRBUF_INIT;
	char tmp[32], meta[300];
	int fd, ret;

	meta_write(&text, m);
	if (!strbuf_ok(&text)) {
		strbuf_free(&text);
		return -ENOMEM;
	}
	fd = logkeep_tmp(k, tmp, sizeof(tmp));
	if (fd < 0) {
		strbuf_free(&text);
		return fd;
	}
	ret = fd_write_all(fd, text.buf, text.len, -1);
	close(fd);
	strbuf_free(&text);
	snprintf(meta, sizeof(meta), "%s.meta", file);
	if (ret == 0 && renameat(k->dirfd, tmp, podfd, meta) < 0)
		ret = -errno;
	if (ret < 0)
		unlinkat(k->dirfd, tmp, 0);
	return ret;
}

int logkeep_commit(struct logkeep *k, const struct logkeep_meta *meta, const char *name,
		   uint64_t size)
{
	struct strbuf key = STRBUF_INIT;
	struct logkeep_entry *e = NULL, *dropped = NULL, *old;
	char old_meta[300];
	int podfd = -1, ret;

	if (!meta_names_ok(meta)) {
		logkeep_discard(k, name);
		return -EINVAL;
	}
	ret = meta_key(&key, meta);
	if (ret == 0 && !(e = logkeep_entry_new(key.buf, meta, size)))
		ret = -ENOMEM;
	strbuf_free(&key);
	if (ret < 0) {
		logkeep_discard(k, name);
		return ret;
	}
	if (size > k->idx.budget) {
		logkeep_discard(k, name);
		logkeep_entry_free(e);
		return -EFBIG;
	}
	pthread_mutex_lock(&k->mu);
	podfd = open_pod_dir(k, meta->ns, meta->job, meta->pod, true);
	if (podfd < 0) {
		ret = podfd;
		goto fail;
	}
	/* an older copy of this instance (fetched again): its meta goes first, so that a
	 * copy and a meta file that disagree never exist */
	snprintf(old_meta, sizeof(old_meta), "%s.meta", file_of(e));
	unlinkat(podfd, old_meta, 0);
	if ((old = logkeep_index_find(&k->idx, e->key))) {
		logkeep_index_remove(&k->idx, old);
		logkeep_entry_free(old);
	}
	if ((old = logkeep_index_find(&k->gone, e->key))) {
		logkeep_index_remove(&k->gone, old);
		logkeep_entry_free(old);
	}
	if (renameat(k->dirfd, name, podfd, file_of(e)) < 0) {
		ret = -errno;
		goto fail;
	}
	ret = put_meta(k, podfd, file_of(e), meta);
	if (ret < 0) {
		unlinkat(podfd, file_of(e), 0);
		close(podfd);
		logkeep_entry_free(e);
		pthread_mutex_unlock(&k->mu);
		return ret;
	}
	close(podfd);
	logkeep_index_put(&k->idx, e, &dropped);   /* cannot fail: size is within budget */
	delete_dropped(k, dropped);
	pthread_mutex_unlock(&k->mu);
	return 0;
fail:
	if (podfd >= 0)
		close(podfd);
	pthread_mutex_unlock(&k->mu);
	logkeep_discard(k, name);
	logkeep_entry_free(e);
	return ret;
}
