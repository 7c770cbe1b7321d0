"""Fixtures shared by every pytest suite of the project.

`kubesim` starts kubesim clusters (tests/kubesim/kubesim, or $ARENAFS_KUBESIM)
and stops them when the test ends:

    def test_x(kubesim):
        c = kubesim("--nodes", "4", "--speed", "20")
        c.kubectl("get", "pods")                 # CompletedProcess (text)
        c.kubectl_json("get", "tfjobs")          # dict
        c.api("GET", "/api/v1/nodes")            # (HTTP status, parsed body)
        c.fault(fail_next=1, code=500); c.stats()

`kubesim_module` is the same factory with module scope, for suites that
share one cluster. A cluster whose kubesim printed a Python traceback
fails the test at teardown (a controller or handler bug).
"""

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

KUBESIM = os.environ.get("ARENAFS_KUBESIM", os.path.join(HERE, "kubesim", "kubesim"))
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


class Cluster:
    """A running kubesim and how to talk to it."""

    def __init__(self, directory, args, ready_timeout=120.0):
        self.dir = str(directory)
        self.args = [str(a) for a in args]
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.dir, "kubesim.log")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([KUBESIM, "--dir", self.dir] + self.args,
                                     stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + ready_timeout
        while not os.path.exists(os.path.join(self.dir, "ready")):
            if self.proc.poll() is not None:
                raise RuntimeError("kubesim exited with %s:\n%s" % (self.proc.returncode,
                                                                     self.log()))
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("kubesim did not get ready:\n" + self.log())
            time.sleep(0.05)
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(os.path.join(self.dir, "url")) as f:
            self.url = f.read().strip()
        self.tls = self.url.startswith("https:")
        self.ca_file = os.path.join(self.dir, "pki", "ca.crt") if self.tls else None
        self.cache_dir = os.path.join(self.dir, "kubectl-cache")
        self._config = None

    # ---- the kubeconfig ----

    def config(self):
        """The kubeconfig as a dict (PyYAML)."""
        if self._config is None:
            import yaml
            with open(self.kubeconfig) as f:
                self._config = yaml.safe_load(f)
        return self._config

    def user(self, context=None):
        cfg = self.config()
        ctx = next(c["context"] for c in cfg["contexts"]
                   if c["name"] == (context or cfg["current-context"]))
        return next(u["user"] for u in cfg["users"] if u["name"] == ctx["user"])

    def token(self, context=None):
        return self.user(context).get("token")

    def cert_context(self):
        """The name of the context whose user has a client certificate (--tls)."""
        cfg = self.config()
        users = {u["name"] for u in cfg["users"] if "client-certificate-data" in u["user"]}
        return next(c["name"] for c in cfg["contexts"] if c["context"]["user"] in users)

    # ---- clients ----

    def kubectl(self, *args, context=None, check=True, timeout=60, input=None):
        cmd = [KUBECTL, "--kubeconfig", self.kubeconfig, "--cache-dir", self.cache_dir]
        if context:
            cmd += ["--context", context]
        cmd += [str(a) for a in args]
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        env["HOME"] = self.dir
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input,
                           env=env)
        if check and r.returncode != 0:
            raise AssertionError("%s failed (%d):\nstdout: %s\nstderr: %s"
                                 % (" ".join(cmd[5:]), r.returncode, r.stdout, r.stderr))
        return r

    def kubectl_json(self, *args, context=None):
        return json.loads(self.kubectl(*args, "-o", "json", context=context).stdout)

    def _ssl(self):
        return ssl.create_default_context(cafile=self.ca_file) if self.tls else None

    def api(self, method, path, body=None, context=None, token=None, headers=None,
            timeout=30):
        """(status, parsed JSON body or text) of one raw API request, with
        the context's token unless token= is given ("" = none)."""
        hdrs = {"Accept": "application/json"}
        tok = self.token(context) if token is None else token
        if tok:
            hdrs["Authorization"] = "Bearer " + tok
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        req = urllib.request.Request(self.url + path, data=data, headers=hdrs, method=method)
        try:
            with urllib.request.urlopen(req, context=self._ssl(), timeout=timeout) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def _control(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self._ssl(), timeout=30) as r:
            return json.loads(r.read())

    def fault(self, **body):
        return self._control("POST", "/_sim/fault", body)

    def stats(self):
        return self._control("GET", "/_sim/stats")

    def python_client(self, context=None):
        """A kubernetes.client.ApiClient (python3-kubernetes) for this cluster."""
        from kubernetes import config
        return config.new_client_from_config(config_file=self.kubeconfig, context=context)

    # ---- lifetime ----

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def _factory(base_dir):
    clusters = []
    seq = [0]

    def start(*args, ready_timeout=120.0, **kw):
        seq[0] += 1
        extra = []
        for k, v in kw.items():
            flag = "--" + k.replace("_", "-")
            if v is True:
                extra.append(flag)
            elif v not in (False, None):
                extra += [flag, str(v)]
        c = Cluster(os.path.join(str(base_dir), "kubesim-%d" % seq[0]), list(args) + extra,
                    ready_timeout)
        clusters.append(c)
        return c
    return start, clusters


