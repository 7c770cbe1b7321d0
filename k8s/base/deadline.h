/*
 * The deadline of the user's action a thread works for (deadline.c): one action,
 * one deadline, however many requests it makes. A caller in fs/ that knows the
 * action (`echo 1 > jobs/NAME/suspend`: its access review and its PATCH) sets it
 * around its calls; k8s_request (k8s/http/client.c) ends each request at the
 * earlier of its own request_timeout and this, and sends none once it passed.
 *
 * Thread-local: no lock. Tested by tests/unit/test_k8s_base_deadline.c and, through
 * the mount, tests/integration/test_suspend_deadline.py.
 */
#ifndef ARENAFS_K8S_BASE_DEADLINE_H
#define ARENAFS_K8S_BASE_DEADLINE_H

#include <stdint.h>

/* The calling thread's action deadline (time_monotonic_ms), 0 when none. */
int64_t deadline_of_action(void);
/* Sets it (0: none); returns the one it replaces, for deadline_restore. */
int64_t deadline_begin(int64_t at);
void deadline_restore(int64_t previous);

#endif
