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

`real_cluster` is the session's one real cluster (tests/cluster/), and
`any_cluster` runs a test on kubesim, the real cluster or both, as
ARENAFS_CLUSTER says (realcluster.py).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from kubesimcluster import KUBECTL, KUBESIM, Cluster  # noqa: E402,F401
import realcluster  # noqa: E402


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

_real = {}


@pytest.fixture(scope="session")
def real_cluster():
    """The session's one real cluster (tests/cluster/up), started on first use.
    A cluster that cannot start fails every test that needs it, with up's log.
    ARENAFS_CLUSTER=kubesim asks for no real cluster: its tests are then
    reported skipped, with that reason (make test runs both)."""
    if realcluster.CLUSTER_CHOICE == "kubesim":
        pytest.skip("ARENAFS_CLUSTER=kubesim: no real cluster asked for")
    if "error" in _real:
        pytest.fail(_real["error"], pytrace=False)
    if "cluster" not in _real:
        d = tempfile.mkdtemp(prefix="arenafs-real-")
        try:
            _real["cluster"] = realcluster.RealCluster(d)
        except Exception as e:  # noqa: every failure to start is reported the same way
            _real["error"] = "the real cluster did not start: %s" % e
            subprocess.run([realcluster.DOWN, d], timeout=120)
            pytest.fail(_real["error"], pytrace=False)
    yield _real["cluster"]


# The real cluster's binaries are built in the background from the start of the
# session, so that on a fresh machine the Go builds (tens of minutes) and the
# kubesim tests share the wall clock instead of following each other. `up` takes
# the build lock (tests/cluster/cluster.py), so the first real test waits for the
# build rather than building a second time.
#
# Run serially, the tests that need the real cluster come last, after every
# kubesim test. Run by pytest-xdist (make test: `-n 2 --dist loadgroup`), they
# are one group, handed first to one worker, which waits for the build and runs
# them one after another on the session's one cluster while the other worker
# runs the kubesim tests; each kubesim test module is a group of its own, so a
# module's shared fixtures start once and its tests keep their order.
#
# A test needs the real cluster when it asks for one of _REAL_FIXTURES (a fixture
# that reaches the cluster through request.getfixturevalue must name
# real_cluster too), is the "real" case of a cluster parameter, or is marked
# own_real_cluster (it starts a cluster of its own with options of its own). The real
# tests marked later_binary(NAME) need an upstream binary built after the
# cluster's (tests/cluster/cluster.py, LATER_BINARIES): they come last among
# the real tests, so that the others run while it is built.
_REAL_FIXTURES = {"real_cluster", "real_view", "real_namespace", "private_real_view"}
_build = {}
# Set by .ci/run, which builds every binary itself in the order its jobs need them
# (the oldest release's control plane before the later binaries): the session then
# starts no second builder (a test still builds what it needs and finds missing).
BUILDS_ELSEWHERE = "ARENAFS_CLUSTER_BUILDS_ELSEWHERE"
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")


def pytest_configure(config):
    config.addinivalue_line("markers", "own_real_cluster: the test starts a real cluster of "
                            "its own (tests/cluster/up): it is one of the real tests")
    config.addinivalue_line("markers", "later_binary(name): the test needs an upstream "
                            "binary built after the real cluster's; it runs last among "
                            "the real tests")


def _needs_real(item):
    if _REAL_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if item.get_closest_marker("own_real_cluster") is not None:
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "real" in callspec.params.values()


def _module(item):
    return item.nodeid.split("::")[0]


