/*
 * The watch-fed cache: every object the tree shows, kept current by list+watch
 * (one reflector per kind, client-go style: LIST with pagination, WATCH from the
 * list's resourceVersion with bookmarks, re-watch on clean close, relist and
 * reconcile on 410, reconnect with capped backoff and jitter).
 *
 * Readers take the read lock, look objects up, and release it; they never wait
 * for the network. Writers (the reflectors: lists on their own threads, watch
 * events on the client's transport thread) hold the write lock only to swap
 * objects in. Pointers returned by lookups are valid until cache_read_unlock().
 * Pods are indexed by job and by node, services by their `release` label, events
 * by involved object, so the tree's lookups cost what they return, not a scan.
 *
 * Namespaces: jobs, pods, services, events and claims are watched cluster-wide when the
 * credentials may; on 403 the cache lists namespaces and watches each one it may
 * list (a namespace answering 403 is left out); when even that is forbidden, only
 * the configured namespace. Nodes are cluster-scoped; a 403 on nodes leaves
 * nodes/ empty. (docs/tree.md says so to users.)
 *
 * Where it is implemented: a struct k8s_cache is the store (store.h), so the read
 * lock, the lookups and the generation are store.c's and store_query.c's; start,
 * stop and health are cache.c's, the watches reflector.c's (docs/k8s.md).
 */
#ifndef ARENAFS_K8S_CACHE_H
#define ARENAFS_K8S_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/error.h"
#include "k8s/cache/health.h"
#include "k8s/objects/kinds.h"
#include "k8s/objects/objects.h"

struct k8s_cache;
struct k8s_client;

/* CACHE_NAMESPACE stays last: loops run to it. */
enum cache_object_type {
	CACHE_JOB, CACHE_POD, CACHE_NODE, CACHE_SERVICE, CACHE_EVENT, CACHE_PVC,
	CACHE_WORKLOAD, CACHE_LOCALQUEUE, CACHE_CLUSTERQUEUE, CACHE_COHORT, /* Kueue's, where
	                                                                      it is served */
	CACHE_QUEUE_LINE,  /* a LocalQueue's pending Workloads: polled (queuepoll.c), not watched */
	CACHE_OWNED,       /* batch Jobs and JobSets (struct owned): a job's owner chain */
	CACHE_NAMESPACE
};
enum cache_change_type { CACHE_ADDED, CACHE_MODIFIED, CACHE_DELETED };

/* What changed, for the tree to invalidate exactly that. Strings valid during the callback. */
struct cache_change {
	enum cache_object_type object;
	enum cache_change_type type;
	const char *namespace;       /* "" for nodes */
	const char *name;
	int job_kind;                /* CACHE_JOB: its kind; CACHE_POD: its job's kind; else -1 */
	const char *owner_job;       /* CACHE_POD, CACHE_SERVICE: the job it belongs to (the pod's
	                                job, the service's release label); CACHE_OWNED: its
	                                controller's name (a job, or another owned object); or NULL */
	const char *involved_name;   /* CACHE_EVENT: the object it is about (a job or a pod) */
	const char *node_name;       /* CACHE_POD: node now (or before deletion), may be "" */
	const char *old_node_name;   /* CACHE_POD: node before this change, may be "" */
};

/*
 * Called by the reflector thread after each applied change (and once per object
 * changed by a relist), outside the lock. Must not block or call back into the
 * cache for long: queue the work. It is called for the first lists' ADDED too
 * (during cache_start), and for watch events on the client's transport thread.
 */
typedef void (*cache_change_fn)(void *arg, const struct cache_change *change);

struct cache_options {
	const char *namespace;                 /* the configured namespace */
	bool served[JOB_KIND_COUNT];           /* from kinds_discover() */
	cache_change_fn on_change;             /* may be NULL */
	void *arg;
	/* WATCH timeoutSeconds; 0: client-go's random 5–10 min. Tests set a few seconds
	 * to see watches end cleanly and resume (the API server ends them so). */
	int watch_timeout_s;
	/* Kueue's API versions (kueue_discover): its objects are watched where served,
	 * and the lines of its LocalQueues polled where its visibility API is */
	struct kueue_api kueue;
	/* How often the lines are asked for, in ms; 0: QUEUE_POLL_MS (2 s) */
	int queue_poll_ms;
	/* How long the first lists may take in all, in ms; 0: no deadline (a list is a
	 * stream: only its 120 s of silence would end it). Start-up's deadline. */
	int first_lists_timeout_ms;
	/* Past that deadline, a first list whose bytes still come is progress, not a
	 * hang: it is waited for until nothing of it came for this long (ms; 0: the
	 * deadline alone). A large cluster's long first list must not make it
	 * unmountable by default. Start-up's startup_timeout. */
	int first_lists_idle_ms;
};

/*
 * Lists every kind (blocking; fails with the first error, e.g. EACCES for a
 * rejected token, so that start-up can report it), then starts the watch threads.
 */
int cache_start(struct k8s_client *client, const struct cache_options *opts,
		struct k8s_cache **out, struct k8s_error *err);
