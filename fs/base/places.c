/*
 * The table of the tree's places (places.h): one row per place, each
 * directory's fixed names in listing order (by name, strcmp: README before
 * cluster/). A type may stand in two places (jobs/ and namespaces/NS/jobs/,
 * submit/ and namespaces/NS/submit/, check/ likewise): its rows then differ only in their
 * parent. tests/unit/test_fs_places.c holds the table to these rules.
 */
#include "fs/base/places.h"
#include "render/render.h"
#include "render/cluster.h"
#include "render/events.h"
#include "render/gpus.h"
#include "render/job_files.h"
#include "render/job_forms.h"
#include "render/job_info.h"
#include "render/job_tables.h"
#include "render/node_forms.h"
#include "render/node_info.h"
#include "render/nodes.h"
#include "render/pods.h"
#include "render/progress.h"
#include "render/queue_forms.h"
#include "render/readme.h"
#include "render/runtimes.h"
#include "render/data.h"
#include "render/why.h"
#include "render/status.h"
#include "render/tensorboard.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* render/ functions that take the job alone, or say whether they wrote anything,
 * adapted to the job files' signature. */
static void job_type(struct strbuf *sb, const struct job_view *v)
{
	render_job_type(sb, v->job);
}

static void job_json(struct strbuf *sb, const struct job_view *v)
{
	render_job_json(sb, v->job);
}

static void job_suspend(struct strbuf *sb, const struct job_view *v)
{
	render_job_suspend(sb, v->job);
}

static void job_spec_yaml(struct strbuf *sb, const struct job_view *v)
{
	render_job_spec_yaml(sb, v->job);
}

/* Nothing when the job has no TensorBoard: content.c then answers ENOENT. */
static void job_tensorboard_url(struct strbuf *sb, const struct job_view *v)
{
	render_job_tensorboard_url(sb, v);
}

/* The tables' JSON and YAML forms: what Arena's TrainingJobInfo (tensorboard) and the
 * why line need, as info.json gathers them, but for every job of the table */
#define VIEW_FORMS (VIEW_PODS | VIEW_SERVICES | VIEW_NODES | VIEW_EVENTS)
#define VIEW_MTIME VIEW_PODS     /* a job's files take st_mtime from its pods too */

