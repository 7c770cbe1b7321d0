/*
 * Tests of k8s/objects/objects_decode.c and k8s/objects/job_decode.c against real-shaped objects
 * in tests/fixtures/objects/: jobs of several kinds, pods in every state, which
 * job a pod belongs to, nodes with roles and GPUs, services, events, and the
 * interning of repeated strings.
 */
#include "tests/unit/harness.h"

#include <stdlib.h>

#include "k8s/objects/objects.h"
#include "k8s/objects/objpack.h"
#include "k8s/base/timefmt.h"

static json_t *load(const char *name)
{
	char path[256];
	json_error_t jerr;
	json_t *j;

	snprintf(path, sizeof(path), "objects/%s", name);
	j = json_load_file(harness_fixture(path), 0, &jerr);
	if (!j)
		harness_fail(__FILE__, __LINE__, "cannot load %s: %s", path, jerr.text);
	return j;
}

static struct pod *load_pod(const char *name)
{
	json_t *j = load(name);
	struct pod *p = j ? pod_decode(j) : NULL;

	json_decref(j);
	if (!p)
		harness_fail(__FILE__, __LINE__, "pod_decode(%s) failed", name);
	return p;
}

#define T(s) time_parse_rfc3339(s)

TEST(objects_tfjob_with_conditions_replicas_and_spec)
{
	json_t *j = load("tfjob_running.json");
	struct job *job = job_decode(j, JOB_TFJOB);

	json_decref(j); /* the object must not borrow from the JSON */
	CHECK(job != NULL);
	if (!job)
		return;
	CHECK_STR_EQ(job->meta.name, "mnist");
	CHECK_STR_EQ(job->meta.namespace, "default");
	CHECK_STR_EQ(job->meta.uid, "0d5c5e0a-6f2c-4d4a-9a5e-3b8f2a1c7e11");
	CHECK_STR_EQ(job->meta.resource_version, "48213");
	CHECK_INT_EQ(job->meta.created, T("2026-03-02T10:14:29Z"));
	CHECK_INT_EQ(job->meta.deleted, 0);
	CHECK_STR_EQ(kv_get(&job->meta.labels, "release"), "mnist");
	CHECK(kv_get(&job->meta.labels, "nope") == NULL);
	CHECK_INT_EQ(job->kind, JOB_TFJOB);
	CHECK_STR_EQ(job->api_version, "kubeflow.org/v1");

	CHECK_INT_EQ(job->n_conditions, 2);
	if (job->n_conditions == 2) {
		CHECK_STR_EQ(job->conditions[0].type, "Created");
		CHECK_STR_EQ(job->conditions[1].type, "Running");
		CHECK(job->conditions[1].status);
		CHECK_STR_EQ(job->conditions[1].reason, "TFJobRunning");
		CHECK_STR_EQ(job->conditions[1].message, "TFJob default/mnist is running.");
		CHECK_INT_EQ(job->conditions[1].last_transition, T("2026-03-02T10:14:41Z"));
	}
	CHECK_INT_EQ(job->n_replicas, 2);
	if (job->n_replicas == 2) {
		CHECK_STR_EQ(job->replicas[0].type, "PS");
		CHECK_INT_EQ(job->replicas[0].replicas, 1);
		CHECK_INT_EQ(job->replicas[0].gpus, 0);
		CHECK_STR_EQ(job->replicas[0].image, "tensorflow/tensorflow:2.15.0");
		CHECK_INT_EQ(job->replicas[0].active, 1);
		CHECK_STR_EQ(job->replicas[1].type, "Worker");
		CHECK_INT_EQ(job->replicas[1].replicas, 2);
		CHECK_INT_EQ(job->replicas[1].gpus, 2); /* both containers' limits */
		CHECK_STR_EQ(job->replicas[1].image, "tensorflow/tensorflow:2.15.0-gpu");
		CHECK_INT_EQ(job->replicas[1].active, 1);
		CHECK_INT_EQ(job->replicas[1].failed, 1);
		CHECK_INT_EQ(job->replicas[1].succeeded, 0);
	}
	CHECK_INT_EQ(job->start_time, T("2026-03-02T10:14:30Z"));
	CHECK_INT_EQ(job->completion_time, 0);
	CHECK_STR_EQ(job->priority_class, "high"); /* schedulingPolicy beats the template */
	CHECK(job->spec_annotation != NULL);
	CHECK_STR_CONTAINS(job->spec_annotation, "workers: 2\n");
	CHECK_STR_EQ(kv_get(&job->meta.annotations, "arenafs.io/spec"), job->spec_annotation);
	/* Only the annotations the tree uses are kept. */
	CHECK_INT_EQ(job->meta.annotations.n, 1);

	/* raw_json: the object, compact, without managedFields */
	CHECK(job->raw_json != NULL && strchr(job->raw_json, '\n') == NULL);
	CHECK(strstr(job->raw_json, "managedFields") == NULL);
	CHECK(strstr(job->raw_json, "\"tfReplicaSpecs\":{\"PS\"") != NULL);
	CHECK(strstr(job->raw_json, "last-applied-configuration") != NULL);
	CHECK(strstr(job->raw_json, "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",") ==
	      job->raw_json);
	json_t *back = json_loads(job->raw_json, 0, NULL);
	CHECK(back != NULL);
	CHECK_STR_EQ(json_string_value(json_object_get(back, "kind")), "TFJob");
	json_decref(back);
	job_free(job);
}

TEST(objects_job_decode_leaves_the_json_untouched)
{
	json_t *j = load("tfjob_running.json");
	char *before = json_dumps(j, JSON_COMPACT);
	struct job *job = job_decode(j, JOB_TFJOB);
	char *after = json_dumps(j, JSON_COMPACT);

	CHECK_STR_EQ(after, before);
	job_free(job);
	free(before);
	free(after);
	json_decref(j);
}

TEST(objects_pytorchjob_succeeded_defaults_and_odd_gpu_quantity)
{
	json_t *j = load("pytorchjob_succeeded.json");
	struct job *job = job_decode(j, JOB_PYTORCHJOB);

	json_decref(j);
	CHECK(job != NULL);
	if (!job)
		return;
	CHECK_STR_EQ(job->meta.namespace, "team-a");
	CHECK_INT_EQ(job->n_conditions, 3);
	CHECK(!job->conditions[1].status);
	CHECK_STR_EQ(job->conditions[2].type, "Succeeded");
	CHECK_INT_EQ(job->n_replicas, 2);
	CHECK_STR_EQ(job->replicas[0].type, "Master");
	CHECK_INT_EQ(job->replicas[0].replicas, 1); /* absent: default 1 */
	CHECK_INT_EQ(job->replicas[0].gpus, 2);     /* a JSON number is accepted too */
	CHECK_INT_EQ(job->replicas[0].succeeded, 1);
	CHECK_INT_EQ(job->replicas[1].replicas, 3);
	CHECK_INT_EQ(job->replicas[1].gpus, 0); /* "500m" is not a GPU count */
	CHECK_INT_EQ(job->completion_time, T("2026-03-01T09:30:00Z"));
	CHECK_STR_EQ(job->priority_class, "batch"); /* from the template */
	CHECK(job->spec_annotation == NULL);
	CHECK_INT_EQ(job->meta.labels.n, 0);
	job_free(job);
}

TEST(objects_job_of_the_wrong_kind_or_without_name_is_refused)
{
	json_t *j = load("tfjob_running.json");

	CHECK(job_decode(j, JOB_PYTORCHJOB) == NULL);
	json_object_del(json_object_get(j, "metadata"), "name");
	CHECK(job_decode(j, JOB_TFJOB) == NULL);
	json_decref(j);
	j = json_pack("{s:s}", "kind", "TFJob");
	CHECK(job_decode(j, JOB_TFJOB) == NULL);
	json_decref(j);
	CHECK(pod_decode(NULL) == NULL);
	CHECK(node_decode(NULL) == NULL);
}

TEST(objects_mpijob_v2beta1_and_its_pods)
{
	json_t *j = load("mpijob_v2beta1.json");
	struct job *job = job_decode(j, JOB_MPIJOB_V2);
	struct pod *launcher = load_pod("pod_mpi_launcher.json");
	struct pod *worker = load_pod("pod_mpi_worker_v2.json");

	json_decref(j);
	CHECK(job != NULL);
	if (job) {
		CHECK_STR_EQ(job->api_version, "kubeflow.org/v2beta1");
		CHECK_INT_EQ(job->n_replicas, 2);
		CHECK_STR_EQ(job->replicas[0].type, "Launcher");
		CHECK_INT_EQ(job->replicas[1].gpus, 1);
		CHECK_INT_EQ(job->replicas[1].active, 2);
		CHECK_STR_EQ(job->priority_class, "");
	}
	if (launcher) {
		/* owned by the batch Job hvd-launcher; the labels name the MPIJob */
		CHECK_STR_EQ(launcher->job_name, "hvd");
		CHECK_INT_EQ(launcher->job_kind, JOB_MPIJOB_V2);
		CHECK_STR_EQ(launcher->replica_type, "launcher");
		CHECK_STR_EQ(launcher->job_role, "launcher");
		CHECK_INT_EQ(launcher->phase, POD_SUCCEEDED);
		CHECK_INT_EQ(launcher->containers[0].state.kind, CONTAINER_TERMINATED);
		CHECK_STR_EQ(launcher->containers[0].state.reason, "Completed");
	}
	if (worker) {
		CHECK_STR_EQ(worker->job_name, "hvd");
		CHECK_INT_EQ(worker->job_kind, JOB_MPIJOB_V2);
		CHECK_STR_EQ(worker->replica_type, "worker");
		CHECK_INT_EQ(worker->replica_index, 1);
		CHECK_INT_EQ(worker->gpus, 1);
	}
	job_free(job);
	pod_free(launcher);
	pod_free(worker);
}

TEST(objects_trainjob_and_its_jobset_pod)
{
	json_t *j = load("trainjob.json");
	struct job *job = job_decode(j, JOB_TRAINJOB);
	struct pod *p = load_pod("pod_trainjob_node.json");

	json_decref(j);
	CHECK(job != NULL);
	if (job) {
		CHECK_INT_EQ(job->n_replicas, 1);
		CHECK_STR_EQ(job->replicas[0].type, "Node");
		CHECK_INT_EQ(job->replicas[0].replicas, 4);
		CHECK_INT_EQ(job->replicas[0].gpus, 8);
		CHECK_STR_EQ(job->replicas[0].image, "docker.io/kubeflow/pytorch-mnist:v1");
		CHECK_INT_EQ(job->replicas[0].succeeded, 2);
		CHECK_STR_EQ(job->conditions[0].type, "Complete");
		/* status.trainerStatus, as the status server's controller writes it */
		CHECK(job->trainer.reported);
		CHECK_INT_EQ(job->trainer.progress, 100);
		CHECK_INT_EQ(job->trainer.remaining, 0);
		CHECK_INT_EQ(job->trainer.updated, 1772608170); /* 2026-03-04T07:09:30Z */
		CHECK_INT_EQ(job->trainer.n_metrics, 2);
		CHECK_STR_EQ(job->trainer.metrics[0].name, "loss");
		CHECK_STR_EQ(job->trainer.metrics[0].value, "0.0412");
		CHECK_STR_EQ(job->trainer.metrics[1].name, "eval_accuracy");
	}
	if (p) {
		CHECK_STR_EQ(p->job_name, "llama");
		CHECK_INT_EQ(p->job_kind, JOB_TRAINJOB);
		CHECK_STR_EQ(p->replica_type, "node");
		CHECK_INT_EQ(p->replica_index, 2);
	}
	job_free(job);
	pod_free(p);
}

/* The kinds Arena lists beyond the training-operator's: replicas from each one's
 * own spec, the state string, the kind's start and end fields. */
TEST(objects_label_found_kinds_decode_replicas_and_state)
{
	static const struct {
		const char *file;
		enum job_kind kind;
		const char *state;
		int n_replicas;
		const char *type1; /* the second replica's */
		int replicas1, gpus1;
		const char *image1;
		const char *start, *end;
	} CASES[] = {
	    {"etjob.json", JOB_ETJOB, "Failed", 2, "worker", 4, 2, "registry.example/horovod:0.22",
	     "2026-03-04T07:00:02Z", "2026-03-04T07:30:00Z"},
	    {"volcanojob.json", JOB_VOLCANOJOB, "Running", 2, "worker", 2, 1, "ubuntu:22.04", NULL,
	     NULL},
	    {"sparkapplication.json", JOB_SPARKJOB, "COMPLETED", 2, "Executor", 3, 1,
	     "apache/spark:3.5.0", "2026-03-04T07:00:03Z", "2026-03-04T07:05:00Z"},
	    {"rayjob.json", JOB_RAYJOB, "RUNNING", 2, "gpu-group", 2, 1, "rayproject/ray:2.9.0-gpu",
	     "2026-03-04T07:00:04Z", NULL},
	};

	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		json_t *j = load(CASES[i].file);
		struct job *job = job_decode(j, CASES[i].kind);

		json_decref(j);
		CHECK(job != NULL);
		if (!job)
			continue;
		CHECK_STR_EQ(job->state, CASES[i].state);
		CHECK_INT_EQ(job->n_replicas, CASES[i].n_replicas);
		if (job->n_replicas == 2) {
			CHECK_INT_EQ(job->replicas[0].replicas, 1);
			CHECK_STR_EQ(job->replicas[1].type, CASES[i].type1);
			CHECK_INT_EQ(job->replicas[1].replicas, CASES[i].replicas1);
			CHECK_INT_EQ(job->replicas[1].gpus, CASES[i].gpus1);
			CHECK_STR_EQ(job->replicas[1].image, CASES[i].image1);
		}
		CHECK_INT_EQ(job->start_time, CASES[i].start ? T(CASES[i].start) : 0);
		CHECK_INT_EQ(job->completion_time, CASES[i].end ? T(CASES[i].end) : 0);
		job_free(job);
	}
}

