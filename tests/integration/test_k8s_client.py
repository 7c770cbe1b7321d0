"""The C client (k8s/http/client.c, creds.c, kubeconfig.c, api.c) against kubesim over TLS
and against the real cluster, through build/tools/k8sget: credentials of every kind,
the API server's errors as a user sees them (errno name + message), retries,
deadlines and outages (these three by kubesim's fault injection, on kubesim only).

kubesim is started here by its command-line interface (tests/kubesim/kubesim --dir D
--tls --port 0), which writes D/kubeconfig, D/url and D/ready; $ARENAFS_KUBESIM names
another executable with the same interface. The real cluster is the session's
(tests/realcluster.py), seen through a namespace of this module's own.
"""
import base64
import json
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import tempfile
import time
import urllib.request

import pytest
import yaml

import realcluster
from helpers import wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))
K8SGET = os.path.join(TOOLS, "k8sget")
KUBESIM = os.environ.get("ARENAFS_KUBESIM", os.path.join(ROOT, "tests", "kubesim", "kubesim"))
PLUGIN = os.path.join(ROOT, "tests", "fixtures", "kubeconfig", "plugins", "exec-token-file.sh")

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(K8SGET), reason="build/tools/k8sget not built (make unit)"),
]


class Sim:
    """A kubesim --tls process and what it wrote."""

    kind = "kubesim"

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="arenafs-k8sclient-")
        self.proc = subprocess.Popen([KUBESIM, "--dir", self.dir, "--port", "0", "--tls",
                                      "--nodes", "2", "--gpus", "4"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(self.dir, "ready")):
            if self.proc.poll() is not None:
                raise RuntimeError("kubesim exited: " + self.proc.stderr.read().decode())
            if time.time() > deadline:
                raise RuntimeError("kubesim did not get ready")
            time.sleep(0.05)
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig) as f:
            self.config = yaml.safe_load(f)
        with open(os.path.join(self.dir, "url")) as f:
            self.url = f.read().strip()

    def token_context(self):
        """The name of a context whose user is a token (the current one first)."""
        names = [self.config["current-context"]] + [c["name"] for c in self.config["contexts"]]
        return next(n for n in names if "token" in self.user_of(n))

    def user_of(self, context):
        ctx = next(c["context"] for c in self.config["contexts"] if c["name"] == context)
        return next(u["user"] for u in self.config["users"] if u["name"] == ctx["user"])

    def cluster(self):
        ctx_name = self.config["current-context"]
        ctx = next(c["context"] for c in self.config["contexts"] if c["name"] == ctx_name)
        return next(c["cluster"] for c in self.config["clusters"] if c["name"] == ctx["cluster"])

    def cert_kubeconfig(self):
        """A kubeconfig whose current context uses kubesim's client-certificate user."""
        name = next((u["name"] for u in self.config["users"]
                     if "client-certificate" in u["user"] or "client-certificate-data" in u["user"]),
                    None)
        assert name, "kubesim --tls writes a client-certificate user"

        def use_cert_user(cfg):
            ctx = next(c["context"] for c in cfg["contexts"] if c["name"] == cfg["current-context"])
            ctx["user"] = name
        return self.write_config("cert-user.yaml", use_cert_user)

    def ca_pem(self):
        cl = self.cluster()
        if "certificate-authority-data" in cl:
            return base64.b64decode(cl["certificate-authority-data"])
        path = cl["certificate-authority"]
        if not os.path.isabs(path):
            path = os.path.join(self.dir, path)
        with open(path, "rb") as f:
            return f.read()

    def fault(self, **kw):
        ctx = ssl.create_default_context(cadata=self.ca_pem().decode())
        req = urllib.request.Request(self.url + "/_sim/fault", data=json.dumps(kw).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            r.read()

    def write_config(self, name, mutate):
        cfg = json.loads(json.dumps(self.config))
        mutate(cfg)
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            yaml.safe_dump(cfg, f)
        return path

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class RealSim(Sim):
    """The real cluster with Sim's face: its admin is a client certificate, its
    token user the viewer (who may read namespace default only)."""

    kind = "real"

    def __init__(self, view):      # noqa: Sim.__init__ starts kubesim
        self.dir = tempfile.mkdtemp(prefix="arenafs-k8sclient-real-")
        self.kubeconfig = view.kubeconfig
        with open(self.kubeconfig) as f:
            self.config = yaml.safe_load(f)
        self.url = view.url

    def fault(self, **kw):
        raise AssertionError("fault injection is kubesim's: this test belongs on kubesim")

    def stop(self):
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def sim(request):
    s = RealSim(realcluster.module_view(request)) if request.param == "real" else Sim()
    yield s
    s.stop()


# for the tests that need kubesim's fault injection
on_kubesim = pytest.mark.parametrize("sim", ["kubesim"], indirect=True)


def k8sget(kubeconfig, *args, env=None, wrap=None, timeout=60):
    cmd = [K8SGET, f"kubeconfig={kubeconfig}", *args]
    if wrap:
        cmd = wrap + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def ok(out):
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_token_user_over_tls_with_the_clusters_ca(sim):
    body = json.loads(ok(k8sget(sim.kubeconfig, "context=" + sim.token_context(),
                                "get", "/api/v1/namespaces/default/pods")))
    assert body["kind"] == "PodList"
    assert isinstance(body["items"], list)


def test_wrong_ca_fails_verification(sim, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                    "-days", "1", "-subj", "/CN=wrong-ca"], cwd=wrong, check=True,
                   capture_output=True)
    ca = base64.b64encode((wrong / "ca.crt").read_bytes()).decode()

    def use_wrong_ca(cfg):
        for c in cfg["clusters"]:
            c["cluster"].pop("certificate-authority", None)
            c["cluster"]["certificate-authority-data"] = ca

    out = k8sget(sim.write_config("wrong-ca.yaml", use_wrong_ca), "get", "/api/v1/namespaces")
    assert out.returncode == 1
    assert out.stderr.startswith("error: EIO: cannot reach https://"), out.stderr
    assert "certificate" in out.stderr


