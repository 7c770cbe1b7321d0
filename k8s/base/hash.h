/*
 * FNV-1a, 64-bit: the one hash of fs/'s tables (inode names and object keys,
 * derived inode numbers, the log memo) and of a rendered text's identity. Short
 * keys, an even spread, no dependencies. Chain calls to hash several parts.
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_HASH_H
#define ARENAFS_K8S_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

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

#endif
