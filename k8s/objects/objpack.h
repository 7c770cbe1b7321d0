/*
 * How the decoders of objects.h keep objects compact: each object is one malloc'd
 * block (the struct, then its arrays, then its strings), and strings that repeat
 * across many objects (label keys and values, namespaces, node names, images,
 * owner names and uids, reasons) are interned: shared, reference-counted copies
 * from one process-wide pool.
 *
 * A decoder first fills a temporary struct whose strings borrow from the JSON and
 * whose arrays come from a scratch list; then a per-type "layout" function names
 * every array and string field, and is run three ways: PACK_SIZE measures the
 * block, PACK_FILL copies everything into it (interning the fields marked so), and
 * PACK_RELEASE drops the interned references before the block is freed. Because
 * one function drives all three, they cannot disagree about the fields.
 *
 * Private to the decoders (objects_decode.c, pod_decode.c, job_decode.c, through
 * decode.h); tests/tools/k8scache reads the pool's intern_stats(). Thread-safe:
 * the pool has its own mutex; packers and scratch lists belong to one decode.
 */
#ifndef ARENAFS_K8S_OBJPACK_H
#define ARENAFS_K8S_OBJPACK_H

#include <stdbool.h>
#include <stddef.h>

/* ---- the intern pool ---- */

/* Distinct strings and the bytes they hold, for measurements and tests. */
void intern_stats(size_t *strings, size_t *bytes);

/* ---- scratch allocations of one decode ---- */

struct scratch {
	struct scratch_chunk *head;
	bool oom;
};

#define SCRATCH_INIT {NULL, false}

/* Zeroed memory valid until scratch_free(); NULL (and s->oom) when out of memory. */
void *scratch_alloc(struct scratch *s, size_t size);
char *scratch_strdup(struct scratch *s, const char *str);
void scratch_free(struct scratch *s);

/* ---- the packer ---- */

enum pack_mode { PACK_SIZE, PACK_FILL, PACK_RELEASE };

struct packer {
	enum pack_mode mode;
	size_t off;                  /* PACK_SIZE/PACK_FILL: bytes of the block used so far */
	char *block;                 /* PACK_FILL */
	bool failed;                 /* PACK_FILL: interning ran out of memory */
};

/*
 * A string field. NULL stays NULL; "" becomes objpack_empty; otherwise the text is
 * interned (intern) or copied into the block.
 */
void pack_str(struct packer *pk, char **field, bool intern);
/*
 * A string field that often holds the same text as one packed before it (copied,
 * not interned): with the same text it points at that copy, otherwise it is copied
 * like pack_str(pk, field, false). same may be NULL.
 */
void pack_str_shared(struct packer *pk, char **field, const char *same);
/* An array field of n elements of elem bytes, moved into the block. */
void pack_array(struct packer *pk, void **field, size_t n, size_t elem);

/*
 * Builds the block for tmp (size bytes, the struct at its start) with layout, or
 * returns NULL when out of memory. tmp itself is left as it was.
 */
typedef void (*pack_layout_fn)(void *obj, struct packer *pk);
void *pack_object(const void *tmp, size_t size, pack_layout_fn layout);
/* Drops the interned strings of a packed object and frees its block. */
void pack_free(void *obj, pack_layout_fn layout);

#endif
