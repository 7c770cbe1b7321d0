/*
 * Object builders for the render/ tests (see objects_fixture.h).
 */
#include "tests/unit/objects_fixture.h"
#include "render/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *fx_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "objects_fixture: out of memory\n");
		abort();
	}
	return p;
}

static char *fx_strdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p) {
		fprintf(stderr, "objects_fixture: out of memory\n");
		abort();
	}
	return p;
}

static void *fx_grow(void *array, size_t n, size_t size)
{
	void *p = realloc(array, (n + 1) * size);

	if (!p) {
		fprintf(stderr, "objects_fixture: out of memory\n");
		abort();
	}
	memset((char *)p + n * size, 0, size);
	return p;
}

void fx_set(char **field, const char *value)
{
	free(*field);
	*field = fx_strdup(value);
}

void fx_kv(struct kv_list *l, const char *key, const char *value)
{
	l->items = fx_grow(l->items, l->n, sizeof(*l->items));
	l->items[l->n].key = fx_strdup(key);
	l->items[l->n].value = fx_strdup(value);
	l->n++;
}

static void kv_free(struct kv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
}

static void meta_init(struct obj_meta *m, const char *ns, const char *name, int64_t created)
{
	m->name = fx_strdup(name);
	m->namespace = fx_strdup(ns);
	m->uid = fx_strdup("");
	m->resource_version = fx_strdup("1");
	m->created = created;
}

static void meta_free(struct obj_meta *m)
{
	free(m->name);
	free(m->namespace);
	free(m->uid);
	free(m->resource_version);
	kv_free(&m->labels);
	kv_free(&m->annotations);
}

struct job *fx_job(enum job_kind kind, const char *name, int64_t created)
{
	struct job *j = fx_alloc(sizeof(*j));
	const struct job_kind_info *ki = kinds_info(kind);
	char api[128];

	meta_init(&j->meta, "default", name, created);
	j->kind = kind;
	snprintf(api, sizeof(api), "%s/%s", ki->group, ki->version);
	j->api_version = fx_strdup(api);
	j->priority_class = fx_strdup("");
	j->state = fx_strdup("");
	j->claims = fx_strdup("");
	j->raw_json = NULL;
	j->spec_annotation = NULL;
	j->code_annotation = NULL;
	j->trainer.progress = -1;
	j->trainer.remaining = -1;
	return j;
}

void fx_trainer_status(struct job *j, int progress, int64_t remaining, int64_t updated)
{
	j->trainer.reported = true;
	j->trainer.progress = progress;
	j->trainer.remaining = remaining;
	j->trainer.updated = updated;
}

void fx_job_metric(struct job *j, const char *name, const char *value)
{
	struct job_metric *m = realloc(j->trainer.metrics,
	                               (j->trainer.n_metrics + 1) * sizeof(*m));

	if (!m)
		abort();
	j->trainer.metrics = m;
	m[j->trainer.n_metrics].name = fx_strdup(name);
	m[j->trainer.n_metrics++].value = fx_strdup(value);
}

void fx_job_condition(struct job *j, const char *type, bool status, int64_t when)
{
	struct job_condition *c;

	j->conditions = fx_grow(j->conditions, j->n_conditions, sizeof(*j->conditions));
	c = &j->conditions[j->n_conditions++];
	c->type = fx_strdup(type);
	c->status = status;
	c->reason = fx_strdup("");
	c->message = fx_strdup("");
	c->last_transition = when;
}

void fx_job_replica(struct job *j, const char *type, int replicas, int gpus)
{
	struct job_replica *r;

	j->replicas = fx_grow(j->replicas, j->n_replicas, sizeof(*j->replicas));
	r = &j->replicas[j->n_replicas++];
	r->type = fx_strdup(type);
	r->replicas = replicas;
	r->gpus = gpus;
	r->image = fx_strdup("img");
}

void fx_job_free(struct job *j)
{
	if (!j)
		return;
	meta_free(&j->meta);
	free(j->api_version);
	for (size_t i = 0; i < j->trainer.n_metrics; i++) {
		free(j->trainer.metrics[i].name);
		free(j->trainer.metrics[i].value);
	}
	free(j->trainer.metrics);
	for (size_t i = 0; i < j->n_conditions; i++) {
		free(j->conditions[i].type);
		free(j->conditions[i].reason);
		free(j->conditions[i].message);
	}
	free(j->conditions);
	for (size_t i = 0; i < j->n_replicas; i++) {
		free(j->replicas[i].type);
		free(j->replicas[i].image);
	}
	free(j->replicas);
	free(j->priority_class);
	free(j->state);
	free(j->claims);
	free(j->spec_annotation);
	free(j->code_annotation);
	free(j->raw_json);
	free(j);
}

struct pod *fx_pod(const char *name, const struct job *job, const char *replica_type, int index,
                   enum pod_phase phase)
{
	struct pod *p = fx_alloc(sizeof(*p));

	meta_init(&p->meta, "default", name, FX_T0 - 600);
	p->job_name = job ? fx_strdup(job->meta.name) : NULL;
	p->job_kind = job ? (int)job->kind : -1;
	p->replica_type = fx_strdup(replica_type);
	p->replica_index = index;
	p->job_role = fx_strdup("");
	p->node_name = fx_strdup("");
	p->pod_ip = fx_strdup("");
	p->host_ip = fx_strdup("");
	p->phase = phase;
	p->reason = fx_strdup("");
	p->message = fx_strdup("");
	p->unschedulable = fx_strdup("");
	p->priority_class = fx_strdup("");
	p->restart_policy = fx_strdup("Never");
	return p;
}

