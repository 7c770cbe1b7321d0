/*
 * Tests render/jobspec/build.c: the job object of each job type, field by field,
 * against what Arena 0.15 creates for the same flags.
 */
#include "render/jobspec/spec.h"
#include "tests/unit/harness.h"
#include "tests/unit/json_path.h"
#include "tests/unit/jobspec_testing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define TF_WORKER   "spec.tfReplicaSpecs.Worker"
#define TF_WORKER_C TF_WORKER ".template.spec.containers[0]"
#define TF_PS_C     "spec.tfReplicaSpecs.PS.template.spec.containers[0]"

static const char TF_FULL[] = "type: tfjob\n"
                              "image: tensorflow/tensorflow:2.15.0-gpu\n"
                              "command: python code/main.py --logdir /training_logs\n"
                              "gpus: 1\n"
                              "workers: 2\n"
                              "ps: 1\n"
                              "cpu: 4\n"
                              "memory: 8Gi\n"
                              "env: {BATCH_SIZE: 64, MODE: \"train\"}\n"
                              "data: {training-data: /data/}\n"
                              "data_dir: {/mnt/nfs: /nfs}\n"
                              "selector: {accelerator: a100}\n"
                              "tolerations:\n"
                              "  - {key: gpu, operator: Exists, effect: NoSchedule}\n"
                              "priority: high\n"
                              "retry: 3\n"
                              "labels: {team: ml}\n"
                              "annotations: {owner: alice}\n"
                              "image_pull_secrets: regcred\n"
                              "ttl_after_finished: 1h\n";

TEST(spec_build_tfjob_top_level)
{
	json_t *job = JOB(TF_FULL);

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "apiVersion"), "kubeflow.org/v1");
	CHECK_STR_EQ(jp_str(job, "kind"), "TFJob");
	CHECK_STR_EQ(jp_str(job, "metadata.name"), "mnist");
	CHECK_STR_EQ(jp_str(job, "metadata.namespace"), "team-a");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.app"), "tfjob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.release"), "mnist");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.createdBy"), "TFJob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels[\"arenafs.io/submitted-by\"]"), "arenafs");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.team"), "ml");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.owner"), "alice");
	/* Arena: chief + evaluator + workers, times gpus; PS GPUs do not count */
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "2");
	CHECK_STR_CONTAINS(jp_str(job, "metadata.annotations[\"arenafs.io/spec\"]"),
	                   "command: python code/main.py --logdir /training_logs\n");
	CHECK_STR_EQ(jp_str(job, "spec.runPolicy.cleanPodPolicy"), "Running");
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.backoffLimit"), 3);
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.ttlSecondsAfterFinished"), 3600);
	CHECK(jp(job, "spec.runPolicy.activeDeadlineSeconds") == NULL);
	CHECK_INT_EQ(jp_size(job, "spec.tfReplicaSpecs"), 2);
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.PS.replicas"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.PS.restartPolicy"), "Never");
	CHECK_INT_EQ(jp_int(job, TF_WORKER ".replicas"), 2);
	/* without a Chief, Arena's workers do not restart */
	CHECK_STR_EQ(jp_str(job, TF_WORKER ".restartPolicy"), "Never");
	json_decref(job);
}

TEST(spec_build_tfjob_worker_container)
{
	json_t *job = JOB(TF_FULL);

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".name"), "tensorflow");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".image"), "tensorflow/tensorflow:2.15.0-gpu");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".imagePullPolicy"), "Always");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".workingDir"), "/root");
	CHECK_INT_EQ(jp_size(job, TF_WORKER_C ".command"), 3);
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".command[0]"), "sh");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".command[1]"), "-c");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".command[2]"),
	             "python code/main.py --logdir /training_logs");
	CHECK_STR_EQ(jp_env(job, TF_WORKER_C, "BATCH_SIZE"), "64");
	CHECK_STR_EQ(jp_env(job, TF_WORKER_C, "MODE"), "train");
	CHECK_STR_EQ(jp_env(job, TF_WORKER_C, "workers"), "2");
	CHECK_STR_EQ(jp_env(job, TF_WORKER_C, "gpus"), "1");
	CHECK(jp_env(job, TF_WORKER_C, "NVIDIA_VISIBLE_DEVICES") == NULL);
	/* the spec's env first, in its order, then what Arena injects */
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".env[0].name"), "BATCH_SIZE");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".env[1].name"), "MODE");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.limits[\"nvidia.com/gpu\"]"), "1");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.requests[\"nvidia.com/gpu\"]"), "1");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.limits.cpu"), "4");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.requests.cpu"), "4");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.limits.memory"), "8Gi");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".resources.requests.memory"), "8Gi");
	CHECK_STR_EQ(jp_str(job, TF_WORKER_C ".ports[0].name"), "tfjob-port");
	CHECK_INT_EQ(jp_int(job, TF_WORKER_C ".ports[0].containerPort"), 2222);
	json_decref(job);
}