static const struct place PLACES[] = {
	{FS_ROOT, FS_NONE, NULL, SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0, NULL},

	{FS_README, FS_ROOT, "README", SRC_PLACES, 0, 0, {.readme = render_readme}, 0, NULL},
	/* submit/'s twin that makes nothing: its files are submit.c's too */
	{FS_CHECK_DIR, FS_ROOT, "check", SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR | PLACE_SUBMIT,
	 {0}, 0, "as submit/, but only the API server's dry run: check/NAME/objects.yaml"},
	{FS_CLUSTER_DIR, FS_ROOT, "cluster", SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0, NULL},
	{FS_DATA_DIR, FS_ROOT, "data", SRC_DATA, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0, NULL},
	{FS_JOBS_DIR, FS_ROOT, "jobs", SRC_JOBS, 0, PLACE_DIR, {0}, 0, NULL},
	{FS_NAMESPACES_DIR, FS_ROOT, "namespaces", SRC_NAMESPACES, 0, PLACE_DIR, {0}, 0, NULL},
	{FS_NODES_DIR, FS_ROOT, "nodes", SRC_NODES, 0, PLACE_DIR, {0}, 0, NULL},
	{FS_QUEUES_DIR, FS_ROOT, "queues", SRC_QUEUES, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0,
	 NULL},
	{FS_RUNTIMES, FS_ROOT, "runtimes", SRC_RUNTIMES, 0, PLACE_AGES,
	 {.runtimes = render_runtimes}, 0,
	 "the training runtimes a trainjob's runtime: names (Kubeflow Trainer)"},
	{FS_SUBMIT_DIR, FS_ROOT, "submit", SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR | PLACE_SUBMIT,
	 {0}, 0, NULL},

	{FS_CLUSTER_CONTEXT, FS_CLUSTER_DIR, "context", SRC_CONFIG, 0, 0,
	 {.config = render_cluster_context}, 0, "server, context, namespace, user (no secrets)"},
	{FS_CLUSTER_GPUS, FS_CLUSTER_DIR, "gpus", SRC_CLUSTER, 0, 0,
	 {.cluster = render_cluster_gpus}, 0, "allocated/total GPUs of the cluster"},
	{FS_CLUSTER_HEALTH, FS_CLUSTER_DIR, "health", SRC_HEALTH, 0, 0,
	 {.health = render_cluster_health}, 0,
	 "\"ok\", or since when and why the cluster is unreachable"},
	{FS_CLUSTER_LIST, FS_CLUSTER_DIR, "list", SRC_NS_JOBS, 0, PLACE_AGES | PLACE_STALE_NOTE,
	 {.jobs = render_jobs_list}, 0, "arena list: the namespace's jobs (watch cat cluster/list)"},
	{FS_CLUSTER_LIST_ALL, FS_CLUSTER_DIR, "list-all", SRC_ALL_JOBS, 0,
	 PLACE_AGES | PLACE_STALE_NOTE, {.jobs = render_jobs_list_all}, 0,
	 "arena list -A: the jobs of every namespace"},
	{FS_CLUSTER_LIST_ALL_JSON, FS_CLUSTER_DIR, "list-all.json", SRC_ALL_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_list_json}, 0, "arena list -A -o json"},
	{FS_CLUSTER_LIST_ALL_YAML, FS_CLUSTER_DIR, "list-all.yaml", SRC_ALL_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_list_yaml}, 0, "arena list -A -o yaml"},
	{FS_CLUSTER_LIST_JSON, FS_CLUSTER_DIR, "list.json", SRC_NS_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_list_json}, 0,
	 "arena list -o json: one object per job (pandas.read_json reads it)"},
	{FS_CLUSTER_LIST_YAML, FS_CLUSTER_DIR, "list.yaml", SRC_NS_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_list_yaml}, 0, "arena list -o yaml"},
	{FS_CLUSTER_QUEUES, FS_CLUSTER_DIR, "queues", SRC_QUEUES, 0, PLACE_AGES | PLACE_STALE_NOTE,
	 {.queues = render_queues_cluster}, 0,
	 "Kueue's ClusterQueues: GPU quota, use, jobs admitted and waiting in line"},
	{FS_CLUSTER_QUEUES_JSON, FS_CLUSTER_DIR, "queues.json", SRC_QUEUES, 0, PLACE_AGES,
	 {.queues = render_queues_cluster_json}, 0,
	 "cluster/queues as JSON: one object per ClusterQueue, its quota and jobs"},
	{FS_CLUSTER_QUEUES_YAML, FS_CLUSTER_DIR, "queues.yaml", SRC_QUEUES, 0, PLACE_AGES,
	 {.queues = render_queues_cluster_yaml}, 0, NULL},
	{FS_CLUSTER_TOP, FS_CLUSTER_DIR, "top", SRC_CLUSTER, 0, 0,
	 {.cluster = render_cluster_top}, 0, "arena top node: every node's GPUs"},
	{FS_CLUSTER_TOP_JOB, FS_CLUSTER_DIR, "top-job", SRC_NS_JOBS, 0,
	 PLACE_AGES | PLACE_STALE_NOTE | PLACE_GPU_METRICS, {.jobs = render_jobs_top}, 0,
	 "arena top job: the namespace's jobs, most GPUs first"},
	{FS_CLUSTER_TOP_JOB_JSON, FS_CLUSTER_DIR, "top-job.json", SRC_NS_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_top_json}, 0, "arena top job -o json"},
	{FS_CLUSTER_TOP_JOB_YAML, FS_CLUSTER_DIR, "top-job.yaml", SRC_NS_JOBS, VIEW_FORMS,
	 PLACE_AGES, {.jobs = render_jobs_top_yaml}, 0, "arena top job -o yaml"},
	{FS_CLUSTER_TOP_JSON, FS_CLUSTER_DIR, "top.json", SRC_CLUSTER, 0, 0,
	 {.cluster = render_cluster_top_json}, 0, "arena top node -o json"},
	{FS_CLUSTER_TOP_YAML, FS_CLUSTER_DIR, "top.yaml", SRC_CLUSTER, 0, 0,
	 {.cluster = render_cluster_top_yaml}, 0, "arena top node -o yaml"},

	{FS_DATA_LIST, FS_DATA_DIR, "list", SRC_DATA, 0, PLACE_AGES | PLACE_STALE_NOTE,
	 {.data = render_data_list}, 0,
	 "arena data list: the namespace's volume claims, their jobs"},
	{FS_DATA_LIST_JSON, FS_DATA_DIR, "list.json", SRC_DATA, 0, PLACE_AGES | PLACE_FORM,
	 {.data = render_data_list_json}, 0, "data/list as JSON: one object per claim"},
	{FS_DATA_LIST_YAML, FS_DATA_DIR, "list.yaml", SRC_DATA, 0, PLACE_AGES | PLACE_FORM,
	 {.data = render_data_list_yaml}, 0, NULL},

	{FS_QUEUES_LIST, FS_QUEUES_DIR, "list", SRC_QUEUES, 0, PLACE_AGES | PLACE_STALE_NOTE,
	 {.queues = render_queues_local}, 0,
	 "the namespace's Kueue LocalQueues, their jobs admitted and waiting in line"},
	{FS_QUEUES_LIST_JSON, FS_QUEUES_DIR, "list.json", SRC_QUEUES, 0, PLACE_AGES,
	 {.queues = render_queues_local_json}, 0,
	 "queues/list as JSON: one object per LocalQueue, its use and jobs"},
	{FS_QUEUES_LIST_YAML, FS_QUEUES_DIR, "list.yaml", SRC_QUEUES, 0, PLACE_AGES,
	 {.queues = render_queues_local_yaml}, 0, NULL},

	{FS_JOB_DIR, FS_JOBS_DIR, NULL, SRC_JOB, 0, PLACE_DIR, {0}, 0, NULL},

	{FS_CODE_DIR, FS_JOB_DIR, "code", SRC_JOB, 0, PLACE_DIR | PLACE_COMES_AND_GOES | PLACE_CODE,
	 {0}, PLACE_WHEN_CODE, "the files shipped with it (cp -r DIR/ submit/), read-only"},
	{FS_JOB_EVENTS, FS_JOB_DIR, "events", SRC_JOB, VIEW_PODS | VIEW_EVENTS, PLACE_AGES,
	 {.job = render_job_events}, 0, "Kubernetes events of the job, what it owns and its pods, oldest first"},
	{FS_JOB_GPUS, FS_JOB_DIR, "gpus", SRC_JOB, VIEW_PODS, PLACE_GPU_METRICS,
	 {.job = render_job_gpus}, 0,
	 "allocated/requested GPUs of the job, and their duty cycle and memory (Prometheus)"},
	{FS_JOB_INFO, FS_JOB_DIR, "info", SRC_JOB, VIEW_ALL,
	 PLACE_AGES | PLACE_STALE_NOTE | PLACE_DELETE_NOTE | PLACE_GPU_METRICS,
	 {.job = render_job_info}, 0,
	 "arena get: status, duration, instances, TensorBoard"},
	{FS_JOB_INFO_JSON, FS_JOB_DIR, "info.json", SRC_JOB, VIEW_FORMS, PLACE_AGES,
	 {.job = render_job_info_json}, 0, "arena get -o json, with why and queue"},
	{FS_JOB_INFO_YAML, FS_JOB_DIR, "info.yaml", SRC_JOB, VIEW_FORMS, PLACE_AGES,
	 {.job = render_job_info_yaml}, 0, "arena get -o yaml, with why and queue"},
	{FS_INSTANCES_DIR, FS_JOB_DIR, "instances", SRC_JOB, 0, PLACE_DIR, {0}, 0, NULL},
	{FS_JOB_JSON, FS_JOB_DIR, "job.json", SRC_JOB, VIEW_MTIME, 0, {.job = job_json}, 0,
	 "the object as the API server returns it"},
	{FS_JOB_LOGS, FS_JOB_DIR, "logs", SRC_JOB, 0, PLACE_LOG, {0}, 0,
	 "the main instance's log; tail -f follows it"},
	{FS_JOB_METRICS, FS_JOB_DIR, "metrics", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME, {.job = render_job_metrics}, 0,
	 "a TrainJob's metrics as its script reports them: name value, by name"},
	{FS_JOB_METRICS_JSON, FS_JOB_DIR, "metrics.json", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME, {.job = render_job_metrics_json}, 0,
	 "metrics as JSON: {name: value}, numbers as numbers"},
	{FS_JOB_METRICS_YAML, FS_JOB_DIR, "metrics.yaml", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME, {.job = render_job_metrics_yaml}, 0,
	 "metrics.json as YAML"},
	{FS_JOB_PROGRESS, FS_JOB_DIR, "progress", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME | PLACE_GROWS,
	 {.job = render_job_progress}, 0,
	 "a TrainJob's progress reports as the mount saw them, the last current: tail -f follows"},
	{FS_JOB_PROGRESS_JSON, FS_JOB_DIR, "progress.json", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME, {.job = render_job_progress_json}, 0,
	 "progress as JSON: percent, remainingSeconds, metric, lastUpdated, age, stale"},
	{FS_JOB_PROGRESS_YAML, FS_JOB_DIR, "progress.yaml", SRC_JOB, VIEW_PODS,
	 PLACE_AGES | PLACE_REPORT_TIME, {.job = render_job_progress_yaml}, 0,
	 "progress.json as YAML"},
	{FS_JOB_SPEC, FS_JOB_DIR, "spec.yaml", SRC_JOB, VIEW_MTIME, 0, {.job = job_spec_yaml},
	 0, "the spec it was submitted with (or the object as YAML)"},
	{FS_JOB_STATUS, FS_JOB_DIR, "status", SRC_JOB, VIEW_PODS, 0, {.job = render_job_status},
	 0, "PENDING, QUEUED (in a Kueue queue), RUNNING, SUCCEEDED or FAILED"},
	{FS_JOB_SUSPEND, FS_JOB_DIR, "suspend", SRC_JOB, VIEW_MTIME, 0, {.job = job_suspend}, 0,
	 "1 while it is asked to be suspended, else 0; echo 1 or 0 into it"},
	{FS_JOB_TENSORBOARD, FS_JOB_DIR, "tensorboard_url", SRC_JOB,
	 VIEW_PODS | VIEW_SERVICES | VIEW_NODES, PLACE_COMES_AND_GOES,
	 {.job = job_tensorboard_url}, PLACE_WHEN_TENSORBOARD,
	 "the TensorBoard URL, when the job has one"},
	{FS_JOB_TYPE, FS_JOB_DIR, "type", SRC_JOB, VIEW_MTIME, 0, {.job = job_type}, 0,
	 "tfjob, pytorchjob, mpijob, ..."},
	{FS_JOB_WHY, FS_JOB_DIR, "why", SRC_JOB, VIEW_PODS | VIEW_EVENTS | VIEW_LOG_TAIL,
	 PLACE_AGES | PLACE_GPU_METRICS, {.job = render_job_why}, 0,
	 "one line: why it waits, failed, restarts, or runs since when"},

	{FS_POD_DIR, FS_INSTANCES_DIR, NULL, SRC_POD, 0, PLACE_DIR, {0}, 0,
	 "status, node, ip, gpus, logs (logs.previous after a restart)"},

	{FS_POD_ATTEMPTS_DIR, FS_POD_DIR, "attempts", SRC_POD, 0, PLACE_DIR, {0}, 0, NULL},

	{FS_POD_GPUS, FS_POD_DIR, "gpus", SRC_POD, 0, PLACE_GPU_METRICS,
	 {.pod_gpus = render_pod_gpus_metrics}, 0, NULL},
	{FS_POD_IP, FS_POD_DIR, "ip", SRC_POD, 0, 0, {.pod = render_pod_ip}, 0, NULL},
	{FS_POD_LOGS, FS_POD_DIR, "logs", SRC_POD, 0, PLACE_LOG, {0}, 0, NULL},
	{FS_POD_LOGS_PREVIOUS, FS_POD_DIR, "logs.previous", SRC_POD, 0,
	 PLACE_LOG | PLACE_COMES_AND_GOES, {0}, PLACE_WHEN_PREVIOUS, NULL},
	{FS_POD_NODE, FS_POD_DIR, "node", SRC_POD, 0, 0, {.pod = render_pod_node}, 0, NULL},
	{FS_POD_STATUS, FS_POD_DIR, "status", SRC_POD, 0, 0, {.pod = render_pod_status}, 0, NULL},

	/* attempts/N/: named after the instance (N = restartCount + 1), attempts.c's */
	{FS_ATTEMPT_DIR, FS_POD_ATTEMPTS_DIR, NULL, SRC_ATTEMPT, 0, PLACE_DIR, {0}, 0,
	 "every attempt of its main container, 1 first: its log and info (exit code, reason, "
	 "start, end), kept after restarts"},
	{FS_ATTEMPT_INFO, FS_ATTEMPT_DIR, "info", SRC_ATTEMPT, 0, PLACE_AGES,
	 {.attempt = render_attempt_info}, 0, NULL},
	{FS_ATTEMPT_LOG, FS_ATTEMPT_DIR, "log", SRC_ATTEMPT, 0, PLACE_LOG, {0}, 0, NULL},

	{FS_NODE_DIR, FS_NODES_DIR, NULL, SRC_NODE, 0, PLACE_DIR, {0}, 0,
	 "gpus (\"ALLOCATED/TOTAL\"), info, status, ip, role"},

	{FS_NODE_GPUS, FS_NODE_DIR, "gpus", SRC_NODE_PODS, 0, 0,
	 {.node_pods = render_node_gpus}, 0, NULL},
	{FS_NODE_INFO, FS_NODE_DIR, "info", SRC_NODE_PODS, 0, PLACE_GPU_METRICS,
	 {.node_pods = render_node_info}, 0, NULL},
	{FS_NODE_IP, FS_NODE_DIR, "ip", SRC_NODE, 0, 0, {.node = render_node_ip}, 0, NULL},
	{FS_NODE_ROLE, FS_NODE_DIR, "role", SRC_NODE, 0, 0, {.node = render_node_role}, 0, NULL},
	{FS_NODE_STATUS, FS_NODE_DIR, "status", SRC_NODE, 0, 0, {.node = render_node_status},
	 0, NULL},

	/* Below code/ the names are the job's annotation's (codetree.c); a directory
	 * stands in code/ and in itself, a file in either (no parent of its own). */
	{FS_CODE_SUBDIR, FS_CODE_DIR, NULL, SRC_JOB, 0, PLACE_DIR | PLACE_CODE, {0}, 0, NULL},
	{FS_CODE_SUBDIR, FS_CODE_SUBDIR, NULL, SRC_JOB, 0, PLACE_DIR | PLACE_CODE, {0}, 0, NULL},
	{FS_CODE_FILE, FS_NONE, NULL, SRC_JOB, 0, PLACE_CODE, {0}, 0, NULL},

	{FS_NS_DIR, FS_NAMESPACES_DIR, NULL, SRC_NAMESPACE, 0, PLACE_DIR, {0}, 0, NULL},

	{FS_CHECK_DIR, FS_NS_DIR, "check", SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR | PLACE_SUBMIT,
	 {0}, 0, NULL},
	{FS_DATA_DIR, FS_NS_DIR, "data", SRC_DATA, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0, NULL},
	{FS_JOBS_DIR, FS_NS_DIR, "jobs", SRC_JOBS, 0, PLACE_DIR, {0}, 0,
	 "the jobs of other namespaces you may list"},
	{FS_QUEUES_DIR, FS_NS_DIR, "queues", SRC_QUEUES, 0, PLACE_DIR | PLACE_FIXED_ATTR, {0}, 0,
	 NULL},
	/* namespace NS's own submit/ (a staging tree of its own: areas.c) */
	{FS_SUBMIT_DIR, FS_NS_DIR, "submit", SRC_NONE, 0, PLACE_DIR | PLACE_FIXED_ATTR | PLACE_SUBMIT,
	 {0}, 0, "submit/ of namespace NS (any you can see, by name), where you may create jobs"},

	/* Below submit/ the names are the user's: staging.c keeps them, submit.c serves them. */
	{FS_SUBMIT_SUBDIR, FS_NONE, NULL, SRC_NONE, 0, PLACE_DIR | PLACE_SUBMIT, {0}, 0, NULL},
	{FS_SUBMIT_FILE, FS_NONE, NULL, SRC_NONE, 0, PLACE_SUBMIT, {0}, 0, NULL},

	/* The trash at the top, for the mount's owner (UID): there once made (mkdir, as a
	 * trasher does), so that root's listing shows it only then; trash.c's, its
	 * entries the trashstore's (docs/tree.md, "The trash"). */
	{FS_TRASH_DIR, FS_NONE, NULL, SRC_NONE, 0, PLACE_DIR | PLACE_TRASH, {0}, 0,
	 "the trash: a job's folder moved into files/ is deleted (Delete in JupyterLab, a "
	 "file manager); moved back, it runs again"},
	/* gvfs (Files' trash:/// view) empties an entry by moving it here, then removes
	 * what is here: it is forgotten on the way in, so this stays empty */
	{FS_TRASH_EXPUNGED_DIR, FS_TRASH_DIR, "expunged", SRC_NONE, 0, PLACE_DIR | PLACE_TRASH,
	 {0}, 0, NULL},
	{FS_TRASH_FILES_DIR, FS_TRASH_DIR, "files", SRC_NONE, 0, PLACE_DIR | PLACE_TRASH, {0}, 0,
	 NULL},
	{FS_TRASH_INFO_DIR, FS_TRASH_DIR, "info", SRC_NONE, 0, PLACE_DIR | PLACE_TRASH, {0}, 0,
	 NULL},
	{FS_TRASH_ENTRY, FS_TRASH_FILES_DIR, NULL, SRC_NONE, 0, PLACE_DIR | PLACE_TRASH, {0}, 0,
	 NULL},
	{FS_TRASH_ERROR, FS_TRASH_ENTRY, "error", SRC_NONE, 0, PLACE_TRASH, {0}, 0, NULL},
	{FS_TRASH_SPEC, FS_TRASH_ENTRY, "spec.yaml", SRC_NONE, 0, PLACE_TRASH, {0}, 0, NULL},
	{FS_TRASH_INFO_FILE, FS_TRASH_INFO_DIR, NULL, SRC_NONE, 0, PLACE_TRASH, {0}, 0, NULL},
};

