/*
 * struct fs (fs.h): creating it, wiring the cache's change hook and the session,
 * the mtimes of the listings, and the orderly stop.
 *
 * Called by mount/main.c in the order fs.h gives.
 */
#include "fs/fs.h"
#include "fs/base/fs_struct.h"
#include "fs/base/handles.h"
#include "fs/base/inode.h"
#include "fs/base/netpool.h"
#include "fs/dirs.h"
#include "fs/tree/model.h"
#include "fs/tree/view.h"
#include "fs/tree/notify.h"
#include "fs/code/codetree.h"
#include "fs/code/codefetch.h"
#include "fs/logs/logfile.h"
#include "fs/logs/logkeeper.h"
#include "fs/tree/gpumetrics.h"
#include "fs/tree/reports.h"
#include "fs/tree/runtimes.h"
#include "fs/submit/access.h"
#include "fs/submit/areas.h"
#include "fs/submit/deletes.h"
#include "fs/submit/trashstore.h"
#include "fs/submit/suspend.h"
#include "fs/submit/submit_defer.h"
#include "k8s/base/say.h"
#include "k8s/base/timefmt.h"
#include "fs/logs/logkeep.h"
#include "k8s/logs/logstream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

void fs_options_default(struct fs_options *o)
{
	memset(o, 0, sizeof(*o));
	o->attr_timeout = FS_ATTR_TIMEOUT_DEFAULT;
	o->entry_timeout = FS_ENTRY_TIMEOUT_DEFAULT;
	o->static_timeout = FS_STATIC_TIMEOUT_DEFAULT;
	o->log_wait_ms = FS_LOG_WAIT_MS_DEFAULT;
	o->max_inodes = FS_MAX_INODES_DEFAULT;
	o->keep_logs = FS_KEEP_LOGS_DEFAULT;
}

static void on_inode_free(struct fs_inode *in)
{
	logfile_free(in);
	dirs_inode_free(in);
	reports_free(in->reports);
}

/* ---- the rooms below the tree call back into it through fs->up ---- */

static void up_log_grew(struct fs *fs, struct fs_inode *in)
{
	notify_log_grew(fs->notifier, in);
}

static void up_log_wait(struct fs *fs, struct fs_inode *in, int timeout_ms)
{
	notify_wait_log(fs->notifier, in, timeout_ms);
}

static void up_changed(struct fs *fs, const struct cache_change *change)
{
	notify_cache_change(fs, change);
}

static void up_name_gone(struct fs *fs, uint64_t parent, const char *name)
{
	notify_name_gone(fs->notifier, parent, name);
}

static const struct fs_upcalls UPCALLS = {
	.job = model_job,
	.job_main_pod = view_job_main_pod,
	.job_ended_without_pods = view_job_ended_without_pods,
	.log_grew = up_log_grew,
	.log_wait = up_log_wait,
	.changed = up_changed,
	.name_gone = up_name_gone,
};

int fs_new(const struct fs_options *opts, struct fs **out)
{
	struct fs *fs = calloc(1, sizeof(*fs));

	*out = NULL;
	if (!fs)
		return -ENOMEM;
	fs->opts = *opts;
	fs->up = UPCALLS;
	fs->inodes = inode_table_new(on_inode_free);
	if (!fs->inodes || areas_new(&fs->areas) < 0 ||
	    areas_new(&fs->check_areas) < 0 || access_new(&fs->access) < 0 ||
	    notify_new(fs, &fs->notifier) < 0 || logfile_memo_new(&fs->log_memo) < 0 ||
	    logstream_registry_new(&fs->streams) < 0 || submit_defer_new(fs, &fs->defer) < 0 ||
	    deletes_new(fs, &fs->deletes) < 0 || suspends_new(&fs->suspends) < 0 ||
	    netpool_new(NETPOOL_THREADS_MAX, &fs->netpool) < 0 ||
	    codetree_memo_new(&fs->code_memo) < 0 || codefetch_new(&fs->code_store) < 0 ||
	    logkeeper_new(fs, &fs->keeper) < 0 || runtimes_poller_new(fs, &fs->runtimes) < 0 ||
	    gpu_metrics_keeper_new(fs, &fs->gpu_metrics) < 0 || trashstore_new(&fs->trash) < 0) {
		trashstore_free(fs->trash);
		gpu_metrics_keeper_free(fs->gpu_metrics);
		runtimes_poller_free(fs->runtimes);
		logkeeper_free(fs->keeper);
		codefetch_free(fs->code_store);
		codetree_memo_free(fs->code_memo);
		submit_defer_free(fs->defer);
		deletes_free(fs->deletes);
		suspends_free(fs->suspends);
		netpool_free(fs->netpool);
		logstream_registry_free(fs->streams);
		logfile_memo_free(fs->log_memo);
		notify_free(fs->notifier);
		access_free(fs->access);
		areas_free(fs->check_areas);
		areas_free(fs->areas);
		inode_table_free(fs->inodes);
		free(fs);
		return -ENOMEM;
	}
	inode_table_set_limit(fs->inodes, opts->max_inodes, notify_inodes_over, fs->notifier);
	pthread_mutex_init(&fs->listing_lock, NULL);
	pthread_mutex_init(&fs->handles_lock, NULL);
	fs->started = time_now();
	fs->nodes_mtime = fs->namespaces_mtime = fs->started;
	fs->uid = getuid();
	fs->gid = getgid();
	/* the trash of the mount's owner, the one user who may change anything */
	snprintf(fs->trash_name, sizeof(fs->trash_name), ".Trash-%u", (unsigned)fs->uid);
	fs->namespace = "default";
	*out = fs;
	return 0;
}

