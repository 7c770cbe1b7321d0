#!/usr/bin/python3
"""Soak: the daemon's memory under hours' worth of churn, on a cluster that forgets.

    /usr/bin/python3 tests/bench/soak.py [--cluster kubesim|real] [--minutes 20]
                                         [--event-ttl 2m] [--rate 4] [--lifetime 30]
                                         [--readers 4] [--sample-seconds 30]
                                         [--warmup-seconds S] [--bound 0.10] [--json FILE]
                                         [--keep-logs 1M]
    make soak                       # 20 minutes on kubesim (SOAK_MINUTES, SOAK_ARGS)
    make soak CLUSTER=real          # on the real cluster of tests/cluster/

Jobs are created at --rate a second and each deleted --lifetime seconds after
(TFJobs of one worker that runs and succeeds in between, as the load test
churns them), while --readers threads read the tree as users do (ls of jobs/,
status, info, events, gpus of a random job, cluster/top). Every pod writes
Events, and a real cluster keeps an Event for --event-ttl after its last write
(kube-apiserver's flag, 1 h by default; kubesim mirrors it): with a short TTL
the cluster reaches, within minutes, the steady state a real one reaches
within an hour, where Events expire as fast as they are made. Then what the
daemon holds must stop growing. The same holds of the logs the daemon keeps
of finished containers (keep_logs): their index grows until their budget or
20,000 logs, which at this rate takes 83 minutes with the default 256M; the
soak mounts with keep_logs=--keep-logs (1M: about 560 of these 1.9 KB logs,
full within three minutes) so that its steady state, evictions included, is
reached within the warm-up too.

Every --sample-seconds a row: minutes since the churn began, the daemon's VmRSS,
the jobs in its jobs/ and the Events the cluster holds. After --warmup-seconds
(default: the TTL, its lease's reuse window and 60 s, as the Events' count
needs to level) the run passes when RSS is flat: the highest RSS of the second
half of the samples after warm-up is at most --bound above the highest of the
first half (a steady leak shows as a second half higher than the first; a
malloc arena's noise shows in both). Exit 0 flat, 1 not, with the series.

The run is bounded: --minutes between 1 and 120. Its numbers are for
docs/reliability.md; tests/integration/test_soak.py runs a short form in
`make test`.
"""

import argparse
import errno
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "integration"))

import jobspecs  # noqa: E402

MAX_MINUTES = 120
TFJOBS = "/apis/kubeflow.org/v1/namespaces/%s/tfjobs"


def ttl_seconds(text):
    """Seconds of a duration as kube-apiserver's --event-ttl takes it (1h, 2m, 90s)."""
    scale = {"h": 3600, "m": 60, "s": 1}
    total, num = 0.0, ""
    for ch in text:
        if ch.isdigit() or ch == ".":
            num += ch
        elif ch in scale and num:
            total += float(num) * scale[ch]
            num = ""
        else:
            raise ValueError("invalid duration %r" % text)
    if num and text != "0":
        raise ValueError("invalid duration %r (a unit is needed: 2m, 90s)" % text)
    return total


def warmup_default(ttl):
    """The TTL, the reuse window of its etcd lease (min(5 %, 60 s)), and a minute."""
    return ttl + min(0.05 * ttl, 60) + 60


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for pid %d" % pid)


def count(cluster, path):
    """How many objects a list of path holds (one small page, remainingItemCount)."""
    status, body = cluster.api("GET", path + "?limit=1")
    if status != 200:
        raise RuntimeError("GET %s: %s %s" % (path, status, body))
    items = len(body.get("items", []))
    return items + (body.get("metadata", {}).get("remainingItemCount") or 0)


