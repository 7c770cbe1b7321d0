#!/usr/bin/python3
"""Benchmarks: arenafs against kubectl on the same cluster, in one run.

    /usr/bin/python3 tests/bench/bench.py [--cluster kubesim|real] [--jobs 10000]
                                          [--nodes 1000] [--gpus 8] [--repeat 3]
                                          [--json FILE]
    make bench                                   # the full-size run on kubesim
    make bench CLUSTER=real                      # 1,000 jobs on the real cluster

For each thing a user does, the same question is answered twice: once by
reading the mounted tree, once by the kubectl commands that give the same
answer (what a kubectl user types, or what `arena` does under the hood).
Reported per row: the median wall time of each side over --repeat runs, the
ratio kubectl / arenafs (above 1: arenafs is faster), and the API requests
each side made (from kubesim's /_sim/stats; the real cluster does not count
them per client, so there they are left out). At the end: the daemon's
resident memory (VmRSS, VmHWM) against kubectl's peak RSS for the largest
listing.

A second table holds arenafs against the limit, in the same run: the same
commands on a copy of the tree in tmpfs (rsync -a of the mount, logs left
out: each would start a log request; jobs/*/instances/*/attempts/N/log too,
which came later, so that the read stays what it was) and on the FUSE ceiling, that copy
served from memory by a FUSE daemon that does no work (tests/bench/ceiling.c,
$ARENAFS_CEILING, else build/ceiling; what FUSE's own round trips cost, which
no FUSE daemon goes below); a finished log of --log-mb MB against curl
fetching the same bytes, and the mount (the tree ready) against curl fetching
the lists arenafs starts from; with the daemon's memory after the mount and
after that full read of the tree. Then, apart, a full read with every log
(rsync -a of --log-read-jobs jobs, logs and attempts' logs included: one log
request each), and, on kubesim, cat cluster/health while writers wait for a
slow cluster (20 opens of jobs/*/suspend held by the access review, 12
cp spec submit/ held by their POSTs), as a ratio to the unloaded read.

A third table holds each JSON and YAML form (cluster/list.json, list.yaml, top-job.json,
..., jobs/J/info.json) beside its table: cat of each, and the form read back whole
(json.load and jq; yaml.load), as a script would at this size.

Nothing here asserts speed: the numbers are for people (docs/benchmarks.md).
tests/bench/test_bench_smoke.py runs this at a tiny size so the harness
itself cannot rot unnoticed.
"""

import argparse
import glob
import json
import os
import shutil
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)

from kubesimcluster import Cluster  # noqa: E402
from realcluster import RealCluster  # noqa: E402
from helpers import wait_until  # noqa: E402

ARENAFS = os.environ.get("ARENAFS_BIN", os.path.join(ROOT, "arenafs"))
CEILING = os.environ.get("ARENAFS_CEILING", os.path.join(ROOT, "build", "ceiling"))


class Mount:
    """A FUSE daemon (argv, run with the mountpoint last) on workdir/name, stopped with
    fusermount3 -u; its output in workdir/log. A start that fails is stopped too."""

    def __init__(self, argv, workdir, name="mnt", log="arenafs.log"):
        self.path = os.path.join(workdir, name)
        os.makedirs(self.path)
        self.err = open(os.path.join(workdir, log), "wb")
        self.proc = subprocess.Popen(argv + [self.path], stdout=self.err,
                                     stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: os.path.ismount(self.path) or self.proc.poll() is not None,
                       timeout=300, message="%s to mount" % os.path.basename(argv[0]))
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited with %d: %s" % (
                    os.path.basename(argv[0]), self.proc.returncode, open(self.err.name).read()))
        except BaseException:
            self.stop()
            raise

    def rss_kib(self):
        """(VmRSS, VmHWM) of the daemon in KiB."""
        vals = {}
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    vals[key] = int(rest.split()[0])
        return vals.get("VmRSS", 0), vals.get("VmHWM", 0)

    def stop(self):
        subprocess.run(["fusermount3", "-u", self.path], check=False)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def sh(script):
    """The argv that runs script in a shell (globs need one)."""
    return ["sh", "-c", script]


# The rows of the tree against the limit: (what, its argv on the tree at root, target:
# at most this many times tmpfs' time). tests/bench/ceiling_choices.py runs them too.
TREE_ROWS = (
    ("find . -maxdepth 3", lambda r: ["find", r, "-maxdepth", "3"], 2.0),
    ("grep -r RUNNING jobs/*/status", lambda r: sh("grep -r RUNNING %s/jobs/*/status || true" % r),
     2.0),
    ("cat jobs/*/status", lambda r: sh("cat %s/jobs/*/status" % r), 2.0),
    ("ls -l jobs/", lambda r: ["ls", "-l", r + "/jobs"], 1.5),
)


def ratio(a, b):
    return a / b if b > 0 else float("inf")


def same_output(what, a, a_root, b, b_root):
    """Fails unless a (run under a_root) printed the lines b printed under b_root, in
    any order (find lists in readdir order, which differs)."""
    la = sorted(a.replace(a_root.encode(), b"ROOT").splitlines())
    lb = sorted(b.replace(b_root.encode(), b"ROOT").splitlines())
    if la != lb:
        diff = [x for x in set(la) ^ set(lb)][:5]
        raise RuntimeError("%s: %s and %s differ (%d and %d lines), e.g. %r" % (
            what, a_root, b_root, len(la), len(lb), diff))


def run_timed(cmd, env=None):
    """(wall seconds, stdout bytes) of one command; fails loudly."""
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, env=env)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd[:6]), r.stderr.decode()[-500:]))
    return wall, r.stdout


# What rsync says of a file that changed while it read it: the tree is live (ages,
# the tables of every job), and rsync reads a file up to the size its list noted
# minutes before; a file that shrank since reads short ("read errors mapping ...:
# No data available", then "failed verification -- update discarded" and a
# retry), one that vanished is "file has vanished". Neither is a failed read.
RSYNC_CHANGED = re.compile(r'^(?:rsync: \[sender\] read errors mapping "(?P<short>[^"]+)": '
                           r'No data available \(61\)'
                           r'|ERROR: (?P<verify>\S+) failed verification -- update (?:discarded|retained)\.'
                           r'|file has vanished: "(?P<gone>[^"]+)"'
                           r'|rsync error: some files(?:/attrs)? (?:were not transferred|vanished).*)$')


