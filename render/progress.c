/*
 * jobs/NAME/progress and jobs/NAME/metrics (progress.h): what a TrainJob's
 * training script reported, from job->trainer. A report's line leads with what a
 * person looks for (how far, how long still, the loss). progress holds one line
 * per report the mount has seen, each with its absolute time, the last one
 * current: `tail -f` reads a file that only grows (a new report appends a line;
 * GNU tail polls st_size on FUSE and prints the new bytes), so no line may hold an
 * age, which would change the text with the clock. info's row and the tables'
 * cell, read whole each time, say the last report's age instead, since a script
 * that stopped reporting leaves its last numbers standing. The metrics are one
 * `name value` per line, sorted by name so that a script reordering its report
 * does not reorder the file.
 *
 * progress.json and .yaml: the line's facts, each under its key (docs/tree.md):
 * reported, percent and remainingSeconds (numbers, null when not sent), metric (the
 * line's {name, value}, or null), lastUpdated (RFC 3339, "" when not sent), age
 * (seconds since, null likewise), stale, and summary (info's Progress row: the last
 * report with its age, or why a job has none). metrics.json and .yaml: one object, each
 * metric's name its key (by name; of a name sent twice, the first), its value a
 * number where it reads as one, else the text sent. Written by
 * render/form_write.c. Pure; no locks.
 */
#include "render/progress.h"

#include "render/form_write.h"
#include "render/job_files.h"
#include "render/job_info.h"
#include "render/job_times.h"
#include "render/text.h"
#include "k8s/base/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEP " \xc2\xb7 " /* " · " */

/* The metric the line shows: "loss" when reported, else the first one sent. */
static const struct job_metric *headline_metric(const struct job_trainer_status *t)
{
	for (size_t i = 0; i < t->n_metrics; i++)
		if (strcmp(t->metrics[i].name, "loss") == 0)
			return &t->metrics[i];
	return t->n_metrics ? &t->metrics[0] : NULL;
}

/* Has the report of a job still running gone quiet? */
static bool stale(const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;

	return t->updated && v->now - t->updated >= RENDER_PROGRESS_STALE && !render_job_ended(v);
}

static void put_age(struct strbuf *sb, const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;
	int64_t age = v->now - t->updated;
	char d[32];

	if (!t->updated) {
		strbuf_puts(sb, "no report time");
		return;
	}
	if (age < 1) {
		/* the pod's clock may run ahead of this machine's */
		strbuf_puts(sb, "updated just now");
		return;
	}
	strbuf_printf(sb, "updated %s ago", render_short_duration(age, d, sizeof(d)));
	if (stale(v))
		strbuf_printf(sb, ", stale: no report in %s",
		              render_short_duration(RENDER_PROGRESS_STALE, d, sizeof(d)));
}

/* What a TrainJob's report says, its figures joined by " · ", no age: a line of the
 * progress file's history, the head of info's Progress row. */
static void put_figures(struct strbuf *sb, const struct job_trainer_status *t)
{
	const struct job_metric *m = headline_metric(t);
	bool any = false;
	char d[32];

	if (t->progress >= 0) {
		strbuf_printf(sb, "%d%%", t->progress);
		any = true;
	}
	if (t->remaining >= 0) {
		strbuf_puts(sb, any ? SEP : "");
		if (t->remaining > 0)
			strbuf_printf(sb, "about %s left",
			              render_short_duration(t->remaining, d, sizeof(d)));
		else
			strbuf_puts(sb, "0s left");
		any = true;
	}
	if (m) {
		strbuf_puts(sb, any ? SEP : "");
		render_put_oneline(sb, m->name, 64);
		strbuf_putc(sb, ' ');
		render_put_oneline(sb, m->value, 64);
		any = true;
	}
	if (!any)
		strbuf_puts(sb, "reported no figures");
}

/* The words of a job without a report: true for a TrainJob, which may report later. */
static bool put_no_report(struct strbuf *sb, const struct job *job)
{
	if (job->kind != JOB_TRAINJOB) {
		strbuf_printf(sb, "no progress: a %s does not report it (only a Kubeflow "
		                  "TrainJob does)", job_type_name(job));
		return false;
	}
	strbuf_puts(sb, "no progress reported yet: its training script reports it with the "
	                "Kubeflow SDK's update_trainjob_status (Trainer's TrainJobStatus "
	                "feature gate)");
	return true;
}

