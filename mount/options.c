/*
 * Command-line parsing (options.h): arenafs' -o options through fuse_opt's
 * offsetof table, then libfuse's own command line (fuse_parse_cmdline: -f, -d,
 * -s, -h, -V, the mount point, thread counts). The rest stays in o->args for
 * fuse_session_new, which refuses unknown options with its own message.
 *
 * Every option is documented in docs/arenafs.1 and in --help below.
 */
#include "mount/options.h"

#include "k8s/http/client.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "k8s/base/suggest.h"
#include "k8s/base/version.h"

enum { KEY_ALLOW_OTHER, KEY_DEFAULT_PERMISSIONS, KEY_FSNAME, KEY_SUBTYPE };

/* Options fstab lines carry for mount(8) and systemd, which mount.fuse3 passes on:
 * nothing for arenafs or libfuse (which would refuse them). */
static bool fstab_only(const char *opt)
{
	static const char *const WORDS[] = {"defaults", "auto", "noauto", "user", "users",
					    "nouser", "owner", "group", "_netdev", "nofail"};

	if (strncmp(opt, "x-", 2) == 0 || strncmp(opt, "comment=", 8) == 0)
		return true;
	for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++)
		if (strcmp(opt, WORDS[i]) == 0)
			return true;
	return false;
}

#define OPT(t, p) {t, offsetof(struct mount_options, p), 1}

static const struct fuse_opt OPTS[] = {
	OPT("kubeconfig=%s", kubeconfig),
	OPT("context=%s", context),
	OPT("namespace=%s", namespace),
	OPT("prometheus=%s", prometheus),
	OPT("readonly", readonly),
	OPT("attr_timeout=%lf", attr_timeout),
	OPT("entry_timeout=%lf", entry_timeout),
	OPT("static_timeout=%lf", static_timeout),
	OPT("log_wait=%d", log_wait_ms),
	OPT("max_inodes=%lld", max_inodes),
	OPT("request_timeout=%lf", request_timeout),
	OPT("startup_timeout=%lf", startup_timeout),
	OPT("keep_logs=%s", keep_logs),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
	FUSE_OPT_KEY("fsname=", KEY_FSNAME),
	FUSE_OPT_KEY("subtype=", KEY_SUBTYPE),
	FUSE_OPT_END,
};

/* libfuse's own -o options (fuse_session_new, fuse_parse_cmdline, the mount
 * flags): never taken for a typo of arenafs' */
static const char *const FUSE_WORDS[] = {
	"allow_root", "auto_unmount", "blkdev", "blksize", "max_read", "max_write",
	"max_readahead", "max_background", "congestion_threshold", "sync_read", "async_read",
	"atomic_o_trunc", "no_remote_lock", "no_remote_flock", "no_remote_posix_lock",
	"splice_write", "splice_move", "splice_read", "auto_inval_data", "readdirplus",
	"async_dio", "writeback_cache", "time_gran", "debug", "rootmode", "user_id",
	"group_id", "rw", "ro", "suid", "nosuid", "dev", "nodev", "exec", "noexec", "async",
	"sync", "atime", "noatime", "dirsync", "max_threads", "max_idle_threads", "clone_fd",
};

#define N_OPTS        (sizeof(OPTS) / sizeof(OPTS[0]) - 1)
#define N_FUSE_WORDS  (sizeof(FUSE_WORDS) / sizeof(FUSE_WORDS[0]))

/*
 * An option neither arenafs nor fstab takes, close to one of arenafs' own
 * (request_timout=5): says which was meant, and true; libfuse would only say it is
 * unknown. Any other goes on to libfuse, which refuses what it does not know.
 */