def rsync_live(args, sample_pid=None, root=None):
    """(wall seconds, files that changed while read, peak VmRSS in KiB of sample_pid
    during the run or 0) of rsync args over the live tree (the files' paths relative
    to root, when given). Fails loudly on any other
    error, or on an exit status other than 0, 23 (partial) and 24 (vanished) with
    only changed files to explain it."""
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                with open("/proc/%d/status" % sample_pid) as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            peak[0] = max(peak[0], int(line.split()[1]))
            except OSError:
                return
            done.wait(0.2)
    sampler = threading.Thread(target=sample, daemon=True) if sample_pid else None
    if sampler:
        sampler.start()
    t0 = time.monotonic()
    r = subprocess.run(["rsync"] + args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    done.set()
    if sampler:
        sampler.join()
    changed, other = set(), []
    for line in r.stderr.splitlines():
        m = RSYNC_CHANGED.match(line.strip())
        if m:
            changed.update(os.path.relpath(v, root) if root and v.startswith(root) else v
                           for v in m.groupdict().values() if v)
        elif line.strip():
            other.append(line)
    if r.returncode not in (0, 23, 24) or other or (r.returncode and not changed):
        raise RuntimeError("rsync %s failed (%d): %s" % (" ".join(args[:4]), r.returncode,
                                                        r.stderr[-800:]))
    return wall, sorted(changed), peak[0]


def curl_args(cluster):
    """curl's options for the cluster's API with the kubeconfig's own credentials."""
    args = ["curl", "-sS", "--fail", "--compressed"]
    if getattr(cluster, "ca_file", None) and cluster.url.startswith("https:"):
        args += ["--cacert", cluster.ca_file]
    if cluster.kind == "real":
        pki = os.path.join(cluster.dir, "pki")
        args += ["--cert", os.path.join(pki, "admin.crt"), "--key", os.path.join(pki, "admin.key")]
    elif cluster.token():
        args += ["-H", "Authorization: Bearer " + cluster.token()]
    return args


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid, timeout=120):
    """Waits until kubesim's start-up work is over (under a third of a core for 3 s):
    kubesim says it is ready and then builds its population for a minute more, which
    slowed the mount measured then against curl measured ten minutes later."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(3)
        now = cpu_seconds(pid)
        if now - last < 1.0:
            return
        last = now


def curl_lists(cluster, paths):
    """Wall seconds to fetch every path's whole list, 500 a page as arenafs asks, one
    curl after another per path and the paths side by side (as its reflectors run)."""
    import threading
    errors = []

    def fetch(path):
        cont = ""
        while True:
            url = "%s%s?limit=500%s" % (cluster.url, path,
                                        "&continue=" + cont if cont else "")
            r = subprocess.run(curl_args(cluster) + [url], capture_output=True)
            if r.returncode != 0:
                errors.append("%s: %s" % (url, r.stderr.decode()[-200:]))
                return
            cont = json.loads(r.stdout).get("metadata", {}).get("continue", "")
            if not cont:
                return
    threads = [threading.Thread(target=fetch, args=(p,)) for p in paths]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    if errors:
        raise RuntimeError("curl: " + "; ".join(errors))
    return wall


def listed_paths(cluster):
    """The collections arenafs lists at start: nodes, pods, services, events,
    namespaces and every job kind of kubeflow.org/v1 the cluster serves."""
    paths = ["/api/v1/nodes", "/api/v1/pods", "/api/v1/services", "/api/v1/events",
             "/api/v1/namespaces"]
    st, body = cluster.api("GET", "/apis/kubeflow.org/v1")
    if st == 200:
        paths += ["/apis/kubeflow.org/v1/" + r["name"] for r in body.get("resources", [])
                  if "/" not in r["name"] and r["name"].endswith("jobs")]
    return paths


def peak_rss_kib(cmd, env=None):
    """Peak resident memory of cmd in KiB, from GNU time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd[:6]), r.stderr.decode()[-500:]))
    return int(r.stderr.decode().strip().splitlines()[-1])


