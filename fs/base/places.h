/*
 * The tree's shape, in one table (places.c): every place of the tree, with its
 * name, its parent, what it shows (and so what is gathered for it and the key
 * its inodes are filed under), its flags and its renderer. The path model
 * (model.c), the text and attributes (content.c), the notifier (notify.c) and
 * the operations (ops.c, dirs.c) read the table; none lists places of its own,
 * and neither do the README (its lines are the rows' `about`), the unit tests nor
 * the integration tests (tests/tools/places.c prints the table for them).
 * Adding a file is a row here and the places docs/architecture.md's recipe names
 * ("Adding a file: the recipe, for every kind of file"): its renderer, its line
 * in docs/tree.md and, but for a job's file, the tests that state its directory's listing.
 */
#ifndef ARENAFS_FS_PLACES_H
#define ARENAFS_FS_PLACES_H

#include <stdbool.h>
#include <stddef.h>

#include "fs/base/node.h"
#include "render/render.h"
#include "render/attempt.h"
#include "render/data.h"
#include "render/queues.h"
#include "render/readme.h"
#include "render/runtimes.h"
#include "k8s/base/strbuf.h"

/*
 * What a place shows. It decides what is gathered from the cache before the
 * renderer runs (and so which member of union place_render it has), whose
 * existence a directory's children depend on, and the object key its inodes are
 * filed under (place_key), through which cache changes find them.
 */
enum place_source {
	SRC_NONE,         /* the skeleton's directories, submit/ */
	SRC_PLACES,       /* the table itself: README (its rows' `about`) */
	SRC_CONFIG,       /* the kubeconfig: cluster/context */
	SRC_HEALTH,       /* the cache's health: cluster/health */
	SRC_CLUSTER,      /* every node with its pods: cluster/gpus, cluster/top */
	SRC_JOB,          /* one job, with the view parts of the row */
	SRC_POD,          /* one pod */
	SRC_NODE,         /* one node */
	SRC_NODE_PODS,    /* one node with its pods */
	SRC_JOBS,         /* the jobs of a namespace: jobs/ */
	SRC_NODES,        /* the list of nodes: nodes/ */
	SRC_NAMESPACES,   /* the list of namespaces: namespaces/ */
	SRC_NAMESPACE,    /* one other namespace: namespaces/NS/ */
	SRC_NS_JOBS,      /* the mount's namespace's jobs with their pods: cluster/list, top-job */
	SRC_ALL_JOBS,     /* every namespace's jobs with their pods: cluster/list-all */
	SRC_DATA,         /* a namespace's claims and the jobs that mount them: data/ */
	SRC_QUEUES,       /* Kueue's queues, Workloads and lines: cluster/queues (every
	                     ClusterQueue), queues/ (a namespace's LocalQueues) */
	SRC_RUNTIMES,     /* Trainer's training runtimes, polled (fs/tree/runtimes.h): runtimes */
	SRC_ATTEMPT,      /* one attempt of a pod's main container (fs/tree/attempts.h); its
	                     key is its pod's */
};

enum {
	PLACE_DIR = 1,          /* a directory */
	PLACE_LOG = 2,          /* a container's log (logfile.c), not rendered text */
	PLACE_AGES = 4,         /* shows ages or durations: changes with the clock alone */
	PLACE_COMES_AND_GOES = 8, /* exists only while its `when` holds */
	PLACE_STALE_NOTE = 16,  /* ends with render_stale_note while the cluster is unreachable */
	PLACE_FIXED_ATTR = 32,  /* a directory whose attributes never change */
	PLACE_SUBMIT = 64,      /* submit/ and below: submit.c answers for it */
	PLACE_CODE = 128,       /* jobs/NAME/code/ and below: the files the job shipped,
	                           named by its annotation, read from its ConfigMap
	                           (codetree.c, codefetch.c), not rendered */
	PLACE_DELETE_NOTE = 256, /* ends with render_delete_note while an rmdir's delete of
	                            the job outlives the rmdir (deletes.h), and with
	                            render_suspend_note after a refused write of its
	                            suspend (suspend.h) */
	PLACE_REPORT_TIME = 512, /* st_mtime is the job's last progress report's
	                            (render_job_report_mtime), not its last change */
	PLACE_GPU_METRICS = 1024, /* shows Prometheus's GPU figures (fs/tree/gpumetrics.h),
	                             asked at each open: rendered anew, as PLACE_AGES */
	PLACE_FORM = 2048,      /* a JSON or YAML form of a table: where the table says why
	                           it has no rows (a 403), its reads fail with EACCES */
	PLACE_TRASH = 4096,     /* .Trash-UID/ and below: trash.c answers for it */
	PLACE_GROWS = 8192,     /* jobs/NAME/progress: its inode keeps the reports it has
	                           shown (fs/tree/reports.h), so its text only grows, and
	                           an open handle reads the latest text (tail -f) */
};