/* Stops the watches (cancels streams, joins threads) and frees everything. */
void cache_stop(struct k8s_cache *c);

void cache_read_lock(struct k8s_cache *c);
void cache_read_unlock(struct k8s_cache *c);
/* Whether the read (or write) lock is held by some thread: for asserts. */
bool cache_read_locked(struct k8s_cache *c);

/*
 * Lookups, under the read lock. The array-returning ones store a malloc'd array of
 * pointers in *out (the caller frees the array, never the objects) and return its
 * length; on allocation failure they return 0 and *out is NULL.
 */
/* Namespaces with jobs visible to these credentials, the configured one always first. */
size_t cache_namespaces(struct k8s_cache *c, const char ***out);
/* The namespace object called name, jobs or none, or NULL: not there, or these
 * credentials may not list namespaces (the cache then has none). */
const struct k8s_namespace *cache_find_namespace(struct k8s_cache *c, const char *name);
size_t cache_jobs(struct k8s_cache *c, const char *ns, const struct job ***out);
const struct job *cache_find_job(struct k8s_cache *c, const char *ns, enum job_kind kind,
				 const char *name);
/* Pods of the job: those whose controller reference names it, or, lacking one, whose
 * operator labels name it (and do not name another kind). */
size_t cache_pods_of_job(struct k8s_cache *c, const struct job *job, const struct pod ***out);
const struct pod *cache_find_pod(struct k8s_cache *c, const char *ns, const char *name);
size_t cache_pods_on_node(struct k8s_cache *c, const char *node, const struct pod ***out);
size_t cache_nodes(struct k8s_cache *c, const struct k8s_node ***out);
const struct k8s_node *cache_find_node(struct k8s_cache *c, const char *name);
/* Services labelled release=<job> in ns (Arena's rule for a job's TensorBoard). */
size_t cache_services_of_job(struct k8s_cache *c, const char *ns, const char *job,
			     const struct service ***out);
/* Events whose involvedObject is in ns and named name, any kind. */
size_t cache_events_for(struct k8s_cache *c, const char *ns, const char *name,
			const struct event ***out);

/* The batch Jobs and JobSets of ns whose controller ownerReference has uid (a job's,
 * or a JobSet's), by name: a job's owner chain for its events. */
size_t cache_owned_by(struct k8s_cache *c, const char *ns, const char *uid,
		      const struct owned ***out);
/* The batch Job (OWNED_BATCH_JOB) or JobSet of ns called name, or NULL. */
const struct owned *cache_find_owned(struct k8s_cache *c, enum owned_kind kind, const char *ns,
				     const char *name);

/* The PersistentVolumeClaims of ns, by name (data/). */
size_t cache_pvcs(struct k8s_cache *c, const char *ns, const struct pvc ***out);

/* Kueue (docs/tree.md, "Queues"). The Workload of a job: the one whose controller
 * ownerReference is the job (its uid), or NULL. */
const struct workload *cache_workload_of_job(struct k8s_cache *c, const struct job *job);
/* The Workloads of ns (NULL: of every namespace), by namespace and name. */
size_t cache_workloads(struct k8s_cache *c, const char *ns, const struct workload ***out);
/* The LocalQueues of ns (NULL: of every namespace), by namespace and name. */
size_t cache_localqueues(struct k8s_cache *c, const char *ns, const struct localqueue ***out);
const struct localqueue *cache_find_localqueue(struct k8s_cache *c, const char *ns,
					       const char *name);
/* Every ClusterQueue, by name. */
size_t cache_clusterqueues(struct k8s_cache *c, const struct clusterqueue ***out);
/* Every Cohort object, by name (a cohort ClusterQueues name may have none). */
size_t cache_cohorts(struct k8s_cache *c, const struct kueue_cohort ***out);
const struct clusterqueue *cache_find_clusterqueue(struct k8s_cache *c, const char *name);
/* The pending line of LocalQueue lq of ns, as last polled, or NULL (none pending, or
 * no visibility API). */
const struct queue_line *cache_queue_line(struct k8s_cache *c, const char *ns, const char *lq);
/* The Kueue versions the cache was started with (all "" without Kueue). No lock. */
void cache_kueue(struct k8s_cache *c, struct kueue_api *out);

/* Every object of a type (struct job/pod/node/service/event/pvc/k8s_namespace, by type),
 * sorted by namespace and name: for dumps, tools and whole-cluster files. */
size_t cache_objects(struct k8s_cache *c, enum cache_object_type type, const void ***out);

/* Bumped on every applied change (and when the health changes); lets the tree know a
 * rendered text may be stale. */
uint64_t cache_generation(struct k8s_cache *c);

/* Lock-free for the caller: takes its own short lock. */
void cache_get_health(struct k8s_cache *c, struct cache_health *out);
/* Whether objects of type in ns are not the credentials' to list: the list answered
 * 403 in ns, or cluster-wide with no watch of ns instead. True with the server's
 * words in why, so that a file says so instead of looking empty. Takes f->lock (may
 * be called under the read lock). */
bool cache_forbidden(struct k8s_cache *c, enum cache_object_type type, const char *ns,
		     char *why, size_t size);

#endif
