/*
 * Tests of fs/submit/writers.c: /proc/PID/stat as the kernel writes it (a name with
 * spaces and parentheses, the exit code field), and what it says of this process
 * (running) and of a child killed by a signal and not yet reaped (ending, killed).
 * The close of a killed writer itself is tests/integration/test_submit_writers.py's.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs/submit/writers.h"

/* A line of /proc/PID/stat of a process called comm, in state, with flags, started
 * at start, and exit_code (fields 22 and 52; the others 0). */
static void stat_line(char *buf, size_t size, const char *comm, char state, unsigned flags,
                      unsigned long long start, int exit_code)
{
	int len = snprintf(buf, size, "42 (%s) %c", comm, state);

	for (int field = 4; field <= 52; field++) {
		unsigned long long v = field == 9 ? flags : field == 22 ? start
		                                        : field == 52  ? (unsigned long long)exit_code
		                                                       : 0;

		len += snprintf(buf + len, size - (size_t)len, " %llu", v);
	}
	snprintf(buf + len, size - (size_t)len, "\n");
}

TEST(fs_writers_proc_stat_is_parsed_whatever_the_name)
{
	struct proc_stat s;
	char line[1024];

	stat_line(line, sizeof(line), "my (odd) cat", 'S', 0x400000, 123456, 0);
	CHECK_INT_EQ(proc_parse_stat(line, &s), 0);
	CHECK_STR_EQ(s.comm, "my (odd) cat");
	CHECK_INT_EQ(s.state, 'S');
	CHECK_INT_EQ(s.flags, 0x400000);
	CHECK_INT_EQ(s.starttime, 123456);
	CHECK_INT_EQ(s.exit_code, 0);
	stat_line(line, sizeof(line), "cat", 'R', 0x4, 9, SIGINT);
	CHECK_INT_EQ(proc_parse_stat(line, &s), 0);
	CHECK_INT_EQ(s.exit_code, SIGINT);
	CHECK_INT_EQ(proc_parse_stat("42 cat S 1 2", &s), -EINVAL);
	CHECK_INT_EQ(proc_parse_stat("42 (cat) S 1 2", &s), -EINVAL); /* too short */
}

TEST(fs_writers_this_process_is_running_and_ending_not)
{
	struct writer_end e;
	struct writer_id w;

	CHECK_INT_EQ(writer_end(getpid(), &e), 0);
	CHECK(!e.ending);
	CHECK(!writer_end_abandons(&e));
	CHECK_INT_EQ(writer_identify(getpid(), &w), 0);
	CHECK_INT_EQ(w.tgid, getpid());
	CHECK(writer_running(&w));
	/* another start time is another process */
	w.starttime++;
	CHECK(!writer_running(&w));
	/* no pid: cannot tell, as if running normally */
	CHECK_INT_EQ(writer_end(0, &e), 0);
	CHECK(!e.ending);
}

TEST(fs_writers_a_child_killed_by_a_signal_abandons)
{
	struct writer_id w;
	struct writer_end e;
	char words[160], ready;
	int fds[2];
	pid_t pid;

	CHECK_INT_EQ(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		/* a job started with & by a script ignores SIGINT (POSIX): this one must
		 * not, and says so before the parent kills it */
		signal(SIGINT, SIG_DFL);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_INT_EQ(read(fds[0], &ready, 1), 1);
	close(fds[0]);
	close(fds[1]);
	CHECK_INT_EQ(writer_identify(pid, &w), 0);
	CHECK(writer_running(&w));
	kill(pid, SIGINT);
	/* a zombie until reaped: its stat keeps how it ended */
	for (int i = 0; i < 200 && writer_running(&w); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	CHECK(!writer_running(&w));
	CHECK_INT_EQ(writer_end(pid, &e), 0);
	CHECK(e.ending);
	CHECK_INT_EQ(e.signal, SIGINT);
	CHECK(writer_end_abandons(&e));
	writer_end_describe(&e, pid, words, sizeof(words));
	CHECK_STR_CONTAINS(words, "was killed by signal 2 (SIGINT)");
	kill(pid, SIGKILL);          /* whatever the checks found, never wait for ever */
	waitpid(pid, NULL, 0);
}
