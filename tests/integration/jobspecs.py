"""Small training-job manifests for the live tests. Their containers say how
they run twice: kubesim reads the SIM_* environment
(docs/kubesim-simulation.md), the real cluster's kwok the KWOK_* one
(docs/real-cluster.md), so one manifest behaves alike on both."""

import json

TF_IMAGE = "tensorflow/tensorflow:2.15.0-gpu"
TORCH_IMAGE = "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime"


def container(name, image, gpus=1, start=1, run=4, exit_code=0, lines=4):
    env = {"SIM_START_SECONDS": start, "SIM_RUN_SECONDS": run, "SIM_EXIT_CODE": exit_code,
           "SIM_LOG_LINES_PER_SECOND": lines,
           "KWOK_RUN": "%ds" % run, "KWOK_EXIT": exit_code}
    c = {"name": name, "image": image, "command": ["python", "train.py"],
         "env": [{"name": k, "value": str(v)} for k, v in env.items()]}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return c


def tfjob(name, workers=1, restart_policy="Never", backoff=None, **kw):
    spec = {"tfReplicaSpecs": {"Worker": {
        "replicas": workers, "restartPolicy": restart_policy,
        "template": {"spec": {"containers": [container("tensorflow", TF_IMAGE, **kw)]}}}}}
    if backoff is not None:
        spec["runPolicy"] = {"backoffLimit": backoff}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name}, "spec": spec}


def pytorchjob(name, restart_policy="Never", backoff=None, **kw):
    spec = {"pytorchReplicaSpecs": {"Master": {
        "replicas": 1, "restartPolicy": restart_policy,
        "template": {"spec": {"containers": [container("pytorch", TORCH_IMAGE, **kw)]}}}}}
    if backoff is not None:
        spec["runPolicy"] = {"backoffLimit": backoff}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": name}, "spec": spec}


def create(cluster, manifest, namespace=None):
    """kubectl create, in the cluster's own namespace (a real cluster's test
    has one of its own) unless one is named."""
    namespace = namespace or getattr(cluster, "namespace", "default")
    cluster.kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(manifest))