def _teardown(clusters):
    broken = []
    for c in clusters:
        c.stop()
        if "Traceback (most recent call last)" in c.log():
            broken.append(c.log())
    if broken:
        pytest.fail("kubesim printed a traceback:\n" + "\n".join(broken), pytrace=False)


@pytest.fixture
def kubesim(tmp_path):
    """Factory: kubesim(*cli_args, **flags) -> Cluster; stopped at test end."""
    start, clusters = _factory(tmp_path)
    yield start
    _teardown(clusters)


@pytest.fixture(scope="module")
def kubesim_module():
    """As kubesim, shared by a module's tests."""
    d = tempfile.mkdtemp(prefix="kubesim-")
    start, clusters = _factory(d)
    yield start
    _teardown(clusters)
    shutil.rmtree(d, ignore_errors=True)


# ---- the real cluster (tests/cluster/) ----

# ARENAFS_CLUSTER chooses where the tests that run on both clusters run:
# "kubesim", "real", or "both" (the default; `make test` runs both).
CLUSTER_CHOICE = os.environ.get("ARENAFS_CLUSTER", "both")
if CLUSTER_CHOICE not in ("kubesim", "real", "both"):
    raise RuntimeError("ARENAFS_CLUSTER=%r: expected kubesim, real or both" % CLUSTER_CHOICE)

_real = {}


@pytest.fixture(scope="session")
def real_cluster():
    """The session's one real cluster (tests/cluster/up), started on first use.
    A cluster that cannot start fails every test that needs it, with up's log."""
    if "error" in _real:
        pytest.fail(_real["error"], pytrace=False)
    if "cluster" not in _real:
        import realcluster
        d = tempfile.mkdtemp(prefix="arenafs-real-")
        try:
            _real["cluster"] = realcluster.RealCluster(d)
        except Exception as e:  # noqa: every failure to start is reported the same way
            _real["error"] = "the real cluster did not start: %s" % e
            subprocess.run([realcluster.DOWN, d], timeout=120)
            pytest.fail(_real["error"], pytrace=False)
    yield _real["cluster"]


def pytest_sessionfinish(session, exitstatus):
    c = _real.pop("cluster", None)
    if c is not None:
        c.stop()
        shutil.rmtree(c.dir, ignore_errors=True)


def _cluster_params():
    return ["kubesim", "real"] if CLUSTER_CHOICE == "both" else [CLUSTER_CHOICE]


@pytest.fixture(params=_cluster_params())
def any_cluster(request, kubesim):
    """A cluster for a test that means the same on both: a new kubesim with two
    8-GPU nodes, or the session's real cluster (four 8-GPU kwok nodes) seen
    through a fresh namespace of the test's own (kubectl and a mount of this
    cluster default to it; c.namespace names it)."""
    if request.param == "real":
        real = request.getfixturevalue("real_cluster")
        return real.namespaced(request.getfixturevalue("real_namespace"))
    c = kubesim("--nodes", "2", "--gpus", "8")
    c.kind = "kubesim"
    c.namespace = "default"
    return c


@pytest.fixture
def real_namespace(real_cluster, request):
    """A fresh namespace of the real cluster for one test, deleted after it
    (with everything in it) so that tests sharing the cluster never meet."""
    import re as _re
    name = ("t-" + _re.sub(r"[^a-z0-9-]", "-", request.node.name.lower()))[:50].rstrip("-")
    name += "-%d" % (int(time.time() * 1000) % 100000)
    real_cluster.kubectl("create", "namespace", name)
    yield name
    real_cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)
