/*
 * The renames from and into the trash `.Trash-UID/` (trash_moves.c; the trash's
 * other operations are trash.h's): the ones that delete a job and bring it back.
 * ops.c calls them after refusing what may not be changed (readonly: EROFS; another
 * user than the mounting one: EACCES), on a network thread for the two that talk to
 * the cluster (netops.h). Each answers the request itself.
 */
#ifndef ARENAFS_FS_SUBMIT_TRASH_MOVES_H
#define ARENAFS_FS_SUBMIT_TRASH_MOVES_H

#include "fs/base/fs_struct.h"
#include "fs/base/fuse.h"
#include "fs/base/inode.h"

/* jobs/NAME (job: its FS_JOB_DIR inode, found by the caller) renamed to files/newname:
 * the job is deleted as rmdir deletes it, and kept. Blocks on the cluster. */
void trash_put_job(struct fs *fs, fuse_req_t req, struct fs_inode *job,
		   struct fs_inode *newparent, const char *newname, unsigned int flags);
/* Any other rename from or into the trash: files/X back to jobs/NAME (resubmits:
 * blocks on the cluster), into expunged/ (forgotten), within info/, or refused. */
void trash_rename(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  struct fs_inode *newparent, const char *newname, unsigned int flags);

#endif
