"""What the tree should show, computed in Python from what kubectl returns.

These are the rules of docs/tree.md written again, independently of
the C code (which the tests never call): Arena's status mapping, which pods
belong to a job, GPU accounting, the TensorBoard URL, and the directory names
of jobs.
"""

KINDS = [  # (kubectl resource, kind, spec type)
    ("tfjobs.kubeflow.org", "TFJob", "tfjob"),
    ("pytorchjobs.kubeflow.org", "PyTorchJob", "pytorchjob"),
    ("mpijobs.kubeflow.org", "MPIJob", "mpijob"),
    ("xgboostjobs.kubeflow.org", "XGBoostJob", "xgboostjob"),
    ("paddlejobs.kubeflow.org", "PaddleJob", "paddlejob"),
    ("jaxjobs.kubeflow.org", "JAXJob", "jaxjob"),
    ("trainjobs.trainer.kubeflow.org", "TrainJob", "trainjob"),
]
TYPE_OF_KIND = {k: t for _, k, t in KINDS}
# The kinds listed read-only (--arena-kinds), by (API group, kind): Volcano's is "Job".
ARENA_TYPES = {("kai.alibabacloud.com", "TrainingJob"): "etjob",
               ("batch.volcano.sh", "Job"): "volcanojob",
               ("sparkoperator.k8s.io", "SparkApplication"): "sparkjob",
               ("ray.io", "RayJob"): "rayjob"}
# Every type of the kinds' table: a name ending in ".TYPE" always carries its own.
ALL_TYPES = set(TYPE_OF_KIND.values()) | set(ARENA_TYPES.values())
NAME_MAX = 255
OPERATOR_KINDS = {"tfjob-controller": "TFJob", "pytorchjob-controller": "PyTorchJob",
                  "mpijob-controller": "MPIJob", "xgboostjob-controller": "XGBoostJob",
                  "paddlejob-controller": "PaddleJob", "jaxjob-controller": "JAXJob"}
GPU = "nvidia.com/gpu"


def served_resources(cluster):
    """The job resources the cluster serves (as kubectl api-resources lists them)."""
    out = cluster.kubectl("api-resources", "-o", "name").stdout.split()
    return [r for r, _, _ in KINDS if r in out]


def all_jobs(cluster, namespace=None):
    """Every training job of the namespace (the cluster's own by default), any
    kind: kubectl's JSON items."""
    namespace = namespace or getattr(cluster, "namespace", "default")
    jobs = []
    for resource in served_resources(cluster):
        jobs += cluster.kubectl_json("get", resource, "-n", namespace)["items"]
    return jobs


def pods(cluster, namespace=None):
    namespace = namespace or getattr(cluster, "namespace", "default")
    return cluster.kubectl_json("get", "pods", "-n", namespace)["items"]


def labels(obj):
    return obj["metadata"].get("labels") or {}


def pods_of_job(job, all_pods):
    """The job's pods: its controller reference, else the operators' labels."""
    kind, name = job["kind"], job["metadata"]["name"]
    mine = []
    for p in all_pods:
        owner = next((o for o in p["metadata"].get("ownerReferences") or [] if o.get("controller")),
                     None)
        lab = labels(p)
        if owner and owner["kind"] == kind:
            if owner["name"] == name:
                mine.append(p)
            continue
        if lab.get("training.kubeflow.org/job-name") == name:
            op = lab.get("training.kubeflow.org/operator-name")
            if op is None or OPERATOR_KINDS.get(op) == kind or (kind == "MPIJob" and "mpi" in op):
                mine.append(p)
        elif kind == "TrainJob" and lab.get("jobset.sigs.k8s.io/jobset-name") == name:
            mine.append(p)
    return mine


def conditions(job):
    return {c["type"]: c.get("status") == "True"
            for c in (job.get("status") or {}).get("conditions") or []}


def is_launcher(p):
    lab = labels(p)
    return (lab.get("training.kubeflow.org/replica-type", "").lower() == "launcher"
            or lab.get("training.kubeflow.org/job-role") == "launcher")


