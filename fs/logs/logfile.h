/*
 * The log files (logfile.c): a follow stream per container instance shared by
 * its inodes, sizes, waiting reads, kept logs once the pod is gone. Called by ops.c,
 * content.c (stat), the notifier (poke) and fs.c.
 */
#ifndef ARENAFS_FS_LOGS_LOGFILE_H
#define ARENAFS_FS_LOGS_LOGFILE_H

#include <stdint.h>
#include <sys/types.h>
#include "fs/base/fs_struct.h"
#include "fs/base/inode.h"

/* Opens a log inode: starts or joins the stream of its container instance and waits
 * (log_wait_ms) for the first bytes, or for a finished container's whole log. A pending
 * container has no stream yet: the file is empty until it starts (logfile_poke). 0 or
 * -errno. */
int logfile_open(struct fs *fs, struct fs_inode *in);
ssize_t logfile_read(struct fs *fs, struct fs_inode *in, char *buf, size_t size, off_t off);
void logfile_release(struct fs *fs, struct fs_inode *in);
/* Size and mtime for getattr, from what was read of the log and from the cache; never
 * asks the cluster (the size is 0 until the log was read: logfile.c says why). */
void logfile_stat(struct fs *fs, struct fs_inode *in, uint64_t *size, int64_t *mtime);
/* The cache says the container may have started: attach a stream an open file waits for. */
void logfile_poke(struct fs *fs, struct fs_inode *in);
/* Called by the inode table when in is freed. */
void logfile_free(struct fs_inode *in);
/* What was read of each container's log, beyond its inodes' lives (fs_new, fs_free). */
int logfile_memo_new(struct log_memo_table **out);
void logfile_memo_free(struct log_memo_table *t);
/* Drops every stream (fs_stop). */
void logfile_stop_all(struct fs *fs);

#endif
