"""A real Kubernetes control plane for the tests, built from upstream Go modules.

`up DIR`, `down DIR` and `bin NAME` (beside this file) are thin commands over
this module. What runs, each as a local process with its log in DIR/logs/:

    etcd  ->  kube-apiserver  <-  kube-controller-manager, kube-scheduler,
                              <-  kwok (fake GPU nodes, pod lifecycle, logs),
                              <-  training-operator (TFJob, PyTorchJob, ...)
                              <-  Trainer v2 and JobSet (TrainJob), Kueue (queues),
                                  the MPI operator (--mpi v2beta1): kubeflow.py

TLS everywhere with a CA made by openssl; RBAC on; anonymous auth left as
kube-apiserver defaults it. The binaries are built once per version into a
cache outside the repository (ARENAFS_CLUSTER_CACHE, default
~/.cache/arenafs/cluster), keyed by component, version, go.sum and the build's
recipe (its go build arguments). Kubernetes' binaries are stamped with their
release as upstream's build stamps them, so /version and `kubectl version`
say v1.37.2 (build_args). The control plane builds at more than one release,
one module each under k8s/ (k8s/1.37, k8s/1.32): ARENAFS_K8S (make K8S=)
chooses one, the newest by default (k8s_release).
Python standard library only: it runs under any python3.
"""

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# Go is no Debian package here; where the machine installs it, if PATH lacks it
GO = shutil.which("go") or "/usr/local/go/bin/go"

# name -> (module directory beside this file, Go package)
BINARIES = {
    "kube-apiserver": ("k8s", "k8s.io/kubernetes/cmd/kube-apiserver"),
    "kube-controller-manager": ("k8s", "k8s.io/kubernetes/cmd/kube-controller-manager"),
    "kube-scheduler": ("k8s", "k8s.io/kubernetes/cmd/kube-scheduler"),
    "etcd": ("etcd", "go.etcd.io/etcd/server/v3"),
    "kwok": ("kwok", "sigs.k8s.io/kwok/cmd/kwok"),
    "training-operator": ("operator",
                          "github.com/kubeflow/training-operator/cmd/training-operator.v1"),
    "jobset-controller": ("jobset", "sigs.k8s.io/jobset"),
    "trainer-controller-manager": ("kubeflow",
                                   "github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager"),
    "kueue": ("kubeflow", "sigs.k8s.io/kueue/cmd/kueue"),
    "mpi-operator": ("mpi", "github.com/kubeflow/mpi-operator/cmd/mpi-operator"),
    # the peers arenafs is compared with: Arena for jobs
    # (tests/integration/test_arena_parity.py), kueuectl for queues
    "arena": ("arena", "github.com/kubeflow/arena/cmd/arena"),
    "kueuectl": ("kubeflow", "sigs.k8s.io/kueue/cmd/kueuectl"),
    # what Arena and arenafs read GPU metrics from: started beside a running
    # cluster by monitoring.py, not by up
    "prometheus": ("prometheus", "github.com/prometheus/prometheus/cmd/prometheus"),
}
# Build tags of a binary. Prometheus without its service discovery plugins (its own
# `remove_all_sd`: static and file discovery stay, all monitoring.py's scrape uses):
# the cloud SDKs they bring (AWS, Azure, GCE, ...) were most of its build, minutes of
# a fresh machine's CI.
BUILD_TAGS = {"prometheus": "remove_all_sd"}
# What `up` does not run in its default profile (`--mpi v2beta1` runs mpi-operator
# too; monitoring.py runs Prometheus beside a running cluster)
LATER_BINARIES = ("arena", "kueuectl", "mpi-operator", "prometheus")
CLUSTER_BINARIES = [n for n in BINARIES if n not in LATER_BINARIES]
# What a full build makes, in this order: the first real test waits only for the
# cluster's binaries; the tests that need a later one run last (tests/conftest.py).
ALL_BINARIES = CLUSTER_BINARIES + list(LATER_BINARIES)

# The module whose version names a component's cache directory.
MAIN_MODULE = {
    "k8s": "k8s.io/kubernetes",
    "etcd": "go.etcd.io/etcd/server/v3",
    "kwok": "sigs.k8s.io/kwok",
    "operator": "github.com/kubeflow/training-operator",
    "arena": "github.com/kubeflow/arena",
    "kubeflow": "github.com/kubeflow/trainer/v2",
    "jobset": "sigs.k8s.io/jobset",
    "mpi": "github.com/kubeflow/mpi-operator",
    "prometheus": "github.com/prometheus/prometheus",
}


# Kinds the training-operator serves; its CRD files are named after the plurals.
OPERATOR_KINDS = ["tfjobs", "pytorchjobs", "mpijobs", "xgboostjobs", "paddlejobs", "jaxjobs"]

ADMIN_USER = "admin"
# names the operator's certificate rotator expects (pkg/cert of the operator)
WEBHOOK_CA = "training-operator-ca"
WEBHOOK_DNS = "training-operator.kubeflow.svc"
WEBHOOK_SECRET = "training-operator-webhook-cert"
WEBHOOK_CONFIG = "validator.training-operator.kubeflow.org"
WEBHOOK_CERT_DIR = "/tmp/k8s-webhook-server/serving-certs"
VIEWER_SA = "viewer"
READER_SA = "reader"


class ClusterError(Exception):
    """up failed: the message says which component and shows its log's end."""


