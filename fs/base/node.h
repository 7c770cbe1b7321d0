/*
 * What an inode of the tree is: its type (a place of the tree: places.c's table
 * says its name, parent, flags and renderer) and the Kubernetes names that say
 * which object it shows. Plain data, shared by the inode table (inode.c), the
 * path model (model.c), the renderer glue (content.c), the log files (logfile.c)
 * and the FUSE operations (ops.c).
 *
 * A node says nothing about content: content.c turns a node into text, model.c
 * turns (parent node, name) into a child node, checking against the cache. The
 * order of the types means nothing.
 */
#ifndef ARENAFS_FS_NODE_H
#define ARENAFS_FS_NODE_H

#include <stdbool.h>
#include <stddef.h>

enum fs_type {
	FS_NONE = 0,
	FS_ROOT,
	FS_README,
	FS_CLUSTER_DIR,
	FS_CLUSTER_CONTEXT,
	FS_CLUSTER_HEALTH,
	FS_CLUSTER_GPUS,
	FS_CLUSTER_TOP,
	FS_CLUSTER_LIST,      /* ns: the mount's */
	FS_CLUSTER_LIST_ALL,
	FS_CLUSTER_TOP_JOB,   /* ns: the mount's */
	FS_CLUSTER_LIST_JSON, /* the tables' JSON and YAML forms (render/job_forms.h) */
	FS_CLUSTER_LIST_YAML,
	FS_CLUSTER_LIST_ALL_JSON,
	FS_CLUSTER_LIST_ALL_YAML,
	FS_CLUSTER_TOP_JOB_JSON,
	FS_CLUSTER_TOP_JOB_YAML,
	FS_CLUSTER_TOP_JSON,
	FS_CLUSTER_TOP_YAML,
	FS_DATA_LIST_JSON,
	FS_DATA_LIST_YAML,
	FS_JOBS_DIR,          /* jobs/ or namespaces/NS/jobs/: ns set */
	FS_JOB_DIR,           /* ns, kind, job */
	FS_JOB_STATUS,
	FS_JOB_TYPE,
	FS_JOB_INFO,
	FS_JOB_INFO_JSON,
	FS_JOB_INFO_YAML,
	FS_JOB_LOGS,          /* + pod, container: the main instance's main container */
	FS_JOB_TENSORBOARD,
	FS_JOB_EVENTS,
	FS_JOB_GPUS,
	FS_JOB_SPEC,
	FS_JOB_JSON,
	FS_JOB_SUSPEND,       /* the control file: 1 suspended, 0 not (fs/submit/suspend.h) */
	FS_JOB_WHY,           /* the one reason the job is where it is */
	FS_JOB_PROGRESS,      /* a TrainJob's reported progress, time left, loss */
	FS_JOB_METRICS,       /* a TrainJob's reported metrics, name value */
	FS_JOB_PROGRESS_JSON, /* their forms (render/progress.h) */
	FS_JOB_PROGRESS_YAML,
	FS_JOB_METRICS_JSON,
	FS_JOB_METRICS_YAML,
	FS_INSTANCES_DIR,
	FS_POD_DIR,           /* ns, kind, job, pod */
	FS_POD_STATUS,
	FS_POD_NODE,
	FS_POD_IP,
	FS_POD_GPUS,
	FS_POD_LOGS,          /* + container */
	FS_POD_LOGS_PREVIOUS, /* + container */
	FS_POD_ATTEMPTS_DIR,  /* instances/POD/attempts/: every attempt of the main container */
	FS_ATTEMPT_DIR,       /* attempts/N/: + container, restarts = N-1 (its instance) */
	FS_ATTEMPT_INFO,
	FS_ATTEMPT_LOG,
	FS_NODES_DIR,
	FS_NODE_DIR,          /* node */
	FS_NODE_GPUS,
	FS_NODE_INFO,
	FS_NODE_STATUS,
	FS_NODE_IP,
	FS_NODE_ROLE,
	FS_SUBMIT_DIR,        /* submit/: its subtree is submit.c's (submit.h) */
	FS_SUBMIT_SUBDIR,     /* a directory below submit/ or check/, described by submit.c */
	FS_SUBMIT_FILE,       /* a file below submit/ or check/, likewise */
	FS_CHECK_DIR,         /* check/: submit/'s twin that only dry-runs (submit.h) */
	FS_NAMESPACES_DIR,
	FS_DATA_DIR,          /* data/ or namespaces/NS/data/: ns set */
	FS_DATA_LIST,         /* data/list: ns set */
	FS_QUEUES_DIR,        /* queues/ or namespaces/NS/queues/: ns set */
	FS_QUEUES_LIST,       /* queues/list: ns set */
	FS_CLUSTER_QUEUES,    /* cluster/queues */
	FS_CLUSTER_QUEUES_JSON, /* the queue tables' forms (render/queue_forms.h) */
	FS_CLUSTER_QUEUES_YAML,
	FS_QUEUES_LIST_JSON,  /* ns set */
	FS_QUEUES_LIST_YAML,
	FS_NS_DIR,            /* namespaces/NS/: ns set */
	FS_CODE_DIR,          /* jobs/NAME/code/: the job's, path "" */
	FS_CODE_SUBDIR,       /* a directory below code/: + path */
	FS_CODE_FILE,         /* a file below code/: + path */
	FS_RUNTIMES,          /* runtimes: Kubeflow Trainer's training runtimes */
	FS_TRASH_DIR,         /* .Trash-UID/: the trash, its subtree trash.c's (trash.h) */
	FS_TRASH_FILES_DIR,   /* .Trash-UID/files/: the deleted jobs */
	FS_TRASH_INFO_DIR,    /* .Trash-UID/info/: what their trashers wrote of them */
	FS_TRASH_EXPUNGED_DIR, /* .Trash-UID/expunged/: where gvfs empties the trash, empty */
	FS_TRASH_ENTRY,       /* files/X/: one deleted job; identity "trash:ID" */
	FS_TRASH_SPEC,        /* files/X/spec.yaml: its kept spec; the entry's identity */
	FS_TRASH_ERROR,       /* files/X/error: why bringing it back failed */
	FS_TRASH_INFO_FILE,   /* info/NAME: a file of info/; identity "trash:ID" */
	FS_TYPE_COUNT
};

/*
 * Strings are owned (malloc'd) and NULL when the type does not use them.
 * identity tells two objects of the same path apart (the job's or pod's uid, a
 * container instance): a lookup that finds another identity at a path gives it a
 * new inode, which is how `tail -F` notices a restarted container.
 */
struct fs_node {
	enum fs_type type;
	int kind;                    /* enum job_kind of job nodes, else -1 */
	int restarts;                /* logs: the container's restartCount it stands for */
	char *ns;
	char *job;                   /* the job's Kubernetes name (not the display name) */
	char *pod;
	char *node;                  /* nodes/NAME */
	char *container;             /* logs */
	char *path;                  /* code/'s places: the path below code/ ("" for code/) */
	char *uid;                   /* the uid of the job, pod or node the place is about */
	char *identity;              /* "" for static places; the uid, or a container instance */
};

#define FS_NODE_INIT {FS_NONE, -1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}

void fs_node_clear(struct fs_node *n);
/* Deep copy; returns -ENOMEM (dst cleared) on failure. */
int fs_node_copy(struct fs_node *dst, const struct fs_node *src);

/* A directory's entry: its name and the node it stands for (the path model's, code/'s
 * and submit/'s listings). */
struct fs_entry {
	char *name;
	struct fs_node node;
};

void fs_entries_free(struct fs_entry *e, size_t n);

#endif