class Churn:
    """Creates a job every 1/rate s and deletes each lifetime s after its creation."""

    def __init__(self, cluster, namespace, rate, lifetime):
        self.cluster = cluster
        self.namespace = namespace
        self.rate = rate
        self.lifetime = lifetime
        self.created = 0
        self.deleted = 0
        self.errors = []

    def run(self, stop):
        live = []          # (created at, name), oldest first
        i = 0
        next_at = time.monotonic()
        while not stop.is_set():
            name = "soak-%d" % i
            i += 1
            spec = jobspecs.tfjob(name, gpus=0, start=1, run=10)
            status, body = self.cluster.api("POST", TFJOBS % self.namespace, spec)
            if status == 201:
                self.created += 1
                live.append((time.monotonic(), name))
            else:
                self.errors.append(("create", name, status, str(body)[:200]))
            while live and time.monotonic() - live[0][0] >= self.lifetime:
                _, old = live.pop(0)
                status, body = self.cluster.api("DELETE", TFJOBS % self.namespace + "/" + old)
                if status in (200, 202):
                    self.deleted += 1
                elif status != 404:
                    self.errors.append(("delete", old, status, str(body)[:200]))
            next_at += 1.0 / self.rate
            stop.wait(max(0.0, next_at - time.monotonic()))


def reader(root, stop, seed, errors, reads):
    rnd = random.Random(seed)
    while not stop.is_set():
        try:
            jobs = os.listdir(os.path.join(root, "jobs"))
            if jobs:
                base = os.path.join(root, "jobs", rnd.choice(jobs))
                for name in ("status", "info", "events", "gpus"):
                    with open(os.path.join(base, name)) as f:
                        f.read()
            with open(os.path.join(root, "cluster", "top")) as f:
                f.read()
            reads[seed] += 1
        except OSError as e:
            if e.errno != errno.ENOENT:    # a job deleted under the reader
                errors.append((e.errno, e.strerror, getattr(e, "filename", "")))
        stop.wait(0.2)


def soak(cluster, root, pid, minutes, namespace="default", rate=2.0, lifetime=30.0,
         readers=4, sample_seconds=30.0, warmup_seconds=None, ttl=None, out=None):
    """Runs the churn against a mounted cluster (the mount at root, the daemon pid)
    and returns {"samples": [...], "warmup_s": ..., "churn": ..., "errors": [...]}."""
    if not 0 < minutes <= MAX_MINUTES:
        raise ValueError("minutes must be in (0, %d]" % MAX_MINUTES)
    if warmup_seconds is None:
        warmup_seconds = warmup_default(ttl or 0)
    stop = threading.Event()
    churn = Churn(cluster, namespace, rate, lifetime)
    errors, reads = [], [0] * readers
    threads = [threading.Thread(target=churn.run, args=(stop,), daemon=True)]
    threads += [threading.Thread(target=reader, args=(root, stop, s, errors, reads), daemon=True)
                for s in range(readers)]
    samples = []
    t0 = time.monotonic()
    for t in threads:
        t.start()
    try:
        while True:
            t = time.monotonic() - t0
            row = {"minute": t / 60.0, "rss_kib": rss_kib(pid),
                   "jobs": len(os.listdir(os.path.join(root, "jobs"))),
                   "events": count(cluster, "/api/v1/events"),
                   "created": churn.created, "deleted": churn.deleted}
            samples.append(row)
            if out:
                print("soak: %5.1f min  RSS %7d KiB  jobs %4d  events %6d  created %6d"
                      % (row["minute"], row["rss_kib"], row["jobs"], row["events"],
                         row["created"]), file=out, flush=True)
            if t >= minutes * 60:
                break
            stop.wait(min(sample_seconds, max(0.0, minutes * 60 - t)))
    finally:
        stop.set()
        for th in threads:
            th.join(timeout=60)
    return {"samples": samples, "warmup_s": warmup_seconds, "reads": sum(reads),
            "churn": {"created": churn.created, "deleted": churn.deleted},
            "errors": churn.errors + errors}


