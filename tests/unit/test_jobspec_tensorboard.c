/*
 * Tests render/jobspec/tensorboard.c: the Deployment and NodePort Service of
 * `tensorboard: true`, owned by the created job.
 */
#include "render/jobspec/spec.h"
#include "tests/unit/harness.h"
#include "tests/unit/json_path.h"
#include "tests/unit/jobspec_testing.h"

#include <errno.h>

/* The job as the API server would return it: with a uid. */
static json_t *created(const json_t *job, const char *uid)
{
	json_t *c = json_deep_copy(job);

	json_object_set_new(json_object_get(c, "metadata"), "uid", json_string(uid));
	return c;
}

struct tb {
	json_t *job, *deploy, *svc;
};

static void tb_build(const char *file, int line, const char *text, const bool *served,
                     struct tb *out)
{
	struct job_spec *s = spec_test_parse(file, line, text, "mnist", served);
	struct k8s_error err;
	json_t *job = NULL, *made = NULL;

	out->job = out->deploy = out->svc = NULL;
	if (!s)
		return;
	if (spec_build_job(s, "team-a", &job, &err) != 0) {
		harness_fail(file, line, "build: %s", err.message);
		spec_free(s);
		return;
	}
	made = created(job, "7f1c-uid");
	if (spec_build_tensorboard(s, "team-a", made, &out->deploy, &out->svc, &err) != 0)
		harness_fail(file, line, "tensorboard: %s", err.message);
	out->job = job;
	json_decref(made);
	spec_free(s);
}

static void tb_free(struct tb *t)
{
	json_decref(t->job);
	json_decref(t->deploy);
	json_decref(t->svc);
}

#define TB_POD "spec.template.spec"
#define TB_C   TB_POD ".containers[0]"

TEST(spec_tensorboard_deployment)
{
	struct tb t;

	tb_build(__FILE__, __LINE__,
	         "type: tfjob\nimage: t\ncommand: x\nworkers: 2\ntensorboard: true\npriority: low\n"
	         "tolerations: [all]\nimage_pull_secrets: [regcred]\n",
	         SERVED_ALL, &t);
	if (!t.deploy)
		goto out;
	CHECK_STR_EQ(jp_str(t.deploy, "apiVersion"), "apps/v1");
	CHECK_STR_EQ(jp_str(t.deploy, "kind"), "Deployment");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.name"), "mnist-tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.namespace"), "team-a");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.labels.role"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.labels.release"), "mnist");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.labels.app"), "tfjob");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.labels.createdBy"), "TFJob");
	CHECK_STR_EQ(jp_str(t.deploy, "metadata.labels[\"arenafs.io/submitted-by\"]"), "arenafs");
	CHECK_INT_EQ(jp_int(t.deploy, "spec.replicas"), 1);
	CHECK_INT_EQ(jp_size(t.deploy, "spec.selector.matchLabels"), 3);
	CHECK_STR_EQ(jp_str(t.deploy, "spec.selector.matchLabels.role"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, "spec.template.metadata.labels.role"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, "spec.template.metadata.labels.release"), "mnist");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".name"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".image"),
	             "registry.cn-zhangjiakou.aliyuncs.com/acs/tensorflow:1.12.0-devel");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".command[0]"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".command[1]"), "--logdir");
	/* logs on no volume: the node's hostPath, at Arena's path in the container */
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".command[2]"), "/output/training_logs");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".command[4]"), "0.0.0.0");
	CHECK_INT_EQ(jp_int(t.deploy, TB_C ".ports[0].containerPort"), 6006);
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".volumes[0].hostPath.path"),
	             "/arena_logs/team-a/mnist");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".volumeMounts[0].mountPath"), "/output/training_logs");
	/* the same host directory the workers write to */
	CHECK_STR_EQ(jp_str(jp_named(t.job, "spec.tfReplicaSpecs.Worker.template.spec.volumes",
	                             "training-logs-volume"),
	                    "hostPath.path"),
	             "/arena_logs/team-a/mnist");
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".priorityClassName"), "low");
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".tolerations[0].operator"), "Exists");
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".imagePullSecrets[0].name"), "regcred");
	/* beside worker 0: no Chief in this job */
	{
		const json_t *term =
		    jp(t.deploy, TB_POD ".affinity.podAffinity."
		                        "requiredDuringSchedulingIgnoredDuringExecution[0]");

		CHECK_STR_EQ(jp_str(term, "topologyKey"), "kubernetes.io/hostname");
		CHECK_STR_EQ(jp_str(term, "labelSelector.matchLabels[\"training.kubeflow.org/"
		                          "job-name\"]"),
		             "mnist");
		CHECK_STR_EQ(jp_str(term, "labelSelector.matchLabels[\"training.kubeflow.org/"
		                          "replica-type\"]"),
		             "worker");
		CHECK_STR_EQ(jp_str(term, "labelSelector.matchLabels[\"training.kubeflow.org/"
		                          "replica-index\"]"),
		             "0");
	}
