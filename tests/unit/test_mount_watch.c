/*
 * Tests mount/watch.c's reading of /proc/self/mountinfo where no FUSE file system
 * is mounted: /proc (always proc) is no FUSE mount, so nothing is watched there and
 * start-up's check of a mount point already in use (watch_fuse_mounted_at) says
 * no. The watch of a real mount going away (umount -l) is tested through a mount:
 * tests/integration/test_tree_logs.py, test_lazy_unmount_while_tail_f_holds_a_log_...
 */
#include "mount/watch.h"
#include "tests/unit/harness.h"

#include <errno.h>

TEST(mount_watch_finds_no_fuse_mount_where_there_is_none)
{
	struct mount_watch *w = (struct mount_watch *)&w;

	CHECK(!watch_fuse_mounted_at("/proc"));
	CHECK(!watch_fuse_mounted_at("/no/such/mount/point"));
	CHECK_INT_EQ(watch_start("/proc", &w), -ENOENT);
	CHECK(w == NULL);
	/* not watching: the mount counts as attached, and stopping nothing is harmless */
	CHECK(watch_mounted(NULL));
	watch_stop(NULL);
}