#define N_PLACES (sizeof(PLACES) / sizeof(PLACES[0]))

/* Each type's first row, each directory's fixed children and its child named after
 * objects, found once. */
static const struct place *by_type[FS_TYPE_COUNT];
static const struct place *object_child[FS_TYPE_COUNT];
static const struct place *children[N_PLACES];     /* grouped by parent, table order */
static size_t first_child[FS_TYPE_COUNT], n_children[FS_TYPE_COUNT];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void build_index(void)
{
	static const struct place none = {FS_NONE, FS_NONE, NULL, SRC_NONE, 0, 0, {0}, 0, NULL};
	size_t k = 0;

	for (int t = 0; t < FS_TYPE_COUNT; t++)
		by_type[t] = &none;
	for (size_t i = N_PLACES; i-- > 0;) {
		by_type[PLACES[i].type] = &PLACES[i];
		if (!PLACES[i].name && PLACES[i].parent != FS_NONE)
			object_child[PLACES[i].parent] = &PLACES[i];
	}
	for (int t = 0; t < FS_TYPE_COUNT; t++) {
		first_child[t] = k;
		for (size_t i = 0; i < N_PLACES; i++)
			if (PLACES[i].parent == (enum fs_type)t && PLACES[i].name &&
			    PLACES[i].type != FS_ROOT)
				children[k++] = &PLACES[i];
		n_children[t] = k - first_child[t];
		/* a directory lists its fixed names in the table's order: by name */
		for (size_t i = first_child[t] + 1; i < k; i++)
			assert(strcmp(children[i - 1]->name, children[i]->name) < 0);
	}
}