class Bench:
    def __init__(self, cluster, mount, mount_argv, repeat, arena=None, log_mb=0,
                 log_read_jobs=0):
        self.c = cluster
        self.m = mount
        self.mount_argv = mount_argv    # to mount the same cluster again (fresh_mount)
        self.repeat = repeat
        self.arena = arena       # the Arena CLI's path: its rows too
        self.log_mb = log_mb     # the size of the finished log read against curl
        self.log_read_jobs = log_read_jobs  # the jobs the read with every log reads (0: all)
        self.rows = []
        self.limits = []         # arenafs against tmpfs and curl
        self.forms = []          # each JSON and YAML form against its table
        self.memory = {}

    def kubectl_cmd(self, *args):
        return ["kubectl", "--kubeconfig", self.c.kubeconfig, "--cache-dir",
                self.c.cache_dir] + list(args)

    def kubectl_env(self):
        env = dict(os.environ)
        env.pop("KUBECONFIG", None)
        env["HOME"] = self.c.dir
        return env

    def requests(self):
        """kubesim's count of API requests so far; None on the real cluster."""
        return self.c.stats()["total"] if self.c.kind == "kubesim" else None

    def side(self, cmds, env=None):
        """Median wall time of running cmds (a list of argv) in sequence, the API
        requests they made (per run), and the bytes they printed."""
        times, requests, out_bytes = [], [], 0
        for _ in range(self.repeat):
            before = self.requests()
            t = 0.0
            out_bytes = 0
            for cmd in cmds:
                wall, out = run_timed(cmd, env)
                t += wall
                out_bytes += len(out)
            times.append(t)
            if before is not None:
                requests.append(self.requests() - before)
        return statistics.median(times), max(requests) if requests else None, out_bytes

    def arena_cmd(self, *args):
        return [self.arena, "--config", self.c.kubeconfig] + list(args)

    def row(self, what, fs_cmds, kubectl_cmds):
        """kubectl_cmds: the peer's commands, kubectl's or Arena's.
        One warm-up each, as a user's second `ls` is the usual case for both."""
        for cmd in fs_cmds:
            run_timed(cmd)
        for cmd in kubectl_cmds:
            run_timed(cmd, self.kubectl_env())
        fs_t, fs_req, fs_bytes = self.side(fs_cmds)
        k_t, k_req, k_bytes = self.side(kubectl_cmds, self.kubectl_env())
        self.rows.append({"what": what, "arenafs_s": fs_t, "kubectl_s": k_t,
                          "ratio": k_t / fs_t if fs_t > 0 else float("inf"),
                          "arenafs_requests": fs_req, "kubectl_requests": k_req,
                          "arenafs_bytes": fs_bytes, "kubectl_bytes": k_bytes})

    def run(self):
        m = self.m.path
        jobs = sorted(os.listdir(os.path.join(m, "jobs")))
        nodes = sorted(os.listdir(os.path.join(m, "nodes")))
        if not jobs or not nodes:
            raise RuntimeError("the mount shows %d jobs and %d nodes" % (len(jobs), len(nodes)))

        self.row("list jobs (ls -l jobs/ | kubectl get tfjobs)",
                 [["ls", "-l", os.path.join(m, "jobs")]],
                 [self.kubectl_cmd("get", "tfjobs")])
        self.row("status of every job (cat jobs/*/status | kubectl custom-columns)",
                 [sh("cat %s/jobs/*/status" % m)],
                 [self.kubectl_cmd("get", "tfjobs", "-o",
                                   "custom-columns=NAME:.metadata.name,"
                                   "STATE:.status.conditions[-1:].type")])
        job = self.busiest_job(jobs)
        self.row("one job's report (cat jobs/J/info | kubectl get tfjob + pods)",
                 [["cat", os.path.join(m, "jobs", job, "info")]],
                 [self.kubectl_cmd("get", "tfjob", job, "-o", "json"),
                  self.kubectl_cmd("get", "pods", "-l",
                                   "training.kubeflow.org/job-name=" + job, "-o", "wide")])
        self.row("GPUs of every node (cat nodes/*/gpus | kubectl get nodes + pods -A)",
                 [sh("cat %s/nodes/*/gpus" % m)],
                 [self.kubectl_cmd("get", "nodes", "-o", "json"),
                  self.kubectl_cmd("get", "pods", "-A", "-o", "json", "--field-selector",
                                   "status.phase!=Succeeded,status.phase!=Failed")])
        self.row("cluster top (cat cluster/top | kubectl get nodes + pods -A)",
                 [["cat", os.path.join(m, "cluster", "top")]],
                 [self.kubectl_cmd("get", "nodes", "-o", "wide"),
                  self.kubectl_cmd("get", "pods", "-A", "-o", "wide", "--field-selector",
                                   "status.phase!=Succeeded,status.phase!=Failed")])
        self.row("every job as JSON (jq length cluster/list.json | kubectl get -o json)",
                 [["jq", "length", os.path.join(m, "cluster", "list.json")]],
                 [self.kubectl_cmd("get", "tfjobs", "-o", "json"),
                  self.kubectl_cmd("get", "pods", "-o", "json")])
        self.gpu_figures(jobs)
        self.row("grep every status (grep -H . jobs/*/status | kubectl get -o json)",
                 [sh("grep -H . %s/jobs/*/status" % m)],
                 [self.kubectl_cmd("get", "tfjobs", "-o", "json")])
        log = self.finished_log(jobs)
        if log:
            pod, path = log
            self.row("a finished container's log (cat .../logs | kubectl logs)",
                     [["cat", path]],
                     [self.kubectl_cmd("logs", pod)])

        self.forms_rows(jobs, job)
        if self.arena:
            self.arena_rows(jobs, job)
        self.submit_and_delete_rows(tempfile.mkdtemp(prefix="arenafs-bench-"))
        self.limit_rows()

        rss, hwm = self.m.rss_kib()
        k_rss = peak_rss_kib(self.kubectl_cmd("get", "pods", "-A", "-o", "json"),
                             self.kubectl_env())
        self.memory.update({"arenafs_rss_kib": rss, "arenafs_hwm_kib": hwm,
                            "kubectl_get_pods_all_json_peak_kib": k_rss})

    def gpu_figures(self, jobs):
        """GPU figures with a Prometheus (kubesim's, found as Arena finds one): every
        job's gpus and progress and cluster/top-job read, each run after the shared
        snapshot went stale (5 s), and the Prometheus queries that cost (kubesim counts
        `get services/proxy`): one per refresh, however many files. The peer: that one
        query asked by kubectl (get --raw through the service proxy), Prometheus's
        answer alone. Apart from the rows (the tree asks the cluster here, on purpose);
        the Service is deleted after, so the rows below read as before."""
        if self.c.kind != "kubesim":
            self.memory["gpu_note"] = ("not measured: the real cluster's Prometheus runs "
                                       "beside it in tests only (tests/cluster/monitoring.py)")
            return
        m = self.m.path
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "prometheus-server", "namespace": "monitoring",
                            "labels": {"kubernetes.io/service-name": "prometheus-server"}},
               "spec": {"ports": [{"name": "http", "port": 9090}]}}
        self.c.kubectl("create", "namespace", "monitoring")
        self.c.kubectl("create", "-f", "-", input=json.dumps(svc))
        # arenafs's query (k8s/objects/gpumetrics.h GPU_METRICS_QUERY)
        query = ('{__name__=~"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE|'
                 'nvidia_gpu_duty_cycle|nvidia_gpu_memory_used_bytes|'
                 'nvidia_gpu_memory_total_bytes"} or label_replace(max_over_time('
                 '{__name__=~"DCGM_FI_DEV_GPU_UTIL|nvidia_gpu_duty_cycle"}[10m]), '
                 '"arenafs_duty_max_over", "10m", "", "")')
        raw = ("/api/v1/namespaces/monitoring/services/http:prometheus-server:9090/proxy/"
               "api/v1/query?query=" + urllib.parse.quote(query))
        cmd = sh("cat %s/jobs/*/gpus %s/jobs/*/progress %s/cluster/top-job" % (m, m, m))
        times, queries, figures, out = [], [], 0, b""
        for _ in range(self.repeat):
            time.sleep(5.5)     # the shared snapshot stale: this read refreshes it
            before = self.c.stats()["requests"].get("get services/proxy", 0)
            wall, out = run_timed(cmd)
            times.append(wall)
            queries.append(self.c.stats()["requests"].get("get services/proxy", 0) - before)
        figures = out.count(b"GPU(DutyCycle)")
        peer = [run_timed(self.kubectl_cmd("get", "--raw", raw), self.kubectl_env())[0]
                for _ in range(self.repeat)]
        self.c.kubectl("delete", "namespace", "monitoring")
        self.memory.update({
            "gpu_files": 2 * len(jobs) + 1, "gpu_read_s": statistics.median(times),
            "gpu_queries": max(queries), "gpu_jobs_with_figures": figures,
            "gpu_query_kubectl_s": statistics.median(peer)})

    def forms_rows(self, jobs, job):
        """Every JSON and YAML form beside its table (docs/tree.md, "JSON and YAML
        forms"): the median time of cat of each against cat of its table, and each read
        back whole at this size (json.load and jq -e for JSON, yaml.safe_load, with
        libyaml's loader where PyYAML has it, for YAML); list.json holds an entry for
        every job of jobs/."""
        m = self.m.path
        pairs = [(os.path.join("cluster", stem + ext), os.path.join("cluster", stem))
                 for stem in ("list", "list-all", "top-job", "top", "queues")
                 for ext in (".json", ".yaml")]
        pairs += [(os.path.join(d, "list" + ext), os.path.join(d, "list"))
                  for d in ("data", "queues") for ext in (".json", ".yaml")]
        pairs += [(os.path.join("jobs", job, f + ext), os.path.join("jobs", job, f))
                  for f in ("info", "progress", "metrics") for ext in (".json", ".yaml")]
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        for form, table in pairs:
            path = os.path.join(m, form)
            t0 = time.monotonic()
            with open(path, "rb") as f:
                text = f.read()
            if form.endswith(".json"):
                doc = json.loads(text)
                r = subprocess.run(["jq", "-e", "type", path], capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError("jq could not read %s: %s" % (form, r.stderr))
            else:
                doc = yaml.load(text, Loader=loader)
            parse_s = time.monotonic() - t0
            if form == os.path.join("cluster", "list.json") and \
                    sorted(j["name"] for j in doc) != jobs:
                raise RuntimeError("cluster/list.json has %d jobs, jobs/ %d"
                                   % (len(doc), len(jobs)))
            run_timed(["cat", path])
            run_timed(["cat", os.path.join(m, table)])
            form_s, _, form_bytes = self.side([["cat", path]])
            table_s, _, table_bytes = self.side([["cat", os.path.join(m, table)]])
            self.forms.append({"form": form.replace("jobs/%s/" % job, "jobs/J/"),
                               "table": table.replace("jobs/%s/" % job, "jobs/J/"),
                               "form_s": form_s, "table_s": table_s,
                               "times": ratio(form_s, table_s), "form_bytes": form_bytes,
                               "table_bytes": table_bytes, "read_and_parse_s": parse_s,
                               "items": len(doc)})

    def limit(self, what, seconds, reference, ref_seconds, target, ceiling_s=None):
        row = {"what": what, "arenafs_s": seconds, "reference": reference,
               "reference_s": ref_seconds, "times": ratio(seconds, ref_seconds),
               "target": target}
        if ceiling_s is not None:
            row.update({"ceiling_s": ceiling_s,
                        "ceiling_over_reference": ratio(ceiling_s, ref_seconds),
                        "arenafs_over_ceiling": ratio(seconds, ceiling_s)})
        self.limits.append(row)

    def limit_rows(self):
        """arenafs against a tmpfs copy of its tree, the same copy served by the FUSE
        ceiling, and curl."""
        m = self.m.path
        copy = tempfile.mkdtemp(prefix="arenafs-bench-tmpfs-", dir="/dev/shm")
        work = tempfile.mkdtemp(prefix="arenafs-bench-ceiling-")
        ceiling = None
        try:
            took, changed, peak = rsync_live(["-a", "--exclude=logs", "--exclude=logs.previous",
                                              "--exclude=attempts/*/log", m + "/", copy + "/"],
                                             self.m.proc.pid, m)
            self.memory.update({"full_read_s": took, "full_read_changed": changed,
                                "rss_peak_full_read_kib": peak,
                                "rss_after_full_read_kib": self.m.rss_kib()[0]})
            mount_s, self.memory["rss_fresh_mount_kib"] = self.fresh_mount(work)
            # the same lists fetched by curl right after, on the same server
            curl_t = curl_lists(self.c, listed_paths(self.c))
            self.limit("mount -> tree ready", mount_s, "curl lists", curl_t, "<= 1.2x")
            ceiling = Mount([CEILING, "-f", copy], work, log="ceiling.log")
            for what, cmd, target in TREE_ROWS:
                roots = (m, ceiling.path, copy)
                warm = [run_timed(cmd(r))[1] for r in roots]
                same_output(what, warm[1], ceiling.path, warm[2], copy)
                fs_t, ceil_t, tmp_t = (
                    statistics.median(run_timed(cmd(r))[0] for _ in range(self.repeat))
                    for r in roots)
                self.limit(what, fs_t, "tmpfs", tmp_t, "<= %.1fx" % target, ceil_t)
        finally:
            if ceiling:
                ceiling.stop()
            shutil.rmtree(copy, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
        if self.log_mb:
            self.big_log_row()
        self.full_read_with_logs()
        if self.c.kind == "kubesim":
            self.reads_while_writers_wait()

    def full_read_with_logs(self):
        """rsync -a of --log-read-jobs jobs (0: all) with every log: logs,
        logs.previous and each attempt's log, one log request each (the read above
        leaves them out). Apart from it, so that it stays what it measured."""
        jobs = sorted(os.listdir(os.path.join(self.m.path, "jobs")))
        if self.log_read_jobs:
            jobs = jobs[:self.log_read_jobs]
        copy = tempfile.mkdtemp(prefix="arenafs-bench-logs-")
        try:
            # one rsync of the chosen job folders, as a user's copy of them
            took, _, _ = rsync_live(["-a", "--relative"] +
                                    [os.path.join(self.m.path, ".", "jobs", j) for j in jobs] +
                                    [copy + "/"])
            logs = sum(1 for _, _, files in os.walk(copy) for f in files
                       if f in ("log", "logs", "logs.previous"))
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        self.memory.update({"full_read_logs_s": took, "full_read_logs_jobs": len(jobs),
                            "full_read_logs_files": logs,
                            "rss_after_full_read_logs_kib": self.m.rss_kib()[0]})

    def held(self, pattern):
        """How many requests matching pattern kubesim holds unanswered now."""
        return sum(1 for e in self.c._control("GET", "/_sim/requests?since=0")["requests"]
                   if e["status"] is None and re.search(pattern, e["request"]))

    def read_while(self, health, pattern, writers, at_least):
        """Median seconds of cat cluster/health while kubesim holds at least at_least
        of the writers' requests (pattern) for 5 s each."""
        self.c.fault(delay_ms=5000, delay_match=pattern)
        threads = [threading.Thread(target=w) for w in writers]
        try:
            for t in threads:
                t.start()
            wait_until(lambda: self.held(pattern) >= at_least, timeout=60,
                       message="%d slow requests held" % at_least)
            took = statistics.median(run_timed(["cat", health])[0] for _ in range(5))
        finally:
            self.c.fault(delay_ms=0)
            for t in threads:
                t.join(timeout=120)
        return took

    def reads_while_writers_wait(self):
        """cat cluster/health unloaded, then while 20 opens of jobs/*/suspend wait for
        the access review and while 12 cp spec submit/ wait for their POSTs (issue 33:
        23.2 s and 15.1 s when they held every FUSE worker). On a mount of its own,
        whose access reviews are not kept yet."""
        work = tempfile.mkdtemp(prefix="arenafs-bench-writers-")
        m = Mount(self.mount_argv, work, "writers", "writers.log")
        spec = "type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python train.py\n"
        try:
            health = os.path.join(m.path, "cluster", "health")
            unloaded = statistics.median(run_timed(["cat", health])[0] for _ in range(5))
            jobs = sorted(os.listdir(os.path.join(m.path, "jobs")))[:20]

            def opener(j):
                return lambda: os.close(os.open(os.path.join(m.path, "jobs", j, "suspend"),
                                                os.O_WRONLY))

            def copier(i):
                def cp():
                    with open(os.path.join(m.path, "submit", "bench-wait-%d.yaml" % i),
                              "w") as f:
                        f.write(spec)
                return cp
            opens = self.read_while(health, r"^POST \S*/selfsubjectaccessreviews",
                                    [opener(j) for j in jobs], min(10, len(jobs)))
            cps = self.read_while(health, r"^POST \S*/tfjobs",
                                  [copier(i) for i in range(12)], 10)
            for i in range(12):
                if os.path.isdir(os.path.join(m.path, "jobs", "bench-wait-%d" % i)):
                    os.rmdir(os.path.join(m.path, "jobs", "bench-wait-%d" % i))
        finally:
            m.stop()
            shutil.rmtree(work, ignore_errors=True)
        self.memory.update({"health_unloaded_s": unloaded, "health_suspend_opens_s": opens,
                            "health_cps_s": cps, "suspend_opens": len(jobs)})

    def fresh_mount(self, workdir):
        """(seconds to a ready tree, RSS before any reading) of a second arenafs mounted
        now on the same cluster. Its RSS is what the cluster itself costs at this
        moment: the cluster changes while the run goes on (jobs start and end, events
        come and go), so memory after the first mount, minutes earlier, is not what the
        full read alone added to. Its time is set against curl's, fetched right after:
        the first mount met a server still busy from making the cluster."""
        t0 = time.monotonic()
        fresh = Mount(self.mount_argv, workdir, "fresh", "fresh.log")
        try:
            mount_s = time.monotonic() - t0
            if not os.listdir(os.path.join(fresh.path, "jobs")):
                raise RuntimeError("the fresh mount shows no job")
            return mount_s, fresh.rss_kib()[0]
        finally:
            fresh.stop()

    def big_log_row(self):
        """A TFJob whose one worker printed log_mb MB and finished: cat of its logs
        file (each open fetches the log again) against curl fetching the same log."""
        name = "bench-biglog"
        lines = self.log_mb * 1024 * 1024 // 55           # kubesim prints ~55 bytes a line
        env = [{"name": "SIM_RUN_SECONDS", "value": "10"},
               {"name": "SIM_LOG_LINES_PER_SECOND", "value": str(lines // 10)}]
        job = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name},
               "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "tfReplicaSpecs": {"Worker": {
                   "replicas": 1, "restartPolicy": "Never", "template": {"spec": {
                       "containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow",
                                       "command": ["python", "train.py"], "env": env}]}}}}}}
        self.c.kubectl("create", "-f", "-", input=json.dumps(job))
        status = os.path.join(self.m.path, "jobs", name, "status")
        wait_until(lambda: os.path.exists(status) and open(status).read().strip() in
                   ("SUCCEEDED", "FAILED"), timeout=900, message="the big log's job to end")
        url = "%s/api/v1/namespaces/default/pods/%s-worker-0/log?container=tensorflow" % (
            self.c.url, name)
        out = os.path.join(tempfile.gettempdir(), "arenafs-bench-biglog")
        curl = curl_args(self.c) + ["-o", out, url]
        run_timed(curl)
        size = os.path.getsize(out)
        curl_t = statistics.median(run_timed(curl)[0] for _ in range(self.repeat))
        os.unlink(out)
        logs = os.path.join(self.m.path, "jobs", name, "logs")
        fs_times = []
        for _ in range(self.repeat + 1):
            t0 = time.monotonic()
            got = 0
            with open(logs, "rb") as f:
                while True:
                    b = f.read(1 << 20)
                    if not b:
                        break
                    got += len(b)
            fs_times.append(time.monotonic() - t0)
            if got != size:
                raise RuntimeError("cat logs read %d bytes, curl %d" % (got, size))
        self.limit("cat logs, finished, %.0f MB" % (size / 1e6),
                   statistics.median(fs_times[1:]), "curl", curl_t, "<= 1.1x (0.9x curl's speed)")
        self.c.kubectl("delete", "tfjob", name)

    def timed_pairs(self, what, fs_cmd, kubectl_cmd):
        """A row of commands that change the cluster, so each run needs a new name:
        fs_cmd(i) and kubectl_cmd(i) give run i's argv (run 0 is the warm-up)."""
        fs_t, k_t, fs_req, k_req = [], [], [], []
        for i in range(self.repeat + 1):
            for cmd, times, reqs, env in ((fs_cmd(i), fs_t, fs_req, None),
                                          (kubectl_cmd(i), k_t, k_req, self.kubectl_env())):
                before = self.requests()
                wall, _ = run_timed(cmd, env)
                if i:
                    times.append(wall)
                    if before is not None:
                        reqs.append(self.requests() - before)
        f, k = statistics.median(fs_t), statistics.median(k_t)
        self.rows.append({"what": what, "arenafs_s": f, "kubectl_s": k,
                          "ratio": k / f if f > 0 else float("inf"),
                          "arenafs_requests": max(fs_req) if fs_req else None,
                          "kubectl_requests": max(k_req) if k_req else None,
                          "arenafs_bytes": 0, "kubectl_bytes": 0})

    def submit_and_delete_rows(self, tmp):
        """arena submit and arena delete: a spec copied in and rmdir, against
        kubectl create -f of the TFJob arenafs makes of it and kubectl delete."""
        spec = ("type: tfjob\nimage: tensorflow/tensorflow:2.15.0-gpu\n"
                "command: python train.py\ngpus: 1\nworkers: 2\n")
        specs, manifests = [], []
        for i in range(self.repeat + 1):
            path = os.path.join(tmp, "bench-fs-%d.yaml" % i)
            with open(path, "w") as f:
                f.write(spec)
            specs.append(path)
        # kubectl's side creates the very object arenafs made, under another name
        run_timed(["cp", specs[0], os.path.join(self.m.path, "submit")])
        model = json.loads(run_timed(self.kubectl_cmd("get", "tfjob", "bench-fs-0", "-o", "json"),
                                     self.kubectl_env())[1])
        for k in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"):
            model["metadata"].pop(k, None)
        model.pop("status", None)
        for i in range(self.repeat + 1):
            model["metadata"]["name"] = "bench-k-%d" % i
            path = os.path.join(tmp, "bench-k-%d.json" % i)
            with open(path, "w") as f:
                json.dump(model, f)
            manifests.append(path)
        os.rmdir(os.path.join(self.m.path, "jobs", "bench-fs-0"))
        submit = os.path.join(self.m.path, "submit")
        self.timed_pairs("submit a job (cp spec.yaml submit/ | kubectl create -f)",
                         lambda i: ["cp", specs[i], submit],
                         lambda i: self.kubectl_cmd("create", "-f", manifests[i]))
        self.timed_pairs("delete a job (rmdir jobs/J | kubectl delete tfjob J)",
                         lambda i: ["rmdir", os.path.join(self.m.path, "jobs", "bench-fs-%d" % i)],
                         lambda i: self.kubectl_cmd("delete", "tfjob", "bench-k-%d" % i))
        shutil.rmtree(tmp, ignore_errors=True)

    def arena_rows(self, jobs, job):
        """The same answers from Arena: its list, get, top node, top job and logs."""
        m = self.m.path
        self.row("arena list (cat cluster/list | arena list)",
                 [["cat", os.path.join(m, "cluster", "list")]], [self.arena_cmd("list")])
        self.row("arena get J (cat jobs/J/info | arena get J)",
                 [["cat", os.path.join(m, "jobs", job, "info")]], [self.arena_cmd("get", job)])
        self.row("arena top node (cat cluster/top | arena top node)",
                 [["cat", os.path.join(m, "cluster", "top")]], [self.arena_cmd("top", "node")])
        self.row("arena list -o json (cat cluster/list.json | arena list -o json)",
                 [["cat", os.path.join(m, "cluster", "list.json")]],
                 [self.arena_cmd("list", "-o", "json")])
        self.row("arena top job (cat cluster/top-job | arena top job)",
                 [["cat", os.path.join(m, "cluster", "top-job")]], [self.arena_cmd("top", "job")])
        done = next((j for j in jobs
                     if open(os.path.join(m, "jobs", j, "status")).read() == "SUCCEEDED\n"), None)
        if done:
            self.row("arena logs J, finished (cat jobs/J/logs | arena logs J)",
                     [["cat", os.path.join(m, "jobs", done, "logs")]],
                     [self.arena_cmd("logs", done)])

    def busiest_job(self, jobs):
        best, best_n = jobs[0], -1
        for j in jobs[:200]:
            inst = os.path.join(self.m.path, "jobs", j, "instances")
            n = len(os.listdir(inst)) if os.path.isdir(inst) else 0
            if n > best_n:
                best, best_n = j, n
        return best

    def finished_log(self, jobs):
        """(pod, path of its logs) of a container that has finished, or None."""
        for path in sorted(glob.glob(os.path.join(self.m.path, "jobs", "*", "instances", "*"))):
            with open(os.path.join(path, "status")) as f:
                if f.read().strip() != "Completed":
                    continue
            logs = os.path.join(path, "logs")
            with open(logs, "rb") as f:   # opening starts the stream; it ends at once
                f.read()
            if os.path.getsize(logs) > 0:
                return os.path.basename(path), logs
        return None


