/*
 * The API server's JSON → the compact objects of objects.h: the shared helpers
 * and metadata (decode.h), nodes, services, events, namespaces, claims. Pods are in
 * pod_decode.c, jobs in job_decode.c.
 *
 * Only the fields objects.h declares are kept; each object is one block with its
 * repeated strings interned (objpack.h). No I/O, no locks of its own (the intern
 * pool locks itself); called by the cache (lists on the reflector threads, watch
 * events on the client's transport thread) and by tests.
 */
#include "k8s/objects/decode.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

/* The annotations the tree uses; every other annotation is dropped on decode. The
 * keys are kept pointing at this table, so they cost nothing per object. */
static const char *const ANNOTATIONS_KEPT[] = {
    "arenafs.io/spec",                         /* the small spec a job was submitted with */
    "arenafs.io/code",                         /* the files a job shipped (fs/code/codeindex.h) */
    "requestGPUsOfJobOwner",                   /* Arena's GPU share accounting */
    "kubectl.kubernetes.io/default-container", /* which container `logs` shows */
    "job-supervisor.kube-ai.io/job-status",    /* "timeout": an ETJob's wait ran out (Arena) */
};
#define N_ANNOTATIONS_KEPT (sizeof(ANNOTATIONS_KEPT) / sizeof(ANNOTATIONS_KEPT[0]))

/* The labels the tree uses (render/tensorboard.c, the store's service index); the
 * decoders read every label before the others are dropped. Keys as above. */
static const char *const LABELS_KEPT[] = {
    "release", /* the job a Service (a TensorBoard) belongs to: Arena's rule */
    "role",    /* role=tensorboard: the TensorBoard among a job's Services */
    KUEUE_QUEUE_LABEL, /* the LocalQueue a job is put in (Kueue's) */
    /* a Prometheus Service, as Arena finds one (k8s/api/prometheus.h) */
    "kubernetes.io/service-name",
    "kubernetes.io/name",
};
#define N_LABELS_KEPT (sizeof(LABELS_KEPT) / sizeof(LABELS_KEPT[0]))

/* The annotation values long enough, and particular enough to one job, to be worth
 * their own copy: the spec and the code's file list. */
static bool annotation_interned(const char *key)
{
	return strcmp(key, "arenafs.io/spec") != 0 && strcmp(key, "arenafs.io/code") != 0;
}

/* ---- JSON helpers (decode.h) ---- */

char *dec_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return (char *)(s ? s : "");
}

char *dec_take(struct scratch *s, struct strbuf *sb)
{
	char *out = NULL;

	if (strbuf_ok(sb))
		out = scratch_strdup(s, strbuf_str(sb));
	else
		s->oom = true;
	strbuf_free(sb);
	return out;
}

int64_t dec_time(const json_t *obj, const char *key)
{
	return time_parse_rfc3339(json_string_value(json_object_get(obj, key)));
}

int dec_int(const json_t *obj, const char *key, int def)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		return def;
	json_int_t i = json_integer_value(v);
	if (i < -2147483647 || i > 2147483647)
		return def;
	return (int)i;
}

int dec_count_quantity(const json_t *q)
{
	if (json_is_integer(q)) {
		json_int_t v = json_integer_value(q);

		return v >= 0 && v <= GPU_COUNT_MAX ? (int)v : 0;
	}
	const char *s = json_string_value(q);
	int v = 0;

	if (!s || !*s || strlen(s) > 6)
		return 0;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v <= GPU_COUNT_MAX ? v : 0;
}

int dec_container_gpus(const json_t *container)
{
	const json_t *limits = json_object_get(json_object_get(container, "resources"), "limits");

	return dec_count_quantity(json_object_get(limits, "nvidia.com/gpu"));
}