def log(msg):
    print("cluster: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- building

def cache_root():
    """Where the built binaries are kept (ARENAFS_CLUSTER_CACHE, or the machine's)."""
    return os.environ.get("ARENAFS_CLUSTER_CACHE") or machine_cache_root()


def machine_cache_root():
    """The machine's cache, whatever ARENAFS_CLUSTER_CACHE says: where `up`'s lock
    lives, since the ports it guards are the machine's (a test building into a
    cache of its own still starts its cluster one `up` at a time with the rest)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "arenafs", "cluster")


def k8s_releases():
    """The Kubernetes minors the control plane can be built at, oldest first:
    one Go module each, k8s/<minor>/ (a new release is a new directory)."""
    d = os.path.join(HERE, "k8s")
    found = [r for r in os.listdir(d) if os.path.isfile(os.path.join(d, r, "go.mod"))]
    return sorted(found, key=lambda r: [int(x) for x in r.split(".")])


def k8s_release():
    """The release ARENAFS_K8S names (a minor, "1.32"); unset or empty: the newest."""
    releases = k8s_releases()
    chosen = os.environ.get("ARENAFS_K8S") or releases[-1]
    if chosen not in releases:
        raise ClusterError("ARENAFS_K8S=%s: no such release here (tests/cluster/k8s/ has %s)"
                           % (chosen, ", ".join(releases)))
    return chosen


def module_path(moddir):
    """The directory of a component's Go module; for the control plane, the
    chosen release's (k8s/<minor>)."""
    if moddir == "k8s":
        return os.path.join(HERE, "k8s", k8s_release())
    return os.path.join(HERE, moddir)


def module_version(moddir):
    """The version the module directory pins for its main upstream module."""
    with open(os.path.join(module_path(moddir), "go.mod")) as f:
        text = f.read()
    m = re.search(r"^require\s+%s\s+(\S+)" % re.escape(MAIN_MODULE[moddir]), text, re.M)
    if not m:
        raise ClusterError("%s/go.mod does not require %s" % (moddir, MAIN_MODULE[moddir]))
    return m.group(1)


def component_dir(moddir):
    """cache/<module>-<version>-<hash of go.sum and the recipe>: a change of any pin,
    or of how the binaries are built, builds anew. The recipe is hashed with
    placeholders for what it reads from the pinned module, so that naming a
    cached binary needs no download (those facts follow from go.sum)."""
    h = hashlib.sha256()
    with open(os.path.join(module_path(moddir), "go.sum"), "rb") as f:
        h.update(f.read())
    recipe = [build_args(n, "OUT", RECIPE_FACTS) for n in sorted(BINARIES)
              if BINARIES[n][0] == moddir]
    h.update(json.dumps(recipe).encode())
    return os.path.join(cache_root(), "%s-%s-%s" % (moddir, module_version(moddir),
                                                     h.hexdigest()[:10]))


# What the recipe's cache key puts where build_args reads the pinned module.
RECIPE_FACTS = {"version": "VERSION", "time": "TIME", "commit": "COMMIT"}
# Where Kubernetes keeps its version; upstream stamps both (hack/lib/version.sh).
K8S_VERSION_PACKAGES = ("k8s.io/client-go/pkg/version", "k8s.io/component-base/version")


def build_args(name, out, facts):
    """go's arguments that build NAME into out. facts: the pinned module's
    {"version", "time", "commit" (None when unknown)} (module_facts)."""
    ldflags = ["-s", "-w"]
    if BINARIES[name][0] == "k8s":
        ldflags += k8s_version_ldflags(facts)
    tags = ["-tags=" + BUILD_TAGS[name]] if name in BUILD_TAGS else []
    return (["build", "-trimpath"] + tags + ["-ldflags=" + " ".join(ldflags), "-o", out,
                                             BINARIES[name][1]])


def k8s_version_ldflags(facts):
    """-X flags as upstream's hack/lib/version.sh (kube::version::ldflags) writes
    them for a release: gitVersion, gitMajor and gitMinor from the tag ("+" after
    the minor of a pre-release), gitCommit and gitTreeState when the commit is
    known, and buildDate, here the release's commit time (as a reproducible
    build's SOURCE_DATE_EPOCH) so that the binaries do not change with the day.
    Without them kube-apiserver reports v0.0.0-master+$Format:%H$, which kubectl
    refuses to parse."""
    m = re.match(r"^v(\d+)\.(\d+)(\.\d+)?([-].*)?([+].*)?$", facts["version"])
    values = [("buildDate", facts["time"]), ("gitVersion", facts["version"])]
    if facts.get("commit"):
        values[1:1] = [("gitCommit", facts["commit"]), ("gitTreeState", "clean")]
    if m:
        values += [("gitMajor", m.group(1)), ("gitMinor", m.group(2) + ("+" if m.group(4) else ""))]
    return ["-X=%s.%s=%s" % (pkg, key, val) for key, val in values for pkg in K8S_VERSION_PACKAGES]


def module_facts(moddir):
    """{"version", "time", "commit"} of the module's pinned main module, from the
    module cache's .info (Time: the commit's time; Origin.Hash: its commit, which
    a proxy gives for modules it fetched recently and not for older ones)."""
    module = MAIN_MODULE[moddir]
    info = module_download(moddir, "%s@%s" % (module, module_version(moddir)))
    with open(info["Info"]) as f:
        meta = json.load(f)
    t = time.strptime(re.sub(r"\.\d+", "", meta["Time"]).replace("Z", "+0000"),
                      "%Y-%m-%dT%H:%M:%S%z")
    return {"version": meta["Version"], "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", t),
            "commit": (meta.get("Origin") or {}).get("Hash")}


def binary_path(name):
    if name not in BINARIES:
        raise ClusterError("unknown binary %r (known: %s)" % (name, ", ".join(sorted(BINARIES))))
    return os.path.join(component_dir(BINARIES[name][0]), "bin", name)


def go_env():
    env = dict(os.environ)
    # the modules sit inside the project's git checkout: stamping its state
    # into upstream binaries means nothing and fails in some CI clones
    env["GOFLAGS"] = (env.get("GOFLAGS", "") + " -buildvcs=false").strip()
    env["CGO_ENABLED"] = "0"
    return env


def build(names):
    """Builds the named binaries that are not in the cache yet, one module at a time,
    in the order named. One build at a time on the machine (a lock file in the
    cache), taken per module: the test session and .ci/run build everything in
    the background (ALL_BINARIES: the cluster's first) while the kubesim tests
    run, and `up` asking for the cluster's binaries meanwhile waits for the
    module under way, then finds its binaries built instead of building them a
    second time, and starts while the peers (Arena, kueuectl, the MPI operator)
    are still being built."""
    for moddir, group in _by_module(names):
        if all(os.path.exists(binary_path(n)) for n in group):
            continue    # the binaries land whole (os.replace): no lock needed to see them
        with machine_lock(".build.lock"):
            _build_missing(moddir, [n for n in group if not os.path.exists(binary_path(n))])
        # flock keeps no queue: without a pause this process would take the lock
        # again at once, and an `up` waiting for a module built meanwhile would
        # wait for every module after it too
        time.sleep(0.5)