static bool near_miss(const char *arg)
{
	char names[N_OPTS][32], word[64];
	const char *words[N_OPTS + N_FUSE_WORDS + 1];
	const char *near;
	size_t n = 0;

	for (size_t i = 0; i < N_OPTS; i++) {
		snprintf(names[i], sizeof(names[i]), "%.*s", (int)strcspn(OPTS[i].templ, "="),
		         OPTS[i].templ);
		words[n++] = names[i];
	}
	for (size_t i = 0; i < N_FUSE_WORDS; i++)
		words[n++] = FUSE_WORDS[i];
	words[n] = NULL;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
	near = k8s_suggest(word, words);
	/* not the word itself (a value where none goes: libfuse says so), nor libfuse's */
	for (size_t i = 0; near && strcmp(near, word) != 0 && i < N_OPTS; i++)
		if (near == words[i]) {
			fprintf(stderr, "arenafs: unknown option %s (did you mean %s?)\n", arg, near);
			return true;
		}
	return false;
}

/* Notes the libfuse options arenafs must know of, and passes them on (returns 1). */
static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct mount_options *o = data;

	(void)outargs;
	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		/* [SOURCE] MOUNTPOINT: kept aside, the mount point goes back after parsing */
		if (o->n_words == 2) {
			fprintf(stderr, "arenafs: too many arguments: %s (see arenafs --help)\n", arg);
			return -1;
		}
		o->words[o->n_words] = strdup(arg);
		return o->words[o->n_words++] ? 0 : -1;
	case FUSE_OPT_KEY_OPT:
		if (fstab_only(arg))
			return 0;
		return near_miss(arg) ? -1 : 1;
	case KEY_ALLOW_OTHER:
		o->allow_other = 1;
		break;
	case KEY_DEFAULT_PERMISSIONS:
		o->default_permissions = 1;
		break;
	case KEY_FSNAME:
		o->has_fsname = 1;
		break;
	case KEY_SUBTYPE:
		o->has_subtype = 1;
		break;
	}
	return 1;
}

static void print_usage(const char *prog)
{
	printf("usage: %s [-f] [-d] [-o OPTIONS] [CONTEXT] MOUNTPOINT\n"
	       "\n"
	       "Mounts a Kubernetes cluster's Kubeflow training jobs as files (see arenafs(1)).\n"
	       "\n"
	       "arenafs options:\n"
	       "    -o kubeconfig=PATH     kubeconfig file (else $KUBECONFIG, ~/.kube/config,\n"
	       "                           the in-cluster service account)\n"
	       "    -o context=NAME        kubeconfig context (else current-context)\n"
	       "    -o namespace=NS        namespace of jobs/ (else the context's, else default)\n"
	       "    -o prometheus=URL      Prometheus to ask for GPU figures (else its Service, as Arena)\n"
	       "    -o readonly            no submitting or deleting (EROFS)\n"
	       "    -o attr_timeout=S      kernel caches file attributes S seconds (%g)\n"
	       "    -o entry_timeout=S     names of jobs, pods, nodes cached S seconds (%g)\n"
	       "    -o static_timeout=S    the fixed skeleton cached S seconds (%g)\n"
	       "    -o log_wait=MS         no open or read of a log waits longer for bytes (%d)\n"
	       "    -o max_inodes=N        beyond N, files and directories not used for a while\n"
	       "                           are forgotten, to be looked up again (%d; 0: never)\n"
	       "    -o request_timeout=S   an API request, retries included, gives up after S\n"
	       "                           seconds: submit and rmdir then fail with ETIMEDOUT (%g)\n"
	       "    -o startup_timeout=S   start-up gives up after S seconds, whatever it waits\n"
	       "                           on: the cluster, a credential plugin (%g)\n"
	       "    -o keep_logs=SIZE      keep up to SIZE (K, M, G) of terminated containers'\n"
	       "                           logs in $XDG_CACHE_HOME/arenafs/logs, readable after\n"
	       "                           their pods are deleted (%lluM; 0: keep none)\n"
	       "\n",
	       prog, FS_ATTR_TIMEOUT_DEFAULT, FS_ENTRY_TIMEOUT_DEFAULT, FS_STATIC_TIMEOUT_DEFAULT,
	       FS_LOG_WAIT_MS_DEFAULT, FS_MAX_INODES_DEFAULT, K8S_REQUEST_TIMEOUT_MS_DEFAULT / 1000.0,
	       STARTUP_TIMEOUT_DEFAULT, FS_KEEP_LOGS_DEFAULT >> 20);
}

