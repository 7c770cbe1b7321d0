#!/usr/bin/python3
"""Benchmark: the watch-fed cache on a large kubesim cluster, against kubectl.

    /usr/bin/python3 tests/bench/bench_k8s_cache.py [--nodes 1000] [--jobs 10000]

Starts kubesim with that many GPU nodes and pre-made TFJobs (about five pods a
job), then measures:
  - build/tools/k8scache once: first-sync time (discovery + every first list),
    its CPU time, RSS after the sync (and its peak), the heap in use, and the
    objects it holds;
  - kubectl get pods -A -o json on the same cluster: wall time and peak RSS.
Prints one JSON line. Numbers, not assertions: run it when changing the cache.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)

from kubesimcluster import Cluster  # noqa: E402

TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))


def timed(cmd, env=None):
    """(seconds, peak RSS in KiB of the child, stdout)."""
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True,
                       env=env, timeout=3600)
    dt = time.monotonic() - t0
    if r.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd[0], r.stderr[-2000:]))
    peak = int(r.stderr.strip().splitlines()[-1])
    return dt, peak, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()

    d = tempfile.mkdtemp(prefix="bench-cache-")
    t0 = time.monotonic()
    c = Cluster(os.path.join(d, "sim"), ["--nodes", a.nodes, "--jobs", a.jobs],
                ready_timeout=3600)
    ready_s = time.monotonic() - t0
    try:
        result = {"nodes": a.nodes, "jobs": a.jobs, "kubesim_ready_s": round(ready_s, 1)}
        syncs, rss, peaks, heap, cpu = [], [], [], [], []
        for _ in range(a.runs):
            dt, peak, out = timed([os.path.join(TOOLS, "k8scache"), "kubeconfig=" + c.kubeconfig,
                                   "events=0", "once"])
            stats = json.loads(out.splitlines()[0])["stats"]
            syncs.append(stats["sync_ms"] / 1000.0)
            rss.append(stats["rss_kb"])
            peaks.append(stats["peak_rss_kb"])
            heap.append(stats["heap_used_kb"])
            cpu.append(stats["cpu_ms"] / 1000.0)
            result["objects"] = stats["counts"]
            result["intern"] = {"strings": stats["intern_strings"], "bytes": stats["intern_bytes"]}
        result["cache_sync_s"] = [round(s, 2) for s in syncs]
        result["cache_rss_after_sync_mb"] = [round(k / 1024.0, 1) for k in rss]
        result["cache_peak_rss_during_sync_mb"] = [round(k / 1024.0, 1) for k in peaks]
        result["cache_heap_in_use_mb"] = [round(k / 1024.0, 1) for k in heap]
        result["cache_cpu_s"] = [round(s, 2) for s in cpu]
        kt, kpeak = [], []
        env = dict(os.environ, HOME=c.dir)
        for _ in range(a.runs):
            dt, peak, out = timed(["kubectl", "--kubeconfig", c.kubeconfig, "--cache-dir",
                                   c.cache_dir, "get", "pods", "-A", "-o", "json"], env=env)
            kt.append(round(dt, 2))
            kpeak.append(round(peak / 1024.0, 1))
            result["kubectl_json_mb"] = round(len(out) / 1e6, 1)
        result["kubectl_get_pods_s"] = kt
        result["kubectl_peak_rss_mb"] = kpeak
        print(json.dumps(result))
    finally:
        c.stop()


if __name__ == "__main__":
    main()
