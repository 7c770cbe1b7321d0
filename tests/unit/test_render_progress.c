/*
 * Tests render/progress.c: jobs/NAME/progress's lines (what each report sent and
 * when, the quiet spells, clock skew; a history of points that only grows), the
 * words of a job that reports nothing (a TrainJob not yet, another kind never),
 * jobs/NAME/metrics in name order, info's Progress row (with the report's age and
 * staleness) and Metrics block, the files' mtime, and progress.json|yaml and
 * metrics.json|yaml.
 */
#include "render/render.h"
#include "render/job_files.h"
#include "render/job_info.h"
#include "render/progress.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>
#include <string.h>

/* The file's text is want. */
#define CHECK_RENDERS(file, view, want)                                                            \
	do {                                                                                       \
		char *got_ = FX_RENDER(render_job_##file(sb, view));                               \
		CHECK_STR_EQ(got_, want);                                                          \
		free(got_);                                                                        \
	} while (0)

static struct job *reporting(void)
{
	struct job *j = fx_job(JOB_TRAINJOB, "llama", FX_T0 - 3600);

	fx_trainer_status(j, 42, 2700, FX_T0 - 12);
	fx_job_metric(j, "loss", "0.231");
	fx_job_metric(j, "eval_accuracy", "0.874");
	return j;
}

TEST(progress_line_says_when_how_far_how_long_and_the_loss)
{
	struct job *j = reporting();
	struct job_view v = fx_view(j, NULL, 0);

	/* no age in the file (it would change the text with the clock): the report's time */
	CHECK_RENDERS(progress, &v, "2026-12-02 09:59:48  42% \xc2\xb7 about 45m left \xc2\xb7 loss 0.231\n");
	/* what was not sent is not shown; without loss, the first metric sent */
	j->trainer.remaining = -1;
	free(j->trainer.metrics[0].name);
	j->trainer.metrics[0].name = strdup("perplexity");
	CHECK_RENDERS(progress, &v, "2026-12-02 09:59:48  42% \xc2\xb7 perplexity 0.231\n");
	j->trainer.progress = -1;
	j->trainer.remaining = 0;
	CHECK_RENDERS(progress, &v, "2026-12-02 09:59:48  0s left \xc2\xb7 perplexity 0.231\n");
	fx_job_free(j);
}

TEST(progress_a_quiet_spell_adds_a_line_that_stays)
{
	struct job *j = fx_job(JOB_TRAINJOB, "llama", FX_T0 - 7200);
	struct job_view v = fx_view(j, NULL, 0);

	fx_trainer_status(j, -1, -1, FX_T0 - 25 * 60);
	CHECK_RENDERS(progress, &v, "2026-12-02 09:35:00  reported no figures\n"
	                            "2026-12-02 09:45:00  stale: no report in 10m\n");
	/* not yet 10 minutes: no such line */
	v.now = FX_T0 - 16 * 60;
	CHECK_RENDERS(progress, &v, "2026-12-02 09:35:00  reported no figures\n");
	/* ended 24 minutes after the report: it went quiet while it ran, the line stays */
	v.now = FX_T0;
	fx_job_condition(j, "Complete", true, FX_T0 - 60);
	CHECK_RENDERS(progress, &v, "2026-12-02 09:35:00  reported no figures\n"
	                            "2026-12-02 09:45:00  stale: no report in 10m\n");
	/* the pod's clock ahead of ours: no line, no negative age */
	j->trainer.updated = FX_T0 + 5;
	CHECK_RENDERS(progress, &v, "2026-12-02 10:00:05  reported no figures\n");
	fx_job_free(j);
}

/* Points as fs/tree/reports.c keeps them: the file only grows, report after report,
 * the quiet spell between two written as it was while the job waited. */
TEST(progress_lists_the_reports_seen_oldest_first_and_only_grows)
{
	struct job *j = fx_job(JOB_TRAINJOB, "llama", FX_T0 - 7200);
	struct progress_point p[3];
	struct job_view v = fx_view(j, NULL, 0);
	char *before, *after;

	CHECK_INT_EQ(render_progress_point(j, &p[0]), 1);          /* no report yet */
	fx_trainer_status(j, 10, 3600, FX_T0 - 1800);
	fx_job_metric(j, "loss", "2.5");
	CHECK_INT_EQ(render_progress_point(j, &p[1]), 1);
	v.reports = p;
	v.n_reports = 2;
	v.now = FX_T0 - 1000;                                      /* 800 s after it */
	before = FX_RENDER(render_job_progress(sb, &v));
	CHECK_STR_EQ(before, "no progress reported yet: its training script reports it with the "
	                     "Kubeflow SDK's update_trainjob_status (Trainer's TrainJobStatus "
	                     "feature gate)\n"
	                     "2026-12-02 09:30:00  10% \xc2\xb7 about 1h left \xc2\xb7 loss 2.5\n"
	                     "2026-12-02 09:40:00  stale: no report in 10m\n");
	j->trainer.progress = 55;
	j->trainer.updated = FX_T0 - 5;
	free(j->trainer.metrics[0].value);
	j->trainer.metrics[0].value = strdup("0.9");
	CHECK_INT_EQ(render_progress_point(j, &p[2]), 1);
	v.n_reports = 3;
	v.now = FX_T0;
	after = FX_RENDER(render_job_progress(sb, &v));
	CHECK(strncmp(after, before, strlen(before)) == 0);
	CHECK_STR_EQ(after + strlen(before), "2026-12-02 09:59:55  55% \xc2\xb7 about 1h left "
	                                     "\xc2\xb7 loss 0.9\n");
	free(before);
	free(after);
	for (size_t i = 0; i < 3; i++)
		free(p[i].text);
	/* a kind that never reports has no point */
	j->kind = JOB_TFJOB;
	CHECK_INT_EQ(render_progress_point(j, &p[0]), 0);
	CHECK(p[0].text == NULL);
	fx_job_free(j);
}

TEST(progress_a_job_that_reports_nothing_says_so_in_words)
{
	struct job *tj = fx_job(JOB_TRAINJOB, "quiet", FX_T0 - 60);
	struct job *tf = fx_job(JOB_TFJOB, "mnist", FX_T0 - 60);
	struct job_view v1 = fx_view(tj, NULL, 0), v2 = fx_view(tf, NULL, 0);
	char *s;

	CHECK_RENDERS(progress, &v1, "no progress reported yet: its training script reports it with the Kubeflow "
	                "SDK's update_trainjob_status (Trainer's TrainJobStatus feature gate)\n");
	s = FX_RENDER(render_job_metrics(sb, &v1));
	CHECK(strncmp(s, "# no progress reported yet: ", 28) == 0);
	free(s);
	CHECK_RENDERS(progress, &v2, "no progress: a tfjob does not report it (only a Kubeflow TrainJob does)\n");
	CHECK_RENDERS(metrics, &v2, "# no progress: a tfjob does not report it (only a Kubeflow TrainJob does)\n");
	fx_job_free(tj);
	fx_job_free(tf);
}

TEST(progress_metrics_one_per_line_by_name)
{
	struct job *j = reporting();
	struct job_view v = fx_view(j, NULL, 0);

	fx_job_metric(j, "learning rate", "3e-4\nx");
	CHECK_RENDERS(metrics, &v, "eval_accuracy 0.874\nlearning_rate 3e-4 x\nloss 0.231\n");
	fx_job_free(j);
	/* a report without metrics says so, with the rest of the report */
	j = fx_job(JOB_TRAINJOB, "llama", FX_T0 - 60);
	fx_trainer_status(j, 7, -1, FX_T0 - 3);
	v = fx_view(j, NULL, 0);
	CHECK_RENDERS(metrics, &v, "# no metrics in its last report (7% \xc2\xb7 updated 3s ago)\n");
	fx_job_free(j);
}

TEST(progress_in_info_and_in_the_files_mtime)
{
	struct job *j = reporting();
	struct job_view v = fx_view(j, NULL, 0);
	char *s = FX_RENDER(render_job_info(sb, &v));

	CHECK(strstr(s, "\nProgress:    42% \xc2\xb7 about 45m left \xc2\xb7 loss 0.231 \xc2\xb7 "
	                "updated 12s ago\n") != NULL);
	CHECK(strstr(s, "\nMetrics:\n  eval_accuracy 0.874\n  loss 0.231\n") != NULL);
	free(s);
	/* info says how old a quiet report is */
	j->trainer.updated = FX_T0 - 25 * 60;
	s = FX_RENDER(render_job_info(sb, &v));
	CHECK(strstr(s, "loss 0.231 \xc2\xb7 updated 25m ago, stale: no report in 10m\n") != NULL);
	free(s);
	j->trainer.updated = FX_T0 - 12;
	/* a report is the job's latest change: its files' mtime, never after now */
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 12);
	j->trainer.updated = FX_T0 + 30;
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0);
	/* progress and metrics: the report's time, even before a later change of the job */
	j->trainer.updated = FX_T0 - 100;
	fx_job_condition(j, "Created", true, FX_T0 - 50);
	CHECK_INT_EQ(render_job_mtime(&v), FX_T0 - 50);
	CHECK_INT_EQ(render_job_report_mtime(&v), FX_T0 - 100);
	fx_job_free(j);
	/* another kind's info has no Progress row */
	j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 60);
	v = fx_view(j, NULL, 0);
	s = FX_RENDER(render_job_info(sb, &v));
	CHECK(strstr(s, "Progress:") == NULL && strstr(s, "Metrics:") == NULL);
	free(s);
	fx_job_free(j);
}

