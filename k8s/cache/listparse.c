/*
 * List body parser (see listparse.h): a small state machine over the body's top
 * level that finds where each item of "items" begins and ends, without decoding
 * it; jansson then decodes one item at a time.
 *
 * The scan only tracks strings and nesting, so it never judges an item's syntax:
 * jansson does, and a broken item fails the list (-EPROTO) as a broken body did
 * when the whole page went to jansson at once. Items that arrive whole inside
 * one chunk are parsed straight from it; only an item cut by a chunk's end is
 * copied, so the cost is one pass over the bytes plus jansson's.
 */
#include "k8s/cache/listparse.h"
#include "k8s/cache/oversize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum scan_result { SCAN_MORE, SCAN_ENDS_WITH, SCAN_ENDS_BEFORE };

void listparse_init(struct list_parser *p, size_t max_body, list_item_fn fn, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->arg = arg;
	p->max_body = max_body;
	p->state = LP_OPEN;
}

void listparse_on_oversize(struct list_parser *p, list_oversize_fn fn)
{
	p->on_oversize = fn;
}

void listparse_free(struct list_parser *p)
{
	free(p->item.data);
	free(p->rest.data);
	memset(&p->item, 0, sizeof(p->item));
	memset(&p->rest, 0, sizeof(p->rest));
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool in_items(enum listparse_state s)
{
	return s == LP_ITEMS_FIRST || s == LP_ITEMS_NEXT || s == LP_ITEM_START || s == LP_ITEM;
}

static int failed(struct list_parser *p, int rc)
{
	p->state = LP_FAILED;
	return rc;
}

/* Appends to b, which may hold max bytes: what is over it fails with E2BIG and the
 * message naming what (b is the item or the rest). */
static int keep(struct list_parser *p, struct listparse_buf *b, size_t max, const char *what,
                const char *data, size_t n, struct k8s_error *err)
{
	size_t need = b->len + n;
	char *nb;

	if (n > max - b->len)
		return failed(p, k8s_error_set(err, E2BIG, "%s is longer than %zu bytes (the limit)",
		                               what, max));
	if (need > b->cap) {
		size_t c = b->cap ? b->cap : 4096;

		while (c < need)
			c *= 2;
		nb = realloc(b->data, c);
		if (!nb)
			return failed(p, k8s_error_set(err, ENOMEM, "out of memory reading a list"));
		b->data = nb;
		b->cap = c;
	}
	if (n) /* nothing to keep may come with a NULL buffer, which memcpy may not get */
		memcpy(b->data + b->len, data, n);
	b->len = need;
	return 0;
}

/* Keeps more of the item read now: all of it up to the limit; past the limit, when
 * oversize items are skipped, only its first OVERSIZE_PREFIX bytes. */
static int keep_item(struct list_parser *p, const char *data, size_t n, struct k8s_error *err)
{
	size_t room;

	p->item_bytes += n;
	if (!p->item_over && p->on_oversize && n > LISTPARSE_ITEM_MAX - p->item.len) {
		p->item_over = true;
		if (p->item.len > OVERSIZE_PREFIX)
			p->item.len = OVERSIZE_PREFIX;
	}
	if (!p->item_over)
		return keep(p, &p->item, LISTPARSE_ITEM_MAX, "an item of the list", data, n, err);
	room = OVERSIZE_PREFIX - p->item.len;
	return keep(p, &p->item, OVERSIZE_PREFIX, "an item of the list", data,
	            n < room ? n : room, err);
}

/* The item read now was over the limit: handed to on_oversize, and forgotten. */
static int skip_oversize(struct list_parser *p, const char *data, size_t n)
{
	int rc = p->on_oversize(p->arg, data, n, p->item_bytes);

	p->item_over = false;
	p->item_bytes = 0;
	p->item.len = 0;
	if (p->item.cap > OVERSIZE_PREFIX) {
		/* a 16 MiB buffer is not kept for the next item */
		free(p->item.data);
		p->item.data = NULL;
		p->item.cap = 0;
	}
	return rc ? failed(p, rc) : 0;
}

static int keep_rest(struct list_parser *p, const char *data, size_t n, struct k8s_error *err)
{
	return keep(p, &p->rest, LISTPARSE_REST_MAX, "the list without its items", data, n, err);
}

/* Parses one item (JSON_DECODE_ANY: a stray scalar reaches the callback, which
 * skips it, as it did when the whole page was parsed) and hands it over. */
static int deliver(struct list_parser *p, const char *data, size_t n, struct k8s_error *err)
{
	json_error_t jerr;
	json_t *item;
	int rc;

	if (p->item.len || p->item_over) {
		rc = keep_item(p, data, n, err);
		if (rc)
			return rc;
		data = p->item.data;
		n = p->item.len;
	} else if (n > LISTPARSE_ITEM_MAX) {
		rc = keep_item(p, data, n, err); /* fails with the size's message, or skips */
		if (rc)
			return rc;
		p->item.len = 0;
		return skip_oversize(p, data, OVERSIZE_PREFIX);
	}
	if (p->item_over)
		return skip_oversize(p, data, n);
	p->item_bytes = 0;
	item = json_loadb(data, n, JSON_DECODE_ANY, &jerr);
	p->item.len = 0;
	if (!item)
		return failed(p, k8s_error_set(err, EPROTO, "item %zu of the list is not JSON: %s",
		                               p->items + 1, jerr.text));
	p->items++;
	rc = p->fn(p->arg, item);
	json_decref(item);
	return rc ? failed(p, rc) : 0;
}

/* The first byte of a value: an object or array nests, a string runs to its quote,
 * anything else is a scalar that runs to the next delimiter. */
static void scan_start(struct listparse_scan *s, char c)
{
	memset(s, 0, sizeof(*s));
	if (c == '{' || c == '[')
		s->depth = 1;
	else if (c == '"')
		s->in_str = true;
	else
		s->scalar = true;
}

/*
 * Follows a value from d[i]: returns where the scan stopped and in *how whether the
 * value ended there (SCAN_ENDS_WITH: the byte before is its last; SCAN_ENDS_BEFORE:
 * a scalar, ended by the delimiter at the returned index) or runs on (SCAN_MORE).
 */
static size_t scan(struct listparse_scan *s, const char *d, size_t i, size_t len,
                   enum scan_result *how)
{
	*how = SCAN_MORE;
	while (i < len) {
		char c = d[i];

		if (s->in_str) {
			const char *q, *bs;

			if (s->esc) {
				s->esc = false;
				i++;
				continue;
			}
			/* most of a body is inside strings: find the next quote, then whether a
			 * backslash comes before it (memchr is many bytes a step) */
			q = memchr(d + i, '"', len - i);
			bs = memchr(d + i, '\\', (size_t)((q ? q : d + len) - (d + i)));
			if (bs) {
				s->esc = true;
				i = (size_t)(bs - d) + 1;
				continue;
			}
			if (!q)
				break;
			i = (size_t)(q - d) + 1;
			s->in_str = false;
			if (s->depth == 0) {
				*how = SCAN_ENDS_WITH;
				return i;
			}
			continue;
		}
		if (s->scalar) {
			if (c == ',' || c == '}' || c == ']' || is_ws(c)) {
				*how = SCAN_ENDS_BEFORE;
				return i;
			}
			i++;
			continue;
		}
		i++;
		if (c == '"') {
			s->in_str = true;
		} else if (c == '{' || c == '[') {
			s->depth++;
		} else if ((c == '}' || c == ']') && --s->depth == 0) {
			*how = SCAN_ENDS_WITH;
			return i;
		}
	}
	return len;
}

static bool key_is_items(const struct list_parser *p)
{
	return !p->key_escaped && p->key_len == 5 && memcmp(p->key, "items", 5) == 0;
}

static int syntax(struct list_parser *p, struct k8s_error *err, const char *what, char c)
{
	return failed(p, k8s_error_set(err, EPROTO, "not a JSON list: %s, found '%c'", what,
	                               c >= 0x20 && c < 0x7f ? c : '?'));
}

/* One byte of the top level (outside any value): returns 0 or an error. */
static int top_byte(struct list_parser *p, char c, struct k8s_error *err)
{
	switch (p->state) {
	case LP_OPEN:
		if (c != '{')
			return syntax(p, err, "expected '{'", c);
		p->state = LP_FIRST_KEY;
		return 0;
	case LP_FIRST_KEY:
	case LP_NEXT_KEY:
		if (c == '}' && p->state == LP_FIRST_KEY) {
			p->state = LP_END;
			return 0;
		}
		if (c != '"')
			return syntax(p, err, "expected a key", c);
		p->key_len = 0;
		p->key_escaped = false;
		memset(&p->scan, 0, sizeof(p->scan));
		p->state = LP_KEY;
		return 0;
	case LP_KEY:
		if (p->scan.esc) {
			p->scan.esc = false;
		} else if (c == '\\') {
			p->scan.esc = p->key_escaped = true;
		} else if (c == '"') {
			p->state = LP_COLON;
			return 0;
		}
		if (p->key_len < sizeof(p->key))
			p->key[p->key_len] = c;
		p->key_len++;
		return 0;
	case LP_COLON:
		if (c != ':')
			return syntax(p, err, "expected ':'", c);
		p->state = LP_VALUE;
		return 0;
	case LP_AFTER_VALUE:
		if (c == ',')
			p->state = LP_NEXT_KEY;
		else if (c == '}')
			p->state = LP_END;
		else
			return syntax(p, err, "expected ',' or '}'", c);
		return 0;
	case LP_END:
		return syntax(p, err, "data after the list", c);
	default:
		return syntax(p, err, "internal state", c);
	}
}

int listparse_feed(struct list_parser *p, const char *d, size_t len, struct k8s_error *err)
{
	size_t i = 0, rest_from = 0, item_from = 0;
	enum scan_result how;
	int rc;

	if (p->state == LP_FAILED)
		return k8s_error_set(err, EPROTO, "the list was broken off before");
	if (p->max_body && len > p->max_body - p->body)
		return failed(p, k8s_error_set(err, EFBIG, "the list is larger than %zu MiB",
		                               p->max_body >> 20));
	p->body += len;
	while (i < len) {
		char c = d[i];

		switch (p->state) {
		case LP_VALUE:
			if (is_ws(c)) {
				i++;
			} else if (c == '[' && key_is_items(p)) {
				/* the rest keeps "items":[ and, later, the closing ']' */
				rc = keep_rest(p, d + rest_from, i + 1 - rest_from, err);
				if (rc)
					return rc;
				p->state = LP_ITEMS_FIRST;
				i++;
			} else {
				scan_start(&p->scan, c);
				p->state = LP_SKIP;
				i++;
			}
			break;
		case LP_SKIP:
			i = scan(&p->scan, d, i, len, &how);
			if (how != SCAN_MORE)
				p->state = LP_AFTER_VALUE;
			break;
		case LP_ITEMS_FIRST:
		case LP_ITEMS_NEXT:
		case LP_ITEM_START:
			if (is_ws(c)) {
				i++;
			} else if (c == ']' && p->state != LP_ITEM_START) {
				rest_from = i++;
				p->state = LP_AFTER_VALUE;
			} else if (c == ',' && p->state == LP_ITEMS_NEXT) {
				p->state = LP_ITEM_START;
				i++;
			} else if (p->state == LP_ITEMS_NEXT) {
				return syntax(p, err, "expected ',' or ']' after an item", c);
			} else {
				item_from = i++;
				scan_start(&p->scan, c);
				p->state = LP_ITEM;
			}
			break;
		case LP_ITEM:
			i = scan(&p->scan, d, i, len, &how);
			if (how == SCAN_MORE)
				break;
			rc = deliver(p, d + item_from, i - item_from, err);
			if (rc)
				return rc;
			p->state = LP_ITEMS_NEXT;
			break;
		default:
			if (is_ws(c) && p->state != LP_KEY) {
				i++;
				break;
			}
			rc = top_byte(p, c, err);
			if (rc)
				return rc;
			i++;
			break;
		}
	}
	/* the chunk ends: keep what the next one continues */
	if (p->state == LP_ITEM)
		return keep_item(p, d + item_from, len - item_from, err);
	if (!in_items(p->state))
		return keep_rest(p, d + rest_from, len - rest_from, err);
	return 0;
}

int listparse_finish(struct list_parser *p, json_t **rest, struct k8s_error *err)
{
	json_error_t jerr;
	json_t *root, *item;
	size_t i;
	int rc;

	*rest = NULL;
	if (p->state == LP_FAILED)
		return k8s_error_set(err, EPROTO, "the list was broken off before");
	if (p->state != LP_END)
		return failed(p, k8s_error_set(err, EPROTO, "not a JSON list: it ends after %zu bytes",
		                               p->body));
	root = json_loadb(p->rest.data ? p->rest.data : "", p->rest.len, 0, &jerr);
	if (!json_is_object(root)) {
		json_decref(root);
		return failed(p, k8s_error_set(err, EPROTO, "not a JSON list: %s", jerr.text));
	}
	/* items under an escaped key were kept in the rest: they come now */
	json_array_foreach(json_object_get(root, "items"), i, item)
	{
		p->items++;
		rc = p->fn(p->arg, item);
		if (rc) {
			json_decref(root);
			return failed(p, rc);
		}
	}
	*rest = root;
	return 0;
}