int dec_condition_list(struct scratch *s, const json_t *status, struct job_condition **out,
                       size_t *n_out)
{
	const json_t *conds = json_object_get(status, "conditions");
	const json_t *c;
	size_t i, n = 0;

	*out = NULL;
	*n_out = 0;
	if (!json_is_array(conds) || json_array_size(conds) == 0)
		return 0;
	*out = scratch_alloc(s, json_array_size(conds) * sizeof(struct job_condition));
	if (!*out)
		return -1;
	json_array_foreach(conds, i, c)
	{
		struct job_condition *jc = &(*out)[n];

		if (!json_is_object(c) || !*dec_str(c, "type"))
			continue;
		jc->type = dec_str(c, "type");
		jc->status = strcmp(dec_str(c, "status"), "True") == 0;
		jc->reason = dec_str(c, "reason");
		jc->message = dec_str(c, "message");
		jc->last_transition = dec_time(c, "lastTransitionTime");
		if (!jc->last_transition)
			jc->last_transition = dec_time(c, "lastUpdateTime");
		n++;
	}
	*n_out = n;
	return 0;
}

/* ---- metadata ---- */

const char *kv_get(const struct kv_list *l, const char *key)
{
	if (!l)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

static int dec_labels(struct scratch *s, const json_t *labels, struct kv_list *out)
{
	const char *key;
	json_t *val;
	size_t n = 0;

	out->items = NULL;
	out->n = 0;
	if (!json_is_object(labels) || json_object_size(labels) == 0)
		return 0;
	out->items = scratch_alloc(s, json_object_size(labels) * sizeof(struct kv));
	if (!out->items)
		return -1;
	json_object_foreach((json_t *)labels, key, val)
	{
		if (!json_is_string(val))
			continue;
		out->items[n].key = (char *)key;
		out->items[n].value = (char *)json_string_value(val);
		n++;
	}
	out->n = n;
	return 0;
}

/* The string values of obj under the keys of kept, in the table's order; the keys
 * point at the table. */
static int dec_kept(struct scratch *s, const json_t *obj, const char *const *kept, size_t n_kept,
                    struct kv_list *out)
{
	size_t n = 0;

	out->items = NULL;
	out->n = 0;
	for (size_t i = 0; i < n_kept; i++)
		if (json_is_string(json_object_get(obj, kept[i])))
			n++;
	if (!n)
		return 0;
	out->items = scratch_alloc(s, n * sizeof(struct kv));
	if (!out->items)
		return -1;
	for (size_t i = 0; i < n_kept; i++) {
		const char *v = json_string_value(json_object_get(obj, kept[i]));

		if (!v)
			continue;
		out->items[out->n].key = (char *)kept[i];
		out->items[out->n].value = (char *)v;
		out->n++;
	}
	return 0;
}

static int dec_owners(struct scratch *s, const json_t *refs, struct meta_more *m)
{
	const json_t *r;
	size_t i, n = 0;

	m->owners = NULL;
	m->n_owners = 0;
	if (!json_is_array(refs) || json_array_size(refs) == 0)
		return 0;
	m->owners = scratch_alloc(s, json_array_size(refs) * sizeof(struct owner_ref));
	if (!m->owners)
		return -1;
	json_array_foreach(refs, i, r)
	{
		struct owner_ref *o = &m->owners[n];

		if (!json_is_object(r))
			continue;
		o->api_version = dec_str(r, "apiVersion");
		o->kind = dec_str(r, "kind");
		o->name = dec_str(r, "name");
		o->uid = dec_str(r, "uid");
		o->controller = json_is_true(json_object_get(r, "controller"));
		n++;
	}
	m->n_owners = n;
	return 0;
}

int dec_meta(struct scratch *s, const json_t *obj, struct obj_meta *m, struct meta_more *more)
{
	const json_t *md = json_object_get(obj, "metadata");
	const json_t *labels = json_object_get(md, "labels");

	memset(m, 0, sizeof(*m));
	if (more)
		memset(more, 0, sizeof(*more));
	if (!json_is_object(md))
		return -1;
	m->name = dec_str(md, "name");
	if (!*m->name)
		return -1;
	m->namespace = dec_str(md, "namespace");
	m->uid = dec_str(md, "uid");
	m->resource_version = dec_str(md, "resourceVersion");
	m->created = dec_time(md, "creationTimestamp");
	m->deleted = dec_time(md, "deletionTimestamp");
	if (dec_kept(s, labels, LABELS_KEPT, N_LABELS_KEPT, &m->labels) ||
	    dec_kept(s, json_object_get(md, "annotations"), ANNOTATIONS_KEPT, N_ANNOTATIONS_KEPT,
	             &m->annotations))
		return -1;
	if (more && (dec_labels(s, labels, &more->labels) ||
	             dec_owners(s, json_object_get(md, "ownerReferences"), more)))
		return -1;
	return 0;
}

void meta_layout(struct obj_meta *m, struct packer *pk)
{
	pack_array(pk, (void **)&m->labels.items, m->labels.n, sizeof(struct kv));
	pack_array(pk, (void **)&m->annotations.items, m->annotations.n, sizeof(struct kv));
	pack_str(pk, &m->name, false);
	pack_str(pk, &m->namespace, true);
	pack_str(pk, &m->uid, false);
	pack_str(pk, &m->resource_version, false);
	/* the keys point at LABELS_KEPT and ANNOTATIONS_KEPT: only values are packed */
	for (size_t i = 0; i < m->labels.n; i++)
		pack_str(pk, &m->labels.items[i].value, true);
	for (size_t i = 0; i < m->annotations.n; i++)
		pack_str(pk, &m->annotations.items[i].value,
		         annotation_interned(m->annotations.items[i].key));
}

/* ---- nodes ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* node-role.kubernetes.io/ROLE labels (kubeadm: control-plane) and the older
 * kubernetes.io/role=ROLE, sorted, without repeats, comma-joined as kubectl's
 * ROLES column. */
static char *node_roles(struct scratch *s, const struct kv_list *labels)
{
	static const char PREFIX[] = "node-role.kubernetes.io/";
	const char **roles = scratch_alloc(s, (labels->n + 1) * sizeof(char *));
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	char *out;

	if (!roles)
		return "";
	for (size_t i = 0; i < labels->n; i++) {
		const char *k = labels->items[i].key;

		if (strncmp(k, PREFIX, sizeof(PREFIX) - 1) == 0 && k[sizeof(PREFIX) - 1])
			roles[n++] = k + sizeof(PREFIX) - 1;
		else if (strcmp(k, "kubernetes.io/role") == 0 && *labels->items[i].value)
			roles[n++] = labels->items[i].value;
	}
	qsort(roles, n, sizeof(*roles), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(roles[i], roles[i - 1]) == 0)
			continue;
		if (sb.len)
			strbuf_putc(&sb, ',');
		strbuf_puts(&sb, roles[i]);
	}
	if (!sb.len)
		return "";
	out = strbuf_ok(&sb) ? scratch_strdup(s, strbuf_str(&sb)) : NULL;
	strbuf_free(&sb);
	if (!out)
		s->oom = true;
	return out ? out : "";
}

