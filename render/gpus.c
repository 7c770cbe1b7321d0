/*
 * GPU accounting and the files that show it: jobs/NAME/gpus, nodes/NAME/gpus,
 * cluster/top (arena top node) and cluster/gpus (its footer); nodes/NAME/info
 * (arena top node -d) is node_info.c's.
 *
 * The sums are Arena 0.15's (pkg/training/gpu.go, pkg/topnode/gpuexclusive.go):
 * - a pod's GPUs: Σ nvidia.com/gpu limits of its containers (pod->gpus);
 * - a job requested: the requestGPUsOfJobOwner annotation of its first pod that
 *   has a positive one, else Σ over its pods;
 * - a job allocated: Σ over its pods that have started (status.startTime) and are
 *   not completed (Succeeded, Failed, or being deleted);
 * - a node: total = capacity, allocated = Σ over pods bound to it that are not
 *   completed (Arena lists them with status.phase!=Succeeded,Failed and skips the
 *   ones being deleted), unhealthy = capacity − allocatable.
 * A node is a GPU node when it has nvidia.com/gpu capacity (Arena asks allocatable,
 * which would make a node whose GPUs are all unhealthy look CPU-only).
 *
 * Layout of cluster/top: Arena's table for a cluster of CPU and GPU nodes — CPU
 * nodes first, then GPU nodes, each by name; the UNHEALTHY column only when a node
 * has unhealthy GPUs — and always the footer "Allocated/Total GPUs In Cluster:"
 * (Arena varies the header and drops the footer in one-kind clusters; one layout
 * is easier to read by scripts). Pure; tested by tests/unit/test_render_gpus.c.
 */
#include "render/gpus.h"
#include "render/nodes.h"
#include "render/pods.h"
#include "render/render.h"
#include "render/status.h"
#include "render/table.h"
#include "render/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_RULE                                                                                   \
	"----------------------------------------------------------------------------------------" \
	"-----------"

/* Arena's IsCompletedPod: Succeeded, Failed or being deleted. */
bool render_pod_is_completed(const struct pod *pod)
{
	return pod->phase == POD_SUCCEEDED || pod->phase == POD_FAILED || pod->meta.deleted != 0;
}

/* A positive decimal, as Go's strconv.ParseInt reads it; 0 otherwise. */
static int parse_positive(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > 1000000000L)
		return 0;
	return (int)v;
}

int render_job_gpus_requested(const struct job_view *v)
{
	int sum = 0;

	for (size_t i = 0; i < v->n_pods; i++) {
		int n = parse_positive(
		    render_kv(&v->pods[i]->meta.annotations, "requestGPUsOfJobOwner"));

		if (n > 0)
			return n;
	}
	for (size_t i = 0; i < v->n_pods; i++)
		sum += v->pods[i]->gpus;
	/* a job Kueue holds has no pods yet: what its Workload asks for */
	if (!v->n_pods && v->queue.workload)
		return v->queue.workload->gpus;
	return sum;
}

int render_job_gpus_allocated(const struct job_view *v)
{
	int sum = 0;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct pod *p = v->pods[i];

		if (p->start_time && !render_pod_is_completed(p))
			sum += p->gpus;
	}
	return sum;
}

int render_node_gpus_allocated(const struct node_view *v)
{
	int sum = 0;

	for (size_t i = 0; i < v->n_pods; i++)
		if (!render_pod_is_completed(v->pods[i]))
			sum += v->pods[i]->gpus;
	return sum;
}

int render_node_gpus_unhealthy(const struct k8s_node *n)
{
	int u = n->gpu_capacity - n->gpu_allocatable;

	return n->gpu_capacity > 0 && u > 0 ? u : 0;
}

bool render_node_has_gpus(const struct k8s_node *n)
{
	return n->gpu_capacity > 0;
}

bool render_pod_shows_gpu_metrics(const struct pod *pod)
{
	return pod->gpus > 0 && pod->phase == POD_RUNNING && !pod->meta.deleted;
}

const char *render_gpu_metrics_missing(const struct gpu_metrics *m, size_t n, char *buf,
                                       size_t size)
{
	if (!m)
		snprintf(buf, size, "not asked");
	else if (m->error[0])
		snprintf(buf, size, "%s", m->error);
	else if (!n)
		snprintf(buf, size, "Prometheus (%s) has no figures of its GPUs", m->source);
	else
		return NULL;
	return buf;
}