def asked_names(args):
    """The binaries a build's command line asks for: each name as it is, the word
    `cluster` for the cluster's own (CLUSTER_BINARIES, what `up` starts), nothing
    for every one (ALL_BINARIES). .ci/run asks `cluster arena` first, the rest later."""
    if not args:
        return list(ALL_BINARIES)
    return [m for n in args for m in (CLUSTER_BINARIES if n == "cluster" else [n])]


def _by_module(names):
    """[(module directory, [names])]: each name once (its first mention; `up`
    asks for the cluster's binaries plus a profile's, which name Trainer's and
    Kueue's again), in order, a run of names of one module together (a module
    named again later, after another's, is a second group: kueuectl after the
    cluster's kueue, built then from Go's cache)."""
    groups, seen = [], set()
    for n in names:
        if n not in BINARIES:
            raise ClusterError("unknown binary %r (known: %s)" % (n, ", ".join(sorted(BINARIES))))
        if n in seen:
            continue
        seen.add(n)
        if groups and groups[-1][0] == BINARIES[n][0]:
            groups[-1][1].append(n)
        else:
            groups.append((BINARIES[n][0], [n]))
    return groups


def _build_missing(moddir, group):
    """Builds each of group into bin.tmp/, then moves it whole into bin/ (os.replace):
    a binary in bin/ is always complete. A build that failed or was killed leaves
    only whole binaries in bin/ and a bin.tmp/ that the next build empties first."""
    if not group:
        return
    assert len(set(group)) == len(group), group
    bindir = os.path.dirname(binary_path(group[0]))
    tmp = bindir + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log("building %s (%s %s): a few minutes the first time"
        % (", ".join(group), MAIN_MODULE[moddir], module_version(moddir)))
    started = time.monotonic()
    facts = module_facts(moddir)
    os.makedirs(bindir, exist_ok=True)
    for n in group:
        out = os.path.join(tmp, n)
        cmd = [GO] + build_args(n, out, facts)
        r = subprocess.run(cmd, cwd=module_path(moddir), env=go_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise ClusterError("building %s failed:\n%s" % (n, r.stdout[-4000:]))
        if not os.path.isfile(out) or not os.access(out, os.X_OK):
            raise ClusterError("building %s: go build exited 0 but wrote no program at %s" % (n, out))
        os.replace(out, os.path.join(bindir, n))
    shutil.rmtree(tmp, ignore_errors=True)
    log("built %s in %.0f s" % (", ".join(group), time.monotonic() - started))


def arena_charts():
    """The Helm charts `arena submit` renders: in the Arena source it was built from."""
    return os.path.join(module_source("arena", MAIN_MODULE["arena"]), "charts")


def module_source(moddir, module):
    """Where the Go module cache holds a module's source (downloaded if needed)."""
    return module_download(moddir, module)["Dir"]


def module_download(moddir, module):
    """`go mod download -json` of module (path or path@version) in moddir."""
    r = subprocess.run([GO, "mod", "download", "-json", module], cwd=module_path(moddir),
                       env=go_env(), capture_output=True, text=True)
    if r.returncode != 0:
        raise ClusterError("go mod download %s: %s" % (module, r.stdout + r.stderr))
    return json.loads(r.stdout)


# ---------------------------------------------------------------- certificates

def openssl(*args, cwd):
    r = subprocess.run(["openssl"] + list(args), cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise ClusterError("openssl %s: %s" % (" ".join(args), r.stderr))


def make_key(pki, name, rsa=False):
    """An EC P-256 key, or RSA in PKCS#1 (the only form the operator's rotator reads)."""
    if rsa:
        openssl("genrsa", "-traditional", "-out", name + ".key", "2048", cwd=pki)
    else:
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-out", name + ".key", cwd=pki)


def make_cert(pki, name, subject, sans=None, client=False, ca="ca", rsa=False):
    """pki/NAME.key and NAME.crt, signed by pki/CA."""
    make_key(pki, name, rsa)
    openssl("req", "-new", "-key", name + ".key", "-subj", subject, "-out", name + ".csr", cwd=pki)
    ext = ["basicConstraints=CA:FALSE",
           "keyUsage=critical,digitalSignature,keyEncipherment",
           "extendedKeyUsage=" + ("clientAuth" if client else "serverAuth,clientAuth")]
    if sans:
        ext.append("subjectAltName=" + ",".join(sans))
    with open(os.path.join(pki, name + ".ext"), "w") as f:
        f.write("\n".join(ext) + "\n")
    openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
            "-CAcreateserial", "-days", "3650", "-extfile", name + ".ext",
            "-out", name + ".crt", cwd=pki)


def make_ca(pki, name, cn, san=None, rsa=False):
    make_key(pki, name, rsa)
    args = ["req", "-x509", "-new", "-key", name + ".key", "-subj", "/CN=" + cn,
            "-days", "3650", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"]
    if san:
        args += ["-addext", "subjectAltName=" + san]
    openssl(*args, "-out", name + ".crt", cwd=pki)


def make_pki(pki):
    os.makedirs(pki, exist_ok=True)
    make_ca(pki, "ca", "arenafs-test-ca")
    local = ["IP:127.0.0.1", "DNS:localhost"]
    make_cert(pki, "etcd", "/CN=etcd", local)
    make_cert(pki, "apiserver", "/CN=kube-apiserver", local + [
        "IP:10.96.0.1", "DNS:kubernetes", "DNS:kubernetes.default", "DNS:kubernetes.default.svc",
        "DNS:kubernetes.default.svc.cluster.local"])
    make_cert(pki, "kubelet", "/CN=kwok-kubelet", local)
    make_cert(pki, "apiserver-etcd-client", "/CN=kube-apiserver-etcd-client", client=True)
    make_cert(pki, "apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client",
              client=True)
    make_cert(pki, "admin", "/O=system:masters/CN=" + ADMIN_USER, client=True)
    make_cert(pki, "controller-manager", "/CN=system:kube-controller-manager", client=True)
    make_cert(pki, "scheduler", "/CN=system:kube-scheduler", client=True)
    # kwok and the operator stand in for a whole fleet of kubelets and an
    # operator deployment with its ClusterRole: cluster-admin keeps it simple.
    make_cert(pki, "kwok", "/O=system:masters/CN=kwok-controller", client=True)
    make_cert(pki, "operator", "/O=system:masters/CN=training-operator", client=True)
    make_cert(pki, "kubeflow", "/O=system:masters/CN=kubeflow-controllers", client=True)
    # the aggregation layer (Kueue's visibility API): kube-apiserver proxies
    # to it as front-proxy-client, which the aggregated server trusts through
    # the front-proxy CA kube-apiserver publishes
    make_ca(pki, "front-proxy-ca", "arenafs-front-proxy-ca")
    make_cert(pki, "front-proxy-client", "/CN=front-proxy-client", client=True,
              ca="front-proxy-ca")
    webhook_pki(pki)
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
            "-out", "sa.key", cwd=pki)
    openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)