const struct place *place_of(enum fs_type type)
{
	pthread_once(&index_once, build_index);
	return by_type[type < FS_TYPE_COUNT ? type : FS_NONE];
}

size_t place_children(enum fs_type parent, const struct place *const **out)
{
	pthread_once(&index_once, build_index);
	*out = &children[first_child[parent]];
	return n_children[parent];
}

const struct place *place_child(enum fs_type parent, const char *name)
{
	const struct place *const *c;
	size_t n = place_children(parent, &c);

	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i]->name, name) == 0)
			return c[i];
	return NULL;
}

const struct place *place_object_child(enum fs_type parent)
{
	pthread_once(&index_once, build_index);
	return object_child[parent];
}

unsigned place_optional_mask(enum fs_type parent)
{
	const struct place *const *c;
	size_t n = place_children(parent, &c);
	unsigned mask = 0;

	for (size_t i = 0; i < n && i < sizeof(mask) * 8; i++)
		if (c[i]->flags & PLACE_COMES_AND_GOES)
			mask |= 1u << i;
	return mask;
}

unsigned place_nlink(enum fs_type dir)
{
	const struct place *const *c;
	size_t n = place_children(dir, &c);
	unsigned links = 2;

	if (place_object_child(dir))
		return 1;
	for (size_t i = 0; i < n; i++)
		if ((c[i]->flags & PLACE_DIR) && !(c[i]->flags & PLACE_COMES_AND_GOES))
			links++;
	return links;
}

