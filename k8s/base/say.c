/*
 * What the daemon says (say.h): one safe line each (textsafe.h: no control
 * character, UTF-8), to wherever mount/ says (stderr in the
 * foreground, syslog once detached, a buffer during start-up). Priorities are
 * syslog's; lines above the level set (LOG_INFO by default, LOG_DEBUG with -d)
 * are dropped.
 *
 * k8s/ never says anything (its errors travel in struct k8s_error); fs/ says what a
 * user or an operator should know about and what the kernel cannot be told.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "k8s/base/say.h"
#include "k8s/base/textsafe.h"

static void stderr_sink(int priority, const char *msg)
{
	(void)priority;
	fprintf(stderr, "arenafs: %s\n", msg);
}

static say_sink_fn sink = stderr_sink;
static int max_priority = LOG_INFO;

void say_set_sink(say_sink_fn fn)
{
	sink = fn ? fn : stderr_sink;
}

void say_set_level(int priority)
{
	max_priority = priority;
}

static void vsay(int priority, const char *fmt, va_list ap)
{
	char msg[2048], line[2048];
	size_t len;

	if (priority > max_priority)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* one line: libfuse ends its messages in a newline */
	len = strlen(msg);
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		msg[--len] = '\0';
	/* and safe on a terminal: what it quotes (a server's message, a name) may hold
	 * newlines, ESC, BEL and bytes that are not UTF-8 */
	sink(priority, textsafe_line_buf(line, sizeof(line), msg, len));
}

void say(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(priority, fmt, ap);
	va_end(ap);
}
