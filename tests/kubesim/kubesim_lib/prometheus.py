"""kubesim's Prometheus: the GPU figures a Prometheus would answer, served
through the API server's service proxy as a real one is
(`/api/v1/namespaces/NS/services/[http:]NAME[:PORT]/proxy/api/v1/query`).

A Service is a Prometheus when it carries a label Arena 0.15.5 looks for
(kubernetes.io/service-name=prometheus-admin or prometheus-server,
kubernetes.io/name=Prometheus): a test (or the demo) creates one, and until it
does there is none, as on a cluster without monitoring. The proxy of any other
Service answers 503, as the real one does for a Service without endpoints.

The answer holds, for every GPU of a node (nvidia.com/gpu capacity), one
series per metric of both families a real stand-in exporter serves (DCGM's
and Arena's names and labels, tests/cluster/gpu_exporter.py): a GPU a Running
pod holds (the lowest free indices of its node, kept while it runs, as a
device plugin allocates them) carries the pod's labels, one no pod holds none
and reads idle (0 %, 0 of 16384 MiB). Filtered by the query's __name__ and
pod_name regular expressions. Figures: what a test set with POST /_sim/gpus
{"NS/POD": [{"util": 87, "memory_used_mib": 5120, "memory_total_mib": 16384},
...]} (a list per GPU; "families": ["dcgm"] keeps one family; "held_for": S
says the figures have held for the last S seconds), else made up from the
pod's name and the clock (the demo's GPUs move, 40..95 %).

The query arenafs asks is understood whole: `SELECTOR or
label_replace(max_over_time(SELECTOR[10m]), "LABEL", "VALUE", "", "")`, the
maximum over the window computed from the history of what tests set (since
the pod started: a series exists while its pod runs); other forms select nothing.
"""

import calendar
import json
import re
import threading
import time
import zlib

from .store import ApiError

PROMETHEUS_LABELS = (("kubernetes.io/service-name", "prometheus-admin"),
                     ("kubernetes.io/service-name", "prometheus-server"),
                     ("kubernetes.io/name", "Prometheus"))
MIB = 1024 * 1024
PROXY = re.compile(r"^/api/v1/namespaces/([^/]+)/services/([^/]+)/proxy(/.*)?$")
SELECTOR = re.compile(r'(\w+)\s*=~\s*"((?:[^"\\]|\\.)*)"')
MAX_OVER = re.compile(r'^label_replace\(max_over_time\((\{.*\})\[(\d+)([smh])\]\),\s*'
                      r'"(\w+)",\s*"([^"]*)",\s*"",\s*""\)$')
UNIT = {"s": 1, "m": 60, "h": 3600}
TOTAL_MIB = 16384
MADE_UP_STEP = 5                # the made-up figures change every 5 s, through 56 values


