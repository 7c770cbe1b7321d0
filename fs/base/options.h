/*
 * The options of a mount (struct fs_options) and their defaults: mount/ fills
 * them (mount/options.c, the man page docs/arenafs.1), fs_new() copies them into
 * struct fs, and every sub-room of fs/ reads them there. Plain data.
 */
#ifndef ARENAFS_FS_BASE_OPTIONS_H
#define ARENAFS_FS_BASE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Defaults of struct fs_options (the man page docs/arenafs.1 documents them). */
/* The notifier tells the kernel of every change as it happens; these are its
 * safety net. Once they expire, a file read again costs a LOOKUP and a GETATTR
 * more: reading the status of 10,000 jobs twice a few seconds apart made 58k
 * requests the second time with 1 s, 20k with 30 s. */
#define FS_ATTR_TIMEOUT_DEFAULT 30.0     /* files */
#define FS_ENTRY_TIMEOUT_DEFAULT 30.0    /* names that come and go: jobs, pods, nodes */
#define FS_AGES_TIMEOUT 1.0              /* attributes of files that show ages: they change
                                            with the clock alone, which no notice tells */
#define FS_NEGATIVE_TIMEOUT 1.0          /* a name that may appear (tensorboard_url) */
#define FS_STATIC_TIMEOUT_DEFAULT 60.0   /* the fixed skeleton: README, cluster/, jobs/, ... */
#define FS_LOG_WAIT_MS_DEFAULT 2000      /* open() of a log waits this long for its first bytes */
#define FS_MAX_INODES_DEFAULT 32768      /* inodes kept for the kernel beyond those in use (inode.h) */
/* Bytes of terminated containers' logs kept on disk (docs/tree.md, "Logs kept after
 * their pods"): a few hundred training logs of a MiB, a small part of a disk. */
#define FS_KEEP_LOGS_DEFAULT (256ull << 20)

struct fs_options {
	double attr_timeout;
	double entry_timeout;
	double static_timeout;
	int log_wait_ms;
	size_t max_inodes;           /* 0: no limit */
	bool readonly;               /* no submitting or deleting: EROFS */
	bool allow_other;            /* then only the mounting uid may change anything */
	uint64_t keep_logs;          /* bytes of logs kept on disk; 0: none kept */
	const char *keep_dir;        /* where (…/arenafs/logs); NULL: none kept */
	const char *prometheus_url;  /* prometheus=URL: where GPU figures are asked; NULL: the
	                                Service Arena looks for (k8s/api/prometheus.h) */
};

#endif