/* How a place named after an object shows in a path (docs/tree.md's words). */
static const char *placeholder(enum fs_type type)
{
	switch (type) {
	case FS_JOB_DIR:
		return "NAME";
	case FS_POD_DIR:
		return "POD";
	case FS_NODE_DIR:
		return "NODE";
	case FS_NS_DIR:
		return "NS";
	case FS_ATTEMPT_DIR:
		return "N";
	case FS_TRASH_DIR:
		return ".Trash-UID";
	case FS_TRASH_ENTRY:
	case FS_TRASH_INFO_FILE:
		return "X";
	default:
		return "PATH";
	}
}

static size_t path_of(const struct place *p, char *buf, size_t size)
{
	size_t used = 0;

	if (p->parent != FS_NONE && p->parent != FS_ROOT)
		used = path_of(place_of(p->parent), buf, size);
	if (used < size)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 p->name ? p->name : placeholder(p->type),
					 (p->flags & PLACE_DIR) ? "/" : "");
	return used < size ? used : size - 1;
}

void place_path(const struct place *p, char *buf, size_t size)
{
	buf[0] = '\0';
	if (p->type != FS_ROOT)
		path_of(p, buf, size);
}

#define README_PATH_MAX 64
static struct readme_line readme_lines[N_PLACES];
static char readme_paths[N_PLACES][README_PATH_MAX];
static size_t n_readme_lines;
static pthread_once_t readme_once = PTHREAD_ONCE_INIT;