static void state_init(struct container_state *st)
{
	st->reason = fx_strdup("");
	st->message = fx_strdup("");
	st->container_id = fx_strdup("");
}

static struct container *container_add(struct container **array, size_t *n, const char *name,
                                       int gpus)
{
	struct container *c;

	*array = fx_grow(*array, *n, sizeof(**array));
	c = &(*array)[(*n)++];
	c->name = fx_strdup(name);
	c->image = fx_strdup("img");
	c->gpus = gpus;
	c->container_id = fx_strdup("");
	state_init(&c->state);
	state_init(&c->last_state);
	return c;
}

struct container *fx_container(struct pod *p, const char *name, int gpus)
{
	p->gpus += gpus;
	return container_add(&p->containers, &p->n_containers, name, gpus);
}

struct container *fx_init_container(struct pod *p, const char *name)
{
	return container_add(&p->init_containers, &p->n_init_containers, name, 0);
}

void fx_state(struct container_state *st, enum container_state_kind kind, const char *reason,
              int exit_code, int64_t started, int64_t finished)
{
	st->kind = kind;
	fx_set(&st->reason, reason);
	st->exit_code = exit_code;
	st->started = started;
	st->finished = finished;
}

static void state_free(struct container_state *st)
{
	free(st->reason);
	free(st->message);
	free(st->container_id);
}

static void containers_free(struct container *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].image);
		free(c[i].container_id);
		state_free(&c[i].state);
		state_free(&c[i].last_state);
	}
	free(c);
}

void fx_pod_free(struct pod *p)
{
	if (!p)
		return;
	meta_free(&p->meta);
	free(p->job_name);
	free(p->replica_type);
	free(p->job_role);
	free(p->node_name);
	free(p->pod_ip);
	free(p->host_ip);
	free(p->reason);
	free(p->message);
	free(p->unschedulable);
	free(p->priority_class);
	free(p->restart_policy);
	containers_free(p->containers, p->n_containers);
	containers_free(p->init_containers, p->n_init_containers);
	free(p);
}

struct k8s_node *fx_node(const char *name, const char *ip, bool ready, int capacity, int allocatable)
{
	struct k8s_node *n = fx_alloc(sizeof(*n));

	meta_init(&n->meta, "", name, FX_T0 - 86400);
	n->ready = ready;
	n->internal_ip = fx_strdup(ip);
	n->roles = fx_strdup("");
	n->gpu_capacity = capacity;
	n->gpu_allocatable = allocatable;
	n->cpu_capacity = fx_strdup("32");
	n->memory_capacity = fx_strdup("131072Mi");
	return n;
}

void fx_node_free(struct k8s_node *n)
{
	if (!n)
		return;
	meta_free(&n->meta);
	free(n->internal_ip);
	free(n->roles);
	free(n->cpu_capacity);
	free(n->memory_capacity);
	free(n);
}

struct service *fx_service(const char *name, const char *release, const char *role,
                           const char *type, int port, int node_port, const char *ingress)
{
	struct service *s = fx_alloc(sizeof(*s));

	meta_init(&s->meta, "default", name, FX_T0 - 600);
	if (release)
		fx_kv(&s->meta.labels, "release", release);
	if (role)
		fx_kv(&s->meta.labels, "role", role);
	s->type = fx_strdup(type);
	s->cluster_ip = fx_strdup("10.96.0.10");
	s->port = port;
	s->node_port = node_port;
	s->lb_ingress = fx_strdup(ingress);
	return s;
}

void fx_service_free(struct service *s)
{
	if (!s)
		return;
	meta_free(&s->meta);
	free(s->type);
	free(s->cluster_ip);
	free(s->lb_ingress);
	free(s);
}

struct event *fx_event(const char *name, const char *kind, const char *obj, const char *type,
                       const char *reason, const char *message, int64_t last_seen)
{
	struct event *e = fx_alloc(sizeof(*e));

	meta_init(&e->meta, "default", name, last_seen);
	e->involved_kind = fx_strdup(kind);
	e->involved_name = fx_strdup(obj);
	e->involved_uid = fx_strdup("");
	e->type = fx_strdup(type);
	e->reason = fx_strdup(reason);
	e->message = fx_strdup(message);
	e->source = fx_strdup("kubelet");
	e->count = 1;
	e->first_seen = last_seen;
	e->last_seen = last_seen;
	return e;
}

void fx_event_free(struct event *e)
{
	if (!e)
		return;
	meta_free(&e->meta);
	free(e->involved_kind);
	free(e->involved_name);
	free(e->involved_uid);
	free(e->type);
	free(e->reason);
	free(e->message);
	free(e->source);
	free(e);
}

struct job_view fx_view(const struct job *job, const struct pod *const *pods, size_t n_pods)
{
	struct job_view v;

	memset(&v, 0, sizeof(v));
	v.job = job;
	v.pods = pods;
	v.n_pods = n_pods;
	v.now = FX_T0;
	return v;
}