TEST(spec_build_tfjob_ps_has_no_gpu)
{
	json_t *job = JOB(TF_FULL);

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, TF_PS_C ".name"), "tensorflow");
	CHECK(jp(job, TF_PS_C ".resources.limits[\"nvidia.com/gpu\"]") == NULL);
	CHECK_STR_EQ(jp_str(job, TF_PS_C ".resources.limits.cpu"), "4");
	CHECK_STR_EQ(jp_env(job, TF_PS_C, "NVIDIA_VISIBLE_DEVICES"), "void");
	CHECK_STR_EQ(jp_env(job, TF_PS_C, "gpus"), "1");
	CHECK_INT_EQ(jp_int(job, TF_PS_C ".ports[0].containerPort"), 2222);
	json_decref(job);
}

TEST(spec_build_tfjob_pod_template_spec)
{
	json_t *job = JOB(TF_FULL);
	const char *pod = TF_WORKER ".template";
	char path[256];
	json_t *vol, *mnt;

	if (!job)
		return;
	snprintf(path, sizeof(path), "%s.metadata.labels", pod);
	CHECK_STR_EQ(jp_str(jp(job, path), "app"), "tfjob");
	CHECK_STR_EQ(jp_str(jp(job, path), "release"), "mnist");
	CHECK_STR_EQ(jp_str(jp(job, path), "createdBy"), "TFJob");
	CHECK_STR_EQ(jp_str(jp(job, path), "[\"arenafs.io/submitted-by\"]"), "arenafs");
	CHECK_STR_EQ(jp_str(jp(job, path), "team"), "ml");
	snprintf(path, sizeof(path), "%s.metadata.annotations", pod);
	CHECK_STR_EQ(jp_str(jp(job, path), "requestGPUsOfJobOwner"), "2");
	CHECK_STR_EQ(jp_str(jp(job, path), "owner"), "alice");
	CHECK(jp(jp(job, path), "[\"arenafs.io/spec\"]") == NULL);
	snprintf(path, sizeof(path), "%s.spec", pod);
	CHECK_STR_EQ(jp_str(jp(job, path), "nodeSelector.accelerator"), "a100");
	CHECK_INT_EQ(jp_size(jp(job, path), "tolerations"), 1);
	CHECK_STR_EQ(jp_str(jp(job, path), "tolerations[0].key"), "gpu");
	CHECK_STR_EQ(jp_str(jp(job, path), "tolerations[0].operator"), "Exists");
	CHECK_STR_EQ(jp_str(jp(job, path), "tolerations[0].effect"), "NoSchedule");
	CHECK_STR_EQ(jp_str(jp(job, path), "priorityClassName"), "high");
	CHECK_STR_EQ(jp_str(jp(job, path), "imagePullSecrets[0].name"), "regcred");
	CHECK(jp(jp(job, path), "initContainers") == NULL);
	CHECK(jp(jp(job, path), "restartPolicy") == NULL);
	vol = jp_named(jp(job, path), "volumes", "training-data");
	CHECK_STR_EQ(jp_str(vol, "persistentVolumeClaim.claimName"), "training-data");
	vol = jp_named(jp(job, path), "volumes", "training-data-0");
	CHECK_STR_EQ(jp_str(vol, "hostPath.path"), "/mnt/nfs");
	vol = jp_named(jp(job, path), "volumes", "dshm");
	CHECK_STR_EQ(jp_str(vol, "emptyDir.medium"), "Memory");
	CHECK_STR_EQ(jp_str(vol, "emptyDir.sizeLimit"), "2Gi");
	CHECK_INT_EQ(jp_size(jp(job, path), "volumes"), 3);
	mnt = jp_named(job, TF_WORKER_C ".volumeMounts", "training-data");
	CHECK_STR_EQ(jp_str(mnt, "mountPath"), "/data");
	mnt = jp_named(job, TF_WORKER_C ".volumeMounts", "training-data-0");
	CHECK_STR_EQ(jp_str(mnt, "mountPath"), "/nfs");
	mnt = jp_named(job, TF_WORKER_C ".volumeMounts", "dshm");
	CHECK_STR_EQ(jp_str(mnt, "mountPath"), "/dev/shm");
	json_decref(job);
}

