"""The real test cluster (tests/cluster/up) seen from pytest, with the interface
of conftest.Cluster where a real cluster can offer it: kubeconfig, url,
kubectl(), kubectl_json(), api(), token(), config(), python_client().
What only kubesim can do (fault(), stats(), pre-made jobs) is absent: a test
that needs it runs on kubesim.

One real cluster serves a whole pytest session (it takes tens of seconds to
start); tests give their jobs unique names and delete them. If it cannot
start, the tests that need it fail with up's message: never a silent skip.
"""

import json
import os
import re
import ssl
import subprocess
import time

import pytest

import kubesimcluster

HERE = os.path.dirname(os.path.abspath(__file__))
UP = os.path.join(HERE, "cluster", "up")
DOWN = os.path.join(HERE, "cluster", "down")


# Set by tests/conftest.py for each test: "1" when it counts as a real-cluster test.
TEST_NEEDS_REAL = "ARENAFS_TEST_NEEDS_REAL"


class RealCluster(kubesimcluster.Cluster):
    """A running tests/cluster control plane in self.dir."""

    kind = "real"

    def __init__(self, directory, nodes=4, gpus=8, event_ttl=None, mpi="v1"):  # noqa: no kubesim
        """event_ttl: kube-apiserver's --event-ttl ("2m"); None: its default, 1h.
        mpi: who serves MPIJob, "v1" (the training-operator) or "v2beta1"
        (the MPI operator: up's --mpi profile)."""
        if os.environ.get(TEST_NEEDS_REAL) == "0":
            # tests/conftest.py runs the real tests on one worker, after the build
            raise RuntimeError("a test not counted as a real-cluster test started a real "
                               "cluster: name real_cluster among its fixtures, or mark it "
                               "own_real_cluster (tests/conftest.py)")
        self.dir = str(directory)
        self.args = ["--nodes", str(nodes), "--gpus", str(gpus), "--mpi", mpi]
        if event_ttl:
            self.args += ["--event-ttl", event_ttl]
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.dir, "up.log")
        with open(self.log_path, "wb") as log:
            r = subprocess.run([UP, self.dir] + self.args, stdout=log, stderr=subprocess.STDOUT,
                               timeout=3600)
        if r.returncode != 0:
            raise RuntimeError("tests/cluster/up failed (%d):\n%s" % (r.returncode, self.log()))
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(os.path.join(self.dir, "url")) as f:
            self.url = f.read().strip()
        self.tls = True
        self.ca_file = os.path.join(self.dir, "pki", "ca.crt")
        self.cache_dir = os.path.join(self.dir, "kubectl-cache")
        self._config = None

    def _ssl(self, context=None):
        ctx = ssl.create_default_context(cafile=self.ca_file)
        if (context or self.config()["current-context"]) == "admin":
            pki = os.path.join(self.dir, "pki")
            ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        return ctx

    def _ssl_for(self, context, token):
        """api() authenticates the admin by its client certificate; a token given
        to api() is the only credential, and token="" sends none at all (and no
        client certificate): the anonymous user."""
        if token is not None:
            return ssl.create_default_context(cafile=self.ca_file)
        return self._ssl(context)

    def fault(self, **body):
        raise AssertionError("fault injection is kubesim's: this test belongs on kubesim")

    def stats(self):
        raise AssertionError("request statistics are kubesim's: this test belongs on kubesim")

    def stop(self):
        subprocess.run([DOWN, self.dir], timeout=120)

    def restart_apiserver(self, down_seconds):
        """kube-apiserver stopped for down_seconds and started again, etcd and
        every other component running on (tests/cluster/cluster.py)."""
        import sys
        sys.path.insert(0, os.path.join(HERE, "cluster"))
        import cluster
        cluster.restart_apiserver(self.dir, down_seconds)

    def compact_etcd(self):
        """etcd's history forgotten up to now (tests/cluster/cluster.py); the revision."""
        import sys
        sys.path.insert(0, os.path.join(HERE, "cluster"))
        import cluster
        return cluster.compact_etcd(self.dir)

    def fresh_namespace(self, base):
        """Creates a namespace of a name made from base (a test's or a module's)
        that no earlier one took; returns the name."""
        name = re.sub(r"[^a-z0-9-]", "-", base.lower())[:50].rstrip("-")
        name += "-%d" % (int(time.time() * 1000) % 100000)
        self.kubectl("create", "namespace", name)
        return name

    def namespaced(self, namespace):
        """The same cluster seen through a kubeconfig whose contexts all name
        namespace (made by fresh_namespace): kubectl and a mount default to it."""
        view = object.__new__(NamespacedView)
        view.__dict__.update(self.__dict__)
        view.namespace = namespace
        view._config = None
        cfg = json.loads(json.dumps(self.config()))
        for ctx in cfg["contexts"]:
            ctx["context"]["namespace"] = namespace
        view.kubeconfig = os.path.join(self.dir, "kubeconfig-" + namespace)
        fd = os.open(view.kubeconfig, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(cfg, f)
        return view


class NamespacedView(RealCluster):
    """RealCluster.namespaced's result; stopping it stops nothing."""

    def stop(self):
        pass


# ARENAFS_CLUSTER chooses where the tests that run on both clusters run:
# "kubesim", "real", or "both" (the default; `make test` runs both).
CLUSTER_CHOICE = os.environ.get("ARENAFS_CLUSTER", "both")
if CLUSTER_CHOICE not in ("kubesim", "real", "both"):
    raise RuntimeError("ARENAFS_CLUSTER=%r: expected kubesim, real or both" % CLUSTER_CHOICE)


def cluster_params():
    """The clusters a test that means the same on both runs on, as ARENAFS_CLUSTER says."""
    return ["kubesim", "real"] if CLUSTER_CHOICE == "both" else [CLUSTER_CHOICE]


def later_binary(name, what):
    """The path of an upstream binary built after the cluster's (LATER_BINARIES of
    tests/cluster/cluster.py: Arena, kueuectl, the MPI operator), built now or
    waited for while the session's background build makes it. One that cannot
    be built fails the test, naming what (the Arena CLI)."""
    import sys
    sys.path.insert(0, os.path.join(HERE, "cluster"))
    import cluster
    try:
        cluster.build([name])
    except cluster.ClusterError as e:
        pytest.fail("%s could not be built: %s" % (what, e), pytrace=False)
    return cluster.binary_path(name)


class Monitoring:
    """Prometheus and the stand-in GPU exporter beside a real cluster
    (tests/cluster/monitoring.py): set_gpus() the values the exporter serves,
    query() Prometheus through kube-apiserver's service proxy as Arena does."""

    def __init__(self, real):
        later_binary("prometheus", "Prometheus")
        self.real = real
        self.mod = _cluster_module("monitoring")
        self.mod.start(real.dir)

    def set_gpus(self, values):
        """{"NAMESPACE/POD": {"util": %, "memory_used_mib": n} or a list, one per GPU}."""
        self.mod.set_gpus(self.real.dir, values)

    def query(self, promql):
        """The result vector of an instant query: [{"metric": {...}, "value": [t, "v"]}]."""
        reply = json.loads(self.real.kubectl("get", "--raw", self.mod.query_path(promql)).stdout)
        assert reply["status"] == "success", reply
        return reply["data"]["result"]

    def stop(self):
        self.mod.stop(self.real.dir)


def _cluster_module(name):
    """A module of tests/cluster (cluster, monitoring, ...), imported."""
    import importlib
    import sys
    sys.path.insert(0, os.path.join(HERE, "cluster"))
    return importlib.import_module(name)


def module_view(request):
    """For a module-scoped fixture: the session's real cluster seen through a
    namespace of the module's own, deleted when the module ends."""
    real = request.getfixturevalue("real_cluster")
    ns = real.fresh_namespace("m-" + request.module.__name__.split(".")[-1][:40])
    view = real.namespaced(ns)
    request.addfinalizer(lambda: real.kubectl("delete", "namespace", ns, "--wait=false",
                                              check=False))
    return view


def module_cluster(request, kubesim_module, *kubesim_args):
    """For a module-scoped fixture with params=cluster_params(): the real cluster
    in a namespace of the module's own, or a kubesim started with kubesim_args."""
    if request.param == "real":
        return module_view(request)
    return kubesim_module(*kubesim_args)
