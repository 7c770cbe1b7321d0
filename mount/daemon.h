/*
 * Daemonizing before any thread exists (daemon.c): fork first, let the child do
 * the whole start-up, and have the parent report the child's outcome.
 */
#ifndef ARENAFS_MOUNT_DAEMON_H
#define ARENAFS_MOUNT_DAEMON_H

#include "k8s/base/say.h"

/*
 * Forks. The parent never returns: it waits for the child's word on a pipe, prints
 * the child's error line if any, and exits 0 or 1. The child (in a new session)
 * gets the pipe's write end; -1 when the fork failed (a line was printed).
 */
int daemon_fork(void);
/* Child: start-up succeeded, the mount is there (closes fd; fd < 0 does nothing). */
void daemon_ready(int fd);
/* Child: start-up failed; line is printed by the parent after "arenafs: ". */
void daemon_fail(int fd, const char *line);
/* Child, once ready: / as working directory, stdio on /dev/null. 0 or -errno. */
int daemon_detach(void);
/* Routes say() to syslog (LOG_DAEMON), as a detached daemon must. */
void daemon_log_to_syslog(void);

#endif
