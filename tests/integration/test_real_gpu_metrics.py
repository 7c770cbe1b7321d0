"""GPU utilisation and memory on the real cluster (tests/cluster/monitoring.py,
docs/real-cluster.md): Prometheus, built from its Go module, scrapes the
stand-in GPU exporter, which serves DCGM's and Arena's metric families for the
pods holding kwok's GPUs with the values the test sets. Queried as Arena queries
it: the Service labelled kubernetes.io/service-name=prometheus-server, port
9090, through kube-apiserver's service proxy; and the real Arena's
`arena top job NAME` shows the values in its GPU(DutyCycle) and
GPU_MEMORY(Used/Total) columns. The tree finds the same Prometheus the same way
and shows the same figures: instances/POD/gpus cell by cell as Arena's
instances table, jobs/NAME/gpus their sum, info's GPUs: block as `arena get -g
NAME`'s, nodes/NODE/info as `arena top node -d --metric`'s (kubesim's
side: test_tree_gpu_metrics.py)."""

import json
import re

import pytest

import realcluster
from helpers import wait_until

pytestmark = [pytest.mark.skipif(realcluster.CLUSTER_CHOICE == "kubesim",
                                 reason="ARENAFS_CLUSTER=kubesim: Prometheus runs beside "
                                        "the real cluster"),
              pytest.mark.later_binary("prometheus")]

JOB = "gpu-busy"
POD = JOB + "-worker-0"
# one entry per GPU of the pod, in the order of its device indices
VALUES = [{"util": 87, "memory_used_mib": 5120}, {"util": 12.5, "memory_used_mib": 1024}]
MIB = 1024 * 1024
# Arena 0.15.5's query (pkg/apis/types/gpu_metric.go: POD_METRIC_TMP, GPU_METRIC_LIST)
ARENA_QUERY = ('{__name__=~"nvidia_gpu_duty_cycle|nvidia_gpu_memory_used_bytes|'
               'nvidia_gpu_memory_total_bytes", pod_name=~"%s"}')


def tfjob(namespace):
    """A TFJob whose one worker holds 2 GPUs and runs on, carrying Arena's labels."""
    labels = {"app": "tfjob", "release": JOB}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": JOB, "namespace": namespace, "labels": labels},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [{
                    "name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0-gpu",
                    "command": ["python", "train.py"],
                    "env": [{"name": "KWOK_RUN", "value": "forever"}],
                    "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}}}}}}


@pytest.fixture(scope="module")
def busy(request, real_monitoring):
    """(view, monitoring, pod): the job's pod running, its GPUs given VALUES."""
    view = realcluster.module_view(request)
    view.kubectl("create", "-f", "-", input=json.dumps(tfjob(view.namespace)))

    def running():
        r = view.kubectl("get", "pod", POD, "-o", "json", check=False)
        pod = json.loads(r.stdout) if r.returncode == 0 else {}
        return pod if pod.get("status", {}).get("phase") == "Running" else None
    pod = wait_until(running, timeout=120, interval=0.5, message="the TFJob's worker running")
    real_monitoring.set_gpus({"%s/%s" % (view.namespace, POD): VALUES})
    return view, real_monitoring, pod


def by_index(result, index_label):
    return sorted(result, key=lambda s: int(s["metric"][index_label]))