/* The parts of a job's view (tree/view.h) a job's file needs gathered. */
enum {
	VIEW_PODS = 1,
	VIEW_SERVICES = 2,
	VIEW_NODES = 4,
	VIEW_EVENTS = 8,
	VIEW_KEPT = 16,     /* the pods gone whose logs are kept (v.kept_pods) */
	VIEW_LOG_TAIL = 32, /* the end of the failed instance's kept log (v.failed_log_tail) */
	VIEW_ALL = 63
};

/* When a place that comes and goes exists (PLACE_COMES_AND_GOES): the path model
 * answers each (model_place_exists, tree/model.h), under the cache's read lock. */
enum place_when {
	PLACE_WHEN_ALWAYS = 0,
	PLACE_WHEN_CODE,          /* the job's code annotation parses (code/) */
	PLACE_WHEN_TENSORBOARD,   /* the job has a TensorBoard */
	PLACE_WHEN_PREVIOUS,      /* the container has a previous instance */
};

/* The renderer, by source (the member the row's source names). */
union place_render {
	void (*text)(struct strbuf *sb);                                   /* SRC_NONE */
	/* SRC_PLACES */
	void (*readme)(struct strbuf *sb, const struct readme_line *lines, size_t n);
	void (*config)(struct strbuf *sb, const struct k8s_config *cfg);   /* SRC_CONFIG */
	void (*health)(struct strbuf *sb, const struct cache_health *h);   /* SRC_HEALTH */
	void (*cluster)(struct strbuf *sb, const struct node_view *v, size_t n);
	void (*job)(struct strbuf *sb, const struct job_view *v);          /* SRC_JOB */
	void (*pod)(struct strbuf *sb, const struct pod *pod);             /* SRC_POD */
	/* SRC_POD with PLACE_GPU_METRICS */
	void (*pod_gpus)(struct strbuf *sb, const struct pod *pod, const struct gpu_metrics *m);
	void (*node)(struct strbuf *sb, const struct k8s_node *node);          /* SRC_NODE */
	void (*node_pods)(struct strbuf *sb, const struct node_view *v);   /* SRC_NODE_PODS */
	/* SRC_NS_JOBS, SRC_ALL_JOBS */
	void (*jobs)(struct strbuf *sb, const struct job_view *jobs, size_t n);
	void (*data)(struct strbuf *sb, const struct data_view *v);        /* SRC_DATA */
	void (*queues)(struct strbuf *sb, const struct queue_view *v);     /* SRC_QUEUES */
	/* SRC_RUNTIMES */
	void (*runtimes)(struct strbuf *sb, const struct runtimes *r, int64_t now);
	void (*attempt)(struct strbuf *sb, const struct attempt_view *v);  /* SRC_ATTEMPT */
};

