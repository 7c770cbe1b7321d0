/*
 * Who writes into submit/ (writers.c): what /proc says of the process behind a FUSE
 * request, by its pid (the kernel's thread id, as fuse_req_ctx gives it).
 *
 * Two questions, both asked by fs/submit/submit.c and submit_defer.c:
 *  - is the process that closes a spec ending, and how: a close(2) made by the
 *    kernel for a process killed by a signal (Ctrl-C on `cat > f`, kill) or
 *    exiting with a failure status means the text may be cut short
 *    (docs/submit.md, "A writer that did not finish");
 *  - is a process that wrote into a folder still running: while it is, its copy
 *    may not be over (tar x paused between two files).
 *
 * The kernel answers at the close of a killed process: do_exit() sets PF_EXITING and
 * the exit code before it closes the files, and the FUSE flush waits for our reply,
 * so /proc/PID/stat is there and final while we read it. Where /proc cannot tell (a
 * pid of another pid namespace: 0; hidepid; another user's exit code, which reads
 * 0), the answer is "running, normally": what arenafs did before it asked.
 *
 * No locks; a few small reads of /proc. Tests: tests/unit/test_fs_writers.c (the
 * parser), tests/integration/test_submit_writers.py.
 */
#ifndef ARENAFS_FS_SUBMIT_WRITERS_H
#define ARENAFS_FS_SUBMIT_WRITERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What /proc/PID/stat says that matters here. */
struct proc_stat {
	char comm[32];       /* the program's name, as ps shows it */
	char state;          /* R, S, D, Z, X, ... */
	unsigned flags;      /* the kernel's PF_* flags */
	uint64_t starttime;  /* clock ticks after boot: with the pid, one process */
	int exit_code;       /* waitpid(2)'s status once exiting; 0 while running */
};

/* Parses the text of /proc/PID/stat: 0, or -EINVAL. */
int proc_parse_stat(const char *text, struct proc_stat *out);

/* How a process ends, when it is ending. */
struct writer_end {
	bool ending;         /* in exit: the kernel closes its files */
	int signal;          /* killed by this signal (0: it exited) */
	int status;          /* its exit status when it exited */
	char comm[32];
};

/* Reads it for pid: 0 with out filled (ending false when running, or unknown). */
int writer_end(pid_t pid, struct writer_end *out);
/* Is this ending one whose files may be cut short (killed, or a failure status)? */
bool writer_end_abandons(const struct writer_end *e);
/* "cat (pid 42) was killed by signal 2 (SIGINT)", "... exited with status 1". */
void writer_end_describe(const struct writer_end *e, pid_t pid, char *buf, size_t size);

/* One process, beyond pid reuse: its thread group's id and start time. */
struct writer_id {
	pid_t tgid;
	uint64_t starttime;
};

/* The process of the thread tid: 0, or -ENOENT when /proc cannot tell. */
int writer_identify(pid_t tid, struct writer_id *out);
/* Is that process still running (not exited, not a zombie, not ending)? */
bool writer_running(const struct writer_id *w);

#endif