TEST(objects_etjob_keeps_priority_and_the_timeout_annotation)
{
	json_t *j = load("etjob.json");
	struct job *job = job_decode(j, JOB_ETJOB);

	json_decref(j);
	CHECK(job != NULL);
	if (job) {
		CHECK_STR_EQ(job->replicas[0].type, "launcher");
		CHECK_STR_EQ(job->priority_class, "high");
		CHECK_STR_EQ(kv_get(&job->meta.annotations, "job-supervisor.kube-ai.io/job-status"),
		             "timeout");
	}
	job_free(job);
}

/* Arena's DeepSpeedJob is an ETJob (a TrainingJob) labelled app=deepspeedjob: its
 * type and Trainer say so, as arena list does; an ETJob's stay etjob and ETJOB. */
TEST(objects_deepspeedjob_is_an_etjob_by_its_app_label)
{
	json_t *j = load("etjob.json");
	struct job *et = job_decode(j, JOB_ETJOB), *ds;

	json_object_set_new(json_object_get(json_object_get(j, "metadata"), "labels"), "app",
	                    json_string("deepspeedjob"));
	ds = job_decode(j, JOB_ETJOB);
	json_decref(j);
	CHECK(et != NULL && ds != NULL);
	if (et && ds) {
		CHECK_STR_EQ(job_type_name(et), "etjob");
		CHECK_STR_EQ(job_trainer_name(et), "ETJOB");
		CHECK_STR_EQ(job_type_name(ds), "deepspeedjob");
		CHECK_STR_EQ(job_trainer_name(ds), "DEEPSPEEDJOB");
	}
	job_free(et);
	job_free(ds);
}

