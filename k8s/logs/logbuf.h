/*
 * The bytes of one container log, in bounded memory: the newest bytes in a ring
 * of a fixed size, and — once the log outgrows the ring — every byte in an
 * unlinked temporary file under $TMPDIR (else /tmp), which the page cache keeps
 * fast and the kernel frees when the stream is closed.
 *
 * $TMPDIR must not be inside an arenafs mount (the daemon would read itself).
 * No locks: logstream.c serialises access. Used by logstream.c and its tests.
 */
#ifndef ARENAFS_K8S_LOGBUF_H
#define ARENAFS_K8S_LOGBUF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct logbuf {
	char *ring;
	size_t cap;                  /* ring size */
	size_t ring_len;             /* bytes in the ring: the last ring_len of the log */
	size_t ring_start;           /* index of the oldest of them */
	uint64_t size;               /* bytes appended so far */
	int fd;                      /* the spill file, -1 until the ring overflows */
	int spill_err;               /* errno of a failed spill: older bytes are lost */
};

/* mem_max: the ring's size (at least 1). -ENOMEM. */
int logbuf_init(struct logbuf *b, size_t mem_max);
/* A whole log already in a file (a kept copy): size bytes of fd, which the buffer
 * owns from now on; nothing in memory, and nothing may be appended. */
void logbuf_init_file(struct logbuf *b, int fd, uint64_t size);
void logbuf_free(struct logbuf *b);

/*
 * Appends len bytes. Returns 0, or -errno when the spill file could not be created
 * or written: the bytes are then still counted and the newest are in memory, but
 * reads of what left the ring fail with -EIO.
 */
int logbuf_append(struct logbuf *b, const char *data, size_t len);

/* Copies up to size bytes at off; returns the count (0 at or past the end) or -EIO. */
ssize_t logbuf_read(const struct logbuf *b, char *buf, size_t size, uint64_t off);

#endif
