/*
 * Decoding a Prometheus instant-query answer into per-GPU figures
 * (gpumetrics.h). Each result is one series: {"metric": {labels},
 * "value": [time, "string"]}. A series is filed under (namespace, pod, gpu)
 * from DCGM's labels or Arena's, whichever it has, a GPU no pod holds under its
 * node and index (nodes/NODE/info shows it); series of other names, or with
 * neither a pod nor a node, are skipped. A series without a name that carries
 * GPU_METRICS_MAX_LABEL is a duty cycle's maximum over the window.
 * Pure; test: tests/unit/test_gpumetrics.c.
 */
#include "k8s/objects/gpumetrics.h"

#include <assert.h>
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
		free(m->s[i].node);
	}
	free(m->s);
	free(m->by_node);
	free(m);
}

static const char *label(const json_t *metric, const char *dcgm, const char *arena)
{
	const char *v = json_string_value(json_object_get(metric, dcgm));

	return v && *v ? v : json_string_value(json_object_get(metric, arena));
}

/* One series of the answer, its strings the answer's. key_node is its node when it
 * has no pod (a GPU no pod holds is told apart by its node), else "". */
struct series {
	const char *ns, *pod, *name, *node, *key_node;
	int gpu;
	double v;
};

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
	else if (!strcmp(name, GPU_METRICS_MAX_LABEL) && v > s->duty_max)
		s->duty_max = v;     /* both families' maxima of one GPU: the higher */
}

static int key_cmp(const char *ns_a, const char *pod_a, int gpu_a, const char *ns_b,
                   const char *pod_b, int gpu_b)
{
	int c = strcmp(ns_a, ns_b);

	if (!c)
		c = strcmp(pod_a, pod_b);
	return c ? c : (gpu_a > gpu_b) - (gpu_a < gpu_b);
}

/* A pod's GPUs by namespace, pod and index; those of no pod (ns, pod "") by node then. */
static int series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	if (!c)
		c = strcmp(x->pod, y->pod);
	if (!c)
		c = strcmp(x->key_node, y->key_node);
	return c ? c : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* A series of a pod's GPU with a number, into *out: true; false to skip it. */
static bool read_series(const json_t *r, struct series *out)
{
	const json_t *metric = json_object_get(r, "metric");
	const char *gpu = label(metric, "gpu", "minor_number");
	const char *text = json_string_value(json_array_get(json_object_get(r, "value"), 1));
	char *end;
	long g;

	out->name = json_string_value(json_object_get(metric, "__name__"));
	if (!out->name && json_object_get(metric, GPU_METRICS_MAX_LABEL))
		out->name = GPU_METRICS_MAX_LABEL;
	out->ns = label(metric, "namespace", "namespace_name");
	out->pod = label(metric, "pod", "pod_name");
	out->node = label(metric, "Hostname", "node_name");
	if (!out->ns || !*out->ns || !out->pod || !*out->pod)
		out->ns = out->pod = "";
	if (out->node && !*out->node)
		out->node = NULL;
	out->key_node = *out->pod || !out->node ? "" : out->node;
	if (!out->name || (!*out->pod && !out->node) || !gpu || !text)
		return false;
	errno = 0;
	g = strtol(gpu, &end, 10);
	if (errno || *end || end == gpu || g < 0 || g > 1024)
		return false;
	out->gpu = (int)g;
	out->v = strtod(text, &end);
	return !*end && end != text && isfinite(out->v);
}

/* The series, sorted by pod and GPU (so that one pass makes the samples: an answer
 * for 10,000 pods has some 120,000), into samples of m. 0 or -ENOMEM. */