/* Their pods: the controller when it is the job, else the operator's label, else
 * Arena's app/release — never a TensorBoard's. */
TEST(objects_pods_of_label_found_kinds)
{
	static const struct {
		const char *file;
		const char *job;
		int kind;
		const char *replica_type;
	} CASES[] = {
	    {"pod_etjob_launcher.json", "elastic", JOB_ETJOB, "launcher"},
	    {"pod_volcano_task.json", "vc", JOB_VOLCANOJOB, "worker"},
	    {"pod_spark_executor.json", "pi", JOB_SPARKJOB, "executor"},
	    {"pod_ray_worker.json", "sample", JOB_RAYJOB, "worker"},
	    {"pod_arena_labels.json", "ds", JOB_ETJOB, ""}, /* Arena's DeepSpeedJob */
	    {"pod_arena_tensorboard.json", NULL, -1, ""},
	};

	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		struct pod *p = load_pod(CASES[i].file);

		if (!p)
			continue;
		if (CASES[i].job)
			CHECK_STR_EQ(p->job_name, CASES[i].job);
		else
			CHECK(p->job_name == NULL);
		CHECK_INT_EQ(p->job_kind, CASES[i].kind);
		CHECK_STR_EQ(p->replica_type, CASES[i].replica_type);
		pod_free(p);
	}
}