def webhook_pki(pki):
    """The operator's webhook certificates, made here rather than by its
    rotator: the rotator keeps a valid pair it finds in its Secret, and only
    this one also names 127.0.0.1, where kube-apiserver calls the webhook
    (there is no Service network). The rotator checks its CA by that name.
    Every cluster of the machine shares one pair (made once, kept in the
    cache), because the operator reads it from one fixed path."""
    shared = os.path.join(cache_root(), "webhook-pki")
    names = ("webhook-ca.crt", "webhook-ca.key", "webhook.crt", "webhook.key")
    if not all(os.path.exists(os.path.join(shared, n)) for n in names):
        tmp = shared + ".tmp.%d" % os.getpid()
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        make_ca(tmp, "webhook-ca", WEBHOOK_CA, "DNS:" + WEBHOOK_CA, rsa=True)
        make_cert(tmp, "webhook", "/CN=" + WEBHOOK_DNS, ["DNS:" + WEBHOOK_DNS, "IP:127.0.0.1"],
                  ca="webhook-ca", rsa=True)
        try:
            os.rename(tmp, shared)
        except OSError:  # another up made it first
            shutil.rmtree(tmp, ignore_errors=True)
    for n in names:
        shutil.copyfile(os.path.join(shared, n), os.path.join(pki, n))


def install_files(directory, pairs):
    """Copies each (source path, name) into directory, atomically, leaving
    alone a file that holds the bytes already: replacing a file the running
    controllers of the machine's other clusters watch crashed them (a nil
    dereference in fsnotify 1.7.0's inotify backend, seen on 2026-12-05), and
    every cluster writes the same bytes to the fixed paths that need this."""
    os.makedirs(directory, exist_ok=True)
    for src, name in pairs:
        with open(src, "rb") as f:
            want = f.read()
        try:
            with open(os.path.join(directory, name), "rb") as f:
                if f.read() == want:
                    continue
        except OSError:
            pass
        tmp = os.path.join(directory, ".%s.%d" % (name, os.getpid()))
        with open(tmp, "wb") as f:
            f.write(want)
        os.replace(tmp, os.path.join(directory, name))  # a running controller reads it


