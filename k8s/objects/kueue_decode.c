/*
 * Kueue's objects (kueue.x-k8s.io, v1beta2 or v1beta1: the fields read are in
 * both, under the two names noted) → the compact structs of objects.h: Workloads,
 * LocalQueues, ClusterQueues, Cohorts, and a LocalQueue's line of pending Workloads from
 * the visibility API (visibility.kueue.x-k8s.io PendingWorkloadsSummary).
 *
 * GPUs (nvidia.com/gpu) are counted, for the queue tables' GPU columns; every
 * resource of a ClusterQueue's quota is kept besides, flavor by flavor, with its
 * borrowing and lending limits and its use and borrowing as the API server writes
 * the quantities (docs/tree.md, "Queues"). Called by the cache's reflectors and
 * its poller (k8s/cache/queuepoll.c); tested by tests/unit/test_k8s_kueue_decode.c,
 * fuzzed by tests/fuzz/fuzz_watch.c.
 */
#include "k8s/objects/decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/hash.h"

/* A count bigger than any queue's (a hostile server's number) is cut to this. */
#define KUEUE_COUNT_MAX 1000000

static int dec_small(const json_t *obj, const char *key)
{
	int v = dec_int(obj, key, 0);

	return v < 0 ? 0 : v > KUEUE_COUNT_MAX ? KUEUE_COUNT_MAX : v;
}

/* The GPUs of a usage list: [{name: FLAVOR, resources: [{name, total, borrowed}]}],
 * key's (total or borrowed) summed over the flavors. */
static int usage_gpus(const json_t *flavors, const char *key)
{
	const json_t *f, *r;
	size_t i, j;
	int sum = 0;

	json_array_foreach(flavors, i, f)
		json_array_foreach(json_object_get(f, "resources"), j, r)
			if (strcmp(dec_str(r, "name"), KUEUE_GPU) == 0 &&
			    sum + dec_count_quantity(json_object_get(r, key)) <= GPU_COUNT_MAX)
				sum += dec_count_quantity(json_object_get(r, key));
	return sum;
}

/* A quota entry's list is cut here (a hostile server's thousands of flavors). */
#define KUEUE_QUOTAS_MAX 256

/* A quantity as the API server writes it (a string), or an integer a client sent;
 * "" when absent or neither. */
static char *dec_quantity(struct scratch *s, const json_t *obj, const char *key)
{
	const json_t *q = json_object_get(obj, key);
	char buf[32];

	if (json_is_string(q))
		return (char *)json_string_value(q);
	if (!json_is_integer(q))
		return "";
	snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(q));
	return scratch_strdup(s, buf);
}

/* Is a quantity something, not nothing ("", "0", "0Gi")? */
static bool quantity_nonzero(const char *q)
{
	for (; *q; q++)
		if (*q >= '1' && *q <= '9')
			return true;
		else if (*q != '0' && *q != '.' && *q != '+')
			return false; /* the unit: digits before it were all 0 */
	return false;
}

/* The entry of list for flavor and resource: appended ("0" used) when absent.
 * NULL when the list is full or out of memory. */
static struct kueue_quota *quota_slot(struct scratch *s, struct kueue_quota *list, size_t *n,
                                      const char *flavor, const char *resource)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i].flavor, flavor) == 0 && strcmp(list[i].resource, resource) == 0)
			return &list[i];
	if (*n >= KUEUE_QUOTAS_MAX || s->oom)
		return NULL;
	list[*n] = (struct kueue_quota){(char *)flavor, (char *)resource, "", "", "", "0", "0"};
	return &list[(*n)++];
}

/* status.flavorsUsage [{name: FLAVOR, resources: [{name, total, borrowed}]}] onto list:
 * what a quota lists gains its use; a flavor or resource it does not list (a
 * LocalQueue's, which has no quota) is appended. */
