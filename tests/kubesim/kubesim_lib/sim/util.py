"""Small pure helpers the simulated controllers share: times, quantities,
names, hashing, env reading and the defaults the apiserver would apply to
the objects the controllers create themselves.

Nothing here touches the store or the clock of the simulation: callers pass
what they need, so populate() and the live controllers build objects the same
way.
"""

import datetime
import hashlib
import json
import re
import time

from ..store import ApiError

# Kubernetes' rand.SafeEncodeString alphabet: no vowels (no words), no 0/1/3
# (confusable). generateName suffixes and pod-template-hash use it.
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

GPU = "nvidia.com/gpu"


def clone(obj):
    """A deep copy of a JSON-shaped object; twice as fast as copy.deepcopy."""
    return json.loads(json.dumps(obj))


# ---- time ----

def rfc3339(t=None):
    """metav1.Time text (second precision, UTC) of unix time t (default now)."""
    if t is None:
        t = time.time()
    return datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(s):
    """Unix time of an RFC 3339 text, or None."""
    if not s:
        return None
    try:
        s = s.replace("Z", "+00:00")
        return datetime.datetime.fromisoformat(s).timestamp()
    except ValueError:
        return None


# ---- quantities ----

_SUFFIX = {
    "": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
}
_QTY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$")


def quantity(v):
    """A resource.Quantity (string or number) as a float of base units
    (cores, bytes, devices). Unparseable values count as 0, as a pod the
    apiserver would have rejected cannot ask for anything."""
    if v is None:
        return 0.0
    if isinstance(v, (int, float)):
        return float(v)
    m = _QTY.match(str(v).strip())
    if not m:
        return 0.0
    try:
        return float(m.group(1)) * _SUFFIX[m.group(2) or ""]
    except ValueError:
        return 0.0


def container_request(c, resource):
    """What a container asks the scheduler for: requests, else limits (the
    apiserver defaults requests to limits when only limits are given)."""
    res = c.get("resources") or {}
    req = res.get("requests") or {}
    if resource in req:
        return quantity(req[resource])
    return quantity((res.get("limits") or {}).get(resource))


def pod_request(spec, resource):
    """The pod's effective request, as the scheduler computes it: the larger of
    the sum over containers and the largest init container, plus overhead."""
    total = sum(container_request(c, resource) for c in spec.get("containers") or [])
    init = max([container_request(c, resource) for c in spec.get("initContainers") or []] or [0])
    over = quantity((spec.get("overhead") or {}).get(resource))
    return max(total, init) + over


# ---- names and hashes ----

def digest(*parts):
    """A stable 256-bit hex digest of parts (Python's hash() is salted)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def stable_int(*parts):
    return int(digest(*parts)[:16], 16)


def safe_suffix(n, *parts):
    """n characters of the SafeEncodeString alphabet derived from parts, as a
    generateName suffix (deterministic so runs with one seed look alike)."""
    x = stable_int(*parts)
    out = []
    for _ in range(n):
        x, r = divmod(x, len(SAFE_ALPHABET))
        out.append(SAFE_ALPHABET[r])
        if x == 0:
            x = stable_int(*parts, len(out))
    return "".join(out)


def fnv32a(data):
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(s):
    """rand.SafeEncodeString: each byte mapped into SAFE_ALPHABET."""
    return "".join(SAFE_ALPHABET[b % len(SAFE_ALPHABET)] for b in s.encode())


def container_id(pod_uid, name, restart):
    return "containerd://" + digest("container", pod_uid, name, restart)


def image_ref(image):
    """(the image as the runtime reports it, its imageID)."""
    name = image
    tag = "latest"
    if "@" in name:
        name = name.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif "." not in first and ":" not in first and first != "localhost":
        name = "docker.io/" + name
    return "%s:%s" % (name, tag), "%s@sha256:%s" % (name, digest("image", name, tag))


def image_size(image):
    """A plausible compressed size: GBs for framework/CUDA images, MBs else."""
    big = any(w in image for w in ("tensorflow", "pytorch", "torch", "cuda", "nvidia", "horovod",
                                   "mpi", "jax", "paddle", "xgboost"))
    if big:
        return 2_000_000_000 + stable_int("size", image) % 6_000_000_000
    return 2_000_000 + stable_int("size", image) % 200_000_000


def default_pull_policy(image):
    """The apiserver's default: Always for :latest or untagged images."""
    last = image.rsplit("/", 1)[-1]
    if "@" in image:
        return "IfNotPresent"
    if ":" not in last or last.endswith(":latest"):
        return "Always"
    return "IfNotPresent"


