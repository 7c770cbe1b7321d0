"""The real test cluster itself (tests/cluster/): what a user of it sees.

- `kubectl version` and the python client's /version report the Kubernetes
  release the chosen tests/cluster/k8s/<minor>/go.mod pins (ARENAFS_K8S; the
  newest, v1.37.2, by default), stamped into the binaries as upstream's build
  stamps them; unstamped, kube-apiserver said v0.0.0-master+$Format:%H$ and
  kubectl refused to parse it.
- Each release has binaries of its own; a release there is no module for is
  refused before anything is built, naming those there are.
- `down` returns only when no thread of the cluster's processes is left: a
  process whose main thread has exited while another still runs (as a Go
  program's last thread unmapping its memory) is still there, and down used
  to return then. Checked on a stand-in component (deterministic) and on a
  real cluster of the module's own.
- On that cluster, started with a short --event-ttl: an Event expires with a
  DELETED watch event carrying its last state, as kubesim's do.
"""

import json
import os
import subprocess
import sys
import time

import pytest

import realcluster

sys.path.insert(0, os.path.join(os.path.dirname(realcluster.__file__), "cluster"))
import cluster  # noqa: E402

# The release the cluster is built from, as its go.mod pins it (ARENAFS_K8S).
RELEASE = cluster.module_version("k8s")
BIN = os.path.join(os.path.dirname(realcluster.UP), "bin")


def cluster_threads(pgids):
    """Threads, not exited, of a process in one of pgids, as ps lists them."""
    r = subprocess.run(["ps", "-e", "-L", "-o", "pgid=,pid=,lwp=,stat="], capture_output=True,
                       text=True, check=True)
    return [line.strip() for line in r.stdout.splitlines()
            if int(line.split()[0]) in pgids and line.split()[3][0] not in "ZX"]


def test_kubectl_version_reports_the_release(real_cluster):
    r = real_cluster.kubectl("version", "-o", "json", check=False)
    assert r.returncode == 0, "kubectl version failed: %s%s" % (r.stdout, r.stderr)
    server = json.loads(r.stdout)["serverVersion"]
    assert server["gitVersion"] == RELEASE, server
    major, minor = RELEASE[1:].split(".")[:2]
    assert (server["major"], server["minor"]) == (major, minor), server
    assert server["buildDate"] != "1970-01-01T00:00:00Z", server
    short = real_cluster.kubectl("version").stdout
    assert "Server Version: %s" % RELEASE in short, short


def test_python_client_version_reports_the_release(real_cluster):
    from kubernetes import client
    info = client.VersionApi(real_cluster.python_client()).get_code()
    assert info.git_version == RELEASE, info
    assert (info.major, info.minor) == tuple(RELEASE[1:].split(".")[:2]), info


def test_each_release_has_its_own_binaries_and_the_newest_is_the_default(monkeypatch):
    releases = cluster.k8s_releases()
    assert len(releases) >= 2, releases
    paths = {}
    for r in releases:
        monkeypatch.setenv("ARENAFS_K8S", r)
        version = cluster.module_version("k8s")
        assert version.startswith("v%s." % r), (r, version)
        paths[r] = cluster.binary_path("kube-apiserver")
        assert "/k8s-%s-" % version in paths[r], paths[r]
    assert len(set(paths.values())) == len(releases), paths
    monkeypatch.delenv("ARENAFS_K8S")
    assert cluster.binary_path("kube-apiserver") == paths[releases[-1]]