TEST(objects_running_worker_pod)
{
	struct pod *p = load_pod("pod_tfjob_worker_running.json");
	const struct container *c;

	if (!p)
		return;
	CHECK_STR_EQ(p->meta.name, "mnist-worker-0");
	CHECK_STR_EQ(p->job_name, "mnist");
	CHECK_INT_EQ(p->job_kind, JOB_TFJOB);
	CHECK_STR_EQ(p->replica_type, "worker");
	CHECK_INT_EQ(p->replica_index, 0);
	CHECK_STR_EQ(p->job_role, "master");
	CHECK_STR_EQ(p->node_name, "gpu-node-1");
	CHECK_STR_EQ(p->pod_ip, "10.244.1.17");
	CHECK_STR_EQ(p->host_ip, "192.168.1.11");
	CHECK_INT_EQ(p->phase, POD_RUNNING);
	CHECK_STR_EQ(p->reason, "");
	CHECK_STR_EQ(p->unschedulable, "");
	CHECK_INT_EQ(p->start_time, T("2026-03-02T10:14:30Z"));
	CHECK_STR_EQ(p->priority_class, "high");
	CHECK_STR_EQ(p->restart_policy, "Never");
	CHECK_INT_EQ(p->gpus, 1);
	/* of its seven labels only release is kept (the tree reads no other of a pod's) */
	CHECK_INT_EQ(p->meta.labels.n, 1);
	CHECK_STR_EQ(kv_get(&p->meta.labels, "release"), "mnist");
	CHECK(kv_get(&p->meta.labels, "training.kubeflow.org/job-name") == NULL);
	CHECK_STR_EQ(kv_get(&p->meta.annotations, "kubectl.kubernetes.io/default-container"),
	             "tensorflow");
	CHECK(kv_get(&p->meta.annotations, "cni.projectcalico.org/podIP") == NULL);
	CHECK_INT_EQ(p->n_containers, 1);
	CHECK_INT_EQ(p->n_init_containers, 0);
	CHECK(p->init_containers == NULL);
	c = &p->containers[0];
	CHECK_STR_EQ(c->name, "tensorflow");
	CHECK_STR_EQ(c->image, "tensorflow/tensorflow:2.15.0-gpu");
	CHECK_INT_EQ(c->gpus, 1);
	CHECK(c->ready);
	CHECK_INT_EQ(c->restart_count, 0);
	CHECK_STR_EQ(
	    c->container_id,
	    "containerd://5a1f0e6c3b2d4e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f");
	CHECK_INT_EQ(c->state.kind, CONTAINER_RUNNING);
	CHECK_INT_EQ(c->state.started, T("2026-03-02T10:14:40Z"));
	CHECK_INT_EQ(c->last_state.kind, CONTAINER_NONE);
	pod_free(p);
}

