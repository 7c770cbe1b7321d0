"""GPU monitoring beside a running test cluster: Prometheus, built from its Go
module (../prometheus), scraping the stand-in GPU exporter (gpu_exporter.py)
every second, behind a Service that Arena 0.15.5 finds and queries through
kube-apiserver's service proxy.

Callers: `monitoring DIR` and `up DIR --monitoring` (beside this file), and the
tests' fixture (tests/realcluster.py, real_monitoring). Not part of `up`'s
default: Prometheus is one of the binaries built after the cluster's
(cluster.LATER_BINARIES), so that on a fresh machine the first real tests do
not wait for its build.

    start(dir)                builds Prometheus if needed, starts both, waits
                              until a query through the service proxy answers
    set_gpus(dir, values)     the values the exporter serves (its values file)
    stop(dir)                 stops both and deletes their objects (`down` also
                              stops them)

How the service proxy reaches a process on this machine: kube-apiserver
proxies only to an EndpointSlice address whose targetRef is a Pod of the
Service's namespace holding that address in status.podIPs, and an
EndpointSlice may not hold a loopback address (kube-apiserver refuses
127.0.0.1: "may not be in the loopback range"). So Prometheus runs in a
network namespace of its own (held by a `unshare --net` process, gone with it),
joined to this machine's by a veth pair with a /30 of 198.18.0.0/15 (the
benchmarking range: neither this machine's address nor one routed anywhere),
picked from Prometheus's port, so that clusters side by side get their own:
Prometheus listens on the inner address, port 9090; the exporter on the outer
one, where Prometheus scrapes it. A Pod prometheus-server stands for
Prometheus: kwok leaves it be (cluster.OWN_STATUS) and its status is written here, as a kubelet would (Running, Ready, podIP the inner
address); the Service (label kubernetes.io/service-name=prometheus-server, port
9090, as Arena looks for it) selects it and the EndpointSlice controller makes
its slice. Traffic goes only to loopback and to the two addresses of the pair.
Needs root (ip, unshare, nsenter), as up does for its other fixed paths.
Python standard library only.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import cluster
from cluster import ClusterError, Plane, kubectl, log, wait_for

NAMESPACE = "monitoring"
SERVICE = "prometheus-server"     # Arena: kubernetes.io/service-name=prometheus-server
SERVICE_PORT = 9090               # Arena's port for that label
SCRAPE_INTERVAL = "1s"
# the netns holder last: stopping it takes the namespace and the veth pair away
COMPONENTS = ("gpu-exporter", "prometheus", "monitoring-netns")
PROMETHEUS_PORT = 9090            # inside its own network namespace
NETWORK = 0xC6120000              # 198.18.0.0/15: 32768 /30s, one per port below 32768
EXPORTER = os.path.join(cluster.HERE, "gpu_exporter.py")


def home(directory):
    return os.path.join(os.path.abspath(directory), "monitoring")


def state(directory):
    """{"prometheus", "exporter" (ADDRESS:PORT), "values"}: what start wrote; None when not running."""
    try:
        with open(os.path.join(home(directory), "state.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def start(directory):
    """Starts the exporter and Prometheus beside the cluster running in directory."""
    plane = Plane(directory)
    if not os.path.exists(os.path.join(plane.dir, "ready")):
        raise ClusterError("%s holds no running cluster: up it first" % plane.dir)
    if any(plane.alive(n) for n in COMPONENTS):
        raise ClusterError("monitoring already runs in %s: stop it first" % plane.dir)
    cluster.build(["prometheus"])
    started = time.monotonic()
    d = home(directory)
    shutil.rmtree(d, ignore_errors=True)   # an earlier run's data and values
    os.makedirs(d)
    values = os.path.join(d, "gpus.json")
    set_gpus(directory, {})
    with open(plane.state_path) as f:
        url = json.load(f)["url"]
    # one `up` at a time chooses ports and binds them (cluster.pick_ports)
    with cluster.machine_lock(".up.lock", cluster.machine_cache_root()):
        p = cluster.pick_ports(("exporter", "prometheus"))
        outer, inner = network(plane, p["prometheus"])
        P = lambda f: os.path.join(plane.pki, f)  # noqa: E731
        plane.start("gpu-exporter", [
            sys.executable, EXPORTER, "--listen", "%s:%d" % (outer, p["exporter"]),
            "--server", url, "--ca", P("ca.crt"), "--cert", P("admin.crt"),
            "--key", P("admin.key"), "--values", values])
        config = cluster_config(d, "%s:%d" % (outer, p["exporter"]))
        plane.start("prometheus", [
            "nsenter", "--net=/proc/%d/ns/net" % plane.pid("monitoring-netns"),
            cluster.binary_path("prometheus"), "--config.file=" + config,
            "--storage.tsdb.path=" + os.path.join(d, "data"),
            "--storage.tsdb.retention.time=1d",
            "--web.listen-address=%s:%d" % (inner, PROMETHEUS_PORT), "--log.level=warn"])
        wait_for("Prometheus ready", lambda: http_ok(inner, "/-/ready"),
                 plane, "prometheus", 60)
    with open(os.path.join(d, "state.json"), "w") as f:
        json.dump({"prometheus": "%s:%d" % (inner, PROMETHEUS_PORT),
                   "exporter": "%s:%d" % (outer, p["exporter"]), "values": values}, f, indent=1)
    kubectl(plane, "apply", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": objects()}))
    kubectl(plane, "patch", "pod", SERVICE, "-n", NAMESPACE, "--subresource=status",
            "--type=merge", "-p", json.dumps(pod_status(inner)))
    wait_for("the GPU exporter scraped, through the service proxy",
             lambda: exporter_up(plane), plane, "gpu-exporter", 90)
    log("monitoring ready in %.1f s: Prometheus on %s:%d, service %s/%s:%d"
        % (time.monotonic() - started, inner, PROMETHEUS_PORT, NAMESPACE, SERVICE, SERVICE_PORT))


def addresses(port):
    """(outer, inner): the two usable addresses of the /30 numbered port."""
    base = NETWORK + 4 * (port % 32768)
    dotted = lambda n: ".".join(str(n >> s & 255) for s in (24, 16, 8, 0))  # noqa: E731
    return dotted(base + 1), dotted(base + 2)


def network(plane, port):
    """Starts the namespace's holder and joins it to this machine's by a veth
    pair (amonPORTo outside, amonPORTi inside). Returns (outer, inner)."""
    outer, inner = addresses(port)
    plane.start("monitoring-netns", ["unshare", "--net", "sleep", "infinity"])
    ns = "/proc/%d/ns/net" % plane.pid("monitoring-netns")
    # until unshare has made it: before, ns is this machine's namespace
    wait_for("the monitoring network namespace", lambda: own_namespace(ns),
             plane, "monitoring-netns", 10)
    o, i = "amon%do" % port, "amon%di" % port
    for argv in (["ip", "link", "add", o, "type", "veth", "peer", "name", i, "netns", ns],
                 ["ip", "addr", "add", outer + "/30", "dev", o],
                 ["ip", "link", "set", o, "up"],
                 ["nsenter", "--net=" + ns, "ip", "link", "set", "lo", "up"],
                 ["nsenter", "--net=" + ns, "ip", "addr", "add", inner + "/30", "dev", i],
                 ["nsenter", "--net=" + ns, "ip", "link", "set", i, "up"]):
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            plane.stop(["monitoring-netns"])   # the pair goes with the namespace
            raise ClusterError("%s failed: %s" % (" ".join(argv), r.stderr.strip()))
    return outer, inner


def own_namespace(ns):
    try:
        return os.readlink(ns) != os.readlink("/proc/self/ns/net")
    except OSError:
        return False


def cluster_config(d, exporter):
    """Prometheus's configuration file (JSON is YAML): scrape the exporter every
    second, so that a test waits a second, not fifteen, for a new value."""
    cfg = {"global": {"scrape_interval": SCRAPE_INTERVAL, "scrape_timeout": SCRAPE_INTERVAL,
                      "evaluation_interval": SCRAPE_INTERVAL},
           "scrape_configs": [{"job_name": "gpu-exporter",
                               "static_configs": [{"targets": [exporter]}]}]}
    path = os.path.join(d, "prometheus.yml")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path


def objects():
    """Namespace, the Pod standing for Prometheus (kwok leaves it be), its Service."""
    labels = {"app.kubernetes.io/name": "prometheus", "app.kubernetes.io/component": "server"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": SERVICE, "namespace": NAMESPACE, "labels": labels,
                      "annotations": {cluster.OWN_STATUS: "monitoring.py"}},
         "spec": {"nodeName": "gpu-node-0",   # up's first kwok node
                  "containers": [{"name": SERVICE, "image": "quay.io/prometheus/prometheus",
                                  "ports": [{"name": "http", "containerPort": PROMETHEUS_PORT}]}]}},
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": SERVICE, "namespace": NAMESPACE,
                      "labels": dict(labels, **{"kubernetes.io/service-name": SERVICE})},
         "spec": {"selector": labels,
                  "ports": [{"name": "http", "port": SERVICE_PORT, "targetPort": PROMETHEUS_PORT,
                             "protocol": "TCP"}]}},
    ]


def pod_status(ip):
    """What a kubelet would write of a running Prometheus with address ip."""
    return {"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                       "conditions": [{"type": "Ready", "status": "True"},
                                      {"type": "ContainersReady", "status": "True"}]}}


def http_ok(address, path):
    try:
        with urllib.request.urlopen("http://%s:%d%s" % (address, PROMETHEUS_PORT, path),
                                    timeout=2) as r:
            return r.status == 200
    except (OSError, urllib.error.HTTPError):
        return False


def query_path(query):
    """The path of an instant query through kube-apiserver's service proxy,
    as Arena sends it (services/NAME:PORT/proxy/api/v1/query)."""
    return "/api/v1/namespaces/%s/services/%s:%d/proxy/api/v1/query?%s" % (
        NAMESPACE, SERVICE, SERVICE_PORT, urllib.parse.urlencode({"query": query}))


def exporter_up(plane):
    r = kubectl(plane, "get", "--raw", query_path('up{job="gpu-exporter"}'), check=False)
    if r.returncode != 0:
        return False
    result = json.loads(r.stdout)["data"]["result"]
    return bool(result) and result[0]["value"][1] == "1"


def set_gpus(directory, values):
    """The exporter's values: {"NAMESPACE/POD": {"util": %, "memory_used_mib": n,
    "memory_total_mib": n} or a list of those, one per GPU} (gpu_exporter.py).
    Replaced whole, atomically: the exporter reads it at its next scrape."""
    d = home(directory)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "gpus.json")
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(values, f, indent=1)
    os.replace(tmp, path)


def stop(directory):
    """Stops the exporter and Prometheus, deletes their namespace (and waits:
    a start right after must not find it terminating)."""
    plane = Plane(directory)
    if os.path.exists(os.path.join(plane.dir, "ready")):
        kubectl(plane, "delete", "namespace", NAMESPACE, "--ignore-not-found", "--timeout=90s")
    plane.stop(COMPONENTS)
    try:
        os.remove(os.path.join(home(directory), "state.json"))
    except OSError:
        pass
