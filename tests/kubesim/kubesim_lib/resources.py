"""The kinds kubesim serves: one table that discovery, routing, admission,
field selectors and Table printing all read.

A Resource is what the apiserver knows of a kind: its group/version, plural,
singular, Kind and list Kind, whether it is namespaced, the verbs and short
names discovery advertises, its subresources, the field labels its field
selectors accept and how its names are validated. The store names it
`plural` (core) or `plural.group`, as kubectl does.

Which resources exist depends on the CLI: `--mpi-v2beta1` serves MPIJobs as
kubeflow.org/v2beta1 (mpi-operator) instead of v1 (training-operator), and
`--no-kinds` removes kinds (a cluster without that CRD installed);
`--arena-kinds` adds the CRDs of the other kinds Arena lists (ARENA_KINDS).
"""

import base64
import hashlib

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
STATUS_VERBS = ["get", "patch", "update"]

# Field labels every kind accepts (apimachinery's DefaultClusterScopedAttr /
# DefaultNamespaceScopedAttr).
BASE_FIELDS = ("metadata.name", "metadata.namespace")


def _path(obj, dotted):
    cur = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def _str(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _pod_ips(obj):
    ips = (obj.get("status") or {}).get("podIPs") or []
    return ",".join(p.get("ip", "") for p in ips)


def _source(obj):
    src = obj.get("source") or {}
    return src.get("component", "") or obj.get("reportingComponent", "")


# Field label -> how to read its value. Values are compared as strings, the
# way the apiserver's GetAttrs fields.Set holds them.
FIELD_GETTERS = {
    "pods": {
        "spec.nodeName": lambda o: _str(_path(o, "spec.nodeName")),
        "spec.restartPolicy": lambda o: _str(_path(o, "spec.restartPolicy")),
        "spec.schedulerName": lambda o: _str(_path(o, "spec.schedulerName")),
        "spec.serviceAccountName": lambda o: _str(_path(o, "spec.serviceAccountName")),
        "spec.hostNetwork": lambda o: _str(bool(_path(o, "spec.hostNetwork"))),
        "status.phase": lambda o: _str(_path(o, "status.phase")),
        "status.podIP": lambda o: _str(_path(o, "status.podIP")),
        "status.podIPs": _pod_ips,
        "status.nominatedNodeName": lambda o: _str(_path(o, "status.nominatedNodeName")),
    },
    "nodes": {
        "spec.unschedulable": lambda o: _str(bool(_path(o, "spec.unschedulable"))),
    },
    "events": {
        "involvedObject.kind": lambda o: _str(_path(o, "involvedObject.kind")),
        "involvedObject.namespace": lambda o: _str(_path(o, "involvedObject.namespace")),
        "involvedObject.name": lambda o: _str(_path(o, "involvedObject.name")),
        "involvedObject.uid": lambda o: _str(_path(o, "involvedObject.uid")),
        "involvedObject.apiVersion": lambda o: _str(_path(o, "involvedObject.apiVersion")),
        "involvedObject.resourceVersion": lambda o: _str(_path(o, "involvedObject.resourceVersion")),
        "involvedObject.fieldPath": lambda o: _str(_path(o, "involvedObject.fieldPath")),
        "reason": lambda o: _str(o.get("reason")),
        "reportingComponent": lambda o: _str(o.get("reportingComponent")),
        "source": _source,
        "type": lambda o: _str(o.get("type")),
    },
    "namespaces": {
        "status.phase": lambda o: _str(_path(o, "status.phase")),
    },
    "secrets": {
        "type": lambda o: _str(o.get("type")),
    },
    "replicasets.apps": {
        "status.replicas": lambda o: _str(_path(o, "status.replicas") or 0),
    },
    "jobs.batch": {
        "status.successful": lambda o: _str(_path(o, "status.succeeded") or 0),
    },
}


class Resource:
    def __init__(self, group, version, plural, kind, namespaced=True, short=(),
                 verbs=ALL_VERBS, subresources=("status",), categories=(), singular=None,
                 names="subdomain", crd=False, printer=None, advertised=(), hashed=True):
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        self.list_kind = kind + "List"
        self.namespaced = namespaced
        self.short = list(short)
        # kube-apiserver lists a custom resource's verbs in this order
        self.verbs = list(CRD_VERBS if crd and verbs is ALL_VERBS else verbs)
        self.subresources = tuple(subresources)
        # subresources discovery lists although kubesim does not serve them (exec, proxy, ...)
        self.advertised = tuple(sorted(set(subresources) | set(advertised)))
        self.categories = list(categories)
        self.singular = singular or kind.lower()
        self.names = names          # subdomain | label1123 | label1035
        self.crd = crd              # a custom resource: list items carry kind/apiVersion
        self.printer = printer      # name of the Table printer (tables.py)
        self.hashed = hashed        # discovery gives a storageVersionHash (not an aggregated API's)
        self.key = plural + "." + group if group else plural
        self.api_version = group + "/" + version if group else version
        self.fields = FIELD_GETTERS.get(self.key, {})

    @property
    def group_kind(self):
        """`TFJob.kubeflow.org` (or `Pod` for core), as Invalid messages name kinds."""
        return self.kind + "." + self.group if self.group else self.kind

    def qualified(self):
        """`tfjobs.kubeflow.org` (or `pods`): as NotFound/AlreadyExists messages say."""
        return self.key

    def field_value(self, obj, label):
        """The value of a field label for obj, or None when the kind does not
        support that label."""
        if label == "metadata.name":
            return (obj.get("metadata") or {}).get("name", "")
        if label == "metadata.namespace":
            if not self.namespaced:
                return None if label not in BASE_FIELDS else ""
            return (obj.get("metadata") or {}).get("namespace", "")
        fn = self.fields.get(label)
        return fn(obj) if fn is not None else None

    def supports_field(self, label):
        return label in BASE_FIELDS or label in self.fields

    def storage_version_hash(self):
        """As kube-apiserver computes it: the first 8 bytes of sha256("group/version/Kind")."""
        digest = hashlib.sha256(("%s/%s/%s" % (self.group, self.version, self.kind)).encode())
        return base64.b64encode(digest.digest()[:8]).decode()

    def discovery_entries(self):
        """The APIResourceList entries: the resource, then its subresources by name."""
        e = {"name": self.plural, "singularName": self.singular, "namespaced": self.namespaced,
             "kind": self.kind, "verbs": self.verbs}
        if self.short:
            e["shortNames"] = self.short
        if self.categories:
            e["categories"] = self.categories
        if self.hashed:
            e["storageVersionHash"] = self.storage_version_hash()
        out = [e]
        for sub in self.advertised:
            kind, verbs, gv = SUBRESOURCE_KINDS.get(sub, (None, STATUS_VERBS, None))
            if sub == "proxy":
                kind = self.kind + "ProxyOptions"
            s = {"name": self.plural + "/" + sub, "singularName": "",
                 "namespaced": self.namespaced, "kind": kind or self.kind, "verbs": verbs}
            if gv:
                s["group"], s["version"] = gv
            out.append(s)
        return out


SUBRESOURCE_KINDS = {
    "status": (None, STATUS_VERBS, None),
    "log": ("Pod", ["get"], None),
    "binding": ("Binding", ["create"], None),
    "eviction": ("Eviction", ["create"], ("policy", "v1")),
    "scale": ("Scale", ["get", "patch", "update"], ("autoscaling", "v1")),
    "attach": ("PodAttachOptions", ["create", "get"], None),
    "exec": ("PodExecOptions", ["create", "get"], None),
    "portforward": ("PodPortForwardOptions", ["create", "get"], None),
    "proxy": (None, ["create", "delete", "get", "patch", "update"], None),
    "ephemeralcontainers": ("Pod", STATUS_VERBS, None),
    "resize": ("Pod", STATUS_VERBS, None),
    "finalize": ("Namespace", ["update"], None),
    "pendingworkloads": ("PendingWorkloadsSummary", ["get"], None),
}

CRD_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
# The kinds whose CRD (training-operator v1.9) has a scale subresource.
SCALABLE_KINDS = ("pytorchjobs", "paddlejobs", "jaxjobs")


KUBEFLOW_KINDS = (
    ("tfjobs", "TFJob"), ("pytorchjobs", "PyTorchJob"), ("mpijobs", "MPIJob"),
    ("xgboostjobs", "XGBoostJob"), ("paddlejobs", "PaddleJob"), ("jaxjobs", "JAXJob"),
)


# The kinds Arena lists beyond the training-operator's, served with
# --arena-kinds: et-operator's TrainingJob (Arena's ETJob and DeepSpeedJob), the
# Volcano Job, the Spark operator's SparkApplication and KubeRay's RayJob. Only
# their CRDs: no operator runs them, a test makes the objects, their status and
# their pods.
ARENA_KINDS = (
    ("kai.alibabacloud.com", "v1alpha1", "trainingjobs", "TrainingJob"),
    ("batch.volcano.sh", "v1alpha1", "jobs", "Job"),
    ("sparkoperator.k8s.io", "v1beta2", "sparkapplications", "SparkApplication"),
    ("ray.io", "v1", "rayjobs", "RayJob"),
)


# Kueue (--kueue): its CRDs at v1beta2 (v0.17 serves v1beta1 too, and stores
# v1beta2) and its visibility API, which kube-apiserver proxies to Kueue's own
# server (an APIService): only the pendingworkloads subresources are served.
KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSION = "v1beta2"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"


def kueue_resources():
    R = Resource
    return [
        R(KUEUE_GROUP, KUEUE_VERSION, "clusterqueues", "ClusterQueue", namespaced=False,
          short=["cq"], crd=True),
        R(KUEUE_GROUP, KUEUE_VERSION, "localqueues", "LocalQueue", short=["queue", "queues", "lq"],
          crd=True),
        R(KUEUE_GROUP, KUEUE_VERSION, "resourceflavors", "ResourceFlavor", namespaced=False,
          short=["flavor", "flavors", "rf"], crd=True, subresources=()),
        R(KUEUE_GROUP, KUEUE_VERSION, "workloads", "Workload",
          short=["kwl", "kueueworkload", "kueueworkloads"], crd=True),
        R(KUEUE_GROUP, KUEUE_VERSION, "workloadpriorityclasses", "WorkloadPriorityClass",
          namespaced=False, crd=True, subresources=()),
        R(KUEUE_GROUP, KUEUE_VERSION, "cohorts", "Cohort", namespaced=False, crd=True),
        # Kueue's visibility server (pkg/visibility/storage): storage with no verbs of
        # its own, whose New() is a PendingWorkloadsSummary, and their subresource;
        # crd: named in OpenAPI as a custom group's kinds are
        R(VISIBILITY_GROUP, KUEUE_VERSION, "clusterqueues", "PendingWorkloadsSummary",
          namespaced=False, singular="clusterqueue", verbs=[], subresources=("pendingworkloads",),
          hashed=False, crd=True),
        R(VISIBILITY_GROUP, KUEUE_VERSION, "localqueues", "PendingWorkloadsSummary",
          singular="localqueue", verbs=[], subresources=("pendingworkloads",), hashed=False,
          crd=True),
    ]


def build(mpi_v2beta1=False, no_kinds=(), arena_kinds=False, kueue=False):
    """The served resources, in discovery order."""
    R = Resource
    res = [
        R("", "v1", "namespaces", "Namespace", namespaced=False, short=["ns"],
          verbs=["create", "delete", "get", "list", "patch", "update", "watch"],
          subresources=("status",), names="label1123", printer="namespaces",
          advertised=("finalize",)),
        R("", "v1", "nodes", "Node", namespaced=False, short=["no"], printer="nodes",
          advertised=("proxy",)),
        R("", "v1", "pods", "Pod", short=["po"], categories=["all"],
          subresources=("binding", "eviction", "log", "status"), printer="pods",
          advertised=("attach", "ephemeralcontainers", "exec", "portforward", "proxy",
                      "resize")),
        R("", "v1", "services", "Service", short=["svc"], categories=["all"],
          verbs=["create", "delete", "deletecollection", "get", "list", "patch", "update",
                 "watch"], names="label1035", printer="services", advertised=("proxy",)),
        R("", "v1", "events", "Event", short=["ev"], subresources=(), printer="events"),
        R("", "v1", "configmaps", "ConfigMap", short=["cm"], subresources=(),
          printer="configmaps"),
        R("", "v1", "secrets", "Secret", subresources=(), printer="secrets"),
        R("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", short=["pvc"],
          printer="pvcs"),
        R("", "v1", "serviceaccounts", "ServiceAccount", short=["sa"], subresources=(),
          printer="serviceaccounts"),
        R("apps", "v1", "deployments", "Deployment", short=["deploy"], categories=["all"],
          subresources=("scale", "status"), printer="deployments"),
        R("apps", "v1", "replicasets", "ReplicaSet", short=["rs"], categories=["all"],
          subresources=("scale", "status"), printer="replicasets"),
        R("batch", "v1", "jobs", "Job", categories=["all"], printer="jobs"),
        R("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", namespaced=False,
          short=["pc"], subresources=()),
    ]
    for plural, kind in KUBEFLOW_KINDS:
        if plural == "mpijobs" and mpi_v2beta1:
            continue
        res.append(R("kubeflow.org", "v1", plural, kind, crd=True, names="label1035",
                     printer="kubeflow",
                     advertised=("scale",) if plural in SCALABLE_KINDS else ()))
    if mpi_v2beta1:
        res.append(R("kubeflow.org", "v2beta1", "mpijobs", "MPIJob", crd=True,
                     printer="kubeflow"))
    res.append(R("trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob", crd=True,
                 printer="kubeflow"))
    res.append(R("trainer.kubeflow.org", "v1alpha1", "trainingruntimes", "TrainingRuntime",
                 crd=True, subresources=()))
    res.append(R("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes",
                 "ClusterTrainingRuntime", namespaced=False, crd=True, subresources=()))
    # JobSet (v0.11.1), which Trainer makes of a TrainJob (sim/trainjob.py)
    res.append(R("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", crd=True))
    if arena_kinds:
        for group, version, plural, kind in ARENA_KINDS:
            res.append(R(group, version, plural, kind, crd=True))
    if kueue:
        res.extend(kueue_resources())
    drop = set(no_kinds)
    return [r for r in res if r.plural not in drop and r.key not in drop]


class Registry:
    """Lookups over the served resources."""

    def __init__(self, resources):
        self.resources = resources
        self.by_path = {(r.group, r.version, r.plural): r for r in resources}
        self.by_key = {r.key: r for r in resources}
        self.by_kind = {}
        for r in resources:
            self.by_kind.setdefault((r.api_version, r.kind), r)

    def lookup(self, group, version, plural):
        return self.by_path.get((group, version, plural))

    def get(self, key):
        return self.by_key.get(key)

    def groups(self):
        """[(group, [versions])] for the named groups, in first-seen order."""
        out = {}
        for r in self.resources:
            if r.group:
                vs = out.setdefault(r.group, [])
                if r.version not in vs:
                    vs.append(r.version)
        return list(out.items())

    def in_version(self, group, version):
        return [r for r in self.resources if r.group == group and r.version == version]