bool render_progress_line(struct strbuf *sb, const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;

	if (!t->reported)
		return put_no_report(sb, v->job);
	put_figures(sb, t);
	strbuf_puts(sb, SEP);
	put_age(sb, v);
	return true;
}

int render_progress_point(const struct job *job, struct progress_point *out)
{
	struct strbuf sb = STRBUF_INIT;

	memset(out, 0, sizeof(*out));
	if (job->kind != JOB_TRAINJOB)
		return 0;
	out->reported = job->trainer.reported;
	out->updated = job->trainer.reported ? job->trainer.updated : 0;
	if (out->reported)
		put_figures(&sb, &job->trainer);
	else
		put_no_report(&sb, job);
	out->text = strbuf_take(&sb);
	return out->text ? 1 : -ENOMEM;
}

/* "2026-12-07 14:32:10  " (UTC, arena get's form): when a line of the history was so. */
static void put_when(struct strbuf *sb, int64_t t)
{
	char when[32];

	if (t > 0)
		strbuf_printf(sb, "%s  ", time_format_human(t, when, sizeof(when)));
	else
		strbuf_puts(sb, "(no report time)  ");
}

/* The line a quiet spell of RENDER_PROGRESS_STALE after a report leaves: written
 * from the report's time alone, so that it reads the same while the job waits and
 * after the next report came (the file only grows). */
static void put_quiet(struct strbuf *sb, int64_t last)
{
	char d[32];

	put_when(sb, last + RENDER_PROGRESS_STALE);
	strbuf_printf(sb, "stale: no report in %s\n",
	              render_short_duration(RENDER_PROGRESS_STALE, d, sizeof(d)));
}

void render_job_progress(struct strbuf *sb, const struct job_view *v)
{
	const struct progress_point *p = v->reports;
	size_t n = v->n_reports;
	struct progress_point now_point;
	const struct progress_point *last;
	int64_t until;
	int made = 0;

	if (!n) {
		/* no history handed in: the job's last report alone */
		made = render_progress_point(v->job, &now_point);
		if (made < 0) {
			sb->oom = true;
			return;
		}
		if (made == 0) {
			put_no_report(sb, v->job);
			strbuf_putc(sb, '\n');
			return;
		}
		p = &now_point;
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && p[i - 1].reported && p[i - 1].updated > 0 &&
		    p[i].updated - p[i - 1].updated >= RENDER_PROGRESS_STALE)
			put_quiet(sb, p[i - 1].updated);
		if (p[i].reported)
			put_when(sb, p[i].updated);
		strbuf_puts(sb, p[i].text ? p[i].text : "");
		strbuf_putc(sb, '\n');
	}
	/* a quiet spell now: up to the job's end once it ended (a line once written
	 * stays, as long as the job ran that long after the report) */
	last = &p[n - 1];
	until = render_job_ended(v) ? render_job_end(v) : v->now;
	if (last->reported && last->updated > 0 && until - last->updated >= RENDER_PROGRESS_STALE)
		put_quiet(sb, last->updated);
	if (made > 0)
		free(now_point.text);
}

const char *render_progress_cell(const struct job_view *v, char *buf, size_t size)
{
	const struct job_trainer_status *t = &v->job->trainer;
	bool stale = t->updated > 0 && v->now - t->updated >= RENDER_PROGRESS_STALE &&
	             !render_job_ended(v);

	if (!t->reported || t->progress < 0)
		return RENDER_NA;
	snprintf(buf, size, "%d%%%s", t->progress, stale ? "(stale)" : "");
	return buf;
}

