/*
 * The cache's storage: every object by (type, kind, namespace, name) in hash
 * tables, the indexes the tree needs (pods by job and by node, services by their
 * release label, events by involved object, jobs by namespace), the readers-writer
 * lock, and the generation counter.
 *
 * No network and no threads of its own: the reflectors (reflector.c) decode
 * objects and put them here; tests drive it directly. Writers take the write lock
 * only to swap pointers and relink index entries; a replaced or removed object is
 * handed back in a struct store_change so that it is freed after the change
 * callback, outside the lock.
 *
 * Every object type of objects.h starts with its struct obj_meta, which is how the
 * store reads namespace, name and resourceVersion without knowing the type.
 */
#ifndef ARENAFS_K8S_STORE_H
#define ARENAFS_K8S_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/cache.h"

struct store;

/* What a write changed. change's strings point into the objects and stay valid until
 * store_change_release(), which frees the replaced or removed object. */
struct store_change {
	struct cache_change change;
	enum cache_object_type type;
	void *old;                   /* the replaced or removed object, or NULL */
};

struct store *store_new(void);
/* Frees every object. No reader or writer may be left. */
void store_free(struct store *st);

void store_read_lock(struct store *st);
void store_read_unlock(struct store *st);
uint64_t store_generation(struct store *st);
/* Bumps the generation without a change of objects (the cache's health changed). */
void store_bump(struct store *st);

/* The object's decoder-made free function, by type. */
void store_object_free(enum cache_object_type type, void *obj);

/*
 * Puts obj (ownership passes to the store) under its namespace/name (and kind, for
 * jobs), marked with epoch (see store_sweep). Returns 1 with *ch filled (ADDED or
 * MODIFIED) when something changed; 0 when the same resourceVersion was there (obj
 * is freed, the mark updated); -ENOMEM (obj freed).
 */
int store_put(struct store *st, enum cache_object_type type, void *obj, uint32_t epoch,
	      struct store_change *ch);

/* Removes an object. Returns 1 with *ch filled (DELETED), 0 when it was not there. */
int store_remove(struct store *st, enum cache_object_type type, int kind, const char *ns,
		 const char *name, struct store_change *ch);

/*
 * After a relist: removes every object of type (and kind, for jobs; -1 otherwise) in
 * namespace ns (NULL: every namespace) whose mark is not epoch, i.e. that the list
 * did not return. *out gets a malloc'd array of the DELETED changes (release each,
 * then free the array); returns its length.
 */
size_t store_sweep(struct store *st, enum cache_object_type type, int kind, const char *ns,
		   uint32_t epoch, struct store_change **out);

void store_change_release(struct store_change *ch);

/* Lookups (cache.h), under store_read_lock(). config_ns: the configured namespace. */
size_t store_namespaces(struct store *st, const char *config_ns, const char ***out);
size_t store_jobs(struct store *st, const char *ns, const struct job ***out);
const struct job *store_find_job(struct store *st, const char *ns, enum job_kind kind,
				 const char *name);
size_t store_pods_of_job(struct store *st, const struct job *job, const struct pod ***out);
const struct pod *store_find_pod(struct store *st, const char *ns, const char *name);
size_t store_pods_on_node(struct store *st, const char *node, const struct pod ***out);
size_t store_nodes(struct store *st, const struct node ***out);
const struct node *store_find_node(struct store *st, const char *name);
size_t store_services_of_job(struct store *st, const char *ns, const char *job,
			     const struct service ***out);
size_t store_events_for(struct store *st, const char *ns, const char *name,
			const struct event ***out);
/* Every namespace object (CACHE_NAMESPACE) by name, for the per-namespace watches. */
size_t store_namespace_names(struct store *st, const char ***out);
/* Every object of a type, sorted by namespace and name. */
size_t store_objects(struct store *st, enum cache_object_type type, const void ***out);
/* How many objects of a type are stored (tests, dumps). */
size_t store_count(struct store *st, enum cache_object_type type);

#endif
