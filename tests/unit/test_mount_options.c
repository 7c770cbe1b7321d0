/*
 * Tests mount/options.c: the command line as mount(8), fstab and a user write it
 * (docs/arenafs.1): SOURCE as the context, arenafs' -o options taken out, fstab's
 * own words dropped, allow_other bringing default_permissions, sizes of
 * keep_logs, and the one line about a bad command line (exit 1).
 */
#include "mount/options.h"
#include "tests/unit/harness.h"

#include <stdlib.h>
#include <string.h>

/* options_parse over words, the program's name first; the mount point is "/",
 * which exists (libfuse resolves it). */
#define PARSE(o, ...)                                                                              \
	({                                                                                         \
		char *argv_[] = {(char *)"arenafs", __VA_ARGS__, NULL};                            \
		options_parse((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, (o));            \
	})

/* Whether the arguments passed on to libfuse hold one that contains word. */
static bool passed_on(const struct mount_options *o, const char *word)
{
	for (int i = 0; i < o->args.argc; i++)
		if (strstr(o->args.argv[i], word))
			return true;
	return false;
}

TEST(mount_options_of_an_fstab_line)
{
	struct mount_options o;

	/* prod /mnt arenafs namespace=team-a,keep_logs=1G,readonly,allow_other,noauto,... */
	CHECK_INT_EQ(PARSE(&o, (char *)"prod", (char *)"/", (char *)"-o",
			   (char *)"namespace=team-a,keep_logs=1G,readonly,allow_other,noauto,"
				   "_netdev,x-systemd.automount"), 0);
	CHECK_STR_EQ(o.context, "prod");
	CHECK_STR_EQ(o.namespace, "team-a");
	CHECK_STR_EQ(o.cmd.mountpoint, "/");
	CHECK(o.readonly);
	CHECK(o.keep_bytes == 1ull << 30);
	/* allow_other hands the user's rights to everyone: the kernel checks modes */
	CHECK(o.allow_other && passed_on(&o, "default_permissions"));
	/* fstab's words are mount(8)'s and systemd's, not libfuse's */
	CHECK(!passed_on(&o, "noauto") && !passed_on(&o, "_netdev") && !passed_on(&o, "x-systemd"));
	/* arenafs' own options are not passed on either */
	CHECK(!passed_on(&o, "namespace=") && !passed_on(&o, "keep_logs"));
	options_free(&o);
}

TEST(mount_options_source_names_the_context_unless_it_names_none)
{
	struct mount_options o;

	CHECK_INT_EQ(PARSE(&o, (char *)"arenafs", (char *)"/"), 0);
	CHECK(o.context == NULL);
	options_free(&o);
	CHECK_INT_EQ(PARSE(&o, (char *)"none", (char *)"/"), 0);
	CHECK(o.context == NULL);
	options_free(&o);
	/* a path (mount(8) makes SOURCE absolute when such a file exists): the current one */
	CHECK_INT_EQ(PARSE(&o, (char *)"/etc", (char *)"/"), 0);
	CHECK(o.context == NULL);
	options_free(&o);
	/* context= wins over SOURCE */
	CHECK_INT_EQ(PARSE(&o, (char *)"prod", (char *)"/", (char *)"-o", (char *)"context=dev"), 0);
	CHECK_STR_EQ(o.context, "dev");
	options_free(&o);
	/* the mount point alone */
	CHECK_INT_EQ(PARSE(&o, (char *)"/"), 0);
	CHECK(o.context == NULL);
	CHECK_STR_EQ(o.cmd.mountpoint, "/");
	options_free(&o);
}

TEST(mount_options_keep_logs_sizes)
{
	static const struct {
		const char *opt;
		unsigned long long bytes;
	} SIZES[] = {
	    {"keep_logs=256M", 256ull << 20}, {"keep_logs=10KiB", 10240},
	    {"keep_logs=2gb", 2ull << 30},    {"keep_logs=4096", 4096},
	    {"keep_logs=0", 0},               {"keep_logs=off", 0},
	};
	struct mount_options o;

	for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
		CHECK_INT_EQ(PARSE(&o, (char *)"/", (char *)"-o", (char *)SIZES[i].opt), 0);
		CHECK(o.keep_bytes == SIZES[i].bytes);
		/* keeping none: no directory either */
		CHECK(SIZES[i].bytes ? 1 : o.keep_dir == NULL);
		options_free(&o);
	}
	CHECK_INT_EQ(PARSE(&o, (char *)"/"), 0);
	CHECK(o.keep_bytes == FS_KEEP_LOGS_DEFAULT);
	options_free(&o);
}

TEST(mount_options_refuse_a_bad_command_line)
{
	static const char *const BAD[] = {
	    "keep_logs=lots", "keep_logs=1Q", "request_timeout=0", "attr_timeout=-5",
	    "entry_timeout=90000", "log_wait=700000", "max_inodes=-2",
	};
	struct mount_options o;

	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		CHECK_INT_EQ(PARSE(&o, (char *)"/", (char *)"-o", (char *)BAD[i]), -1);
		options_free(&o);
	}
	/* no mount point; three words */
	CHECK_INT_EQ(PARSE(&o, (char *)"-f"), -1);
	options_free(&o);
	CHECK_INT_EQ(PARSE(&o, (char *)"a", (char *)"b", (char *)"/"), -1);
	options_free(&o);
}

TEST(mount_options_reach_the_tree)
{
	struct mount_options o;
	struct fs_options fs;

	CHECK_INT_EQ(PARSE(&o, (char *)"/", (char *)"-o",
			   (char *)"attr_timeout=5,max_inodes=1000,log_wait=250"), 0);
	options_fs(&o, &fs);
	CHECK(fs.attr_timeout == 5.0);
	CHECK(fs.max_inodes == 1000);
	CHECK_INT_EQ(fs.log_wait_ms, 250);
	/* what was not given keeps fs/'s default */
	CHECK(fs.entry_timeout == FS_ENTRY_TIMEOUT_DEFAULT);
	options_free(&o);
}
