"""The kinds Arena lists beyond the training-operator's (issue 14): ETJob
(et-operator's TrainingJob, also Arena's DeepSpeedJob), Volcano Job,
SparkApplication and RayJob, listed read-only where their CRDs exist, with the
status in Arena's words (docs/tree.md "Status words"), their pods as instances
found by the operators' labels or Arena's app/release, their logs, and a spec of
their type refused.

No operator runs them: the test makes each job, writes its status through the
status subresource as the operator would, and makes its pods with the labels the
operator (or Arena's chart) gives them. On kubesim (--arena-kinds) and on the
real cluster, where the module installs the CRDs from the Go modules that ship
them (Arena's for the TrainingJob, KubeRay's for the RayJob, pinned in
tests/cluster/arena and tests/cluster/crds) and, for Volcano and Spark, whose
modules the proxy refuses, the stand-ins of tests/cluster/crds/stand-ins.yaml;
it deletes them at its end.

It also submits a TrainJob from the small spec (type: trainjob): kubesim's
Trainer stand-in and, on the real cluster, Kubeflow Trainer v2 with JobSet
(started by tests/cluster/up, whose CRD it is) run its nodes.
test_real_kubeflow_v2.py follows a TrainJob's whole life on the real one."""

import errno
import json
import os
import re
import sys

import pytest

from helpers import first_line, wait_until
import realcluster

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER_DIR = os.path.join(HERE, "..", "cluster")

# (kubectl resource, apiVersion, kind) of each job kind
ET = ("trainingjobs.kai.alibabacloud.com", "kai.alibabacloud.com/v1alpha1", "TrainingJob")
VOLCANO = ("jobs.batch.volcano.sh", "batch.volcano.sh/v1alpha1", "Job")
SPARK = ("sparkapplications.sparkoperator.k8s.io", "sparkoperator.k8s.io/v1beta2",
         "SparkApplication")
RAY = ("rayjobs.ray.io", "ray.io/v1", "RayJob")


TRAINJOBS = "trainjobs.trainer.kubeflow.org"


def crd_files():
    """The CRD files of the four kinds, from the pinned modules' sources (and
    the stand-ins)."""
    sys.path.insert(0, CLUSTER_DIR)
    import cluster
    arena = cluster.module_source("arena", "github.com/kubeflow/arena")
    ray = cluster.module_source("crds", "github.com/ray-project/kuberay/ray-operator")
    return [os.path.join(arena, "arena-artifacts", "crds", "kai.alibabacloud.com_trainingjobs.yaml"),
            os.path.join(ray, "config", "crd", "bases", "ray.io_rayjobs.yaml"),
            os.path.join(CLUSTER_DIR, "crds", "stand-ins.yaml")]


def install_crds(real, request):
    """The four kinds' CRDs, deleted at the module's end. TrainJob's is up's
    (Trainer runs on the real cluster): neither installed nor deleted here."""
    names = [k[0] for k in (ET, VOLCANO, SPARK, RAY)]
    # waited for: a later test's mount must not meet them half gone
    request.addfinalizer(lambda: real.kubectl("delete", "crd", "--timeout=120s", *names,
                                              check=False, timeout=150))
    for f in crd_files():
        real.kubectl("apply", "--server-side", "--force-conflicts", "-f", f, timeout=120)
    # kubectl wait fails outright on a CRD the API server has not given conditions yet
    wait_until(lambda: real.kubectl("wait", "--for=condition=Established", "--timeout=10s",
                                    *["crd/" + n for n in names], check=False).returncode == 0,
               timeout=60, message="the CRDs Established")


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def cluster(request, kubesim_module):
    if request.param == "real":
        real = request.getfixturevalue("real_cluster")
        install_crds(real, request)
        return realcluster.module_view(request)
    return kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "20", "--arena-kinds")


def create(c, obj):
    c.kubectl("create", "-f", "-", input=json.dumps(obj))


def set_status(c, kind, name, status):
    c.kubectl("patch", kind[0], name, "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": status}))


def job(kind, name, labels, spec):
    return {"apiVersion": kind[1], "kind": kind[2],
            "metadata": {"name": name, "labels": labels}, "spec": spec}


def template(container, image, gpus=0):
    c = {"name": container, "image": image}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return {"spec": {"containers": [c]}}


def pod(name, labels):
    """A pod that runs until deleted, on kubesim and on kwok."""
    env = [{"name": "SIM_RUN_SECONDS", "value": "100000"}, {"name": "KWOK_RUN", "value": "forever"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "main", "image": "busybox:1.36",
                                     "command": ["sh", "-c", "train"], "env": env}]}}


ET_STATUS = {"conditions": [], "replicaStatuses": {}, "restartCount": 0}