def populate_real(cluster, jobs, per_job=5, timeout=3600):
    """jobs TFJobs of five pods each (four workers and a PS) made by the real
    operator; every fifth asks a GPU per worker (the rest none, so that most
    pods find room), every tenth ends after 5 s, the rest run on. Returns when
    every pod exists and is Running, Succeeded or Pending for lack of room."""
    items = []
    for i in range(jobs):
        env = [{"name": "KWOK_RUN", "value": "5s" if i % 10 == 0 else "forever"}]
        worker = {"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                  "command": ["python", "train.py"], "env": env}
        if i % 5 == 0:
            worker["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
        ps = {"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
              "command": ["python", "ps.py"], "env": env}
        # Arena lists only jobs and pods labelled app=tfjob, release=NAME
        labels = {"app": "tfjob", "release": "tfjob-%05d" % i}
        worker_tpl = {"metadata": {"labels": labels}, "spec": {"containers": [worker]}}
        ps_tpl = {"metadata": {"labels": labels}, "spec": {"containers": [ps]}}
        items.append({"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
                      "metadata": {"name": "tfjob-%05d" % i, "labels": labels},
                      "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "tfReplicaSpecs": {
                          "PS": {"replicas": 1, "restartPolicy": "Never",
                                 "template": ps_tpl},
                          "Worker": {"replicas": per_job - 1, "restartPolicy": "Never",
                                     "template": worker_tpl}}}})
    for start in range(0, jobs, 500):
        cluster.kubectl("create", "-f", "-", timeout=600, input=json.dumps(
            {"apiVersion": "v1", "kind": "List", "items": items[start:start + 500]}))

    def settled():
        st, body = cluster.api("GET", "/api/v1/namespaces/default/pods", timeout=120)
        pods = body.get("items", []) if st == 200 else []
        done = [p for p in pods if p["status"].get("phase") in ("Running", "Succeeded") or
                any(c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))]
        print("populate: %d of %d pods settled" % (len(done), jobs * per_job), flush=True)
        return len(done) >= jobs * per_job
    wait_until(settled, timeout=timeout, interval=15, message="every pod to settle")


