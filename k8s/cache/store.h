/*
 * The cache's storage: every object by (type, kind, namespace, name) in hash
 * tables, the indexes the tree needs (pods by job and by node, services by their
 * release label, events by involved object, jobs by namespace), the readers-writer
 * lock, and the generation counter.
 *
 * The store is the cache its readers hold: struct k8s_cache is the store, and
 * cache.h's read side (cache_read_lock, the lookups, cache_generation) is
 * implemented on it here (store.c, store_query.c), where the data is. The
 * reflectors that fill it (cache.c, reflector.c) hang off it as its feed. This
 * header is the rest: making one, and writing to it.
 *
 * No network and no threads of its own: the reflectors decode objects and put
 * them here; tests drive it directly. Writers take the write lock only to swap
 * pointers and relink index entries; a replaced or removed object is handed back
 * in a struct store_change so that it is freed after the change callback,
 * outside the lock.
 *
 * Every object type of objects.h starts with its struct obj_meta, which is how the
 * store reads namespace, name and resourceVersion without knowing the type.
 */
#ifndef ARENAFS_K8S_STORE_H
#define ARENAFS_K8S_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/cache/cache.h"

struct cache_feed;

/* What a write changed. change's strings point into the objects and stay valid until
 * store_change_release(), which frees the replaced or removed object. */
struct store_change {
	struct cache_change change;
	enum cache_object_type type;
	void *old;                   /* the replaced or removed object, or NULL */
};

/* An empty cache. config_ns: the configured namespace, which cache_namespaces()
 * lists first; it must outlive the store. feed: what fills it (cache_start's
 * reflectors), NULL for a store filled by hand (tests). */
struct k8s_cache *store_new(const char *config_ns, struct cache_feed *feed);
/* Frees every object. No reader or writer may be left. */
void store_free(struct k8s_cache *st);
/* The feed given to store_new(). */
struct cache_feed *store_feed(struct k8s_cache *st);

/* Bumps the generation without a change of objects (the cache's health changed). */
void store_bump(struct k8s_cache *st);

/*
 * Puts obj (ownership passes to the store) under its namespace/name (and kind, for
 * jobs), marked with epoch (see store_sweep). Returns 1 with *ch filled (ADDED or
 * MODIFIED) when something changed; 0 when the same resourceVersion was there (obj
 * is freed, the mark updated); -ENOMEM (obj freed).
 */
int store_put(struct k8s_cache *st, enum cache_object_type type, void *obj, uint32_t epoch,
	      struct store_change *ch);

/* Removes an object. Returns 1 with *ch filled (DELETED), 0 when it was not there. */
int store_remove(struct k8s_cache *st, enum cache_object_type type, int kind, const char *ns,
		 const char *name, struct store_change *ch);

/*
 * After a relist: removes every object of type (and kind, for jobs; -1 otherwise) in
 * namespace ns (NULL: every namespace) whose mark is not epoch, i.e. that the list
 * did not return. *out gets a malloc'd array of the DELETED changes (release each,
 * then free the array); returns its length.
 */
size_t store_sweep(struct k8s_cache *st, enum cache_object_type type, int kind, const char *ns,
		   uint32_t epoch, struct store_change **out);

void store_change_release(struct store_change *ch);

/* Lookups beyond cache.h's, under cache_read_lock(). */
/* Every namespace object (CACHE_NAMESPACE) by name, for the per-namespace watches. */
size_t store_namespace_names(struct k8s_cache *st, const char ***out);
/* How many objects of a type are stored (tests, dumps). */
size_t store_count(struct k8s_cache *st, enum cache_object_type type);

#endif