def test_client_certificate_user(sim):
    body = json.loads(ok(k8sget(sim.cert_kubeconfig(), "get", "/api/v1/namespaces")))
    assert body["kind"] == "NamespaceList"


def test_viewer_forbidden_is_eacces_with_the_servers_message(sim, tmp_path):
    cm = tmp_path / "cm.json"
    cm.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "viewer-cannot"}, "data": {"a": "b"}}))
    out = k8sget(sim.kubeconfig, "context=viewer", "create", str(cm))
    assert out.returncode == 1
    assert out.stderr.startswith("error: EACCES: configmaps is forbidden: User "), out.stderr
    assert 'cannot create resource "configmaps"' in out.stderr
    # reading is allowed
    ok(k8sget(sim.kubeconfig, "context=viewer", "get", "/api/v1/namespaces/default/configmaps"))


def test_not_found_conflict_and_invalid_messages(sim, tmp_path):
    out = k8sget(sim.kubeconfig, "getobj", "v1", "Pod", "no-such-pod")
    assert out.returncode == 1
    assert out.stderr == 'error: ENOENT: pods "no-such-pod" not found\n'

    cm = tmp_path / "cm.json"
    cm.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "twice"}, "data": {"a": "b"}}))
    created = json.loads(ok(k8sget(sim.kubeconfig, "create", str(cm))))
    assert created["metadata"]["uid"]
    out = k8sget(sim.kubeconfig, "create", str(cm))
    assert out.returncode == 1
    assert out.stderr == 'error: EEXIST: configmaps "twice" already exists\n'

    job = tmp_path / "job.json"
    job.write_text(json.dumps({
        "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "Bad_Name"},
        "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {
            "containers": [{"name": "tensorflow", "image": "busybox"}]}}}}}}))
    out = k8sget(sim.kubeconfig, "create", str(job), "dry-run")
    assert out.returncode == 1
    assert out.stderr.startswith('error: EINVAL: TFJob.kubeflow.org "Bad_Name" is invalid: '), out.stderr


def test_dry_run_create_stores_nothing_and_delete_removes(sim, tmp_path):
    cm = tmp_path / "cm.json"
    cm.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "dry-then-real"}}))
    ok(k8sget(sim.kubeconfig, "create", str(cm), "dry-run"))
    assert k8sget(sim.kubeconfig, "getobj", "v1", "ConfigMap", "dry-then-real").returncode == 1
    ok(k8sget(sim.kubeconfig, "create", str(cm)))
    ok(k8sget(sim.kubeconfig, "getobj", "v1", "ConfigMap", "dry-then-real"))
    assert ok(k8sget(sim.kubeconfig, "delete", "v1", "ConfigMap", "dry-then-real",
                     "Foreground")) == "deleted\n"
    # Foreground: on the real cluster the object stays, with a finalizer, until the
    # garbage collector has seen it (kubesim removes it at once)
    def gone():
        r = k8sget(sim.kubeconfig, "getobj", "v1", "ConfigMap", "dry-then-real")
        return r if r.returncode == 1 else None
    out = wait_until(gone, timeout=30, interval=0.2, message="the ConfigMap to be gone")
    assert out.stderr == 'error: ENOENT: configmaps "dry-then-real" not found\n'


def test_discovery_lists_the_kubeflow_kinds(sim):
    served = ok(k8sget(sim.kubeconfig, "discover")).split("\n")
    assert "tfjobs kubeflow.org/v1" in served
    assert "pytorchjobs kubeflow.org/v1" in served


@on_kubesim
def test_retries_across_503s(sim):
    sim.fault(fail_next=2, code=503)
    out = k8sget(sim.kubeconfig, "stats=1", "get", "/api/v1/namespaces/default/pods")
    assert out.returncode == 0, out.stderr
    assert "retries=2 " in out.stderr, out.stderr