def report(rows, memory, scale, where="kubesim"):
    lines = ["arenafs vs kubectl on %s (%s)" % (where, scale), ""]
    w = max(len(r["what"]) for r in rows)
    lines.append("%-*s  %9s  %9s  %7s  %9s" % (w, "what", "arenafs", "peer", "ratio",
                                               "requests"))
    for r in rows:
        req = ("%4d/%-4d" % (r["arenafs_requests"], r["kubectl_requests"])
               if r["arenafs_requests"] is not None else "      -")
        lines.append("%-*s  %8.3fs  %8.3fs  %6.1fx  %s" % (
            w, r["what"], r["arenafs_s"], r["kubectl_s"], r["ratio"], req))
    lines.append("")
    lines.append("memory: arenafs RSS %.1f MiB (peak %.1f MiB); kubectl get pods -A -o json "
                 "peak %.1f MiB" % (memory["arenafs_rss_kib"] / 1024.0,
                                    memory["arenafs_hwm_kib"] / 1024.0,
                                    memory["kubectl_get_pods_all_json_peak_kib"] / 1024.0))
    lines.append("peer = kubectl, or Arena in the rows named arena; ratio = peer time / "
                 "arenafs time; requests = API requests per run (arenafs/peer)")
    return "\n".join(lines)


