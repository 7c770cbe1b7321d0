/*
 * arenafs: mounts a Kubernetes cluster's Kubeflow training jobs as files.
 *
 * Start-up, in this order so that every failure is reported before the mount
 * exists and in one line (`arenafs: cannot reach https://...: Connection
 * refused`), with exit status 1:
 *   parse the command line → fork (unless -f; the parent waits for the child's
 *   word, daemon.c) → load the kubeconfig → create the FUSE session (checks
 *   libfuse's options) → create the client → discover the job kinds → fill the
 *   caches (the first LIST) → mount → say "ready" → detach → serve.
 * From the kubeconfig's load to the mount, one deadline holds: startup_timeout,
 * whatever takes the time (a cluster that does not answer, an exec credential
 * plugin that hangs, a first LIST that does not end). The plugin runs once, before
 * the first request, with all of that time: the first try's 2 s must not cut a
 * plugin that takes seconds (CLIs often do), and one that hangs is killed at the
 * deadline.
 *
 * Stop: SIGTERM, SIGINT, SIGHUP, `fusermount3 -u`, or a lazy unmount while a file
 * is still open (watch.c) end the loop; the daemon then unmounts, closes the
 * streams and the caches, and exits 0. libfuse before 3.18 does not wake its
 * multi-threaded loop on fuse_session_exit() (libfuse #1572) unless the main
 * thread, which waits in sem_wait, is interrupted: the signal handler makes sure
 * the signal reaches the main thread.
 */
#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "fs/fs.h"
#include "k8s/base/say.h"
#include "k8s/cache/cache.h"
#include "k8s/http/client.h"
#include "k8s/auth/config.h"
#include "k8s/api/discovery.h"
#include "k8s/objects/kinds.h"
#include "mount/daemon.h"
#include "mount/options.h"
#include "mount/kcreload.h"
#include "mount/watch.h"
#include "k8s/base/timefmt.h"

struct daemon_state {
	struct mount_options opts;
	struct k8s_config *cfg;
	struct k8s_client *client;
	struct k8s_cache *cache;
	struct fs *fs;
	struct fuse_session *se;
	bool mounted;
	bool served[JOB_KIND_COUNT];
	struct mount_watch *watch;
	struct kc_reload *reload;    /* a rewritten kubeconfig's new credentials */
	int ready_fd;                /* the pipe to the waiting parent, or -1 */
	int64_t startup_deadline;    /* monotonic ms: start-up fails at it */
};

/* ---- signals ---- */

static pthread_t main_thread;
static struct fuse_session *volatile signal_session;
static volatile sig_atomic_t serving;
static volatile sig_atomic_t mounting;        /* the mount may exist: no _exit */
static volatile sig_atomic_t stop_requested;  /* a signal came while mounting */

static void on_signal(int sig)
{
	/* libfuse's workers block these; our own threads may still catch one. The main
	 * thread must see it: its sem_wait in the loop is what has to be interrupted. */
	if (!pthread_equal(pthread_self(), main_thread)) {
		pthread_kill(main_thread, sig);
		return;
	}
	if (!serving && !mounting) {
		/* nothing mounted yet: nothing to undo, but a credential plugin being run is
		 * in a process group of its own, out of the terminal's reach */
		k8s_client_kill_plugins();
		_exit(128 + sig);
	}
	if (!serving) {
		stop_requested = sig;   /* main() unmounts once start() returns */
		return;
	}
	if (signal_session)
		fuse_session_exit(signal_session);
}

static int install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;                /* no SA_RESTART: blocking calls must return */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) ? -errno : 0;
}

/* ---- start-up messages ---- */

/* The last error logged while starting (by libfuse, mostly): the one line printed. */
static char startup_error[1024];
static bool starting = true;

static void startup_sink(int priority, const char *msg)
{
	if (starting && priority <= LOG_ERR) {
		snprintf(startup_error, sizeof(startup_error), "%s", msg);
		return;
	}
	fprintf(stderr, "arenafs: %s\n", msg);
}

/* libfuse writes some messages in pieces ("unknown option(s): `" ... "'\n"): they are
 * joined into lines here, so that each reaches say whole. */
