"""A Kueue queue is shown by every resource its quota names, not by its GPUs
only (issue 32; docs/tree.md, "Queues"): a ClusterQueue whose quota is cpu and
memory in two flavors, in a cohort with another that lends to it, and a job in
it whose Workload has a WorkloadPriorityClass (the job's label
kueue.x-k8s.io/priority-class). cluster/queues has a row per flavor and
resource with the nominal quota, the borrowing and lending limits, the use and
the borrowing that kubectl reads of the ClusterQueue; its headline names the
cohort; the job's row and info give the class and value, and the row the
flavors Kueue assigned, that kubectl reads of its Workload. It read "0/0 GPUs used" and "Priority: N/A" before.

On kubesim (--kueue; its Kueue admits by GPUs alone and counts no other
resource, so nothing is borrowed there: docs/kubesim.md) and on the real
cluster (Kueue v0.17.0), where the job asks more cpu than its queue's nominal
quota and borrows the rest from the cohort."""

import json
import re

import pytest

import realcluster
from helpers import wait_until, write_as_cp

KUEUE = "kueue.x-k8s.io/v1beta2"
FLAVORS = ("qq-on-demand", "qq-spot")
LENDER, BORROWER, COHORT = "qq-lender", "qq-borrower", "qq-cohort"
LQ, WPC, ORG = "qq-lq", "qq-urgent", "qq-org"
SPEC = """type: tfjob
image: tensorflow/tensorflow:2.15.0
command: python train.py
cpu: 2
memory: 1Gi
queue: %s
labels: {kueue.x-k8s.io/priority-class: %s}
env: {SIM_RUN_SECONDS: "100000", KWOK_RUN: forever}
""" % (LQ, WPC)


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def quota(flavor, cpu, memory, **limits):
    """A flavor's quota of cpu and memory; limits: cpu_borrowing=..., memory_lending=..."""
    res = []
    for name, nominal in (("cpu", cpu), ("memory", memory)):
        r = {"name": name, "nominalQuota": nominal}
        for field, key in (("borrowingLimit", "borrowing"), ("lendingLimit", "lending")):
            if "%s_%s" % (name, key) in limits:
                r[field] = limits["%s_%s" % (name, key)]
        res.append(r)
    return {"name": flavor, "resources": res}