def gpu_line(memory):
    if "gpu_read_s" not in memory:
        return "GPU figures with Prometheus: " + memory.get("gpu_note", "not measured")
    return ("GPU figures with Prometheus: cat jobs/*/gpus jobs/*/progress cluster/top-job "
            "(%d files, %d jobs with figures) %.2f s, %d Prometheus quer%s (at most one per "
            "5 s refresh); that query alone by kubectl get --raw %.2f s" % (
                memory["gpu_files"], memory["gpu_jobs_with_figures"], memory["gpu_read_s"],
                memory["gpu_queries"], "y" if memory["gpu_queries"] == 1 else "ies",
                memory["gpu_query_kubectl_s"]))


def report_forms(forms):
    """Each form against its table: cat of each (median), times = form / table."""
    lines = ["", "the JSON and YAML forms against their tables (same run)", ""]
    w = max([len(r["form"]) for r in forms] + [4])
    lines.append("%-*s  %9s  %9s  %7s  %10s  %10s  %10s" % (
        w, "form", "cat form", "cat table", "times", "form size", "table size", "read+parse"))
    for r in forms:
        lines.append("%-*s  %8.3fs  %8.3fs  %6.1fx  %10d  %10d  %9.3fs" % (
            w, r["form"], r["form_s"], r["table_s"], r["times"], r["form_bytes"],
            r["table_bytes"], r["read_and_parse_s"]))
    lines.append("read+parse = open, read and json.load + jq -e (JSON) or yaml.load with "
                 "libyaml's CSafeLoader (YAML), once")
    return "\n".join(lines)


