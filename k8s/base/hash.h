/*
 * FNV-1a, 64-bit: the one hash of fs/'s tables (inode names and object keys,
 * derived inode numbers, the log memo). Short keys, an even spread, no
 * dependencies. Chain calls to hash several parts. And hash_text, FNV-1a's step over
 * eight bytes at a time in four lanes, for a rendered text's identity.
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_HASH_H
#define ARENAFS_K8S_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_FNV1A_INIT  14695981039346656037ULL
#define HASH_FNV1A_PRIME 1099511628211ULL

static inline uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * HASH_FNV1A_PRIME;
	return h;
}

/* The same over a NUL-terminated string (the NUL not included). */
static inline uint64_t hash_fnv1a_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HASH_FNV1A_PRIME;
	return h;
}

/*
 * A rendered text's identity (content.c tells a re-render from the last text by it
 * and its length): FNV-1a's step on 8-byte words in four independent lanes, the rest
 * byte by byte. FNV-1a's chain of one multiply per byte cost a fifth of the daemon's
 * time serving a 1.3 MB cluster/list.json (perf); the lanes multiply side by side.
 * A word changed changes its lane for good (each step is a bijection of the lane).
 */
static inline uint64_t hash_text(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t lane[4] = {HASH_FNV1A_INIT, HASH_FNV1A_INIT + 1, HASH_FNV1A_INIT + 2,
	                    HASH_FNV1A_INIT + 3};
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;

			memcpy(&w, p + i + 8 * k, sizeof(w));
			lane[k] = (lane[k] ^ w) * HASH_FNV1A_PRIME;
			lane[k] ^= lane[k] >> 32;     /* a word's high bits reach the low ones */
		}
	return hash_fnv1a(lane[0] ^ (lane[1] << 1) ^ (lane[2] << 2) ^ (lane[3] << 3) ^ len,
	                  p + i, len - i);
}

#endif