def test_prometheus_serves_both_families_through_the_service_proxy(busy):
    view, mon, pod = busy
    ns, node = view.namespace, pod["spec"]["nodeName"]

    def scraped():
        r = mon.query('DCGM_FI_DEV_GPU_UTIL{namespace="%s",pod="%s"}' % (ns, POD))
        return r if sorted(float(s["value"][1]) for s in r) == [12.5, 87.0] else None
    util = by_index(wait_until(scraped, timeout=60, interval=0.5,
                               message="Prometheus to scrape the test's values"), "gpu")
    print("DCGM_FI_DEV_GPU_UTIL: %s" % json.dumps(util))
    for s, want in zip(util, VALUES):
        m = s["metric"]
        assert float(s["value"][1]) == want["util"]
        assert (m["namespace"], m["pod"], m["container"], m["Hostname"]) == \
            (ns, POD, "tensorflow", node), m
        assert m["UUID"].startswith("GPU-") and m["device"] == "nvidia" + m["gpu"], m
    for family, value in (("DCGM_FI_DEV_FB_USED", lambda v: v["memory_used_mib"]),
                          ("DCGM_FI_DEV_FB_FREE", lambda v: 16384 - v["memory_used_mib"])):
        got = by_index(mon.query('%s{namespace="%s",pod="%s"}' % (family, ns, POD)), "gpu")
        assert [float(s["value"][1]) for s in got] == [value(v) for v in VALUES], (family, got)

    # Arena's family, by Arena's own query
    arena = mon.query(ARENA_QUERY % POD)
    print("Arena's query: %s" % json.dumps(arena))
    series = {}
    for s in arena:
        m = s["metric"]
        assert (m["namespace_name"], m["pod_name"], m["node_name"]) == (ns, POD, node), m
        series.setdefault(m["__name__"], {})[int(m["minor_number"])] = float(s["value"][1])
    indices = [int(s["metric"]["gpu"]) for s in util]
    assert series == {
        "nvidia_gpu_duty_cycle": dict(zip(indices, [v["util"] for v in VALUES])),
        "nvidia_gpu_memory_used_bytes": dict(zip(indices, [v["memory_used_mib"] * MIB
                                                           for v in VALUES])),
        "nvidia_gpu_memory_total_bytes": dict.fromkeys(indices, 16384.0 * MIB)}, series


def arena_rows(text):
    """{device index: (duty cycle, used MiB, total MiB)} of `arena top job NAME`'s
    Instances table, one row per GPU."""
    rows = {}
    for line in text.splitlines():
        m = re.search(r"\s(\d+)\s+([\d.]+)%\s+([\d.]+)/([\d.]+)\(MiB\)\s*$", line)
        if m:
            rows[int(m.group(1))] = tuple(float(g) for g in m.group(2, 3, 4))
    return rows


def tree_rows(text):
    """{device index: (duty cycle cell, memory cell)} of instances/POD/gpus's table."""
    rows = {}
    for line in text.splitlines()[2:]:
        index, duty, memory = line.split()
        rows[int(index)] = (duty, memory)
    return rows


def arena_cells(text):
    """{device index: (duty cycle cell, memory cell)} of `arena top job NAME`, as printed."""
    rows = {}
    for line in text.splitlines():
        m = re.search(r"\s(\d+)\s+([\d.]+%)\s+([\d.]+/[\d.]+\(MiB\))\s*$", line)
        if m:
            rows[int(m.group(1))] = m.group(2, 3)
    return rows


def want_rows(mon, view):
    """{device index: (duty cycle cell, memory cell)} of the values the test set, once
    Prometheus has scraped them."""
    util = by_index(wait_until(
        lambda: (lambda r: r if sorted(float(s["value"][1]) for s in r) == [12.5, 87.0]
                 else None)(mon.query('DCGM_FI_DEV_GPU_UTIL{namespace="%s",pod="%s"}'
                                      % (view.namespace, POD))),
        timeout=60, interval=0.5, message="the job's GPUs in Prometheus"), "gpu")
    return {int(s["metric"]["gpu"]): ("%.1f%%" % v["util"],
                                      "%.1f/%.1f(MiB)" % (v["memory_used_mib"], 16384.0))
            for s, v in zip(util, VALUES)}


