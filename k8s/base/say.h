/*
 * What the daemon says: its own messages (say.c), one line each, to where mount/
 * picks: stderr in the foreground, syslog after detaching, a buffer while starting
 * up so that a failure prints one line. Named apart from the jobs' logs, which
 * fs/logs/ serves and k8s/logs/ streams: "log" in arenafs means a container's log.
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_SAY_H
#define ARENAFS_K8S_BASE_SAY_H


/* Receives one line without its newline and without the "arenafs: " prefix. */
typedef void (*say_sink_fn)(int priority, const char *msg);

void say_set_sink(say_sink_fn fn);
/* The least urgent priority printed (syslog's LOG_INFO by default). */
void say_set_level(int priority);
void say(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
