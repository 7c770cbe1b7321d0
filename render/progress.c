/*
 * jobs/NAME/progress and jobs/NAME/metrics (progress.h): what a TrainJob's
 * training script last reported, from job->trainer. The line leads with what a
 * person looks for (how far, how long still, the loss) and ends with how old the
 * report is, since a script that stopped reporting leaves its last numbers
 * standing. The metrics are one `name value` per line, sorted by name so that a
 * script reordering its report does not reorder the file.
 *
 * progress.json and .yaml: the line's facts, each under its key (docs/tree.md):
 * reported, percent and remainingSeconds (numbers, null when not sent), metric (the
 * line's {name, value}, or null), lastUpdated (RFC 3339, "" when not sent), age
 * (seconds since, null likewise), stale, and summary (the progress file's line,
 * which also says why a job has none). metrics.json and .yaml: one object, each
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/timefmt.h"

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

bool render_progress_line(struct strbuf *sb, const struct job_view *v)
{
	const struct job *job = v->job;
	const struct job_trainer_status *t = &job->trainer;
	const struct job_metric *m = headline_metric(t);
	char d[32];

	if (!t->reported) {
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
	if (t->progress >= 0)
		strbuf_printf(sb, "%d%%" SEP, t->progress);
	if (t->remaining > 0)
		strbuf_printf(sb, "about %s left" SEP,
		              render_short_duration(t->remaining, d, sizeof(d)));
	else if (t->remaining == 0)
		strbuf_puts(sb, "0s left" SEP);
	if (m) {
		render_put_oneline(sb, m->name, 64);
		strbuf_putc(sb, ' ');
		render_put_oneline(sb, m->value, 64);
		strbuf_puts(sb, SEP);
	}
	if (t->progress < 0 && t->remaining < 0 && !m)
		strbuf_puts(sb, "reported no figures" SEP);
	put_age(sb, v);
	return true;
}

void render_job_progress(struct strbuf *sb, const struct job_view *v)
{
	render_progress_line(sb, v);
	strbuf_putc(sb, '\n');
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
