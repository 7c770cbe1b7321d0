"""kubesim's Prometheus: the GPU figures a Prometheus would answer, served
through the API server's service proxy as a real one is
(`/api/v1/namespaces/NS/services/[http:]NAME[:PORT]/proxy/api/v1/query`).

A Service is a Prometheus when it carries a label Arena 0.15.5 looks for
(kubernetes.io/service-name=prometheus-admin or prometheus-server,
kubernetes.io/name=Prometheus): a test (or the demo) creates one, and until it
does there is none, as on a cluster without monitoring. The proxy of any other
Service answers 503, as the real one does for a Service without endpoints.

The answer holds, for every Running pod that holds nvidia.com/gpu, one series
per metric and GPU of both families a real stand-in exporter serves (DCGM's
and Arena's names and labels, tests/cluster/gpu_exporter.py), filtered by the
query's __name__ and pod_name regular expressions. Figures: what a test set
with POST /_sim/gpus {"NS/POD": [{"util": 87, "memory_used_mib": 5120,
"memory_total_mib": 16384}, ...]} (a list per GPU; "families": ["dcgm"] keeps
one family), else made up from the pod's name and the clock (the demo's GPUs
move).
"""

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


class Prometheus:
    def __init__(self, store):
        self.store = store
        self.lock = threading.Lock()
        self.gpus = {}                  # "NS/POD" -> [{"util", "memory_used_mib", ...}]
        self.families = ("dcgm", "arena")

    def set(self, body):
        """POST /_sim/gpus: the figures of the pods named (replacing all set before)."""
        with self.lock:
            families = body.pop("families", None)
            if families is not None:
                self.families = tuple(families)
            self.gpus = {k: list(v) for k, v in body.items()}

    def figures(self, ns, pod, n):
        with self.lock:
            given = self.gpus.get("%s/%s" % (ns, pod))
        if given is not None:
            return given
        # made up: steady per GPU, moving with the clock, 40..95 %
        seed = zlib.crc32(("%s/%s" % (ns, pod)).encode())
        t = int(time.time()) // 5
        return [{"util": 40 + (seed + 7 * i + 13 * t) % 56,
                 "memory_used_mib": 4096 + (seed >> 8) % 8192,
                 "memory_total_mib": 16384} for i in range(n)]

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

    def series(self):
        pods, _ = self.store.list("pods")
        for e in pods:
            p = e.obj
            if p.get("status", {}).get("phase") != "Running" or \
                    p["metadata"].get("deletionTimestamp"):
                continue
            n = 0
            for c in p.get("spec", {}).get("containers", []):
                lim = (c.get("resources") or {}).get("limits") or {}
                try:
                    n += int(lim.get("nvidia.com/gpu", 0))
                except (TypeError, ValueError):
                    pass
            if n <= 0:
                continue
            ns, name = p["metadata"]["namespace"], p["metadata"]["name"]
            node = p.get("spec", {}).get("nodeName", "")
            for i, f in enumerate(self.figures(ns, name, n)):
                total = f.get("memory_total_mib", 16384)
                used = f.get("memory_used_mib", 0)
                uuid = "GPU-%08x-%04d" % (zlib.crc32(node.encode()), i)
                if "dcgm" in self.families:
                    labels = {"pod": name, "namespace": ns, "container": "main", "gpu": str(i),
                              "UUID": uuid, "Hostname": node}
                    yield "DCGM_FI_DEV_GPU_UTIL", labels, f.get("util", 0)
                    yield "DCGM_FI_DEV_FB_USED", labels, used
                    yield "DCGM_FI_DEV_FB_FREE", labels, total - used
                if "arena" in self.families:
                    labels = {"pod_name": name, "namespace_name": ns, "node_name": node,
                              "minor_number": str(i), "uuid": uuid}
                    yield "nvidia_gpu_duty_cycle", labels, f.get("util", 0)
                    yield "nvidia_gpu_memory_used_bytes", labels, used * MIB
                    yield "nvidia_gpu_memory_total_bytes", labels, total * MIB

    def query(self, q):
        """An instant query of the form {__name__=~"A|B", pod_name=~"p|q"}, as Arena and
        arenafs ask; other matchers are not understood and select nothing."""
        matchers = {}
        for k, v in SELECTOR.findall(q):
            try:
                matchers[k] = re.compile("^(?:%s)$" % v.replace('\\\\', '\\'))
            except re.error:
                return {"status": "error", "errorType": "bad_data",
                        "error": "invalid regular expression %r" % v}
        now = time.time()
        result = []
        for name, labels, value in self.series():
            metric = dict(labels, __name__=name)
            if all(k in metric and rx.match(metric[k]) for k, rx in matchers.items()):
                result.append({"metric": metric, "value": [now, repr_value(value)]})
        return {"status": "success", "data": {"resultType": "vector", "result": result}}


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