static bool node_ready(const json_t *status)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(status, "conditions"), i,
	                   c) if (strcmp(dec_str(c, "type"), "Ready") ==
	                          0) return strcmp(dec_str(c, "status"), "True") == 0;
	return false;
}

static char *node_internal_ip(const json_t *status)
{
	const json_t *a;
	size_t i;

	json_array_foreach(json_object_get(status, "addresses"), i,
	                   a) if (strcmp(dec_str(a, "type"), "InternalIP") ==
	                          0) return dec_str(a, "address");
	return "";
}

static void node_layout(void *obj, struct packer *pk)
{
	struct k8s_node *n = obj;

	meta_layout(&n->meta, pk);
	pack_str(pk, &n->internal_ip, false);
	pack_str(pk, &n->roles, true);
	pack_str(pk, &n->cpu_capacity, true);
	pack_str(pk, &n->memory_capacity, true);
}

struct k8s_node *node_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *status = json_object_get(obj, "status");
	const json_t *cap = json_object_get(status, "capacity");
	const json_t *alloc = json_object_get(status, "allocatable");
	struct meta_more more;
	struct k8s_node tmp;
	struct k8s_node *n = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, &more))
		goto out;
	tmp.ready = node_ready(status);
	tmp.unschedulable =
	    json_is_true(json_object_get(json_object_get(obj, "spec"), "unschedulable"));
	tmp.internal_ip = node_internal_ip(status);
	tmp.roles = node_roles(&s, &more.labels);
	tmp.gpu_capacity = dec_count_quantity(json_object_get(cap, "nvidia.com/gpu"));
	tmp.gpu_allocatable = dec_count_quantity(json_object_get(alloc, "nvidia.com/gpu"));
	tmp.cpu_capacity = dec_str(cap, "cpu");
	tmp.memory_capacity = dec_str(cap, "memory");
	if (!s.oom)
		n = pack_object(&tmp, sizeof(tmp), node_layout);