def test_the_tree_shows_the_exporters_values(busy, arenafs):
    view, mon, pod = busy
    want = want_rows(mon, view)
    m = arenafs(view, "namespace=" + view.namespace)
    path = ("jobs", JOB, "instances", POD, "gpus")
    text = wait_until(lambda: (lambda t: t if t.startswith("2\n") and "GPU(DutyCycle)" in t
                               and tree_rows(t) == want else None)(m.read(*path)),
                      timeout=60, interval=0.5, message="instances/%s/gpus with the figures" % POD)
    print("instances/%s/gpus:\n%s" % (POD, text))
    assert text.splitlines()[1].split() == ["GPU(DeviceIndex)", "GPU(DutyCycle)",
                                            "GPU_MEMORY(Used/Total)"]
    job = m.read("jobs", JOB, "gpus")
    print("jobs/%s/gpus:\n%s" % (JOB, job))
    assert job == ("2/2\nGPU(DutyCycle) 49.8% (mean of 2 GPUs of 1 instance), "
                   "GPU_MEMORY(Used/Total) 6144.0/32768.0(MiB)\n")
    assert m.read("cluster", "health").startswith("ok")


@pytest.mark.later_binary("arena")
def test_arena_top_job_shows_the_exporters_values(busy, tmp_path, arenafs):
    from test_arena_parity import Arena
    view, mon, pod = busy
    arena = Arena(realcluster.later_binary("arena", "the Arena CLI"), view.kubeconfig,
                  view.namespace, str(tmp_path / "arena-home"))
    util = by_index(wait_until(
        lambda: mon.query('DCGM_FI_DEV_GPU_UTIL{namespace="%s",pod="%s"}'
                          % (view.namespace, POD)) or None,
        timeout=60, interval=0.5, message="the job's GPUs in Prometheus"), "gpu")
    want = {int(s["metric"]["gpu"]): (v["util"], v["memory_used_mib"], 16384.0)
            for s, v in zip(util, VALUES)}
    text = wait_until(lambda: (lambda t: t if arena_rows(t) == want else None)(
        arena.run("top", "job", JOB)), timeout=60, interval=1,
        message="arena top job %s to show the exporter's values" % JOB)
    print("arena top job %s:\n%s" % (JOB, text))
    assert POD in text and "RUNNING" in text, text

    # the tree, on the same Prometheus: the same cells, GPU by GPU
    m = arenafs(view, "namespace=" + view.namespace)
    tree = wait_until(lambda: (lambda t: t if "GPU(DutyCycle)" in t else None)(
        m.read("jobs", JOB, "instances", POD, "gpus")), timeout=60, interval=0.5,
        message="instances/%s/gpus with figures" % POD)
    print("instances/%s/gpus:\n%s" % (POD, tree))
    assert tree_rows(tree) == arena_cells(text) == want_rows(mon, view)


def gpus_block(text):
    """(rows of cells, the Allocated/Requested line) of the GPUs: block of `arena get
    -g` or of info: the table up to its blank line, then the line after it."""
    after = text.split("\nGPUs:\n", 1)[1]
    table, rest = after.split("\n\n", 1)
    lines = table.splitlines()
    assert re.split(r"\s{2,}", lines[0].strip()) == [
        "INSTANCE", "NODE(IP)", "GPU(Requested)", "GPU(IndexId)", "GPU(DutyCycle)",
        "GPU Memory(Used/Total)"], lines[0]
    return [re.split(r"\s{2,}", l.strip()) for l in lines[2:]], rest.splitlines()[0].strip()