static int check_timeout(const char *name, double v)
{
	if (v != -1 && (v < 0 || v > 86400)) {
		fprintf(stderr, "arenafs: %s must be between 0 and 86400 seconds\n", name);
		return -1;
	}
	return 0;
}

/* SIZE: a number of bytes with an optional K, M, G or T (powers of 1024, "KiB",
 * "MB" and the like also read so), or 0, off, no: keep none. -1 when it is not one. */
static int parse_size(const char *s, unsigned long long *out)
{
	static const char UNITS[] = "KMGT";
	unsigned long long v;
	char *end;
	const char *u;

	if (strcmp(s, "off") == 0 || strcmp(s, "no") == 0) {
		*out = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end && (u = strchr(UNITS, *end & ~0x20))) {
		for (const char *p = UNITS; p <= u; p++) {
			if (v > (~0ull >> 10))
				return -1;
			v <<= 10;
		}
		end++;
		if (*end == 'i')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* Where kept logs go: $XDG_CACHE_HOME/arenafs/logs (an absolute one, as the XDG
 * specification wants), else ~/.cache/arenafs/logs. NULL without a home. */
static char *keep_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/arenafs/logs", xdg) < 0)
			dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/arenafs/logs", home) < 0)
			dir = NULL;
	}
	return dir;
}

/*
 * mount(8) and fstab name the cluster in SOURCE. "arenafs" and "none" mean the
 * kubeconfig's current context, as does a path: mount(8) makes SOURCE absolute when
 * a file of that name is in its working directory. An explicit context= wins.
 */
static int use_source_as_context(struct mount_options *o)
{
	const char *src = o->words[0];
	struct stat st;

	if (o->context || !*src || strcmp(src, "arenafs") == 0 || strcmp(src, "none") == 0 ||
	    (src[0] == '/' && stat(src, &st) == 0))
		return 0;
	o->context = strdup(src);
	return o->context ? 0 : -1;
}

int options_parse(int argc, char **argv, struct mount_options *o)
{
	memset(o, 0, sizeof(*o));
	o->attr_timeout = o->entry_timeout = o->static_timeout = -1;
	o->log_wait_ms = -1;
	o->max_inodes = -1;
	o->request_timeout = -1;
	o->startup_timeout = -1;
	o->args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_opt_parse(&o->args, o, OPTS, opt_proc) != 0)
		return -1;     /* fuse_opt printed why */
	if (o->n_words > 0 && fuse_opt_add_arg(&o->args, o->words[o->n_words - 1]) != 0)
		return -1;
	if (o->n_words == 2 && use_source_as_context(o) < 0)
		return -1;
	if (fuse_parse_cmdline(&o->args, &o->cmd) != 0)
		return -1;
	if (o->cmd.show_help) {
		print_usage(argv[0]);
		printf("FUSE options:\n");
		fflush(stdout);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		return 1;
	}
	if (o->cmd.show_version) {
		printf("arenafs version %s\n", ARENAFS_VERSION);
		fflush(stdout);         /* fusermount3 --version writes to the same stdout next */
		fuse_lowlevel_version();
		return 1;
	}
	if (!o->cmd.mountpoint) {
		fprintf(stderr, "arenafs: no mount point given (see arenafs --help)\n");
		return -1;
	}
	if (check_timeout("attr_timeout", o->attr_timeout) ||
	    check_timeout("entry_timeout", o->entry_timeout) ||
	    check_timeout("static_timeout", o->static_timeout) ||
	    check_timeout("request_timeout", o->request_timeout) ||
	    check_timeout("startup_timeout", o->startup_timeout))
		return -1;
	if (o->request_timeout == 0) {
		fprintf(stderr, "arenafs: request_timeout must be more than 0 seconds\n");
		return -1;
	}
	if (o->log_wait_ms < -1 || o->log_wait_ms > 600000) {
		fprintf(stderr, "arenafs: log_wait must be between 0 and 600000 ms\n");
		return -1;
	}
	if (o->max_inodes < -1) {
		fprintf(stderr, "arenafs: max_inodes must be 0 (no limit) or more\n");
		return -1;
	}
	o->keep_bytes = FS_KEEP_LOGS_DEFAULT;
	if (o->keep_logs && parse_size(o->keep_logs, &o->keep_bytes) < 0) {
		fprintf(stderr, "arenafs: keep_logs must be a size such as 256M, or 0 (keep none)\n");
		return -1;
	}
	if (o->keep_bytes)
		o->keep_dir = keep_dir();
	/* Never 0 idle threads: the mount hangs (libfuse #680). */
	if (o->cmd.max_idle_threads == 0)
		o->cmd.max_idle_threads = 1;
	/* allow_other hands the mounting user's cluster rights to every local user; the
	 * kernel must then check the modes (docs/arenafs.1, allow_other). */
	if (o->allow_other && !o->default_permissions &&
	    fuse_opt_add_arg(&o->args, "-odefault_permissions") != 0)
		return -1;
	return 0;
}

