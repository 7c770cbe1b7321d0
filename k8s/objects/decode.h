/*
 * Helpers shared by the object decoders (objects_decode.c, pod_decode.c,
 * job_decode.c): reading JSON fields with the API's defaults, metadata, resource
 * quantities.
 *
 * Private to those three files. Strings returned borrow from the JSON.
 */
#ifndef ARENAFS_K8S_DECODE_H
#define ARENAFS_K8S_DECODE_H

#include <stdint.h>

#include <jansson.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"
#include "k8s/objects/objpack.h"

/* A GPU count above this is not a count but a typo or an attack ("1e9"). */
#define GPU_COUNT_MAX 4096

/* obj[key] as a string, "" when absent or not a string. Cast: the temporary
 * structs hold it in char * fields until pack_str() copies it. */
char *dec_str(const json_t *obj, const char *key);
/* sb's text copied onto s (NULL, and s->oom, when either ran out of memory); sb
 * freed. For the fields a decoder joins (a claim's access modes, a job's claims). */
char *dec_take(struct scratch *s, struct strbuf *sb);
int64_t dec_time(const json_t *obj, const char *key);
/* obj[key] as an int, def when absent or not an integer. */
int dec_int(const json_t *obj, const char *key, int def);
/* A quantity that must be a whole number ("2", or 2): its value; 0 for anything
 * else ("500m", "1.5", "2Ki", negative, over GPU_COUNT_MAX). */
int dec_count_quantity(const json_t *q);
/* resources.limits["nvidia.com/gpu"] of a container. */
int dec_container_gpus(const json_t *container);

/* status.conditions of any object (type, status True, reason, message, transition),
 * in the order listed, on s. -1 when out of memory. */
int dec_condition_list(struct scratch *s, const json_t *status, struct job_condition **out,
                       size_t *n);

/* An entry of metadata.ownerReferences: read to find a pod's job, not kept. */
struct owner_ref {
	char *api_version;
	char *kind;
	char *name;
	char *uid;
	bool controller;
};

/* What the metadata says beyond what struct obj_meta keeps: the decoders read it,
 * the objects do not hold it. */
struct meta_more {
	struct kv_list labels;       /* every label (obj_meta keeps LABELS_KEPT only) */
	struct owner_ref *owners;
	size_t n_owners;
};

/* metadata of obj into m (strings borrowed, arrays on s), and into more (may be
 * NULL) what m does not keep. -1 when there is no name or out of memory. */
int dec_meta(struct scratch *s, const json_t *obj, struct obj_meta *m, struct meta_more *more);
void meta_layout(struct obj_meta *m, struct packer *pk);

#endif
