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
import ssl
import subprocess
import time

import kubesimcluster

HERE = os.path.dirname(os.path.abspath(__file__))
UP = os.path.join(HERE, "cluster", "up")
DOWN = os.path.join(HERE, "cluster", "down")


class RealCluster(kubesimcluster.Cluster):
    """A running tests/cluster control plane in self.dir."""

    kind = "real"

    def __init__(self, directory, nodes=4, gpus=8):  # noqa: super().__init__ starts kubesim
        self.dir = str(directory)
        self.args = ["--nodes", str(nodes), "--gpus", str(gpus)]
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

    def component_log(self, name):
        try:
            with open(os.path.join(self.dir, "logs", name + ".log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        subprocess.run([DOWN, self.dir], timeout=120)

    def namespaced(self, namespace):
        """The same cluster seen through a kubeconfig whose contexts all name
        namespace (created if missing): kubectl and a mount default to it."""
        view = object.__new__(NamespacedView)
        view.__dict__.update(self.__dict__)
        view.namespace = namespace
        view._config = None
        if self.kubectl("get", "namespace", namespace, check=False).returncode != 0:
            self.kubectl("create", "namespace", namespace)
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


def cluster_params():
    """The clusters a test that means the same on both runs on, as ARENAFS_CLUSTER says."""
    choice = os.environ.get("ARENAFS_CLUSTER", "both")
    return ["kubesim", "real"] if choice == "both" else [choice]


def module_view(request):
    """For a module-scoped fixture: the session's real cluster seen through a
    namespace of the module's own, deleted when the module ends."""
    real = request.getfixturevalue("real_cluster")
    ns = "m-" + request.module.__name__.split(".")[-1].replace("_", "-")[:40]
    ns += "-%d" % (int(time.time() * 1000) % 100000)
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