@on_kubesim
def test_deadline_gives_etimedout(sim):
    sim.fault(delay_ms=3000)
    try:
        out = k8sget(sim.kubeconfig, "timeout=700", "get", "/api/v1/namespaces/default/pods")
    finally:
        sim.fault(delay_ms=0)
    assert out.returncode == 1
    assert out.stderr.startswith("error: ETIMEDOUT: "), out.stderr


@on_kubesim
def test_connection_refused_during_an_outage_is_eio_then_recovers(sim):
    sim.fault(down_seconds=3)
    out = k8sget(sim.kubeconfig, "timeout=800", "get", "/api/v1/namespaces")
    assert out.returncode == 1
    assert out.stderr == f"error: EIO: cannot reach {sim.cluster()['server']}: Connection refused\n"
    # with a deadline longer than the outage, the retries carry the request through it
    out = k8sget(sim.kubeconfig, "timeout=20000", "stats=1", "get", "/api/v1/namespaces")
    assert out.returncode == 0, out.stderr


# what every token user may read (the real cluster's viewer: namespace default)
READABLE = "/api/v1/namespaces/default/pods"


def exec_config(sim, name, count_file):
    """A kubeconfig whose current user runs the plugin, which answers the token
    of the token user (kubesim's admin, the real cluster's viewer)."""
    token = sim.user_of(sim.token_context())["token"]

    def use_plugin(cfg):
        ctx = next(c["context"] for c in cfg["contexts"] if c["name"] == cfg["current-context"])
        user = next(u for u in cfg["users"] if u["name"] == ctx["user"])
        user["user"] = {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "command": PLUGIN,
            "interactiveMode": "Never",
            "env": [{"name": "EXEC_GOOD_TOKEN", "value": token},
                    {"name": "EXEC_COUNT_FILE", "value": str(count_file)}]}}
    return sim.write_config(name, use_plugin)


def test_exec_plugin_token_is_cached_until_expiry(sim, tmp_path):
    count = tmp_path / "count"
    cfg = exec_config(sim, "exec-cached.yaml", count)
    ok(k8sget(cfg, "repeat=3", "get", READABLE, env={"EXEC_EXPIRY_OFFSET": "3600"}))
    assert count.read_text() == "1\n"
    count.unlink()
    # an expiry one second ahead: the second request, 2.5 s later, needs a new run
    ok(k8sget(cfg, "repeat=2", "interval=2500", "get", READABLE,
              env={"EXEC_EXPIRY_OFFSET": "1"}))
    assert count.read_text() == "2\n"


def test_exec_plugin_reruns_after_a_401(sim, tmp_path):
    count = tmp_path / "count"
    cfg = exec_config(sim, "exec-401.yaml", count)
    # the first run answers a token the server rejects
    out = k8sget(cfg, "stats=1", "get", READABLE,
                 env={"EXEC_EXPIRY_OFFSET": "3600", "EXEC_BAD_FIRST": "1"})
    assert out.returncode == 0, out.stderr
    assert count.read_text() == "2\n"


def test_watch_stream_ends_cleanly_at_its_timeout(sim):
    out = k8sget(sim.kubeconfig, "stream",
                 "/api/v1/nodes?watch=true&timeoutSeconds=1&allowWatchBookmarks=true")
    assert out.returncode == 0, out.stderr
    assert "http_status=200" in out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines() if line]
    assert [e["type"] for e in events if e["type"] == "ADDED"], out.stdout


def test_no_temp_files_with_certificate_data(sim, tmp_path):
    if shutil.which("strace") is None:
        pytest.skip("strace is needed to watch file creation")
    cfg = sim.cert_kubeconfig()
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    trace = tmp_path / "trace"
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    out = k8sget(cfg, "get", "/api/v1/namespaces",
                 env={"TMPDIR": str(tmpdir), "ASAN_OPTIONS": asan},
                 wrap=["strace", "-f", "-qq", "-e", "trace=open,openat,creat", "-o", str(trace)])
    assert out.returncode == 0, out.stderr
    assert list(tmpdir.iterdir()) == []
    written = [line for line in trace.read_text().splitlines()
               if "O_CREAT" in line or "O_WRONLY" in line or "O_RDWR" in line or "creat(" in line]
    assert written == [], written


@on_kubesim
def test_request_latency_against_kubesim(sim):
    """Records numbers for docs/k8s-client.md; asserts only that all requests worked."""
    out = k8sget(sim.kubeconfig, "latency=1", "stats=1", "repeat=50", "get",
                 "/api/v1/namespaces/default/pods?limit=500")
    assert out.returncode == 0, out.stderr
    lat = [int(l.split("=")[1]) for l in out.stderr.splitlines() if l.startswith("latency_ms=")]
    assert len(lat) == 50
    print(f"\nkubesim TLS GET pods: first {lat[0]} ms, median {statistics.median(lat[1:])} ms, "
          f"max {max(lat[1:])} ms; {out.stderr.splitlines()[-1]}")
