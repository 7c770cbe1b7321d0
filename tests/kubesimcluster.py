"""A kubesim cluster as the tests drive it: Cluster starts tests/kubesim/kubesim
(or $ARENAFS_KUBESIM) in a directory and offers its kubeconfig, kubectl, raw
API requests, fault injection and statistics. conftest.py's fixtures make
them; the benchmarks use the class directly; realcluster.py gives the real
cluster the same face."""

import json
import os
import shutil
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request

from helpers import read_log

HERE = os.path.dirname(os.path.abspath(__file__))
KUBESIM = os.environ.get("ARENAFS_KUBESIM", os.path.join(HERE, "kubesim", "kubesim"))
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


class Cluster:
    """A running kubesim and how to talk to it."""

    kind = "kubesim"          # realcluster.RealCluster says "real"
    namespace = "default"     # the kubeconfig's namespace

    def __init__(self, directory, args, ready_timeout=120.0):
        self.dir = str(directory)
        self.args = [str(a) for a in args]
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.dir, "kubesim.log")
        self._start(ready_timeout)

    def restart(self, down_seconds, ready_timeout=120.0):
        """Stops kubesim, waits down_seconds, starts it again in the same --dir
        (with --keep-state and a fixed --port: the same cluster at the same
        address, as a restarted kube-apiserver with its etcd)."""
        assert "--keep-state" in self.args and "--port" in self.args, self.args
        self.stop()
        time.sleep(down_seconds)
        self._start(ready_timeout)

    def _start(self, ready_timeout):
        self._log = open(self.log_path, "ab")
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

    def _ssl_for(self, context, token):
        """The TLS context of an api() request (kubesim's users are all tokens)."""
        return self._ssl()

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
            with urllib.request.urlopen(req, context=self._ssl_for(context, token),
                                        timeout=timeout) as r:
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

    def set_gpus(self, gpus, families=None, held_for=None):
        """The GPU figures kubesim's Prometheus answers (kubesim_lib/prometheus.py):
        {"NS/POD": [{"util", "memory_used_mib", "memory_total_mib"} per GPU]};
        held_for: seconds they have held (the duty cycles' maxima over a window)."""
        body = dict(gpus)
        if families is not None:
            body["families"] = list(families)
        if held_for is not None:
            body["held_for"] = held_for
        return self._control("POST", "/_sim/gpus", body)

    def python_client(self, context=None):
        """A kubernetes.client.ApiClient (python3-kubernetes) for this cluster."""
        from kubernetes import config
        return config.new_client_from_config(config_file=self.kubeconfig, context=context)

    # ---- lifetime ----

    def log(self):
        return read_log(self.log_path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
