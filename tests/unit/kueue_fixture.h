/*
 * Kueue's objects as the API server sends them, for the unit tests of their decoders
 * (test_k8s_kueue_decode.c) and of the queue renderers (test_render_queues.c,
 * test_render_status.c): a queued, an admitted, a preempted, an evicted (and one held
 * out of line) and a finished Workload, LocalQueues and ClusterQueues of both versions, a visibility line. Times:
 * around 2025-12-05T11:00:00Z (KUEUE_T0).
 */
#ifndef ARENAFS_TESTS_KUEUE_FIXTURE_H
#define ARENAFS_TESTS_KUEUE_FIXTURE_H

#include <jansson.h>

#include "k8s/objects/objects.h"

#define KUEUE_T0 1764932400 /* 2025-12-05T11:00:00Z */

#define WL_OWNER(kind, name) \
	"\"ownerReferences\":[{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"" kind "\"," \
	"\"name\":\"" name "\",\"uid\":\"j-" name "\",\"controller\":true}]"
#define WL_PODSET(gpus) \
	"\"podSets\":[{\"name\":\"worker\",\"count\":2,\"template\":{\"spec\":{\"containers\":" \
	"[{\"name\":\"tensorflow\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"" gpus "\"}}}]}}}]"

#define WL_QUEUED \
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{\"name\":" \
	"\"tfjob-big-1a2b3\",\"namespace\":\"default\",\"uid\":\"w1\",\"creationTimestamp\":" \
	"\"2025-12-05T10:55:00Z\"," WL_OWNER("TFJob", "big") "},\"spec\":{\"queueName\":" \
	"\"user-queue\",\"priority\":5," WL_PODSET("2") "},\"status\":{\"conditions\":[{\"type\":" \
	"\"QuotaReserved\",\"status\":\"False\",\"reason\":\"Pending\",\"message\":\"couldn't " \
	"assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor " \
	"default-flavor, 4 more needed\",\"lastTransitionTime\":\"2025-12-05T10:57:00Z\"}]}}"

#define WL_ADMITTED \
	"{\"metadata\":{\"name\":\"tfjob-a-aaaaa\",\"namespace\":\"default\",\"uid\":\"w2\"," \
	"\"creationTimestamp\":\"2025-12-05T10:40:00Z\"," WL_OWNER("TFJob", "a") "},\"spec\":" \
	"{\"queueName\":\"user-queue\"," WL_PODSET("1") "},\"status\":{\"admission\":" \
	"{\"clusterQueue\":\"cluster-queue\",\"podSetAssignments\":[{\"name\":\"worker\"," \
	"\"resourceUsage\":{\"nvidia.com/gpu\":\"4\",\"cpu\":\"2\"}}]},\"conditions\":[{\"type\":" \
	"\"QuotaReserved\",\"status\":\"True\",\"reason\":\"QuotaReserved\",\"message\":\"Quota " \
	"reserved in ClusterQueue cluster-queue\",\"lastTransitionTime\":\"2025-12-05T10:41:00Z\"}," \
	"{\"type\":\"Admitted\",\"status\":\"True\",\"reason\":\"Admitted\",\"message\":\"The " \
	"workload is admitted\",\"lastTransitionTime\":\"2025-12-05T10:41:00Z\"}]}}"

#define WL_PREEMPTED \
	"{\"metadata\":{\"name\":\"pytorchjob-low-ppppp\",\"namespace\":\"team-a\",\"uid\":\"w3\"," \
	"\"creationTimestamp\":\"2025-12-05T10:30:00Z\"," WL_OWNER("PyTorchJob", "low") "}," \
	"\"spec\":{\"queueName\":\"user-queue\"," WL_PODSET("2") "},\"status\":{\"conditions\":[" \
	"{\"type\":\"Evicted\",\"status\":\"True\",\"reason\":\"Preempted\",\"message\":" \
	"\"Preempted to accommodate a workload (UID: w9, JobUID: j9) due to prioritization in the " \
	"ClusterQueue\",\"lastTransitionTime\":\"2025-12-05T10:58:00Z\"},{\"type\":\"Preempted\"," \
	"\"status\":\"True\",\"reason\":\"InClusterQueue\",\"message\":\"Preempted to accommodate " \
	"a workload (UID: w9, JobUID: j9) due to prioritization in the ClusterQueue\"," \
	"\"lastTransitionTime\":\"2025-12-05T10:58:00Z\"},{\"type\":\"QuotaReserved\",\"status\":" \
	"\"False\",\"reason\":\"Preempted\",\"message\":\"Preempted\"}]}}"

#define WL_EVICTED \
	"{\"metadata\":{\"name\":\"tfjob-ev-eeeee\",\"namespace\":\"default\",\"uid\":\"w4\"," \
	"\"creationTimestamp\":\"2025-12-05T10:20:00Z\"," WL_OWNER("TFJob", "ev") "},\"spec\":" \
	"{\"queueName\":\"user-queue\"," WL_PODSET("1") "},\"status\":{\"conditions\":[{\"type\":" \
	"\"Evicted\",\"status\":\"True\",\"reason\":\"LocalQueueStopped\",\"message\":\"The " \
	"LocalQueue is stopped\",\"lastTransitionTime\":\"2025-12-05T10:59:00Z\"}]}}"

/* An MPIJob's Workload as the real Kueue v0.17 left it a while after its LocalQueue was
 * stopped with HoldAndDrain: evicted, and held out of line (Inadmissible). */
#define WL_HELD \
	"{\"metadata\":{\"name\":\"mpijob-mq-wait-174f2\",\"namespace\":\"default\",\"uid\":" \
	"\"w6\",\"creationTimestamp\":\"2025-12-05T10:20:00Z\",\"ownerReferences\":[{\"apiVersion\":" \
	"\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"name\":\"mq-wait\",\"uid\":\"j-mq\"," \
	"\"controller\":true}]},\"spec\":{\"queueName\":\"user-queue\"," WL_PODSET("2") "}," \
	"\"status\":{\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"False\",\"reason\":" \
	"\"Inadmissible\",\"message\":\"LocalQueue user-queue is inactive\",\"lastTransitionTime\":" \
	"\"2025-12-05T10:59:30Z\"},{\"type\":\"Evicted\",\"status\":\"True\",\"reason\":" \
	"\"LocalQueueStopped\",\"message\":\"The LocalQueue is stopped\",\"lastTransitionTime\":" \
	"\"2025-12-05T10:59:00Z\"},{\"type\":\"Admitted\",\"status\":\"False\",\"reason\":" \
	"\"NoReservation\",\"message\":\"The workload has no reservation\"}]}}"

#define WL_FINISHED \
	"{\"metadata\":{\"name\":\"tfjob-done-fffff\",\"namespace\":\"default\",\"uid\":\"w5\"}," \
	"\"spec\":{\"queueName\":\"user-queue\"},\"status\":{\"conditions\":[{\"type\":" \
	"\"Finished\",\"status\":\"True\",\"reason\":\"Succeeded\"},{\"type\":\"Admitted\"," \
	"\"status\":\"True\"}]}}"

#define LQ_V1BETA2 \
	"{\"metadata\":{\"name\":\"user-queue\",\"namespace\":\"default\",\"creationTimestamp\":" \
	"\"2025-12-05T10:00:00Z\"},\"spec\":{\"clusterQueue\":\"cluster-queue\"},\"status\":" \
	"{\"pendingWorkloads\":1,\"reservingWorkloads\":1,\"admittedWorkloads\":1,\"flavorsUsage\":" \
	"[{\"name\":\"default-flavor\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"total\":\"4\"}," \
	"{\"name\":\"cpu\",\"total\":\"3\"}]}]}}"

#define LQ_V1BETA1 \
	"{\"metadata\":{\"name\":\"old-queue\",\"namespace\":\"default\",\"creationTimestamp\":" \
	"\"2025-12-05T09:00:00Z\"},\"spec\":{\"clusterQueue\":\"gone-queue\"},\"status\":" \
	"{\"flavorUsage\":[{\"name\":\"f\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"total\":3}]}]}}"

#define CQ_V1BETA2 \
	"{\"metadata\":{\"name\":\"cluster-queue\",\"creationTimestamp\":\"2025-12-05T10:00:00Z\"}," \
	"\"spec\":{\"cohortName\":\"all\",\"queueingStrategy\":\"BestEffortFIFO\",\"resourceGroups\":" \
	"[{\"coveredResources\":[\"cpu\",\"nvidia.com/gpu\"],\"flavors\":[{\"name\":\"default-flavor\"," \
	"\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"100\"},{\"name\":\"nvidia.com/gpu\"," \
	"\"nominalQuota\":\"6\"}]},{\"name\":\"spare\",\"resources\":[{\"name\":\"nvidia.com/gpu\"," \
	"\"nominalQuota\":2}]}]}]},\"status\":{\"pendingWorkloads\":1,\"reservingWorkloads\":2," \
	"\"admittedWorkloads\":2,\"flavorsUsage\":[{\"name\":\"default-flavor\",\"resources\":[{" \
	"\"name\":\"nvidia.com/gpu\",\"total\":\"8\",\"borrowed\":\"0\"}]}],\"conditions\":[{\"type\":" \
	"\"Active\",\"status\":\"True\",\"reason\":\"Ready\",\"message\":\"Can admit new workloads\"}]}}"

#define CQ_V1BETA1 \
	"{\"metadata\":{\"name\":\"gone-queue\",\"creationTimestamp\":\"2025-12-05T09:00:00Z\"}," \
	"\"spec\":{\"cohort\":\"old\",\"queueingStrategy\":\"StrictFIFO\"},\"status\":{" \
	"\"conditions\":[{\"type\":\"Active\",\"status\":\"False\",\"reason\":\"FlavorNotFound\"," \
	"\"message\":\"Can't admit new workloads: references missing ResourceFlavor(s): [gone]\"}]}}"

/* A ClusterQueue whose quota names no GPU: cpu and memory in two flavors, in a cohort
 * it borrows cpu from (in flavor on-demand, up to its borrowingLimit), lending memory
 * up to a limit; quantities as the API server writes them. */
#define CQ_COHORT \
	"{\"metadata\":{\"name\":\"cpu-queue\",\"creationTimestamp\":\"2025-12-05T10:00:00Z\"}," \
	"\"spec\":{\"cohortName\":\"research\",\"queueingStrategy\":\"BestEffortFIFO\"," \
	"\"resourceGroups\":[{\"coveredResources\":[\"cpu\",\"memory\"],\"flavors\":[{\"name\":" \
	"\"on-demand\",\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"2\",\"borrowingLimit\":" \
	"\"4\"},{\"name\":\"memory\",\"nominalQuota\":\"4Gi\",\"lendingLimit\":\"1Gi\"}]},{\"name\":" \
	"\"spot\",\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"500m\"},{\"name\":\"memory\"," \
	"\"nominalQuota\":\"1Gi\"}]}]}]},\"status\":{\"admittedWorkloads\":1,\"flavorsUsage\":[{" \
	"\"name\":\"on-demand\",\"resources\":[{\"name\":\"cpu\",\"total\":\"5\",\"borrowed\":" \
	"\"3\"},{\"name\":\"memory\",\"total\":\"2Gi\",\"borrowed\":\"0\"}]},{\"name\":\"spot\"," \
	"\"resources\":[{\"name\":\"cpu\",\"total\":\"0\"},{\"name\":\"memory\",\"total\":" \
	"\"0\"}]}],\"conditions\":[{\"type\":\"Active\",\"status\":\"True\"}]}}"

/* An admitted Workload of cpu-queue whose job carries the label
 * kueue.x-k8s.io/priority-class: its WorkloadPriorityClass, v1beta2's reference. */
#define WL_WPC \
	"{\"metadata\":{\"name\":\"tfjob-urgent-uuuuu\",\"namespace\":\"default\",\"uid\":\"w7\"," \
	"\"creationTimestamp\":\"2025-12-05T10:50:00Z\"," WL_OWNER("TFJob", "urgent") "},\"spec\":" \
	"{\"queueName\":\"cpu-lq\",\"priority\":10000,\"priorityClassRef\":{\"group\":" \
	"\"kueue.x-k8s.io\",\"kind\":\"WorkloadPriorityClass\",\"name\":\"urgent\"}," WL_PODSET("0") \
	"},\"status\":{\"admission\":{\"clusterQueue\":\"cpu-queue\",\"podSetAssignments\":[{" \
	"\"name\":\"chief\",\"flavors\":{\"cpu\":\"on-demand\",\"memory\":\"on-demand\"}},{\"name\":" \
	"\"worker\",\"flavors\":{\"cpu\":\"spot\",\"memory\":\"on-demand\"}}]},\"conditions\":[{\"type\":" \
	"\"QuotaReserved\",\"status\":\"True\",\"lastTransitionTime\":\"2025-12-05T10:51:00Z\"}," \
	"{\"type\":\"Admitted\",\"status\":\"True\"}]}}"

/* v1beta1 names the class and its source instead. */
#define WL_V1BETA1_PRIORITY \
	"{\"metadata\":{\"name\":\"w-old\",\"namespace\":\"default\"},\"spec\":{\"priority\":7," \
	"\"priorityClassName\":\"batch\",\"priorityClassSource\":" \
	"\"kueue.x-k8s.io/workloadpriorityclass\"}}"

/* A Cohort object: research's parent, org (which has no object of its own). */
#define COHORT_RESEARCH \
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Cohort\",\"metadata\":{\"name\":" \
	"\"research\"},\"spec\":{\"parentName\":\"org\"}}"

#define LINE_TWO \
	"{\"kind\":\"PendingWorkloadsSummary\",\"items\":[{\"metadata\":{\"name\":" \
	"\"tfjob-big-1a2b3\",\"namespace\":\"default\"},\"priority\":5,\"localQueueName\":" \
	"\"user-queue\",\"positionInClusterQueue\":1,\"positionInLocalQueue\":0},{\"metadata\":{}}," \
	"{\"metadata\":{\"name\":\"tfjob-later-9z9z9\"},\"positionInClusterQueue\":2," \
	"\"positionInLocalQueue\":1}]}"

static inline struct workload *fx_workload(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct workload *w = o ? workload_decode(o) : NULL;

	json_decref(o);
	return w;
}

static inline struct localqueue *fx_localqueue(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct localqueue *q = o ? localqueue_decode(o) : NULL;

	json_decref(o);
	return q;
}

static inline struct clusterqueue *fx_clusterqueue(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct clusterqueue *q = o ? clusterqueue_decode(o) : NULL;

	json_decref(o);
	return q;
}

static inline struct kueue_cohort *fx_cohort(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct kueue_cohort *c = o ? cohort_decode(o) : NULL;

	json_decref(o);
	return c;
}

static inline struct queue_line *fx_line(const char *ns, const char *lq, const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct queue_line *l = o ? queue_line_decode(o, ns, lq) : NULL;

	json_decref(o);
	return l;
}

#endif