@pytest.fixture(scope="module")
def env(cluster, arenafs_module):
    """One job of each kind, with its status and pods, and a mount."""
    c = cluster
    et_labels = {"app": "etjob", "release": "elastic"}
    create(c, job(ET, "elastic", et_labels, {"etReplicaSpecs": {
        "launcher": {"replicas": 1, "template": template("et", "horovod:0.22")},
        "worker": {"replicas": 2, "maxReplicas": 4, "minReplicas": 1,
                   "template": template("et", "horovod:0.22", gpus=1)}}}))
    set_status(c, ET, "elastic", dict(ET_STATUS, phase="Running"))
    et_pod = {"app": "etjob", "release": "elastic", "group-name": "kai.alibabacloud.com",
              "training-job-name": "elastic"}
    create(c, pod("elastic-launcher", dict(et_pod, **{"training-job-role": "launcher"})))
    create(c, pod("elastic-worker-0", dict(et_pod, **{"training-job-role": "worker"})))
    # Arena's DeepSpeedJob: the same CRD, app=deepspeedjob; no launcher yet
    create(c, job(ET, "ds", {"app": "deepspeedjob", "release": "ds"}, {"etReplicaSpecs": {
        "launcher": {"replicas": 1, "template": template("ds", "deepspeed:0.9")},
        "worker": {"replicas": 1, "template": template("ds", "deepspeed:0.9", gpus=2)}}}))
    set_status(c, ET, "ds", dict(ET_STATUS, phase="Running"))

    create(c, job(VOLCANO, "vc", {"app": "volcanojob", "release": "vc"}, {
        "minAvailable": 2, "schedulerName": "volcano", "tasks": [
            {"name": "driver", "replicas": 1, "template": template("driver", "ubuntu:22.04")},
            {"name": "worker", "replicas": 1,
             "template": template("worker", "ubuntu:22.04", gpus=1)}]}))
    set_status(c, VOLCANO, "vc", {"state": {"phase": "Inqueue"}})
    for task in ("driver", "worker"):
        create(c, pod("vc-%s-0" % task, {"volcano.sh/job-name": "vc",
                                         "volcano.sh/task-spec": task}))

    create(c, job(SPARK, "pi", {"app": "sparkjob", "release": "pi"}, {
        "type": "Scala", "mode": "cluster", "image": "apache/spark:3.5.0",
        "mainClass": "org.apache.spark.examples.SparkPi", "driver": {"cores": 1},
        "executor": {"instances": 2, "gpu": {"name": "nvidia.com/gpu", "quantity": 1}}}))
    set_status(c, SPARK, "pi", {"applicationState": {"state": "COMPLETED"}})

    create(c, job(RAY, "sample", {}, {
        "entrypoint": "python /home/ray/samples/sample_code.py",
        "rayClusterSpec": {
            "headGroupSpec": {"rayStartParams": {},
                              "template": template("ray-head", "rayproject/ray:2.9.0")},
            "workerGroupSpecs": [{"groupName": "gpu-group", "replicas": 1, "rayStartParams": {},
                                  "template": template("ray-worker", "rayproject/ray:2.9.0",
                                                       gpus=1)}]}}))
    set_status(c, RAY, "sample", {"jobStatus": "STOPPED"})
    create(c, pod("sample-head", {"ray.io/originated-from-cr-name": "sample",
                                  "ray.io/originated-from-crd": "RayJob",
                                  "ray.io/node-type": "head"}))
    return c, arenafs_module(c)


JOBS = {"elastic": "etjob", "ds": "deepspeedjob", "vc": "volcanojob", "pi": "sparkjob",
        "sample": "rayjob"}


def test_listed_with_their_type_and_arenas_trainer(env):
    c, m = env
    wait_until(lambda: set(JOBS) <= set(os.listdir(m.path("jobs"))),
               message="the four kinds' jobs in jobs/")
    for name, typ in JOBS.items():
        assert m.read("jobs", name, "type") == typ + "\n"
        info = m.read("jobs", name, "info")
        assert re.search(r"^Trainer: +%s$" % typ.upper(), info, re.M), info
    assert json.loads(m.read("jobs", "pi", "job.json"))["kind"] == "SparkApplication"
    # and in arena list's table, with their trainer
    rows = {line.split()[0]: line.split() for line in m.read("cluster", "list").splitlines()[1:]
            if line.strip()}
    for name, typ in JOBS.items():
        assert typ.upper() in rows.get(name, []), m.read("cluster", "list")


def test_status_in_arenas_words_and_following_the_job(env):
    c, m = env
    want = {"elastic": "RUNNING", "ds": "PENDING", "vc": "SUBMITTED", "pi": "SUCCEEDED",
            "sample": "STOPPED"}

    def statuses():
        return {n: m.read("jobs", n, "status").strip() for n in want}
    wait_until(lambda: statuses() == want,
               message="status words %s (have %s)" % (want, statuses()))
    set_status(c, VOLCANO, "vc", {"state": {"phase": "Completed"}})
    set_status(c, RAY, "sample", {"jobStatus": ""})
    set_status(c, ET, "elastic", dict(ET_STATUS, phase="Scaling"))
    want.update(vc="SUCCEEDED", sample="PENDING", elastic="SCALING")
    wait_until(lambda: statuses() == want,
               message="status words after the change %s (have %s)" % (want, statuses()))


