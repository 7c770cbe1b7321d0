/*
 * The command line: arenafs [-f] [-d] [-s] [-o OPTS] [SOURCE] MOUNTPOINT, --help,
 * --version. SOURCE is what mount(8) and mount.fuse3 pass first (fstab's first
 * field): the kubeconfig context, unless it is "arenafs", "none" or a path. arenafs' own -o options are taken out (fuse_opt, offsetof table);
 * everything else goes to libfuse, which rejects what it does not know.
 */
#ifndef ARENAFS_MOUNT_OPTIONS_H
#define ARENAFS_MOUNT_OPTIONS_H

#define FUSE_USE_VERSION 314

#include <stdbool.h>

#include <fuse_lowlevel.h>

#include "fs/fs.h"

struct mount_options {
	/* -o options of arenafs (fuse_opt fills them: int flags, char * strings) */
	char *kubeconfig;
	char *context;
	char *namespace;
	char *prometheus;            /* prometheus=URL, or NULL */
	int readonly;
	double attr_timeout;
	double entry_timeout;
	double static_timeout;
	int log_wait_ms;
	long long max_inodes;        /* -1: the default */
	double request_timeout;      /* seconds; -1: the client's default */
	double startup_timeout;      /* seconds start-up waits for the cluster; -1: default */
	char *keep_logs;             /* SIZE as given ("256M", "0"), NULL: the default */
	unsigned long long keep_bytes;  /* keep_logs parsed */
	char *keep_dir;              /* $XDG_CACHE_HOME/arenafs/logs, NULL: none */
	/* libfuse options arenafs needs to know of (they are passed on too) */
	int allow_other;
	int default_permissions;
	int has_fsname;
	int has_subtype;
	/* the words of the command line that are not options: [SOURCE] MOUNTPOINT */
	char *words[3];
	int n_words;

	struct fuse_cmdline_opts cmd;    /* -f, -d, -s, mountpoint, -h, -V, threads */
	struct fuse_args args;           /* what fuse_session_new gets */
};

/*
 * Parses argv. Returns 0 to go on, 1 when --help or --version was answered (exit
 * 0), -1 after printing one line about a bad command line (exit 1).
 */
int options_parse(int argc, char **argv, struct mount_options *o);
/* The fs/ options the command line asked for. */
void options_fs(const struct mount_options *o, struct fs_options *out);
/* The API client's options the command line asked for. */
void options_client(const struct mount_options *o, struct k8s_client_options *out);
/* How long start-up waits for the cluster to answer, in ms (startup_timeout). */
#define STARTUP_TIMEOUT_DEFAULT 30.0
int options_startup_timeout_ms(const struct mount_options *o);
/* Adds subtype=arenafs, fsname=arenafs:CONTEXT (unless given) and ro for readonly. */
int options_add_mount_names(struct mount_options *o, const char *context);
void options_free(struct mount_options *o);

#endif