struct place {
	enum fs_type type;
	enum fs_type parent;      /* FS_NONE: the root, or submit.c's own places */
	const char *name;         /* NULL: named after an object (a job, pod, node, namespace) */
	enum place_source source;
	unsigned view;            /* SRC_JOB files and the tables of jobs: the VIEW_* parts
	                             (above) they need (a table: beyond its pods);
	                             always VIEW_PODS, which render_job_mtime reads */
	unsigned flags;           /* PLACE_* */
	union place_render render; /* files only; none for logs */
	enum place_when when;     /* PLACE_COMES_AND_GOES: when it exists below its parent */
	const char *about;        /* its line in the README, or NULL: not listed there */
};

/* The row of a type (every type has one). */
const struct place *place_of(enum fs_type type);
/* The fixed-name child of a directory called name, or NULL. */
const struct place *place_child(enum fs_type parent, const char *name);
/* The fixed-name children of a directory, in listing order (by name): *out points
 * into the table; returns how many. */
size_t place_children(enum fs_type parent, const struct place *const **out);
/* The child of a directory named after an object (a job of jobs/, ...), or NULL. */
const struct place *place_object_child(enum fs_type parent);
/* The children that come and go (code, tensorboard_url, logs.previous): bit i is
 * set when the i-th of place_children(parent) does. 0 when none does. */
unsigned place_optional_mask(enum fs_type parent);

/* The README's lines: every row with an `about`, in table order, with its path
 * (jobs/NAME/status; a place named after an object shows as NAME, POD, NODE, NS or
 * PATH, as docs/tree.md writes it). *out points into a table built once. */
size_t place_readme(const struct readme_line **out);
/* The path of a row as place_readme writes it, into buf (a directory's ends in "/"). */
void place_path(const struct place *p, char *buf, size_t size);

/* The key the inodes showing an object are filed under (inode.h): "job/NS/KIND/NAME",
 * "pod/NS/NAME", "node/NAME", "jobs/NS", "cluster", "health", "nodes", "namespaces",
 * "jobtable/NS" (the tables of a namespace's jobs), "jobtable" (of every namespace's),
 * "data/NS" (a namespace's claims), "queues" (Kueue's, every file of them);
 * "" for sources that have none. ns, kind and name as the source uses them. */
void place_key(char *buf, size_t size, enum place_source source, const char *ns, int kind,
	       const char *name);
/* The key of a node's place. */
void place_node_key(const struct fs_node *node, char *buf, size_t size);

/* st_nlink of a directory: 2 + its fixed subdirectories, or 1 ("unknown", for find
 * and fts) when it holds one per object, a count that could be stale. Those that
 * come and go (code/) are not counted: content.c adds them while they exist. */
unsigned place_nlink(enum fs_type dir);

static inline bool fs_type_is_dir(enum fs_type t)
{
	return place_of(t)->flags & PLACE_DIR;
}

static inline bool fs_type_is_log(enum fs_type t)
{
	return place_of(t)->flags & PLACE_LOG;
}

/* Files whose text holds ages or durations, so it changes with the clock alone. */
static inline bool fs_type_is_volatile(enum fs_type t)
{
	return place_of(t)->flags & (PLACE_AGES | PLACE_GPU_METRICS);
}

static inline bool fs_type_is_submit(enum fs_type t)
{
	return place_of(t)->flags & PLACE_SUBMIT;
}

/* Files of which the tree has one per job, pod or node: a walk reads thousands. */
static inline bool fs_type_is_per_object(enum fs_type t)
{
	enum place_source s = place_of(t)->source;

	return s == SRC_JOB || s == SRC_POD || s == SRC_NODE || s == SRC_NODE_PODS ||
	       s == SRC_ATTEMPT;
}

static inline bool fs_type_is_trash(enum fs_type t)
{
	return place_of(t)->flags & PLACE_TRASH;
}

static inline bool fs_type_is_code(enum fs_type t)
{
	return place_of(t)->flags & PLACE_CODE;
}

/* Directories inside a job's directory (and it): they go when the job goes. */
static inline bool fs_type_in_job(enum fs_type t)
{
	const struct place *p = place_of(t);

	return (p->flags & PLACE_DIR) &&
	       (p->source == SRC_JOB || p->source == SRC_POD || p->source == SRC_ATTEMPT);
}

#endif
