"""The C client's TLS and HTTP/2 behaviour, through build/tools/k8sget, against a small
node TLS server (h2server.js): kubesim is Python's http.server and speaks HTTP/1.1 only,
so HTTP/2 negotiation and multiplexing are checked here. Certificates are generated for
each run with openssl; nothing secret is committed.

Skipped when node or openssl is missing.
"""
import base64
import json
import os
import shutil
import subprocess
import time

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))
K8SGET = os.path.join(TOOLS, "k8sget")

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is needed for the HTTP/2 server"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificates"),
    pytest.mark.skipif(not os.path.exists(K8SGET), reason="build/tools/k8sget not built (make unit)"),
]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN={name}",
            cwd=d)


def make_cert(d, name, ca, subject, ext):
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=d)
    with open(os.path.join(d, f"{name}.ext"), "w") as f:
        f.write(ext + "\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=d)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("certs"))
    make_ca(d, "test-ca")
    make_ca(d, "wrong-ca")
    make_cert(d, "server-ip", "test-ca", "/CN=kube-apiserver",
              "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
    make_cert(d, "server-dns", "test-ca", "/CN=kube-apiserver",
              "subjectAltName=DNS:kubernetes.test\nextendedKeyUsage=serverAuth")
    make_cert(d, "alice", "test-ca", "/CN=alice/O=team-a", "extendedKeyUsage=clientAuth")
    return d


class Server:
    def __init__(self, certs, cert, http1=False):
        cmd = ["node", os.path.join(HERE, "h2server.js"), "--cert", f"{certs}/{cert}.crt",
               "--key", f"{certs}/{cert}.key", "--ca", f"{certs}/test-ca.crt"]
        if http1:
            cmd.append("--http1")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("PORT "), line
        self.port = int(line.split()[1])

    def stats(self, certs):
        out = k8sget(kubeconfig(certs, self.port, ca="test-ca"), "get", "/stats")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def h2(certs):
    s = Server(certs, "server-ip")
    yield s
    s.stop()


def kubeconfig(certs, port, ca=None, ca_data=False, insecure=False, tls_server_name=None,
               user=None, host="127.0.0.1"):
    cluster = {"server": f"https://{host}:{port}"}
    if ca and ca_data:
        with open(f"{certs}/{ca}.crt", "rb") as f:
            cluster["certificate-authority-data"] = base64.b64encode(f.read()).decode()
    elif ca:
        cluster["certificate-authority"] = f"{ca}.crt"  # relative to the kubeconfig's folder
    if insecure:
        cluster["insecure-skip-tls-verify"] = True
    if tls_server_name:
        cluster["tls-server-name"] = tls_server_name
    cfg = {
        "apiVersion": "v1", "kind": "Config", "current-context": "test",
        "clusters": [{"name": "test", "cluster": cluster}],
        "users": [{"name": "test", "user": user or {"token": "not-a-real-token"}}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
    }
    path = os.path.join(certs, f"kubeconfig-{port}-{abs(hash(json.dumps(cfg, sort_keys=True)))}")
    with open(path, "w") as f:
        yaml.safe_dump(cfg, f)
    return path


def k8sget(config, *args, env=None, wrap=None):
    cmd = [K8SGET, f"kubeconfig={config}", "timeout=10000", *args]
    if wrap:
        cmd = wrap + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def test_tls_with_the_clusters_ca_verifies_the_server(certs, h2):
    for ca_data in (False, True):
        out = k8sget(kubeconfig(certs, h2.port, ca="test-ca", ca_data=ca_data), "get", "/whoami")
        assert out.returncode == 0, out.stderr
        who = json.loads(out.stdout)
        assert who["http"] == "2.0"
        assert who["auth"] == "Bearer"
        assert who["cn"] is None


def test_tls_with_a_wrong_ca_fails(certs, h2):
    out = k8sget(kubeconfig(certs, h2.port, ca="wrong-ca"), "get", "/whoami")
    assert out.returncode == 1
    assert out.stderr.startswith(f"error: EIO: cannot reach https://127.0.0.1:{h2.port}: "), out.stderr
    assert "certificate" in out.stderr, out.stderr


def test_tls_without_a_ca_does_not_trust_the_test_ca(certs, h2):
    out = k8sget(kubeconfig(certs, h2.port), "get", "/whoami")
    assert out.returncode == 1
    assert "error: EIO: cannot reach" in out.stderr


def test_insecure_skip_tls_verify_only_when_set(certs, h2):
    out = k8sget(kubeconfig(certs, h2.port, insecure=True), "get", "/whoami")
    assert out.returncode == 0, out.stderr


def test_tls_server_name_is_sent_and_verified(certs):
    s = Server(certs, "server-dns")  # its certificate names only kubernetes.test
    try:
        out = k8sget(kubeconfig(certs, s.port, ca="test-ca"), "get", "/whoami")
        assert out.returncode == 1
        assert "127.0.0.1" in out.stderr and "certificate" in out.stderr, out.stderr
        out = k8sget(kubeconfig(certs, s.port, ca="test-ca", tls_server_name="kubernetes.test"),
                     "get", "/whoami")
        assert out.returncode == 0, out.stderr
        who = json.loads(out.stdout)
        assert who["sni"] == "kubernetes.test"
        assert who["host"] == f"127.0.0.1:{s.port}"
    finally:
        s.stop()


def test_client_certificate_from_file_and_from_data(certs, h2):
    with open(f"{certs}/alice.crt", "rb") as c, open(f"{certs}/alice.key", "rb") as k:
        data_user = {"client-certificate-data": base64.b64encode(c.read()).decode(),
                     "client-key-data": base64.b64encode(k.read()).decode()}
    file_user = {"client-certificate": "alice.crt", "client-key": "alice.key"}
    for user in (file_user, data_user):
        out = k8sget(kubeconfig(certs, h2.port, ca="test-ca", user=user), "get", "/whoami")
        assert out.returncode == 0, out.stderr
        who = json.loads(out.stdout)
        assert who["cn"] == "alice"
        assert who["auth"] is None


def test_exec_plugin_client_certificate(certs, h2):
    plugin = os.path.join(ROOT, "tests", "fixtures", "kubeconfig", "plugins", "exec-cert.sh")
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
                     "interactiveMode": "Never",
                     "env": [{"name": "EXEC_CERT_FILE", "value": f"{certs}/alice.crt"},
                             {"name": "EXEC_KEY_FILE", "value": f"{certs}/alice.key"}]}}
    out = k8sget(kubeconfig(certs, h2.port, ca="test-ca", user=user), "get", "/whoami")
    assert out.returncode == 0, out.stderr
    who = json.loads(out.stdout)
    assert who["cn"] == "alice"
    assert who["auth"] is None


def test_no_file_is_written_for_certificates_or_keys(certs, h2, tmp_path):
    if shutil.which("strace") is None:
        pytest.skip("strace is needed to watch file creation")
    with open(f"{certs}/alice.crt", "rb") as c, open(f"{certs}/alice.key", "rb") as k:
        user = {"client-certificate-data": base64.b64encode(c.read()).decode(),
                "client-key-data": base64.b64encode(k.read()).decode()}
    cfg = kubeconfig(certs, h2.port, ca="test-ca", ca_data=True, user=user)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    trace = tmp_path / "trace"
    # LeakSanitizer cannot run under ptrace: off for this run of an ASan build
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    out = k8sget(cfg, "get", "/whoami", env={"TMPDIR": str(tmpdir), "ASAN_OPTIONS": asan},
                 wrap=["strace", "-f", "-qq", "-e", "trace=open,openat,creat", "-o", str(trace)])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cn"] == "alice"
    assert list(tmpdir.iterdir()) == []
    created = [line for line in trace.read_text().splitlines()
               if "O_CREAT" in line or "O_WRONLY" in line or "O_RDWR" in line or "creat(" in line]
    assert created == [], created


def test_http2_multiplexes_streams_on_one_connection(certs, h2):
    cfg = kubeconfig(certs, h2.port, ca="test-ca")
    before = h2.stats(certs)["sessions"]
    out = k8sget(cfg, "stats=1", "streams", "8", "/watch")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count('{"type":"ADDED"') == 8
    assert "connections=1 " in out.stderr and "http=2" in out.stderr, out.stderr
    # the server agrees: one more TLS connection for all eight streams
    assert h2.stats(certs)["sessions"] - before == 2  # the streams' one, and this /stats query's


def test_many_concurrent_streams_share_one_http2_connection(certs, h2):
    out = k8sget(kubeconfig(certs, h2.port, ca="test-ca"), "stats=1", "streams", "60", "/watch")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count('{"type":"ADDED"') == 60
    assert "requests=60 connections=1 " in out.stderr, out.stderr


def test_http1_server_gets_a_connection_per_stream(certs):
    s = Server(certs, "server-ip", http1=True)
    try:
        cfg = kubeconfig(certs, s.port, ca="test-ca")
        out = k8sget(cfg, "stats=1", "streams", "4", "/watch")
        assert out.returncode == 0, out.stderr
        assert "connections=4 " in out.stderr and "http=1" in out.stderr, out.stderr
        out = k8sget(cfg, "stats=1", "repeat=5", "get", "/whoami")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.splitlines()[0])["http"] == "1.1"
        assert "requests=5 connections=1 " in out.stderr, out.stderr  # reused
    finally:
        s.stop()


def test_request_latency_is_reported(certs, h2):
    """Not a speed assertion: records the numbers for docs/k8s-client.md."""
    out = k8sget(kubeconfig(certs, h2.port, ca="test-ca"), "latency=1", "repeat=20", "get",
                 "/whoami")
    assert out.returncode == 0, out.stderr
    lat = [int(line.split("=")[1]) for line in out.stderr.splitlines() if line.startswith("latency_ms=")]
    assert len(lat) == 20
    print(f"\nHTTP/2 TLS GET latency: first {lat[0]} ms, then median {sorted(lat[1:])[9]} ms")
