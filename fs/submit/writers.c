/*
 * What /proc says of a writer into submit/ (writers.h): whether the process that
 * closes a spec is ending and how, and whether a process that wrote into a folder
 * is still running. Called by fs/submit/submit.c and submit_defer.c; no locks.
 * Tests: tests/unit/test_fs_writers.c, tests/integration/test_submit_writers.py.
 */
#include "fs/submit/writers.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* include/linux/sched.h: set by do_exit() before it closes the files. */
#define WRITERS_PF_EXITING 0x00000004u
/* Field 22 of /proc/PID/stat is the start time, 52 the exit code (Linux 3.5). */
#define FIELD_STARTTIME 22
#define FIELD_EXIT_CODE 52

/* Reads a small /proc file whole into buf (NUL-terminated): 0 or -errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

int proc_parse_stat(const char *text, struct proc_stat *out)
{
	const char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')');
	const char *p;
	size_t len;
	int field = 3;

	memset(out, 0, sizeof(*out));
	/* the name may hold spaces and parentheses: it ends at the last ')' */
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return -EINVAL;
	len = (size_t)(close_paren - open_paren - 1);
	if (len >= sizeof(out->comm))
		len = sizeof(out->comm) - 1;
	memcpy(out->comm, open_paren + 1, len);
	for (p = close_paren + 2; *p && field <= FIELD_EXIT_CODE; field++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (field == 3)
			out->state = *p;
		else if (end == p)
			return -EINVAL;
		if (field == 9)
			out->flags = (unsigned)v;
		else if (field == FIELD_STARTTIME)
			out->starttime = v;
		else if (field == FIELD_EXIT_CODE)
			out->exit_code = (int)v;
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return field > FIELD_STARTTIME ? 0 : -EINVAL;
}

static int stat_of(pid_t pid, struct proc_stat *out)
{
	char path[64], text[1024];
	int rc;

	if (pid <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	rc = read_small(path, text, sizeof(text));
	return rc ? rc : proc_parse_stat(text, out);
}

int writer_end(pid_t pid, struct writer_end *out)
{
	struct proc_stat s;

	memset(out, 0, sizeof(*out));
	if (stat_of(pid, &s) < 0)
		return 0; /* cannot tell: as if running */
	snprintf(out->comm, sizeof(out->comm), "%s", s.comm);
	out->ending = (s.flags & WRITERS_PF_EXITING) != 0;
	if (out->ending) {
		out->signal = s.exit_code & 0x7f;
		out->status = (s.exit_code >> 8) & 0xff;
	}
	return 0;
}

bool writer_end_abandons(const struct writer_end *e)
{
	return e->ending && (e->signal != 0 || e->status != 0);
}

void writer_end_describe(const struct writer_end *e, pid_t pid, char *buf, size_t size)
{
	if (e->signal) {
		const char *abbrev = sigabbrev_np(e->signal);

		snprintf(buf, size, "%s (pid %d) was killed by signal %d%s%s%s", e->comm, (int)pid,
		         e->signal, abbrev ? " (SIG" : "", abbrev ? abbrev : "", abbrev ? ")" : "");
	} else {
		snprintf(buf, size, "%s (pid %d) exited with status %d", e->comm, (int)pid,
		         e->status);
	}
}

int writer_identify(pid_t tid, struct writer_id *out)
{
	char path[64], text[2048], *tgid;
	struct proc_stat s;
	int rc;

	memset(out, 0, sizeof(*out));
	if (tid <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	rc = read_small(path, text, sizeof(text));
	if (rc)
		return rc;
	tgid = strstr(text, "\nTgid:");
	if (!tgid)
		return -ENOENT;
	out->tgid = (pid_t)strtol(tgid + 6, NULL, 10);
	if (stat_of(out->tgid, &s) < 0)
		return -ENOENT;
	out->starttime = s.starttime;
	return 0;
}

bool writer_running(const struct writer_id *w)
{
	struct proc_stat s;

	if (stat_of(w->tgid, &s) < 0 || s.starttime != w->starttime)
		return false; /* gone, and maybe its pid taken by another */
	return s.state != 'Z' && s.state != 'X' && !(s.flags & WRITERS_PF_EXITING);
}
