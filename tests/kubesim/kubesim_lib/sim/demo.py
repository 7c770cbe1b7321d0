"""--demo: a small lively cluster for the README's demo.

The jobs are created as a user's manifests would be after the API's
defaulting, and then live through the controllers like any other:

    mnist          TFJob, chief + 2 workers, 10 minutes of logs, a TensorBoard
                   (Deployment + NodePort Service, as Arena makes it)
    bert-finetune  PyTorchJob, master + 3 workers, succeeds after 2 minutes
    resnet-fail    TFJob whose workers exit 1 after 45 s: Failed
    big-model      TFJob asking 16 GPUs per worker: Pending, FailedScheduling
    flaky          PyTorchJob crashing (OnFailure, backoffLimit 3): restarts,
                   CrashLoopBackOff, then Failed
    horovod-mnist  MPIJob (v1, or v2beta1 with --mpi-v2beta1), 2 workers
    llm-pretrain   TrainJob on 2 nodes, its script reporting progress, time left,
                   loss and accuracy every 5 s (trainer_report.py)
    research/gan   a TFJob in a second namespace
    mnist-v1       a TFJob that succeeded hours ago
"""

from . import util
from .populate import Fleet

TF_IMAGE = "tensorflow/tensorflow:2.15.0-gpu"
TORCH_IMAGE = "pytorch/pytorch:2.5.0-cuda12.4-cudnn9-runtime"


def env(**kv):
    return [{"name": k, "value": str(v)} for k, v in kv.items()]


def container(name, image, command, gpus=0, port=None, **sim):
    c = {"name": name, "image": image, "command": ["sh", "-c", command], "env": env(**sim)}
    if gpus:
        c["resources"] = {"limits": {util.GPU: str(gpus)}}
    if port:
        c["ports"] = [{"name": port[0], "containerPort": port[1]}]
    return c


def replica(n, c, policy="Never", labels=None):
    t = {"spec": {"containers": [c]}}
    if labels:
        t["metadata"] = {"labels": labels}
    return {"replicas": n, "restartPolicy": policy, "template": t}


def tfjob(name, ns, specs, labels=None, clean="Running"):
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"runPolicy": {"cleanPodPolicy": clean}, "successPolicy": "",
                     "tfReplicaSpecs": specs}}


def arena_labels(name, kind):
    return {"app": kind, "release": name, "createdBy": {"tfjob": "TFJob", "pytorchjob": "PyTorchJob",
                                                        "mpijob": "MPIJob"}[kind]}


