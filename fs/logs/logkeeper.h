/*
 * The keeper thread (logkeeper.c): fetches each terminated main container's log
 * once and keeps it on disk (logkeep.h). Made, fed and stopped by fs.c.
 */
#ifndef ARENAFS_FS_LOGS_LOGKEEPER_H
#define ARENAFS_FS_LOGS_LOGKEEPER_H

#include "fs/base/fs_struct.h"

int logkeeper_new(struct fs *fs, struct logkeeper **out);
/* Starts the thread (fs->kept_logs set): pods changed from now on are looked at. -errno. */
int logkeeper_start(struct logkeeper *kp);
/* A pod of a job changed (the cache's hook, any thread): look at it soon. */
void logkeeper_pod_changed(struct logkeeper *kp, const char *ns, const char *pod);
/* Stops the thread and drops its fetches (fs_stop: before the client and cache go). */
void logkeeper_stop(struct logkeeper *kp);
void logkeeper_free(struct logkeeper *kp);

#endif