# ---- env ----

def env_value(container, name):
    for e in container.get("env") or []:
        if e.get("name") == name and "value" in e:
            return e.get("value")
    return None


def env_float(container, name, default):
    v = env_value(container, name)
    if v is None:
        return default
    try:
        f = float(v)
    except ValueError:
        return default
    return f if f >= 0 else default


def env_int(container, name, default):
    v = env_value(container, name)
    if v is None:
        return default
    try:
        return int(float(v))
    except ValueError:
        return default


# ---- objects ----

def meta(obj):
    return obj.get("metadata") or {}


def key_of(obj):
    m = meta(obj)
    return (m.get("namespace", ""), m.get("name"))


def controller_ref(obj):
    for r in meta(obj).get("ownerReferences") or []:
        if r.get("controller"):
            return r
    return None


def owner_ref(owner, api_version, kind):
    """The controller ownerReference every controller here puts on what it
    creates (GC and `kubectl delete` cascade follow it)."""
    m = meta(owner)
    return {"apiVersion": api_version, "kind": kind, "name": m["name"], "uid": m["uid"],
            "controller": True, "blockOwnerDeletion": True}


def is_terminal(pod):
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def qos_class(spec):
    """The pod's QoS class, as the apiserver computes it at creation."""
    containers = (spec.get("containers") or []) + (spec.get("initContainers") or [])
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        req = res.get("requests") or {}
        lim = res.get("limits") or {}
        for r in ("cpu", "memory"):
            if r in req or r in lim:
                any_set = True
            l = lim.get(r)
            q = req.get(r, l)
            if l is None or quantity(q) != quantity(l):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
]


def default_container(c):
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    if c.get("image"):
        c.setdefault("imagePullPolicy", default_pull_policy(c["image"]))
    res = c.setdefault("resources", {})
    lim = res.get("limits") or {}
    if lim:
        req = res.setdefault("requests", {})
        for k, v in lim.items():
            req.setdefault(k, v)
    for p in c.get("ports") or []:
        p.setdefault("protocol", "TCP")


def default_pod(pod):
    """Fills what the apiserver's defaulting and admission (DefaultTolerationSeconds,
    ServiceAccount) add to a pod, for pods the controllers create straight into
    the store; a pod posted through the API gets the same from the API side."""
    spec = pod.setdefault("spec", {})
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        default_container(c)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("serviceAccountName", "default")
    spec["serviceAccount"] = spec["serviceAccountName"]
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("priority", 0)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    tol = spec.setdefault("tolerations", [])
    have = {(t.get("key"), t.get("effect")) for t in tol}
    for t in DEFAULT_TOLERATIONS:
        if (t["key"], t["effect"]) not in have:
            tol.append(dict(t))
    status = pod.setdefault("status", {})
    status.setdefault("phase", "Pending")
    status.setdefault("qosClass", qos_class(spec))
    return pod


def admit_priority_class(store, pod):
    """The Priority admission plugin: a pod naming a PriorityClass that does not exist
    is refused (an operator then says so in a FailedCreatePod event). Both the API's
    creates (admission.py) and the simulated controllers' (runtime.py) pass here."""
    pc = (pod.get("spec") or {}).get("priorityClassName")
    if pc and store.get("priorityclasses.scheduling.k8s.io", "", pc) is None:
        name = pod["metadata"]["name"]
        raise ApiError(403, "Forbidden", 'pods "%s" is forbidden: no PriorityClass with '
                       'name %s was found' % (name, pc), {"name": name, "kind": "pods"})
