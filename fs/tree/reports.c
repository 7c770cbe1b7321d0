/*
 * The history of a progress file's reports (reports.h): a growing array of
 * points, one per report that differed from the one before. Pure memory; the
 * caller holds the inode's lock. Test: tests/unit/test_fs_reports.c.
 */
#include "fs/tree/reports.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool same_point(const struct progress_point *a, const struct progress_point *b)
{
	return a->reported == b->reported && a->updated == b->updated &&
	       strcmp(a->text ? a->text : "", b->text ? b->text : "") == 0;
}

static void drop_points(struct report_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->p[i].text);
	h->n = 0;
}

int reports_note(struct report_history **hp, struct progress_point *pt)
{
	struct report_history *h = *hp;
	const struct progress_point *last;

	if (!h) {
		if (!(h = calloc(1, sizeof(*h)))) {
			free(pt->text);
			return -ENOMEM;
		}
		*hp = h;
	}
	last = h->n ? &h->p[h->n - 1] : NULL;
	if (last && same_point(last, pt)) {
		free(pt->text);
		return 0;
	}
	/* Full, or a report older than the last (another timeline: the file cannot only
	 * grow): start over from this one. Not for the first report after "none yet",
	 * whose time is 0. */
	if (h->n >= REPORTS_MAX || (last && last->reported && pt->updated < last->updated))
		drop_points(h);
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 4;
		struct progress_point *p;

		if (cap > REPORTS_MAX)
			cap = REPORTS_MAX;
		if (!(p = realloc(h->p, cap * sizeof(*p)))) {
			free(pt->text);
			return -ENOMEM;
		}
		h->p = p;
		h->cap = cap;
	}
	h->p[h->n++] = *pt;
	return 0;
}

void reports_free(struct report_history *h)
{
	if (!h)
		return;
	drop_points(h);
	free(h->p);
	free(h);
}