TEST(spec_build_tfjob_single_worker_is_a_standalone_chief)
{
	json_t *job = JOB("type: tf\nimage: tf\ncommand: python m.py\ngpus: 2\n");

	if (!job)
		return;
	/* Arena: one worker and no PS runs as a Chief, without TF_CONFIG */
	CHECK_INT_EQ(jp_size(job, "spec.tfReplicaSpecs"), 1);
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.Chief.replicas"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Chief.restartPolicy"), "Never");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations[\"arena.kubeflow.org/disable-tf-config\"]"),
	             "true");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "2");
	CHECK_STR_EQ(
	    jp_env(job, "spec.tfReplicaSpecs.Chief.template.spec.containers[0]", "workers"), "1");
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Chief.template.spec.containers[0].resources."
	                         "limits[\"nvidia.com/gpu\"]"),
	             "2");
	CHECK(jp(job, "spec.runPolicy.backoffLimit") == NULL);
	json_decref(job);
}

TEST(spec_build_tfjob_chief_and_evaluator)
{
	json_t *job = JOB("type: tfjob\nimage: tf\ncommand: x\ngpus: 1\nworkers: 2\nchief: true\n"
	                  "evaluator: 1\nclean_pod_policy: All\n");

	if (!job)
		return;
	CHECK_INT_EQ(jp_size(job, "spec.tfReplicaSpecs"), 3);
	CHECK_INT_EQ(jp_int(job, TF_WORKER ".replicas"), 2);
	/* with a Chief, Arena's workers restart on failure */
	CHECK_STR_EQ(jp_str(job, TF_WORKER ".restartPolicy"), "OnFailure");
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.Chief.replicas"), 1);
	CHECK_INT_EQ(jp_int(job, "spec.tfReplicaSpecs.Evaluator.replicas"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.tfReplicaSpecs.Evaluator.restartPolicy"), "Never");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "4");
	CHECK_STR_EQ(jp_str(job, "spec.runPolicy.cleanPodPolicy"), "All");
	CHECK(jp(job, "metadata.annotations[\"arena.kubeflow.org/disable-tf-config\"]") == NULL);
	json_decref(job);
}

#define PT_MASTER_C "spec.pytorchReplicaSpecs.Master.template.spec.containers[0]"
#define PT_WORKER_C "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]"

TEST(spec_build_pytorchjob_counts_the_master_as_a_worker)
{
	json_t *job = JOB("type: pytorchjob\nimage: pytorch/pytorch:2.2\ncommand: torchrun m.py\n"
	                  "gpus: 2\nworkers: 3\ncpu: 500m\nmemory: 1.5Gi\nnproc_per_node: gpu\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "kind"), "PyTorchJob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.app"), "pytorchjob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.createdBy"), "PyTorchJob");
	CHECK_INT_EQ(jp_size(job, "spec.pytorchReplicaSpecs"), 2);
	CHECK_INT_EQ(jp_int(job, "spec.pytorchReplicaSpecs.Master.replicas"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.pytorchReplicaSpecs.Master.restartPolicy"), "Never");
	CHECK_INT_EQ(jp_int(job, "spec.pytorchReplicaSpecs.Worker.replicas"), 2);
	CHECK_STR_EQ(jp_str(job, "spec.pytorchReplicaSpecs.Worker.restartPolicy"), "OnFailure");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".name"), "pytorch");
	CHECK_STR_EQ(jp_str(job, PT_WORKER_C ".name"), "pytorch");
	CHECK_STR_EQ(jp_str(job, PT_WORKER_C ".ports[0].name"), "pytorchjob-port");
	CHECK_INT_EQ(jp_int(job, PT_WORKER_C ".ports[0].containerPort"), 23456);
	CHECK_STR_EQ(jp_env(job, PT_WORKER_C, "workers"), "3");
	CHECK_STR_EQ(jp_env(job, PT_MASTER_C, "gpus"), "2");
	CHECK_STR_EQ(jp_env(job, PT_MASTER_C, "PET_NPROC_PER_NODE"), "gpu");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".resources.limits[\"nvidia.com/gpu\"]"), "2");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".resources.requests.cpu"), "500m");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".resources.limits.memory"), "1.5Gi");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "6");
	CHECK_STR_EQ(jp_str(job, "spec.runPolicy.cleanPodPolicy"), "Running");
	/* Arena's pytorch chart always writes backoffLimit: retry */
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.backoffLimit"), 0);
	json_decref(job);
}

