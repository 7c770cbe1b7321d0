/*
 * The lines of a `timestamps=true` log stream: each line arrives as
 * "2026-03-02T10:14:40.123456789Z text\n"; the timestamp is cut off (the file
 * shows what `kubectl logs` shows) and remembered, so that a broken stream can be
 * resumed with sinceTime=<the last line's time> and the lines received twice
 * dropped.
 *
 * Why this is subtle: the API server passes sinceTime to the kubelet with
 * second precision (metav1.Time), so a resumed stream repeats every line of the
 * last second; several lines may even share one timestamp. The parser therefore
 * counts the lines it has seen with the last timestamp and, on resume, drops
 * lines older than it and that many lines equal to it. A line is held back
 * until its '\n' arrives (up to LOGLINES_HOLD_MAX bytes) so that a break in the
 * middle of it never leaves half a line behind; a longer line is passed on in
 * pieces, and on resume the part already passed on is skipped.
 *
 * Pure: no I/O, no locks. Used by logstream.c (one per stream) and its tests.
 */
#ifndef ARENAFS_K8S_LOGLINES_H
#define ARENAFS_K8S_LOGLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lines up to this long are passed on whole; longer ones in pieces. */
#define LOGLINES_HOLD_MAX  (64u << 10)
/* "2026-03-02T10:14:40.123456789Z" is 30; offsets make it longer. */
#define LOGLINES_TS_MAX    40

struct logts {
	int64_t sec;
	int32_t nsec;
};

struct loglines {
	/* the line being read */
	bool at_start;               /* reading the timestamp token */
	char ts[LOGLINES_TS_MAX + 1];
	size_t ts_len;
	char *hold;                  /* its text so far, not yet passed on */
	size_t hold_len, hold_cap;
	size_t passed;               /* bytes of its text already passed on */
	bool skipping;               /* resume: the line is a repeat, dropped */
	size_t skip_bytes;           /* resume: bytes of it already passed on before */

	/* what was received, for resuming */
	bool have_last;
	struct logts last;           /* timestamp of the last line begun */
	char last_text[LOGLINES_TS_MAX + 1];
	unsigned last_count;         /* lines begun with exactly that timestamp */
	bool last_open;              /* the last line has not ended yet */
	size_t last_passed;          /* ... and this much of it was passed on */

	/* resume in progress */
	bool dedup;
	unsigned dedup_equal_seen;
};

/* Receives the log's text (timestamps removed). Non-zero return stops feeding. */
typedef int (*loglines_out_fn)(void *arg, const char *data, size_t len);

void loglines_init(struct loglines *l);
void loglines_free(struct loglines *l);

/* Feeds bytes of the stream; returns 0, out's non-zero return, or -ENOMEM. */
int loglines_feed(struct loglines *l, const char *data, size_t len, loglines_out_fn out,
		  void *arg);

/* The stream ended for good: a last line without '\n' is passed on as it is. */
int loglines_finish(struct loglines *l, loglines_out_fn out, void *arg);

/* The stream broke: forget the unfinished line's held part and drop repeats from
 * the next stream. */
void loglines_resume(struct loglines *l);

/* The sinceTime for the next stream (the last line's timestamp as the server wrote
 * it), or NULL before any line. */
const char *loglines_since(const struct loglines *l);

/* "2026-03-02T10:14:40.123456789Z" → *out; -1 when it is not such a time. */
int loglines_parse_ts(const char *s, size_t len, struct logts *out);

/* <0, 0 or >0 as a is before, at or after b. */
int loglines_ts_cmp(const struct logts *a, const struct logts *b);

#endif
