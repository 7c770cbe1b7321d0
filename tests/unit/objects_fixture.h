/*
 * Builders for the compact objects of k8s/objects/objects.h, for render/ tests: objects
 * made by hand (malloc/strdup), every string set ("" when absent, as the decoder
 * guarantees), and freed by the fx_*_free functions here — not by objects_decode.c,
 * so the render tests stand alone. A failed allocation aborts the test run.
 *
 * Times are Unix seconds; FX_T0 is a fixed "now" so that ages are exact.
 */
#ifndef ARENAFS_TEST_OBJECTS_FIXTURE_H
#define ARENAFS_TEST_OBJECTS_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "k8s/objects/objects.h"
#include "render/render.h"

/* 2026-12-02T10:00:00Z */
#define FX_T0 1796205600

/* Replaces *field with a copy of value. */
void fx_set(char **field, const char *value);
void fx_kv(struct kv_list *l, const char *key, const char *value);

struct job *fx_job(enum job_kind kind, const char *name, int64_t created);
void fx_job_condition(struct job *j, const char *type, bool status, int64_t when);
void fx_job_replica(struct job *j, const char *type, int replicas, int gpus);
/* status.trainerStatus (progress, remaining: -1 for not sent) and one of its metrics */
void fx_trainer_status(struct job *j, int progress, int64_t remaining, int64_t updated);
void fx_job_metric(struct job *j, const char *name, const char *value);
void fx_job_free(struct job *j);

/* A pod of job (may be NULL) with replica type/index (NULL, -1 for none). */
struct pod *fx_pod(const char *name, const struct job *job, const char *replica_type, int index,
                   enum pod_phase phase);
/* Adds a container (adding pod->gpus); the pointer is valid until the next one is added. */
struct container *fx_container(struct pod *p, const char *name, int gpus);
struct container *fx_init_container(struct pod *p, const char *name);
void fx_state(struct container_state *st, enum container_state_kind kind, const char *reason,
              int exit_code, int64_t started, int64_t finished);
void fx_pod_free(struct pod *p);

struct k8s_node *fx_node(const char *name, const char *ip, bool ready, int capacity, int allocatable);
void fx_node_free(struct k8s_node *n);

struct service *fx_service(const char *name, const char *release, const char *role,
                           const char *type, int port, int node_port, const char *ingress);
void fx_service_free(struct service *s);

struct event *fx_event(const char *name, const char *kind, const char *obj, const char *type,
                       const char *reason, const char *message, int64_t last_seen);
void fx_event_free(struct event *e);

/* A job view over arrays the test owns; now = FX_T0. */
struct job_view fx_view(const struct job *job, const struct pod *const *pods, size_t n_pods);

/* Renders with fn into a new string the caller frees. */
#define FX_RENDER(call)                                                                            \
	({                                                                                         \
		struct strbuf fx_sb_ = STRBUF_INIT;                                                \
		struct strbuf *sb = &fx_sb_;                                                       \
		call;                                                                              \
		strbuf_take(sb);                                                                   \
	})

#endif