static void usage_into(struct scratch *s, const json_t *flavors, struct kueue_quota *list,
                       size_t *n)
{
	const json_t *f, *r;
	size_t i, j;

	json_array_foreach(flavors, i, f)
		json_array_foreach(json_object_get(f, "resources"), j, r) {
			struct kueue_quota *q;

			if (!*dec_str(f, "name") || !*dec_str(r, "name"))
				continue;
			q = quota_slot(s, list, n, dec_str(f, "name"), dec_str(r, "name"));
			if (!q)
				return;
			if (*dec_quantity(s, r, "total"))
				q->used = dec_quantity(s, r, "total");
			if (*dec_quantity(s, r, "borrowed"))
				q->borrowed = dec_quantity(s, r, "borrowed");
		}
}

/* Room for a quota list of groups' resources and a usage list. */
static struct kueue_quota *quota_list(struct scratch *s, const json_t *groups,
                                      const json_t *usage)
{
	const json_t *g, *f;
	size_t i, j, n = 0;

	json_array_foreach(groups, i, g)
		json_array_foreach(json_object_get(g, "flavors"), j, f)
			n += json_array_size(json_object_get(f, "resources"));
	json_array_foreach(usage, i, f)
		n += json_array_size(json_object_get(f, "resources"));
	n = n > KUEUE_QUOTAS_MAX ? KUEUE_QUOTAS_MAX : n;
	return n ? scratch_alloc(s, n * sizeof(struct kueue_quota)) : NULL;
}

static void quota_layout(struct packer *pk, struct kueue_quota **list, size_t n)
{
	pack_array(pk, (void **)list, n, sizeof(struct kueue_quota));
	for (size_t i = 0; i < n; i++) {
		pack_str(pk, &(*list)[i].flavor, true);
		pack_str(pk, &(*list)[i].resource, true);
		pack_str(pk, &(*list)[i].nominal, true);
		pack_str(pk, &(*list)[i].borrowing_limit, true);
		pack_str(pk, &(*list)[i].lending_limit, true);
		pack_str(pk, &(*list)[i].used, true);
		pack_str(pk, &(*list)[i].borrowed, true);
	}
}

/* ---- Workloads ---- */

static void workload_layout(void *obj, struct packer *pk)
{
	struct workload *w = obj;

	meta_layout(&w->meta, pk);
	pack_array(pk, (void **)&w->conditions, w->n_conditions, sizeof(struct job_condition));
	pack_str(pk, &w->queue, true);
	pack_str(pk, &w->owner_kind, true);
	pack_str(pk, &w->owner_name, false);
	pack_str(pk, &w->owner_uid, false);
	pack_str(pk, &w->cluster_queue, true);
	pack_str(pk, &w->flavors, true);
	pack_str(pk, &w->priority_class, true);
	pack_str(pk, &w->priority_kind, true);
	for (size_t i = 0; i < w->n_conditions; i++) {
		pack_str(pk, &w->conditions[i].type, true);
		pack_str(pk, &w->conditions[i].reason, true);
		pack_str(pk, &w->conditions[i].message, false);
	}
}

/* spec.podSets: count × the template's GPUs, summed. */
static int podsets_gpus(const json_t *podsets)
{
	const json_t *ps, *c;
	size_t i, j;
	long sum = 0;

	json_array_foreach(podsets, i, ps) {
		const json_t *tspec = json_object_get(json_object_get(ps, "template"), "spec");
		long count = dec_small(ps, "count"), one = 0;

		json_array_foreach(json_object_get(tspec, "containers"), j, c)
			one += dec_container_gpus(c);
		sum += count * one;
		if (sum > GPU_COUNT_MAX)
			return GPU_COUNT_MAX;
	}
	return (int)sum;
}

/* status.admission.podSetAssignments[].resourceUsage's GPUs. */
static int admission_gpus(const json_t *admission)
{
	const json_t *a;
	size_t i;
	int sum = 0;

	json_array_foreach(json_object_get(admission, "podSetAssignments"), i, a) {
		sum += dec_count_quantity(
		    json_object_get(json_object_get(a, "resourceUsage"), KUEUE_GPU));
		if (sum > GPU_COUNT_MAX)
			return GPU_COUNT_MAX;
	}
	return sum;
}