/* "no GPU metrics: WHY" when m has no figures for pod, true when it has. */
static bool gpu_metrics_or_why(struct strbuf *sb, const struct gpu_metrics *m, size_t n)
{
	char why[sizeof(m->error) + sizeof(m->source) + 64];

	if (render_gpu_metrics_missing(m, n, why, sizeof(why)))
		strbuf_printf(sb, "no GPU metrics: %s\n", why);
	return m && !m->error[0] && n;
}

static void fmt_mib(char *buf, size_t size, double mib)
{
	if (mib < 0)
		snprintf(buf, size, "%s", RENDER_NA);
	else
		snprintf(buf, size, "%.1f", mib);
}

void render_gpu_cells(const struct gpu_sample *s, char *duty, size_t duty_size, char *mem,
                      size_t mem_size)
{
	char used[32], total[32];

	if (s->duty < 0)
		snprintf(duty, duty_size, "%s", RENDER_NA);
	else
		snprintf(duty, duty_size, "%.1f%%", s->duty);
	fmt_mib(used, sizeof(used), s->used_mib);
	fmt_mib(total, sizeof(total), s->total_mib);
	snprintf(mem, mem_size, "%s/%s(MiB)", used, total);
}

void render_pod_gpus_metrics(struct strbuf *sb, const struct pod *pod,
                             const struct gpu_metrics *m)
{
	const struct gpu_sample *s;
	struct render_table t;
	size_t n;

	render_pod_gpus(sb, pod);
	if (!render_pod_shows_gpu_metrics(pod))
		return;
	n = gpu_metrics_of_pod(m, pod->meta.namespace, pod->meta.name, &s);
	if (!gpu_metrics_or_why(sb, m, n))
		return;
	render_table_init(&t, 3);
	/* Arena's column names (arena top job NAME) */
	render_table_add(&t, (const char *[]){"GPU(DeviceIndex)", "GPU(DutyCycle)",
	                                      "GPU_MEMORY(Used/Total)"});
	for (size_t i = 0; i < n; i++) {
		char idx[16], duty[32], mem[80];

		snprintf(idx, sizeof(idx), "%d", s[i].gpu);
		render_gpu_cells(&s[i], duty, sizeof(duty), mem, sizeof(mem));
		render_table_add(&t, (const char *[]){idx, duty, mem});
	}
	render_table_render(sb, &t, "");
	render_table_free(&t);
}

/* The figures of every GPU the job's running pods hold: their mean duty cycle and
 * their memory summed, in one line. */
static void job_gpu_metrics(struct strbuf *sb, const struct job_view *v)
{
	double duty = 0, used = 0, total = 0;
	size_t gpus = 0, with_duty = 0, pods = 0, asked = 0;

	for (size_t i = 0; i < v->n_pods; i++) {
		const struct gpu_sample *s;
		size_t n;

		if (!render_pod_shows_gpu_metrics(v->pods[i]))
			continue;
		asked++;
		n = gpu_metrics_of_pod(v->gpu_metrics, v->pods[i]->meta.namespace,
		                       v->pods[i]->meta.name, &s);
		pods += n > 0;
		for (size_t j = 0; j < n; j++, gpus++) {
			if (s[j].duty >= 0) {
				duty += s[j].duty;
				with_duty++;
			}
			used += s[j].used_mib > 0 ? s[j].used_mib : 0;
			total += s[j].total_mib > 0 ? s[j].total_mib : 0;
		}
	}
	if (!asked || !gpu_metrics_or_why(sb, v->gpu_metrics, gpus))
		return;
	strbuf_printf(sb, "GPU(DutyCycle) %.1f%% (mean of %zu GPU%s of %zu instance%s), "
	              "GPU_MEMORY(Used/Total) %.1f/%.1f(MiB)\n",
	              with_duty ? duty / (double)with_duty : 0.0, gpus, gpus == 1 ? "" : "s", pods,
	              pods == 1 ? "" : "s", used, total);
}

void render_job_gpus(struct strbuf *sb, const struct job_view *v)
{
	/* ALLOCATED/REQUESTED, as nodes/NAME/gpus is ALLOCATED/TOTAL: one form for scripts */
	strbuf_printf(sb, "%d/%d\n", render_job_gpus_allocated(v), render_job_gpus_requested(v));
	if (v->gpu_metrics)
		job_gpu_metrics(sb, v);
}

void render_node_gpus(struct strbuf *sb, const struct node_view *v)
{
	strbuf_printf(sb, "%d/%d\n", render_node_gpus_allocated(v), v->node->gpu_capacity);
}