TEST(spec_build_pytorchjob_single_worker_is_master_only)
{
	json_t *job = JOB("type: pytorch\nimage: p\ncommand: x\n");

	if (!job)
		return;
	CHECK_INT_EQ(jp_size(job, "spec.pytorchReplicaSpecs"), 1);
	CHECK_INT_EQ(jp_int(job, "spec.pytorchReplicaSpecs.Master.replicas"), 1);
	CHECK_STR_EQ(jp_env(job, PT_MASTER_C, "NVIDIA_VISIBLE_DEVICES"), "void");
	CHECK_STR_EQ(jp_env(job, PT_MASTER_C, "gpus"), "0");
	CHECK(jp(job, PT_MASTER_C ".resources") == NULL);
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "0");
	json_decref(job);
}

#define MPI_L_C "spec.mpiReplicaSpecs.Launcher.template.spec.containers[0]"
#define MPI_W_C "spec.mpiReplicaSpecs.Worker.template.spec.containers[0]"

TEST(spec_build_mpijob_v1_launcher_and_workers)
{
	json_t *job = JOB("type: mpi\nimage: horovod/horovod:0.28\ncommand: mpirun python t.py\n"
	                  "gpus: 4\nworkers: 2\nmemory: 16Gi\nretry: 2\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "apiVersion"), "kubeflow.org/v1");
	CHECK_STR_EQ(jp_str(job, "kind"), "MPIJob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.app"), "mpijob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.createdBy"), "MPIJob");
	CHECK_INT_EQ(jp_int(job, "spec.slotsPerWorker"), 4);
	CHECK_STR_EQ(jp_str(job, "spec.runPolicy.cleanPodPolicy"), "All");
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.backoffLimit"), 2);
	CHECK_INT_EQ(jp_int(job, "spec.mpiReplicaSpecs.Launcher.replicas"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.mpiReplicaSpecs.Launcher.restartPolicy"), "Never");
	CHECK_INT_EQ(jp_int(job, "spec.mpiReplicaSpecs.Worker.replicas"), 2);
	CHECK_STR_EQ(jp_str(job, MPI_L_C ".name"), "mpi");
	CHECK_STR_EQ(jp_str(job, MPI_L_C ".command[2]"), "mpirun python t.py");
	CHECK(jp(job, MPI_L_C ".resources") == NULL);
	CHECK_STR_EQ(jp_env(job, MPI_L_C, "NVIDIA_VISIBLE_DEVICES"), "void");
	/* v1: the operator makes command-less workers sleep and execs into them */
	CHECK(jp(job, MPI_W_C ".command") == NULL);
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".resources.limits[\"nvidia.com/gpu\"]"), "4");
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".resources.limits.memory"), "16Gi");
	CHECK_STR_EQ(jp_env(job, MPI_W_C, "workers"), "2");
	CHECK(jp(job, MPI_W_C ".ports") == NULL);
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "8");
	json_decref(job);
}

TEST(spec_build_mpijob_v2beta1_when_that_is_served)
{
	json_t *job = JOB_ON("type: mpijob\nimage: mpioperator/mpi-pi\ncommand: mpirun /home/pi\n"
	                     "workers: 3\nslots_per_worker: 2\n",
	                     SERVED_MPI_V2);

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "apiVersion"), "kubeflow.org/v2beta1");
	CHECK_INT_EQ(jp_int(job, "spec.slotsPerWorker"), 2);
	CHECK_INT_EQ(jp_int(job, "spec.mpiReplicaSpecs.Worker.replicas"), 3);
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".command[0]"), "/usr/sbin/sshd");
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".command[1]"), "-De");
	CHECK_STR_EQ(jp_str(job, MPI_L_C ".command[2]"), "mpirun /home/pi");
	json_decref(job);
	job = JOB_ON("type: mpijob\nimage: m\ncommand: mpirun x\nworker_command: /start-sshd.sh\n",
	             SERVED_MPI_V2);
	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".command[0]"), "sh");
	CHECK_STR_EQ(jp_str(job, MPI_W_C ".command[2]"), "/start-sshd.sh");
	CHECK_INT_EQ(jp_int(job, "spec.slotsPerWorker"), 1);
	json_decref(job);
}