@pytest.mark.later_binary("arena")
def test_arena_get_g_is_infos_gpus_block(busy, tmp_path, arenafs):
    """`arena get -g NAME` and jobs/NAME/info on the same Prometheus: the same GPUs:
    block, row by row and cell by cell, and the same Allocated/Requested line."""
    from test_arena_parity import Arena
    view, mon, pod = busy
    arena = Arena(realcluster.later_binary("arena", "the Arena CLI"), view.kubeconfig,
                  view.namespace, str(tmp_path / "arena-home"))
    want = want_rows(mon, view)
    first = [POD, pod["status"]["hostIP"], "2"]
    rows = [first + [str(i)] + list(want[i]) if n == 0 else [str(i)] + list(want[i])
            for n, i in enumerate(sorted(want))]
    theirs = wait_until(lambda: (lambda t: t if gpus_block(t)[0] == rows else None)(
        arena.run("get", "-g", JOB)), timeout=60, interval=1,
        message="arena get -g %s to show the exporter's values" % JOB)
    print("arena get -g %s:\n%s" % (JOB, theirs))
    m = arenafs(view, "namespace=" + view.namespace)
    ours = wait_until(lambda: (lambda t: t if "\nGPUs:\n" in t and gpus_block(t)[0] == rows
                               else None)(m.read("jobs", JOB, "info")),
                      timeout=60, interval=0.5, message="info's GPUs: block with figures")
    print("jobs/%s/info:\n%s" % (JOB, ours))
    assert gpus_block(ours) == gpus_block(theirs) == (
        rows, "Allocated/Requested GPUs of Job: 2/2")


def node_blocks(text):
    """{node: its block} of `arena top node -d --metric`, GPU(Allocated)'s lists sorted
    (Arena joins a pod's GPUs in a Go map's order, arenafs by index)."""
    from test_arena_parity import gpu_lists_sorted
    blocks = [b.strip() for b in re.split(r"\n(?=Name:)", text.split("\n---")[0]) if b.strip()]
    return {b.splitlines()[0].split()[1]: gpu_lists_sorted(b) for b in blocks}


@pytest.mark.later_binary("arena")
def test_arena_top_node_d_with_figures_is_nodes_info(busy, tmp_path, arenafs):
    """`arena top node -d --metric` (the exporter reports every GPU of each
    fake node, the held ones with their pod) and nodes/*/info: the same blocks, node
    by node, byte for byte but GPU(Allocated)'s order; the busy pod's node shows its
    two GPUs allocated with the test's figures."""
    from test_arena_parity import Arena, without_reason
    view, mon, pod = busy
    arena = Arena(realcluster.later_binary("arena", "the Arena CLI"), view.kubeconfig,
                  view.namespace, str(tmp_path / "arena-home"))
    want_rows(mon, view)    # Prometheus has scraped the test's values
    node = pod["spec"]["nodeName"]
    m = arenafs(view, "namespace=" + view.namespace)

    seen = {}

    def same():
        theirs = node_blocks(arena.run("top", "node", "-d", "--metric", namespace=False))
        ours = {n: node_blocks(without_reason(m.read("nodes", n, "info")))[n] for n in theirs}
        seen.update(theirs=theirs, ours=ours)
        return (theirs, ours) if theirs == ours and "DUTY_CYCLE" in theirs.get(node, "") \
            else None
    try:
        theirs, ours = wait_until(same, timeout=60, interval=1,
                                  message="arena top node -d and nodes/*/info to agree, "
                                          "with figures")
    except AssertionError:
        for n in sorted(seen.get("theirs", {})):
            if seen["theirs"][n] != seen["ours"].get(n):
                print("node %s, Arena:\n%s\nnodes/%s/info:\n%s" % (
                    n, seen["theirs"][n], n, seen["ours"].get(n)))
        raise
    print("arena top node -d --metric, node %s:\n%s" % (node, theirs[node]))
    block = ours[node]
    assert re.search(r"\s%s\s+Running\s+2\s+gpu\d+,gpu\d+\n" % re.escape(POD), block), block
    cells = [re.split(r"\s{2,}", l.strip()) for l in
             block.split("\nGPUs:\n", 1)[1].split("\nGPU Summary:")[0].splitlines()[2:]]
    busy_rows = sorted((c[4], c[3]) for c in cells if c[2] != "0.0 GiB" and
                       c[4] in ("87.0%", "12.5%"))
    assert busy_rows == [("12.5%", "1.0 GiB"), ("87.0%", "5.0 GiB")], cells