/* status.admission.podSetAssignments[].flavors {resource: flavor}: the flavors,
 * each once, in order, comma-joined, on s. */
static char *admission_flavors(struct scratch *s, const json_t *admission)
{
	struct strbuf sb = STRBUF_INIT;
	const json_t *a, *f;
	const char *resource;
	size_t i;

	json_array_foreach(json_object_get(admission, "podSetAssignments"), i, a)
		json_object_foreach((json_t *)json_object_get(a, "flavors"), resource, f) {
			const char *name = json_string_value(f);

			if (!name || !*name || list_has(strbuf_str(&sb), name))
				continue;
			if (sb.len)
				strbuf_putc(&sb, ',');
			strbuf_puts(&sb, name);
		}
	return dec_take(s, &sb);
}

/* The Workload's priority class and its kind: v1beta2 spec.priorityClassRef
 * {group, kind, name}; v1beta1 spec.priorityClassName with priorityClassSource
 * (kueue.x-k8s.io/workloadpriorityclass or scheduling.k8s.io/priorityclass). */
static void priority_class_of(const json_t *spec, struct workload *w)
{
	const json_t *ref = json_object_get(spec, "priorityClassRef");
	const char *source = dec_str(spec, "priorityClassSource");

	w->priority_class = w->priority_kind = "";
	if (json_is_object(ref) && *dec_str(ref, "name")) {
		w->priority_class = dec_str(ref, "name");
		w->priority_kind = dec_str(ref, "kind");
	} else if (*dec_str(spec, "priorityClassName")) {
		w->priority_class = dec_str(spec, "priorityClassName");
		w->priority_kind = strcmp(source, "kueue.x-k8s.io/workloadpriorityclass") == 0
		                       ? "WorkloadPriorityClass"
		                   : *source ? "PriorityClass"
		                             : "";
	}
}

struct workload *workload_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	const json_t *active = json_object_get(spec, "active");
	struct meta_more more;
	struct workload tmp;
	struct workload *w = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, &more))
		goto out;
	tmp.queue = dec_str(spec, "queueName");
	tmp.owner_kind = tmp.owner_name = tmp.owner_uid = "";
	for (size_t i = 0; i < more.n_owners; i++) {
		if (!more.owners[i].controller && i + 1 < more.n_owners)
			continue; /* the controller, else the last */
		tmp.owner_kind = more.owners[i].kind;
		tmp.owner_name = more.owners[i].name;
		tmp.owner_uid = more.owners[i].uid;
		break;
	}
	tmp.cluster_queue = dec_str(json_object_get(status, "admission"), "clusterQueue");
	tmp.gpus = podsets_gpus(json_object_get(spec, "podSets"));
	tmp.admitted_gpus = admission_gpus(json_object_get(status, "admission"));
	tmp.flavors = admission_flavors(&s, json_object_get(status, "admission"));
	tmp.priority = dec_int(spec, "priority", 0);
	priority_class_of(spec, &tmp);
	tmp.active = !json_is_false(active);
	if (dec_condition_list(&s, status, &tmp.conditions, &tmp.n_conditions))
		goto out;
	if (!s.oom)
		w = pack_object(&tmp, sizeof(tmp), workload_layout);
out:
	scratch_free(&s);
	return w;
}

void workload_free(struct workload *w)
{
	pack_free(w, workload_layout);
}

/* ---- LocalQueues ---- */

static void localqueue_layout(void *obj, struct packer *pk)
{
	struct localqueue *q = obj;

	meta_layout(&q->meta, pk);
	pack_str(pk, &q->cluster_queue, true);
	pack_str(pk, &q->stop_policy, true);
	quota_layout(pk, &q->usage, q->n_usage);
}