TEST(spec_build_xgboost_paddle_jax)
{
	json_t *job = JOB("type: xgboostjob\nimage: x\ncommand: python t.py\nworkers: 3\n");

	if (job) {
		CHECK_STR_EQ(jp_str(job, "kind"), "XGBoostJob");
		CHECK_INT_EQ(jp_int(job, "spec.xgbReplicaSpecs.Master.replicas"), 1);
		CHECK_INT_EQ(jp_int(job, "spec.xgbReplicaSpecs.Worker.replicas"), 2);
		CHECK_STR_EQ(jp_str(job, "spec.xgbReplicaSpecs.Worker.template.spec.containers[0]."
		                         "name"),
		             "xgboost");
		CHECK_INT_EQ(jp_int(job, "spec.xgbReplicaSpecs.Master.template.spec.containers[0]."
		                         "ports[0].containerPort"),
		             9999);
		CHECK(jp(job, "spec.runPolicy.cleanPodPolicy") == NULL);
		json_decref(job);
	}
	job = JOB("type: paddlejob\nimage: p\ncommand: python t.py\nworkers: 2\ngpus: 1\n");
	if (job) {
		CHECK_STR_EQ(jp_str(job, "kind"), "PaddleJob");
		CHECK_INT_EQ(jp_size(job, "spec.paddleReplicaSpecs"), 1);
		CHECK_INT_EQ(jp_int(job, "spec.paddleReplicaSpecs.Worker.replicas"), 2);
		CHECK_STR_EQ(jp_str(job,
		                    "spec.paddleReplicaSpecs.Worker.template.spec.containers[0]."
		                    "name"),
		             "paddle");
		CHECK_STR_EQ(jp_str(job,
		                    "spec.paddleReplicaSpecs.Worker.template.spec.containers[0]."
		                    "ports[0].name"),
		             "master");
		CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "2");
		json_decref(job);
	}
	job = JOB("type: jaxjob\nimage: j\ncommand: python t.py\nworkers: 4\n");
	if (job) {
		CHECK_STR_EQ(jp_str(job, "kind"), "JAXJob");
		CHECK_INT_EQ(jp_int(job, "spec.jaxReplicaSpecs.Worker.replicas"), 4);
		CHECK_STR_EQ(jp_str(job, "spec.jaxReplicaSpecs.Worker.template.spec.containers[0]."
		                         "name"),
		             "jax");
		CHECK_INT_EQ(jp_int(job, "spec.jaxReplicaSpecs.Worker.template.spec.containers[0]."
		                         "ports[0].containerPort"),
		             6666);
		json_decref(job);
	}
}

#define PT_POD "spec.pytorchReplicaSpecs.Master.template.spec"

TEST(spec_build_git_sync_init_container)
{
	json_t *job =
	    JOB("type: pytorchjob\nimage: p\ncommand: python code/repo/main.py\n"
	        "working_dir: /workspace\ncpu: 2\n"
	        "sync: {mode: git, source: https://github.com/org/repo.git, branch: main}\n"
	        "env: {HTTPS_PROXY: \"http://proxy:3128\"}\n");
	const char *init = PT_POD ".initContainers[0]";

	if (!job)
		return;
	CHECK_INT_EQ(jp_size(job, PT_POD ".initContainers"), 1);
	CHECK_STR_EQ(jp_str(job, "spec.pytorchReplicaSpecs.Master.template.spec.initContainers[0]."
	                         "name"),
	             "init-code");
	CHECK_STR_EQ(jp_str(jp(job, init), "image"),
	             "registry.cn-zhangjiakou.aliyuncs.com/acs/git-sync:v3.3.5");
	CHECK_STR_EQ(jp_env(job, init, "GIT_SYNC_REPO"), "https://github.com/org/repo.git");
	CHECK_STR_EQ(jp_env(job, init, "GIT_SYNC_DEST"), "repo");
	CHECK_STR_EQ(jp_env(job, init, "GIT_SYNC_ROOT"), "/code");
	CHECK_STR_EQ(jp_env(job, init, "GIT_SYNC_ONE_TIME"), "true");
	CHECK_STR_EQ(jp_env(job, init, "GIT_SYNC_BRANCH"), "main");
	/* Arena hands the job's env to the init container too (a proxy, say) */
	CHECK_STR_EQ(jp_env(job, init, "HTTPS_PROXY"), "http://proxy:3128");
	CHECK_STR_EQ(jp_str(jp(job, init), "resources.limits.cpu"), "2");
	CHECK_STR_EQ(jp_str(jp(job, init), "volumeMounts[0].name"), "code-sync");
	CHECK_STR_EQ(jp_str(jp(job, init), "volumeMounts[0].mountPath"), "/code");
	CHECK(jp(jp(job, init), "command") == NULL);
	CHECK(jp(job, PT_POD ".volumes[0].emptyDir") != NULL);
	CHECK_STR_EQ(jp_str(job, PT_POD ".volumes[0].name"), "code-sync");
	CHECK_STR_EQ(jp_str(jp_named(job, PT_MASTER_C ".volumeMounts", "code-sync"), "mountPath"),
	             "/workspace/code");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".workingDir"), "/workspace");
	json_decref(job);
}

