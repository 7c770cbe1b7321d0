/*
 * The cache's health as plain data: whether every watch is up, since when, why
 * not, and what the server sent that could not be cached. The cache fills it
 * (cache_get_health, cache.h); render/ shows it (cluster/health, the stale
 * notes), which is why it has a header of its own: a renderer includes this,
 * not the cache and its HTTP client.
 */
#ifndef ARENAFS_K8S_HEALTH_H
#define ARENAFS_K8S_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

struct cache_health {
	bool connected;              /* every watch is up */
	int64_t since;               /* when connected changed last (Unix seconds) */
	char last_error[512];        /* why it is disconnected, "" when connected */
	/* objects the server sent that are never cached, counted here: a name or
	 * namespace that cannot be a file name ("/", NUL, "." or "..", over 255
	 * bytes), another kind than the watched one, a watch event whose
	 * resourceVersion is no version */
	uint64_t skipped;
	/* the last one, printable, and why: `pods "../../etc" in default, a name no file
	 * can have` */
	char skipped_last[256];
	/* disconnected because the API server could not be reached at all (refused, no
	 * route, reset, TLS; not a timeout: a slow server is there): a request now would
	 * only fail (submit/ fails fast) */
	bool unreachable;
};

#endif