class Prometheus:
    def __init__(self, store):
        self.store = store
        self.lock = threading.Lock()
        self.gpus = {}                  # "NS/POD" -> [{"util", "memory_used_mib", ...}]
        self.history = {}               # "NS/POD" -> [(since, [figures] or None: made up)]
        self.families = ("dcgm", "arena")
        self.held = {}                  # node -> {pod uid: [GPU indices]}

    def set(self, body):
        """POST /_sim/gpus: the figures of the pods named (replacing all set before)."""
        with self.lock:
            families = body.pop("families", None)
            if families is not None:
                self.families = tuple(families)
            now = time.time()
            since = now - float(body.pop("held_for", 0) or 0)
            for key in self.gpus:
                if key not in body:
                    self.history.setdefault(key, []).append((now, None))
            self.gpus = {k: list(v) for k, v in body.items()}
            for key, figures in self.gpus.items():
                past = [h for h in self.history.get(key, []) if h[0] < since]
                self.history[key] = past + [(since, figures)]

    @staticmethod
    def made_up(ns, pod, n, t):
        # steady per GPU, moving with the clock, 40..95 %
        seed = zlib.crc32(("%s/%s" % (ns, pod)).encode())
        step = int(t) // MADE_UP_STEP
        return [{"util": 40 + (seed + 7 * i + 13 * step) % 56,
                 "memory_used_mib": 4096 + (seed >> 8) % 8192,
                 "memory_total_mib": TOTAL_MIB} for i in range(n)]

    def figures(self, ns, pod, n):
        with self.lock:
            given = self.gpus.get("%s/%s" % (ns, pod))
        return given if given is not None else self.made_up(ns, pod, n, time.time())

    def duty_max(self, ns, pod, i, t0, t1):
        """The most GPU i of pod ns/pod's duty cycle was over [t0, t1]: the figures set
        then (made up where none were)."""
        with self.lock:
            spans = list(self.history.get("%s/%s" % (ns, pod), []))
        edges = [(t0, None)] + [h for h in spans if t0 < h[0] <= t1]
        before = [h for h in spans if h[0] <= t0]
        if before:
            edges[0] = (t0, before[-1][1])
        most = 0.0
        for k, (start, figures) in enumerate(edges):
            end = edges[k + 1][0] if k + 1 < len(edges) else t1
            if figures is not None:
                most = max(most, float((figures[i] if i < len(figures) else {}).get("util", 0)))
                continue
            steps = range(int(start) // MADE_UP_STEP, int(end) // MADE_UP_STEP + 1)
            if len(steps) >= 56:
                return 95.0
            most = max([most] + [float(self.made_up(ns, pod, i + 1, s * MADE_UP_STEP)[i]["util"])
                                 for s in steps])
        return most

    @staticmethod
    def is_prometheus(svc):
        labels = svc.get("metadata", {}).get("labels") or {}
        return any(labels.get(k) == v for k, v in PROMETHEUS_LABELS)

    def serve_proxy(self, sim, req):
        """A service proxy request, or False when the path is not one."""
        m = PROXY.match(req.path)
        if not m:
            return False
        ns, target, rest = m.group(1), m.group(2), m.group(3) or "/"
        parts = target.split(":")
        name = parts[1] if len(parts) == 3 or (len(parts) == 2 and parts[0] in ("http", "https")) \
            else parts[0]
        res = sim.registry.get("services")
        sim.authorize(req, "get", res, ns, name, "proxy")
        sim.stats.count("get services/proxy")
        entry = self.store.get("services", ns, name)
        if entry is None:
            raise ApiError(404, "NotFound", 'services "%s" not found' % name,
                           {"name": name, "kind": "services"})
        if not self.is_prometheus(entry.obj):
            raise ApiError(503, "ServiceUnavailable",
                           'no endpoints available for service "%s"' % name)
        if rest != "/api/v1/query":
            req.h.send_bytes(404, b"404 page not found\n", "text/plain; charset=utf-8")
            return True
        req.h.send_json(200, self.query(req.q("query") or ""))
        return True

    def allocate(self, pods, nodes):
        """{pod uid: [indices]}: each Running pod's GPUs, the lowest free of its node when
        first seen, kept while it runs (as gpu_exporter.py does)."""
        live = {p["metadata"]["uid"] for p in pods}
        out = {}
        with self.lock:
            for held in self.held.values():
                for uid in [u for u in held if u not in live]:
                    del held[uid]
            for p in pods:
                node, uid = p["spec"]["nodeName"], p["metadata"]["uid"]
                held = self.held.setdefault(node, {})
                if uid not in held:
                    taken = {i for idx in held.values() for i in idx}
                    held[uid] = [i for i in range(nodes.get(node, 0)) if i not in taken][
                        :gpus_of(p)]
                out[uid] = held[uid]
        return out

    def series(self, window=None):
        """(name, labels, value) of every GPU; with window (seconds), the duty cycles'
        maxima over it instead, as (None, labels, value)."""
        nodes = {}
        for e in self.store.list("nodes")[0]:
            try:
                nodes[e.obj["metadata"]["name"]] = int(
                    e.obj.get("status", {}).get("capacity", {}).get("nvidia.com/gpu", 0))
            except (TypeError, ValueError):
                pass
        pods = []
        for e in self.store.list("pods")[0]:
            p = e.obj
            if p.get("status", {}).get("phase") != "Running" or \
                    p["metadata"].get("deletionTimestamp") or gpus_of(p) <= 0 or \
                    p.get("spec", {}).get("nodeName") not in nodes:
                continue
            pods.append(p)
        pods.sort(key=lambda p: (p["metadata"].get("creationTimestamp", ""),
                                 p["metadata"]["namespace"], p["metadata"]["name"]))
        held = self.allocate(pods, nodes)
        now = time.time()
        taken = {}
        for p in pods:
            ns, name = p["metadata"]["namespace"], p["metadata"]["name"]
            node = p["spec"]["nodeName"]
            idx = held[p["metadata"]["uid"]]
            taken.setdefault(node, set()).update(idx)
            figures = self.figures(ns, name, len(idx))
            start = parse_time(p["status"].get("startTime")) or now
            for nth, i in enumerate(idx):
                f = figures[nth] if nth < len(figures) else {}
                if window:
                    f = {"util": self.duty_max(ns, name, nth, max(now - window, start), now)}
                yield from self.gpu(node, i, (ns, name), f, window)
        for node, n in sorted(nodes.items()):
            for i in range(n):
                if i not in taken.get(node, ()):
                    yield from self.gpu(node, i, None, {}, window)

    def gpu(self, node, i, pod, f, window):
        """The series of one GPU: its figures f, held by pod (ns, name) or by none."""
        total = f.get("memory_total_mib", TOTAL_MIB)
        used = f.get("memory_used_mib", 0)
        uuid = "GPU-%08x-%04d" % (zlib.crc32(node.encode()), i)
        if "dcgm" in self.families:
            labels = {"gpu": str(i), "UUID": uuid, "Hostname": node}
            if pod:
                labels.update(pod=pod[1], namespace=pod[0], container="main")
            yield "DCGM_FI_DEV_GPU_UTIL", labels, f.get("util", 0)
            if not window:
                yield "DCGM_FI_DEV_FB_USED", labels, used
                yield "DCGM_FI_DEV_FB_FREE", labels, total - used
        if "arena" in self.families:
            labels = {"node_name": node, "minor_number": str(i), "uuid": uuid}
            if pod:
                labels.update(pod_name=pod[1], namespace_name=pod[0])
            yield "nvidia_gpu_duty_cycle", labels, f.get("util", 0)
            if not window:
                yield "nvidia_gpu_memory_used_bytes", labels, used * MIB
                yield "nvidia_gpu_memory_total_bytes", labels, total * MIB

    def query(self, q):
        """An instant query: `{__name__=~"A|B", pod_name=~"p|q"}`, as Arena asks, or
        arenafs's (that, `or` the duty cycles' maxima over a window, labelled); other
        matchers are not understood and select nothing."""
        now = time.time()
        result = []
        for part in q.split(" or "):
            m = MAX_OVER.match(part.strip())
            window = int(m.group(2)) * UNIT[m.group(3)] if m else None
            matchers = matchers_of(m.group(1) if m else part)
            if isinstance(matchers, str):
                return {"status": "error", "errorType": "bad_data", "error": matchers}
            for name, labels, value in self.series(window):
                metric = dict(labels, __name__=name)
                if not all(k in metric and rx.match(metric[k]) for k, rx in matchers.items()):
                    continue
                if m:
                    del metric["__name__"]
                    metric[m.group(4)] = m.group(5)
                result.append({"metric": metric, "value": [now, repr_value(value)]})
        return {"status": "success", "data": {"resultType": "vector", "result": result}}


def matchers_of(selector):
    """{label: compiled regular expression} of a selector's =~ matchers, or why not."""
    matchers = {}
    for k, v in SELECTOR.findall(selector):
        try:
            matchers[k] = re.compile("^(?:%s)$" % v.replace('\\\\', '\\'))
        except re.error:
            return "invalid regular expression %r" % v
    return matchers


def gpus_of(pod):
    n = 0
    for c in pod.get("spec", {}).get("containers", []):
        lim = (c.get("resources") or {}).get("limits") or {}
        try:
            n += int(lim.get("nvidia.com/gpu", 0))
        except (TypeError, ValueError):
            pass
    return n


def parse_time(text):
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def repr_value(v):
    """A sample value as Prometheus writes it: "87", "12.5"."""
    v = float(v)
    return str(int(v)) if v == int(v) else repr(v)


def control(prom, h, body):
    """POST /_sim/gpus."""
    if not isinstance(body, dict):
        return h.send_json(400, {"error": "gpus: {\"NS/POD\": [{util, memory_used_mib, ...}]}"})
    prom.set(body)
    return h.send_json(200, {"ok": True})