def report_limits(limits, memory, pods):
    """arenafs against the limit: times = arenafs time / reference time; the tree's
    rows also on the FUSE ceiling."""
    lines = ["", "arenafs against the limit (same run)", ""]
    w = max([len(r["what"]) for r in limits] + [4])
    lines.append("%-*s  %9s  %9s  %-10s  %9s  %7s  %8s  %8s  %s" % (
        w, "what", "arenafs", "ceiling", "reference", "ref", "times", "ceil/ref", "fs/ceil",
        "target"))
    for r in limits:
        has = "ceiling_s" in r
        lines.append("%-*s  %8.3fs  %9s  %-10s  %8.3fs  %6.2fx  %8s  %8s  %s" % (
            w, r["what"], r["arenafs_s"], "%8.3fs" % r["ceiling_s"] if has else "-",
            r["reference"], r["reference_s"], r["times"],
            "%7.2fx" % r["ceiling_over_reference"] if has else "-",
            "%7.2fx" % r["arenafs_over_ceiling"] if has else "-", r["target"]))
    after_mount = memory.get("rss_after_mount_kib", 0)
    after_read = memory.get("rss_after_full_read_kib", 0)
    fresh = memory.get("rss_fresh_mount_kib", 0)
    lines.append("ceiling = the tmpfs copy served from memory by a FUSE daemon that does no "
                 "work (tests/bench/ceiling.c): FUSE's own cost; times = arenafs / reference")
    lines.append("")
    lines.append("memory: RSS after mount %.1f MiB (%.2f KiB per pod; target <= 2 KiB); after "
                 "a full read of the tree (rsync -a, logs left out, %.1f s) %.1f MiB (%.2fx; "
                 "target <= 1.2x)" % (after_mount / 1024.0, after_mount / max(pods, 1),
                                     memory.get("full_read_s", 0), after_read / 1024.0,
                                     after_read / after_mount if after_mount else 0))
    lines.append("        the read's peak RSS %.1f MiB; files that changed while it read them "
                 "(rsync read them short or found them gone): %s" % (
                     memory.get("rss_peak_full_read_kib", 0) / 1024.0,
                     ", ".join(memory.get("full_read_changed", [])) or "none"))
    lines.append("        a fresh mount of the same cluster right after that read: %.1f MiB; "
                 "the read's daemon holds %.2fx that (target <= 1.2x)" % (
                     fresh / 1024.0, after_read / fresh if fresh else 0))
    if "full_read_logs_s" in memory:
        n = max(memory["full_read_logs_files"], 1)
        lines.append("a read with every log (rsync -a of %d jobs: %d logs, one log request "
                     "each): %.1f s, %.1f ms a log; RSS after %.1f MiB" % (
                         memory["full_read_logs_jobs"], memory["full_read_logs_files"],
                         memory["full_read_logs_s"], memory["full_read_logs_s"] * 1e3 / n,
                         memory["rss_after_full_read_logs_kib"] / 1024.0))
    if "gpu_read_s" in memory or "gpu_note" in memory:
        lines.append(gpu_line(memory))
    if "health_unloaded_s" in memory:
        u = max(memory["health_unloaded_s"], 1e-6)
        lines.append("reads while writers wait: cat cluster/health %.2f ms unloaded; %.2f ms "
                     "(%.1fx) with %d opens of jobs/*/suspend waiting for a 5 s access review; "
                     "%.2f ms (%.1fx) with 12 cp spec submit/ waiting for 5 s POSTs" % (
                         u * 1e3, memory["health_suspend_opens_s"] * 1e3,
                         memory["health_suspend_opens_s"] / u, memory["suspend_opens"],
                         memory["health_cps_s"] * 1e3, memory["health_cps_s"] / u))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--cluster", choices=("kubesim", "real"), default="kubesim")
    ap.add_argument("--log-mb", type=int, default=150,
                    help="size of the finished log read against curl (0: no such row)")
    ap.add_argument("--log-read-jobs", type=int, default=500,
                    help="jobs read with every log, apart from the full read (0: all of "
                    "them: one log request per container, long on a large cluster)")
    ap.add_argument("--gpu-only", action="store_true",
                    help="only the mount and the GPU figures' read (its line of the report)")
    ap.add_argument("--arena", help="the Arena CLI: adds its rows (make bench CLUSTER=real "
                    "passes tests/cluster/bin arena)")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="arenafs-bench-")
    cluster = mount = None
    try:
        t0 = time.monotonic()
        if args.cluster == "real":
            cluster = RealCluster(os.path.join(work, "cluster"), args.nodes, args.gpus)
            populate_real(cluster, args.jobs)
        else:
            cluster = Cluster(os.path.join(work, "cluster"),
                              ["--nodes", args.nodes, "--gpus", args.gpus, "--jobs", args.jobs],
                              ready_timeout=900)
        cluster_s = time.monotonic() - t0
        if args.cluster == "kubesim":
            settle(cluster.proc.pid)
        pods = cluster.api("GET", "/api/v1/pods?limit=1")[1]
        t0 = time.monotonic()
        # keep_logs=0: the big log is timed as streamed from the cluster (as curl gets
        # it), not read from a kept copy, and nothing lands in the user's cache
        mount_argv = [ARENAFS, "-f", "-o", "kubeconfig=" + cluster.kubeconfig + ",keep_logs=0"]
        mount = Mount(mount_argv, work)
        mount_s = time.monotonic() - t0
        b = Bench(cluster, mount, mount_argv, args.repeat, args.arena, args.log_mb,
                  args.log_read_jobs)
        b.memory["mount_s"] = mount_s
        b.memory["rss_after_mount_kib"] = mount.rss_kib()[0]    # before any reading
        if args.gpu_only:
            b.gpu_figures(sorted(os.listdir(os.path.join(mount.path, "jobs"))))
            print("%d jobs, %d nodes, arenafs mounted in %.1fs" % (args.jobs, args.nodes,
                                                                  mount_s))
            print(gpu_line(b.memory))
            if args.json:
                with open(args.json, "w") as f:
                    json.dump({"memory": b.memory}, f, indent=2)
            return
        b.run()
        remaining = pods.get("metadata", {}).get("remainingItemCount")
        scale = "%d jobs, %d nodes, %s pods; %s ready in %.1fs, arenafs mounted in %.1fs" % (
            args.jobs, args.nodes, (remaining + 1) if remaining is not None else "?",
            args.cluster, cluster_s, mount_s)
        n_pods = (remaining + 1) if remaining is not None else 1
        print(report(b.rows, b.memory, scale,
                     "kubesim" if args.cluster == "kubesim" else "the real cluster"))
        print(report_limits(b.limits, b.memory, n_pods))
        print(report_forms(b.forms))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"scale": scale, "rows": b.rows, "limits": b.limits,
                           "forms": b.forms, "memory": b.memory}, f, indent=2)
    finally:
        if mount:
            mount.stop()
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
