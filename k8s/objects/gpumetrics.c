/*
 * Decoding a Prometheus instant-query answer into per-GPU figures
 * (gpumetrics.h). Each result is one series: {"metric": {labels},
 * "value": [time, "string"]}. A series is filed under (namespace, pod, gpu)
 * from DCGM's labels or Arena's, whichever it has; series of other names, or
 * without a pod, are skipped (a GPU no pod holds is not a job's).
 * Pure; test: tests/unit/test_gpumetrics.c.
 */
#include "k8s/objects/gpumetrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

struct gpu_metrics *gpu_metrics_new(void)
{
	struct gpu_metrics *m = calloc(1, sizeof(*m));

	if (m)
		atomic_init(&m->refs, 1);
	return m;
}

struct gpu_metrics *gpu_metrics_ref(struct gpu_metrics *m)
{
	if (m)
		atomic_fetch_add(&m->refs, 1);
	return m;
}

void gpu_metrics_unref(struct gpu_metrics *m)
{
	if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->s[i].ns);
		free(m->s[i].pod);
	}
	free(m->s);
	free(m);
}

static const char *label(const json_t *metric, const char *dcgm, const char *arena)
{
	const char *v = json_string_value(json_object_get(metric, dcgm));

	return v && *v ? v : json_string_value(json_object_get(metric, arena));
}

/* The sample of (ns, pod, gpu), added (figures unknown: -1) when new; NULL: no memory. */
static struct gpu_sample *sample_for(struct gpu_metrics *m, const char *ns, const char *pod,
                                     int gpu, size_t *cap)
{
	struct gpu_sample *s;

	for (size_t i = 0; i < m->n; i++)
		if (m->s[i].gpu == gpu && !strcmp(m->s[i].pod, pod) && !strcmp(m->s[i].ns, ns))
			return &m->s[i];
	if (m->n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;

		s = realloc(m->s, c * sizeof(*s));
		if (!s)
			return NULL;
		m->s = s;
		*cap = c;
	}
	s = &m->s[m->n];
	*s = (struct gpu_sample){.gpu = gpu, .duty = -1, .used_mib = -1, .total_mib = -1,
	                         .free_mib = -1};
	s->ns = strdup(ns);
	s->pod = strdup(pod);
	if (!s->ns || !s->pod) {
		free(s->ns);
		free(s->pod);
		return NULL;
	}
	m->n++;
	return s;
}

/* Files one series' value under its figure; names of neither family are skipped. */
static void set_figure(struct gpu_sample *s, const char *name, double v)
{
	if (!strcmp(name, "DCGM_FI_DEV_GPU_UTIL") || !strcmp(name, "nvidia_gpu_duty_cycle"))
		s->duty = v;
	else if (!strcmp(name, "DCGM_FI_DEV_FB_USED"))
		s->used_mib = v;
	else if (!strcmp(name, "DCGM_FI_DEV_FB_FREE"))
		s->free_mib = v;
	else if (!strcmp(name, "nvidia_gpu_memory_used_bytes"))
		s->used_mib = v / MIB;
	else if (!strcmp(name, "nvidia_gpu_memory_total_bytes"))
		s->total_mib = v / MIB;
}

static int sample_cmp(const void *a, const void *b)
{
	const struct gpu_sample *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	if (!c)
		c = strcmp(x->pod, y->pod);
	return c ? c : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* One series: 0 (kept or skipped) or -ENOMEM. */
static int add_series(struct gpu_metrics *m, const json_t *r, size_t *cap)
{
	const json_t *metric = json_object_get(r, "metric");
	const char *name = json_string_value(json_object_get(metric, "__name__"));
	const char *ns = label(metric, "namespace", "namespace_name");
	const char *pod = label(metric, "pod", "pod_name");
	const char *gpu = label(metric, "gpu", "minor_number");
	const char *text = json_string_value(json_array_get(json_object_get(r, "value"), 1));
	struct gpu_sample *s;
	char *end;
	double v;
	long g;

	if (!name || !ns || !*ns || !pod || !*pod || !gpu || !text)
		return 0;
	errno = 0;
	g = strtol(gpu, &end, 10);
	if (errno || *end || g < 0 || g > 1024)
		return 0;
	v = strtod(text, &end);
	if (*end || !isfinite(v))
		return 0;
	if (!(s = sample_for(m, ns, pod, (int)g, cap)))
		return -ENOMEM;
	set_figure(s, name, v);
	return 0;
}

int gpu_metrics_decode(struct gpu_metrics *m, const json_t *answer)
{
	const char *status = json_string_value(json_object_get(answer, "status"));
	const json_t *data = json_object_get(answer, "data");
	const json_t *result = json_object_get(data, "result");
	size_t cap = m->n, i;
	const json_t *r;

	if (!status || strcmp(status, "success") || !json_is_array(result)) {
		const char *why = json_string_value(json_object_get(answer, "error"));

		snprintf(m->error, sizeof(m->error), "Prometheus answered no vector: %.200s",
		         why ? why : status ? status : "not a query answer");
		return -EINVAL;
	}
	json_array_foreach(result, i, r)
		if (add_series(m, r, &cap))
			return -ENOMEM;
	for (i = 0; i < m->n; i++)
		if (m->s[i].total_mib < 0 && m->s[i].used_mib >= 0 && m->s[i].free_mib >= 0)
			m->s[i].total_mib = m->s[i].used_mib + m->s[i].free_mib;
	if (m->n)
		qsort(m->s, m->n, sizeof(*m->s), sample_cmp);
	return 0;
}

size_t gpu_metrics_of_pod(const struct gpu_metrics *m, const char *ns, const char *name,
                          const struct gpu_sample **first)
{
	size_t i = 0, n = 0;

	*first = NULL;
	if (!m)
		return 0;
	while (i < m->n && (strcmp(m->s[i].ns, ns) || strcmp(m->s[i].pod, name)))
		i++;
	while (i + n < m->n && !strcmp(m->s[i + n].ns, ns) && !strcmp(m->s[i + n].pod, name))
		n++;
	if (n)
		*first = &m->s[i];
	return n;
}