out:
	tb_free(&t);
}

TEST(spec_tensorboard_owner_references_carry_the_uid)
{
	struct tb t;
	const json_t *objs[2];

	tb_build(__FILE__, __LINE__, "type: pytorchjob\nimage: p\ncommand: x\ntensorboard: true\n",
	         SERVED_ALL, &t);
	objs[0] = t.deploy;
	objs[1] = t.svc;
	for (int i = 0; i < 2; i++) {
		const json_t *o = objs[i];

		if (!o)
			continue;
		CHECK_INT_EQ(jp_size(o, "metadata.ownerReferences"), 1);
		CHECK_STR_EQ(jp_str(o, "metadata.ownerReferences[0].apiVersion"),
		             "kubeflow.org/v1");
		CHECK_STR_EQ(jp_str(o, "metadata.ownerReferences[0].kind"), "PyTorchJob");
		CHECK_STR_EQ(jp_str(o, "metadata.ownerReferences[0].name"), "mnist");
		CHECK_STR_EQ(jp_str(o, "metadata.ownerReferences[0].uid"), "7f1c-uid");
		CHECK(json_is_true(jp(o, "metadata.ownerReferences[0].controller")));
		CHECK(json_is_true(jp(o, "metadata.ownerReferences[0].blockOwnerDeletion")));
	}
	if (t.deploy)
		CHECK_STR_EQ(jp_str(t.deploy,
		                    TB_POD ".affinity.podAffinity."
		                           "requiredDuringSchedulingIgnoredDuringExecution[0]."
		                           "labelSelector.matchLabels[\"training.kubeflow.org/"
		                           "replica-type\"]"),
		             "master");
	tb_free(&t);
}

TEST(spec_tensorboard_service)
{
	struct tb t;

	tb_build(__FILE__, __LINE__, "type: mpijob\nimage: m\ncommand: x\ntensorboard: true\n",
	         SERVED_MPI_V2, &t);
	if (!t.svc)
		goto out;
	CHECK_STR_EQ(jp_str(t.svc, "apiVersion"), "v1");
	CHECK_STR_EQ(jp_str(t.svc, "kind"), "Service");
	CHECK_STR_EQ(jp_str(t.svc, "metadata.name"), "mnist-tensorboard");
	CHECK_STR_EQ(jp_str(t.svc, "metadata.namespace"), "team-a");
	CHECK_STR_EQ(jp_str(t.svc, "metadata.labels.role"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.svc, "metadata.labels.release"), "mnist");
	CHECK_STR_EQ(jp_str(t.svc, "metadata.labels.app"), "mpijob");
	CHECK_STR_EQ(jp_str(t.svc, "spec.type"), "NodePort");
	CHECK_INT_EQ(jp_size(t.svc, "spec.ports"), 1);
	CHECK_STR_EQ(jp_str(t.svc, "spec.ports[0].name"), "tensorboard");
	CHECK_INT_EQ(jp_int(t.svc, "spec.ports[0].port"), 6006);
	CHECK_INT_EQ(jp_int(t.svc, "spec.ports[0].targetPort"), 6006);
	CHECK_STR_EQ(jp_str(t.svc, "spec.ports[0].protocol"), "TCP");
	/* selects the TensorBoard pod, never the job's pods (they lack role) */
	CHECK_INT_EQ(jp_size(t.svc, "spec.selector"), 3);
	CHECK_STR_EQ(jp_str(t.svc, "spec.selector.role"), "tensorboard");
	CHECK_STR_EQ(jp_str(t.svc, "spec.selector.release"), "mnist");
	CHECK(json_equal(jp(t.svc, "spec.selector"), jp(t.deploy, "spec.selector.matchLabels")));
	CHECK_STR_EQ(jp_str(t.svc, "metadata.ownerReferences[0].apiVersion"),
	             "kubeflow.org/v2beta1");
	/* mpi-operator v2 labels its pods with job-role */
	CHECK_STR_EQ(jp_str(t.deploy,
	                    TB_POD ".affinity.podAffinity."
	                           "requiredDuringSchedulingIgnoredDuringExecution[0]."
	                           "labelSelector.matchLabels[\"training.kubeflow.org/job-role\"]"),
	             "worker");
out:
	tb_free(&t);
}