TEST(spec_build_rsync_init_container)
{
	json_t *job = JOB("type: pytorchjob\nimage: p\ncommand: x\n"
	                  "sync: {mode: rsync, source: \"10.0.0.1::backup/code\"}\n");
	const char *init = PT_POD ".initContainers[0]";

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(jp(job, init), "image"),
	             "registry.cn-zhangjiakou.aliyuncs.com/acs/rsync:v3.1.0-aliyun");
	CHECK_INT_EQ(jp_size(jp(job, init), "command"), 4);
	CHECK_STR_EQ(jp_str(jp(job, init), "command[0]"), "rsync");
	CHECK_STR_EQ(jp_str(jp(job, init), "command[1]"), "-avP");
	CHECK_STR_EQ(jp_str(jp(job, init), "command[2]"), "10.0.0.1::backup/code");
	CHECK_STR_EQ(jp_str(jp(job, init), "command[3]"), "/code");
	CHECK(jp_env(job, init, "GIT_SYNC_REPO") == NULL);
	json_decref(job);
}

TEST(spec_build_options_that_change_defaults)
{
	json_t *job =
	    JOB("type: pytorchjob\nimage: p\ncommand: x\nshell: bash\n"
	        "image_pull_policy: IfNotPresent\nshare_memory: 0\n"
	        "running_timeout: 90m\nttl_after_finished: 300\nclean_pod_policy: None\n"
	        "env: {NVIDIA_VISIBLE_DEVICES: all}\ntolerations: [all, \"gpu=a100:NoExecute\"]\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".command[0]"), "bash");
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".imagePullPolicy"), "IfNotPresent");
	CHECK(jp_named(job, PT_POD ".volumes", "dshm") == NULL);
	CHECK(jp_named(job, PT_MASTER_C ".volumeMounts", "dshm") == NULL);
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.activeDeadlineSeconds"), 5400);
	CHECK_INT_EQ(jp_int(job, "spec.runPolicy.ttlSecondsAfterFinished"), 300);
	CHECK_STR_EQ(jp_str(job, "spec.runPolicy.cleanPodPolicy"), "None");
	/* an explicit NVIDIA_VISIBLE_DEVICES is kept, not overwritten with void */
	CHECK_STR_EQ(jp_env(job, PT_MASTER_C, "NVIDIA_VISIBLE_DEVICES"), "all");
	CHECK_INT_EQ(jp_size(job, PT_MASTER_C ".env"), 3);
	CHECK_STR_EQ(jp_str(job, PT_POD ".tolerations[0].operator"), "Exists");
	CHECK(jp(job, PT_POD ".tolerations[0].key") == NULL);
	CHECK_STR_EQ(jp_str(job, PT_POD ".tolerations[1].key"), "gpu");
	CHECK_STR_EQ(jp_str(job, PT_POD ".tolerations[1].operator"), "Equal");
	CHECK_STR_EQ(jp_str(job, PT_POD ".tolerations[1].value"), "a100");
	CHECK_STR_EQ(jp_str(job, PT_POD ".tolerations[1].effect"), "NoExecute");
	json_decref(job);
}

