/*
 * render/attempt.c's face: instances/POD/attempts/N/info, one attempt (container
 * instance) of a pod's main container: how it ended, and where its log is.
 * Pure: no I/O, no locks, no clock (`now` comes in the view).
 */
#ifndef ARENAFS_RENDER_ATTEMPT_H
#define ARENAFS_RENDER_ATTEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* Where an attempt's log is (docs/tree.md, "instances/POD/attempts/"). */
enum attempt_log {
	ATTEMPT_LOG_KEPT,       /* a copy on disk (keep_logs) */
	ATTEMPT_LOG_SERVED,     /* not kept (yet): the kubelet serves it (the current, the last) */
	ATTEMPT_LOG_DROPPED,    /* its copy went: keep_logs was full, the oldest go first */
	ATTEMPT_LOG_TOO_BIG,    /* never kept: larger than keep_logs */
	ATTEMPT_LOG_LOST,       /* not kept and no longer served: it ended unseen */
};

struct attempt_view {
	int number;             /* 1 for the first: the instance's restartCount + 1 */
	int of;                 /* the attempts the pod has had so far; 0 when its pod is gone */
	const char *container;
	bool running;           /* the current instance, not ended */
	bool known;             /* exit code, reason, start and end are known */
	int exit_code;
	const char *reason;     /* Error, OOMKilled, Completed, ... or "" */
	int64_t started, finished;   /* 0 unknown */
	enum attempt_log log;
	uint64_t size;          /* ATTEMPT_LOG_KEPT: bytes */
	int64_t dropped;        /* ATTEMPT_LOG_DROPPED: when */
	uint64_t keep_logs;     /* the option (0: logs are not kept) */
	int64_t now;
};

void render_attempt_info(struct strbuf *sb, const struct attempt_view *v);

#endif
