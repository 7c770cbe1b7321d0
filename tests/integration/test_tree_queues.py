"""Kueue's queues in the tree (issue 25, "Queues"; docs/tree.md, "Queues"): the
small spec's `queue: NAME` labels the job for a LocalQueue; while Kueue holds
it its status is QUEUED, and why (and the head of info) says in which
LocalQueue and ClusterQueue it waits, its place in line (Kueue's visibility
API) and Kueue's own message; cluster/list and top-job say QUEUED;
cluster/queues and queues/list show each queue's GPU quota, use, and the jobs
admitted and waiting in line. A job Kueue evicts (its LocalQueue drained) reads
EVICTED, one it preempts for a job of higher priority PREEMPTED. A LocalQueue
that does not exist is refused at submit, and by check/'s dry run, naming
those that do.

On kubesim (--kueue: its Kueue model, docs/kubesim.md) and on the real cluster
(Kueue v0.17.0, tests/cluster/): each module makes its own LocalQueues in its
namespace, to the ClusterQueue cluster-queue (nvidia.com/gpu quota 8) the
clusters have, and one ClusterQueue of its own that preempts by priority."""

import errno
import json
import os
import subprocess

import pytest
import yaml

import realcluster
from helpers import wait_until, write_as_cp

LQ = "lq"
PRIO_CQ = "prio-queue"
PRIO_LQ = "lq-prio"
KUEUE = "kueue.x-k8s.io/v1beta2"
RUN = 'env: {SIM_RUN_SECONDS: "100000", KWOK_RUN: "forever"}\n'


def spec(kind, gpus, queue=LQ, extra=""):
    """A small spec of kind asking gpus GPUs in all, that runs until deleted."""
    body = {"tfjob": "type: tfjob\nimage: tensorflow/tensorflow:2.15.0-gpu\n"
                     "command: python train.py\ngpus: %d\n" % gpus,
            "pytorchjob": "type: pytorchjob\nimage: pytorch/pytorch:2.2.0\n"
                          "command: python train.py\ngpus: %d\n" % gpus,
            "mpijob": "type: mpijob\nimage: horovod/horovod:0.28.1\n"
                      "command: horovodrun python train.py\nworkers: 1\ngpus: %d\n" % gpus,
            "trainjob": "type: trainjob\nruntime: torch-distributed\n"
                        "image: pytorch/pytorch:2.2.0\ncommand: torchrun train.py\n"
                        "nodes: 1\ngpus: %d\n" % gpus}[kind]
    return body + "queue: %s\n" % queue + RUN + extra


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def namespace_of(c):
    return getattr(c, "namespace", None) or "default"


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def cluster(request, kubesim_module):
    if request.param == "real":
        c = realcluster.module_view(request)
    else:
        c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "20", "--kueue",
                           "--mpi-v2beta1")
    ns = namespace_of(c)
    # cluster-queue is the whole cluster's: free its quota for the modules after this
    request.addfinalizer(lambda: c.kubectl("delete", "tfjobs,pytorchjobs,trainjobs", "--all",
                                           "--wait=true", timeout=120, check=False))
    apply(c, {"apiVersion": KUEUE, "kind": "LocalQueue",
              "metadata": {"name": LQ, "namespace": ns},
              "spec": {"clusterQueue": "cluster-queue"}})
    apply(c, {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": PRIO_CQ},
              "spec": {"namespaceSelector": {},
                       "preemption": {"withinClusterQueue": "LowerPriority"},
                       "resourceGroups": [{"coveredResources": ["cpu", "memory",
                                                                "nvidia.com/gpu"],
                                           "flavors": [{"name": "default-flavor", "resources": [
                                               {"name": "cpu", "nominalQuota": "1000"},
                                               {"name": "memory", "nominalQuota": "4000Gi"},
                                               {"name": "nvidia.com/gpu",
                                                "nominalQuota": "4"}]}]}]}})
    request.addfinalizer(lambda: c.kubectl("delete", "clusterqueue", PRIO_CQ, "--wait=false",
                                           check=False))
    apply(c, {"apiVersion": KUEUE, "kind": "LocalQueue",
              "metadata": {"name": PRIO_LQ, "namespace": ns},
              "spec": {"clusterQueue": PRIO_CQ}})
    return c