/* The cache's hook: the notifier, and the keeper for the pods of jobs. */
static void on_change(void *arg, const struct cache_change *c)
{
	struct fs *fs = arg;

	if (c->object == CACHE_POD && c->type != CACHE_DELETED && c->owner_job)
		logkeeper_pod_changed(fs->keeper, c->namespace, c->name);
	notify_cache_change(fs, c);
}

void fs_cache_hook(struct fs *fs, struct cache_options *co)
{
	co->on_change = on_change;
	co->arg = fs;
}

/* Opens the kept logs and starts their keeper; without them the mount goes on. */
static void start_keeping(struct fs *fs)
{
	char why[512];
	int ret;

	if (!fs->opts.keep_logs || !fs->opts.keep_dir || !fs->cfg->server)
		return;
	ret = logkeep_open(fs->opts.keep_dir, fs->cfg->server, fs->opts.keep_logs, &fs->kept_logs, why,
			   sizeof(why));
	if (ret < 0) {
		say(LOG_WARNING, "no logs are kept (keep_logs): %s", why);
		return;
	}
	ret = logkeeper_start(fs->keeper);
	if (ret < 0)
		say(LOG_WARNING, "no logs are kept (keep_logs): cannot start a thread: %s",
		    strerror(-ret));
}

void fs_attach(struct fs *fs, struct k8s_client *client, struct k8s_cache *cache,
	       const struct k8s_config *cfg, const bool served[JOB_KIND_COUNT])
{
	fs->client = client;
	fs->cache = cache;
	fs->cfg = cfg;
	fs->namespace = cfg->namespace;
	memcpy(fs->served, served, sizeof(fs->served));
	start_keeping(fs);
	/* a fixture's fs has no client: nothing to list */
	if (client && runtimes_poller_start(fs->runtimes) < 0)
		say(LOG_WARNING, "runtimes: cannot start a thread: the file stays empty");
}

void fs_set_session(struct fs *fs, struct fuse_session *se)
{
	fs->se = se;
}

void fs_stop(struct fs *fs)
{
	/* first: its requests may wait on the notifier and the deferred submissions */
	netpool_stop(fs->netpool);
	submit_defer_stop(fs->defer);
	logkeeper_stop(fs->keeper);   /* it tells the notifier of what it kept */
	runtimes_poller_stop(fs->runtimes);
	notify_stop(fs->notifier);
	logfile_stop_all(fs);
}

void fs_free(struct fs *fs)
{
	if (!fs)
		return;
	submit_defer_free(fs->defer);
	deletes_free(fs->deletes); /* DELETEs under way end by request_timeout */
	suspends_free(fs->suspends);
	trashstore_free(fs->trash);
	netpool_free(fs->netpool);
	logkeeper_free(fs->keeper);
	runtimes_poller_free(fs->runtimes);
	gpu_metrics_keeper_free(fs->gpu_metrics);
	notify_free(fs->notifier);
	logfile_stop_all(fs);
	while (fs->handles)
		fs_handle_free(fs, fs->handles);   /* their inodes go with the table */
	inode_table_free(fs->inodes);
	areas_free(fs->areas);
	areas_free(fs->check_areas);
	access_free(fs->access);
	logfile_memo_free(fs->log_memo);
	logstream_registry_free(fs->streams);
	codetree_memo_free(fs->code_memo);
	codefetch_free(fs->code_store);
	logkeep_free(fs->kept_logs);
	pthread_mutex_destroy(&fs->listing_lock);
	pthread_mutex_destroy(&fs->handles_lock);
	free(fs);
}