TEST(objects_unschedulable_pod)
{
	struct pod *p = load_pod("pod_pending_unschedulable.json");

	if (!p)
		return;
	CHECK_INT_EQ(p->phase, POD_PENDING);
	CHECK_STR_EQ(p->node_name, "");
	CHECK_STR_EQ(p->pod_ip, "");
	CHECK_STR_CONTAINS(p->unschedulable,
	                   "0/3 nodes are available: 3 Insufficient nvidia.com/gpu");
	CHECK_INT_EQ(p->gpus, 4);
	CHECK_INT_EQ(p->start_time, 0);
	/* no status for the container yet */
	CHECK_INT_EQ(p->containers[0].state.kind, CONTAINER_NONE);
	CHECK_STR_EQ(p->containers[0].container_id, "");
	CHECK(!p->containers[0].ready);
	pod_free(p);
}

TEST(objects_pod_with_init_containers)
{
	struct pod *p = load_pod("pod_init_containers.json");

	if (!p)
		return;
	CHECK_STR_EQ(p->job_name, "synced");
	CHECK_INT_EQ(p->job_kind, JOB_PYTORCHJOB); /* no owner: the operator-name label */
	CHECK_INT_EQ(p->n_init_containers, 2);
	CHECK_STR_EQ(p->init_containers[0].name, "git-sync");
	CHECK_INT_EQ(p->init_containers[0].state.kind, CONTAINER_TERMINATED);
	CHECK_STR_EQ(p->init_containers[0].state.reason, "Completed");
	CHECK_INT_EQ(p->init_containers[0].state.exit_code, 0);
	CHECK_INT_EQ(p->init_containers[0].state.finished, T("2026-03-02T11:00:05Z"));
	CHECK_STR_EQ(
	    p->init_containers[0].state.container_id,
	    "containerd://aaaa000000000000000000000000000000000000000000000000000000000001");
	/* the terminated state names the container's own instance: one copy for both */
	CHECK(p->init_containers[0].state.container_id == p->init_containers[0].container_id);
	CHECK_INT_EQ(p->init_containers[1].state.kind, CONTAINER_RUNNING);
	CHECK_INT_EQ(p->n_containers, 2);
	CHECK_INT_EQ(p->containers[0].state.kind, CONTAINER_WAITING);
	CHECK_STR_EQ(p->containers[0].state.reason, "PodInitializing");
	CHECK_STR_EQ(p->containers[1].name, "tensorboard");
	CHECK_INT_EQ(p->gpus, 2); /* init containers do not count */
	CHECK_STR_EQ(p->restart_policy, "OnFailure");
	pod_free(p);
}

