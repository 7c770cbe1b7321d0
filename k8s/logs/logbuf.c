/*
 * A log's ring and spill file (see logbuf.h).
 *
 * Invariant: while fd < 0 the ring holds the whole log (size <= cap); once fd >= 0
 * the file holds bytes [0, size) and the ring the newest ring_len of them. So a
 * read is either a copy from the ring or a pread of the file, never both.
 */
#include "k8s/logs/logbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "k8s/base/fdio.h"

int logbuf_init(struct logbuf *b, size_t mem_max)
{
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->cap = mem_max ? mem_max : 1;
	b->ring = malloc(b->cap);
	return b->ring ? 0 : -ENOMEM;
}

void logbuf_init_file(struct logbuf *b, int fd, uint64_t size)
{
	/* the invariant holds with an empty ring: every read is a pread of the file */
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->size = size;
}

void logbuf_free(struct logbuf *b)
{
	free(b->ring);
	b->ring = NULL;
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* An unlinked file: O_TMPFILE where the file system has it, else mkstemp + unlink. */
static int spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (snprintf(path, sizeof(path), "%s/arenafs-log-XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

/* The ring's bytes, oldest first, in at most two pieces. */
static void ring_pieces(const struct logbuf *b, size_t from, size_t n, const char **p1, size_t *n1,
                        const char **p2, size_t *n2)
{
	size_t at = (b->ring_start + from) % b->cap;

	*p1 = b->ring + at;
	*n1 = n < b->cap - at ? n : b->cap - at;
	*p2 = b->ring;
	*n2 = n - *n1;
}

static void ring_push(struct logbuf *b, const char *data, size_t len)
{
	if (len >= b->cap) {
		/* only the newest cap bytes stay */
		memcpy(b->ring, data + len - b->cap, b->cap);
		b->ring_start = 0;
		b->ring_len = b->cap;
		return;
	}
	while (len) {
		size_t end = (b->ring_start + b->ring_len) % b->cap;
		size_t room = b->cap - end, n = len < room ? len : room;

		memcpy(b->ring + end, data, n);
		if (b->ring_len + n > b->cap) {
			size_t drop = b->ring_len + n - b->cap;

			b->ring_start = (b->ring_start + drop) % b->cap;
			b->ring_len -= drop;
		}
		b->ring_len += n;
		data += n;
		len -= n;
	}
}

int logbuf_append(struct logbuf *b, const char *data, size_t len)
{
	int rc = 0;

	if (!len)
		return 0;
	if (b->fd < 0 && !b->spill_err && b->size + len > b->cap) {
		const char *p1, *p2;
		size_t n1, n2;
		int fd = spill_open();

		if (fd < 0) {
			b->spill_err = -fd;
		} else {
			b->fd = fd;
			ring_pieces(b, 0, b->ring_len, &p1, &n1, &p2, &n2);
			rc = fd_write_all(fd, p1, n1, 0);
			if (!rc)
				rc = fd_write_all(fd, p2, n2, (int64_t)n1);
			if (rc)
				b->spill_err = -rc;
		}
	}
	if (b->fd >= 0 && !b->spill_err) {
		rc = fd_write_all(b->fd, data, len, (int64_t)b->size);
		if (rc)
			b->spill_err = -rc;
	}
	ring_push(b, data, len);
	b->size += len;
	return b->spill_err ? -b->spill_err : 0;
}

ssize_t logbuf_read(const struct logbuf *b, char *buf, size_t size, uint64_t off)
{
	uint64_t ring_from = b->size - b->ring_len;
	size_t n;

	if (off >= b->size)
		return 0;
	n = b->size - off < size ? (size_t)(b->size - off) : size;
	if (off >= ring_from) {
		const char *p1, *p2;
		size_t n1, n2;

		ring_pieces(b, (size_t)(off - ring_from), n, &p1, &n1, &p2, &n2);
		memcpy(buf, p1, n1);
		memcpy(buf + n1, p2, n2);
		return (ssize_t)n;
	}
	if (b->fd < 0 || b->spill_err)
		return -EIO;
	for (size_t done = 0; done < n;) {
		ssize_t r = pread(b->fd, buf + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return done ? (ssize_t)done : -EIO;
		done += (size_t)r;
	}
	return (ssize_t)n;
}
