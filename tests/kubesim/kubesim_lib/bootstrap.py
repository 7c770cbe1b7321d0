"""The objects a fresh cluster has before anyone writes: the namespaces
default, kube-system, kube-public, kube-node-lease and team-a (a second
namespace for tests), each with its `default` ServiceAccount, and the
`kubernetes` Service in default (10.96.0.1:443), as kube-apiserver and the
service-account controller create them.
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


def bootstrap(store):
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
