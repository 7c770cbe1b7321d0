"""kueuectl, Kueue's own CLI (v0.17.0, `cmd/kueuectl` of its module, built by
tests/cluster/: `tests/cluster/bin kueuectl`), is the peer for queues as Arena
is for jobs (docs/kueuectl.md): on the real cluster, with jobs admitted and
waiting in a LocalQueue of the module's namespace, `kueuectl list workload`,
`list localqueue` and `list clusterqueue` and the tree's queue files
(queues/list, cluster/queues, jobs/NAME/status and why) are compared fact by
fact. Real cluster only: kubesim's Kueue is our own reading of it."""

import json
import re
import subprocess

import pytest

import realcluster
from helpers import wait_until, write_as_cp

pytestmark = pytest.mark.later_binary("kueuectl")

LQ = "kq"
KUEUE = "kueue.x-k8s.io/v1beta2"
SPEC = ("type: tfjob\nimage: tensorflow/tensorflow:2.15.0-gpu\ncommand: python train.py\n"
        "gpus: 4\nqueue: %s\nenv: {KWOK_RUN: forever}\n" % LQ)


def table(text, first="NAME"):
    """[{header: cell}] of the table (aligned with spaces, as kubectl's printer and
    arenafs lay them out) whose header line starts with first, cut at the header's
    column starts: an empty cell (kueuectl's COHORT) stays a cell."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith(first)), None)
    assert start is not None, "no table whose header starts with %s in:\n%s" % (first, text)
    header = lines[start]
    starts = [m.start() for m in re.finditer(r"(?:^|(?<=\s\s))\S", header)]
    bounds = list(zip(starts, starts[1:] + [None]))
    head = [header[a:b].strip() for a, b in bounds]
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        rows.append(dict(zip(head, (line[a:b].strip() for a, b in bounds))))
    return rows


@pytest.fixture(scope="module")
def scene(request, arenafs_module, real_cluster):
    view = realcluster.module_view(request)     # skips, saying why, on kubesim alone
    binary = realcluster.later_binary("kueuectl", "kueuectl")
    ns = view.namespace
    view.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": LQ, "namespace": ns},
        "spec": {"clusterQueue": "cluster-queue"}}))
    m = arenafs_module(view, "namespace=" + ns)
    # cluster-queue is the whole cluster's: its quota is freed for the modules after
    # this one before the namespace goes (which --wait=false leaves to later)
    request.addfinalizer(lambda: view.kubectl("delete", "tfjobs", "--all", "--wait=true",
                                              timeout=120, check=False))
    for name in ("kq-a", "kq-b", "kq-c"):
        assert write_as_cp(m.path("submit", name + ".yaml"), SPEC) == 0, \
            m.read("submit", name, "error")
    wait_until(lambda: [m.read("jobs", n, "status").strip() for n in ("kq-a", "kq-b", "kq-c")]
               == ["RUNNING", "RUNNING", "QUEUED"], timeout=180, interval=1,
               message="two jobs admitted and running, the third QUEUED")
    wait_until(lambda: "place 1 in line" in m.read("jobs", "kq-c", "why"), timeout=60,
               message="kq-c's place in line")
    # Kueue writes the queue's counts a moment after the Workloads' conditions
    wait_until(lambda: {r["NAME"]: r for r in table(m.read("queues", "list"))}[LQ]["ADMITTED"]
               == "2", timeout=60, message="queues/list: 2 admitted")

    def kueuectl(*args):
        r = subprocess.run([binary, "--kubeconfig", view.kubeconfig] + list(args),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, "kueuectl %s: %s" % (" ".join(args), r.stdout + r.stderr)
        return r.stdout
    return m, view, ns, kueuectl


def test_workloads_status_and_place_as_kueuectl_lists_them(scene):
    m, view, ns, kueuectl = scene
    rows = {r["JOB NAME"]: r for r in table(kueuectl("list", "workload", "-n", ns))}
    assert set(rows) >= {"kq-a", "kq-b", "kq-c"}, rows
    for name in ("kq-a", "kq-b"):
        assert rows[name]["STATUS"] == "ADMITTED" and m.read("jobs", name, "status") == \
            "RUNNING\n", rows[name]
    c = rows["kq-c"]
    assert c["STATUS"] == "PENDING" and m.read("jobs", "kq-c", "status") == "QUEUED\n", c
    # kueuectl's POSITION IN QUEUE is Kueue's 0-based positionInLocalQueue; why counts from 1
    why = m.read("jobs", "kq-c", "why")
    assert "(%d in its LocalQueue)" % (int(c["POSITION IN QUEUE"]) + 1) in why, (c, why)
    assert c["LOCALQUEUE"] == LQ and c["CLUSTERQUEUE"] == "cluster-queue", c
    assert why.startswith("Queued in LocalQueue %s (ClusterQueue cluster-queue)" % LQ), why
    # the Workload's name, which kueuectl lists first, is in info
    assert "Workload %s\n" % c["NAME"] in m.read("jobs", "kq-c", "info")


def test_localqueue_counts_as_kueuectl_lists_them(scene):
    m, view, ns, kueuectl = scene
    theirs = {r["NAME"]: r for r in table(kueuectl("list", "localqueue", "-n", ns))}[LQ]
    ours = {r["NAME"]: r for r in table(m.read("queues", "list"))}[LQ]
    assert theirs["CLUSTERQUEUE"] == ours["CLUSTERQUEUE"] == "cluster-queue"
    assert theirs["PENDING WORKLOADS"] == ours["PENDING"] == "1", (theirs, ours)
    assert theirs["ADMITTED WORKLOADS"] == ours["ADMITTED"] == "2", (theirs, ours)
    assert ours["GPU(Used)"] == "8" and ours["GPU(Quota)"] == "8", ours


def test_clusterqueue_counts_as_kueuectl_lists_them(scene):
    m, view, ns, kueuectl = scene
    theirs = {r["NAME"]: r for r in table(kueuectl("list", "clusterqueue"))}["cluster-queue"]
    ours = {r["NAME"]: r for r in table(m.read("cluster", "queues"))}["cluster-queue"]
    # the whole cluster's: other modules' jobs may be in it too, so read both now
    assert theirs["PENDING WORKLOADS"] == ours["PENDING"], (theirs, ours)
    assert theirs["ADMITTED WORKLOADS"] == ours["ADMITTED"], (theirs, ours)
    assert theirs["ACTIVE"].lower() == ours["ACTIVE"].lower() == "true", (theirs, ours)
    assert (theirs["COHORT"] or "<none>") == ours["COHORT"], (theirs, ours)


# The forms' keys that are fields of kueuectl's objects (`kueuectl list ... -o json`
# prints them whole): form key -> the field's path in the object (docs/kueuectl.md)
LQ_FIELDS = {"name": ("metadata", "name"), "namespace": ("metadata", "namespace"),
             "creationTimestamp": ("metadata", "creationTimestamp"),
             "clusterQueue": ("spec", "clusterQueue"),
             "pendingWorkloads": ("status", "pendingWorkloads"),
             "admittedWorkloads": ("status", "admittedWorkloads")}
CQ_FIELDS = {"name": ("metadata", "name"),
             "creationTimestamp": ("metadata", "creationTimestamp"),
             "queueingStrategy": ("spec", "queueingStrategy"),
             "pendingWorkloads": ("status", "pendingWorkloads"),
             "admittedWorkloads": ("status", "admittedWorkloads")}


def field(obj, path, default=None):
    for key in path:
        obj = obj.get(key, {}) if isinstance(obj, dict) else {}
    return obj if obj != {} else default


def compare_keys(ours, theirs, fields):
    """[(key, ours, theirs)] where the form and kueuectl's object differ."""
    return [(k, ours[k], field(theirs, path, 0 if "Workloads" in k else ""))
            for k, path in fields.items()
            if ours[k] != field(theirs, path, 0 if "Workloads" in k else "")]


