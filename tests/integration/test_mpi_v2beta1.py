"""MPIJob v2beta1 on the real cluster's `--mpi v2beta1` profile (tests/cluster/up):
the MPI operator v0.6.0 owns the MPIJob CRD and runs the job (launcher as a
batch Job NAME-launcher, workers as pods of the MPIJob), the training-operator
runs without MPIJob. A small spec of type mpijob makes the version the cluster
serves; status, the chief (the launcher), logs byte-equal to kubectl logs, GPUs
and rmdir are what kubectl says. The module starts a cluster of its own in that
profile and stops it at its end; kubesim's side is test_submit_objects.py
(--mpi-v2beta1) and this module's kubesim run of the same spec."""

import os
import shutil
import subprocess
import tempfile

import pytest

from helpers import wait_until
import realcluster
import tree_expect as te

SPEC = """type: mpijob
image: horovod/horovod:0.28.1
command: horovodrun -np 4 python train.py
gpus: 2
workers: 2
env: {KWOK_RUN: 20s, SIM_RUN_SECONDS: "100"}
"""


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def v2(request, kubesim_module, arenafs_module):
    """(cluster, mount): a cluster serving MPIJob as v2beta1, the real one
    started here in up's --mpi v2beta1 profile."""
    if request.param == "kubesim":
        c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "5", "--mpi-v2beta1")
        return c, arenafs_module(c)
    d = tempfile.mkdtemp(prefix="arenafs-real-mpi-")
    try:
        real = realcluster.RealCluster(d, mpi="v2beta1")
    except Exception as e:  # noqa: every failure to start is reported the same way
        subprocess.run([realcluster.DOWN, d], timeout=120)
        shutil.rmtree(d, ignore_errors=True)
        pytest.fail("the --mpi v2beta1 cluster did not start: %s" % e, pytrace=False)

    def stop():
        real.stop()
        shutil.rmtree(d, ignore_errors=True)
    request.addfinalizer(stop)
    view = real.namespaced(real.fresh_namespace("m-mpi-v2beta1"))
    return view, arenafs_module(view, "namespace=" + view.namespace)


def test_the_cluster_serves_mpijob_v2beta1_only(v2):
    c, m = v2
    served = c.kubectl("api-resources", "--api-group=kubeflow.org").stdout
    mpi = [l for l in served.splitlines() if l.startswith("mpijobs")]
    assert len(mpi) == 1 and "kubeflow.org/v2beta1" in mpi[0], served


def test_mpijob_v2beta1_runs_with_its_launcher_as_chief(v2):
    c, m = v2
    ns = getattr(c, "namespace", "default")
    with open(m.path("submit", "horovod.yaml"), "w") as f:
        f.write(SPEC)
    job = c.kubectl_json("get", "mpijobs.kubeflow.org", "horovod")
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    assert m.read("jobs", "horovod", "type") == "mpijob\n"

    def three_running():
        pods = te.pods_of_job(c.kubectl_json("get", "mpijobs.kubeflow.org", "horovod"),
                              te.pods(c, ns))
        launcher = [p for p in te.pods(c, ns) if te.is_launcher(p)]
        return len(pods) >= 2 and launcher and \
            all(p["status"].get("phase") == "Running" for p in pods + launcher) and \
            (pods, launcher)
    pods, launcher = wait_until(three_running, timeout=120,
                                message="two workers and the launcher running")
    # the launcher is a batch Job's pod (v2beta1), the workers the MPIJob's
    lname = launcher[0]["metadata"]["name"]
    owner = launcher[0]["metadata"]["ownerReferences"][0]
    assert owner["kind"] == "Job" and owner["name"] == "horovod-launcher", owner
    names = sorted({p["metadata"]["name"] for p in pods + launcher})
    wait_until(lambda: sorted(os.listdir(m.path("jobs", "horovod", "instances"))) == names,
               timeout=30, message="instances/: the launcher and the two workers")
    wait_until(lambda: m.read("jobs", "horovod", "status") == "RUNNING\n", timeout=30,
               message="status RUNNING")
    info = m.read("jobs", "horovod", "info")
    chief = [l for l in info.splitlines() if lname in l]
    assert chief and "true" in chief[0].lower(), info    # the launcher is the chief
    # a running container's log grows (kubesim's): what the tree shows first,
    # kubectl shows at least
    shown = m.read("jobs", "horovod", "logs")
    assert c.kubectl("logs", "-n", ns, lname).stdout.startswith(shown)
    for p in pods:
        pn = p["metadata"]["name"]
        shown = m.read("jobs", "horovod", "instances", pn, "logs")
        assert c.kubectl("logs", "-n", ns, pn).stdout.startswith(shown)
    assert m.read("jobs", "horovod", "gpus") == "4/4\n"

    wait_until(lambda: m.read("jobs", "horovod", "status") == "SUCCEEDED\n", timeout=120,
               message="status SUCCEEDED once the launcher ended")
    # ended: byte-equal (the workers are gone: cleanPodPolicy All; the
    # launcher's Job keeps its pod)
    assert m.read("jobs", "horovod", "logs") == c.kubectl("logs", "-n", ns, lname).stdout
    os.rmdir(m.path("jobs", "horovod"))
    wait_until(lambda: c.kubectl("get", "mpijobs.kubeflow.org", "horovod",
                                 check=False).returncode != 0,
               timeout=60, message="the MPIJob to be gone")
    wait_until(lambda: not [p for p in te.pods(c, ns)
                            if not p["metadata"].get("deletionTimestamp")],
               timeout=90, message="its pods to be deleted")
