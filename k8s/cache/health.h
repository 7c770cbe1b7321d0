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
	/* objects the server sent whose name or namespace cannot be a file name ("/",
	 * NUL, "." or "..", over 255 bytes): never cached, counted here */
	uint64_t skipped;
	char skipped_last[200];      /* the last one, printable: `pod "../../etc" in default` */
};

#endif