def test_a_release_without_a_module_is_refused_before_any_build():
    r = subprocess.run([BIN, "kube-apiserver"], env=dict(os.environ, ARENAFS_K8S="1.9"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert r.stdout == "", r.stdout
    assert "ARENAFS_K8S=1.9: no such release here (tests/cluster/k8s/ has %s)" % (
        ", ".join(cluster.k8s_releases())) in r.stderr, r.stderr
    assert "building" not in r.stderr, r.stderr


# A component that takes a while to exit after its main thread has: on SIGTERM
# the main thread ends alone (the exit system call, not exit_group: /proc shows
# the process as a zombie) while another thread works 3 s more, writes `done`
# and ends the process.
LINGERING = r"""
import ctypes, os, signal, threading, time
def finish():
    time.sleep(3)
    with open("done", "w") as f:
        f.write("done\n")
    os._exit(0)
def term(*_):
    threading.Thread(target=finish).start()
    ctypes.CDLL(None).syscall(SYS_EXIT, 0)
signal.signal(signal.SIGTERM, term)
with open("started", "w") as f:
    f.write("started\n")
while True:
    time.sleep(1)
"""
# the exit system call's number (asm/unistd.h)
SYS_EXIT = {"x86_64": 60, "aarch64": 93}


def test_down_waits_for_a_process_whose_main_thread_exited_first(tmp_path):
    plane = cluster.Plane(str(tmp_path))
    script = LINGERING.replace("SYS_EXIT", str(SYS_EXIT[os.uname().machine]))
    plane.start("lingering", [sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, plane.log_tail("lingering")
        time.sleep(0.05)
    pgid = plane.pid("lingering")
    r = subprocess.run([realcluster.DOWN, str(tmp_path)], capture_output=True, text=True,
                       timeout=120)
    left = cluster_threads({pgid})
    assert r.returncode == 0, r.stderr
    assert left == [], "down returned while the component still ran: %s" % left
    assert (tmp_path / "done").exists(), "down returned before the component finished exiting"


@pytest.fixture(scope="module")
def own_cluster(tmp_path_factory):
    """A real cluster of this module's own, its Events living EVENT_TTL; the
    last test downs it."""
    if realcluster.CLUSTER_CHOICE == "kubesim":
        pytest.skip("ARENAFS_CLUSTER=kubesim: no real cluster asked for")
    c = realcluster.RealCluster(str(tmp_path_factory.mktemp("own") / "cluster"), nodes=1,
                                gpus=1, event_ttl="%ds" % EVENT_TTL)
    yield c
    c.stop()


EVENT_TTL = 30


@pytest.mark.own_real_cluster
def test_an_event_expires_with_a_deleted_watch_event(own_cluster):
    """What kubesim's --event-ttl mirrors (docs/kubesim.md, "Events expire")."""
    from kubernetes import client, watch
    api = client.CoreV1Api(own_cluster.python_client())
    ns = own_cluster.fresh_namespace("ttl")
    rv = api.list_namespaced_event(ns).metadata.resource_version
    made = time.monotonic()
    for name in ("first", "second"):
        api.create_namespaced_event(ns, client.CoreV1Event(
            metadata=client.V1ObjectMeta(name=name),
            involved_object=client.V1ObjectReference(kind="Pod", namespace=ns, name="p"),
            reason="Started", message=name, type="Normal", count=1))
    gone = {}
    for ev in watch.Watch().stream(api.list_namespaced_event, ns, resource_version=rv,
                                   timeout_seconds=EVENT_TTL + 120):
        if ev["type"] == "DELETED":
            gone[ev["object"].metadata.name] = (time.monotonic() - made, ev["object"])
            if len(gone) == 2:
                break
    assert sorted(gone) == ["first", "second"], gone
    for name, (lived, obj) in gone.items():
        assert obj.message == name, obj           # the last state
        assert lived >= EVENT_TTL, "%s went after %.1f s" % (name, lived)
    assert api.list_namespaced_event(ns).items == []


@pytest.mark.own_real_cluster
def test_down_leaves_no_process_of_a_real_cluster(own_cluster):
    c = own_cluster
    pids = os.path.join(c.dir, "pids")
    pgids = set()
    for name in os.listdir(pids):
        with open(os.path.join(pids, name)) as f:
            pgids.add(int(f.read()))
    assert len(pgids) == len(cluster.CLUSTER_BINARIES), sorted(os.listdir(pids))
    assert cluster_threads(pgids), "the cluster runs no thread before down"
    r = subprocess.run([realcluster.DOWN, c.dir], capture_output=True, text=True, timeout=300)
    left = cluster_threads(pgids)
    assert r.returncode == 0, r.stderr
    assert left == [], "down returned with threads of the cluster left: %s" % left