out:
	scratch_free(&s);
	return n;
}

void node_free(struct k8s_node *n)
{
	pack_free(n, node_layout);
}

/* ---- services ---- */

static void service_layout(void *obj, struct packer *pk)
{
	struct service *sv = obj;

	meta_layout(&sv->meta, pk);
	pack_str(pk, &sv->type, true);
	pack_str(pk, &sv->cluster_ip, false);
	pack_str(pk, &sv->lb_ingress, false);
}

struct service *service_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *port = json_array_get(json_object_get(spec, "ports"), 0);
	const json_t *ingress = json_array_get(
	    json_object_get(json_object_get(json_object_get(obj, "status"), "loadBalancer"),
	                    "ingress"),
	    0);
	struct service tmp;
	struct service *sv = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.type = dec_str(spec, "type");
	if (!*tmp.type)
		tmp.type = "ClusterIP"; /* the API server's default */
	tmp.cluster_ip = dec_str(spec, "clusterIP");
	tmp.port = dec_int(port, "port", 0);
	tmp.node_port = dec_int(port, "nodePort", 0);
	tmp.lb_ingress = dec_str(ingress, "ip");
	if (!*tmp.lb_ingress)
		tmp.lb_ingress = dec_str(ingress, "hostname"); /* AWS ELBs have names, not IPs */
	if (!s.oom)
		sv = pack_object(&tmp, sizeof(tmp), service_layout);
out:
	scratch_free(&s);
	return sv;
}

void service_free(struct service *sv)
{
	pack_free(sv, service_layout);
}

/* ---- events ---- */

static void event_layout(void *obj, struct packer *pk)
{
	struct event *e = obj;

	meta_layout(&e->meta, pk);
	pack_str(pk, &e->involved_kind, true);
	pack_str(pk, &e->involved_name, true);
	pack_str(pk, &e->involved_uid, true);
	pack_str(pk, &e->type, true);
	pack_str(pk, &e->reason, true);
	pack_str(pk, &e->message, false);
	pack_str(pk, &e->source, true);
}

