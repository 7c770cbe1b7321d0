/*
 * Timestamp stripping and resume de-duplication of log lines (see loglines.h).
 */
#include "k8s/logs/loglines.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/timefmt.h"

void loglines_init(struct loglines *l)
{
	memset(l, 0, sizeof(*l));
	l->at_start = true;
}

void loglines_free(struct loglines *l)
{
	free(l->hold);
	l->hold = NULL;
	l->hold_len = l->hold_cap = 0;
}

int loglines_parse_ts(const char *s, size_t len, struct logts *out)
{
	char buf[LOGLINES_TS_MAX + 1];
	const char *p;
	int32_t nsec = 0;
	int digits = 0;

	if (len < 20 || len > LOGLINES_TS_MAX)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	out->sec = time_parse_rfc3339(buf);
	if (!out->sec && strncmp(buf, "1970-01-01T00:00:00", 19) != 0)
		return -1;
	p = buf + 19;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++)
			if (digits < 9)
				nsec = nsec * 10 + (*p - '0');
		for (int d = digits; d < 9; d++)
			nsec *= 10;
	}
	if (*p != 'Z' && *p != '+' && *p != '-')
		return -1;
	out->nsec = nsec;
	return 0;
}

int loglines_ts_cmp(const struct logts *a, const struct logts *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->nsec != b->nsec)
		return a->nsec < b->nsec ? -1 : 1;
	return 0;
}

static int hold_add(struct loglines *l, const char *data, size_t len)
{
	if (l->hold_len + len > l->hold_cap) {
		size_t cap = l->hold_cap ? l->hold_cap : 256;
		char *h;

		while (cap < l->hold_len + len)
			cap *= 2;
		h = realloc(l->hold, cap);
		if (!h)
			return -ENOMEM;
		l->hold = h;
		l->hold_cap = cap;
	}
	memcpy(l->hold + l->hold_len, data, len);
	l->hold_len += len;
	return 0;
}

/* A line begins with timestamp ts (NULL: it has none). Decides whether it is a
 * repeat of what was received before the break. */
static void line_begins(struct loglines *l, const struct logts *ts, const char *text,
                        size_t text_len)
{
	l->skipping = false;
	l->skip_bytes = 0;
	l->passed = 0;
	if (l->dedup && ts && l->have_last) {
		int c = loglines_ts_cmp(ts, &l->last);
		unsigned complete = l->last_count - (l->last_open ? 1 : 0);

		if (c < 0) {
			l->skipping = true;
			return;
		}
		if (c == 0 && l->dedup_equal_seen < complete) {
			l->dedup_equal_seen++;
			l->skipping = true;
			return;
		}
		if (c == 0 && l->last_open) {
			/* the line the break cut: pass on only what was not passed on yet */
			l->dedup = false;
			l->skip_bytes = l->last_passed;
			l->passed = l->last_passed;
			return; /* already counted in last_count */
		}
	}
	l->dedup = false;
	if (!ts)
		return;
	if (l->have_last && loglines_ts_cmp(ts, &l->last) == 0) {
		l->last_count++;
	} else {
		l->last = *ts;
		l->last_count = 1;
		l->have_last = true;
	}
	memcpy(l->last_text, text, text_len);
	l->last_text[text_len] = '\0';
	l->last_open = true;
	l->last_passed = 0;
}

/* Passes on the held text of the current line. */
static int flush_hold(struct loglines *l, loglines_out_fn out, void *arg)
{
	int rc = 0;

	if (l->hold_len)
		rc = out(arg, l->hold, l->hold_len);
	l->passed += l->hold_len;
	l->last_passed = l->passed;
	l->hold_len = 0;
	return rc;
}

/* Text of the current line (after its timestamp), up to and maybe including '\n'. */
static int line_text(struct loglines *l, const char *data, size_t len, bool ends,
                     loglines_out_fn out, void *arg)
{
	int rc = 0;

	if (l->skipping)
		goto done;
	if (l->skip_bytes) {
		size_t n = len < l->skip_bytes ? len : l->skip_bytes;

		l->skip_bytes -= n;
		data += n;
		len -= n;
	}
	if (l->passed == 0 && l->hold_len + len <= LOGLINES_HOLD_MAX) {
		rc = hold_add(l, data, len);
		if (!rc && ends)
			rc = flush_hold(l, out, arg);
	} else {
		/* too long to hold: pass it on as it comes */
		rc = flush_hold(l, out, arg);
		if (!rc && len)
			rc = out(arg, data, len);
		l->passed += len;
		l->last_passed = l->passed;
	}
done:
	if (ends) {
		l->at_start = true;
		l->ts_len = 0;
		if (!l->skipping)
			l->last_open = false; /* a repeat's end is not the last line's */
		l->skipping = false;
	}
	return rc;
}

int loglines_feed(struct loglines *l, const char *data, size_t len, loglines_out_fn out, void *arg)
{
	while (len) {
		int rc;

		if (l->at_start) {
			/* collect the timestamp token up to its space */
			struct logts ts;
			size_t i = 0;

			while (i < len && data[i] != ' ' && data[i] != '\n' &&
			       l->ts_len < LOGLINES_TS_MAX)
				l->ts[l->ts_len++] = data[i++];
			if (i == len)
				return 0; /* the token continues in the next chunk */
			l->at_start = false;
			if (data[i] == ' ' && loglines_parse_ts(l->ts, l->ts_len, &ts) == 0) {
				line_begins(l, &ts, l->ts, l->ts_len);
				i++; /* the space after the timestamp */
			} else {
				/* no timestamp: the token is text */
				line_begins(l, NULL, NULL, 0);
				rc = line_text(l, l->ts, l->ts_len, false, out, arg);
				if (rc)
					return rc;
			}
			l->ts_len = 0;
			data += i;
			len -= i;
			continue;
		}
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) + 1 : len;

		rc = line_text(l, data, n, nl != NULL, out, arg);
		if (rc)
			return rc;
		data += n;
		len -= n;
	}
	return 0;
}

int loglines_finish(struct loglines *l, loglines_out_fn out, void *arg)
{
	int rc = 0;

	if (l->at_start && l->ts_len) {
		/* a last token with no space or newline after it: text */
		line_begins(l, NULL, NULL, 0);
		rc = line_text(l, l->ts, l->ts_len, false, out, arg);
		l->ts_len = 0;
	}
	if (!rc && !l->skipping)
		rc = flush_hold(l, out, arg);
	l->at_start = true;
	return rc;
}

void loglines_resume(struct loglines *l)
{
	/* the held part was never passed on: the new stream sends the line again */
	l->hold_len = 0;
	l->ts_len = 0;
	l->at_start = true;
	l->skipping = false;
	l->skip_bytes = 0;
	l->dedup = l->have_last;
	l->dedup_equal_seen = 0;
}

const char *loglines_since(const struct loglines *l)
{
	return l->have_last ? l->last_text : NULL;
}
