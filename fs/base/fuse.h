/*
 * The one libfuse API version fs/ is written for (3.14's low-level API): every
 * file of fs/ that sees libfuse includes it through here, so none can define
 * another version before it.
 */
#ifndef ARENAFS_FS_BASE_FUSE_H
#define ARENAFS_FS_BASE_FUSE_H

#define FUSE_USE_VERSION 314

#include <fuse_lowlevel.h>

#endif