struct event *event_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *inv = json_object_get(obj, "involvedObject");
	const json_t *series = json_object_get(obj, "series");
	struct event tmp;
	struct event *e = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.involved_kind = dec_str(inv, "kind");
	tmp.involved_name = dec_str(inv, "name");
	tmp.involved_uid = dec_str(inv, "uid");
	tmp.type = dec_str(obj, "type");
	tmp.reason = dec_str(obj, "reason");
	tmp.message = dec_str(obj, "message");
	tmp.source = dec_str(json_object_get(obj, "source"), "component");
	/* core/v1 calls it reportingComponent, events.k8s.io/v1 reportingController */
	if (!*tmp.source)
		tmp.source = dec_str(obj, "reportingComponent");
	if (!*tmp.source)
		tmp.source = dec_str(obj, "reportingController");
	tmp.count = dec_int(obj, "count", 0);
	if (tmp.count < 1)
		tmp.count = dec_int(series, "count", 1);
	if (tmp.count < 1)
		tmp.count = 1;
	tmp.first_seen = dec_time(obj, "firstTimestamp");
	if (!tmp.first_seen)
		tmp.first_seen = dec_time(obj, "eventTime");
	if (!tmp.first_seen)
		tmp.first_seen = tmp.meta.created;
	tmp.last_seen = dec_time(obj, "lastTimestamp");
	if (!tmp.last_seen)
		tmp.last_seen = dec_time(series, "lastObservedTime");
	if (!tmp.last_seen)
		tmp.last_seen = tmp.first_seen;
	if (!s.oom)
		e = pack_object(&tmp, sizeof(tmp), event_layout);
out:
	scratch_free(&s);
	return e;
}

void event_free(struct event *e)
{
	pack_free(e, event_layout);
}

/* ---- namespaces ---- */

static void namespace_layout(void *obj, struct packer *pk)
{
	struct k8s_namespace *n = obj;

	meta_layout(&n->meta, pk);
	pack_str(pk, &n->phase, true);
}

struct k8s_namespace *namespace_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	struct k8s_namespace tmp;
	struct k8s_namespace *n = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.phase = dec_str(json_object_get(obj, "status"), "phase");
	if (!s.oom)
		n = pack_object(&tmp, sizeof(tmp), namespace_layout);
out:
	scratch_free(&s);
	return n;
}

void namespace_free(struct k8s_namespace *n)
{
	pack_free(n, namespace_layout);
}

/* ---- persistent volume claims ---- */

static void pvc_layout(void *obj, struct packer *pk)
{
	struct pvc *p = obj;

	meta_layout(&p->meta, pk);
	pack_str(pk, &p->phase, true);
	pack_str(pk, &p->capacity, true);
	pack_str(pk, &p->requested, true);
	pack_str(pk, &p->access_modes, true);
	pack_str(pk, &p->storage_class, true);
	pack_str(pk, &p->volume, false);
	pack_str(pk, &p->description, false);
	pack_str(pk, &p->owner, true);
}

/* spec.accessModes comma-joined on s; the strings that are no strings are left out. */
static char *join_access_modes(struct scratch *s, const json_t *modes)
{
	struct strbuf sb = STRBUF_INIT;
	const json_t *m;
	size_t i;

	json_array_foreach(modes, i, m) {
		if (!json_is_string(m))
			continue;
		if (sb.len)
			strbuf_putc(&sb, ',');
		strbuf_puts(&sb, json_string_value(m));
	}
	return dec_take(s, &sb);
}

struct pvc *pvc_decode(json_t *obj)
{
	struct scratch s = SCRATCH_INIT;
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status");
	const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");
	struct pvc tmp;
	struct pvc *p = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, NULL))
		goto out;
	tmp.phase = dec_str(status, "phase");
	tmp.capacity = dec_str(json_object_get(status, "capacity"), "storage");
	tmp.requested =
	    dec_str(json_object_get(json_object_get(spec, "resources"), "requests"), "storage");
	tmp.access_modes = join_access_modes(&s, json_object_get(spec, "accessModes"));
	tmp.storage_class = dec_str(spec, "storageClassName");
	tmp.volume = dec_str(spec, "volumeName");
	tmp.description = dec_str(ann, "description");
	tmp.owner = dec_str(ann, "owner");
	if (!s.oom && tmp.access_modes)
		p = pack_object(&tmp, sizeof(tmp), pvc_layout);
out:
	scratch_free(&s);
	return p;
}

void pvc_free(struct pvc *p)
{
	pack_free(p, pvc_layout);
}
