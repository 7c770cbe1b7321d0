/*
 * jobs/NAME/progress and jobs/NAME/metrics (progress.h): what a TrainJob's
 * training script last reported, from job->trainer. The line leads with what a
 * person looks for (how far, how long still, the loss) and ends with how old the
 * report is, since a script that stopped reporting leaves its last numbers
 * standing. The metrics are one `name value` per line, sorted by name so that a
 * script reordering its report does not reorder the file. Pure; no locks.
 */
#include "render/progress.h"

#include "render/job_files.h"
#include "render/job_info.h"
#include "render/job_times.h"
#include "render/text.h"

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
	if (age >= RENDER_PROGRESS_STALE && !render_job_ended(v))
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

static int metric_cmp(const void *a, const void *b)
{
	const struct job_metric *x = *(const struct job_metric *const *)a;
	const struct job_metric *y = *(const struct job_metric *const *)b;

	return strcmp(x->name, y->name);
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
	sorted = malloc(t->n_metrics * sizeof(*sorted));
	if (!sorted) {
		sb->oom = true;
		return;
	}
	for (size_t i = 0; i < t->n_metrics; i++)
		sorted[i] = &t->metrics[i];
	qsort(sorted, t->n_metrics, sizeof(*sorted), metric_cmp);
	for (size_t i = 0; i < t->n_metrics; i++) {
		put_word(sb, sorted[i]->name);
		strbuf_putc(sb, ' ');
		render_put_oneline(sb, sorted[i]->value, 0);
		strbuf_putc(sb, '\n');
	}
	free(sorted);
}

int64_t render_job_report_mtime(const struct job_view *v)
{
	const struct job_trainer_status *t = &v->job->trainer;

	if (!t->reported || !t->updated)
		return render_job_mtime(v);
	return t->updated < v->now ? t->updated : v->now;
}
