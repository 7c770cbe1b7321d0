#!/usr/bin/env python3
"""gpu_exporter.py: a stand-in GPU exporter for the test cluster's fake GPUs, as
kwok stands in for kubelets. Prometheus (monitoring.py) scrapes its /metrics.

For every GPU of a kwok node (nvidia.com/gpu capacity) it serves both metric
families GPU clusters have, one series per GPU, with the labels of the Running
pod that holds it (none for a GPU no pod holds, which reads idle), as
dcgm-exporter reports every device of its node:
  - DCGM's, as the NVIDIA GPU Operator's dcgm-exporter does with its pod
    mapping: DCGM_FI_DEV_GPU_UTIL (percent), DCGM_FI_DEV_FB_USED and
    DCGM_FI_DEV_FB_FREE (MiB), labels gpu, UUID, device, modelName, Hostname,
    container, namespace, pod;
  - Arena's (what Arena 0.15.5 queries, pkg/apis/types/gpu_metric.go):
    nvidia_gpu_duty_cycle (percent), nvidia_gpu_memory_used_bytes,
    nvidia_gpu_memory_total_bytes, labels minor_number, uuid, name, node_name,
    pod_name, namespace_name, container_name.
Each pod gets the lowest free GPU indices of its node when first seen and keeps
them while it runs, as a device plugin allocates them.

The values come from a JSON file the tests write (monitoring.set_gpus), re-read
when it changes: {"NAMESPACE/POD": {"util": 87, "memory_used_mib": 5120,
"memory_total_mib": 16384}} for every GPU of the pod, or a list of such
objects, one per GPU in index order. A GPU without a value is idle: 0 %, 0 MiB
of 16384 MiB (16 GiB, the nodes' Tesla-V100-SXM2-16GB).

Listens on the address it is given (monitoring.py: its end of the veth pair); reads pods and nodes from the API
server with a client certificate. Python standard library only.

usage: gpu_exporter.py --listen ADDRESS:PORT --server URL --ca CA --cert CRT
                       --key KEY --values FILE
"""

import argparse
import http.server
import json
import os
import ssl
import threading
import urllib.request
import uuid

GPU = "nvidia.com/gpu"
MODEL = "Tesla V100-SXM2-16GB"
TOTAL_MIB = 16384
MIB = 1024 * 1024

FAMILIES = (  # (name, help, value of a GPU's {"util", "used", "total"} in MiB)
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lambda v: v["util"]),
    ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lambda v: v["used"]),
    ("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).",
     lambda v: v["total"] - v["used"]),
    ("nvidia_gpu_duty_cycle", "Percent of time over the past sample period during "
     "which one or more kernels were executing on the GPU device", lambda v: v["util"]),
    ("nvidia_gpu_memory_used_bytes", "Memory used by the GPU device in bytes",
     lambda v: v["used"] * MIB),
    ("nvidia_gpu_memory_total_bytes", "Total memory of the GPU device in bytes",
     lambda v: v["total"] * MIB),
)


class Cluster:
    """Reads the API server; remembers which GPUs each pod holds."""

    def __init__(self, server, ca, cert, key):
        self.server = server.rstrip("/")
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.load_cert_chain(cert, key)
        self.held = {}      # node -> {pod uid: [indices]}
        self.lock = threading.Lock()

    def get(self, path):
        with urllib.request.urlopen(self.server + path, context=self.ctx, timeout=10) as r:
            return json.load(r)

    def gpus(self):
        """[(pod or None, node, container, index)] of every GPU of a kwok node: those a
        Running pod holds, then those none holds."""
        items = [n for n in self.get("/api/v1/nodes")["items"]
                 if n["metadata"].get("annotations", {}).get("kwok.x-k8s.io/node") == "fake"]
        nodes = {n["metadata"]["name"]: int(n["status"].get("allocatable", {}).get(GPU, "0"))
                 for n in items}
        capacity = {n["metadata"]["name"]: int(n["status"].get("capacity", {}).get(GPU, "0"))
                    for n in items}
        pods = [p for p in self.get("/api/v1/pods?fieldSelector=status.phase%3DRunning")["items"]
                if p["spec"].get("nodeName") in nodes and requested(p)]
        pods.sort(key=lambda p: (p["metadata"]["creationTimestamp"], p["metadata"]["namespace"],
                                 p["metadata"]["name"]))
        with self.lock:
            held = self.allocate(nodes, pods)
        taken = {(node, i) for _, node, _, i in held}
        return held + [(None, node, "", i) for node, n in sorted(capacity.items())
                       for i in range(n) if (node, i) not in taken]

    def allocate(self, nodes, pods):
        live = {p["metadata"]["uid"] for p in pods}
        for held in self.held.values():
            for uid in [u for u in held if u not in live]:
                del held[uid]
        out = []
        for p in pods:
            node, uid = p["spec"]["nodeName"], p["metadata"]["uid"]
            held = self.held.setdefault(node, {})
            if uid not in held:
                taken = {i for idx in held.values() for i in idx}
                free = [i for i in range(nodes[node]) if i not in taken]
                held[uid] = free[:requested(p)]
            container = next(c["name"] for c in p["spec"]["containers"] if gpus_of(c))
            out += [(p, node, container, i) for i in held[uid]]
        return out


