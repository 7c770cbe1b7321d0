/*
 * The inode table: the kernel's inode numbers and what they stand for.
 *
 * An inode is found by (parent inode, name) and carries the node it shows. The
 * same path keeps its inode while the object behind it lives (same identity, see
 * node.h); when a lookup finds another identity at a path (a re-created job, a
 * restarted container), the old inode is unmapped — it lives on for the kernel
 * until forgotten — and a new one is made. A number stands for one (path, object):
 * it is derived from them, so the kernel gets the same number back after it forgot
 * the inode, and never one that is in use for something else.
 *
 * Lifetime: the kernel's lookup count (nlookup, FUSE's lookup/forget protocol)
 * plus pins taken by code that holds an inode for a while (a request, an open
 * log stream, the notifier). An inode is freed when both are zero; a child pins
 * its parent. The root (ino 1) is never freed.
 *
 * The kernel keeps every inode it was told of until memory runs short, and a walk
 * of the tree (find, rsync, a file browser) tells it of hundreds of thousands.
 * So the table keeps the inodes the kernel knows but nothing here holds (no pin)
 * on an idle list, least recently used first, and beyond a limit hands the oldest
 * out to be forgotten: the notifier invalidates their entries, the kernel drops
 * them and sends FORGET, and they are freed. Used again, a name is looked up
 * again and gets the same number. A directory is pinned by its children, so
 * leaves go first.
 *
 * Each inode may be registered under an object key ("job/NS/KIND/NAME",
 * "pod/NS/NAME", "node/NAME", "cluster"): the notifier finds the inodes a cache
 * change affects there, without scanning the table.
 *
 * Locks: the table's mutex guards the maps, nlookup, pins and mapped; it is never
 * held while calling out. inode_lock(in) guards the content fields (marked below);
 * it may be held while taking the cache's read lock, never the other way round.
 * Inodes share a fixed set of mutexes, picked by address (a walk keeps tens of
 * thousands of inodes, and a mutex each took 40 of their 336 bytes), so a thread
 * never holds two inodes' locks at once: the two may be one mutex.
 */
#ifndef ARENAFS_FS_INODE_H
#define ARENAFS_FS_INODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/base/node.h"

/* An immutable rendered text, shared by the inode and the open handles. */
struct fs_text {
	atomic_uint refs;
	size_t len;
	char data[];
};

/* A new text holding a copy of data (NUL-terminated too), refs = 1; NULL on ENOMEM. */
struct fs_text *fs_text_new(const char *data, size_t len);
struct fs_text *fs_text_get(struct fs_text *t);
void fs_text_put(struct fs_text *t);

struct say;                   /* logfile.c */
struct report_history;        /* fs/tree/reports.h */

struct fs_inode {
	/* set once, when made (under the table's mutex, before it is reachable) */
	uint64_t ino;
	struct fs_inode *parent;     /* pinned by this inode; NULL for the root */
	char *name;                  /* its name in parent ("" for the root); changed only by
	                                inode_table_rename, under the table's mutex */
	char *objkey;                /* object key it is registered under, or NULL */
	struct fs_node node;         /* immutable after creation; its strings in strings[],
	                                or the parent's where equal (inode_alloc) */

	/* guarded by the table's mutex: a leaf (taken under an inode's lock or the
	 * cache's read lock, it takes nothing and calls nothing out) */
	uint64_t nlookup;
	struct fs_inode *ino_next, *key_next, *obj_prev, *obj_next;
	struct fs_inode *idle_prev, *idle_next;
	unsigned pins;
	bool mapped;                 /* reachable by (parent, name) */
	bool name_owned;             /* name was malloc'd by a rename, not in strings[] */
	bool idle;                   /* on the idle list */
	bool evicting;               /* its entry was given to be invalidated; not used since */

	/* guarded by inode_lock(in), which must be acquired *before* the cache's read
	 * lock, never after it, and never with another inode's lock held (they may be
	 * one mutex). The small fields last: a walk keeps tens of thousands of inodes,
	 * and padding between them would cost as much as a string. */
	struct fs_text *text;        /* last rendered text while kept (content_refresh), or NULL */
	size_t text_len;             /* of the last rendered text, kept or not */
	union {
		uint64_t text_hash;
		uint64_t listing_hash;  /* a directory: of the listing the kernel may cache */
	};
	uint64_t text_gen;           /* cache generation the text was rendered at */
	int64_t mtime;               /* when the text last changed (Unix seconds) */
	uint64_t version;            /* bumped whenever the text changes */
	uint64_t kernel_version;     /* version whose pages the kernel may cache; 0: none */
	uint64_t cached_version;     /* the version all cached_opens read */
	uint64_t reported_size;      /* st_size last sent to the kernel */
	struct say *log;          /* log files' state, NULL before the first open */
	struct report_history *reports; /* a PLACE_GROWS file's points shown (reports.h),
	                                   or NULL */
	struct dir_listing *listing; /* a directory, with no opendir: the listing a reader
	                                is paging through (dirs.c), or NULL */
	unsigned cached_opens;       /* open handles reading through the page cache */
	unsigned extras;             /* a directory's names that come and go which exist
	                                (model_extras: job dir code, tensorboard_url; pod
	                                dir logs.previous) */
	bool rendered;               /* text_len, text_hash and text_gen are set; a
	                                directory: listing_hash is */
	bool reported;               /* reported_size is set */
	bool extras_known;           /* extras was set */
	bool log_queued;             /* NOT inode_lock's: guarded by the notifier's mutex
	                                (notify.c's w.mu, a leaf), as the two below; here
	                                for the padding */

