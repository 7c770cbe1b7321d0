/*
 * The cache's lookups (cache.h, and store.h's two extras), on the store where the
 * objects are: each walks one bucket of an index or one table and returns a
 * sorted array, so that the tree's directories list in a stable order. Callers
 * hold the read lock (cache_read_lock).
 */
#include "k8s/cache/store_impl.h"

#include <stdlib.h>
#include <string.h>

static int cmp_meta(const void *a, const void *b)
{
	const struct obj_meta *x = meta_of(*(void *const *)a), *y = meta_of(*(void *const *)b);
	int c = strcmp(x->namespace, y->namespace);

	return c ? c : strcmp(x->name, y->name);
}

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	int c = strcmp(x->meta.name, y->meta.name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = *(const struct event *const *)a,
	                   *y = *(const struct event *const *)b;

	if (x->first_seen != y->first_seen)
		return x->first_seen < y->first_seen ? -1 : 1;
	return strcmp(x->meta.name, y->meta.name);
}

typedef bool (*entry_filter_fn)(const void *obj, const void *arg);

/* The objects of a bucket's list (those filter accepts), sorted. */
static size_t collect_bucket(const struct bucket *b, int slot, entry_filter_fn filter,
                             const void *arg, int (*cmp)(const void *, const void *),
                             const void ***out)
{
	const void **arr;
	size_t n = 0;

	*out = NULL;
	if (!b || !b->n)
		return 0;
	arr = malloc(b->n * sizeof(*arr));
	if (!arr)
		return 0;
	for (const struct entry *e = b->head; e; e = e->links[slot].next)
		if (!filter || filter(e->obj, arg))
			arr[n++] = e->obj;
	if (!n) {
		free(arr);
		return 0;
	}
	qsort(arr, n, sizeof(*arr), cmp);
	*out = arr;
	return n;
}

static size_t collect_table(const struct etable *t, int (*cmp)(const void *, const void *),
                            const void ***out)
{
	const void **arr;
	size_t n = 0;

	*out = NULL;
	if (!t->count)
		return 0;
	arr = malloc(t->count * sizeof(*arr));
	if (!arr)
		return 0;
	for (size_t i = 0; i < t->nslots; i++)
		for (const struct entry *e = t->slots[i]; e; e = e->hnext)
			arr[n++] = e->obj;
	qsort(arr, n, sizeof(*arr), cmp);
	*out = arr;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t cache_owned_by(struct k8s_cache *st, const char *ns, const char *uid,
                      const struct owned ***out)
{
	return collect_bucket(store_bucket_find(&st->indexes[IX_OWNED_OWNER], ns, uid), 0, NULL,
	                      NULL, cmp_meta, (const void ***)out);
}

const struct owned *cache_find_owned(struct k8s_cache *st, enum owned_kind kind, const char *ns,
                                     const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_OWNED], (int)kind, ns, name);

	return e ? e->obj : NULL;
}

size_t cache_namespaces(struct k8s_cache *st, const char ***out)
{
	const char *config_ns = st->config_ns;
	const struct btable *bt = &st->indexes[IX_JOB_NS];
	const char **arr = malloc((bt->count + 1) * sizeof(*arr));
	size_t n = 0;

	*out = NULL;
	if (!arr)
		return 0;
	arr[n++] = config_ns;
	for (size_t i = 0; i < bt->nslots; i++)
		for (const struct bucket *b = bt->slots[i]; b; b = b->hnext)
			if (strcmp(b->key, config_ns) != 0)
				arr[n++] = b->key;
	qsort(arr + 1, n - 1, sizeof(*arr), cmp_str);
	*out = arr;
	return n;
}

size_t cache_jobs(struct k8s_cache *st, const char *ns, const struct job ***out)
{
	return collect_bucket(store_bucket_find(&st->indexes[IX_JOB_NS], ns, ""), 0, NULL, NULL,
	                      cmp_job, (const void ***)out);
}

const struct job *cache_find_job(struct k8s_cache *st, const char *ns, enum job_kind kind,
                                 const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_JOB], (int)kind, ns, name);

	return e ? e->obj : NULL;
}

static bool same_mpi(int a, int b)
{
	/* v1 and v2beta1 are one CRD name: a cluster serves one of them */
	return (a == JOB_MPIJOB || a == JOB_MPIJOB_V2) && (b == JOB_MPIJOB || b == JOB_MPIJOB_V2);
}

struct job_match {
	const struct job *job;
	bool name_unique; /* exactly one kind has a job of this name here */
};

static bool pod_matches_job(const void *obj, const void *arg)
{
	const struct pod *p = obj;
	const struct job_match *jm = arg;

	if (p->job_kind < 0)
		return jm->name_unique;
	return p->job_kind == (int)jm->job->kind || same_mpi(p->job_kind, (int)jm->job->kind);
}

size_t cache_pods_of_job(struct k8s_cache *st, const struct job *job, const struct pod ***out)
{
	struct job_match jm = {job, false};
	int kinds = 0;

	for (int k = 0; k < JOB_KIND_COUNT; k++)
		if (cache_find_job(st, job->meta.namespace, (enum job_kind)k, job->meta.name))
			kinds++;
	jm.name_unique = kinds == 1;
	return collect_bucket(
	    store_bucket_find(&st->indexes[IX_POD_JOB], job->meta.namespace, job->meta.name), 0,
	    pod_matches_job, &jm, cmp_meta, (const void ***)out);
}

