/*
 * Container log streams: one shared stream per (namespace, pod, container,
 * instance), opened by the first reader and joined by the next ones.
 *
 * A stream GETs .../pods/P/log?container=C&follow=true and appends what arrives
 * to a buffer whose memory is bounded (bytes past LOGSTREAM_MEMORY_MAX live in an
 * unlinked temporary file outside the mount: docs/architecture.md). It ends
 * cleanly when the container ends, and reconnects with sinceTime and
 * de-duplication when the connection breaks while the container still runs. A
 * finished container is read once without follow; previous=true reads the last
 * terminated instance. The API's 204 (unscheduled) and 400 "waiting to start"
 * answers leave an empty log with the reason kept for logstream_status().
 *
 * Thread-safe. Reads never wait for the network: they return what is buffered.
 *
 * Decisions (docs/k8s-cache.md): a follow request asks timestamps=true and the
 * timestamps are cut off before the bytes are stored, so that a resumed stream
 * (sinceTime) can drop the lines it repeats; a terminated instance (finished,
 * previous) is read once as it is, without them. A stream whose container has no log
 * yet (204 unscheduled, 400 waiting to start / ContainerCreating) ends at once,
 * empty and done, with the API's reason in logstream_status(); it is not retried:
 * once the container runs it has a container ID, which is a new key, so the
 * caller simply opens the log again with the new ID.
 */
#ifndef ARENAFS_K8S_LOGSTREAM_H
#define ARENAFS_K8S_LOGSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "k8s/http/client.h"

struct logstream;

/* Bytes of a log kept in memory (the newest); the whole log lives in an unlinked
 * file under $TMPDIR once it is larger (k8s/logs/logbuf.h). */
#define LOGSTREAM_MEMORY_MAX (256u << 10)

/* Called after bytes were appended (new_size = total) and once more when the stream is
 * done: on the client's transport thread, which delivers the stream's bytes, or on the
 * stream's own thread. It must not block (on the transport thread it holds up every
 * request of the client), and must not call logstream_release() (which waits for the
 * stream's thread). */
typedef void (*logstream_append_fn)(void *arg, uint64_t new_size);

struct logstream_key {
	const char *namespace;
	const char *pod;
	const char *container;
	const char *container_id;    /* the instance; a new id means a new stream ("" ok) */
	bool previous;               /* the last terminated instance (logs.previous) */
	bool finished;               /* the container has terminated: read once, no follow */
	/* A follow request that has had no answer for this long (ms) is checked once by a
	 * request without follow, which a server answers at once (0: never). A kubelet
	 * sends a follow's headers with the log's first byte, so a running container
	 * that printed nothing looks, to the follow alone, like a server that does not
	 * answer. */
	int probe_after_ms;
};

/*
 * The streams open now, by key: who opens a log that is open already shares its
 * stream. One per mount (struct fs); freed when no stream is left.
 */
struct logstream_registry;
int logstream_registry_new(struct logstream_registry **out);
void logstream_registry_free(struct logstream_registry *reg);

/*
 * Returns a referenced stream for key from reg, starting it when nobody has it
 * open. on_append (may be NULL) is registered for this reference and removed by
 * logstream_release().
 */
int logstream_open(struct logstream_registry *reg, struct k8s_client *c,
		   const struct logstream_key *key, logstream_append_fn on_append, void *arg,
		   struct logstream **out, struct k8s_error *err);
void logstream_release(struct logstream *ls, logstream_append_fn on_append, void *arg);

/*
 * A stream over a whole log already on disk (a kept copy, fs/logs/logkeep.h): size bytes
 * of fd, which it owns; done at once, never shared, no thread and no request.
 * mtime: when the log last grew. Released with logstream_release() as any other.
 */
int logstream_from_file(int fd, uint64_t size, int64_t mtime, struct logstream **out);

uint64_t logstream_size(struct logstream *ls);
/* Time of the last append (Unix seconds), or of the open when nothing arrived. */
int64_t logstream_mtime(struct logstream *ls);
/* Copies up to size bytes at off from what is buffered; returns bytes copied (0 at the
 * end of what has arrived) or -errno. */
ssize_t logstream_read(struct logstream *ls, char *buf, size_t size, uint64_t off);
/* True once the stream has ended for good (container finished, or not following). */
bool logstream_done(struct logstream *ls);
/* Why the log is empty or stopped, e.g. "container is waiting to start: ContainerCreating";
 * "" when streaming normally. Copied into buf. */
void logstream_status(struct logstream *ls, char *buf, size_t size);

/* Whether what the stream holds is the log: OK (streaming, ended, or rightly empty:
 * not scheduled, waiting to start), RETRYING (a connection broke or cannot be made;
 * trying again) or FAILED (it ended without the whole log: the pod went away, the
 * API refused, the retries ran out). logstream_status() says why. */
enum logstream_health { LOGSTREAM_OK, LOGSTREAM_RETRYING, LOGSTREAM_FAILED };
enum logstream_health logstream_health(struct logstream *ls);

/* 0 once the server has answered this stream (bytes, a response, or the probe's
 * answer: probe_after_ms), or for a stream from a file; else how long (ms) the
 * stream has waited for its first answer. An unanswered stream's empty buffer is
 * not an empty log. */
int64_t logstream_unanswered_ms(struct logstream *ls);

/* A follow stream has delivered a line the container wrote after the request
 * began (by its timestamp): the log as it was has arrived, what comes now is being
 * written, and a reader at the end of the bytes has the log up to about now (`cat`
 * ends there; fs/logs/logfile.c). The node's clock stands in for ours: one ahead
 * by d ends `cat` up to d early; one behind never says caught up, and the reader
 * waits for the log to fall quiet as before. False again while a resumed request
 * catches up; never true of a log read once. */
bool logstream_caught_up(struct logstream *ls);

#endif