@pytest.fixture(scope="module")
def mnt(cluster, arenafs_module):
    m = arenafs_module(cluster)
    wait_until(lambda: "\n%s " % LQ in "\n" + m.read("queues", "list"), timeout=60,
               message="queues/list shows LocalQueue " + LQ)
    return m


def submit(m, name, text):
    rc = write_as_cp(m.path("submit", name + ".yaml"), text)
    assert rc == 0, m.read("submit", name, "error")


def status(m, name):
    return m.read("jobs", name, "status").strip()


def rmjob(m, name):
    os.rmdir(m.path("jobs", name))


def queue_form(m, *path):
    """A queue file's JSON form (path without .json) read back with json.load and jq,
    and its YAML twin with yaml.safe_load: the same document but for the ages that
    tick between reads, each sized right in stat. The JSON's document."""
    def read():
        docs = []
        for ext in (".json", ".yaml"):
            p = path[:-1] + (path[-1] + ext,)
            text = m.read(*p)
            if os.stat(m.path(*p)).st_size != len(text.encode()):
                return None
            docs.append(json.loads(text) if ext == ".json" else yaml.safe_load(text))
        for d in docs:
            for q in d:
                q.pop("age")
        return (docs[0],) if docs[0] == docs[1] else None
    doc, = wait_until(read, timeout=30, interval=0.2,
                      message="%s.json and .yaml to agree, sized right" % "/".join(path))
    r = subprocess.run(["jq", "-e", "type", m.path(*path[:-1], path[-1] + ".json")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == '"array"', r
    return doc


# Keys of the queue forms that are fields of Kueue's objects: form key -> the field
QUEUE_FIELDS = {"pendingWorkloads": ("status", "pendingWorkloads"),
                "admittedWorkloads": ("status", "admittedWorkloads"),
                "creationTimestamp": ("metadata", "creationTimestamp")}


def agrees_with_object(entry, obj):
    """The form's entry says what the object's fields say (kubectl get -o json)."""
    for key, (part, field) in QUEUE_FIELDS.items():
        if entry[key] != obj.get(part, {}).get(field, 0):
            return False
    return entry["name"] == obj["metadata"]["name"]


def test_queued_jobs_wait_in_line_and_say_where_and_why(cluster, mnt):
    m, c = mnt, cluster
    ns = namespace_of(c)
    submit(m, "q-first", spec("tfjob", 4))
    submit(m, "q-second", spec("tfjob", 4))
    for name in ("q-first", "q-second"):
        wait_until(lambda: status(m, name) == "RUNNING", timeout=180, message=name + " RUNNING")
    # the queue's label is on the job, not a guess of the tree
    labels = c.kubectl_json("get", "tfjob", "q-first")["metadata"]["labels"]
    assert labels["kueue.x-k8s.io/queue-name"] == LQ
    submit(m, "q-third", spec("tfjob", 4))
    wait_until(lambda: status(m, "q-third") == "QUEUED", timeout=120, message="q-third QUEUED")
    why = wait_until(lambda: (lambda w: "place 1 in line" in w and w)(
        m.read("jobs", "q-third", "why")), timeout=60, message="q-third's place in line")
    assert why.startswith("Queued in LocalQueue %s (ClusterQueue cluster-queue), place 1 in "
                          "line (1 in its LocalQueue), waiting " % LQ), why
    assert ": Kueue says: couldn't assign flavors to pod set " in why, why
    assert "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, " \
           "4 more needed" in why, why
    info = m.read("jobs", "q-third", "info")
    assert info.startswith(why + "\n"), info
    assert "\nStatus:      QUEUED\n" in info and "\nQueue:       %s (ClusterQueue " \
           "cluster-queue), Workload tfjob-q-third-" % LQ in info, info
    assert m.read("jobs", "q-third", "gpus") == "0/4\n"
    rows = {l.split()[0]: l.split() for l in m.read("cluster", "list").splitlines()[1:] if l}
    assert rows["q-third"][1] == "QUEUED" and rows["q-first"][1] == "RUNNING", rows
    assert any(l.split()[:2] == ["q-third", "QUEUED"]
               for l in m.read("cluster", "top-job").splitlines()), m.read("cluster", "top-job")
    all_rows = [l.split() for l in m.read("cluster", "list-all").splitlines()]
    assert [ns, "q-third", "QUEUED"] in [r[:3] for r in all_rows], all_rows

    # the queue files: the LocalQueue and the ClusterQueue, each with its jobs
    # Kueue writes the queue's counts a moment after the Workloads' conditions
    wait_until(lambda: next(l.split() for l in m.read("queues", "list").splitlines()
                            if l.startswith(LQ + " "))[:6] ==
               [LQ, "cluster-queue", "8", "8", "1", "2"], timeout=60,
               message="queues/list: %s 8/8 GPUs, 1 pending, 2 admitted" % LQ)
    lqs = m.read("queues", "list")
    block = lqs.split("\nLocalQueue %s (ClusterQueue cluster-queue): 8 GPUs used\n" % LQ)[1]
    # what the LocalQueue uses of each resource of its ClusterQueue's quota, then its jobs
    used, jobs = block.split("  Admitted:\n")
    assert ["default-flavor", "nvidia.com/gpu", "8", "8"] in [
        l.split() for l in used.splitlines()], lqs
    admitted, waiting = jobs.split("  Waiting, in line:\n")
    assert [l.split()[1] for l in admitted.splitlines()[2:4]] == ["q-first", "q-second"], lqs
    first = waiting.splitlines()[2].split()
    assert first[:8] == ["1", ns, "q-third", "TFJOB", LQ, "4", "0", "QUEUED"], lqs
    cqs = m.read("cluster", "queues")
    assert "\nClusterQueue cluster-queue: 8/8 GPUs used\n" in cqs, cqs
    assert "q-third" in cqs.split("Waiting, in line:")[1], cqs

    # their JSON and YAML forms: the same facts, numbers as numbers, Kueue's fields
    def lq_form():
        doc = queue_form(m, "queues", "list")
        lq = next(q for q in doc if q["name"] == LQ)
        obj = c.kubectl_json("get", "localqueue", LQ)
        return (lq["clusterQueue"], lq["gpuQuota"], lq["gpusUsed"]) == \
            ("cluster-queue", 8, 8) and agrees_with_object(lq, obj) and \
            (lq["pendingWorkloads"], lq["admittedWorkloads"]) == (1, 2) and lq
    lq = wait_until(lq_form, timeout=60, interval=0.5,
                    message="queues/list.json: %s 8/8 GPUs, 1 pending, 2 admitted, as "
                            "kubectl's LocalQueue" % LQ)
    print("queues/list.json's %s: %s" % (LQ, json.dumps(lq)))
    assert [j["job"] for j in lq["admitted"]] == ["q-first", "q-second"], lq
    assert {k: lq["waiting"][0][k] for k in ("place", "namespace", "job", "trainer",
                                               "localQueue", "gpus", "priority", "state")} == \
        {"place": 1, "namespace": ns, "job": "q-third", "trainer": "TFJOB", "localQueue": LQ,
         "gpus": 4, "priority": 0, "state": "QUEUED"}, lq
    assert ["default-flavor", "nvidia.com/gpu", "8", "8"] in [
        [u["flavor"], u["resource"], u["used"], u["nominalQuota"]] for u in lq["usage"]], lq

    def cq_form():
        doc = queue_form(m, "cluster", "queues")
        cq = next(q for q in doc if q["name"] == "cluster-queue")
        obj = c.kubectl_json("get", "clusterqueue", "cluster-queue")
        return (cq["gpuQuota"], cq["gpusUsed"], cq["active"]) == (8, 8, True) and \
            agrees_with_object(cq, obj) and \
            "q-third" in [j["job"] for j in cq["waiting"]] and cq
    cq = wait_until(cq_form, timeout=60, interval=0.5,
                    message="cluster/queues.json: cluster-queue 8/8 GPUs, q-third waiting, "
                            "as kubectl's ClusterQueue")
    assert [q["nominalQuota"] for q in cq["quota"] if q["resource"] == "nvidia.com/gpu"], cq

    # a job of each other kind Kueue manages waits behind it, in order
    kinds = ["pytorchjob", "trainjob"]
    if c.kubectl("get", "--raw", "/apis/kubeflow.org/v2beta1", check=False).returncode == 0:
        kinds.append("mpijob")
    for i, kind in enumerate(kinds):
        submit(m, "q-" + kind, spec(kind, 4))
        wait_until(lambda: status(m, "q-" + kind) == "QUEUED", timeout=120,
                   message="q-%s QUEUED" % kind)
        wait_until(lambda: "place %d in line" % (i + 2) in m.read("jobs", "q-" + kind, "why"),
                   timeout=60, message="q-%s place %d" % (kind, i + 2))

    # a running job goes: the first in line is admitted and runs
    rmjob(m, "q-first")
    wait_until(lambda: status(m, "q-third") == "RUNNING", timeout=180,
               message="q-third admitted and RUNNING")
    wait_until(lambda: "place 1 in line" in m.read("jobs", "q-pytorchjob", "why"), timeout=60,
               message="q-pytorchjob first in line now")
    # each kind is admitted in its turn, and runs
    rmjob(m, "q-second")
    rmjob(m, "q-third")
    waiting = ["q-" + k for k in kinds]
    while waiting:
        turn, waiting = waiting[:2], waiting[2:]
        for name in turn:
            wait_until(lambda: status(m, name) == "RUNNING", timeout=180,
                       message=name + " admitted and RUNNING")
            assert m.read("jobs", name, "why").startswith("Running since "), \
                m.read("jobs", name, "why")
            assert "Queue:       %s (ClusterQueue cluster-queue)" % LQ in \
                m.read("jobs", name, "info")
        for name in waiting:
            assert status(m, name) == "QUEUED"
        for name in turn:
            rmjob(m, name)


def test_a_drained_localqueue_evicts_its_jobs_and_they_come_back(cluster, mnt):
    m, c = mnt, cluster
    submit(m, "ev-one", spec("pytorchjob", 2))
    wait_until(lambda: status(m, "ev-one") == "RUNNING", timeout=180, message="ev-one RUNNING")
    c.kubectl("patch", "localqueue", LQ, "--type=merge", "-p",
              json.dumps({"spec": {"stopPolicy": "HoldAndDrain"}}))
    try:
        wait_until(lambda: status(m, "ev-one") == "EVICTED", timeout=120,
                   message="ev-one EVICTED")
        why = m.read("jobs", "ev-one", "why")
        assert why.startswith("Evicted by Kueue ") and " ago (LocalQueueStopped), back in " \
            "LocalQueue %s (ClusterQueue cluster-queue)" % LQ in why, why
        assert why.rstrip("\n").endswith("Kueue says: The LocalQueue is stopped."), why
        wait_until(lambda: os.listdir(m.path("jobs", "ev-one", "instances")) == [],
                   timeout=120, message="ev-one's pods gone")
    finally:
        c.kubectl("patch", "localqueue", LQ, "--type=merge", "-p",
                  json.dumps({"spec": {"stopPolicy": "None"}}))
    wait_until(lambda: status(m, "ev-one") == "RUNNING", timeout=180,
               message="ev-one admitted again, RUNNING")
    rmjob(m, "ev-one")


def test_a_job_of_higher_priority_preempts_one_of_lower(cluster, mnt):
    m = mnt
    submit(m, "pr-low", spec("tfjob", 4, queue=PRIO_LQ, extra="priority: low\n"))
    wait_until(lambda: status(m, "pr-low") == "RUNNING", timeout=180, message="pr-low RUNNING")
    submit(m, "pr-high", spec("tfjob", 4, queue=PRIO_LQ, extra="priority: high\n"))
    wait_until(lambda: status(m, "pr-low") == "PREEMPTED" and
               status(m, "pr-high") == "RUNNING", timeout=180,
               message="pr-high RUNNING, pr-low PREEMPTED")
    # Kueue keeps Preempted=True until it reserves quota for the job again
    back = ", back in LocalQueue %s (ClusterQueue %s), place 1 in line" % (PRIO_LQ, PRIO_CQ)
    why = wait_until(lambda: (lambda w: back in w and w)(m.read("jobs", "pr-low", "why")),
                     timeout=60, message="pr-low's place in line")
    assert why.startswith("Preempted by Kueue "), why
    assert "Kueue says: Preempted to accommodate a workload (UID: " in why, why
    rows = {l.split()[0]: l.split() for l in m.read("cluster", "list").splitlines()[1:] if l}
    assert rows["pr-low"][1] == "PREEMPTED", rows
    waiting = m.read("cluster", "queues").split("ClusterQueue %s: 4/4 GPUs used" % PRIO_CQ)[1]
    assert "pr-high" in waiting.split("Waiting, in line:")[0], waiting
    assert "PREEMPTED" in waiting.split("Waiting, in line:")[1], waiting
    for name in ("pr-high", "pr-low"):
        rmjob(m, name)


def test_a_queue_that_does_not_exist_is_refused_naming_those_that_do(cluster, mnt):
    m, c = mnt, cluster
    ns = namespace_of(c)
    assert write_as_cp(m.path("submit", "nowhere.yaml"), spec("tfjob", 1, queue="nope")) == \
        errno.EINVAL
    err = m.read("submit", "nowhere", "error")
    assert err.startswith('queue: no LocalQueue "nope" in namespace %s; its LocalQueues: ' % ns)
    assert LQ in err and PRIO_LQ in err, err
    assert c.kubectl("get", "tfjob", "nowhere", check=False).returncode != 0
    # check/'s dry run says the same, and makes nothing
    assert write_as_cp(m.path("check", "nowhere.yaml"), spec("tfjob", 1, queue="nope")) == \
        errno.EINVAL
    assert m.read("check", "nowhere", "error") == err
    # a namespace without any LocalQueue: the queues of the others are named
    other = "qless-" + ns[:40]
    c.kubectl("create", "namespace", other)
    try:
        wait_until(lambda: os.path.isdir(m.path("namespaces", other, "submit")), timeout=60,
                   message="namespaces/%s/submit" % other)
        assert write_as_cp(m.path("namespaces", other, "submit", "lost.yaml"),
                           spec("tfjob", 1, queue=LQ)) == errno.EINVAL
        err = m.read("namespaces", other, "submit", "lost", "error")
        assert err.startswith("queue: namespace %s has no LocalQueue, so Kueue cannot admit "
                              'the job ("%s"); LocalQueues exist in other namespaces: ' %
                              (other, LQ)), err
        assert "%s/%s" % (ns, LQ) in err, err
        assert m.read("namespaces", other, "queues", "list").endswith(
            "No LocalQueues in this namespace.\n")
    finally:
        c.kubectl("delete", "namespace", other, "--wait=false", check=False)


def test_a_cluster_without_kueue_has_empty_queue_files_and_refuses_a_queue(kubesim, arenafs):
    """No Kueue (kubesim without --kueue; a real cluster without it would be the same):
    the queue files are there, say so, and nothing is asked of the cluster for them."""
    c = kubesim("--nodes", "1", "--gpus", "8")
    m = arenafs(c)
    assert m.read("cluster", "queues").endswith(
        "No ClusterQueues: this cluster has no Kueue (kueue.x-k8s.io is not served).\n")
    assert m.read("queues", "list").endswith(
        "No LocalQueues in this namespace: this cluster has no Kueue (kueue.x-k8s.io is not "
        "served).\n")
    for path in (("cluster", "queues"), ("queues", "list")):
        assert queue_form(m, *path) == []
    assert write_as_cp(m.path("submit", "q.yaml"), spec("tfjob", 1)) == errno.EINVAL
    assert m.read("submit", "q", "error") == (
        'queue: "%s": this cluster has no Kueue (kueue.x-k8s.io is not served), so no '
        "LocalQueue can admit the job; leave queue: out\n" % LQ)
    # without queue: the same spec runs, its status its own
    assert write_as_cp(m.path("submit", "plain.yaml"), spec("tfjob", 1).replace(
        "queue: %s\n" % LQ, "")) == 0
    wait_until(lambda: status(m, "plain") == "RUNNING", timeout=120, message="plain RUNNING")
    asked = c.stats()["requests"]
    assert asked and not [k for k in asked if "kueue" in k], asked
