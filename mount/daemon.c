/*
 * Daemonizing early, with a pipe (daemon.h).
 *
 * Threads do not survive fork(): the k8s client's transport thread, the cache's
 * watchers and the notifier must be started in the process that serves. So the
 * fork comes first, before anything starts a thread; the parent only waits on a
 * pipe for the child's word — "ready", or the one line saying why start-up
 * failed — prints the line and exits 0 or 1, so a shell or systemd sees the
 * outcome of the whole start-up (kubeconfig, credentials, first LIST, mount).
 */
#include "mount/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#define DAEMON_READY 'R'
#define DAEMON_FAILED 'F'

static pid_t starting_child;
static volatile sig_atomic_t forwarded;

/* Ctrl-C reaches the waiting parent only (the child has a session of its own): the
 * child must hear it, or it would go on and mount after the user gave up. */
static void forward_signal(int sig)
{
	forwarded = sig;
	kill(starting_child, sig);
}

static void forward_signals(pid_t child)
{
	struct sigaction sa;

	starting_child = child;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The parent: reads the child's word and exits with it. */
static void __attribute__((noreturn)) parent_wait(int fd, pid_t child)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	int status;

	forward_signals(child);
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len > 0 && buf[0] == DAEMON_READY)
		_exit(0);
	if (len > 1 && buf[0] == DAEMON_FAILED) {
		fprintf(stderr, "arenafs: %s\n", buf + 1);
		_exit(1);
	}
	/* no word at all: the child died before it could say anything */
	if (forwarded) {
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		fprintf(stderr, "arenafs: interrupted while starting; nothing is mounted\n");
		_exit(128 + forwarded);
	}
	if (waitpid(child, &status, 0) == child && WIFSIGNALED(status))
		fprintf(stderr, "arenafs: the daemon was killed by signal %d while starting\n",
			WTERMSIG(status));
	else
		fprintf(stderr, "arenafs: the daemon exited while starting\n");
	_exit(1);
}

int daemon_fork(void)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "arenafs: cannot create a pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "arenafs: cannot fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid > 0) {
		close(fds[1]);
		parent_wait(fds[0], pid);
	}
	close(fds[0]);
	/* a session of its own: the terminal's hangup must not stop the mount */
	if (setsid() < 0) {
		daemon_fail(fds[1], "setsid failed");
		return -1;
	}
	return fds[1];
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void daemon_ready(int fd)
{
	char c = DAEMON_READY;

	if (fd < 0)
		return;
	write_all(fd, &c, 1);
	close(fd);
}

void daemon_fail(int fd, const char *line)
{
	char c = DAEMON_FAILED;

	if (fd < 0)
		return;
	write_all(fd, &c, 1);
	write_all(fd, line, strlen(line));
	close(fd);
}

int daemon_detach(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* The mount point and the kubeconfig's paths were made absolute at start-up. */
	if (chdir("/") < 0 || null < 0)
		goto fail;
	if (dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		goto fail;
	if (null > STDERR_FILENO)
		close(null);
	return 0;
fail:
	if (null >= 0)
		close(null);
	return -errno;
}

static void syslog_sink(int priority, const char *msg)
{
	syslog(priority, "%s", msg);
}

void daemon_log_to_syslog(void)
{
	openlog("arenafs", LOG_PID, LOG_DAEMON);
	say_set_sink(syslog_sink);
}