TEST(objects_restarted_container_keeps_last_state)
{
	struct pod *p = load_pod("pod_restarted.json");
	const struct container *c;

	if (!p)
		return;
	CHECK_STR_EQ(p->replica_type, "worker"); /* lowercased */
	CHECK_INT_EQ(p->replica_index, 3);
	c = &p->containers[0];
	CHECK_INT_EQ(c->restart_count, 2);
	CHECK_INT_EQ(c->state.kind, CONTAINER_WAITING);
	CHECK_STR_EQ(c->state.reason, "CrashLoopBackOff");
	CHECK_STR_CONTAINS(c->state.message, "back-off 20s");
	CHECK_INT_EQ(c->last_state.kind, CONTAINER_TERMINATED);
	CHECK_INT_EQ(c->last_state.exit_code, 137);
	CHECK_STR_EQ(c->last_state.reason, "OOMKilled");
	CHECK_STR_EQ(c->last_state.message, "memory limit exceeded");
	CHECK_INT_EQ(c->last_state.started, T("2026-03-02T12:03:00Z"));
	CHECK_STR_EQ(
	    c->last_state.container_id,
	    "containerd://bbbb000000000000000000000000000000000000000000000000000000000002");
	CHECK_STR_EQ(
	    c->container_id,
	    "containerd://bbbb000000000000000000000000000000000000000000000000000000000003");
	pod_free(p);
}

TEST(objects_evicted_pod_with_old_labels)
{
	struct pod *p = load_pod("pod_evicted.json");

	if (!p)
		return;
	CHECK_INT_EQ(p->phase, POD_FAILED);
	CHECK_STR_EQ(p->reason, "Evicted");
	CHECK_STR_CONTAINS(p->message, "low on resource: memory");
	CHECK(p->meta.deleted == T("2026-03-01T01:00:30Z"));
	/* the old operator's job-name label, no owner: kind unknown */
	CHECK_STR_EQ(p->job_name, "legacy");
	CHECK_INT_EQ(p->job_kind, -1);
	CHECK_STR_EQ(p->replica_type, "ps");
	CHECK_INT_EQ(p->replica_index, 0);
	pod_free(p);
}

TEST(objects_pod_matching_by_old_labels_and_not_batch_jobs)
{
	struct pod *tf = load_pod("pod_tf_old_labels.json");
	struct pod *batch = load_pod("pod_batch_job.json");

	if (tf) {
		CHECK_STR_EQ(tf->job_name, "oldtf");
		CHECK_INT_EQ(tf->job_kind, JOB_TFJOB);
		CHECK_STR_EQ(tf->replica_type, "chief");
		CHECK_INT_EQ(tf->replica_index, 0);
		CHECK_INT_EQ(tf->gpus, 0); /* "2Ki" is not a count */
		CHECK_INT_EQ(tf->phase, POD_PENDING);
	}
	if (batch) {
		/* job-name is also batch/v1's label: a batch Job's pod is not a training pod */
		CHECK(batch->job_name == NULL);
		CHECK_INT_EQ(batch->job_kind, -1);
		CHECK_STR_EQ(batch->replica_type, "");
		CHECK_INT_EQ(batch->replica_index, -1);
	}
	pod_free(tf);
	pod_free(batch);
}