TEST(spec_tensorboard_reads_logs_from_the_data_volume)
{
	struct tb t;

	tb_build(__FILE__, __LINE__,
	         "type: tfjob\nimage: t\ncommand: x\ntensorboard: true\nlogdir: /mnt/out/logs\n"
	         "data: {inputs: /in, results: /mnt/out}\ntensorboard_image: tensorflow/"
	         "tensorflow:2.15.0\nimage_pull_policy: IfNotPresent\n",
	         SERVED_ALL, &t);
	if (!t.deploy)
		goto out;
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".image"), "tensorflow/tensorflow:2.15.0");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".imagePullPolicy"), "IfNotPresent");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".command[2]"), "/mnt/out/logs");
	CHECK_INT_EQ(jp_size(t.deploy, TB_POD ".volumes"), 1);
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".volumes[0].persistentVolumeClaim.claimName"),
	             "results");
	CHECK_STR_EQ(jp_str(t.deploy, TB_C ".volumeMounts[0].mountPath"), "/mnt/out");
	/* a standalone Chief is the main pod */
	CHECK_STR_EQ(jp_str(t.deploy, TB_POD ".affinity.podAffinity."
	                                     "requiredDuringSchedulingIgnoredDuringExecution[0]."
	                                     "labelSelector.matchLabels[\"training.kubeflow.org/"
	                                     "replica-type\"]"),
	             "chief");
out:
	tb_free(&t);
}

TEST(spec_tensorboard_refusals)
{
	struct job_spec *s =
	    PARSE("type: tfjob\nimage: t\ncommand: x\ntensorboard: true\n", "mnist", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL, *d = NULL, *v = NULL, *other;

	if (!s)
		return;
	CHECK_INT_EQ(spec_build_job(s, "team-a", &job, &err), 0);
	/* no uid yet: the job was not created */
	CHECK_INT_EQ(spec_build_tensorboard(s, "team-a", job, &d, &v, &err), -EINVAL);
	CHECK(d == NULL && v == NULL);
	CHECK_STR_CONTAINS(err.message, "metadata.uid");
	other = created(job, "u");
	json_object_set_new(json_object_get(other, "metadata"), "name", json_string("other"));
	CHECK_INT_EQ(spec_build_tensorboard(s, "team-a", other, &d, &v, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "the created job is \"other\", not this spec's \"mnist\"");
	json_decref(other);
	json_decref(job);
	spec_free(s);
	s = PARSE("type: tfjob\nimage: t\ncommand: x\n", "mnist", SERVED_ALL);
	if (!s)
		return;
	CHECK(!spec_wants_tensorboard(s));
	CHECK_INT_EQ(spec_build_tensorboard(s, "team-a", NULL, &d, &v, &err), -EINVAL);
	spec_free(s);
}