void options_fs(const struct mount_options *o, struct fs_options *out)
{
	fs_options_default(out);
	if (o->attr_timeout >= 0)
		out->attr_timeout = o->attr_timeout;
	if (o->entry_timeout >= 0)
		out->entry_timeout = o->entry_timeout;
	if (o->static_timeout >= 0)
		out->static_timeout = o->static_timeout;
	if (o->log_wait_ms >= 0)
		out->log_wait_ms = o->log_wait_ms;
	if (o->max_inodes >= 0)
		out->max_inodes = (size_t)o->max_inodes;
	out->readonly = o->readonly;
	out->allow_other = o->allow_other;
	out->keep_logs = o->keep_dir ? o->keep_bytes : 0;
	out->keep_dir = o->keep_dir;
	out->prometheus_url = o->prometheus;
}

void options_client(const struct mount_options *o, struct k8s_client_options *out)
{
	memset(out, 0, sizeof(*out));   /* zero: the client's defaults */
	if (o->request_timeout > 0)
		out->request_timeout_ms = (int)(o->request_timeout * 1000);
}

int options_startup_timeout_ms(const struct mount_options *o)
{
	return (int)((o->startup_timeout >= 0 ? o->startup_timeout : STARTUP_TIMEOUT_DEFAULT) *
	             1000);
}

int options_add_mount_names(struct mount_options *o, const char *context)
{
	char *opts = NULL, *fsname = NULL;
	int ret = -1;

	if (!o->has_subtype && fuse_opt_add_opt(&opts, "subtype=arenafs") != 0)
		goto out;
	if (!o->has_fsname) {
		/* `mount` shows it: which cluster this is. Commas are escaped by libfuse. */
		if (asprintf(&fsname, "fsname=arenafs:%s", context && context[0] ? context : "in-cluster") < 0) {
			fsname = NULL;
			goto out;
		}
		if (fuse_opt_add_opt_escaped(&opts, fsname) != 0)
			goto out;
	}
	if (o->readonly && fuse_opt_add_opt(&opts, "ro") != 0)
		goto out;
	ret = 0;
	if (opts) {
		char *arg = NULL;

		if (asprintf(&arg, "-o%s", opts) < 0 || fuse_opt_add_arg(&o->args, arg) != 0)
			ret = -1;
		free(arg);
	}
out:
	free(opts);
	free(fsname);
	return ret;
}

void options_free(struct mount_options *o)
{
	free(o->kubeconfig);
	free(o->context);
	free(o->namespace);
	free(o->prometheus);
	free(o->keep_logs);
	free(o->keep_dir);
	free(o->cmd.mountpoint);
	for (int i = 0; i < o->n_words; i++)
		free(o->words[i]);
	fuse_opt_free_args(&o->args);
}
