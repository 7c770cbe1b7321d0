/*
 * The operations of submit/ and everything below it, and rmdir of jobs/NAME
 * (arena delete): ops.c and dirs.c call them for inodes of those places
 * (fs_type_is_submit) after refusing what may not be changed: writes in readonly
 * mode (EROFS) and, with allow_other, writes by another user than the mounting
 * one (EACCES).
 *
 * Each operation gets the request and answers it itself, as a libfuse low-level
 * operation does; the inodes passed in are pinned for the call. submit.c makes its
 * inodes with inode_table_child() (types FS_SUBMIT_SUBDIR and FS_SUBMIT_FILE, below
 * the FS_SUBMIT_DIR inode) and replies entries with attributes of its own.
 *
 * Files opened here set fi->fh to a struct fs_handle (base/handles.h) whose `in` is
 * the pinned inode (their own state in `priv`): read, write, flush and release are
 * routed here by that inode's type; release frees the handle and puts the inode.
 */
#ifndef ARENAFS_FS_SUBMIT_H
#define ARENAFS_FS_SUBMIT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "fs/base/fs_struct.h"
#include "fs/base/fuse.h"
#include "fs/base/inode.h"
#include "fs/base/node.h"
#include "fs/submit/staging.h"

/* parent: FS_SUBMIT_DIR or FS_SUBMIT_SUBDIR; in: any submit type */
void submit_lookup(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
void submit_getattr(struct fs *fs, fuse_req_t req, struct fs_inode *in);
void submit_setattr(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct stat *attr,
		    int to_set, struct fuse_file_info *fi);
/* The entries of a directory of submit/, for opendir's snapshot (dirs.c). */
int submit_list(struct fs *fs, struct fs_inode *dir, struct fs_entry **out, size_t *n);
void submit_mkdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		  mode_t mode);
void submit_create(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		   mode_t mode, struct fuse_file_info *fi);
/* What submit/ has no place for: answered EPERM, and the folder's copy marked failed. */
enum submit_refused { SUBMIT_SYMLINK, SUBMIT_HARDLINK, SUBMIT_SPECIAL };
/* parent/name would be a symbolic link (to target), a hard link or a special file. */
void submit_refuse(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		   enum submit_refused kind, const char *target);
void submit_open(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi);
void submit_read(struct fs *fs, fuse_req_t req, struct fs_inode *in, size_t size, off_t off,
		 struct fuse_file_info *fi);
void submit_write(struct fs *fs, fuse_req_t req, struct fs_inode *in, const char *buf,
		  size_t size, off_t off, struct fuse_file_info *fi);
void submit_flush(struct fs *fs, fuse_req_t req, struct fs_inode *in, struct fuse_file_info *fi);
void submit_release(struct fs *fs, fuse_req_t req, struct fs_inode *in,
		    struct fuse_file_info *fi);
void submit_unlink(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
void submit_rmdir(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name);
void submit_rename(struct fs *fs, fuse_req_t req, struct fs_inode *parent, const char *name,
		   struct fs_inode *newparent, const char *newname, unsigned int flags);
/*
 * Deletes the job of n (FS_JOB_DIR), as `arena delete`, only while it is the one of
 * n's uid, and waits until the cache no longer shows it, all within DELETES_HOLD_MS:
 * 0, -ENOENT (gone already), -EINPROGRESS (no answer yet: the DELETE goes on and
 * info tells how it ends), or the answer's -errno. rmdir and the trash (trash.c).
 */
int submit_delete_job(struct fs *fs, const struct fs_node *n);
/* rmdir jobs/NAME (or namespaces/NS/jobs/NAME): job is the FS_JOB_DIR inode. */
void submit_rmdir_job(struct fs *fs, fuse_req_t req, struct fs_inode *jobs_dir,
		      struct fs_inode *job);

struct submit_made;
struct strbuf;

/* "submit/" or "namespaces/NS/submit/" (check/ with check): where namespace ns'
 * submissions go, for the log. */
void submit_area_path(struct fs *fs, const char *ns, bool check, char *buf, size_t size);
/* check/ENTRY's outcome "checked", with objects (the dry run's answers as YAML) in
 * ENTRY/objects.yaml (submit.c; submit_defer.c for a folder). */
void submit_record_checked(struct staging *st, const char *entry, struct strbuf *objects);
/* ENTRY's status says submitting, and its error what the submission waits for: the
 * API server, since now, until request_timeout at most (submit.c; submit_defer.c). */
void submit_note_waiting(struct fs *fs, struct staging *st, const char *entry);
/* Lets submit/ENTRY/status of st follow the job a submission made (submit.c). */
void submit_note_made(struct fs *fs, struct staging *st, const char *entry,
		      const struct submit_made *made);

#endif