	/* guarded by the notifier's mutex (notify.c): log growth notices */
	uint64_t log_seq;            /* appends reported */
	uint64_t log_sent;           /* appends the kernel has been told of */

	char strings[];              /* name, objkey and node's strings, one allocation */
};

/* The lock of in's content fields: one of a fixed set of mutexes (see Locks). */
void inode_lock(const struct fs_inode *in);
void inode_unlock(const struct fs_inode *in);
/* Whether in's lock is held (by some thread): for asserts (k8s/base/invariant.h). */
bool inode_lock_held(const struct fs_inode *in);

struct inode_table;

/* on_free (may be NULL) is called for every inode freed, before its memory goes. */
struct inode_table *inode_table_new(void (*on_free)(struct fs_inode *in));
/* Frees every inode (at unmount, when the kernel can no longer use them). */
void inode_table_free(struct inode_table *t);

/* The root inode (ino 1), pinned. */
struct fs_inode *inode_table_root(struct inode_table *t);
/* The inode with that number, pinned, or NULL. */
struct fs_inode *inode_table_get(struct inode_table *t, uint64_t ino);
void inode_table_pin(struct inode_table *t, struct fs_inode *in);
void inode_table_put(struct inode_table *t, struct fs_inode *in);

/*
 * The child of parent called name standing for node, pinned. A mapped child with
 * the same identity is returned as it is; one with another identity is unmapped
 * and a new inode made. name, node and objkey (may be NULL) are copied. NULL on
 * ENOMEM.
 */
struct fs_inode *inode_table_child(struct inode_table *t, struct fs_inode *parent,
				   const char *name, const struct fs_node *node, const char *objkey);
/* The mapped child of parent called name, pinned, or NULL. */
struct fs_inode *inode_table_find(struct inode_table *t, struct fs_inode *parent,
				  const char *name);
/*
 * The number parent/name standing for node has, or would get if looked up now:
 * readdir's d_ino for a name the kernel has not looked up, so that `ls -i`, find
 * and rsync see the st_ino a later stat gives (a rare collision aside, which
 * derive_ino resolves only when the inode is made). Makes nothing.
 */
uint64_t inode_table_number(struct inode_table *t, struct fs_inode *parent, const char *name,
			    const struct fs_node *node);
bool inode_table_is_mapped(struct inode_table *t, struct fs_inode *in);
/* Makes in unreachable by name (its path now means something else or nothing). */
void inode_table_unmap(struct inode_table *t, struct fs_inode *in);

/*
 * Moves in to (newparent, newname), after the kernel renamed it (only submit/'s
 * entries can be renamed). Whatever was mapped there is unmapped, as rename(2)
 * replaces it. 0 or -ENOMEM (nothing changed).
 */
int inode_table_rename(struct inode_table *t, struct fs_inode *in, struct fs_inode *newparent,
		       const char *newname);

/* The kernel learned of in n more times (a lookup or readdirplus reply). */
void inode_table_ref(struct inode_table *t, struct fs_inode *in, uint64_t n);
/* The kernel forgets n lookups of ino. Unknown inode numbers are ignored. */
void inode_table_forget(struct inode_table *t, uint64_t ino, uint64_t n);

/* Pinned inodes registered under objkey; *out is malloc'd (caller frees the array and
 * puts each inode). Returns the count; 0 with *out NULL when none or on ENOMEM. */
size_t inode_table_by_object(struct inode_table *t, const char *objkey, struct fs_inode ***out);
/* Pinned inodes whose node type satisfies want[type]; as above. */
size_t inode_table_by_type(struct inode_table *t, const bool want[FS_TYPE_COUNT],
			   struct fs_inode ***out);
/*
 * Keeps about limit inodes (0: no limit): beyond it, inode_table_evict hands out the
 * idle ones. over (may be NULL) is called, without the table's lock, every few
 * hundred inodes made beyond the limit: time to evict.
 */
void inode_table_set_limit(struct inode_table *t, size_t limit, void (*over)(void *arg),
			   void *arg);

/* An entry to invalidate so that the kernel forgets its inode. */
struct inode_evict {
	uint64_t parent;             /* the parent's number */
	char *name;
	enum fs_type type;
};

/* Up to max least recently used idle inodes beyond the limit, taken off the idle
 * list (they return when used again); *out malloc'd, free with inode_table_evict_free.
 * Returns the count; 0 with *out NULL when none are over or on ENOMEM. */
size_t inode_table_evict(struct inode_table *t, size_t max, struct inode_evict **out);
void inode_table_evict_free(struct inode_evict *ev, size_t n);

/* Inodes in the table (for statfs and tests). */
size_t inode_table_count(struct inode_table *t);

#endif
