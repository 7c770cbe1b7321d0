/*
 * An object too large to hold (oversize.c): what a list item or a watch event
 * over the parsers' limit (16 MiB) is, read from its first bytes only. The
 * parsers keep OVERSIZE_PREFIX bytes of it and skip the rest; this finds in them
 * the event's type and the object's name and namespace, so that the object can
 * be named where it is left out (cluster/health, the daemon's log) and an older
 * copy of it dropped, while the rest of its kind stays watched.
 *
 * Pure (no I/O, no locks). Used by reflector.c; tested by tests/unit/test_k8s_oversize.c.
 */
#ifndef ARENAFS_K8S_CACHE_OVERSIZE_H
#define ARENAFS_K8S_CACHE_OVERSIZE_H

#include <stdbool.h>
#include <stddef.h>

#define OVERSIZE_PREFIX (64u << 10)
#define OVERSIZE_FIELD_MAX 256

struct oversize {
	char type[16];                       /* a watch event's "type", "" in a list */
	char name[OVERSIZE_FIELD_MAX];       /* metadata.name, "" when not in the prefix */
	char ns[OVERSIZE_FIELD_MAX];         /* metadata.namespace, "" when none */
	size_t bytes;                        /* the whole object's (event's) size */
};

/*
 * Reads what it can of the JSON text's first len bytes (a prefix of an object:
 * cut anywhere). in_event: the text is a watch event ({"type":..,"object":{..}}),
 * else the object itself. Fields not found, or escaped, are left "".
 */
void oversize_identify(const char *text, size_t len, bool in_event, size_t bytes,
                       struct oversize *out);

#endif
