/*
 * The watch stream parser: the body of a `?watch=true` response, fed in whatever
 * chunks the network delivers, cut into events.
 *
 * The API server writes one JSON object per event, each ended by "\n"
 * ({"type": "ADDED", "object": {...}}, and so for MODIFIED, DELETED, BOOKMARK and
 * ERROR); an event may be split across any number of chunks and one chunk may
 * hold many events. Lines are cut on '\n' alone: JSON strings never hold a raw
 * newline, and a "\r" before it is JSON whitespace (the kubernetes-client/c
 * mistake of splitting on "\r\n" loses events). Lines longer than the parser's
 * limit are an error, so a broken server cannot make us buffer without bound.
 *
 * Pure (no I/O, no locks); one parser per stream. Used by reflector.c.
 */
#ifndef ARENAFS_K8S_WATCHPARSE_H
#define ARENAFS_K8S_WATCHPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"

/* The API server refuses objects over 1.5 MiB in etcd and requests over 3 MiB; an
 * event is one object plus a few bytes. 16 MiB leaves room for any real event. */
#define WATCHPARSE_LINE_MAX (16u << 20)

enum watch_event_type { WATCH_ADDED, WATCH_MODIFIED, WATCH_DELETED, WATCH_BOOKMARK, WATCH_ERROR };

struct watch_event {
	enum watch_event_type type;
	json_t *object;              /* borrowed: valid during the callback only */
};

/* Called for each complete event. A non-zero return stops feeding and is returned
 * by watchparse_feed(). */
typedef int (*watch_event_fn)(void *arg, const struct watch_event *ev);
/* Called, when set (watchparse_on_oversize), for a line over the limit instead of
 * failing the stream: its first bytes (at most OVERSIZE_PREFIX, oversize.h) and its
 * whole length, with the arg of the feed that ended it. The line is skipped; a
 * non-zero return stops feeding as fn's does. */
typedef int (*watch_oversize_fn)(void *arg, const char *prefix, size_t len, size_t bytes);

struct watch_parser {
	char *buf;                   /* the incomplete last line */
	size_t len, cap;
	size_t max_line;
	size_t events;               /* complete events delivered so far */
	size_t line_bytes;           /* of the unfinished line, kept or not */
	bool over;                   /* it is over the limit: only its start is kept */
	watch_oversize_fn on_oversize; /* NULL: a line over the limit fails the stream */
};

/* max_line 0 means WATCHPARSE_LINE_MAX. */
void watchparse_init(struct watch_parser *p, size_t max_line);
void watchparse_free(struct watch_parser *p);
/* Lines over the limit are skipped and handed to fn. */
void watchparse_on_oversize(struct watch_parser *p, watch_oversize_fn fn);

/*
 * Feeds len bytes. Calls fn for every event completed by them, in order. Returns 0,
 * fn's non-zero return, or -EPROTO (a line that is not a watch event: not JSON, no
 * "type"/"object", an unknown type), -E2BIG (a line over the limit) or -ENOMEM, with
 * err filled. After an error the parser must be reset before it is fed again.
 */
int watchparse_feed(struct watch_parser *p, const char *data, size_t len, watch_event_fn fn,
		    void *arg, struct k8s_error *err);

/*
 * The stream ended: a last event without its "\n" is delivered; returns like
 * watchparse_feed (-EPROTO when what is left is not a whole event).
 */
int watchparse_finish(struct watch_parser *p, watch_event_fn fn, void *arg, struct k8s_error *err);

/* True for an ERROR event whose Status has code 410 (Expired/Gone): the client must
 * relist. */
bool watch_event_is_gone(const struct watch_event *ev);

/* Can rv be resumed from? kube-apiserver's storage reads a resourceVersion as
 * an unsigned 64-bit decimal (etcd's revision) and refuses a watch from anything
 * else with 400; "0" means "any version", not a place in the history. So: 1 to
 * 20 digits, no leading zero, at most 2^64 - 1. */
bool watch_rv_valid(const char *rv);

/* "ADDED", ... */
const char *watch_event_type_name(enum watch_event_type t);

#endif