def gpus_of(container):
    res = container.get("resources", {})
    return int(res.get("limits", {}).get(GPU) or res.get("requests", {}).get(GPU) or 0)


def requested(pod):
    return sum(gpus_of(c) for c in pod["spec"]["containers"])


class Values:
    """The tests' values file, re-read when its mtime or size changes."""

    def __init__(self, path):
        self.path, self.seen, self.data = path, None, {}

    def current(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return {}
        if (st.st_mtime_ns, st.st_size) != self.seen:
            with open(self.path) as f:
                self.data = json.load(f)
            self.seen = (st.st_mtime_ns, st.st_size)
        return self.data

    def of(self, key, nth):
        """{"util", "used", "total"} of the nth GPU of pod key ("ns/name")."""
        v = self.current().get(key, {})
        if isinstance(v, list):
            v = v[nth] if nth < len(v) else {}
        return {"util": float(v.get("util", 0)), "used": float(v.get("memory_used_mib", 0)),
                "total": float(v.get("memory_total_mib", TOTAL_MIB))}


def gpu_uuid(node, index):
    return "GPU-" + str(uuid.uuid5(uuid.NAMESPACE_DNS, "%s.gpu%d.arenafs.test" % (node, index)))


def labels(d):
    return "{" + ",".join('%s="%s"' % (k, str(v).replace("\\", "\\\\").replace('"', '\\"'))
                          for k, v in d.items()) + "}"


def exposition(gpus, values):
    """The text format Prometheus scrapes: each family's HELP, TYPE and series."""
    series = []
    count = {}
    for pod, node, container, index in gpus:
        uid = gpu_uuid(node, index)
        dcgm = {"gpu": index, "UUID": uid, "device": "nvidia%d" % index, "modelName": MODEL,
                "Hostname": node}
        arena = {"minor_number": index, "uuid": uid, "name": MODEL, "node_name": node}
        value = {"util": 0.0, "used": 0.0, "total": float(TOTAL_MIB)}
        if pod is not None:
            ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
            nth = count.get(pod["metadata"]["uid"], 0)
            count[pod["metadata"]["uid"]] = nth + 1
            dcgm.update(container=container, namespace=ns, pod=name)
            arena.update(pod_name=name, namespace_name=ns, container_name=container)
            value = values.of("%s/%s" % (ns, name), nth)
        series.append((labels(dcgm), labels(arena), value))
    lines = []
    for fam, text, value in FAMILIES:
        lines += ["# HELP %s %s" % (fam, text), "# TYPE %s gauge" % fam]
        for dcgm, arena, v in series:
            lines.append("%s%s %s" % (fam, dcgm if fam.startswith("DCGM") else arena,
                                      repr(float(value(v)))))
    return "\n".join(lines) + "\n"


def handler(cluster, values):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404)
                return
            try:
                body = exposition(cluster.gpus(), values).encode()
            except (OSError, ValueError, KeyError) as e:
                # a scrape error Prometheus records (up 0), never a partial page
                self.send_error(503, "cannot read the cluster: %s" % e)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                # Prometheus gave up the scrape (its 1 s timeout, on a busy
                # machine): it records that one as failed and scrapes again
                pass

        def log_message(self, fmt, *args):
            pass
    return Handler


def main():
    ap = argparse.ArgumentParser(prog="gpu_exporter.py")
    for flag in ("--listen", "--server", "--ca", "--cert", "--key", "--values"):
        ap.add_argument(flag, required=True)
    a = ap.parse_args()
    host, port = a.listen.rsplit(":", 1)
    server = http.server.ThreadingHTTPServer(
        (host, int(port)), handler(Cluster(a.server, a.ca, a.cert, a.key), Values(a.values)))
    print("gpu_exporter: serving http://%s/metrics" % a.listen, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