struct localqueue *localqueue_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	const json_t *usage = json_object_get(status, "flavorsUsage");
	struct localqueue tmp;
	struct localqueue *q = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.cluster_queue = dec_str(spec, "clusterQueue");
	tmp.stop_policy = dec_str(spec, "stopPolicy");
	tmp.pending = dec_small(status, "pendingWorkloads");
	tmp.reserving = dec_small(status, "reservingWorkloads");
	tmp.admitted = dec_small(status, "admittedWorkloads");
	/* v1beta2 flavorsUsage, v1beta1 flavorUsage */
	usage = usage ? usage : json_object_get(status, "flavorUsage");
	tmp.gpus_used = usage_gpus(usage, "total");
	tmp.usage = quota_list(&s, NULL, usage);
	if (tmp.usage)
		usage_into(&s, usage, tmp.usage, &tmp.n_usage);
	if (!s.oom)
		q = pack_object(&tmp, sizeof(tmp), localqueue_layout);
out:
	scratch_free(&s);
	return q;
}

void localqueue_free(struct localqueue *q)
{
	pack_free(q, localqueue_layout);
}

/* ---- ClusterQueues ---- */

static void clusterqueue_layout(void *obj, struct packer *pk)
{
	struct clusterqueue *q = obj;

	meta_layout(&q->meta, pk);
	pack_str(pk, &q->cohort, true);
	pack_str(pk, &q->strategy, true);
	pack_str(pk, &q->stop_policy, true);
	pack_str(pk, &q->inactive_reason, false);
	quota_layout(pk, &q->quotas, q->n_quotas);
}

/* spec.resourceGroups[].flavors[].resources[] onto q->quotas, in order, and the
 * GPUs' nominalQuota summed. */
static void quotas_of(struct scratch *s, const json_t *groups, struct clusterqueue *q)
{
	const json_t *g, *f, *r;
	size_t i, j, k;

	json_array_foreach(groups, i, g)
		json_array_foreach(json_object_get(g, "flavors"), j, f)
			json_array_foreach(json_object_get(f, "resources"), k, r) {
				struct kueue_quota *e;
				int gpus;

				if (!*dec_str(f, "name") || !*dec_str(r, "name"))
					continue;
				e = quota_slot(s, q->quotas, &q->n_quotas, dec_str(f, "name"),
				               dec_str(r, "name"));
				if (!e)
					return;
				e->nominal = dec_quantity(s, r, "nominalQuota");
				e->nominal = *e->nominal ? e->nominal : "0";
				e->borrowing_limit = dec_quantity(s, r, "borrowingLimit");
				e->lending_limit = dec_quantity(s, r, "lendingLimit");
				if (strcmp(e->resource, KUEUE_GPU) != 0)
					continue;
				q->gpu_quota_named = true;
				gpus = dec_count_quantity(json_object_get(r, "nominalQuota"));
				if (q->gpu_quota + gpus <= GPU_COUNT_MAX)
					q->gpu_quota += gpus;
			}
}

struct clusterqueue *clusterqueue_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	const json_t *cohort = json_object_get(spec, "cohortName");
	struct job_condition *conds;
	size_t n_conds;
	struct clusterqueue tmp;
	struct clusterqueue *q = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL) ||
	    dec_condition_list(&s, status, &conds, &n_conds))
		goto out;
	/* v1beta2 cohortName, v1beta1 cohort */
	tmp.cohort = cohort ? dec_str(spec, "cohortName") : dec_str(spec, "cohort");
	tmp.strategy = dec_str(spec, "queueingStrategy");
	tmp.stop_policy = dec_str(spec, "stopPolicy");
	tmp.inactive_reason = "";
	for (size_t i = 0; i < n_conds; i++) {
		if (strcmp(conds[i].type, "Active") != 0)
			continue;
		tmp.active = conds[i].status;
		if (!tmp.active)
			tmp.inactive_reason = *conds[i].message ? conds[i].message : conds[i].reason;
	}
	tmp.quotas = quota_list(&s, json_object_get(spec, "resourceGroups"),
	                        json_object_get(status, "flavorsUsage"));
	if (tmp.quotas) {
		quotas_of(&s, json_object_get(spec, "resourceGroups"), &tmp);
		usage_into(&s, json_object_get(status, "flavorsUsage"), tmp.quotas, &tmp.n_quotas);
	}
	for (size_t i = 0; i < tmp.n_quotas; i++)
		tmp.borrowing = tmp.borrowing || quantity_nonzero(tmp.quotas[i].borrowed);
	tmp.gpus_used = usage_gpus(json_object_get(status, "flavorsUsage"), "total");
	tmp.gpus_borrowed = usage_gpus(json_object_get(status, "flavorsUsage"), "borrowed");
	tmp.pending = dec_small(status, "pendingWorkloads");
	tmp.reserving = dec_small(status, "reservingWorkloads");
	tmp.admitted = dec_small(status, "admittedWorkloads");
	if (!s.oom)
		q = pack_object(&tmp, sizeof(tmp), clusterqueue_layout);