TEST(objects_nodes_roles_gpus_and_readiness)
{
	json_t *a = load("node_control_plane.json"), *b = load("node_gpu.json"),
	       *c = load("node_notready_cordoned.json");
	struct k8s_node *cp = node_decode(a), *gpu = node_decode(b), *bad = node_decode(c);

	json_decref(a);
	json_decref(b);
	json_decref(c);
	CHECK(cp && gpu && bad);
	if (!cp || !gpu || !bad)
		goto out;
	CHECK_STR_EQ(cp->meta.name, "cp-1");
	CHECK_STR_EQ(cp->meta.namespace, "");
	CHECK_STR_EQ(cp->roles, "control-plane,master");
	CHECK(cp->ready);
	CHECK(!cp->unschedulable);
	CHECK_STR_EQ(cp->internal_ip, "192.168.1.10");
	CHECK_INT_EQ(cp->gpu_capacity, 0);
	CHECK_STR_EQ(cp->cpu_capacity, "8");
	CHECK_STR_EQ(cp->memory_capacity, "32Gi");

	CHECK_STR_EQ(gpu->roles, "gpu,worker"); /* kubernetes.io/role and node-role.* merged */
	CHECK_INT_EQ(gpu->gpu_capacity, 8);
	CHECK_INT_EQ(gpu->gpu_allocatable, 7);
	CHECK_STR_EQ(gpu->memory_capacity, "515896Mi");
	CHECK_STR_EQ(gpu->internal_ip, "192.168.1.11");

	CHECK_STR_EQ(bad->roles, "gpu"); /* the same role twice is shown once */
	CHECK(!bad->ready);
	CHECK(bad->unschedulable);
	CHECK_STR_EQ(bad->internal_ip, "");
	CHECK_INT_EQ(bad->gpu_capacity, 4);
	CHECK_INT_EQ(bad->gpu_allocatable, 0); /* "0.5" */
out:
	node_free(cp);
	node_free(gpu);
	node_free(bad);
}

TEST(objects_services)
{
	json_t *a = load("service_nodeport.json"), *b = load("service_loadbalancer.json"),
	       *c = load("service_headless.json");
	struct service *np = service_decode(a), *lb = service_decode(b), *hl = service_decode(c);

	json_decref(a);
	json_decref(b);
	json_decref(c);
	CHECK(np && lb && hl);
	if (!np || !lb || !hl)
		goto out;
	CHECK_STR_EQ(np->type, "NodePort");
	CHECK_STR_EQ(np->cluster_ip, "10.96.12.34");
	CHECK_INT_EQ(np->port, 6006);
	CHECK_INT_EQ(np->node_port, 31234);
	CHECK_STR_EQ(np->lb_ingress, "");
	CHECK_STR_EQ(kv_get(&np->meta.labels, "release"), "mnist");
	CHECK_STR_EQ(kv_get(&np->meta.labels, "role"), "tensorboard");
	CHECK(kv_get(&np->meta.labels, "app") == NULL);
	CHECK_STR_EQ(lb->type, "LoadBalancer");
	CHECK_STR_EQ(lb->lb_ingress, "a1b2c3-123.eu-west-1.elb.amazonaws.com");
	CHECK_INT_EQ(lb->port, 80);
	CHECK_STR_EQ(hl->type, "ClusterIP");
	CHECK_STR_EQ(hl->cluster_ip, "None");
	CHECK_INT_EQ(hl->node_port, 0);
out:
	service_free(np);
	service_free(lb);
	service_free(hl);
}

TEST(objects_events_core_and_series)
{
	json_t *a = load("event_core.json"), *b = load("event_series.json");
	struct event *e = event_decode(a), *s = event_decode(b);

	json_decref(a);
	json_decref(b);
	CHECK(e && s);
	if (!e || !s)
		goto out;
	CHECK_STR_EQ(e->involved_kind, "Pod");
	CHECK_STR_EQ(e->involved_name, "mnist-worker-1");
	CHECK_STR_EQ(e->involved_uid, "7f0c2a52-9e33-4d8e-b6d4-2f1e0c9a8b02");
	CHECK_STR_EQ(e->type, "Warning");
	CHECK_STR_EQ(e->reason, "FailedScheduling");
	CHECK_STR_EQ(e->source, "default-scheduler");
	CHECK_INT_EQ(e->count, 3);
	CHECK_INT_EQ(e->first_seen, T("2026-03-02T10:14:30Z"));
	CHECK_INT_EQ(e->last_seen, T("2026-03-02T10:16:30Z"));

	CHECK_STR_EQ(s->involved_kind, "TFJob");
	CHECK_STR_EQ(s->source, "tfjob-controller"); /* source {} → reportingComponent */
	CHECK_INT_EQ(s->count, 4);                   /* from series */
	CHECK_INT_EQ(s->first_seen, T("2026-03-02T10:14:30Z")); /* eventTime */
	CHECK_INT_EQ(s->last_seen, T("2026-03-02T10:20:00Z"));  /* series.lastObservedTime */
	CHECK_STR_EQ(s->message, "Created pod: mnist-worker-0");
out:
	event_free(e);
	event_free(s);
}