static void fuse_log_to_fs(enum fuse_log_level level, const char *fmt, va_list ap)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static char line[2048];
	static size_t len;
	size_t n;

	pthread_mutex_lock(&mu);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	n = strlen(line + len);
	len += n;
	if (len > 0 && (line[len - 1] == '\n' || len >= sizeof(line) - 1)) {
		say((int)level, "%s", line);
		len = 0;
		line[0] = '\0';
	}
	pthread_mutex_unlock(&mu);
}

/*
 * fuse_session_unmount() of a mount already detached (umount -l, fusermount3 -u -z
 * while a file was open): libfuse must still free its state, but as root it prints
 * "failed to unmount: Invalid argument" with fprintf(stderr), which says nothing a
 * user needs. stderr points at /dev/null meanwhile.
 */
static void unmount_quietly(struct fuse_session *se)
{
	int saved = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		fuse_session_unmount(se);
	} else {
		fuse_session_unmount(se);
		dup2(saved, STDERR_FILENO);
	}
	if (null >= 0)
		close(null);
	if (saved >= 0)
		close(saved);
}

/* Reports a start-up failure: to stderr in the foreground, else to the parent. */
static int fail(struct daemon_state *d, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (d->ready_fd >= 0) {
		daemon_fail(d->ready_fd, line);
		d->ready_fd = -1;
	} else {
		fprintf(stderr, "arenafs: %s\n", line);
	}
	return -1;
}

static const char *startup_reason(const char *fallback)
{
	return startup_error[0] ? startup_error : fallback;
}

/* ---- start and stop ---- */

/* The first question start-up asks (which job kinds?) gets this long before the
 * user is told what is being waited for. */
#define STARTUP_FIRST_TRY_MS 2000

/* Could the same question get an answer later (server down, starting, busy)? */
static bool worth_waiting(const struct k8s_error *err)
{
	if (err->code == 0)
		return (err->err == EIO || err->err == ETIMEDOUT) &&
		       strcmp(err->reason, K8S_REASON_TLS) != 0;
	return err->code == 429 || err->code >= 500;
}

/* Says in err that start-up gave up at its deadline. */
static void say_startup_timeout(struct daemon_state *d, struct k8s_error *err)
{
	size_t len = strlen(err->message);

	snprintf(err->message + len, sizeof(err->message) - len,
	         " (gave up after startup_timeout, %d s)",
	         (options_startup_timeout_ms(&d->opts) + 999) / 1000);
}

/* The credentials first (an exec plugin's one run), within the start-up deadline. */
static int load_credentials(struct daemon_state *d, struct k8s_error *err)
{
	int64_t left = d->startup_deadline - time_monotonic_ms();
	int rc = k8s_client_load_credentials(d->client, left > 0 ? (int)left : 1, err);

	if (rc < 0 && err->err == ETIMEDOUT)
		say_startup_timeout(d, err);
	return rc;
}

/*
 * Asks the cluster which kinds it serves, waiting until the start-up deadline for a
 * cluster that does not answer yet (a server still booting, a VPN coming up) and
 * saying so after the first failed try rather than being silent until the end.
 */
static int discover_kinds(struct daemon_state *d, struct k8s_error *err)
{
	int64_t deadline = d->startup_deadline;
	int64_t wait_ms = deadline - time_monotonic_ms();
	int first = wait_ms < STARTUP_FIRST_TRY_MS ? (int)wait_ms : STARTUP_FIRST_TRY_MS;
	int usual = k8s_client_set_request_timeout(d->client, first > 0 ? first : 1);
	int rc = kinds_discover(d->client, d->served, err);
	bool said = false;

	/* the client's own retries end early for a refused connection: try again
	 * each second until the deadline */
	while (rc < 0 && worth_waiting(err)) {
		int64_t left = deadline - time_monotonic_ms();

		if (left <= 0)
			break;
		if (!said) {
			say(LOG_NOTICE, "%s; waiting up to %d s more (-o startup_timeout=S)",
			    err->message, (int)((left + 999) / 1000));
			said = true;
		}
		time_sleep_ms(left < 1000 ? left : 1000);
		left = deadline - time_monotonic_ms();
		if (left <= 0)
			break;
		k8s_client_set_request_timeout(d->client, (int)left);
		k8s_error_clear(err);
		rc = kinds_discover(d->client, d->served, err);
	}
	if (rc < 0 && said)
		say_startup_timeout(d, err);
	k8s_client_set_request_timeout(d->client, usual);
	return rc;
}