static int add_sorted(struct gpu_metrics *m, struct series *sr, size_t n)
{
	struct gpu_sample *s = NULL;

	qsort(sr, n, sizeof(*sr), series_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!s || series_cmp(&sr[i - 1], &sr[i])) {
			s = &m->s[m->n];
			*s = (struct gpu_sample){.gpu = sr[i].gpu, .duty = -1, .duty_max = -1,
			                         .used_mib = -1, .total_mib = -1, .free_mib = -1};
			s->ns = strdup(sr[i].ns);
			s->pod = strdup(sr[i].pod);
			if (!s->ns || !s->pod) {
				free(s->ns);
				free(s->pod);
				return -ENOMEM;
			}
			m->n++;
		}
		if (!s->node && sr[i].node && !(s->node = strdup(sr[i].node)))
			return -ENOMEM;
		set_figure(s, sr[i].name, sr[i].v);
	}
	return 0;
}

/* by_node's order: node, index, namespace, pod. */
static int node_cmp(const void *a, const void *b)
{
	const struct gpu_sample *x = *(struct gpu_sample *const *)a;
	const struct gpu_sample *y = *(struct gpu_sample *const *)b;
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	if (x->gpu != y->gpu)
		return (x->gpu > y->gpu) - (x->gpu < y->gpu);
	return key_cmp(x->ns, x->pod, 0, y->ns, y->pod, 0);
}

/* m->by_node: the samples that name their node, sorted for gpu_metrics_of_node. */
static int index_nodes(struct gpu_metrics *m)
{
	if (!m->n)
		return 0;
	m->by_node = malloc(m->n * sizeof(*m->by_node));
	if (!m->by_node)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		if (m->s[i].node)
			m->by_node[m->n_by_node++] = &m->s[i];
	qsort(m->by_node, m->n_by_node, sizeof(*m->by_node), node_cmp);
	return 0;
}

int gpu_metrics_decode(struct gpu_metrics *m, const json_t *answer)
{
	const char *status = json_string_value(json_object_get(answer, "status"));
	const json_t *data = json_object_get(answer, "data");
	const json_t *result = json_object_get(data, "result");
	struct series *sr;
	size_t n = 0, i;
	const json_t *r;
	int rc;

	if (!status || strcmp(status, "success") || !json_is_array(result)) {
		const char *why = json_string_value(json_object_get(answer, "error"));

		snprintf(m->error, sizeof(m->error), "Prometheus answered no vector: %.200s",
		         why ? why : status ? status : "not a query answer");
		return -EINVAL;
	}
	assert(m->n == 0 && !m->s);
	if (!json_array_size(result))
		return 0;
	sr = malloc(json_array_size(result) * sizeof(*sr));
	m->s = calloc(json_array_size(result), sizeof(*m->s));
	if (!sr || !m->s) {
		free(sr);
		return -ENOMEM;
	}
	json_array_foreach(result, i, r)
		if (read_series(r, &sr[n]))
			n++;
	rc = add_sorted(m, sr, n);
	free(sr);
	for (i = 0; i < m->n; i++)
		if (m->s[i].total_mib < 0 && m->s[i].used_mib >= 0 && m->s[i].free_mib >= 0)
			m->s[i].total_mib = m->s[i].used_mib + m->s[i].free_mib;
	return rc ? rc : index_nodes(m);
}

size_t gpu_metrics_of_pod(const struct gpu_metrics *m, const char *ns, const char *name,
                          const struct gpu_sample **first)
{
	size_t lo = 0, hi = m ? m->n : 0, n = 0;

	*first = NULL;
	/* the first sample not before (ns, name, GPU 0): indices are >= 0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(m->s[mid].ns, m->s[mid].pod, m->s[mid].gpu, ns, name, 0) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (m && lo + n < m->n && !strcmp(m->s[lo + n].ns, ns) &&
	       !strcmp(m->s[lo + n].pod, name))
		n++;
	if (n)
		*first = &m->s[lo];
	return n;
}

size_t gpu_metrics_of_node(const struct gpu_metrics *m, const char *name,
                           struct gpu_sample *const **first)
{
	size_t lo = 0, hi = m ? m->n_by_node : 0, n = 0;

	*first = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(m->by_node[mid]->node, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (m && lo + n < m->n_by_node && !strcmp(m->by_node[lo + n]->node, name))
		n++;
	if (n)
		*first = &m->by_node[lo];
	return n;
}
