/*
 * Tests of fs/tree/reports.c: the points of jobs/NAME/progress that the mount has
 * seen. A report seen again is not a new line; a new one is appended; a full
 * history, or a report older than the last, starts over from the newest.
 */
#include "fs/tree/reports.h"
#include "tests/unit/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct progress_point point(bool reported, int64_t updated, const char *text)
{
	struct progress_point p = {updated, reported, strdup(text)};

	if (!p.text)
		abort();
	return p;
}

TEST(reports_a_new_report_is_appended_and_a_repeat_is_not)
{
	struct report_history *h = NULL;
	struct progress_point p;

	p = point(false, 0, "no progress reported yet");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK(h != NULL);
	p = point(false, 0, "no progress reported yet");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 1);
	/* the first report comes after "none yet": appended, though its time is later */
	p = point(true, 100, "10%");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	p = point(true, 100, "10%");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	p = point(true, 160, "20%");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 3);
	CHECK(!h->p[0].reported);
	CHECK_STR_EQ(h->p[1].text, "10%");
	CHECK_STR_EQ(h->p[2].text, "20%");
	CHECK_INT_EQ(h->p[2].updated, 160);
	/* the same second, other figures: a new report */
	p = point(true, 160, "21%");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 4);
	reports_free(h);
	reports_free(NULL);
}

TEST(reports_start_over_when_full_or_when_time_runs_back)
{
	struct report_history *h = NULL;
	struct progress_point p;
	char text[16];

	for (int i = 0; i < REPORTS_MAX; i++) {
		snprintf(text, sizeof(text), "%d%%", i);
		p = point(true, 1000 + i, text);
		CHECK_INT_EQ(reports_note(&h, &p), 0);
	}
	CHECK_INT_EQ(h->n, REPORTS_MAX);
	p = point(true, 5000, "99%");
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 1);
	CHECK_STR_EQ(h->p[0].text, "99%");
	p = point(true, 4000, "1%");                /* an older report: another timeline */
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 1);
	CHECK_STR_EQ(h->p[0].text, "1%");
	p = point(false, 0, "no progress reported yet");   /* the report went away */
	CHECK_INT_EQ(reports_note(&h, &p), 0);
	CHECK_INT_EQ(h->n, 1);
	CHECK(!h->p[0].reported);
	reports_free(h);
}