def test_pods_found_by_labels_are_instances_with_logs(env):
    c, m = env
    want = {"elastic": ["elastic-launcher", "elastic-worker-0"],
            "vc": ["vc-driver-0", "vc-worker-0"], "sample": ["sample-head"], "pi": [], "ds": []}
    wait_until(lambda: {n: sorted(os.listdir(m.path("jobs", n, "instances")))
                        for n in want} == want,
               message="instances of each job: %s" % want)
    wait_until(lambda: m.read("jobs", "elastic", "instances", "elastic-launcher",
                              "status") == "Running\n",
               message="the launcher Running")
    # the main instance: the launcher, the driver, the head; its log as kubectl's
    for name, main in (("elastic", "elastic-launcher"), ("vc", "vc-driver-0"),
                       ("sample", "sample-head")):
        def same():
            want_log = c.kubectl("logs", main, "-c", "main").stdout
            return want_log != "" and m.read("jobs", name, "logs").startswith(
                want_log.splitlines()[0])
        wait_until(same, message="jobs/%s/logs is %s's log" % (name, main))


@pytest.mark.parametrize("typ", ["volcanojob", "deepspeedjob"])
def test_a_spec_of_their_type_is_refused(env, typ):
    c, m = env
    entry = "ro-" + typ
    try:
        with open(m.path("submit", entry + ".yaml"), "w") as f:
            f.write("type: %s\nimage: ubuntu:22.04\ncommand: train\n" % typ)
        rc = 0
    except OSError as e:
        rc = e.errno
    assert rc == errno.EINVAL
    error = m.read("submit", entry, "error")
    assert "is listed by arenafs, not submitted" in error, error
    assert c.kubectl("get", "%s,%s" % (ET[0], VOLCANO[0]), entry, check=False).returncode != 0


TRAINJOB_SPEC = """type: trainjob
runtime: torch-distributed
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
nodes: 2
gpus: 1
env: {SIM_RUN_SECONDS: "100000", KWOK_RUN: forever, EPOCHS: "3"}
"""


def test_a_trainjob_from_the_small_spec(env):
    c, m = env
    with open(m.path("submit", "llm.yaml"), "w") as f:
        f.write(TRAINJOB_SPEC)
    assert m.read("submit", "llm", "status") == "submitted\n"
    job = c.kubectl_json("get", TRAINJOBS, "llm")
    assert job["spec"]["runtimeRef"] == {"name": "torch-distributed",
                                         "apiGroup": "trainer.kubeflow.org",
                                         "kind": "ClusterTrainingRuntime"}
    trainer = job["spec"]["trainer"]
    assert trainer["image"] == "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime"
    assert trainer["command"] == ["sh", "-c", "torchrun train.py"]
    assert trainer["numNodes"] == 2
    assert trainer["resourcesPerNode"]["limits"] == {"nvidia.com/gpu": "1"}
    assert trainer["env"] == [{"name": "SIM_RUN_SECONDS", "value": "100000"},
                              {"name": "KWOK_RUN", "value": "forever"},
                              {"name": "EPOCHS", "value": "3"}]
    assert job["metadata"]["labels"]["app"] == "trainjob"
    assert job["metadata"]["labels"]["release"] == "llm"
    assert m.read("jobs", "llm", "type") == "trainjob\n"
    assert m.read("jobs", "llm", "spec.yaml") == "name: llm\n" + TRAINJOB_SPEC
    wait_until(lambda: m.read("jobs", "llm", "status") == "RUNNING\n" and
               len(os.listdir(m.path("jobs", "llm", "instances"))) == 2,
               timeout=90, message="the TrainJob running its two nodes")
    wait_until(lambda: first_line(m.read("jobs", "llm", "gpus")) == "2/2\n",
               message="its two nodes' GPUs held")


def test_arena_list_says_the_same_of_them(env, tmp_path):
    """The Arena CLI (tests/cluster/arena) lists the same jobs of these kinds with the
    same STATUS and TRAINER as cluster/list: the words are Arena's. On the real
    cluster, where Arena runs (test_arena_parity.py)."""
    from test_arena_parity import Arena, columns
    c, m = env
    if not isinstance(c, realcluster.RealCluster):
        pytest.skip("Arena runs on the real cluster; this is kubesim's run of the module")
    arena = Arena(realcluster.later_binary("arena", "the Arena CLI"), c.kubeconfig, c.namespace,
                  str(tmp_path))

    def rows(text):
        lines = [l for l in text.splitlines() if l.strip()]
        head = columns(lines[0])
        return {columns(l)[0]: dict(zip(head, columns(l))) for l in lines[1:]
                if not l.startswith("Cluster:")}

    def agree():
        theirs, ours = rows(arena.run("list")), rows(m.read("cluster", "list"))
        seen = {n: (r["STATUS"], r["TRAINER"]) for n, r in theirs.items() if n in JOBS}
        return seen and all(seen[n] == (ours[n]["STATUS"], ours[n]["TRAINER"]) for n in seen) \
            and (seen, {n: (ours[n]["STATUS"], ours[n]["TRAINER"]) for n in seen})
    got = wait_until(agree, timeout=30, interval=1,
                     message="arena list and cluster/list to agree on the new kinds' rows")
    # Arena lists every kind whose CRD is there and that carries its labels
    assert set(got[0]) >= {"elastic", "ds"}, got
