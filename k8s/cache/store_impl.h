/*
 * The insides of the cache's store, shared by store.c (tables, indexes, writes)
 * and store_query.c (lookups). Not a public header: readers use cache.h, the
 * reflectors and tests store.h.
 */
#ifndef ARENAFS_K8S_STORE_IMPL_H
#define ARENAFS_K8S_STORE_IMPL_H

#include <pthread.h>

#include "k8s/cache/store.h"

#define TABLE_SLOTS_MIN 256 /* tables double when they hold more entries than slots */

enum index_id {
	IX_POD_JOB,
	IX_POD_NODE,
	IX_SERVICE_RELEASE,
	IX_EVENT_INVOLVED,
	IX_JOB_NS,
	IX_WORKLOAD_OWNER,  /* a Workload by its owner's uid: the job's Workload */
	IX_OWNED_OWNER,     /* a batch Job or JobSet by its controller's uid */
	IX_COUNT
};

#define TYPE_COUNT      (CACHE_NAMESPACE + 1)
#define LINKS_PER_ENTRY 2 /* the most indexes an object is in: a pod's job and node */

struct entry;

struct bucket {
	struct bucket *hnext;
	uint32_t hash;
	size_t n;
	struct entry *head;
	size_t ns_len; /* key = ns '\0' value '\0' */
	char key[];
};

struct link {
	struct entry *prev, *next;
	struct bucket *b; /* NULL: not in this index */
};

/* One per stored object, so kept small: its type is its table's, a job's kind is
 * the job's own, and it has only the links of the indexes its type is in
 * (store_links(): a pod 2, a service, event or job 1, others none). */
struct entry {
	struct entry *hnext;
	void *obj;
	uint32_t hash;
	uint32_t epoch;
	struct link links[];
};

struct etable {
	struct entry **slots;
	size_t nslots, count;
	int type; /* enum cache_object_type of its entries */
};

struct btable {
	struct bucket **slots;
	size_t nslots, count;
};

/* The store is the cache readers hold (store.h says why). */
struct k8s_cache {
	/* Readers (FUSE workers, the notifier) hold it to read and to keep what they
	 * read alive; writers (the reflectors, the queue poller) take it to write only
	 * to swap pointers, never while waiting for the network. Order: an inode's lock
	 * (fs/base/inode.h) before it, the feed's f->lock (cache_impl.h) after it. */
	pthread_rwlock_t lock;
	uint64_t generation;     /* written under the write lock, read atomically */
	struct etable tables[TYPE_COUNT];  /* guarded by lock: read under it, written
	                                      under it held for writing */
	struct btable indexes[IX_COUNT];   /* guarded by lock, as tables */
	const char *config_ns;   /* set once, at creation; listed first by cache_namespaces;
	                            not owned */
	struct cache_feed *feed; /* set once, at creation (cache_impl.h); NULL for a store
	                            alone */
};

/* Every object struct of objects.h starts with its obj_meta. */
static inline const struct obj_meta *meta_of(const void *obj)
{
	return obj;
}

/* The entry of (kind, ns, name) in a table, or NULL. */
struct entry *store_entry_get(struct etable *t, int kind, const char *ns, const char *name);
/* The index bucket of (ns, val), or NULL. */
struct bucket *store_bucket_find(struct btable *t, const char *ns, const char *val);

#endif