int render_pod_cmp_ns_name(const void *a, const void *b)
{
	const struct pod *pa = *(const struct pod *const *)a, *pb = *(const struct pod *const *)b;
	int c = strcmp(pa->meta.namespace, pb->meta.namespace);

	return c ? c : strcmp(pa->meta.name, pb->meta.name);
}

struct cluster_sums {
	long long total, allocated, unhealthy;
};

static struct cluster_sums cluster_sum(const struct node_view *nodes, size_t n)
{
	struct cluster_sums s = {0, 0, 0};

	for (size_t i = 0; i < n; i++) {
		if (!render_node_has_gpus(nodes[i].node))
			continue;
		s.total += nodes[i].node->gpu_capacity;
		s.allocated += render_node_gpus_allocated(&nodes[i]);
		s.unhealthy += render_node_gpus_unhealthy(nodes[i].node);
	}
	return s;
}

static double percent(long long part, long long total)
{
	return total ? (double)part / (double)total * 100.0 : 0.0;
}

/* CPU nodes first, then GPU nodes (Arena prints its node processors in that order),
 * each by name. */
static int view_cmp_top(const void *a, const void *b)
{
	const struct k8s_node *na = ((const struct node_view *const *)a)[0]->node;
	const struct k8s_node *nb = ((const struct node_view *const *)b)[0]->node;

	if (render_node_has_gpus(na) != render_node_has_gpus(nb))
		return render_node_has_gpus(na) ? 1 : -1;
	return strcmp(na->meta.name, nb->meta.name);
}

static void top_rows(struct render_table *t, const struct node_view *const *order, size_t n,
                     bool unhealthy_col)
{
	for (size_t i = 0; i < n; i++) {
		const struct k8s_node *node = order[i]->node;
		bool gpu = render_node_has_gpus(node);
		char total[16], alloc[16], unhealthy[16];

		snprintf(total, sizeof(total), "%d", gpu ? node->gpu_capacity : 0);
		snprintf(alloc, sizeof(alloc), "%d",
		         gpu ? render_node_gpus_allocated(order[i]) : 0);
		snprintf(unhealthy, sizeof(unhealthy), "%d", render_node_gpus_unhealthy(node));
		render_table_add(
		    t, (const char *[]){
		           node->meta.name, node->internal_ip[0] ? node->internal_ip : RENDER_NA,
		           node->roles[0] ? node->roles : "<none>", render_node_status_word(node),
		           total, alloc, unhealthy_col ? unhealthy : NULL});
	}
}

void render_cluster_top(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	const struct node_view **order = NULL;
	struct cluster_sums s = cluster_sum(nodes, n);
	bool unhealthy_col = s.unhealthy > 0;
	struct render_table t;

	render_table_init(&t, unhealthy_col ? 7 : 6);
	if (n) {
		order = malloc(n * sizeof(*order));
		if (!order) {
			sb->oom = true;
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &nodes[i];
	if (n)
		qsort(order, n, sizeof(*order), view_cmp_top);
	render_table_add(&t, (const char *[]){"NAME", "IPADDRESS", "ROLE", "STATUS", "GPU(Total)",
	                                      "GPU(Allocated)", "UNHEALTHY"});
	top_rows(&t, order, n, unhealthy_col);
	render_table_render(sb, &t, "");
	strbuf_puts(sb, TOP_RULE "\n");
	strbuf_printf(sb, "Allocated/Total GPUs In Cluster:\n%lld/%lld (%.1f%%)\n", s.allocated,
	              s.total, percent(s.allocated, s.total));
	if (s.unhealthy)
		strbuf_printf(sb, "Unhealthy/Total GPUs In Cluster:\n%lld/%lld (%.1f%%)\n",
		              s.unhealthy, s.total, percent(s.unhealthy, s.total));
out:
	render_table_free(&t);
	free(order);
}

void render_cluster_gpus(struct strbuf *sb, const struct node_view *nodes, size_t n)
{
	struct cluster_sums s = cluster_sum(nodes, n);

	strbuf_printf(sb, "Allocated/Total GPUs In Cluster: %lld/%lld (%.1f%%)\n", s.allocated,
	              s.total, percent(s.allocated, s.total));
	if (s.unhealthy)
		strbuf_printf(sb, "Unhealthy/Total GPUs In Cluster: %lld/%lld (%.1f%%)\n",
		              s.unhealthy, s.total, percent(s.unhealthy, s.total));
}
