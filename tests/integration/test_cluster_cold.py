"""The real cluster started from a cache missing a module, as on a fresh machine.

On a fresh machine every module of tests/cluster/ is built by whoever asks
first: `up` (make demo CLUSTER=real, or make test's real worker) or the
background builder that make test and .ci/run start (tests/cluster/build).
Each test here gives `up` a cache of its own holding every module of the
machine's cache but Kubeflow's (Trainer and Kueue: the module `up` names twice,
which broke every fresh machine where `up` built it), so the build really
runs (from Go's warm build cache: it links, a minute or so, instead of the
first build's minutes of compiling):

- `up` alone builds the module and starts a cluster that answers kubectl;
- `up` and the background builder at once (make test's two builders) both
  succeed, the module is built once, and no bin.tmp/ is left.

The whole build from empty caches is what CI's fresh run measures
(docs/real-cluster.md, "A fresh machine, minute by minute").
"""

import os
import subprocess
import sys

import pytest

import realcluster

sys.path.insert(0, os.path.join(os.path.dirname(realcluster.__file__), "cluster"))
import cluster  # noqa: E402

BUILD = os.path.join(os.path.dirname(realcluster.UP), "build")
MISSING = "kubeflow"   # the module up names twice (trainer-controller-manager, kueue)


@pytest.fixture
def cache_missing_a_module(tmp_path):
    """A cache of symlinks to the machine's built modules, all but MISSING's.
    The machine's cluster binaries are built first (by this process if need be)."""
    cluster.build(cluster.CLUSTER_BINARIES)
    real = cluster.cache_root()
    missing = os.path.basename(cluster.component_dir(MISSING))
    cache = tmp_path / "cache"
    cache.mkdir()
    for entry in os.listdir(real):
        if entry != missing and not entry.startswith(".") and not entry.endswith(".tmp"):
            os.symlink(os.path.join(real, entry), cache / entry)
    env = dict(os.environ, ARENAFS_CLUSTER_CACHE=str(cache))
    assert not os.path.exists(cache / missing)
    return env, cache / missing


def start_up(directory, env):
    log = open(os.path.join(str(directory), "up.log"), "w")
    return subprocess.Popen([realcluster.UP, str(directory), "--nodes", "1", "--gpus", "1"],
                            env=env, stdout=log, stderr=subprocess.STDOUT), log


def finish(proc, log, what):
    try:
        rc = proc.wait(timeout=1800)
    finally:
        log.close()
    with open(log.name) as f:
        text = f.read()
    assert rc == 0, "%s failed (%d):\n%s" % (what, rc, text[-6000:])
    return text


def builds_of(text, name):
    """How many times a log says it started building NAME
    ("cluster: building A, B (module version): ...")."""
    head = "cluster: building "
    return sum(line[len(head):].split(" (")[0].split(", ").count(name)
               for line in text.splitlines() if line.startswith(head))


def assert_running(directory):
    kubeconfig = os.path.join(str(directory), "kubeconfig")
    r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "get", "nodes", "-o", "name"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip(), (r.stdout, r.stderr)


def assert_whole(moddir):
    assert not os.path.exists(str(moddir) + "/bin.tmp"), os.listdir(str(moddir))
    for n in ("trainer-controller-manager", "kueue"):
        assert os.access(os.path.join(str(moddir), "bin", n), os.X_OK), n


@pytest.mark.own_real_cluster
def test_up_alone_builds_a_missing_module_and_starts(cache_missing_a_module, tmp_path):
    env, moddir = cache_missing_a_module
    plane = tmp_path / "cluster"
    plane.mkdir()
    proc, log = start_up(plane, env)
    try:
        text = finish(proc, log, "up")
        assert builds_of(text, "trainer-controller-manager") == 1, text[-3000:]
        assert_running(plane)
        assert_whole(moddir)
    finally:
        subprocess.run([realcluster.DOWN, str(plane)], timeout=300)


@pytest.mark.own_real_cluster
def test_up_and_the_background_builder_at_once_build_the_module_once(
        cache_missing_a_module, tmp_path):
    env, moddir = cache_missing_a_module
    plane = tmp_path / "cluster"
    plane.mkdir()
    blog = open(str(tmp_path / "build.log"), "w")
    # what make test's background builder asks, less the modules this cache
    # shares with the machine's (another builder may be writing those)
    builder = subprocess.Popen([BUILD] + cluster.CLUSTER_BINARIES + ["kueuectl"], env=env,
                               stdout=blog, stderr=subprocess.STDOUT)
    proc, log = start_up(plane, env)
    try:
        up_text = finish(proc, log, "up")
        build_text = finish(builder, blog, "build")
        both = up_text + build_text
        assert builds_of(both, "trainer-controller-manager") == 1, both[-4000:]
        assert builds_of(both, "kueue") == 1, both[-4000:]
        assert_running(plane)
        assert_whole(moddir)
        # the builder went on to kueuectl, of the same module, whole too
        assert os.access(os.path.join(str(moddir), "bin", "kueuectl"), os.X_OK)
    finally:
        if builder.poll() is None:
            builder.kill()
        subprocess.run([realcluster.DOWN, str(plane)], timeout=300)