/* The first LIST of every kind, within what is left of the start-up deadline (a
 * list is a stream, which no request timeout ends). */
static int fill_caches(struct daemon_state *d, struct cache_options *co, struct k8s_error *err)
{
	int64_t left = d->startup_deadline - time_monotonic_ms();
	int rc;

	co->first_lists_timeout_ms = left > 0 ? (int)left : 1;
	co->first_lists_idle_ms = options_startup_timeout_ms(&d->opts);
	rc = cache_start(d->client, co, &d->cache, err);
	if (rc < 0 && err->err == ETIMEDOUT && time_monotonic_ms() >= d->startup_deadline)
		say_startup_timeout(d, err);
	return rc;
}

static int start(struct daemon_state *d)
{
	struct k8s_config_options kopts = {d->opts.kubeconfig, d->opts.context, d->opts.namespace};
	struct cache_options co;
	struct k8s_client_options co_client;
	struct fs_options fo;
	struct k8s_error err;

	k8s_error_clear(&err);
	d->startup_deadline = time_monotonic_ms() + options_startup_timeout_ms(&d->opts);
	if (kubeconfig_load(&kopts, &d->cfg, &err) < 0)
		return fail(d, "%s", err.message);
	if (options_add_mount_names(&d->opts, d->cfg->context) < 0)
		return fail(d, "out of memory");
	options_fs(&d->opts, &fo);
	if (fs_new(&fo, &d->fs) < 0)
		return fail(d, "out of memory");
	d->se = fuse_session_new(&d->opts.args, fs_lowlevel_ops(), sizeof(struct fuse_lowlevel_ops),
				 d->fs);
	if (!d->se)
		return fail(d, "%s", startup_reason("cannot create the FUSE session"));
	fs_set_session(d->fs, d->se);
	options_client(&d->opts, &co_client);
	if (k8s_client_new(d->cfg, &co_client, &d->client, &err) < 0)
		return fail(d, "%s", err.message);
	if (load_credentials(d, &err) < 0 || discover_kinds(d, &err) < 0)
		return fail(d, "%s", err.message);
	memset(&co, 0, sizeof(co));
	co.namespace = d->cfg->namespace;
	memcpy(co.served, d->served, sizeof(co.served));
	/* Kueue is optional: a cluster without it, or one whose discovery of it fails,
	 * mounts without queues (docs/tree.md, "Queues") */
	if (kueue_discover(d->client, &co.kueue, &err) < 0) {
		say(LOG_NOTICE, "no Kueue queues: %s", err.message);
		memset(&co.kueue, 0, sizeof(co.kueue));
		k8s_error_clear(&err);
	}
	fs_cache_hook(d->fs, &co);
	if (fill_caches(d, &co, &err) < 0)
		return fail(d, "%s", err.message);
	fs_attach(d->fs, d->client, d->cache, d->cfg, d->served);
	mounting = 1;
	if (fuse_session_mount(d->se, d->opts.cmd.mountpoint) != 0)
		return fail(d, "%s", startup_reason("cannot mount"));
	d->mounted = true;
	return 0;
}

