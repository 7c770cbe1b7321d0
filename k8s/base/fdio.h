/*
 * Writing a whole buffer to a file descriptor, through short writes and EINTR:
 * the spill files of logs (k8s/logs/logbuf.c) and the kept logs (fs/logs/logkeep.c,
 * fs/logs/logkeeper.c).
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_FDIO_H
#define ARENAFS_K8S_BASE_FDIO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* Writes len bytes at off (pwrite), or at the file's offset when off is -1 (write).
 * 0, or -errno (-EIO for a write that wrote nothing). */
static inline int fd_write_all(int fd, const void *data, size_t len, int64_t off)
{
	const char *p = data;

	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

#endif
