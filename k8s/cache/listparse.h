/*
 * The list body parser: the body of a LIST response (a PodList, a TFJobList...),
 * fed in whatever chunks the network delivers, cut into its items as they arrive.
 * A page is so decoded while it downloads, and never held whole: neither its bytes
 * nor its JSON tree, only one item's at a time (a page of 500 pods is 1.6 MB of
 * JSON and about 10 MB as one jansson tree).
 *
 * The API server writes {"kind":...,"apiVersion":...,"metadata":{...},"items":[...]}.
 * Each element of the top-level "items" array is parsed on its own (jansson) and
 * handed to the callback; the rest of the body, with the items array left empty,
 * is kept (a few hundred bytes) and parsed when the body ends: the list's
 * metadata (resourceVersion, continue). Members may come in any order; a body
 * that spells "items" with escapes is still read right, its items then coming
 * from that rest when the body ends.
 *
 * Pure (no I/O, no locks); one parser per response. Used by reflector.c.
 */
#ifndef ARENAFS_K8S_LISTPARSE_H
#define ARENAFS_K8S_LISTPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "k8s/error.h"

/* One item is one object: the API server refuses objects over 1.5 MiB in etcd. */
#define LISTPARSE_ITEM_MAX (16u << 20)
/* Everything but the items: kind, apiVersion, metadata. */
#define LISTPARSE_REST_MAX (1u << 20)

/* Called for each item, in order; item is borrowed (valid during the call only).
 * A non-zero return stops the parser and is returned by listparse_feed(). */
typedef int (*list_item_fn)(void *arg, json_t *item);
/* Called, when set (listparse_on_oversize), for an item over LISTPARSE_ITEM_MAX
 * instead of failing the list: its first bytes (at most OVERSIZE_PREFIX, oversize.h)
 * and its whole size. The item is skipped; a non-zero return stops the parser. */
typedef int (*list_oversize_fn)(void *arg, const char *prefix, size_t len, size_t bytes);

/* Where the parser is in the body (listparse.c). */
enum listparse_state {
	LP_OPEN,        /* before the body's '{' */
	LP_FIRST_KEY,   /* after '{': a key or '}' */
	LP_NEXT_KEY,    /* after ',': a key */
	LP_KEY,         /* inside a key */
	LP_COLON,       /* after a key */
	LP_VALUE,       /* after ':' */
	LP_SKIP,        /* inside a value other than the items */
	LP_AFTER_VALUE, /* ',' or '}' */
	LP_ITEMS_FIRST, /* after "items":[ : an item or ']' */
	LP_ITEMS_NEXT,  /* after an item: ',' or ']' */
	LP_ITEM_START,  /* after ',' in the items: an item */
	LP_ITEM,        /* inside an item */
	LP_END,         /* after the body's '}': white space only */
	LP_FAILED,
};

/* The extent of one JSON value being read: nesting and string state. */
struct listparse_scan {
	unsigned depth;
	bool in_str, esc, scalar;
};

/* A growing byte buffer of the parser. */
struct listparse_buf {
	char *data;
	size_t len, cap;
};

struct list_parser {
	list_item_fn fn;
	void *arg;
	size_t max_body;             /* 0: no limit */
	size_t body;                 /* bytes fed so far */
	enum listparse_state state;
	struct listparse_scan scan;
	char key[8];                 /* the start of the current key, to tell "items" */
	size_t key_len;
	bool key_escaped;
	struct listparse_buf item;   /* an item begun in an earlier chunk */
	size_t item_bytes;           /* of the item read now, kept or not */
	bool item_over;              /* it is over the limit: only its start is kept */
	list_oversize_fn on_oversize; /* NULL: an item over the limit fails the list */
	struct listparse_buf rest;   /* the body but for its items */
	size_t items;                /* items delivered so far */
};

/* max_body 0: any size. fn is called with arg for every item. */
void listparse_init(struct list_parser *p, size_t max_body, list_item_fn fn, void *arg);
void listparse_free(struct list_parser *p);
/* Items over the limit are skipped and handed to fn (with the parser's arg). */
void listparse_on_oversize(struct list_parser *p, list_oversize_fn fn);

/*
 * Feeds len bytes; calls fn for every item they complete. Returns 0, fn's non-zero
 * return, or with err filled -EPROTO (not a JSON object of that shape, or an item
 * that is not JSON), -EFBIG (over max_body), -E2BIG (an item, or the rest, over
 * its limit) or -ENOMEM. After an error the parser only fails.
 */
int listparse_feed(struct list_parser *p, const char *data, size_t len, struct k8s_error *err);

/*
 * The body ended. Returns 0 and in *rest (the caller json_decref()s it) the list
 * without its items: {"kind":..., "metadata":{...}, "items":[]}; or -EPROTO (the
 * body ended early, or its rest is not JSON), fn's non-zero return, or -ENOMEM.
 */
int listparse_finish(struct list_parser *p, json_t **rest, struct k8s_error *err);

#endif
