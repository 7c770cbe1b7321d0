/*
 * A job's GPU figures (Prometheus's, v->gpu_metrics) where info and why show them.
 *
 * info's GPUs: block is `arena get -g NAME`'s (pkg/training/get.go
 * displayGPUUsage, Arena 0.15.5): INSTANCE, NODE(IP), GPU(Requested), then a row
 * per GPU of the instance with GPU(IndexId), GPU(DutyCycle) and GPU
 * Memory(Used/Total) (the first row of an instance carries its name, host IP and
 * GPUs, the next ones blanks), N/A thrice for an instance without figures; then
 * "Allocated/Requested GPUs of Job: A/R", both Σ over instances, allocated over
 * those whose status is Running. Present, as Arena's, unless the job succeeded or
 * its instances ask no GPU. Where Arena leaves N/A unexplained, a line says why
 * (render_gpu_metrics_missing's words).
 *
 * why's idle GPUs: one instant query cannot say since when a GPU idles, only what
 * Prometheus kept of the window it names: the query asks for each duty cycle's
 * maximum over the last GPU_IDLE_WINDOW (max_over_time), so "idle" means "under
 * GPU_IDLE_DUTY_MAX the whole window", told only of an instance that started
 * (status.startTime) at least that long ago: before, the window held no sample of it.
 *
 * Callers: render/job_info.c, render/why.c. Pure: ages from v->now.
 * Tested by tests/unit/test_render_job_gpus.c.
 */
#include "render/job_gpus.h"
#include "render/gpus.h"
#include "render/status.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

/* One instance's rows: its GPUs' figures, or N/A thrice when it has none. */
static void instance_rows(struct render_table *t, const struct pod *p,
                          const struct gpu_metrics *m)
{
	const struct gpu_sample *s = NULL;
	const char *ip = p->phase == POD_PENDING ? RENDER_NA : p->host_ip;
	char gpus[16];
	size_t n = 0;

	snprintf(gpus, sizeof(gpus), "%d", p->gpus);
	if (render_pod_shows_gpu_metrics(p) && m && !m->error[0])
		n = gpu_metrics_of_pod(m, p->meta.namespace, p->meta.name, &s);
	if (!n)
		render_table_add(t, (const char *[]){p->meta.name, ip, gpus, RENDER_NA, RENDER_NA,
		                                     RENDER_NA});
	for (size_t i = 0; i < n; i++) {
		char idx[16], duty[32], mem[80];

		snprintf(idx, sizeof(idx), "%d", s[i].gpu);
		render_gpu_cells(&s[i], duty, sizeof(duty), mem, sizeof(mem));
		render_table_add(t, (const char *[]){i ? "" : p->meta.name, i ? "" : ip,
		                                     i ? "" : gpus, idx, duty, mem});
	}
}

/* Why figures are missing: of the first instance that runs holding GPUs and has none;
 * that none runs holding GPUs; NULL when every one that runs has figures. */
static const char *missing(const struct job_view *v, const struct pod *const *pods,
                           char *buf, size_t size)
{
	bool running = false;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct gpu_sample *s;
		size_t n;

		if (!render_pod_shows_gpu_metrics(pods[i]))
			continue;
		running = true;
		n = gpu_metrics_of_pod(v->gpu_metrics, pods[i]->meta.namespace,
		                       pods[i]->meta.name, &s);
		if (render_gpu_metrics_missing(v->gpu_metrics, n, buf, size)) {
			if (v->gpu_metrics && !v->gpu_metrics->error[0])
				snprintf(buf, size, "Prometheus (%s) has no figures of the GPUs of %s",
				         v->gpu_metrics->source, pods[i]->meta.name);
			return buf;
		}
	}
	if (running)
		return NULL;
	snprintf(buf, size, "no instance runs holding GPUs");
	return buf;
}

void render_job_info_gpus(struct strbuf *sb, const struct job_view *v,
                          const struct pod *const *pods)
{
	char why[sizeof(((struct gpu_metrics *)0)->error) + 600], status[128];
	int requested = 0, allocated = 0;
	struct render_table t;

	for (size_t i = 0; i < v->n_pods; i++) {
		requested += pods[i]->gpus;
		if (!strcmp(render_pod_status_word(pods[i], status, sizeof(status)), "Running"))
			allocated += pods[i]->gpus;
	}
	/* NULL: not asked (a form, a test), as jobs/NAME/gpus says nothing then */
	if (!v->gpu_metrics || !requested || !strcmp(render_job_status_word(v), "SUCCEEDED"))
		return;
	render_table_init(&t, 6);
	render_table_add(&t, (const char *[]){"INSTANCE", "NODE(IP)", "GPU(Requested)",
	                                      "GPU(IndexId)", "GPU(DutyCycle)",
	                                      "GPU Memory(Used/Total)"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < v->n_pods; i++)
		instance_rows(&t, pods[i], v->gpu_metrics);
	strbuf_puts(sb, "\nGPUs:\n");
	render_table_render(sb, &t, "  ");
	render_table_free(&t);
	strbuf_printf(sb, "\n  Allocated/Requested GPUs of Job: %d/%d\n", allocated, requested);
	if (missing(v, pods, why, sizeof(why)))
		strbuf_printf(sb, "  no GPU metrics: %s\n", why);
}

void render_job_idle_gpus(struct strbuf *sb, const struct job_view *v)
{
	size_t gpus = 0, idle = 0;
	double most = 0;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];
		const struct gpu_sample *s;
		bool whole_window;
		size_t n;

		if (!render_pod_shows_gpu_metrics(p))
			continue;
		n = gpu_metrics_of_pod(v->gpu_metrics, p->meta.namespace, p->meta.name, &s);
		/* the exporter files a GPU under its pod from the pod's start (a container's
		 * restart does not end the series) */
		whole_window = p->start_time && v->now - p->start_time >= GPU_IDLE_WINDOW_S;
		for (size_t j = 0; j < n; j++) {
			if (s[j].duty_max < 0)
				continue;
			gpus++;
			if (whole_window && s[j].duty_max < GPU_IDLE_DUTY_MAX) {
				idle++;
				most = s[j].duty_max > most ? s[j].duty_max : most;
			}
		}
	}
	if (!idle)
		return;
	if (idle == gpus && gpus == 1)
		strbuf_puts(sb, "; but its GPU has");
	else if (idle == gpus)
		strbuf_printf(sb, "; but its %zu GPUs have", gpus);
	else
		strbuf_printf(sb, "; but %zu of its %zu GPUs ha%s", idle, gpus,
		              idle == 1 ? "s" : "ve");
	if (most == 0)
		strbuf_puts(sb, " been idle (0% duty cycle)");
	else
		strbuf_printf(sb, " been idle (at most %.1f%% duty cycle)", most);
	strbuf_puts(sb, " for at least " GPU_IDLE_WINDOW);
}
