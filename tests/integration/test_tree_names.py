"""Names of jobs/ (issue 33, items 1 and 2): every name of a directory is unique
and always stands for the same object, whatever other objects are called; rmdir
deletes exactly the object its folder shows. RayJob, SparkApplication, Volcano
Job and TrainJob names may hold dots (DNS-1123 subdomains of up to 253
characters), so a RayJob may be called `mnist.tfjob`, the name the tree gives
the TFJob `mnist` while a PyTorchJob `mnist` exists (docs/tree.md, "Two kinds of
job with one name"). On kubesim with the CRDs of Arena's other kinds
(--arena-kinds); kubesim's `store` fault puts objects in with the creation time
given, so that several are made "in the same second". On the real cluster (its
API server, the training-operator, KubeRay's RayJob CRD): the same names from
real objects, and rmdir of each folder as the API server carries it out."""

import errno
import json
import os
import subprocess

import pytest

from helpers import wait_until
import jobspecs
from test_tree_arena_kinds import install_crds
import tree_expect as te

SECOND = "2026-12-07T08:00:00Z"      # one creationTimestamp for all: a tie in jobs/' order
TF = ("tfjobs.kubeflow.org", "TFJob")
PT = ("pytorchjobs.kubeflow.org", "PyTorchJob")
RAY = ("rayjobs.ray.io", "RayJob")
SPARK = ("sparkapplications.sparkoperator.k8s.io", "SparkApplication")


def rayjob(name):
    return {"apiVersion": "ray.io/v1", "kind": "RayJob",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"entrypoint": "python train.py", "rayClusterSpec": {
                "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [
                    {"name": "ray-head", "image": "rayproject/ray:2.9.0"}]}}}}}}


def sparkapp(name):
    return {"apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"type": "Python", "mode": "cluster", "image": "apache/spark:3.5.0",
                     "driver": {"cores": 1}, "executor": {"instances": 1}}}


def store(c, resource, obj, created=SECOND):
    """obj put in as made at `created` (kubesim's store fault)."""
    obj = json.loads(json.dumps(obj))
    obj["metadata"].setdefault("namespace", "default")
    obj["metadata"]["creationTimestamp"] = created
    c.fault(store={"resource": resource, "object": obj})


def uid(c, kind, name):
    return c.kubectl_json("get", kind[0], name)["metadata"]["uid"]


def exists(c, kind, name):
    return c.kubectl("get", kind[0], name, check=False).returncode == 0


@pytest.fixture
def cluster(kubesim):
    return kubesim("--nodes", "1", "--gpus", "8", "--arena-kinds")


def test_a_rayjob_named_like_a_suffixed_tfjob_takes_no_other_jobs_name(cluster, arenafs):
    """Issue 33: a RayJob `mnist.tfjob` made in the same second as a TFJob and a
    PyTorchJob `mnist` aborted the daemon at every `ls jobs/` (two entries
    `mnist.tfjob`), and `rmdir jobs/mnist.tfjob` deleted the RayJob."""
    c = cluster
    store(c, TF[0], jobspecs.tfjob("mnist", gpus=0, run=3600))
    store(c, PT[0], jobspecs.pytorchjob("mnist", gpus=0, run=3600))
    store(c, RAY[0], rayjob("mnist.tfjob"))
    m = arenafs(c)
    want = ["mnist.pytorchjob", "mnist.tfjob", "mnist.tfjob.rayjob"]
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) == want, timeout=30,
               message="jobs/ to list %s" % want)
    # ls -U: one entry each, in jobs/' order (a tie in time: by name), twice the same
    r = subprocess.run(["ls", "-U", m.path("jobs")], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == want, (r.returncode, r.stdout, r.stderr)
    for d, kind, typ in (("mnist.tfjob", TF, "tfjob"), ("mnist.pytorchjob", PT, "pytorchjob"),
                         ("mnist.tfjob.rayjob", RAY, "rayjob")):
        name = "mnist.tfjob" if kind is RAY else "mnist"
        assert m.read("jobs", d, "type") == typ + "\n", d
        shown = json.loads(m.read("jobs", d, "job.json"))["metadata"]
        assert (shown["name"], shown["uid"]) == (name, uid(c, kind, name)), d
    # rmdir deletes what the folder shows: the TFJob, not the RayJob
    os.rmdir(m.path("jobs", "mnist.tfjob"))
    assert not exists(c, TF, "mnist")
    assert exists(c, RAY, "mnist.tfjob") and exists(c, PT, "mnist")
    # the PyTorchJob alone holds mnist again; the RayJob keeps its name
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) == ["mnist", "mnist.tfjob.rayjob"],
               timeout=30, message="jobs/ after the rmdir")
    assert m.read("jobs", "mnist", "type") == "pytorchjob\n"
    assert not os.path.exists(m.path("jobs", "mnist.tfjob"))
    assert m.proc.poll() is None