def test_queue_forms_are_kueuectls_fields_key_by_key(scene):
    """queues/list.json and cluster/queues.json (and their YAML) against kueuectl list
    localqueue|clusterqueue -o json|yaml: every key that is a field of Kueue's objects
    holds that field's value; the cohort, the Active condition and each flavor's quota
    too."""
    import yaml
    m, view, ns, kueuectl = scene
    for fmt in ("json", "yaml"):
        load = json.loads if fmt == "json" else yaml.safe_load

        def lq_agrees():
            theirs = {o["metadata"]["name"]: o for o in
                      load(kueuectl("list", "localqueue", "-n", ns, "-o", fmt))["items"]}
            ours = {q["name"]: q for q in load(m.read("queues", "list." + fmt))}
            diff = compare_keys(ours[LQ], theirs[LQ], LQ_FIELDS)
            return (not diff) or print("localqueue %s differs: %s" % (fmt, diff))
        wait_until(lq_agrees, timeout=60, interval=1,
                   message="queues/list.%s to hold kueuectl's LocalQueue fields" % fmt)

        def cq_agrees():
            theirs = {o["metadata"]["name"]: o for o in
                      load(kueuectl("list", "clusterqueue", "-o", fmt))["items"]}
            ours = {q["name"]: q for q in load(m.read("cluster", "queues." + fmt))}
            t, o = theirs["cluster-queue"], ours["cluster-queue"]
            diff = compare_keys(o, t, CQ_FIELDS)
            cohort = field(t, ("spec", "cohortName")) or field(t, ("spec", "cohort")) or ""
            if o["cohort"] != cohort:
                diff.append(("cohort", o["cohort"], cohort))
            active = [c["status"] == "True" for c in field(t, ("status", "conditions"), [])
                      if c["type"] == "Active"]
            if [o["active"]] != active:
                diff.append(("active", o["active"], active))
            quota = [(f["name"], r["name"], str(r["nominalQuota"]))
                     for g in field(t, ("spec", "resourceGroups"), [])
                     for f in g["flavors"] for r in f["resources"]]
            if [(q["flavor"], q["resource"], q["nominalQuota"]) for q in o["quota"]] != quota:
                diff.append(("quota", o["quota"], quota))
            return (not diff) or print("clusterqueue %s differs: %s" % (fmt, diff))
        wait_until(cq_agrees, timeout=60, interval=1,
                   message="cluster/queues.%s to hold kueuectl's ClusterQueue fields" % fmt)
