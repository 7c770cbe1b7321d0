/*
 * Tests mount/daemon.c: the parent of daemon_fork exits with its child's word, as
 * the shell that ran `arenafs ... /mnt` sees it: 0 once the mount is ready, 1 with
 * the child's line when start-up failed, 1 saying so when the child dies without a
 * word. Each case runs in a process of its own (the parent exits), its stderr read
 * through a pipe.
 */
#include "mount/daemon.h"
#include "tests/unit/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum child_does { SAY_READY, SAY_FAILED, SAY_NOTHING };

/* Runs a launcher that calls daemon_fork; its daemon child does what; returns the
 * launcher's exit status, its stderr in err. */
static int launch(enum child_does what, char *err, size_t size)
{
	int fds[2], status = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	CHECK_INT_EQ(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		int fd;

		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		fd = daemon_fork();        /* the launcher never returns from here */
		if (what == SAY_READY)
			daemon_ready(fd);
		else if (what == SAY_FAILED)
			daemon_fail(fd, "cannot reach the cluster at https://10.0.0.1:6443");
		_exit(0);
	}
	close(fds[1]);
	/* the daemon keeps stderr open a moment longer than the launcher: read to the end */
	while (len < size - 1 && (n = read(fds[0], err + len, size - 1 - len)) > 0)
		len += (size_t)n;
	err[len] = '\0';
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(mount_daemon_parent_exits_with_the_child_s_word)
{
	char err[512];

	CHECK_INT_EQ(launch(SAY_READY, err, sizeof(err)), 0);
	CHECK_STR_EQ(err, "");
	CHECK_INT_EQ(launch(SAY_FAILED, err, sizeof(err)), 1);
	CHECK_STR_EQ(err, "arenafs: cannot reach the cluster at https://10.0.0.1:6443\n");
	CHECK_INT_EQ(launch(SAY_NOTHING, err, sizeof(err)), 1);
	CHECK_STR_EQ(err, "arenafs: the daemon exited while starting\n");
}
