"""Today's Kubeflow on the real cluster (tests/cluster/up, docs/real-cluster.md):
a TrainJob's whole life through arenafs, run by the real Kubeflow Trainer v2
controller on the real JobSet controller, the batch Job controller, the
scheduler and kwok; Trainer's runtimes seen from the tree and a spec naming a
missing one refused. Every expectation is what kubectl says of the same objects
at the same time (tree_expect.py). Real cluster only: the kubesim side of the
same behaviour is in test_tree_arena_kinds.py and test_tree_runtimes.py; a
component that is missing fails here, loudly."""

import json
import os

from helpers import first_line, wait_until
from test_real_lifecycle import ns_mount, submit  # noqa: F401 (a fixture)
import tree_expect as te

TRAINJOB = "trainjobs.trainer.kubeflow.org"
JOBSET = "jobsets.jobset.x-k8s.io"


def test_the_components_run(real_cluster):
    """Trainer, JobSet and Kueue serve their kinds; Trainer's runtimes are in."""
    names = real_cluster.kubectl("api-resources", "-o", "name").stdout.split()
    for r in (TRAINJOB, "clustertrainingruntimes.trainer.kubeflow.org", JOBSET,
              "workloads.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io"):
        assert r in names, "%s is not served: is up's Kubeflow missing?" % r
    runtimes = real_cluster.kubectl_json("get", "clustertrainingruntimes")["items"]
    assert "torch-distributed" in [r["metadata"]["name"] for r in runtimes]


def trainjob_pods(c, name):
    return [p for p in te.pods(c, c.namespace)
            if te.labels(p).get("jobset.sigs.k8s.io/jobset-name") == name]


def test_a_trainjob_runs_on_its_jobset_and_goes_with_rmdir(ns_mount):
    c, m = ns_mount
    ns = c.namespace
    assert submit(m, "llm", """type: trainjob
runtime: torch-distributed
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
nodes: 2
gpus: 2
env: {KWOK_RUN: 25s}
""") == 0
    assert m.read("jobs", "llm", "type") == "trainjob\n"
    tj = c.kubectl_json("get", TRAINJOB, "llm")
    assert tj["spec"]["trainer"]["numNodes"] == 2

    # the real Trainer makes a JobSet, the real JobSet controller its Job, the
    # Job controller the pods, the scheduler binds them, kwok runs them
    wait_until(lambda: c.kubectl("get", JOBSET, "llm", check=False).returncode == 0,
               timeout=90, message="Trainer to make the JobSet llm")
    js = c.kubectl_json("get", JOBSET, "llm")
    assert js["metadata"]["ownerReferences"][0]["kind"] == "TrainJob"

    def running():
        pods = trainjob_pods(c, "llm")
        return len(pods) == 2 and all(p["status"].get("phase") == "Running" for p in pods) \
            and pods
    pods = wait_until(running, timeout=120, message="the TrainJob's two pods running")
    jobs = c.kubectl_json("get", "jobs")["items"]
    assert [j["metadata"]["name"] for j in jobs] == ["llm-node-0"], \
        "one Indexed Job per replicated job: %s" % [j["metadata"]["name"] for j in jobs]
    names = sorted(p["metadata"]["name"] for p in pods)
    wait_until(lambda: m.read("jobs", "llm", "status") == "RUNNING\n", timeout=30,
               message="status RUNNING")
    wait_until(lambda: sorted(os.listdir(m.path("jobs", "llm", "instances"))) == names,
               timeout=30, message="instances/ to list the two pods (the JobSet's labels)")
    for p in pods:
        pn = p["metadata"]["name"]
        assert m.read("jobs", "llm", "instances", pn, "node") == p["spec"]["nodeName"] + "\n"
        assert m.read("jobs", "llm", "instances", pn, "status") == "Running\n"
        assert m.read("jobs", "llm", "instances", pn, "logs") == \
            c.kubectl("logs", "-n", ns, pn).stdout
    # the main instance: node 0 (completion index 0) of the first replicated job
    node0 = next(p["metadata"]["name"] for p in pods
                 if p["metadata"]["annotations"].get("batch.kubernetes.io/job-completion-index")
                 == "0")
    assert m.read("jobs", "llm", "logs") == c.kubectl("logs", "-n", ns, node0).stdout
    assert first_line(m.read("jobs", "llm", "gpus")) == "4/4\n"

    info = m.read("jobs", "llm", "info")
    assert "RUNNING" in info and "trainjob" in info.lower(), info
    for pn in names:
        assert pn in info, info
    lst = m.read("cluster", "list")
    row = next(l for l in lst.splitlines() if l.split()[:1] == ["llm"])
    assert "RUNNING" in row and "TRAINJOB" in row.upper(), lst
    top = m.read("cluster", "top-job")
    assert any(l.split()[:1] == ["llm"] for l in top.splitlines()), top
    for p in pods:
        node = p["spec"]["nodeName"]
        used = m.read("nodes", node, "gpus").split("/")[0]
        assert int(used) >= 2, (node, used)
    events = m.read("jobs", "llm", "events")
    assert "Scheduled" in events, events

    wait_until(lambda: m.read("jobs", "llm", "status") == "SUCCEEDED\n", timeout=120,
               message="status SUCCEEDED once both nodes ended")
    tj = c.kubectl_json("get", TRAINJOB, "llm")
    conds = te.conditions(tj)
    assert conds.get("Complete"), tj.get("status")

    os.rmdir(m.path("jobs", "llm"))
    assert "llm" not in os.listdir(m.path("jobs"))
    wait_until(lambda: c.kubectl("get", TRAINJOB, "llm", check=False).returncode != 0,
               timeout=60, message="the TrainJob to be gone")
    wait_until(lambda: c.kubectl("get", JOBSET, "llm", check=False).returncode != 0,
               timeout=90, message="the garbage collector to delete the JobSet")
    wait_until(lambda: not te.pods(c, ns), timeout=90, message="the pods to be deleted")