TEST(spec_build_pvc_names_that_are_no_volume_names)
{
	/* a PVC name may hold dots, a volume name may not */
	json_t *job = JOB("type: pytorchjob\nimage: p\ncommand: x\n"
	                  "data: {data.v2: /data, dshm: /dshm-data, models: /models}\n");
	json_t *vol;

	if (!job)
		return;
	vol = jp_named(job, PT_POD ".volumes", "pvc-0");
	CHECK_STR_EQ(jp_str(vol, "persistentVolumeClaim.claimName"), "data.v2");
	vol = jp_named(job, PT_POD ".volumes", "pvc-1");
	CHECK_STR_EQ(jp_str(vol, "persistentVolumeClaim.claimName"), "dshm");
	vol = jp_named(job, PT_POD ".volumes", "models");
	CHECK_STR_EQ(jp_str(vol, "persistentVolumeClaim.claimName"), "models");
	CHECK_STR_EQ(jp_str(jp_named(job, PT_MASTER_C ".volumeMounts", "pvc-0"), "mountPath"),
	             "/data");
	CHECK_STR_EQ(jp_str(jp_named(job, PT_MASTER_C ".volumeMounts", "dshm"), "mountPath"),
	             "/dev/shm");
	json_decref(job);
}

TEST(spec_build_tensorboard_logs_on_the_node)
{
	json_t *job =
	    JOB("type: tfjob\nimage: t\ncommand: x\nworkers: 2\nps: 1\ntensorboard: true\n"
	        "logdir: /logs\n");
	json_t *vol;

	if (!job)
		return;
	vol = jp_named(job, TF_WORKER ".template.spec.volumes", "training-logs-volume");
	CHECK_STR_EQ(jp_str(vol, "hostPath.path"), "/arena_logs/team-a/mnist");
	CHECK_STR_EQ(jp_str(vol, "hostPath.type"), "DirectoryOrCreate");
	CHECK_STR_EQ(
	    jp_str(jp_named(job, TF_WORKER_C ".volumeMounts", "training-logs-volume"), "mountPath"),
	    "/logs");
	/* Arena's PS writes no summaries: no log volume */
	CHECK(jp_named(job, "spec.tfReplicaSpecs.PS.template.spec.volumes",
	               "training-logs-volume") == NULL);
	json_decref(job);
	job = JOB("type: tfjob\nimage: t\ncommand: x\ntensorboard: true\nlogdir: /data/logs\n"
	          "data: {shared: /data}\n");
	if (!job)
		return;
	/* logs on the PVC: nothing on the node */
	CHECK(jp_named(job, "spec.tfReplicaSpecs.Chief.template.spec.volumes",
	               "training-logs-volume") == NULL);
	json_decref(job);
}

TEST(spec_build_rejects_a_bad_namespace)
{
	struct job_spec *s = PARSE("type: tfjob\nimage: t\ncommand: x\n", "mnist", SERVED_ALL);
	struct k8s_error err;
	json_t *job = NULL;

	if (!s)
		return;
	CHECK_INT_EQ(spec_build_job(s, "Team_A", &job, &err), -EINVAL);
	CHECK(job == NULL);
	CHECK_STR_CONTAINS(err.message, "\"Team_A\" is not a namespace name");
	spec_free(s);
}

TEST(spec_build_command_list_is_shell_quoted)
{
	json_t *job = JOB("type: pytorchjob\nimage: p\n"
	                  "command: [python, main.py, --name, \"it's\", --lr, 0.1, \"a b\"]\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, PT_MASTER_C ".command[2]"),
	             "python main.py --name 'it'\\''s' --lr 0.1 'a b'");
	json_decref(job);
}

