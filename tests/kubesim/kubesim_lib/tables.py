"""Server-side printing: the meta.k8s.io/v1 Table kubectl asks for with
`Accept: application/json;as=Table;...`.

The columns and cells are those of kube-apiserver 1.32's printers
(pkg/printers/internalversion) and, for custom resources, of the CRD's
additionalPrinterColumns. As the apiserver does, every row carries the wide
(priority 1) cells too; kubectl shows them with `-o wide`. Ages are
apimachinery's duration.HumanDuration of the time since creation.
"""

import time

from .sim.util import parse_rfc3339

NAME_DESC = ("Name must be unique within a namespace. Is required when creating resources, "
             "although some resources may allow a client to request the generation of an "
             "appropriate name automatically. Name is primarily intended for creation "
             "idempotence and configuration definition. Cannot be updated. More info: "
             "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
AGE_DESC = ("CreationTimestamp is a timestamp representing the server time when this object "
            "was created. It is not guaranteed to be set in happens-before order across "
            "separate operations. Clients may not set this value. It is represented in RFC3339 "
            "form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More "
            "info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
            "api-conventions.md#metadata")


def human_duration(seconds):
    """duration.HumanDuration."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return "%ds" % s
    minutes = s // 60
    if minutes < 10:
        return "%dm" % minutes if s % 60 == 0 else "%dm%ds" % (minutes, s % 60)
    if minutes < 180:
        return "%dm" % minutes
    hours = s // 3600
    if hours < 8:
        return "%dh" % hours if minutes % 60 == 0 else "%dh%dm" % (hours, minutes % 60)
    if hours < 48:
        return "%dh" % hours
    if hours < 24 * 8:
        return "%dd" % (hours // 24) if hours % 24 == 0 else "%dd%dh" % (hours // 24, hours % 24)
    if hours < 24 * 365 * 2:
        return "%dd" % (hours // 24)
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return "%dy" % (hours // 24 // 365) if dy == 0 else "%dy%dd" % (hours // 24 // 365, dy)
    return "%dy" % (hours // 24 // 365)


def since(ts, now):
    t = parse_rfc3339(ts)
    if t is None:
        return "<unknown>"
    return human_duration(now - t)


def col(name, desc="", priority=0, type_="string", fmt=""):
    return {"name": name, "type": type_, "format": fmt, "description": desc, "priority": priority}


def _meta(o):
    return o.get("metadata") or {}


def _spec(o):
    return o.get("spec") or {}


def _status(o):
    return o.get("status") or {}


def format_labels(d):
    if not d:
        return "<none>"
    return ",".join("%s=%s" % kv for kv in sorted(d.items()))


def format_selector(sel):
    """metav1.FormatLabelSelector."""
    if sel is None:
        return "<none>"
    parts = ["%s=%s" % kv for kv in sorted((sel.get("matchLabels") or {}).items())]
    for e in sel.get("matchExpressions") or []:
        op = e.get("operator")
        vals = ",".join(e.get("values") or [])
        if op == "In":
            parts.append("%s in (%s)" % (e["key"], vals))
        elif op == "NotIn":
            parts.append("%s notin (%s)" % (e["key"], vals))
        elif op == "Exists":
            parts.append(e["key"])
        elif op == "DoesNotExist":
            parts.append("!" + e["key"])
    s = ",".join(parts)
    return s if s else "<none>"


def containers_cells(containers):
    names = ",".join(c.get("name", "") for c in containers or [])
    images = ",".join(c.get("image", "") for c in containers or [])
    return names, images


# ---- pods ----

POD_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"),
    col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "The aggregate status of the containers in this pod."),
    col("Restarts", "The number of times the containers in this pod have been restarted and "
        "when the last container in this pod has restarted."),
    col("Age", AGE_DESC),
    col("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty "
        "if not yet allocated.", 1),
    col("Node", "NodeName indicates in which node this pod is scheduled.", 1),
    col("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on "
        "the node, but it cannot be scheduled right away as preemption victims receive their "
        "graceful termination periods.", 1),
    col("Readiness Gates", "If specified, all readiness gates will be evaluated for pod "
        "readiness.", 1),
]


def _restartable(c):
    return (c or {}).get("restartPolicy") == "Always"


def pod_row(pod, now):
    spec, st, meta = _spec(pod), _status(pod), _meta(pod)
    restarts = 0
    sidecar_restarts = 0
    total = len(spec.get("containers") or [])
    ready = 0
    last_restart = 0.0
    last_sidecar_restart = 0.0
    phase = st.get("phase") or ""
    reason = st.get("reason") or phase
    for c in st.get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    inits = {c.get("name"): c for c in spec.get("initContainers") or []}
    for c in inits.values():
        if _restartable(c):
            total += 1
    initializing = False
    n_init = len(spec.get("initContainers") or [])
    for i, cs in enumerate(st.get("initContainerStatuses") or []):
        restarts += int(cs.get("restartCount") or 0)
        lt = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        t = parse_rfc3339(lt) or 0
        last_restart = max(last_restart, t)
        if _restartable(inits.get(cs.get("name"))):
            sidecar_restarts += int(cs.get("restartCount") or 0)
            last_sidecar_restart = max(last_sidecar_restart, t)
        state = cs.get("state") or {}
        term = state.get("terminated")
        wait = state.get("waiting")
        if term is not None and term.get("exitCode", 0) == 0:
            continue
        if _restartable(inits.get(cs.get("name"))) and cs.get("started"):
            if cs.get("ready"):
                ready += 1
            continue
        if term is not None:
            if not term.get("reason"):
                reason = ("Init:Signal:%d" % term["signal"] if term.get("signal")
                          else "Init:ExitCode:%d" % term.get("exitCode", 0))
            else:
                reason = "Init:" + term["reason"]
        elif wait is not None and wait.get("reason") and wait["reason"] != "PodInitializing":
            reason = "Init:" + wait["reason"]
        else:
            reason = "Init:%d/%d" % (i, n_init)
        initializing = True
        break
    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True"
                      for c in st.get("conditions") or [])
    if not initializing or initialized:
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for cs in reversed(st.get("containerStatuses") or []):
            restarts += int(cs.get("restartCount") or 0)
            lt = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
            last_restart = max(last_restart, parse_rfc3339(lt) or 0)
            state = cs.get("state") or {}
            wait, term = state.get("waiting"), state.get("terminated")
            if wait is not None and wait.get("reason"):
                reason = wait["reason"]
            elif term is not None and term.get("reason"):
                reason = term["reason"]
            elif term is not None:
                reason = ("Signal:%d" % term["signal"] if term.get("signal")
                          else "ExitCode:%d" % term.get("exitCode", 0))
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            has_ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                            for c in st.get("conditions") or [])
            reason = "Running" if has_ready else "NotReady"
    if meta.get("deletionTimestamp") and st.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    rs = str(restarts)
    if restarts and last_restart:
        rs = "%d (%s ago)" % (restarts, human_duration(now - last_restart))
    ips = st.get("podIPs") or []
    ip = (ips[0].get("ip") if ips else "") or "<none>"
    gates = "<none>"
    rg = spec.get("readinessGates") or []
    if rg:
        conds = {c.get("type"): c.get("status") for c in st.get("conditions") or []}
        gates = "%d/%d" % (sum(1 for g in rg if conds.get(g.get("conditionType")) == "True"),
                           len(rg))
    row = {"cells": [meta.get("name"), "%d/%d" % (ready, total), reason, rs,
                     since(meta.get("creationTimestamp"), now), ip,
                     spec.get("nodeName") or "<none>",
                     st.get("nominatedNodeName") or "<none>", gates]}
    if phase == "Succeeded":
        row["conditions"] = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                              "message": "The pod has completed successfully."}]
    elif phase == "Failed":
        row["conditions"] = [{"type": "Completed", "status": "True", "reason": "Failed",
                              "message": "The pod failed."}]
    return row


# ---- nodes ----

NODE_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"), col("Status", "The status of the node"),
    col("Roles", "The roles of the node"), col("Age", AGE_DESC),
    col("Version", "Kubelet Version reported by the node."),
    col("Internal-IP", "List of addresses reachable to the node. Queried from cloud provider, "
        "if available.", 1),
    col("External-IP", "List of addresses reachable to the node. Queried from cloud provider, "
        "if available.", 1),
    col("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian "
        "GNU/Linux 7 (wheezy)).", 1),
    col("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. "
        "3.16.0-0.bpo.4-amd64).", 1),
    col("Container-Runtime", "ContainerRuntime Version reported by the node through runtime "
        "remote API (e.g. containerd://1.4.2).", 1),
]


def node_roles(node):
    roles = set()
    for k, v in (_meta(node).get("labels") or {}).items():
        if k.startswith("node-role.kubernetes.io/"):
            r = k[len("node-role.kubernetes.io/"):]
            if r:
                roles.add(r)
        elif k == "kubernetes.io/role" and v:
            roles.add(v)
    return ",".join(sorted(roles)) or "<none>"


def node_row(node, now):
    st = _status(node)
    status = []
    for c in st.get("conditions") or []:
        if c.get("type") == "Ready":
            status = ["Ready" if c.get("status") == "True" else "NotReady"]
    if not status:
        status = ["Unknown"]
    if _spec(node).get("unschedulable"):
        status.append("SchedulingDisabled")
    info = st.get("nodeInfo") or {}

    def addr(t):
        for a in st.get("addresses") or []:
            if a.get("type") == t:
                return a.get("address")
        return "<none>"
    return {"cells": [_meta(node).get("name"), ",".join(status), node_roles(node),
                      since(_meta(node).get("creationTimestamp"), now),
                      info.get("kubeletVersion", ""), addr("InternalIP"), addr("ExternalIP"),
                      info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
                      info.get("containerRuntimeVersion") or "<unknown>"]}


# ---- services ----

SERVICE_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"),
    col("Type", "type determines how the Service is exposed. Defaults to ClusterIP."),
    col("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned "
        "randomly."),
    col("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster "
        "will also accept traffic for this service."),
    col("Port(s)", "The list of ports that are exposed by this service."),
    col("Age", AGE_DESC),
    col("Selector", "Route service traffic to pods with label keys and values matching this "
        "selector.", 1),
]


def service_row(svc, now):
    spec = _spec(svc)
    ips = spec.get("clusterIPs") or []
    internal = ips[0] if ips else "<none>"
    t = spec.get("type") or "ClusterIP"
    ext = spec.get("externalIPs") or []
    if t in ("ClusterIP", "NodePort"):
        external = ",".join(ext) if ext else "<none>"
    elif t == "LoadBalancer":
        ing = [i.get("ip") or i.get("hostname") for i in
               ((_status(svc).get("loadBalancer") or {}).get("ingress") or [])]
        allips = ing + ext
        external = ",".join(allips) if allips else "<pending>"
    elif t == "ExternalName":
        external = spec.get("externalName", "")
    else:
        external = "<unknown>"
    ports = []
    for p in spec.get("ports") or []:
        proto = p.get("protocol") or "TCP"
        if p.get("nodePort"):
            ports.append("%d:%d/%s" % (p.get("port", 0), p["nodePort"], proto))
        else:
            ports.append("%d/%s" % (p.get("port", 0), proto))
    return {"cells": [_meta(svc).get("name"), t, internal, external, ",".join(ports) or "<none>",
                      since(_meta(svc).get("creationTimestamp"), now),
                      format_labels(spec.get("selector"))]}


# ---- events ----

EVENT_COLUMNS = [
    col("Last Seen", "The last time this event was observed."),
    col("Type", "Type of this event (Normal, Warning), new types could be added in the future."),
    col("Reason", "The reason this event is generated. 'reason' should be short and unique; it "
        "should be in UpperCamelCase format (starting with a capital letter)."),
    col("Object", "The object that this event is about. Mapped from event.involvedObject."),
    col("Subobject", "The subobject of the involved object this event is about.", 1),
    col("Source", "The component reporting this event. Should be a short machine "
        "understandable string.", 1),
    col("Message", "A human-readable description of the status of this operation."),
    col("First Seen", "The time at which the event was first recorded. (Time of server receipt "
        "is in TypeMeta.)", 1),
    col("Count", "The number of times this event has occurred.", 1),
    col("Name", NAME_DESC, 1, fmt="name"),
]


def event_row(ev, now):
    first = since(ev.get("firstTimestamp") or ev.get("eventTime"), now)
    last = since(ev.get("lastTimestamp"), now) if ev.get("lastTimestamp") else first
    count = ev.get("count") or 1
    series = ev.get("series")
    if series:
        last = since(series.get("lastObservedTime"), now)
        count = series.get("count") or count
    io = ev.get("involvedObject") or {}
    target = ("%s/%s" % (io.get("kind", "").lower(), io["name"]) if io.get("name")
              else io.get("kind", "").lower())
    src = ev.get("source") or {}
    if src.get("component"):
        source = src["component"] + (", " + src["host"] if src.get("host") else "")
    else:
        source = ev.get("reportingComponent") or ""
        if ev.get("reportingInstance"):
            source += ", " + ev["reportingInstance"]
    return {"cells": [last, ev.get("type", ""), ev.get("reason", ""), target,
                      io.get("fieldPath", ""), source, (ev.get("message") or "").strip(), first,
                      int(count), _meta(ev).get("name")]}


# ---- workloads ----

DEPLOYMENT_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"),
    col("Ready", "Number of the pod with ready state"),
    col("Up-to-date", "Total number of non-terminated pods targeted by this deployment that "
        "have the desired template spec."),
    col("Available", "Total number of available pods (ready for at least minReadySeconds) "
        "targeted by this deployment."),
    col("Age", AGE_DESC),
    col("Containers", "Names of each container in the template.", 1),
    col("Images", "Images referenced by each container in the template.", 1),
    col("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by "
        "this will be the ones affected by this deployment.", 1),
]


def deployment_row(d, now):
    spec, st = _spec(d), _status(d)
    names, images = containers_cells(((spec.get("template") or {}).get("spec") or {})
                                     .get("containers"))
    return {"cells": [_meta(d).get("name"),
                      "%d/%d" % (st.get("readyReplicas", 0), spec.get("replicas", 1)),
                      int(st.get("updatedReplicas", 0)), int(st.get("availableReplicas", 0)),
                      since(_meta(d).get("creationTimestamp"), now), names, images,
                      format_selector(spec.get("selector"))]}


REPLICASET_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"),
    col("Desired", "Replicas is the number of desired pods."),
    col("Current", "Replicas is the most recently observed number of replicas."),
    col("Ready", "The number of pods targeted by this ReplicaSet with a Ready Condition."),
    col("Age", AGE_DESC),
    col("Containers", "Names of each container in the template.", 1),
    col("Images", "Images referenced by each container in the template.", 1),
    col("Selector", "Selector is a label query over pods that should match the replica "
        "count.", 1),
]


def replicaset_row(r, now):
    spec, st = _spec(r), _status(r)
    names, images = containers_cells(((spec.get("template") or {}).get("spec") or {})
                                     .get("containers"))
    return {"cells": [_meta(r).get("name"), int(spec.get("replicas", 1)),
                      int(st.get("replicas", 0)), int(st.get("readyReplicas", 0)),
                      since(_meta(r).get("creationTimestamp"), now), names, images,
                      format_selector(spec.get("selector"))]}


JOB_COLUMNS = [
    col("Name", NAME_DESC, fmt="name"),
    col("Status", "Status of the job."),
    col("Completions", "The completion status of the job"),
    col("Duration", "Time required to complete the job."),
    col("Age", AGE_DESC),
    col("Containers", "Names of each container in the template.", 1),
    col("Images", "Images referenced by each container in the template.", 1),
    col("Selector", "A label query over pods that should match the pod count.", 1),
]


def job_row(j, now):
    spec, st = _spec(j), _status(j)
    if spec.get("completions") is not None:
        comp = "%d/%d" % (st.get("succeeded", 0), spec["completions"])
    elif (spec.get("parallelism") or 0) > 1:
        comp = "%d/1 of %d" % (st.get("succeeded", 0), spec["parallelism"])
    else:
        comp = "%d/1" % st.get("succeeded", 0)
    start, end = parse_rfc3339(st.get("startTime")), parse_rfc3339(st.get("completionTime"))
    dur = ""
    if start is not None:
        dur = human_duration((end if end is not None else now) - start)
    conds = {c.get("type") for c in st.get("conditions") or [] if c.get("status") == "True"}
    if "Complete" in conds:
        status = "Complete"
    elif "Failed" in conds:
        status = "Failed"
    elif _meta(j).get("deletionTimestamp"):
        status = "Terminating"
    elif "Suspended" in conds:
        status = "Suspended"
    elif "FailureTarget" in conds:
        status = "FailureTarget"
    elif "SuccessCriteriaMet" in conds:
        status = "SuccessCriteriaMet"
    else:
        status = "Running"
    names, images = containers_cells(((spec.get("template") or {}).get("spec") or {})
                                     .get("containers"))
    return {"cells": [_meta(j).get("name"), status, comp, dur,
                      since(_meta(j).get("creationTimestamp"), now), names, images,
                      format_selector(spec.get("selector"))]}


# ---- small core kinds ----

NAMESPACE_COLUMNS = [col("Name", NAME_DESC, fmt="name"),
                     col("Status", "The status of the namespace"), col("Age", AGE_DESC)]


def namespace_row(n, now):
    return {"cells": [_meta(n).get("name"), _status(n).get("phase", ""),
                      since(_meta(n).get("creationTimestamp"), now)]}


CONFIGMAP_COLUMNS = [col("Name", NAME_DESC, fmt="name"),
                     col("Data", "Data contains the configuration data.", type_="integer"),
                     col("Age", AGE_DESC)]


def configmap_row(c, now):
    return {"cells": [_meta(c).get("name"), len(c.get("data") or {}) + len(c.get("binaryData") or {}),
                      since(_meta(c).get("creationTimestamp"), now)]}


SECRET_COLUMNS = [col("Name", NAME_DESC, fmt="name"),
                  col("Type", "The type of the secret"),
                  col("Data", "The number of entries in the secret", type_="integer"),
                  col("Age", AGE_DESC)]


def secret_row(s, now):
    return {"cells": [_meta(s).get("name"), s.get("type", "Opaque"),
                      len(s.get("data") or {}) + len(s.get("stringData") or {}),
                      since(_meta(s).get("creationTimestamp"), now)]}


SA_COLUMNS = [col("Name", NAME_DESC, fmt="name"),
              col("Secrets", "Secrets is a list of the secrets in the same namespace that "
                  "pods running using this ServiceAccount are allowed to use.", type_="integer"),
              col("Age", AGE_DESC)]


def sa_row(s, now):
    return {"cells": [_meta(s).get("name"), len(s.get("secrets") or []),
                      since(_meta(s).get("creationTimestamp"), now)]}


PVC_COLUMNS = [col("Name", NAME_DESC, fmt="name"),
               col("Status", "The phase indicates if a volume is available, bound to a claim, "
                   "or released by a claim."),
               col("Volume", "VolumeName is the binding reference to the PersistentVolume "
                   "backing this claim."),
               col("Capacity", "The storage capacity of the volume backing the claim."),
               col("Access Modes", "AccessModes contains the desired access modes the volume "
                   "should have."),
               col("StorageClass", "StorageClassName is the name of the StorageClass required "
                   "by the claim."),
               col("VolumeAttributesClass", "VolumeAttributesClassName may be used to set the "
                   "VolumeAttributesClass used by this claim."),
               col("Age", AGE_DESC),
               col("VolumeMode", "volumeMode defines what type of volume is required by the "
                   "claim.", 1)]

ACCESS_SHORT = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
                "ReadWriteOncePod": "RWOP"}


def pvc_row(p, now):
    spec, st = _spec(p), _status(p)
    cap = (st.get("capacity") or {}).get("storage", "") if spec.get("volumeName") else ""
    modes = ",".join(ACCESS_SHORT.get(m, m) for m in st.get("accessModes") or []) \
        if spec.get("volumeName") else ""
    return {"cells": [_meta(p).get("name"), st.get("phase", ""), spec.get("volumeName", ""), cap,
                      modes, spec.get("storageClassName") or "<unset>",
                      spec.get("volumeAttributesClassName") or "<unset>",
                      since(_meta(p).get("creationTimestamp"), now),
                      spec.get("volumeMode") or "<unset>"]}


# ---- custom resources ----

CR_DEFAULT_COLUMNS = [col("Name", NAME_DESC, fmt="name"), col("Age", AGE_DESC, type_="date")]
KUBEFLOW_COLUMNS = [col("Name", NAME_DESC, fmt="name"), col("State"),
                    col("Age", type_="date")]


def cr_row(o, now):
    return {"cells": [_meta(o).get("name"), since(_meta(o).get("creationTimestamp"), now)]}


def kubeflow_row(o, now):
    conds = _status(o).get("conditions") or []
    state = conds[-1].get("type") if conds else None
    return {"cells": [_meta(o).get("name"), state, since(_meta(o).get("creationTimestamp"), now)]}


PRINTERS = {
    "pods": (POD_COLUMNS, pod_row),
    "nodes": (NODE_COLUMNS, node_row),
    "services": (SERVICE_COLUMNS, service_row),
    "events": (EVENT_COLUMNS, event_row),
    "deployments": (DEPLOYMENT_COLUMNS, deployment_row),
    "replicasets": (REPLICASET_COLUMNS, replicaset_row),
    "jobs": (JOB_COLUMNS, job_row),
    "namespaces": (NAMESPACE_COLUMNS, namespace_row),
    "configmaps": (CONFIGMAP_COLUMNS, configmap_row),
    "secrets": (SECRET_COLUMNS, secret_row),
    "serviceaccounts": (SA_COLUMNS, sa_row),
    "pvcs": (PVC_COLUMNS, pvc_row),
    "kubeflow": (KUBEFLOW_COLUMNS, kubeflow_row),
}


def printer_of(res):
    return PRINTERS.get(res.printer, (CR_DEFAULT_COLUMNS, cr_row))


def partial_metadata(obj):
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata") or {}}


def table(res, objs, rv, cont=None, include="Metadata", with_columns=True, remaining=None):
    """The Table of objs (dicts with kind/apiVersion for include=Object)."""
    columns, row_fn = printer_of(res)
    now = time.time()
    rows = []
    for o in objs:
        row = row_fn(o, now)
        if include == "Object":
            row["object"] = o
        elif include != "None":
            row["object"] = partial_metadata(o)
        rows.append(row)
    meta = {"resourceVersion": str(rv)} if rv is not None else {}
    if cont:
        meta["continue"] = cont
    if remaining is not None:
        meta["remainingItemCount"] = remaining
    t = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
         "columnDefinitions": columns if with_columns else None, "rows": rows}
    return t