static void build_readme(void)
{
	for (size_t i = 0; i < N_PLACES; i++) {
		if (!PLACES[i].about)
			continue;
		place_path(&PLACES[i], readme_paths[n_readme_lines], README_PATH_MAX);
		readme_lines[n_readme_lines].path = readme_paths[n_readme_lines];
		readme_lines[n_readme_lines].about = PLACES[i].about;
		n_readme_lines++;
	}
}

size_t place_readme(const struct readme_line **out)
{
	pthread_once(&readme_once, build_readme);
	*out = readme_lines;
	return n_readme_lines;
}

void place_key(char *buf, size_t size, enum place_source source, const char *ns, int kind,
	       const char *name)
{
	switch (source) {
	case SRC_JOB:
		snprintf(buf, size, "job/%s/%d/%s", ns, kind, name);
		break;
	case SRC_POD:
	case SRC_ATTEMPT:
		snprintf(buf, size, "pod/%s/%s", ns, name);
		break;
	case SRC_NODE:
	case SRC_NODE_PODS:
		snprintf(buf, size, "node/%s", name);
		break;
	case SRC_JOBS:
		snprintf(buf, size, "jobs/%s", ns);
		break;
	case SRC_CLUSTER:
		snprintf(buf, size, "cluster");
		break;
	case SRC_HEALTH:
		snprintf(buf, size, "health");
		break;
	case SRC_NODES:
		snprintf(buf, size, "nodes");
		break;
	case SRC_NAMESPACES:
	case SRC_NAMESPACE:
		snprintf(buf, size, "namespaces");
		break;
	case SRC_NS_JOBS:
		snprintf(buf, size, "jobtable/%s", ns);
		break;
	case SRC_ALL_JOBS:
		snprintf(buf, size, "jobtable");
		break;
	case SRC_DATA:
		snprintf(buf, size, "data/%s", ns);
		break;
	case SRC_QUEUES:
		snprintf(buf, size, "queues");
		break;
	default:
		buf[0] = '\0';
	}
}

void place_node_key(const struct fs_node *node, char *buf, size_t size)
{
	enum place_source s = place_of(node->type)->source;
	const char *name = s == SRC_JOB ? node->job :
			   s == SRC_POD || s == SRC_ATTEMPT ? node->pod : node->node;

	place_key(buf, size, s, node->ns, node->kind, name);
}
