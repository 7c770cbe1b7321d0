/*
 * The index of the kept logs (logkeep.c): which container instances have a copy
 * on disk, how large, and in which order they were last used, so that the
 * least recently used go first once the copies outgrow their budget
 * (keep_logs=SIZE) or their count. Memory only: no I/O and no lock, logkeep.c
 * holds its mutex around every call and deletes the files of what is dropped.
 *
 * An entry is found by its key, the copy's path below the cluster's directory
 * ("NS/JOB/POD/CONTAINER.N", N the instance's restartCount), in a hash table, and a job's entries by the job's uid
 * in a second one (a listing of instances/ asks for them); the LRU order is a
 * doubly-linked list, newest first. Tested by tests/unit/test_fs_logkeep_index.c.
 */
#ifndef ARENAFS_FS_LOGKEEP_INDEX_H
#define ARENAFS_FS_LOGKEEP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What is known of one kept log (its meta file, logkeep.c). Strings are the entry's. */
struct logkeep_meta {
	char *ns, *job, *pod, *container;
	int kind;                    /* enum job_kind of the job */
	char *job_uid, *pod_uid;
	int instance;                /* the container's restartCount when it terminated */
	int64_t finished;            /* its finishedAt (Unix seconds), 0 unknown */
	bool main;                   /* the job's main instance then (jobs/NAME/logs) */
	/* how the instance ended (its containerStatus' terminated state): an attempt's info */
	int64_t started;             /* startedAt, 0 unknown */
	int exit_code;
	char reason[40];             /* Error, OOMKilled, Completed, ... or "" */
};

struct logkeep_entry {
	char *key;                   /* "NS/JOB/POD/CONTAINER.N" */
	uint64_t size;               /* bytes of the log */
	struct logkeep_meta meta;
	/* In the index of dropped copies (logkeep.c) only: when the copy went, and why:
	 * 0 for the budget (the least recently used out), EFBIG for a log larger than
	 * keep_logs, never written. 0 in the index of copies kept. */
	int64_t dropped;
	int dropped_why;
	struct logkeep_entry *newer, *older;   /* LRU list */
	struct logkeep_entry *hnext;           /* hash chain by key */
	struct logkeep_entry *jnext;           /* hash chain by job uid */
};

struct logkeep_index {
	uint64_t budget;             /* bytes the logs may take */
	size_t max_entries;          /* logs that may be kept */
	uint64_t total;              /* bytes of the logs kept */
	size_t n;
	struct logkeep_entry *newest, *oldest;
	struct logkeep_entry **buckets;        /* by key */
	struct logkeep_entry **jbuckets;       /* by job uid */
	size_t nbuckets;
};

/* -ENOMEM */
int logkeep_index_init(struct logkeep_index *x, uint64_t budget, size_t max_entries);
/* Frees every entry (nothing on disk is touched). */
void logkeep_index_clear(struct logkeep_index *x);

/* A new entry with a copy of meta and the key; NULL on ENOMEM. */
struct logkeep_entry *logkeep_entry_new(const char *key, const struct logkeep_meta *meta,
					uint64_t size);
void logkeep_entry_free(struct logkeep_entry *e);

struct logkeep_entry *logkeep_index_find(struct logkeep_index *x, const char *key);
/* The first entry whose job uid is job_uid (the others follow through ->jnext, mixed
 * with other jobs' whose uids share the chain: compare each). */
struct logkeep_entry *logkeep_index_job_chain(struct logkeep_index *x, const char *job_uid);
/* Marks e used now: it becomes the newest. */
void logkeep_index_touch(struct logkeep_index *x, struct logkeep_entry *e);

/*
 * Adds e as the newest (an entry of the same key is freed: its copy was
 * overwritten), then drops the oldest others while the total passes the budget or
 * the count passes max_entries. The dropped entries are handed back in *dropped,
 * linked through ->older, for the caller to delete and free. -EFBIG (nothing
 * changed) when e alone is larger than the budget.
 */
int logkeep_index_put(struct logkeep_index *x, struct logkeep_entry *e,
		      struct logkeep_entry **dropped);
/* Drops the least recently used entries (handed back in *dropped, as put does) until
 * room more bytes fit in the budget: room is made on disk before a copy is written
 * there, not after. false (nothing dropped) when room alone passes the budget. */
bool logkeep_index_make_room(struct logkeep_index *x, uint64_t room,
			     struct logkeep_entry **dropped);
/* Takes e out of the index (not freed). */
void logkeep_index_remove(struct logkeep_index *x, struct logkeep_entry *e);

#endif