def cluster_queue(name, flavors):
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": {"namespaceSelector": {}, "cohortName": COHORT,
                     "queueingStrategy": "BestEffortFIFO",
                     "resourceGroups": [{"coveredResources": ["cpu", "memory"],
                                         "flavors": flavors}]}}


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def scene(request, kubesim_module, arenafs_module):
    if request.param == "real":
        c = realcluster.module_view(request)
    else:
        c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "20", "--kueue")
    ns = getattr(c, "namespace", None) or "default"
    # cluster-scoped objects of the module's own, gone when it ends (the job first,
    # so that its Workload frees the quota)
    request.addfinalizer(lambda: c.kubectl(
        "delete", "clusterqueue/" + BORROWER, "clusterqueue/" + LENDER,
        "workloadpriorityclass/" + WPC, "cohort/" + COHORT,
        *["resourceflavor/" + f for f in FLAVORS],
        "--wait=false", check=False))
    request.addfinalizer(lambda: c.kubectl("delete", "tfjobs", "--all", "-n", ns,
                                           "--wait=true", timeout=120, check=False))
    for f in FLAVORS:
        apply(c, {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": f}})
    apply(c, {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": WPC},
              "value": 10000, "description": "the module's urgent jobs"})
    # the cohort's own object puts it under a parent, which has none
    apply(c, {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": COHORT},
              "spec": {"parentName": ORG}})
    apply(c, cluster_queue(LENDER, [quota(FLAVORS[0], "4", "8Gi")]))
    apply(c, cluster_queue(BORROWER, [
        quota(FLAVORS[0], "1", "2Gi", cpu_borrowing="3", memory_lending="1Gi"),
        quota(FLAVORS[1], "500m", "1Gi")]))
    apply(c, {"apiVersion": KUEUE, "kind": "LocalQueue",
              "metadata": {"name": LQ, "namespace": ns}, "spec": {"clusterQueue": BORROWER}})
    m = arenafs_module(c)
    wait_until(lambda: "\n%s " % LQ in "\n" + m.read("queues", "list"), timeout=60,
               message="queues/list shows LocalQueue " + LQ)
    rc = write_as_cp(m.path("submit", "urgent.yaml"), SPEC)
    assert rc == 0, m.read("submit", "urgent", "error")
    wait_until(lambda: m.read("jobs", "urgent", "status").strip() == "RUNNING", timeout=180,
               message="urgent admitted and RUNNING")
    return request.param, c, m, ns


def block(text, head):
    """The lines of text from the one starting with head to the next blank line."""
    out = text.split("\n" + head, 1)
    assert len(out) == 2, "no %r in:\n%s" % (head, text)
    return (head + out[1]).split("\n\n", 1)[0]


def quota_rows(text):
    """{(flavor, resource): [nominal, borrowing limit, lending limit, used, borrowed]} of
    a ClusterQueue's Quota table."""
    rows, inside = {}, False
    for line in text.splitlines():
        if line.startswith("  Quota:"):
            inside = True
        elif inside and line.startswith("    ") and not line.split()[0] in ("FLAVOR", "------"):
            cells = re.split(r"\s{2,}", line.strip())
            rows[(cells[0], cells[1])] = cells[2:]
        elif inside and not line.startswith("    "):
            break
    return rows


def kubectl_rows(cq):
    """The same, from kubectl's ClusterQueue: spec's quota and status.flavorsUsage."""
    used = {(f["name"], r["name"]): (r.get("total", "0"), r.get("borrowed", "0"))
            for f in cq.get("status", {}).get("flavorsUsage") or [] for r in f["resources"]}
    rows = {}
    for g in cq["spec"]["resourceGroups"]:
        for f in g["flavors"]:
            for r in f["resources"]:
                u = used.get((f["name"], r["name"]), ("0", "0"))
                rows[(f["name"], r["name"])] = [r["nominalQuota"],
                                                r.get("borrowingLimit", "<none>"),
                                                r.get("lendingLimit", "<none>"), u[0], u[1]]
    return rows


def test_a_cpu_queue_shows_every_resource_of_every_flavor_as_kubectl_reads_it(scene):
    _, c, m, _ = scene

    seen = []

    def agree():
        text = m.read("cluster", "queues")
        want = kubectl_rows(c.kubectl_json("get", "clusterqueue", BORROWER))
        got = quota_rows(block(text, "ClusterQueue %s:" % BORROWER))
        seen[:] = [got, want]
        return got == want and (text, got)
    try:
        text, rows = wait_until(agree, timeout=60, message="cluster/queues' quota of %s as "
                                "kubectl reads it" % BORROWER)
    except AssertionError as e:
        raise AssertionError("%s; the tree's, kubectl's: %s" % (e, seen)) from None
    assert sorted(rows) == [(f, r) for f in FLAVORS for r in ("cpu", "memory")], rows
    assert rows[(FLAVORS[0], "cpu")][:3] == ["1", "3", "<none>"], rows
    assert rows[(FLAVORS[0], "memory")][:3] == ["2Gi", "<none>", "1Gi"], rows
    # no GPU quota is not a quota of 0 GPUs; its cohort is named
    head = block(text, "ClusterQueue %s:" % BORROWER).splitlines()[0]
    assert head.startswith("ClusterQueue %s: no GPU quota; cohort %s" % (BORROWER, COHORT)), head
    row = [l.split() for l in text.splitlines() if l.startswith(BORROWER + " ")][0]
    assert row[1:5] == [COHORT, "BestEffortFIFO", "<none>", "<none>"], row


def test_the_tree_of_cohorts_with_their_cluster_queues(scene):
    _, c, m, _ = scene
    assert c.kubectl_json("get", "cohort", COHORT)["spec"]["parentName"] == ORG
    tree = m.read("cluster", "queues").split("\n\nCohorts:\n")[1].splitlines()
    # qq-org, a root, and under it qq-cohort with the ClusterQueues that name it
    at = tree.index("  " + ORG)
    assert tree[at + 1] == "    %s: %s, %s" % (COHORT, BORROWER, LENDER), tree


def test_a_jobs_workload_priority_class_in_its_row_and_info(scene):
    _, c, m, ns = scene
    wl = [w for w in c.kubectl_json("get", "workloads", "-n", ns)["items"]
          if w["metadata"]["ownerReferences"][0]["name"] == "urgent"][0]
    ref, value = wl["spec"]["priorityClassRef"], wl["spec"]["priority"]
    assert (ref["kind"], ref["name"], value) == ("WorkloadPriorityClass", WPC, 10000), wl["spec"]
    info = m.read("jobs", "urgent", "info")
    assert "\nPriority:    %s (WorkloadPriorityClass, %d)\n" % (WPC, value) in info, info
    # its row: the class and value, and the flavors Kueue gave it, as kubectl reads them
    flavors = []
    for a in wl["status"]["admission"]["podSetAssignments"]:
        for f in (a.get("flavors") or {}).values():
            if f not in flavors:
                flavors.append(f)
    admitted = block(m.read("queues", "list"), "LocalQueue %s " % LQ).split("  Admitted:")[1]
    assert re.search(r"\n    %s\s+urgent\s+TFJOB\s+%s\s+0\s+%s \(%d\)\s+%s\n" % (
        ns, LQ, WPC, value, re.escape(",".join(flavors) or "N/A")), admitted + "\n"), \
        (admitted, flavors)


def test_a_queue_borrowing_from_its_cohort_says_how_much(scene):
    param, c, m, _ = scene
    if param != "real":
        pytest.skip("kubesim's Kueue models no borrowing and counts no cpu (docs/kubesim.md)")
    # 2 cpu asked of a nominal 1 in the first flavor: 1 borrowed from the lender
    text = wait_until(lambda: (lambda t: quota_rows(block(t, "ClusterQueue %s:" % BORROWER))
                               .get((FLAVORS[0], "cpu"), [""] * 5)[3:] == ["2", "1"] and t)(
        m.read("cluster", "queues")), timeout=60, message="2 cpu used, 1 borrowed")
    head = block(text, "ClusterQueue %s:" % BORROWER).splitlines()[0]
    assert head == "ClusterQueue %s: no GPU quota; cohort %s, borrowing from it" % (
        BORROWER, COHORT), head
    usage = {(f["name"], r["name"]): r for f in c.kubectl_json(
        "get", "clusterqueue", BORROWER)["status"]["flavorsUsage"] for r in f["resources"]}
    assert (usage[(FLAVORS[0], "cpu")]["total"], usage[(FLAVORS[0], "cpu")]["borrowed"]) == \
        ("2", "1"), usage