def b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def write_kubeconfig(path, url, pki, users, current, namespace="default"):
    """users: [(context name, user dict)]. JSON is YAML: kubectl and arenafs read it."""
    cfg = {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [{"name": "arenafs-real", "cluster": {
            "server": url, "certificate-authority-data": b64file(os.path.join(pki, "ca.crt"))}}],
        "users": [{"name": name, "user": user} for name, user in users],
        "contexts": [{"name": name, "context": {"cluster": "arenafs-real", "user": name,
                                                "namespace": namespace}}
                     for name, _ in users],
        "current-context": current,
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")


def cert_user(pki, name):
    return {"client-certificate-data": b64file(os.path.join(pki, name + ".crt")),
            "client-key-data": b64file(os.path.join(pki, name + ".key"))}


# ---------------------------------------------------------------- processes

def pick_ports(names):
    """{name: port}: free ports below the kernel's ephemeral range. A port bind(0)
    gives is one that connect() may give any client, or another `up`, in the
    seconds before the component binds it (seen: JobSet's webhook port taken,
    "address already in use", as test-oldest's cluster started); below the
    range, only a listener takes a port, and `up` holds the machine's up lock
    until its own listen. Binding without SO_REUSEADDR counts a port in TIME_WAIT as taken."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            ephemeral = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral = 32768
    pool = list(range(PORT_FLOOR, max(ephemeral, PORT_FLOOR + 2000)))
    random.SystemRandom().shuffle(pool)
    ports = {}
    for port in pool:
        if len(ports) == len(names):
            break
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports[names[len(ports)]] = port
    if len(ports) < len(names):
        raise ClusterError("no %d free ports from %d up" % (len(names), PORT_FLOOR))
    return ports


PORT_FLOOR = 20000  # above the well-known and registered services a test machine runs


@contextlib.contextmanager
def machine_lock(name, root=None):
    """Holds the lock file NAME in root (default the cache): one holder at a time."""
    root = root or cache_root()
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, name), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class Plane:
    """The files of one cluster directory and the processes started in it."""

    def __init__(self, directory):
        self.dir = os.path.abspath(directory)
        self.pki = os.path.join(self.dir, "pki")
        self.logs = os.path.join(self.dir, "logs")
        self.pids = os.path.join(self.dir, "pids")
        self.state_path = os.path.join(self.dir, "state.json")

    def start(self, name, argv, env=None):
        """Starts argv in a session of its own (down kills the group); log in logs/NAME.log."""
        os.makedirs(self.logs, exist_ok=True)
        os.makedirs(self.pids, exist_ok=True)
        out = open(os.path.join(self.logs, name + ".log"), "ab")
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=self.dir, env=env,
                                start_new_session=True)
        out.close()
        with open(os.path.join(self.pids, name + ".pid"), "w") as f:
            f.write("%d\n" % proc.pid)
        return proc

    def log_tail(self, name, lines=30):
        try:
            with open(os.path.join(self.logs, name + ".log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def alive(self, name):
        """The component still runs (it leads a session of its own: pgid = pid)."""
        pid = self.pid(name)
        return pid is not None and _group_alive(pid)

    def pid(self, name):
        try:
            with open(os.path.join(self.pids, name + ".pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def stop_all(self, timeout=5, kill_timeout=60):
        """SIGTERM to every process group started here, SIGKILL to what stays
        after timeout; returns once no thread of any of them is left. A process
        that outlives SIGKILL by kill_timeout (stuck in the kernel) is a
        ClusterError naming it, and its pid file is kept for a later down."""
        if not os.path.isdir(self.pids):
            return
        pids = []
        for entry in sorted(os.listdir(self.pids)):
            try:
                with open(os.path.join(self.pids, entry)) as f:
                    pids.append(int(f.read().strip()))
            except (OSError, ValueError):
                continue
        _stop_groups(pids, timeout, kill_timeout)
        shutil.rmtree(self.pids, ignore_errors=True)

    def stop(self, names, timeout=5, kill_timeout=60):
        """stop_all for the named components only (monitoring.py's, beside the
        cluster); their pid files go."""
        pids = [p for p in map(self.pid, names) if p is not None]
        _stop_groups(pids, timeout, kill_timeout)
        for name in names:
            try:
                os.remove(os.path.join(self.pids, name + ".pid"))
            except OSError:
                pass


def _stop_groups(pids, timeout, kill_timeout):
    """SIGTERM to each process group, SIGKILL to what stays after timeout;
    returns once no thread of any is left, or raises naming what outlived
    SIGKILL by kill_timeout."""
    _signal_groups(pids, signal.SIGTERM)
    _wait_groups(pids, timeout)
    _signal_groups(_groups_alive(pids), signal.SIGKILL)
    _wait_groups(pids, kill_timeout)
    left = _groups_alive(pids)
    if left:
        raise ClusterError("still running %d s after SIGKILL: %s" % (kill_timeout, "; ".join(
            "process group %d (%s)" % (g, _group_tasks(g)) for g in left)))


def _signal_groups(pgids, sig):
    for pgid in pgids:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass


def _wait_groups(pgids, seconds):
    deadline = time.monotonic() + seconds
    while _groups_alive(pgids) and time.monotonic() < deadline:
        time.sleep(0.05)


def _group_alive(pgid):
    return bool(_group_tasks(pgid))


def _groups_alive(pgids):
    """The process groups of pgids that still have a thread."""
    return [g for g in pgids if _group_alive(g)]


def _group_tasks(pgid):
    """"pid/tid state" of every thread of process group pgid that has not exited.
    Threads, not processes: when a process's main thread has exited, /proc shows
    the process as a zombie (Z) while its other threads still run (a Go program
    exiting, a thread in the kernel flushing a file); it is gone only when every
    thread is. A process whose threads have all exited is a zombie its parent
    (up, long gone: init) reaps, and holds nothing."""
    try:
        os.killpg(pgid, 0)
    except OSError:
        return []
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                if int(f.read().rsplit(")", 1)[1].split()[2]) != pgid:
                    continue
            tids = os.listdir("/proc/%s/task" % pid)
        except (OSError, ValueError, IndexError):
            continue
        for tid in tids:
            try:
                with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("Z", "X"):
                left.append("%s/%s %s" % (pid, tid, state))
    return left


# ---------------------------------------------------------------- talking to it

def https_get(url, pki, cert, timeout=5):
    """(status, body) of a GET with client certificate pki/CERT; (0, reason) when unreachable."""
    ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
    ctx.load_cert_chain(os.path.join(pki, cert + ".crt"), os.path.join(pki, cert + ".key"))
    try:
        with urllib.request.urlopen(url, context=ctx, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (OSError, ssl.SSLError) as e:
        return 0, str(e)


def wait_for(what, check, plane, component, timeout):
    """Polls check() until true; a dead component or the deadline fails with its log."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if component and not plane.alive(component):
            raise ClusterError("%s exited while waiting for %s:\n%s"
                               % (component, what, plane.log_tail(component)))
        if time.monotonic() > deadline:
            raise ClusterError("timed out after %d s waiting for %s:\n%s"
                               % (timeout, what, plane.log_tail(component) if component else ""))
        time.sleep(0.2)


def kubectl(plane, *args, input=None, check=True):
    cmd = [shutil.which("kubectl") or "kubectl", "--kubeconfig",
           os.path.join(plane.dir, "kubeconfig"), "--cache-dir",
           os.path.join(plane.dir, "kubectl-cache")] + list(args)
    r = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise ClusterError("kubectl %s failed:\n%s%s" % (" ".join(args), r.stdout, r.stderr))
    return r


# ---------------------------------------------------------------- up and down

def cri_time(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%09dZ" % int((t % 1) * 1e9)


def container_log_lines(n=40):
    """The container log kwok serves for every pod: CRI log format, as a kubelet
    keeps it, one line a second ending when up writes it."""
    now = int(time.time())
    return "".join("%s stdout F epoch %d loss %.4f accuracy %.4f\n"
                   % (cri_time(now - n + i), i, 2.0 / i, 1 - 1.0 / (i + 1))
                   for i in range(1, n + 1))


def node_manifest(name, gpus):
    # ephemeral-storage as a real node reports it: the operator's MPI launcher
    # init container requests 5Gi, and a node without it never takes the pod
    resources = {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "500Gi",
                 "nvidia.com/gpu": str(gpus)}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name,
                     "annotations": {"kwok.x-k8s.io/node": "fake",
                                     "node.alpha.kubernetes.io/ttl": "0"},
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                "kubernetes.io/arch": "amd64", "type": "kwok",
                                "nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}},
        "spec": {},
        "status": {"capacity": resources, "allocatable": resources},
    }


# A pod with this annotation is left alone by kwok's pod-create stage: its
# status is written by the test that made it (monitoring.py's Prometheus, whose
# address is not one kwok would give)
OWN_STATUS = "arenafs.test/own-status"


def stock_stages(kwok_src):
    """kwok's own node stages and the pod stages ours do not replace; the jitter
    of up to 5 s they give each pod step is cut to 0.5 s to keep tests short;
    pod-create skips pods annotated OWN_STATUS."""
    names = ["node/fast/node-initialize.yaml", "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
             "pod/general/pod-create.yaml", "pod/general/pod-init-container-running.yaml",
             "pod/general/pod-init-container-completed.yaml", "pod/general/pod-delete.yaml"]
    docs = []
    for n in names:
        with open(os.path.join(kwok_src, "kustomize", "stage", n)) as f:
            text = f.read()
        text = re.sub(r"jitterDurationMilliseconds: \d+", "jitterDurationMilliseconds: 500", text)
        text = re.sub(r"(\n    )durationMilliseconds: 1000", r"\1durationMilliseconds: 200", text)
        if n.endswith("pod-create.yaml"):
            text = text.replace("""    - key: '.status.podIP'
      operator: 'DoesNotExist'
""", """    - key: '.status.podIP'
      operator: 'DoesNotExist'
    - key: '.metadata.annotations["%s"]'
      operator: 'DoesNotExist'
""" % OWN_STATUS, 1)
            assert OWN_STATUS in text, "kwok's pod-create stage changed: " + n
        docs.append(text)
    return "\n---\n".join(docs)


def webhook_config(plane, operator_src, port, ca_file):
    """The operator's ValidatingWebhookConfiguration from its module, calling it
    at https://127.0.0.1:PORT instead of through a Service."""
    path = os.path.join(operator_src, "manifests", "base", "webhook", "manifests.yaml")
    vwc = json.loads(kubectl(plane, "create", "--dry-run=client", "-o", "json", "-f", path).stdout)
    vwc["metadata"] = {"name": WEBHOOK_CONFIG}
    for wh in vwc["webhooks"]:
        svc = wh["clientConfig"]["service"]
        wh["clientConfig"] = {"url": "https://127.0.0.1:%d%s" % (port, svc["path"]),
                              "caBundle": b64file(ca_file)}
    return vwc


def up(directory, nodes=4, gpus=8, event_ttl=None, mpi="v1"):
    """event_ttl: kube-apiserver's --event-ttl (a Go duration, "2m"); None: its
    default, 1h. mpi: who owns the MPIJob CRD, "v1" (the training-operator)
    or "v2beta1" (the MPI operator)."""
    import kubeflow
    kubeflow.check_profile(mpi)
    plane = Plane(directory)
    if os.path.exists(os.path.join(plane.dir, "ready")):
        raise ClusterError("%s already holds a running cluster: down it first" % plane.dir)
    build(CLUSTER_BINARIES + kubeflow.binaries(mpi))
    # One `up` at a time on the machine, from choosing its ports until every
    # component listens on its own: a second `up` (test-oldest's beside make
    # test's) then finds them taken (pick_ports)
    with machine_lock(".up.lock", machine_cache_root()):
        return _start(plane, nodes, gpus, event_ttl, mpi)


def _start(plane, nodes, gpus, event_ttl, mpi):
    """up's work once the binaries are built: the components, started and ready."""
    import kubeflow
    started = time.monotonic()
    kwok_src = module_source("kwok", "sigs.k8s.io/kwok")
    operator_src = module_source("operator", "github.com/kubeflow/training-operator")
    os.makedirs(plane.dir, exist_ok=True)
    for sub in ("pki", "etcd", "logs", "components", "containerlogs"):
        shutil.rmtree(os.path.join(plane.dir, sub), ignore_errors=True)
    pki = plane.pki
    make_pki(pki)
    p = pick_ports(("etcd", "etcd_peer", "apiserver", "kcm", "scheduler", "kwok",
                    "op_metrics", "op_probe", "op_webhook") + kubeflow.PORTS)
    P = lambda f: os.path.join(pki, f)  # noqa: E731
    url = "https://127.0.0.1:%d" % p["apiserver"]

    etcd_url = "https://127.0.0.1:%d" % p["etcd"]
    peer_url = "https://127.0.0.1:%d" % p["etcd_peer"]
    plane.start("etcd", [binary_path("etcd"), "--name=etcd0",
                         "--data-dir=" + os.path.join(plane.dir, "etcd"),
                         "--listen-client-urls=" + etcd_url, "--advertise-client-urls=" + etcd_url,
                         "--listen-peer-urls=" + peer_url,
                         "--initial-advertise-peer-urls=" + peer_url,
                         "--initial-cluster=etcd0=" + peer_url,
                         "--cert-file=" + P("etcd.crt"), "--key-file=" + P("etcd.key"),
                         "--trusted-ca-file=" + P("ca.crt"), "--client-cert-auth",
                         "--peer-cert-file=" + P("etcd.crt"), "--peer-key-file=" + P("etcd.key"),
                         "--peer-trusted-ca-file=" + P("ca.crt"), "--peer-client-cert-auth",
                         "--unsafe-no-fsync", "--log-level=warn"])
    wait_for("etcd", lambda: https_get(etcd_url + "/health", pki, "apiserver-etcd-client")[0] == 200,
             plane, "etcd", 60)

    plane.start("kube-apiserver", [
        binary_path("kube-apiserver"),
        "--etcd-servers=" + etcd_url, "--etcd-cafile=" + P("ca.crt"),
        "--etcd-certfile=" + P("apiserver-etcd-client.crt"),
        "--etcd-keyfile=" + P("apiserver-etcd-client.key"),
        "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
        "--secure-port=%d" % p["apiserver"],
        "--tls-cert-file=" + P("apiserver.crt"), "--tls-private-key-file=" + P("apiserver.key"),
        "--client-ca-file=" + P("ca.crt"),
        "--service-account-key-file=" + P("sa.pub"),
        "--service-account-signing-key-file=" + P("sa.key"),
        # the issuer is where this machine reaches the API server: Trainer's
        # status server discovers its OIDC keys there (kubeflow.py); a real
        # cluster's issuer, kubernetes.default.svc, resolves only in pods
        "--service-account-issuer=" + url,
        "--service-cluster-ip-range=10.96.0.0/12",
        "--authorization-mode=Node,RBAC",
        "--kubelet-client-certificate=" + P("apiserver-kubelet-client.crt"),
        "--kubelet-client-key=" + P("apiserver-kubelet-client.key"),
        "--kubelet-certificate-authority=" + P("ca.crt"),
        "--kubelet-preferred-address-types=InternalIP",
        "--endpoint-reconciler-type=none",
        "--allow-privileged=true",
        "--requestheader-client-ca-file=" + P("front-proxy-ca.crt"),
        "--requestheader-allowed-names=front-proxy-client",
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        "--proxy-client-cert-file=" + P("front-proxy-client.crt"),
        "--proxy-client-key-file=" + P("front-proxy-client.key"),
        *(["--event-ttl=" + event_ttl] if event_ttl else []),
        "--v=1"])
    wait_for("kube-apiserver /readyz",
             lambda: https_get(url + "/readyz", pki, "admin")[0] == 200,
             plane, "kube-apiserver", 120)

    comp = os.path.join(plane.dir, "components")
    os.makedirs(comp, exist_ok=True)
    for name in ("controller-manager", "scheduler", "kwok", "operator", "kubeflow"):
        write_kubeconfig(os.path.join(comp, name + ".kubeconfig"), url, pki,
                         [(name, cert_user(pki, name))], name)
    write_kubeconfig(os.path.join(plane.dir, "kubeconfig"), url, pki,
                     [("admin", cert_user(pki, "admin"))], "admin")

    kc = lambda n: os.path.join(comp, n + ".kubeconfig")  # noqa: E731
    plane.start("kube-controller-manager", [
        binary_path("kube-controller-manager"),
        "--kubeconfig=" + kc("controller-manager"),
        "--authentication-kubeconfig=" + kc("controller-manager"),
        "--authorization-kubeconfig=" + kc("controller-manager"),
        "--bind-address=127.0.0.1", "--secure-port=%d" % p["kcm"],
        "--service-account-private-key-file=" + P("sa.key"), "--root-ca-file=" + P("ca.crt"),
        "--use-service-account-credentials=true",
        # client rate limits raised (defaults 20/30): one machine, thousands of pods
        "--kube-api-qps=200", "--kube-api-burst=400",
        "--leader-elect=false", "--controllers=*", "--v=1"])
    plane.start("kube-scheduler", [
        binary_path("kube-scheduler"),
        "--kubeconfig=" + kc("scheduler"),
        "--authentication-kubeconfig=" + kc("scheduler"),
        "--authorization-kubeconfig=" + kc("scheduler"),
        "--bind-address=127.0.0.1", "--secure-port=%d" % p["scheduler"],
        "--kube-api-qps=200", "--kube-api-burst=400",
        "--leader-elect=false", "--v=1"])

    # (group, plural, where the module keeps its CRD)
    crds = [("kwok.x-k8s.io", n, os.path.join(kwok_src, "kustomize", "crd", "bases"))
            for n in ("stages", "clusterlogs", "logs")]
    operator_kinds = [k for k in OPERATOR_KINDS if k != "mpijobs" or mpi == "v1"]
    crds += [("kubeflow.org", k, os.path.join(operator_src, "manifests", "base", "crds"))
             for k in operator_kinds]
    crds = [(g, p, os.path.join(where, "%s_%s.yaml" % (g, p))) for g, p, where in crds]
    crds += kubeflow.crds(mpi)
    kubectl(plane, "apply", "--server-side", *[a for _, _, path in crds for a in ("-f", path)])
    kubectl(plane, "wait", "--for=condition=Established", "--timeout=60s",
            *["crd/%s.%s" % (plural, group) for group, plural, _ in crds])

    logdir = os.path.join(plane.dir, "containerlogs")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, "current.log"), "w") as f:
        f.write(container_log_lines())
    with open(os.path.join(logdir, "previous.log"), "w") as f:
        t = time.time() - 60
        f.write("%s stdout F before the crash\n%s stderr F Traceback: out of memory\n"
                % (cri_time(t), cri_time(t + 1)))
    cluster_logs = {"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterLogs",
                    "metadata": {"name": "every-container"},
                    "spec": {"logs": [{"containers": [],
                                       "logsFile": os.path.join(logdir, "current.log"),
                                       "previousLogsFile": os.path.join(logdir, "previous.log"),
                                       "follow": True}]}}
    with open(os.path.join(HERE, "stages.yaml")) as f:
        ours = f.read()
    kubectl(plane, "apply", "-f", "-",
            input=stock_stages(kwok_src) + "\n---\n" + ours + "\n---\n" + json.dumps(cluster_logs))
    with open(os.path.join(HERE, "objects.yaml")) as f:
        kubectl(plane, "apply", "-f", "-", input=f.read())
    nodes_doc = {"apiVersion": "v1", "kind": "List",
                 "items": [node_manifest("gpu-node-%d" % i, gpus) for i in range(nodes)]}
    kubectl(plane, "create", "-f", "-", input=json.dumps(nodes_doc))

    plane.start("kwok", [
        binary_path("kwok"), "--kubeconfig=" + kc("kwok"), "--manage-all-nodes=true",
        "--server-address=127.0.0.1:%d" % p["kwok"], "--node-ip=127.0.0.1",
        "--node-port=%d" % p["kwok"],
        "--tls-cert-file=" + P("kubelet.crt"), "--tls-private-key-file=" + P("kubelet.key"),
        "--enable-crds=Stage,ClusterLogs,Logs", "--node-lease-duration-seconds=40",
        "--cidr=10.244.0.0/16"])

    secret = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
              "metadata": {"name": WEBHOOK_SECRET, "namespace": "kubeflow"},
              "data": {"ca.crt": b64file(P("webhook-ca.crt")), "ca.key": b64file(P("webhook-ca.key")),
                       "tls.crt": b64file(P("webhook.crt")), "tls.key": b64file(P("webhook.key"))}}
    kubectl(plane, "apply", "-f", "-", input=json.dumps(secret))
    # before the operator: its rotator is not ready until the configuration exists
    kubectl(plane, "apply", "-f", "-",
            input=json.dumps(webhook_config(plane, operator_src, p["op_webhook"],
                                            P("webhook-ca.crt"))))
    # In a cluster the kubelet mounts that Secret where the operator's webhook
    # server reads it; this fixed path is the operator's (every cluster of the
    # machine writes the same pair there).
    install_files(WEBHOOK_CERT_DIR, [(P(src), dst) for src, dst in (
        ("webhook.crt", "tls.crt"), ("webhook.key", "tls.key"), ("webhook-ca.crt", "ca.crt"))])
    env = dict(os.environ, KUBECONFIG=kc("operator"), MY_POD_NAMESPACE="kubeflow")
    plane.start("training-operator", [
        binary_path("training-operator"), "--kubeconfig=" + kc("operator"),
        "--metrics-bind-address=127.0.0.1:%d" % p["op_metrics"],
        "--health-probe-bind-address=127.0.0.1:%d" % p["op_probe"],
        "--webhook-server-port=%d" % p["op_webhook"],
        "--kube-api-qps=200", "--kube-api-burst=400", "--controller-threads=4"] +
        ["--enable-scheme=" + k[:-1] for k in operator_kinds], env=env)
    kubeflow.start(plane, mpi, kc("kubeflow"), p)

    def nodes_ready():
        r = kubectl(plane, "get", "nodes", "-o", "json", check=False)
        if r.returncode != 0:
            return False
        items = json.loads(r.stdout)["items"]
        return len(items) == nodes and all(
            any(c["type"] == "Ready" and c["status"] == "True"
                for c in n.get("status", {}).get("conditions", [])) for n in items)
    wait_for("%d kwok nodes Ready" % nodes, nodes_ready, plane, "kwok", 60)

    def operator_ready():
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % p["op_probe"],
                                        timeout=2) as r:
                return r.status == 200
        except (OSError, urllib.error.HTTPError):
            return False
    wait_for("training-operator ready", operator_ready, plane, "training-operator", 90)
    kubeflow.finish(plane, mpi, p)
    wait_for("ServiceAccount default/default",
             lambda: kubectl(plane, "get", "serviceaccount", "default", "-n", "default",
                             check=False).returncode == 0,
             plane, "kube-controller-manager", 60)

    token, reader = (kubectl(plane, "create", "token", sa, "-n", "default",
                             "--duration=720h").stdout.strip() for sa in (VIEWER_SA, READER_SA))
    write_kubeconfig(os.path.join(plane.dir, "kubeconfig"), url, pki,
                     [("admin", cert_user(pki, "admin")), ("viewer", {"token": token}),
                      ("reader", {"token": reader})], "admin")
    with open(plane.state_path, "w") as f:
        json.dump({"url": url, "ports": p, "nodes": nodes, "gpus": gpus, "mpi": mpi}, f, indent=1)
    with open(os.path.join(plane.dir, "url"), "w") as f:
        f.write(url + "\n")
    with open(os.path.join(plane.dir, "ready"), "w") as f:
        f.write("%d\n" % plane.pid("kube-apiserver"))
    log("ready in %.1f s: %s (kubeconfig %s)"
        % (time.monotonic() - started, url, os.path.join(plane.dir, "kubeconfig")))
    return plane