def test_names_longer_than_a_file_name_are_never_listed(cluster, arenafs):
    """Issue 33: jobs/ listed names of 257 and 259 bytes (a 253-character name with
    its kind added), though statfs says 255. Such a job is not listed; a name that
    fits is, at any length up to 255."""
    c = cluster
    long = "r" * 253                      # the longest name a RayJob may have
    fits = "s" * 246                      # + ".sparkjob" (9) = 255 bytes
    store(c, RAY[0], rayjob(long))
    store(c, SPARK[0], sparkapp(long))
    store(c, RAY[0], rayjob(fits))
    store(c, SPARK[0], sparkapp(fits))
    store(c, RAY[0], rayjob("alone" + "x" * 248))       # 253, held by one kind: as it is
    m = arenafs(c)
    want = sorted([fits + ".rayjob", fits + ".sparkjob", "alone" + "x" * 248])
    seen = []

    def listed():
        seen[:] = sorted(os.listdir(m.path("jobs")))
        return seen == want
    wait_until(listed, timeout=30, message="jobs/ to list only the names that fit")
    assert os.statvfs(m.path("jobs")).f_namemax == 255
    assert all(len(n.encode()) <= 255 for n in os.listdir(m.path("jobs")))
    assert m.read("jobs", fits + ".sparkjob", "type") == "sparkjob\n"
    assert m.read("jobs", "alone" + "x" * 248, "type") == "rayjob\n"
    assert set(want) == set(te.job_dir_names(
        [c.kubectl_json("get", RAY[0], n) for n in (long, fits, "alone" + "x" * 248)] +
        [c.kubectl_json("get", SPARK[0], n) for n in (long, fits)]))
    # the ones that do not fit are in arena list's table
    listed = m.read("cluster", "list")
    assert long in listed, listed


def test_rmdir_deletes_only_the_object_its_folder_shows(cluster, arenafs):
    """Issue 33: rmdir checks the uid at delete time. The TFJob `ghost` is deleted
    and made again while the mount's watch of TFJobs lags (kubesim holds the
    re-watch back): the folder still shows the old one, and rmdir must not delete
    the new one, which nobody has seen in the tree."""
    c = cluster
    jobspecs.create(c, jobspecs.tfjob("ghost", gpus=0, run=3600))
    # the re-watch held back may outlast the watch's own deadline (a slow machine,
    # the ASan build): then the mount rightly says the cluster is unreachable
    # until it answers, which this test does not look at
    m = arenafs(c, allow=[r"rmdir default/ghost: not deleted: the TFJob ghost the cluster "
                          r"holds now is another job",
                          r"^arenafs: the cluster is unreachable; serving the last state",
                          r"^arenafs: the cluster is reachable again$"])
    wait_until(lambda: os.path.isdir(m.path("jobs", "ghost")), timeout=30,
               message="jobs/ghost")
    old = json.loads(m.read("jobs", "ghost", "job.json"))["metadata"]["uid"]
    watch = r"^GET /apis/kubeflow\.org/v1/(namespaces/[^/]+/)?tfjobs\?(.*&)?watch="
    c.fault(delay_ms=20000, delay_match=watch)
    c.fault(drop_watches=True)
    c.kubectl("delete", TF[0], "ghost", "--wait=false")
    jobspecs.create(c, jobspecs.tfjob("ghost", gpus=0, run=3600))
    new = uid(c, TF, "ghost")
    assert new != old
    assert json.loads(m.read("jobs", "ghost", "job.json"))["metadata"]["uid"] == old
    with pytest.raises(OSError) as e:
        os.rmdir(m.path("jobs", "ghost"))
    assert e.value.errno == errno.EBUSY
    assert uid(c, TF, "ghost") == new            # the new job is still there
    assert "not deleted: the TFJob ghost the cluster holds now is another job" in m.log()
    c.fault(delay_ms=0)
    c.fault(drop_watches=True)
    wait_until(lambda: json.loads(m.read("jobs", "ghost", "job.json"))["metadata"]["uid"]
               == new, timeout=40, message="jobs/ghost to show the new job")
    os.rmdir(m.path("jobs", "ghost"))
    assert not exists(c, TF, "ghost")