/* Repeated strings are shared between objects and released with the last one. */
TEST(objects_repeated_strings_are_interned_and_released)
{
	size_t strings0, bytes0, strings1, bytes1, strings2, bytes2;
	struct pod *a, *b;

	intern_stats(&strings0, &bytes0);
	a = load_pod("pod_tfjob_worker_running.json");
	intern_stats(&strings1, &bytes1);
	b = load_pod("pod_pending_unschedulable.json");
	intern_stats(&strings2, &bytes2);
	if (!a || !b)
		goto out;
	CHECK(strings1 > strings0);
	/* The second pod of the job adds few strings: its namespace, job name, replica
	 * type and image are already there. */
	CHECK(strings2 - strings1 < 8);
	CHECK(a->meta.namespace == b->meta.namespace);
	CHECK(a->job_name == b->job_name);
	CHECK(a->replica_type == b->replica_type);
	CHECK(a->containers[0].image == b->containers[0].image);
	CHECK(a->meta.name != b->meta.name);
out:
	pod_free(a);
	pod_free(b);
	intern_stats(&strings2, &bytes2);
	CHECK_INT_EQ(strings2, strings0);
	CHECK_INT_EQ(bytes2, bytes0);
}

TEST(objects_kv_get_on_empty_lists)
{
	struct kv_list empty = {NULL, 0};

	CHECK(kv_get(&empty, "a") == NULL);
	CHECK(kv_get(NULL, "a") == NULL);
}

TEST(objects_job_keeps_the_code_annotation)
{
	json_t *j = json_loads("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\","
			       "\"metadata\":{\"name\":\"mnist\",\"namespace\":\"default\","
			       "\"uid\":\"u1\",\"annotations\":{"
			       "\"arenafs.io/code\":\"configmap mnist-code\\n0644 3 k a.py\","
			       "\"other\":\"dropped\"}},\"spec\":{\"tfReplicaSpecs\":{}}}",
			       0, NULL);
	struct job *job = j ? job_decode(j, JOB_TFJOB) : NULL;

	json_decref(j);
	CHECK(job != NULL);
	if (!job)
		return;
	CHECK_STR_EQ(job->code_annotation, "configmap mnist-code\n0644 3 k a.py");
	CHECK_STR_EQ(kv_get(&job->meta.annotations, "arenafs.io/code"), job->code_annotation);
	CHECK(job->spec_annotation == NULL);
	CHECK_INT_EQ(job->meta.annotations.n, 1);
	job_free(job);
}

/* The kind's suspend field: runPolicy.suspend for the operator's kinds, spec.suspend
 * for TrainJob; a kind without one never reads as suspended. */
TEST(objects_job_suspend_from_the_kinds_field)
{
	static const struct {
		enum job_kind kind;
		const char *api, *kind_name, *spec;
		bool want;
	} CASES[] = {
		{JOB_TFJOB, "kubeflow.org/v1", "TFJob", "{\"runPolicy\":{\"suspend\":true}}", true},
		{JOB_TFJOB, "kubeflow.org/v1", "TFJob", "{\"runPolicy\":{\"suspend\":false}}", false},
		{JOB_TFJOB, "kubeflow.org/v1", "TFJob", "{\"suspend\":true}", false},
		{JOB_TRAINJOB, "trainer.kubeflow.org/v1alpha1", "TrainJob", "{\"suspend\":true}", true},
		{JOB_RAYJOB, "ray.io/v1", "RayJob", "{\"suspend\":true}", false},
	};

	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		char text[512];
		json_t *j;
		struct job *job;

		snprintf(text, sizeof(text),
		         "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":{\"name\":\"s\","
		         "\"namespace\":\"default\",\"uid\":\"u\"},\"spec\":%s}",
		         CASES[i].api, CASES[i].kind_name, CASES[i].spec);
		j = json_loads(text, 0, NULL);
		job = j ? job_decode(j, CASES[i].kind) : NULL;
		json_decref(j);
		CHECK(job != NULL);
		if (!job)
			continue;
		CHECK_INT_EQ(job->suspend, CASES[i].want);
		job_free(job);
	}
}