def restart_apiserver(directory, down_seconds):
    """Stops kube-apiserver, waits down_seconds, starts it again with the same
    command line (etcd keeps everything, as in a control-plane upgrade or a
    crash), and returns once it is ready again."""
    plane = Plane(directory)
    pid = plane.pid("kube-apiserver")
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        argv = [a.decode() for a in f.read().split(b"\0") if a]
    os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while _group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pid):
        os.killpg(pid, signal.SIGKILL)
    time.sleep(down_seconds)
    plane.start("kube-apiserver", argv)
    with open(plane.state_path) as f:
        url = json.load(f)["url"]
    wait_for("kube-apiserver /readyz after a restart",
             lambda: https_get(url + "/readyz", plane.pki, "admin")[0] == 200,
             plane, "kube-apiserver", 120)
    # ready is not yet serving jobs: the training-operator's certificate rotator
    # re-reads its Secret as its informers list again, and a TFJob made meanwhile
    # was refused ("failed calling webhook ...: x509: certificate signed by unknown
    # authority", seen under load). A server-side dry run goes through the webhook.
    probe = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
             "metadata": {"name": "restart-probe", "namespace": "default"},
             "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {
                 "containers": [{"name": "tensorflow", "image": "probe"}]}}}}}}
    wait_for("the training-operator's webhook after a restart",
             lambda: kubectl(plane, "create", "--dry-run=server", "-f", "-",
                             input=json.dumps(probe), check=False).returncode == 0,
             plane, "training-operator", 120)
    with open(os.path.join(plane.dir, "ready"), "w") as f:
        f.write("%d\n" % plane.pid("kube-apiserver"))


def compact_etcd(directory):
    """Compacts etcd's history up to its current revision, as kube-apiserver's
    own compaction (every 5 min) does: a watch or list from an older
    resourceVersion that etcd must serve gets 410. Through etcd's JSON gateway
    with the API server's client certificate. Returns the revision."""
    plane = Plane(directory)
    with open(plane.state_path) as f:
        url = "https://127.0.0.1:%d" % json.load(f)["ports"]["etcd"]
    ctx = ssl.create_default_context(cafile=os.path.join(plane.pki, "ca.crt"))
    ctx.load_cert_chain(os.path.join(plane.pki, "apiserver-etcd-client.crt"),
                        os.path.join(plane.pki, "apiserver-etcd-client.key"))

    def post(path, body):
        req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            return json.loads(r.read())
    rev = int(post("/v3/kv/range", {"key": base64.b64encode(b"/").decode()})["header"]["revision"])
    post("/v3/kv/compaction", {"revision": str(rev), "physical": True})
    return rev


def down(directory):
    plane = Plane(directory)
    plane.stop_all()
    for f in ("ready", "url"):
        try:
            os.remove(os.path.join(plane.dir, f))
        except OSError:
            pass