def job_status(job, job_pods):
    """Arena's status word (docs/tree.md), from the job's conditions and its pods."""
    kind, cond = job["kind"], conditions(job)
    if kind == "MPIJob":
        if cond.get("Succeeded"):
            s = "SUCCEEDED"
        elif cond.get("Failed"):
            s = "FAILED"
        elif cond.get("Suspended"):
            s = "SUSPENDED"
        else:
            launchers = sorted((p for p in job_pods if is_launcher(p)),
                               key=lambda p: (p["metadata"]["creationTimestamp"],
                                              p["metadata"]["name"]))
            phase = launchers[-1]["status"].get("phase") if launchers else None
            s = {None: "PENDING", "Pending": "PENDING", "Succeeded": "SUCCEEDED",
                 "Failed": "FAILED"}.get(phase, "RUNNING")
    elif kind == "TrainJob":
        if cond.get("Complete"):
            s = "SUCCEEDED"
        elif cond.get("Failed"):
            s = "FAILED"
        elif cond.get("Suspended"):
            s = "SUSPENDED"
        elif any(p["status"].get("phase") in ("Running", "Succeeded") for p in job_pods):
            s = "RUNNING"
        else:
            s = "PENDING"
    else:
        s = "PENDING"
        for t, word in (("Succeeded", "SUCCEEDED"), ("Failed", "FAILED"),
                        ("Suspended", "SUSPENDED"), ("Running", "RUNNING"),
                        ("Queuing", "QUEUING")):
            if cond.get(t):
                s = word
                break
    if s == "RUNNING" and any(p["status"].get("phase") == "Pending" for p in job_pods):
        s = "PENDING"
    return s


def type_of(job):
    """The `type` of a job object (kubectl's JSON)."""
    group = job["apiVersion"].split("/")[0]
    return ARENA_TYPES.get((group, job["kind"])) or TYPE_OF_KIND[job["kind"]]


def job_dir_names(jobs):
    """{directory name: job} by the naming rule: NAME, or NAME.TYPE when several
    kinds hold NAME or NAME ends in ".TYPE" for any type; names longer than a file
    name may be are not listed."""
    count = {}
    for j in jobs:
        count[j["metadata"]["name"]] = count.get(j["metadata"]["name"], 0) + 1
    names = {}
    for j in jobs:
        n = j["metadata"]["name"]
        suffixed = count[n] > 1 or n.rsplit(".", 1)[-1] in ALL_TYPES and "." in n
        d = n + "." + type_of(j) if suffixed else n
        if len(d.encode()) <= NAME_MAX:
            names[d] = j
    return names


def listing_order(names):
    """jobs/ order: newest first, ties by directory name."""
    return sorted(names, key=lambda d: (_neg_time(names[d]["metadata"]["creationTimestamp"]), d))


def _neg_time(ts):
    # RFC 3339 "2026-12-02T10:14:29Z" sorts as text; newest first = reverse
    return tuple(-ord(c) for c in ts)


def pod_gpus(p):
    total = 0
    for c in p["spec"].get("containers") or []:
        lim = ((c.get("resources") or {}).get("limits") or {}).get(GPU)
        if lim is not None:
            total += int(lim)
    return total


def job_gpus(job_pods):
    """(allocated, requested) as arena list and arena top job count them: requested
    is the first positive requestGPUsOfJobOwner annotation, else the pods' sum;
    allocated sums the pods that started and are not completed."""
    requested = 0
    for p in job_pods:
        value = (p["metadata"].get("annotations") or {}).get("requestGPUsOfJobOwner", "")
        if value.isdigit() and int(value) > 0:
            requested = int(value)
            break
    else:
        requested = sum(pod_gpus(p) for p in job_pods)
    allocated = sum(pod_gpus(p) for p in job_pods
                    if p["status"].get("startTime")
                    and p["status"].get("phase") not in ("Succeeded", "Failed")
                    and not p["metadata"].get("deletionTimestamp"))
    return allocated, requested


def node_gpus(node, all_pods):
    """(allocated, total) as arena top node counts them."""
    name = node["metadata"]["name"]
    total = int((node["status"].get("capacity") or {}).get(GPU, 0))
    allocated = sum(pod_gpus(p) for p in all_pods
                    if p["spec"].get("nodeName") == name
                    and p["status"].get("phase") not in ("Succeeded", "Failed")
                    and not p["metadata"].get("deletionTimestamp"))
    return allocated, total


def node_ready(node):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in node["status"].get("conditions") or [])


def internal_ip(node):
    return next((a["address"] for a in node["status"].get("addresses") or []
                 if a["type"] == "InternalIP"), None)


def tensorboard_url(job, services, nodes):
    """Arena's rule: release=NAME service (role=tensorboard first, then by name);
    LoadBalancer ingress, else the first Ready node's InternalIP and the nodePort."""
    name = job["metadata"]["name"]
    mine = [s for s in services if labels(s).get("release") == name]
    mine.sort(key=lambda s: (labels(s).get("role") != "tensorboard", s["metadata"]["name"]))
    ready = sorted((n for n in nodes if node_ready(n) and internal_ip(n)),
                   key=lambda n: n["metadata"]["name"])
    for s in mine:
        ports = s["spec"].get("ports") or []
        if not ports:
            continue
        ingress = ((s.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        if s["spec"].get("type") == "LoadBalancer" and ingress:
            host = ingress[0].get("ip") or ingress[0].get("hostname")
            return "http://%s:%d" % (host, ports[0]["port"])
        if ports[0].get("nodePort") and ready:
            return "http://%s:%d" % (internal_ip(ready[0]), ports[0]["nodePort"])
    return None