def _real_groups(real):
    """{module: xdist group} of the real tests. With three workers or more (make
    test's TEST_JOBS), two groups, each on a cluster of its own (the session's
    one cluster is per worker process), so that the real tests, the longest
    serial part of a run, take half the wall clock; the others run the kubesim
    tests meanwhile. A module stays whole (its tests may build on each other);
    modules go to the lighter group, heaviest first, a test that starts a cluster
    of its own weighing as three. Every worker computes the same split."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    weight = {}
    for i in real:
        own = i.get_closest_marker("own_real_cluster") is not None
        weight[_module(i)] = weight.get(_module(i), 0) + (3 if own else 1)
    if workers < 3:
        return {m: "real-cluster" for m in weight}
    load = {"real-cluster-1": 0, "real-cluster-2": 0}
    groups = {}
    for m in sorted(weight, key=lambda m: (-weight[m], m)):
        g = min(load, key=lambda g: (load[g], g))
        groups[m] = g
        load[g] += weight[m]
    return groups


# tryfirst: xdist reads the group marks in its own modifyitems hook
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    real, kubesim_only = [], []
    for i in items:
        (real if _needs_real(i) else kubesim_only).append(i)
    real.sort(key=lambda i: i.get_closest_marker("later_binary") is not None)
    if _XDIST_WORKER is None:
        items[:] = kubesim_only + real
        return
    groups = _real_groups(real)
    for i in real:
        i.add_marker(pytest.mark.xdist_group(groups[_module(i)]))
    for i in kubesim_only:
        i.add_marker(pytest.mark.xdist_group(_module(i)))
    items[:] = real + kubesim_only


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Tells RealCluster whether this test counts as a real one: one that does not
    and starts a cluster anyway fails, saying so, instead of waiting for the build
    (or starting a second cluster) on a kubesim worker."""
    os.environ[realcluster.TEST_NEEDS_REAL] = "1" if _needs_real(item) else "0"


def pytest_collection_finish(session):
    """Starts the real cluster's build when a selected test needs it (one
    builder per run: under xdist, the first worker's)."""
    if (realcluster.CLUSTER_CHOICE == "kubesim" or session.config.option.collectonly
            or os.environ.get(BUILDS_ELSEWHERE)
            or _XDIST_WORKER not in (None, "gw0")
            or not any(_needs_real(i) for i in session.items)):
        return
    log = tempfile.NamedTemporaryFile(prefix="arenafs-cluster-build-", suffix=".log",
                                      delete=False)
    _build["log"] = log.name
    _build["proc"] = subprocess.Popen([os.path.join(HERE, "cluster", "build")], stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
    log.close()


def _stop_build():
    proc = _build.pop("proc", None)
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
    if "log" in _build:
        os.unlink(_build.pop("log"))


def pytest_sessionfinish(session, exitstatus):
    _stop_build()
    c = _real.pop("cluster", None)
    if c is not None:
        c.stop()
        shutil.rmtree(c.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def real_monitoring(real_cluster):
    """Prometheus and the stand-in GPU exporter beside the session's real
    cluster (realcluster.Monitoring) for one test module, stopped after it.
    Prometheus is built after the cluster: mark the module later_binary("prometheus")."""
    m = realcluster.Monitoring(real_cluster)
    yield m
    m.stop()


@pytest.fixture
def real_namespace(real_cluster, request):
    """A fresh namespace of the real cluster for one test, deleted after it
    (with everything in it) so that tests sharing the cluster never meet."""
    name = real_cluster.fresh_namespace("t-" + request.node.name)
    yield name
    real_cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def real_view(real_cluster, real_namespace):
    """The real cluster seen through real_namespace: kubectl and a mount of it
    default to that namespace (c.namespace names it)."""
    return real_cluster.namespaced(real_namespace)


@pytest.fixture
def private_real_view(tmp_path):
    """A real cluster of the test's own, seen through a fresh namespace as real_view
    is, stopped at the test's end: for a test that restarts part of the control
    plane, which can leave the cluster unable to run pods for minutes (seen once:
    after kube-apiserver came back, no new pod started), so it must not be the
    session's cluster that every later test shares."""
    if realcluster.CLUSTER_CHOICE == "kubesim":
        pytest.skip("ARENAFS_CLUSTER=kubesim: no real cluster asked for")
    d = tempfile.mkdtemp(prefix="arenafs-real-own-")
    try:
        c = realcluster.RealCluster(d)
    except Exception as e:  # noqa: every failure to start is reported the same way
        subprocess.run([realcluster.DOWN, d], timeout=120)
        shutil.rmtree(d, ignore_errors=True)
        pytest.fail("a real cluster of the test's own did not start: %s" % e, pytrace=False)
    try:
        yield c.namespaced(c.fresh_namespace("t-" + tmp_path.name))
    finally:
        c.stop()
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(params=realcluster.cluster_params())
def any_cluster(request, kubesim):
    """A cluster for a test that means the same on both: a new kubesim with two
    8-GPU nodes, or the session's real cluster (four 8-GPU kwok nodes) as
    real_view shows it."""
    if request.param == "real":
        return request.getfixturevalue("real_view")
    return kubesim("--nodes", "2", "--gpus", "8")
