"""jobs/NAME/events holds the events of every object the job owns, down to its
pods (docs/tree.md, "events"): a TrainJob's own, its JobSet's
(`AllJobsCompleted`: how it ended), its JobSet's batch Job's (`SuccessfulCreate`,
`Completed`) and its pods'. The owner chain is followed by ownerReferences, as
kubectl shows them; each event kubectl lists of an object of the chain is a row
of the file, with its source, reason and message. On kubesim (whose Trainer
stand-in makes the JobSet and its Job as Trainer and JobSet do) and on the
real cluster (Trainer v2 on the JobSet controller). An MPIJob v2beta1's
launcher batch Job is test_mpi_v2beta1.py's. And when that batch Job cannot make
the pods (a ResourceQuota: real cluster only, kubesim enforces none), `why` says
so, quoting its FailedCreate event, as it does for an operator's."""

import json
import os

import pytest

from helpers import wait_until
import realcluster

TRAINJOBS = "trainjobs.trainer.kubeflow.org"
JOBSETS = "jobsets.jobset.x-k8s.io"

SPEC = """type: trainjob
runtime: torch-distributed
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
nodes: 2
env: {SIM_RUN_SECONDS: "3", KWOK_RUN: 3s}
"""


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "2", "--gpus", "8",
                                   "--speed", "4")
    return c, arenafs_module(c)


def owner_chain(c, top):
    """{uid: (kind, name)} of top and of everything whose controller is in it,
    down to the pods, as kubectl shows them."""
    chain = {top["metadata"]["uid"]: (top["kind"], top["metadata"]["name"])}
    for resource, kind in ((JOBSETS, "JobSet"), ("jobs.batch", "Job"), ("pods", "Pod")):
        for o in c.kubectl_json("get", resource)["items"]:
            ref = next((r for r in o["metadata"].get("ownerReferences") or []
                        if r.get("controller")), None)
            if ref and ref["uid"] in chain:
                chain[o["metadata"]["uid"]] = (kind, o["metadata"]["name"])
    return chain


def rows_of(c, chain):
    """'source ... [reason] message' of every event kubectl has of the chain."""
    out = []
    for e in c.kubectl_json("get", "events")["items"]:
        io = e["involvedObject"]
        if io.get("uid") in chain:
            out.append(("%s/%s" % (io["kind"].lower(), io["name"]),
                        "[%s] %s" % (e["reason"], e["message"])))
    return out


def shown(events, source, message):
    return any(l.split()[:1] == [source] and message in l for l in events.splitlines())


def test_a_finished_trainjobs_events_say_how_its_jobset_and_job_ended(env):
    c, m = env
    with open(m.path("submit", "ended.yaml"), "w") as f:
        f.write(SPEC)
    wait_until(lambda: m.read("jobs", "ended", "status") == "SUCCEEDED\n", timeout=180,
               message="the TrainJob to succeed")
    tj = c.kubectl_json("get", TRAINJOBS, "ended")
    chain = owner_chain(c, tj)
    kinds = sorted({k for k, _ in chain.values()})
    assert kinds == ["Job", "JobSet", "Pod", "TrainJob"], chain
    # how the JobSet ended, and the Job's own, as kubectl says them
    rows = wait_until(lambda: (lambda r: {"[AllJobsCompleted] jobset completed successfully",
                                          "[Completed] Job completed"}
                               <= {msg for _, msg in r} and r)(rows_of(c, chain)),
                      timeout=60, message="the JobSet's and the Job's last events")
    assert ("jobset/ended", "[AllJobsCompleted] jobset completed successfully") in rows, rows
    assert any(src == "job/ended-node-0" and msg.startswith("[SuccessfulCreate] Created pod: ")
               for src, msg in rows), rows
    # every one of them is a row of the file, with its source
    events = wait_until(lambda: (lambda t: all(shown(t, s, msg) for s, msg in rows) and t)(
        m.read("jobs", "ended", "events")), timeout=30,
        message="every event of the owner chain in jobs/ended/events")
    assert shown(events, "jobset/ended", "[AllJobsCompleted] jobset completed successfully"), \
        events
    assert shown(events, "job/ended-node-0", "[Completed] Job completed"), events


def test_a_trainjob_whose_batch_job_is_refused_its_pods_says_why(env, request):
    c, m = env
    if request.node.callspec.params["env"] != "real":
        pytest.skip("kubesim enforces no ResourceQuota (docs/kubesim.md)")
    c.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "no-pods"},
        "spec": {"hard": {"pods": "0"}}}))
    try:
        with open(m.path("submit", "refused.yaml"), "w") as f:
            f.write(SPEC)
        said = wait_until(lambda: [e["message"] for e in c.kubectl_json("get", "events")["items"]
                                   if e["involvedObject"]["kind"] == "Job" and
                                   e["involvedObject"]["name"] == "refused-node-0" and
                                   e["reason"] == "FailedCreate"], timeout=120,
                          message="the batch Job's FailedCreate in kubectl")
        why = wait_until(lambda: (lambda w: w.startswith("Pods refused: ") and w)(
            m.read("jobs", "refused", "why")), timeout=60, message="why: Pods refused")
        assert "exceeded quota: no-pods" in why and said[-1].split(":")[0] in why, (why, said)
    finally:
        c.kubectl("delete", "resourcequota", "no-pods", check=False)
        if os.path.isdir(m.path("jobs", "refused")):
            os.rmdir(m.path("jobs", "refused"))
