"""Drivers of build/tools/k8scache and build/tools/logfollow for the cache and
log-stream tests (test_k8s_cache*.py, test_k8s_logstream.py): the tools, the
cache_tool fixture, the comparison of the cache with what kubectl sees, and
kubesim's request log read per request."""
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
import urllib.parse

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))
K8SCACHE = os.path.join(TOOLS, "k8scache")
LOGFOLLOW = os.path.join(TOOLS, "logfollow")
KUBESIM = os.environ.get("ARENAFS_KUBESIM", os.path.join(ROOT, "tests", "kubesim", "kubesim"))


def wait_for(what, fn, timeout=60.0, interval=0.1):
    """Polls fn() until it returns something true; fails with what and the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s; last: %r" % (timeout, what, last))


class CacheTool:
    """A running `k8scache ... changes=1 serve`: commands on stdin, JSON lines out."""

    def __init__(self, kubeconfig, context=None, extra=()):
        args = [K8SCACHE, "kubeconfig=" + kubeconfig, "changes=1"]
        if context:
            args.append("context=" + context)
        args += list(extra) + ["serve"]
        env = dict(os.environ, K8SCACHE_STOP_MS="1")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        self.changes = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = self._expect("ready", timeout=120)

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            if "change" in msg:
                with self.lock:
                    self.changes.append(msg["change"])
            else:
                self.lines.put(msg)
        self.lines.put(None)

    def _expect(self, key, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("k8scache gave no %s within %.0f s" % (key, timeout))
            try:
                msg = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise AssertionError("k8scache exited (%s): %s"
                                     % (self.proc.wait(), self.proc.stderr.read()))
            if key in msg:
                return msg[key]

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._expect(command)

    def dump(self):
        return self.ask("dump")

    def health(self):
        return self.ask("health")

    def changes_matching(self, **want):
        with self.lock:
            return [c for c in self.changes if all(c.get(k) == v for k, v in want.items())]

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        """Quits; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        return rc, self.proc.stderr.read()


def run_once(kubeconfig, *args, timeout=120):
    """`k8scache ... once`: (exit status, [messages], stderr)."""
    r = subprocess.run([K8SCACHE, "kubeconfig=" + kubeconfig] + list(args) + ["once"],
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, [json.loads(l) for l in r.stdout.splitlines() if l], r.stderr


def logfollow(kubeconfig, pod, container, *args, timeout=300):
    """Starts logfollow; returns the Popen (stdout bytes: the log)."""
    return subprocess.Popen([LOGFOLLOW, "kubeconfig=" + kubeconfig] + list(args) + [pod, container],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish_logfollow(proc, timeout=300):
    """(exit status, log bytes, {stat: value} from its last stderr line, stderr)."""
    out, err = proc.communicate(timeout=timeout)
    err = err.decode(errors="replace")
    stats = {}
    last = [l for l in err.splitlines() if l.startswith("bytes=")]
    if last:
        head, _, status = last[-1].partition(" status=")
        stats = dict(kv.split("=", 1) for kv in head.split())
        stats["status"] = status
    return proc.returncode, out, stats, err


def kubectl_state(c, context=None):
    """What kubectl sees: {kind: {(namespace, name): resourceVersion}} and pod phases."""
    state = {}
    for kind, res in (("pod", "pods"), ("node", "nodes"), ("job", "tfjobs"),
                      ("service", "services")):
        args = ["get", res] + ([] if kind == "node" else ["-A"])
        items = c.kubectl_json(*args, context=context)["items"]
        state[kind] = {(i["metadata"].get("namespace", ""), i["metadata"]["name"]):
                       i["metadata"]["resourceVersion"] for i in items}
        if kind == "pod":
            state["phase"] = {(i["metadata"]["namespace"], i["metadata"]["name"]):
                              i.get("status", {}).get("phase", "Pending") for i in items}
    return state


def cache_state(dump):
    state = {}
    for kind, key in (("pod", "pods"), ("node", "nodes"), ("service", "services")):
        state[kind] = {(o.get("namespace", ""), o["name"]): o.get("rv") for o in dump[key]}
    state["node"] = {k: None for k in state["node"]}
    state["job"] = {(j["namespace"], j["name"]): j["rv"] for j in dump["jobs"] if j["type"] == "tfjob"}
    state["phase"] = {(p["namespace"], p["name"]): p["phase"] for p in dump["pods"]}
    return state


def same_as_kubectl(c, tool, context=None):
    """The cache and kubectl agree (the cluster moves meanwhile: callers poll)."""
    want = kubectl_state(c, context)
    want["node"] = {k: None for k in want["node"]}
    got = cache_state(tool.dump())
    return want == got, want, got


def converge(c, tool, what, context=None, timeout=60):
    result = {}

    def check():
        ok, want, got = same_as_kubectl(c, tool, context)
        result.update(want=want, got=got)
        return ok
    try:
        wait_for(what, check, timeout=timeout, interval=0.5)
    except AssertionError:
        want, got = result["want"], result["got"]
        diff = {k: (sorted(set(want[k].items()) - set(got[k].items()))[:5],
                    sorted(set(got[k].items()) - set(want[k].items()))[:5])
                for k in want if want[k] != got[k]}
        raise AssertionError("%s: cache and kubectl differ (kubectl only, cache only): %s"
                             % (what, json.dumps(diff, default=str)))


@pytest.fixture
def cache_tool():
    """Starts k8scache serve processes; at the end each must quit cleanly (exit 0,
    no sanitizer report: make test-asan runs these tools built with ASan)."""
    started = []

    def start(*args, **kw):
        t = CacheTool(*args, **kw)
        started.append(t)
        return t
    yield start
    for t in started:
        rc, err = t.stop()
        assert rc == 0 and "Sanitizer" not in err, "k8scache exited %d: %s" % (rc, err)


def tfjob(name, namespace=None, workers=2, run_seconds=30):
    """A TFJob in namespace (by default kubectl's: the cluster's own), its
    containers running run_seconds on kubesim (SIM_*) and on kwok (KWOK_RUN)."""
    env = [{"name": "SIM_RUN_SECONDS", "value": str(run_seconds)},
           {"name": "KWOK_RUN", "value": "%ds" % run_seconds}]
    tpl = {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                                    "command": ["python", "train.py"], "env": env}]}}
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": meta,
            "spec": {"tfReplicaSpecs": {"Worker": {"replicas": workers, "restartPolicy": "Never",
                                                   "template": tpl}}}}