/* trainjob: the runtime's reference and the trainer, nothing about pods. */
TEST(spec_build_trainjob)
{
	json_t *job = JOB("type: trainjob\n"
	                  "runtime: torch-distributed\n"
	                  "image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime\n"
	                  "command: torchrun train.py\n"
	                  "nodes: 2\n"
	                  "gpus: 4\n"
	                  "cpu: 8\n"
	                  "env: {EPOCHS: 3}\n"
	                  "labels: {team: llm}\n"
	                  "annotations: {owner: bob}\n");

	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "apiVersion"), "trainer.kubeflow.org/v1alpha1");
	CHECK_STR_EQ(jp_str(job, "kind"), "TrainJob");
	CHECK_STR_EQ(jp_str(job, "metadata.name"), "mnist");
	CHECK_STR_EQ(jp_str(job, "metadata.namespace"), "team-a");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.app"), "trainjob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.release"), "mnist");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.createdBy"), "TrainJob");
	CHECK_STR_EQ(jp_str(job, "metadata.labels.team"), "llm");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.owner"), "bob");
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "8");
	CHECK_STR_CONTAINS(jp_str(job, "metadata.annotations[\"arenafs.io/spec\"]"),
	                   "runtime: torch-distributed\n");
	CHECK_INT_EQ(jp_size(job, "spec"), 2);
	CHECK_STR_EQ(jp_str(job, "spec.runtimeRef.name"), "torch-distributed");
	CHECK_STR_EQ(jp_str(job, "spec.runtimeRef.apiGroup"), "trainer.kubeflow.org");
	CHECK_STR_EQ(jp_str(job, "spec.runtimeRef.kind"), "ClusterTrainingRuntime");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.image"),
	             "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.command[0]"), "sh");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.command[1]"), "-c");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.command[2]"), "torchrun train.py");
	CHECK_INT_EQ(jp_int(job, "spec.trainer.numNodes"), 2);
	CHECK_STR_EQ(jp_str(job, "spec.trainer.resourcesPerNode.limits[\"nvidia.com/gpu\"]"), "4");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.resourcesPerNode.requests.cpu"), "8");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.env[0].name"), "EPOCHS");
	CHECK_STR_EQ(jp_str(job, "spec.trainer.env[0].value"), "3");
	CHECK_INT_EQ(jp_size(job, "spec.trainer.env"), 1);
	json_decref(job);

	/* the defaults: one node, no resources, no env; a namespace's own runtime */
	job = JOB("type: trainjob\nruntime: TrainingRuntime/mine\nimage: x\ncommand: y\n");
	if (!job)
		return;
	CHECK_STR_EQ(jp_str(job, "spec.runtimeRef.kind"), "TrainingRuntime");
	CHECK_STR_EQ(jp_str(job, "spec.runtimeRef.name"), "mine");
	CHECK_INT_EQ(jp_int(job, "spec.trainer.numNodes"), 1);
	CHECK(jp(job, "spec.trainer.resourcesPerNode") == NULL);
	CHECK(jp(job, "spec.trainer.env") == NULL);
	CHECK_STR_EQ(jp_str(job, "metadata.annotations.requestGPUsOfJobOwner"), "0");
	json_decref(job);
}

/* queue: labels the job (what Kueue reads), not its pods, whose templates share the
 * job's other labels; a TrainJob too; a name that is no LocalQueue name is refused. */
TEST(spec_build_queue_labels_the_job_only)
{
	json_t *tf = JOB("type: tfjob\nimage: x\ncommand: y\ngpus: 1\nworkers: 2\nqueue: user-queue\n"
	                 "labels: {team: ml}\n");
	json_t *tj = JOB("type: trainjob\nruntime: torch-distributed\nimage: x\ncommand: y\n"
	                 "queue: user-queue\n");
	json_t *none = JOB("type: tfjob\nimage: x\ncommand: y\n");
	const json_t *l;

	CHECK(tf && tj && none);
	if (tf && tj && none) {
		l = jp(tf, "metadata.labels");
		CHECK_STR_EQ(json_string_value(json_object_get(l, SPEC_QUEUE_LABEL)), "user-queue");
		CHECK_STR_EQ(json_string_value(json_object_get(l, "team")), "ml");
		l = jp(tf, "spec.tfReplicaSpecs.Worker.template.metadata.labels");
		CHECK(l && !json_object_get(l, SPEC_QUEUE_LABEL));
		CHECK_STR_EQ(json_string_value(json_object_get(l, "team")), "ml");
		CHECK_STR_EQ(json_string_value(json_object_get(jp(tj, "metadata.labels"),
		                                               SPEC_QUEUE_LABEL)), "user-queue");
		CHECK(!json_object_get(jp(none, "metadata.labels"), SPEC_QUEUE_LABEL));
	}
	CHECK_STR_EQ(SPEC_ERROR("type: tfjob\nimage: x\ncommand: y\nqueue: User_Queue\n"),
	             "line 4, column 8: queue: \"User_Queue\" is not a LocalQueue name (at most 63 "
	             "lowercase letters, digits and '-')");
	json_decref(tf);
	json_decref(tj);
	json_decref(none);
}
