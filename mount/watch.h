/*
 * Noticing that the mount went away while files are still open (watch.c).
 *
 * `fusermount3 -u -z` (or `umount -l`) detaches a mount whose files are open — a
 * `tail -f` on a log — without telling the daemon: the connection lives on until
 * the last file is closed, which for tail -f is never. The watcher looks for the
 * mount in /proc/self/mountinfo once a second and, when it has gone, sends the
 * daemon SIGTERM, so that it stops as it would on a plain unmount.
 */
#ifndef ARENAFS_MOUNT_WATCH_H
#define ARENAFS_MOUNT_WATCH_H

#include <stdbool.h>

struct mount_watch;

/* Finds the newest FUSE mount at mountpoint (absolute) and starts watching it.
 * 0, or -errno when it cannot be found or the thread not started (*out NULL). */
int watch_start(const char *mountpoint, struct mount_watch **out);
/* Is a FUSE filesystem mounted at mountpoint (absolute) already? */
bool watch_fuse_mounted_at(const char *mountpoint);
/* Is the watched mount still attached? (true when not watching: w NULL) */
bool watch_mounted(struct mount_watch *w);
void watch_stop(struct mount_watch *w);

#endif