/* By name; a name sent twice, in the order sent (the first is the form's). */
static int metric_cmp(const void *a, const void *b)
{
	const struct job_metric *x = *(const struct job_metric *const *)a;
	const struct job_metric *y = *(const struct job_metric *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

/* The metrics of t by name, to free; NULL when none or no memory (sb->oom). */
static const struct job_metric **metrics_by_name(struct strbuf *sb,
                                                 const struct job_trainer_status *t)
{
	const struct job_metric **sorted = t->n_metrics ? malloc(t->n_metrics * sizeof(*sorted))
	                                                : NULL;

	if (t->n_metrics && !sorted)
		sb->oom = true;
	for (size_t i = 0; sorted && i < t->n_metrics; i++)
		sorted[i] = &t->metrics[i];
	if (sorted)
		qsort(sorted, t->n_metrics, sizeof(*sorted), metric_cmp);
	return sorted;
}

/* A name as one word: blanks and control characters become '_' (values may hold
 * blanks: they are the rest of the line). */
static void put_word(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_putc(sb, (unsigned char)*s <= ' ' || *s == 0x7f ? '_' : *s);
}

void render_job_metrics(struct strbuf *sb, const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;
	const struct job_metric **sorted;

	if (!t->n_metrics) {
		strbuf_puts(sb, "# ");
		if (t->reported)
			strbuf_puts(sb, "no metrics in its last report (");
		render_progress_line(sb, v);
		strbuf_puts(sb, t->reported ? ")\n" : "\n");
		return;
	}
	if (!(sorted = metrics_by_name(sb, t)))
		return;
	for (size_t i = 0; i < t->n_metrics; i++) {
		put_word(sb, sorted[i]->name);
		strbuf_putc(sb, ' ');
		render_put_oneline(sb, sorted[i]->value, 0);
		strbuf_putc(sb, '\n');
	}
	free(sorted);
}

static void progress_form(struct strbuf *sb, const struct job_view *v, bool yaml)
{
	const struct job_trainer_status *t = &v->job->trainer;
	const struct job_metric *m = t->reported ? headline_metric(t) : NULL;
	struct strbuf line = STRBUF_INIT;
	char updated[32];
	struct form f;

	render_progress_line(&line, v);
	render_form_init(&f, sb, yaml);
	render_form_object(&f, NULL);
	render_form_bool(&f, "reported", t->reported);
	if (t->reported && t->progress >= 0)
		render_form_int(&f, "percent", t->progress);
	else
		render_form_null(&f, "percent");
	if (t->reported && t->remaining >= 0)
		render_form_int(&f, "remainingSeconds", t->remaining);
	else
		render_form_null(&f, "remainingSeconds");
	if (m) {
		render_form_object(&f, "metric");
		render_form_string(&f, "name", m->name);
		render_form_number_text(&f, "value", m->value);
		render_form_end(&f);
	} else {
		render_form_null(&f, "metric");
	}
	render_form_string(&f, "lastUpdated",
	                   t->reported && t->updated
	                       ? time_format_rfc3339(t->updated, updated, sizeof(updated))
	                       : "");
	if (t->reported && t->updated)
		render_form_int(&f, "age", v->now > t->updated ? v->now - t->updated : 0);
	else
		render_form_null(&f, "age");
	render_form_bool(&f, "stale", t->reported && stale(v));
	if (!strbuf_ok(&line))
		f.failed = true;
	else
		render_form_string(&f, "summary", line.buf ? line.buf : "");
	render_form_end(&f);
	render_form_finish(&f);
	strbuf_free(&line);
}

void render_job_progress_json(struct strbuf *sb, const struct job_view *v)
{
	progress_form(sb, v, false);
}

void render_job_progress_yaml(struct strbuf *sb, const struct job_view *v)
{
	progress_form(sb, v, true);
}

static void metrics_form(struct strbuf *sb, const struct job_view *v, bool yaml)
{
	const struct job_trainer_status *t = &v->job->trainer;
	const struct job_metric **sorted = metrics_by_name(sb, t);
	struct form f;

	if (t->n_metrics && !sorted)
		return;
	render_form_init(&f, sb, yaml);
	render_form_object(&f, NULL);
	for (size_t i = 0; i < t->n_metrics; i++)
		if (i == 0 || strcmp(sorted[i - 1]->name, sorted[i]->name) != 0)
			render_form_number_text(&f, sorted[i]->name, sorted[i]->value);
	render_form_end(&f);
	render_form_finish(&f);
	free(sorted);
}

void render_job_metrics_json(struct strbuf *sb, const struct job_view *v)
{
	metrics_form(sb, v, false);
}

void render_job_metrics_yaml(struct strbuf *sb, const struct job_view *v)
{
	metrics_form(sb, v, true);
}

int64_t render_job_report_mtime(const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;

	if (!t->reported || !t->updated)
		return render_job_mtime(v);
	return t->updated < v->now ? t->updated : v->now;
}
