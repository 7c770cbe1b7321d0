/*
 * The invariants arenafs states as asserts (STYLE.md: a lock held, a list ordered,
 * a count positive), with assert(3), and the two questions about locks they ask.
 *
 * NDEBUG: the Makefile never sets it, so the release binary checks what the unit,
 * ASan and fuzz builds check (they share its objects: build/unit_tests links the
 * same library as ./arenafs). Every assert is O(1) or runs once per listing or at
 * start-up, never per byte; one that fails means memory or a lock order is already
 * wrong, and stopping beats serving a wrong tree. A packager who wants them gone
 * passes CFLAGS=-DNDEBUG (docs/architecture.md, "Asserts").
 *
 * The lock questions say "held by some thread", not "by this one": POSIX has no
 * owner query for a default mutex or a rwlock; held by nobody is the mistake
 * they catch (a caller that forgot to lock).
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_INVARIANT_H
#define ARENAFS_K8S_BASE_INVARIANT_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

/* Whether m is locked now (a trylock that fails with EBUSY; one that succeeds is
 * undone). */
static inline bool mutex_is_held(pthread_mutex_t *m)
{
	int r = pthread_mutex_trylock(m);

	if (r == 0) {
		pthread_mutex_unlock(m);
		return false;
	}
	return r == EBUSY;
}

/* Whether l is read- or write-locked now. */
static inline bool rwlock_is_held(pthread_rwlock_t *l)
{
	int r = pthread_rwlock_trywrlock(l);

	if (r == 0) {
		pthread_rwlock_unlock(l);
		return false;
	}
	return r == EBUSY || r == EDEADLK;
}

#endif