const struct pod *cache_find_pod(struct k8s_cache *st, const char *ns, const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_POD], -1, ns, name);

	return e ? e->obj : NULL;
}

size_t cache_pods_on_node(struct k8s_cache *st, const char *node, const struct pod ***out)
{
	return collect_bucket(store_bucket_find(&st->indexes[IX_POD_NODE], "", node), 1, NULL, NULL,
	                      cmp_meta, (const void ***)out);
}

size_t cache_nodes(struct k8s_cache *st, const struct k8s_node ***out)
{
	return collect_table(&st->tables[CACHE_NODE], cmp_meta, (const void ***)out);
}

const struct k8s_node *cache_find_node(struct k8s_cache *st, const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_NODE], -1, "", name);

	return e ? e->obj : NULL;
}

size_t cache_services_of_job(struct k8s_cache *st, const char *ns, const char *job,
                             const struct service ***out)
{
	return collect_bucket(store_bucket_find(&st->indexes[IX_SERVICE_RELEASE], ns, job), 0, NULL,
	                      NULL, cmp_meta, (const void ***)out);
}

size_t cache_events_for(struct k8s_cache *st, const char *ns, const char *name,
                        const struct event ***out)
{
	return collect_bucket(store_bucket_find(&st->indexes[IX_EVENT_INVOLVED], ns, name), 0, NULL,
	                      NULL, cmp_event, (const void ***)out);
}

const struct k8s_namespace *cache_find_namespace(struct k8s_cache *st, const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_NAMESPACE], -1, "", name);

	return e ? e->obj : NULL;
}

size_t store_namespace_names(struct k8s_cache *st, const char ***out)
{
	const struct k8s_namespace **objs;
	size_t n = collect_table(&st->tables[CACHE_NAMESPACE], cmp_meta, (const void ***)&objs);
	const char **names;

	*out = NULL;
	if (!n)
		return 0;
	/* the array of objects becomes the array of their names, in place */
	names = (const char **)objs;
	for (size_t i = 0; i < n; i++)
		names[i] = objs[i]->meta.name;
	*out = names;
	return n;
}

static bool in_namespace(const void *obj, const void *ns)
{
	return strcmp(meta_of(obj)->namespace, ns) == 0;
}

/* The objects of a table in ns (NULL: all), by namespace and name. */
static size_t collect_in(struct k8s_cache *st, enum cache_object_type type, const char *ns,
                         const void ***out)
{
	const void **all;
	size_t n = collect_table(&st->tables[type], cmp_meta, &all), k = 0;

	if (!ns) {
		*out = all;
		return n;
	}
	/* claims, queues and Workloads are few beside pods: a scan costs less than an index */
	for (size_t i = 0; i < n; i++)
		if (in_namespace(all[i], ns))
			all[k++] = all[i];
	if (!k) {
		free(all);
		all = NULL;
	}
	*out = all;
	return k;
}

size_t cache_pvcs(struct k8s_cache *st, const char *ns, const struct pvc ***out)
{
	return collect_in(st, CACHE_PVC, ns, (const void ***)out);
}

size_t cache_workloads(struct k8s_cache *st, const char *ns, const struct workload ***out)
{
	return collect_in(st, CACHE_WORKLOAD, ns, (const void ***)out);
}

const struct workload *cache_workload_of_job(struct k8s_cache *st, const struct job *job)
{
	const struct bucket *b;
	const struct entry *e;

	if (!job->meta.uid[0])
		return NULL;
	b = store_bucket_find(&st->indexes[IX_WORKLOAD_OWNER], job->meta.namespace, job->meta.uid);
	/* a job has one Workload; a second (Kueue replacing it) is the newer one */
	const struct workload *found = NULL;

	for (e = b ? b->head : NULL; e; e = e->links[0].next) {
		const struct workload *w = e->obj;

		if (!found || w->meta.created > found->meta.created)
			found = w;
	}
	return found;
}

size_t cache_localqueues(struct k8s_cache *st, const char *ns, const struct localqueue ***out)
{
	return collect_in(st, CACHE_LOCALQUEUE, ns, (const void ***)out);
}

const struct localqueue *cache_find_localqueue(struct k8s_cache *st, const char *ns,
                                               const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_LOCALQUEUE], -1, ns, name);

	return e ? e->obj : NULL;
}

size_t cache_clusterqueues(struct k8s_cache *st, const struct clusterqueue ***out)
{
	return collect_table(&st->tables[CACHE_CLUSTERQUEUE], cmp_meta, (const void ***)out);
}

size_t cache_cohorts(struct k8s_cache *st, const struct kueue_cohort ***out)
{
	return collect_table(&st->tables[CACHE_COHORT], cmp_meta, (const void ***)out);
}

const struct clusterqueue *cache_find_clusterqueue(struct k8s_cache *st, const char *name)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_CLUSTERQUEUE], -1, "", name);

	return e ? e->obj : NULL;
}

const struct queue_line *cache_queue_line(struct k8s_cache *st, const char *ns, const char *lq)
{
	struct entry *e = store_entry_get(&st->tables[CACHE_QUEUE_LINE], -1, ns, lq);

	return e ? e->obj : NULL;
}

size_t cache_objects(struct k8s_cache *st, enum cache_object_type type, const void ***out)
{
	return collect_table(&st->tables[type], cmp_meta, out);
}

size_t store_count(struct k8s_cache *st, enum cache_object_type type)
{
	return st->tables[type].count;
}
