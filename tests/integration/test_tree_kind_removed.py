"""A job kind whose CRD is removed while the tree is mounted (`kubectl delete
crd`; docs/k8s-cache.md, "Health"): its jobs leave jobs/, the daemon says once
that the kind is no longer served, the cluster stays connected in
cluster/health, and every other kind goes on. The API server ends the kind's
watch and answers 404 from then on; before, that read as an outage that never
ended ("the cluster is unreachable"), seen when a mount started while an earlier
test's CRDs were still being deleted.

Real cluster only: kubesim serves no CRDs that could be deleted (docs/kubesim.md)."""

import json
import os

from helpers import wait_until
import jobspecs

HERE = os.path.dirname(os.path.abspath(__file__))
STAND_INS = os.path.join(HERE, "..", "cluster", "crds", "stand-ins.yaml")
CRDS = ("jobs.batch.volcano.sh", "sparkapplications.sparkoperator.k8s.io")


def install(c, request):
    request.addfinalizer(lambda: c.kubectl("delete", "crd", "--ignore-not-found",
                                           "--timeout=120s", *CRDS, check=False, timeout=150))
    c.kubectl("apply", "--server-side", "--force-conflicts", "-f", STAND_INS, timeout=120)
    wait_until(lambda: c.kubectl("wait", "--for=condition=Established", "--timeout=10s",
                                 *["crd/" + n for n in CRDS], check=False).returncode == 0,
               timeout=60, message="the CRDs Established")


def volcano_job(name):
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name},
            "spec": {"tasks": [{"name": "worker", "replicas": 1, "template": {"spec": {
                "containers": [{"name": "main", "image": "busybox:1.36"}]}}}]}}


def test_a_removed_kinds_jobs_go_and_the_cluster_stays_connected(real_view, arenafs, request):
    c = real_view
    install(c, request)
    c.kubectl("create", "-f", "-", input=json.dumps(volcano_job("vc")))
    m = arenafs(c, "namespace=" + c.namespace, allow=(r"no longer served",))
    jobs = m.path("jobs")
    wait_until(lambda: "vc" in os.listdir(jobs), timeout=30, message="the Volcano job listed")
    assert m.read("jobs", "vc", "type") == "volcanojob\n"

    c.kubectl("delete", "crd", "--timeout=120s", *CRDS, timeout=150)
    wait_until(lambda: "vc" not in os.listdir(jobs), timeout=60,
               message="the Volcano job gone from jobs/")
    wait_until(lambda: "jobs.batch.volcano.sh" in m.log(), timeout=30,
               message="the daemon saying the kind went")
    assert "no longer served (the CRD was removed)" in m.log(), m.log()
    assert m.read("cluster", "health").startswith("ok"), m.read("cluster", "health")
    assert "vc" not in m.read("cluster", "list")

    # the other kinds are still watched
    jobspecs.create(c, jobspecs.tfjob("after", gpus=0))
    wait_until(lambda: "after" in os.listdir(jobs), timeout=60, message="a TFJob made after")
    assert m.read("cluster", "health").startswith("ok"), m.read("cluster", "health")
    assert "unreachable" not in m.log(), m.log()