def verdict(result, bound):
    """(flat, explanation): the second half of the samples after warm-up peaks at
    most bound above the first half's peak."""
    after = [s for s in result["samples"] if s["minute"] * 60 >= result["warmup_s"]]
    if len(after) < 4:
        return False, "only %d samples after the %.0f s warm-up: run longer" % (
            len(after), result["warmup_s"])
    half = len(after) // 2
    first = max(s["rss_kib"] for s in after[:half])
    second = max(s["rss_kib"] for s in after[half:])
    growth = second / first - 1
    text = ("RSS after warm-up: peak %d KiB in the first half (%d samples), %d KiB in the "
            "second (%d): %+.1f %% (bound %.0f %%); from %d to %d KiB over the whole run"
            % (first, half, second, len(after) - half, 100 * growth, 100 * bound,
               result["samples"][0]["rss_kib"], result["samples"][-1]["rss_kib"]))
    return growth <= bound, text


def table(result):
    lines = ["| minute | RSS (KiB) | jobs in jobs/ | Events in the cluster | jobs created |",
             "|---:|---:|---:|---:|---:|"]
    for s in result["samples"]:
        lines.append("| %.1f | %d | %d | %d | %d |" % (s["minute"], s["rss_kib"], s["jobs"],
                                                    s["events"], s["created"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", choices=("kubesim", "real"), default="kubesim")
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--event-ttl", default="2m")
    ap.add_argument("--rate", type=float, default=4.0, help="jobs created a second")
    ap.add_argument("--lifetime", type=float, default=30.0, help="seconds a job lives")
    ap.add_argument("--readers", type=int, default=4)
    ap.add_argument("--sample-seconds", type=float, default=30.0)
    ap.add_argument("--warmup-seconds", type=float)
    ap.add_argument("--bound", type=float, default=0.10)
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--json", help="also write the samples and the verdict here")
    ap.add_argument("--keep-logs", default="1M", help="the mount's keep_logs")
    args = ap.parse_args()
    if not 1 <= args.minutes <= MAX_MINUTES:
        ap.error("--minutes must be between 1 and %d" % MAX_MINUTES)
    ttl = ttl_seconds(args.event_ttl)

    from bench import ARENAFS, Mount
    from kubesimcluster import Cluster
    from realcluster import RealCluster

    work = tempfile.mkdtemp(prefix="arenafs-soak-")
    started = cluster = mount = None
    namespace = "default"
    try:
        if args.cluster == "real":
            started = RealCluster(os.path.join(work, "cluster"), args.nodes, 8,
                                  event_ttl=args.event_ttl)
            namespace = started.fresh_namespace("soak")
            cluster = started.namespaced(namespace)
        else:
            cluster = started = Cluster(os.path.join(work, "cluster"),
                                        ["--nodes", str(args.nodes), "--gpus", "8", "--speed",
                                         "4", "--event-ttl", args.event_ttl])
        # the daemon's kept logs go to the run's own cache, not the user's (env
        # execs it: the pid measured is the daemon's); the real cluster's build
        # cache is the user's, so only the daemon gets this XDG_CACHE_HOME
        mount = Mount(["env", "XDG_CACHE_HOME=" + os.path.join(work, "cache"), ARENAFS, "-f",
                       "-o", "kubeconfig=%s,keep_logs=%s" % (cluster.kubeconfig, args.keep_logs)],
                      work)
        print("soak: %s, %.0f min, Event TTL %s, %g jobs/s living %g s, %d readers, "
              "keep_logs=%s" % (args.cluster, args.minutes, args.event_ttl, args.rate,
                                args.lifetime, args.readers, args.keep_logs), flush=True)
        result = soak(cluster, mount.path, mount.proc.pid, args.minutes, namespace,
                      args.rate, args.lifetime, args.readers, args.sample_seconds,
                      args.warmup_seconds, ttl, out=sys.stdout)
    finally:
        if mount:
            mount.stop()
        if started:
            started.stop()
        shutil.rmtree(work, ignore_errors=True)
    flat, why = verdict(result, args.bound)
    print(table(result))
    print("soak: %d jobs created, %d deleted, %d reads; %s"
          % (result["churn"]["created"], result["churn"]["deleted"], result["reads"], why))
    if result["errors"]:
        print("soak: errors: %s" % result["errors"][:10])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(result, flat=flat, verdict=why, args=vars(args)), f, indent=1)
    sys.exit(0 if flat and not result["errors"] else 1)


if __name__ == "__main__":
    main()