out:
	scratch_free(&s);
	return q;
}

void clusterqueue_free(struct clusterqueue *q)
{
	pack_free(q, clusterqueue_layout);
}

/* ---- Cohorts ---- */

static void cohort_layout(void *obj, struct packer *pk)
{
	struct kueue_cohort *c = obj;

	meta_layout(&c->meta, pk);
	pack_str(pk, &c->parent, true);
}

struct kueue_cohort *cohort_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	struct kueue_cohort tmp;
	struct kueue_cohort *c = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.parent = dec_str(json_object_get(obj, "spec"), "parentName");
	if (!s.oom)
		c = pack_object(&tmp, sizeof(tmp), cohort_layout);
out:
	scratch_free(&s);
	return c;
}

void cohort_free(struct kueue_cohort *c)
{
	pack_free(c, cohort_layout);
}

/* ---- a LocalQueue's line (the visibility API) ---- */

static void queue_line_layout(void *obj, struct packer *pk)
{
	struct queue_line *l = obj;

	meta_layout(&l->meta, pk);
	pack_array(pk, (void **)&l->places, l->n_places, sizeof(struct queue_place));
	for (size_t i = 0; i < l->n_places; i++)
		pack_str(pk, &l->places[i].workload, false);
}

struct queue_line *queue_line_decode(json_t *obj, const char *ns, const char *lq)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *items = json_object_get(obj, "items"), *it;
	uint64_t h = HASH_FNV1A_INIT;
	char rv[24];
	struct queue_line tmp;
	struct queue_line *l = NULL;
	size_t i, n = 0;

	memset(&tmp, 0, sizeof(tmp));
	if (!json_is_array(items) || !ns || !*ns || !lq || !*lq)
		goto out;
	tmp.meta.name = (char *)lq;
	tmp.meta.namespace = (char *)ns;
	tmp.meta.uid = "";
	if (json_array_size(items)) {
		tmp.places = scratch_alloc(&s, json_array_size(items) * sizeof(*tmp.places));
		if (!tmp.places)
			goto out;
	}
	json_array_foreach(items, i, it) {
		struct queue_place *p = &tmp.places[n];

		p->workload = dec_str(json_object_get(it, "metadata"), "name");
		if (!*p->workload)
			continue;
		p->position_cq = dec_small(it, "positionInClusterQueue");
		p->position_lq = dec_small(it, "positionInLocalQueue");
		p->priority = dec_int(it, "priority", 0);
		h = hash_fnv1a_str(h, p->workload);
		h = hash_fnv1a(h, &p->position_cq, sizeof(p->position_cq));
		h = hash_fnv1a(h, &p->position_lq, sizeof(p->position_lq));
		n++;
	}
	tmp.n_places = n;
	/* no object of the API: its version is its content's, so that a line that did
	 * not change is no change (store_put) */
	snprintf(rv, sizeof(rv), "%016" PRIx64, h);
	tmp.meta.resource_version = rv;
	if (!s.oom)
		l = pack_object(&tmp, sizeof(tmp), queue_line_layout);
out:
	scratch_free(&s);
	return l;
}

void queue_line_free(struct queue_line *l)
{
	pack_free(l, queue_line_layout);
}
