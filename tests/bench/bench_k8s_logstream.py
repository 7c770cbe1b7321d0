#!/usr/bin/python3
"""Benchmark: a big container log through k8s/logs/logstream.c, against kubectl.

    /usr/bin/python3 tests/bench/bench_k8s_logstream.py [--mb 100] [--line-bytes 100000]

A kubesim pod prints --mb MB of --line-bytes lines as fast as kubesim can
(SIM_LOG_LINE_BYTES, SIM_LOG_LINES_PER_SECOND). Measured:
  - follow: build/tools/logfollow and `kubectl logs -f` side by side while the
    container writes (both bounded by how fast kubesim writes);
  - finished: the whole log of the terminated container, logfollow (one read,
    no follow) against `kubectl logs`;
each with wall time, MB/s and the peak RSS of the process. The two outputs are
compared byte for byte. Prints one JSON line.
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


def start_timed(cmd, out_path, env=None):
    f = open(out_path, "wb")
    p = subprocess.Popen(["/usr/bin/time", "-f", "peak_kb=%M"] + cmd, stdout=f,
                         stderr=subprocess.PIPE, env=env)
    return p, f, time.monotonic()


def finish_timed(p, f, t0):
    _, err = p.communicate(timeout=3600)
    dt = time.monotonic() - t0
    f.close()
    if p.returncode != 0:
        raise SystemExit("failed: %s" % err.decode(errors="replace")[-2000:])
    peak = [l for l in err.decode().splitlines() if l.startswith("peak_kb=")][-1]
    return dt, int(peak.split("=")[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--line-bytes", type=int, default=100000)
    ap.add_argument("--lines-per-second", type=int, default=2000)
    a = ap.parse_args()
    lines = a.mb * 1000000 // a.line_bytes
    run_s = max(1, lines // a.lines_per_second)

    d = tempfile.mkdtemp(prefix="bench-log-")
    c = Cluster(os.path.join(d, "sim"), ["--nodes", "1"])
    env = dict(os.environ, HOME=c.dir)
    kubectl = ["kubectl", "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache_dir]
    try:
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big"},
               "spec": {"restartPolicy": "Never", "containers": [{
                   "name": "main", "image": "busybox", "env": [
                       {"name": "SIM_RUN_SECONDS", "value": str(run_s)},
                       {"name": "SIM_LOG_LINES_PER_SECOND", "value": str(lines // run_s)},
                       {"name": "SIM_LOG_LINE_BYTES", "value": str(a.line_bytes)}]}]}}
        c.kubectl("create", "-f", "-", "--validate=false", input=json.dumps(pod))
        while "running" not in (c.kubectl_json("get", "pod", "big").get("status", {})
                                .get("containerStatuses") or [{}])[0].get("state", {}):
            time.sleep(0.05)
        ours = os.path.join(d, "ours.log")
        theirs = os.path.join(d, "kubectl.log")
        p1 = start_timed([os.path.join(TOOLS, "logfollow"), "kubeconfig=" + c.kubeconfig,
                          "big", "main"], ours)
        p2 = start_timed(kubectl + ["logs", "-f", "big", "-c", "main"], theirs, env=env)
        f_ours = finish_timed(*p1)
        f_theirs = finish_timed(*p2)
        size = os.path.getsize(ours)
        same_follow = open(ours, "rb").read() == open(theirs, "rb").read()

        done_ours = finish_timed(*start_timed([os.path.join(TOOLS, "logfollow"),
                                               "kubeconfig=" + c.kubeconfig, "big", "main"], ours))
        done_theirs = finish_timed(*start_timed(kubectl + ["logs", "big", "-c", "main"], theirs,
                                                env=env))
        same_done = open(ours, "rb").read() == open(theirs, "rb").read()
        mb = size / 1e6

        def row(t):
            return {"s": round(t[0], 2), "mb_per_s": round(mb / t[0], 1),
                    "peak_rss_mb": round(t[1] / 1024.0, 1)}
        print(json.dumps({"log_mb": round(mb, 1), "line_bytes": a.line_bytes,
                          "follow": {"logstream": row(f_ours), "kubectl": row(f_theirs),
                                     "identical": same_follow},
                          "finished": {"logstream": row(done_ours), "kubectl": row(done_theirs),
                                       "identical": same_done}}))
    finally:
        c.stop()


if __name__ == "__main__":
    main()
