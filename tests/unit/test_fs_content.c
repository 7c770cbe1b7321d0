/*
 * Tests of fs/tree/content.c: a file's text made by its row's renderer from the
 * cache (and made again when its object changed, or gone with it), its attributes,
 * the README from the table, and the kernel's timeouts by place.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <string.h>

#include "fs/base/inode.h"
#include "fs/tree/content.h"
#include "tests/unit/fs_fixture.h"

/* jobs/NAME/FILE of the mount's namespace as an inode, pinned (put it). */
static struct fs_inode *job_file(struct fx_fs *x, const char *job, enum job_kind kind,
				 const char *uid, enum fs_type type, const char *name)
{
	struct fs_node n = FS_NODE_INIT;

	n.type = type;
	n.kind = kind;
	n.ns = "default";
	n.job = (char *)job;
	n.uid = (char *)uid;
	n.identity = (char *)uid;
	return inode_table_child(x->fs->inodes, inode_table_root(x->fs->inodes), name, &n, NULL);
}

TEST(fs_content_renders_a_job_file_and_follows_its_job)
{
	struct fx_fs x;
	struct fs_inode *in;
	struct stat st;
	bool changed = false;

	fx_fs_init(&x);
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "u1", 1000);
	in = job_file(&x, "mnist", JOB_TFJOB, "u1", FS_JOB_TYPE, "type");
	CHECK(in != NULL);
	CHECK_INT_EQ(content_refresh(x.fs, in, &changed), 0);
	CHECK(changed);
	inode_lock(in);
	CHECK_INT_EQ(in->text_len, 6);          /* "tfjob\n" */
	CHECK(in->text && memcmp(in->text->data, "tfjob\n", 6) == 0);
	inode_unlock(in);
	CHECK_INT_EQ(content_refresh(x.fs, in, &changed), 0);
	CHECK(!changed);                        /* nothing changed in the cache */
	CHECK_INT_EQ(content_stat(x.fs, in, &st), 0);
	CHECK_INT_EQ(st.st_size, 6);
	CHECK_INT_EQ(st.st_mode, S_IFREG | 0444);
	CHECK_INT_EQ(st.st_mtim.tv_sec, 1000);  /* the job's creation */
	/* the job made again under the same name: this inode's job is gone */
	fx_fs_job(&x, "default", JOB_TFJOB, "mnist", "u2", 2000);
	CHECK_INT_EQ(content_refresh(x.fs, in, &changed), -ENOENT);
	inode_table_put(x.fs->inodes, in);
	fx_fs_free(&x);
}

TEST(fs_content_readme_lists_the_table)
{
	struct fx_fs x;
	struct fs_inode *in;
	struct fs_node n = FS_NODE_INIT;
	bool changed;

	fx_fs_init(&x);
	n.type = FS_README;
	n.identity = "";
	in = inode_table_child(x.fs->inodes, inode_table_root(x.fs->inodes), "README", &n, NULL);
	CHECK(in != NULL);
	inode_lock(in);
	CHECK_INT_EQ(content_refresh_locked(x.fs, in, true, &changed), 0);
	CHECK(in->text != NULL);
	CHECK(in->text && strstr(in->text->data, "  jobs/NAME/status ") != NULL);
	CHECK(in->text && strstr(in->text->data, "  jobs/NAME/instances/POD/ ") != NULL);
	inode_unlock(in);
	inode_table_put(x.fs->inodes, in);
	fx_fs_free(&x);
}

TEST(fs_content_timeouts_by_place)
{
	struct fx_fs x;
	struct stat st;

	fx_fs_init(&x);
	/* a fixed skeleton, a listing that changes, a file of ages, a plain file */
	CHECK(content_attr_timeout(x.fs, FS_ROOT) == x.fs->opts.static_timeout);
	CHECK(content_attr_timeout(x.fs, FS_JOBS_DIR) == x.fs->opts.entry_timeout);
	CHECK(content_attr_timeout(x.fs, FS_JOB_INFO) == FS_AGES_TIMEOUT);
	CHECK(content_attr_timeout(x.fs, FS_JOB_STATUS) == x.fs->opts.attr_timeout);
	content_stat_static(x.fs, FS_JOB_DIR, &st);
	CHECK_INT_EQ(st.st_mode, S_IFDIR | 0555);
	content_stat_static(x.fs, FS_README, &st);
	CHECK_INT_EQ(st.st_mode, S_IFREG | 0444);
	fx_fs_free(&x);
}