@pytest.fixture
def arena_crds(real_cluster, request):
    """The CRDs of Arena's other kinds on the real cluster (KubeRay's RayJob among
    them), removed after the test's mount is gone: set up before arenafs, so torn
    down after it."""
    install_crds(real_cluster, request)


def test_a_dotted_rayjob_beside_a_tfjob_on_the_real_cluster(real_view, arena_crds, arenafs):
    """Issue 33, items 1 and 2, on the real cluster: a TFJob `mnist` and a RayJob
    `mnist.tfjob` (KubeRay's CRD takes a dotted name; Kubeflow Trainer's TrainJob
    CRD does not: it asks an RFC 1035 label), then a PyTorchJob `mnist`. jobs/
    lists distinct names by the rule of docs/tree.md, each folder's `type`,
    `info` and `job.json` describe one object (kubectl's uid), and rmdir of each
    folder deletes that object only, as kubectl sees it."""
    c = real_view
    # why not a TrainJob: Trainer's CRD refuses the name (a CEL rule on metadata.name)
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps({
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "mnist.tfjob"},
        "spec": {"runtimeRef": {"name": "torch-distributed"}}}))
    assert r.returncode != 0 and "RFC 1035" in r.stderr, (r.returncode, r.stdout, r.stderr)
    tf = jobspecs.tfjob("mnist", gpus=0, run=3600)
    jobspecs.create(c, tf)
    jobspecs.create(c, dict(rayjob("mnist.tfjob"), metadata={"name": "mnist.tfjob"}))
    m = arenafs(c, "namespace=" + c.namespace)
    seen = []

    def lists(want):
        seen[:] = sorted(os.listdir(m.path("jobs")))
        return seen == want
    # one kind holds `mnist`: as it stands; the RayJob's name ends in .tfjob: its kind added
    want = ["mnist", "mnist.tfjob.rayjob"]
    wait_until(lambda: lists(want), timeout=60, message="jobs/ to list %s (lists %s)"
               % (want, seen))
    jobspecs.create(c, jobspecs.pytorchjob("mnist", gpus=0, run=3600))
    want = ["mnist.pytorchjob", "mnist.tfjob", "mnist.tfjob.rayjob"]
    wait_until(lambda: lists(want), timeout=60, message="jobs/ to list %s (lists %s)"
               % (want, seen))
    r = subprocess.run(["ls", "-U", m.path("jobs")], capture_output=True, text=True)
    assert r.returncode == 0 and sorted(r.stdout.split()) == want, (r.stdout, r.stderr)
    assert len(set(r.stdout.split())) == 3, r.stdout
    folders = {"mnist.tfjob": (TF, "mnist", "tfjob"),
               "mnist.pytorchjob": (PT, "mnist", "pytorchjob"),
               "mnist.tfjob.rayjob": (RAY, "mnist.tfjob", "rayjob")}
    for d, (kind, name, typ) in folders.items():
        assert m.read("jobs", d, "type") == typ + "\n", d
        shown = json.loads(m.read("jobs", d, "job.json"))
        assert (shown["kind"], shown["metadata"]["name"], shown["metadata"]["uid"]) == \
            (kind[1], name, uid(c, kind, name)), d
        info = m.read("jobs", d, "info")
        assert [ln.split(None, 1)[1:] for ln in info.splitlines() if ln.startswith("Name:")] \
            == [[name]], info
    # rmdir of each folder deletes its object and nothing else (kubectl says); once
    # the TFJob is gone the PyTorchJob alone holds `mnist`: its folder is jobs/mnist
    left = {TF: "mnist", PT: "mnist", RAY: "mnist.tfjob"}
    for d, kind, name, after in (("mnist.tfjob.rayjob", RAY, "mnist.tfjob",
                                  ["mnist.pytorchjob", "mnist.tfjob"]),
                                 ("mnist.tfjob", TF, "mnist", ["mnist"]),
                                 ("mnist", PT, "mnist", [])):
        if d == "mnist":
            assert m.read("jobs", d, "type") == "pytorchjob\n"
        os.rmdir(m.path("jobs", d))
        del left[kind]
        wait_until(lambda: not exists(c, kind, name), timeout=60,
                   message="kubectl to find %s %s deleted" % (kind[1], name))
        for k, n in left.items():
            assert exists(c, k, n), "rmdir jobs/%s deleted %s %s too" % (d, k[1], n)
        wait_until(lambda: lists(after), timeout=60, message="jobs/ to list %s after rmdir "
                   "jobs/%s (lists %s)" % (after, d, seen))
    assert m.proc.poll() is None
