/*
 * Where the daemon's messages go (log.c). mount/ picks the sink: stderr in the
 * foreground, syslog after detaching, a buffer while starting up so that a failure
 * prints one line.
 */
#ifndef ARENAFS_FS_LOG_H
#define ARENAFS_FS_LOG_H

#include <stdarg.h>
#include <stdbool.h>

/* Receives one line without its newline and without the "arenafs: " prefix. */
typedef void (*fs_log_sink_fn)(int priority, const char *msg);

void fs_log_set_sink(fs_log_sink_fn fn);
/* The least urgent priority printed (syslog's LOG_INFO by default). */
void fs_log_set_level(int priority);
bool fs_log_enabled(int priority);
void fs_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fs_vlog(int priority, const char *fmt, va_list ap);

#endif