def create(c, obj, context=None):
    c.kubectl("create", "-f", "-", "--validate=false", input=json.dumps(obj), context=context)


# ---- kubesim's request log (GET /_sim/requests, docs/kubesim.md) ----

def sim_requests(c, since=0):
    """arenafs's requests (by User-Agent: kubectl's are left out) in kubesim's log
    after number `since`, oldest first; each entry as kubesim logs it plus "path",
    "query" (a dict) and "watch" (bool)."""
    out = []
    for e in c._control("GET", "/_sim/requests?since=%d" % since)["requests"]:
        if not e["agent"].startswith("arenafs/"):
            continue
        u = urllib.parse.urlsplit(e["request"].partition(" ")[2])
        e["path"] = u.path
        e["query"] = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        e["watch"] = e["query"].get("watch") == "true"
        out.append(e)
    return out


def sim_answers(c, pattern, since=0):
    """The statuses kubesim answered the requests whose line ("METHOD PATH?QUERY")
    matches the regex pattern, oldest first; None: not answered yet."""
    return [e["status"] for e in sim_requests(c, since) if re.search(pattern, e["request"])]


def last_request(c):
    """The number of the newest request in kubesim's log (for sim_requests' since)."""
    return c._control("GET", "/_sim/requests?since=%d" % (1 << 62))["last"]


def brief(entries):
    """Entries in a few words, for failure messages."""
    return ["%d %s %s%s -> %s rv=%s%s" % (e["n"], e["path"], "watch " if e["watch"] else "",
                                         {k: v for k, v in e["query"].items()
                                          if k in ("resourceVersion", "limit", "continue")},
                                         e["status"], e.get("rv"),
                                         (" end=%s" % e["end"] if "end" in e else "") +
                                         (" error=%s" % e["error"] if "error" in e else ""))
            for e in entries]


def list_counts(c):
    """kubesim's /_sim/stats counts of list requests: {"list pods": n, ...}."""
    return {k: v for k, v in c.stats()["requests"].items() if k.startswith("list ")}