def test_a_failed_trainjob_says_why(ns_mount):
    """A node that exits 1: with torch-distributed's Job (backoffLimit 6 by the
    Job's default) the Job controller retries for minutes; the namespace's own
    runtime without retries (backoffLimit 0, what a user would write to fail
    fast) makes the JobSet and the TrainJob fail at the first exit."""
    c, m = ns_mount
    torch = c.kubectl_json("get", "clustertrainingruntime", "torch-distributed")
    spec = torch["spec"]
    for rj in spec["template"]["spec"]["replicatedJobs"]:
        rj["template"]["spec"]["backoffLimit"] = 0
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": torch["apiVersion"], "kind": "TrainingRuntime",
        "metadata": {"name": "no-retry", "namespace": c.namespace}, "spec": spec}))
    assert submit(m, "broken", """type: trainjob
runtime: TrainingRuntime/no-retry
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
nodes: 1
env: {KWOK_RUN: 3s, KWOK_EXIT: "1"}
""") == 0
    wait_until(lambda: m.read("jobs", "broken", "status") == "FAILED\n", timeout=120,
               message="status FAILED")
    tj = c.kubectl_json("get", TRAINJOB, "broken")
    failed = next(x for x in tj["status"]["conditions"] if x["type"] == "Failed")
    why = m.read("jobs", "broken", "why")
    info = m.read("jobs", "broken", "info")
    # why: the instance that failed, its exit code and its log's end (the
    # TrainJob's own condition only says a Job failed)
    pod = next(p["metadata"]["name"] for p in trainjob_pods(c, "broken"))
    assert pod in why and "exit code 1" in why, (why, failed)
    assert "FAILED" in info and why.splitlines()[0] in info, info


def test_runtimes_are_seen_and_a_missing_one_is_refused(ns_mount):
    c, m = ns_mount
    want = sorted(r["metadata"]["name"]
                  for r in c.kubectl_json("get", "clustertrainingruntimes")["items"])
    text = m.read("runtimes")
    names = [l.split()[0] for l in text.splitlines()[1:] if l.strip()]
    assert sorted(names) == want, text
    err = submit(m, "nowhere", """type: trainjob
runtime: no-such-runtime
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
""")
    assert err != 0
    error = m.read("submit", "nowhere", "error")
    assert "no-such-runtime" in error and "torch-distributed" in error, error
    assert c.kubectl("get", TRAINJOB, "nowhere", check=False).returncode != 0