def tensorboard(name, ns, node_port):
    labels = {"role": "tensorboard", "release": name, "app": "tfjob"}
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name + "-tensorboard", "namespace": ns, "labels": dict(labels)},
           "spec": {"replicas": 1, "selector": {"matchLabels": dict(labels)},
                    "strategy": {"type": "RollingUpdate",
                                 "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                    "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
                    "template": {"metadata": {"labels": dict(labels)},
                                 "spec": {"containers": [{
                                     "name": "tensorboard", "image": "tensorflow/tensorflow:2.15.0",
                                     "command": ["tensorboard", "--logdir", "/training_logs",
                                                 "--host", "0.0.0.0"],
                                     "ports": [{"containerPort": 6006}]}]}}}}
    svc = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": name + "-tensorboard", "namespace": ns, "labels": dict(labels)},
           "spec": {"type": "NodePort", "selector": dict(labels),
                    "ports": [{"name": "tensorboard", "port": 6006, "targetPort": 6006,
                               "protocol": "TCP", "nodePort": node_port}],
                    "clusterIP": "10.96.%d.%d" % (node_port // 256 % 256, node_port % 256),
                    "clusterIPs": ["10.96.%d.%d" % (node_port // 256 % 256, node_port % 256)],
                    "sessionAffinity": "None", "externalTrafficPolicy": "Cluster",
                    "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                    "internalTrafficPolicy": "Cluster"},
           "status": {"loadBalancer": {}}}
    return dep, svc


def populate_demo(store, logs, opts, nodes):
    mpi_v2 = bool(getattr(opts, "mpi_v2beta1", False))
    if store.get("namespaces", "", "research") is None:
        store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                    "metadata": {"name": "research",
                                                 "labels": {"kubernetes.io/metadata.name": "research"}},
                                    "spec": {"finalizers": ["kubernetes"]},
                                    "status": {"phase": "Active"}})
    # A job that finished hours ago, made the way --jobs makes its fleet.
    old = Fleet(opts, nodes)
    old.job(0, name="mnist-v1", state="Succeeded")
    old.store_into(store, logs)

    train = "python code/main.py --logdir /training_logs"
    objs = []
    mnist_labels = arena_labels("mnist", "tfjob")
    objs.append(("tfjobs.kubeflow.org", tfjob("mnist", "default", {
        "Chief": replica(1, container("tensorflow", TF_IMAGE, train, 1, ("tfjob-port", 2222),
                                      SIM_RUN_SECONDS=600), labels=mnist_labels),
        "Worker": replica(2, container("tensorflow", TF_IMAGE, train, 1, ("tfjob-port", 2222),
                                       SIM_RUN_SECONDS=600), labels=mnist_labels)},
        labels=mnist_labels)))
    dep, svc = tensorboard("mnist", "default", 31606)
    objs += [("deployments.apps", dep), ("services", svc)]
    torch = "torchrun --nnodes=$PET_NNODES finetune.py"
    objs.append(("pytorchjobs.kubeflow.org", {
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": "bert-finetune", "namespace": "default",
                     "labels": arena_labels("bert-finetune", "pytorchjob")},
        "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "pytorchReplicaSpecs": {
            "Master": replica(1, container("pytorch", TORCH_IMAGE, torch, 2, ("pytorchjob-port", 23456),
                                           SIM_RUN_SECONDS=120), "OnFailure"),
            "Worker": replica(3, container("pytorch", TORCH_IMAGE, torch, 2, ("pytorchjob-port", 23456),
                                           SIM_RUN_SECONDS=120), "OnFailure")}}}))
    objs.append(("tfjobs.kubeflow.org", tfjob("resnet-fail", "default", {
        "Worker": replica(2, container("tensorflow", TF_IMAGE, "python resnet.py", 1,
                                       ("tfjob-port", 2222), SIM_RUN_SECONDS=45, SIM_EXIT_CODE=1))})))
    objs.append(("tfjobs.kubeflow.org", tfjob("big-model", "default", {
        "Worker": replica(2, container("tensorflow", TF_IMAGE, "python big.py", 16,
                                       ("tfjob-port", 2222)))})))
    objs.append(("pytorchjobs.kubeflow.org", {
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": "flaky", "namespace": "default"},
        "spec": {"runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 3}, "pytorchReplicaSpecs": {
            "Master": replica(1, container("pytorch", TORCH_IMAGE, "python flaky.py", 1,
                                           ("pytorchjob-port", 23456), SIM_RUN_SECONDS=10,
                                           SIM_EXIT_CODE=1), "OnFailure")}}}))
    mpi_c = container("mpi", "horovod/horovod:0.28.1", "mpirun -np 2 python train.py", 0,
                      SIM_RUN_SECONDS=90)
    worker_c = {"name": "mpi", "image": "horovod/horovod:0.28.1",
                "resources": {"limits": {util.GPU: "1"}}}
    objs.append(("mpijobs.kubeflow.org", {
        "apiVersion": "kubeflow.org/v2beta1" if mpi_v2 else "kubeflow.org/v1", "kind": "MPIJob",
        "metadata": {"name": "horovod-mnist", "namespace": "default",
                     "labels": arena_labels("horovod-mnist", "mpijob")},
        "spec": {"slotsPerWorker": 1, "runPolicy": {"cleanPodPolicy": "Running"},
                 "mpiReplicaSpecs": {
                     "Launcher": replica(1, mpi_c, "OnFailure" if mpi_v2 else "Never"),
                     "Worker": {"replicas": 2, "restartPolicy": "Never",
                                "template": {"spec": {"containers": [worker_c]}}}}}}))
    objs.append(("trainjobs.trainer.kubeflow.org", {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "llm-pretrain", "namespace": "default"},
        "spec": {"runtimeRef": {"name": "torch-distributed", "kind": "ClusterTrainingRuntime",
                                "apiGroup": "trainer.kubeflow.org"},
                 "trainer": {"image": TORCH_IMAGE, "command": ["torchrun", "pretrain.py"],
                             "numNodes": 2,
                             "env": env(SIM_RUN_SECONDS=300, SIM_REPORT_SECONDS=5),
                             "resourcesPerNode": {"limits": {util.GPU: "1"}}}}}))
    objs.append(("tfjobs.kubeflow.org", tfjob("gan", "research", {
        "Worker": replica(2, container("tensorflow", TF_IMAGE, "python gan.py", 1, ("tfjob-port", 2222),
                                       SIM_RUN_SECONDS=900))})))
    # a Prometheus, found as Arena finds one (kubesim_lib/prometheus.py answers its
    # proxy): the running jobs' GPUs show duty cycle and memory in the tree
    if store.get("namespaces", "", "monitoring") is None:
        store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                    "metadata": {"name": "monitoring",
                                                 "labels": {"kubernetes.io/metadata.name":
                                                            "monitoring"}},
                                    "spec": {"finalizers": ["kubernetes"]},
                                    "status": {"phase": "Active"}})
    objs.append(("services", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "prometheus-server", "namespace": "monitoring",
                     "labels": {"kubernetes.io/service-name": "prometheus-server"}},
        "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.90", "clusterIPs": ["10.96.0.90"],
                 "ports": [{"name": "http", "port": 9090, "protocol": "TCP",
                            "targetPort": 9090}],
                 "sessionAffinity": "None", "ipFamilies": ["IPv4"],
                 "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"},
        "status": {"loadBalancer": {}}}))
    for resource, obj in objs:
        if store.get(resource, obj["metadata"]["namespace"], obj["metadata"]["name"]) is None:
            store.create(resource, obj)