/* progress.json|yaml and metrics.json|yaml: the line's facts under their keys, numbers
 * as numbers (a value that is no JSON number stays text; YAML's reals read back as
 * floats), a name sent twice once, and a job that reports nothing says why. */
TEST(progress_forms_hold_the_reports_facts_as_numbers)
{
	struct job *j = reporting();
	struct job_view v = fx_view(j, NULL, 0);

	fx_job_metric(j, "loss", "9.9");            /* sent twice: the first is kept */
	fx_job_metric(j, "epoch", "3");
	fx_job_metric(j, "lr", "1e-4");
	fx_job_metric(j, "phase", "warmup");
	fx_job_metric(j, "nan", "NaN");
	fx_job_metric(j, "huge", "1e999");
	CHECK_RENDERS(progress_json, &v,
	              "{\n"
	              "    \"reported\": true,\n"
	              "    \"percent\": 42,\n"
	              "    \"remainingSeconds\": 2700,\n"
	              "    \"metric\": {\n"
	              "        \"name\": \"loss\",\n"
	              "        \"value\": 0.231\n"
	              "    },\n"
	              "    \"lastUpdated\": \"2026-12-02T09:59:48Z\",\n"
	              "    \"age\": 12,\n"
	              "    \"stale\": false,\n"
	              "    \"summary\": \"42% \xc2\xb7 about 45m left \xc2\xb7 loss 0.231 \xc2\xb7 "
	              "updated 12s ago\"\n"
	              "}\n");
	CHECK_RENDERS(progress_yaml, &v,
	              "age: 12\n"
	              "lastUpdated: \"2026-12-02T09:59:48Z\"\n"
	              "metric:\n"
	              "  name: loss\n"
	              "  value: 0.231\n"
	              "percent: 42\n"
	              "remainingSeconds: 2700\n"
	              "reported: true\n"
	              "stale: false\n"
	              "summary: 42% \xc2\xb7 about 45m left \xc2\xb7 loss 0.231 \xc2\xb7 updated 12s ago\n");
	CHECK_RENDERS(metrics_json, &v,
	              "{\n"
	              "    \"epoch\": 3,\n"
	              "    \"eval_accuracy\": 0.874,\n"
	              "    \"huge\": \"1e999\",\n"
	              "    \"loss\": 0.231,\n"
	              "    \"lr\": 1e-4,\n"
	              "    \"nan\": \"NaN\",\n"
	              "    \"phase\": \"warmup\"\n"
	              "}\n");
	CHECK_RENDERS(metrics_yaml, &v,
	              "epoch: 3\n"
	              "eval_accuracy: 0.874\n"
	              "huge: \"1e999\"\n"
	              "loss: 0.231\n"
	              "lr: 0.0001\n"
	              "nan: NaN\n"
	              "phase: warmup\n");
	fx_job_free(j);

	j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 60);
	v = fx_view(j, NULL, 0);
	CHECK_RENDERS(progress_json, &v,
	              "{\n"
	              "    \"reported\": false,\n"
	              "    \"percent\": null,\n"
	              "    \"remainingSeconds\": null,\n"
	              "    \"metric\": null,\n"
	              "    \"lastUpdated\": \"\",\n"
	              "    \"age\": null,\n"
	              "    \"stale\": false,\n"
	              "    \"summary\": \"no progress: a tfjob does not report it (only a Kubeflow "
	              "TrainJob does)\"\n"
	              "}\n");
	CHECK_RENDERS(metrics_json, &v, "{}\n");
	CHECK_RENDERS(metrics_yaml, &v, "{}\n");
	fx_job_free(j);
}
