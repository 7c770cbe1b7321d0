"""The objects a fresh cluster has before anyone writes: the namespaces
default, kube-system, kube-public, kube-node-lease and team-a (a second
namespace for tests), each with its `default` ServiceAccount, and the
`kubernetes` Service in default (10.96.0.1:443), as kube-apiserver and the
service-account controller create them; and the ClusterTrainingRuntimes
Kubeflow Trainer v2.2.0 installs (its manifests/base/runtimes), as the real
test cluster's up does.
"""

from .store import now_rfc3339

NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease", "team-a")


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def service_account(ns):
    return {"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default", "namespace": ns}}


# (name, framework label) of Trainer v2.2.0's manifests/base/runtimes, each
# with mlPolicy.numNodes 1; the pods they make are the stand-in's (sim/trainjob.py)
TRAINER_RUNTIMES = (("deepspeed-distributed", "deepspeed"), ("jax-distributed", "jax"),
                    ("mlx-distributed", "mlx"), ("torch-distributed", "torch"),
                    ("torchtune-llama3.2-1b", "torchtune"), ("torchtune-llama3.2-3b", "torchtune"),
                    ("torchtune-qwen2.5-1.5b", "torchtune"), ("xgboost-distributed", "xgboost"))


def trainer_runtime(name, framework):
    policy = {"numNodes": 1}
    if framework in ("torch", "torchtune"):
        policy["torch"] = {}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": name, "labels": {"trainer.kubeflow.org/framework": framework}},
            "spec": {"mlPolicy": policy, "template": {"spec": {"replicatedJobs": [{
                "name": "node", "template": {"spec": {"template": {"spec": {"containers": [
                    {"name": "node", "image": "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime"}
                ]}}}}}]}}}}


def bootstrap(store, served=None):
    """served: the resources the cluster serves (None: every one)."""
    for ns in NAMESPACES:
        store.create("namespaces", namespace(ns))
        store.create("serviceaccounts", service_account(ns))
    store.create("services", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"},
                     "creationTimestamp": now_rfc3339()},
        "spec": {"clusterIP": "10.96.0.1", "clusterIPs": ["10.96.0.1"],
                 "internalTrafficPolicy": "Cluster", "ipFamilies": ["IPv4"],
                 "ipFamilyPolicy": "SingleStack",
                 "ports": [{"name": "https", "port": 443, "protocol": "TCP",
                            "targetPort": 6443}],
                 "sessionAffinity": "None", "type": "ClusterIP"},
        "status": {"loadBalancer": {}}})
    # the two a cluster always has, and the two the real test cluster adds
    # (tests/cluster/objects.yaml) for the specs' `priority: high`
    for name, value in (("system-cluster-critical", 2000000000),
                        ("system-node-critical", 2000001000), ("high", 1000), ("low", 10)):
        store.create("priorityclasses.scheduling.k8s.io", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name, "creationTimestamp": now_rfc3339()},
            "value": value, "preemptionPolicy": "PreemptLowerPriority"})
    if served is None or "clustertrainingruntimes.trainer.kubeflow.org" in served:
        for name, framework in TRAINER_RUNTIMES:
            store.create("clustertrainingruntimes.trainer.kubeflow.org",
                         trainer_runtime(name, framework))