static int serve(struct daemon_state *d)
{
	struct fuse_loop_config *lc;
	int ret;

	if (d->opts.cmd.singlethread)
		return fuse_session_loop(d->se);
	lc = fuse_loop_cfg_create();
	if (!lc)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(lc, (unsigned int)d->opts.cmd.clone_fd);
	/* fuse_parse_cmdline leaves UINT_MAX for "not given": keep libfuse's defaults */
	if (d->opts.cmd.max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(lc, d->opts.cmd.max_idle_threads);
	if (d->opts.cmd.max_threads != UINT_MAX)
		fuse_loop_cfg_set_max_threads(lc, d->opts.cmd.max_threads);
	ret = fuse_session_loop_mt(d->se, lc);
	fuse_loop_cfg_destroy(lc);
	return ret;
}

static void stop(struct daemon_state *d)
{
	bool detached;

	serving = 0;
	signal_session = NULL;
	detached = d->mounted && !watch_mounted(d->watch);
	watch_stop(d->watch);
	kc_reload_stop(d->reload);
	/* the notifier writes to the session's fd: it must be gone before the fd is */
	if (d->fs)
		fs_stop(d->fs);
	if (d->se) {
		if (detached)
			unmount_quietly(d->se);
		else if (d->mounted)
			fuse_session_unmount(d->se);
		fuse_session_destroy(d->se);
	}
	if (d->cache)
		cache_stop(d->cache);
	fs_free(d->fs);
	if (d->client)
		k8s_client_free(d->client);
	if (d->reload)
		kc_reload_free(d->reload);   /* after the client: its creds pointed here */
	kubeconfig_free(d->cfg);
	options_free(&d->opts);
}

int main(int argc, char **argv)
{
	struct daemon_state d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.ready_fd = -1;
	main_thread = pthread_self();
	/* glibc gives each thread that allocates its own heap, up to eight per core: the
	 * FUSE workers, reflectors and log streams each keep one, part free. At 10,000
	 * jobs that was 15 MiB of a 157 MiB daemon after a walk of the tree; two heaps
	 * keep it without a slowdown measured. MALLOC_ARENA_MAX in the environment wins. */
	if (!getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, 2);
	say_set_sink(startup_sink);
	fuse_set_log_func(fuse_log_to_fs);
	ret = options_parse(argc, argv, &d.opts);
	if (ret != 0) {
		if (ret < 0 && startup_error[0])
			fprintf(stderr, "arenafs: %s\n", startup_error);
		options_free(&d.opts);
		return ret > 0 ? 0 : 1;
	}
	if (d.opts.cmd.debug)
		say_set_level(LOG_DEBUG);
	if (install_signals() < 0) {
		fprintf(stderr, "arenafs: cannot install signal handlers: %s\n", strerror(errno));
		options_free(&d.opts);
		return 1;
	}
	/* A second mount would hide the first one, still running, under it. */
	if (watch_fuse_mounted_at(d.opts.cmd.mountpoint)) {
		fprintf(stderr, "arenafs: %s is already a FUSE mount point (another arenafs?): "
		        "unmount it first (fusermount3 -u %s)\n", d.opts.cmd.mountpoint,
		        d.opts.cmd.mountpoint);
		options_free(&d.opts);
		return 1;
	}
	/* Before any thread exists: threads do not survive fork. */
	if (!d.opts.cmd.foreground && (d.ready_fd = daemon_fork()) < 0) {
		options_free(&d.opts);
		return 1;
	}
	if (start(&d) < 0 || stop_requested) {
		stop(&d);
		return stop_requested ? 128 + stop_requested : 1;
	}
	starting = false;
	signal_session = d.se;
	serving = 1;
	if (d.ready_fd >= 0) {
		daemon_ready(d.ready_fd);
		d.ready_fd = -1;
		daemon_log_to_syslog();
		if (daemon_detach() < 0)
			say(LOG_WARNING, "cannot detach from the terminal: %s", strerror(errno));
	}
	if (watch_start(d.opts.cmd.mountpoint, &d.watch) < 0)
		say(LOG_INFO, "not watching %s for a lazy unmount", d.opts.cmd.mountpoint);
	{
		struct k8s_config_options ko = {d.opts.kubeconfig, d.opts.context, d.opts.namespace};

		if (kc_reload_start(d.client, &ko, d.cfg, &d.reload) < 0)
			say(LOG_INFO, "not following changes of the kubeconfig");
	}
	ret = serve(&d);
	if (ret < 0)
		say(LOG_ERR, "the FUSE session ended: %s", strerror(-ret));
	stop(&d);
	return ret < 0 ? 1 : 0;
}
