"""MPIJob v2beta1 on the real cluster's `--mpi v2beta1` profile (tests/cluster/up):
the MPI operator v0.6.0 owns the MPIJob CRD and runs the job (launcher as a
batch Job NAME-launcher, workers as pods of the MPIJob), the training-operator
runs without MPIJob. A small spec of type mpijob makes the version the cluster
serves; status, the chief (the launcher), logs byte-equal to kubectl logs, GPUs
and rmdir are what kubectl says. The module starts a cluster of its own in that
profile and stops it at its end; kubesim's side is test_submit_objects.py
(--mpi-v2beta1) and this module's kubesim run of the same spec (with --kueue).

Under Kueue (v0.17.0, whose kubeflow.org/mpijob integration is the MPI
operator's v2beta1 MPIJob): a small spec with `queue: user-queue` that asks
for more GPUs than the ClusterQueue has free is QUEUED, its why and info name
the LocalQueue, the ClusterQueue, its place in line and Kueue's message (the
pod set that lacks quota is the workers': the launcher asks no GPU), and once
the job ahead goes it is admitted and runs with its launcher as chief."""

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from helpers import first_line, wait_until
import realcluster
import tree_expect as te

pytestmark = pytest.mark.later_binary("mpi-operator")

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
        c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "5", "--mpi-v2beta1",
                           "--kueue")
        return c, arenafs_module(c)
    d = tempfile.mkdtemp(prefix="arenafs-real-mpi-")
    try:
        real = realcluster.RealCluster(d, mpi="v2beta1")
    except Exception as e:  # noqa: every failure to start is reported the same way
        subprocess.run([realcluster.DOWN, d], timeout=120)
        shutil.rmtree(d, ignore_errors=True)
        pytest.fail("the --mpi v2beta1 cluster did not start: %s" % e, pytrace=False)

    mounts = []

    def stop():
        # the mount goes before its cluster: one that outlives it says it cannot
        # reach it (Kueue's queue lines are read every few seconds)
        try:
            for mount in mounts:
                if not mount.unmounted:
                    mount.unmount()
        finally:
            real.stop()
            shutil.rmtree(d, ignore_errors=True)
    request.addfinalizer(stop)
    view = real.namespaced(real.fresh_namespace("m-mpi-v2beta1"))
    mounts.append(arenafs_module(view, "namespace=" + view.namespace))
    return view, mounts[0]


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
    # a running container's log grows (kubesim's, a line every 0.1 s): cat ends
    # with the log so far (docs/tree.md), which kubectl then shows at least
    shown = m.read("jobs", "horovod", "logs")
    assert c.kubectl("logs", "-n", ns, lname).stdout.startswith(shown)
    for p in pods:
        pn = p["metadata"]["name"]
        shown = m.read("jobs", "horovod", "instances", pn, "logs")
        assert c.kubectl("logs", "-n", ns, pn).stdout.startswith(shown)
    assert first_line(m.read("jobs", "horovod", "gpus")) == "4/4\n"

    wait_until(lambda: m.read("jobs", "horovod", "status") == "SUCCEEDED\n", timeout=120,
               message="status SUCCEEDED once the launcher ended")
    # ended: byte-equal (the workers are gone: cleanPodPolicy All; the
    # launcher's Job keeps its pod)
    assert m.read("jobs", "horovod", "logs") == c.kubectl("logs", "-n", ns, lname).stdout
    # the launcher's batch Job is the job's too: its events (the pod it made, its
    # end) are in events, as kubectl shows them
    said = wait_until(lambda: (lambda s: {"SuccessfulCreate", "Completed"} <= {r for r, _ in s}
                                and s)([(e["reason"], e["message"]) for e in c.kubectl_json(
                                    "get", "events", "-n", ns)["items"]
                                    if e["involvedObject"]["kind"] == "Job" and
                                    e["involvedObject"]["name"] == "horovod-launcher"]),
                      timeout=60, message="the launcher Job's events in kubectl")
    wait_until(lambda: (lambda t: all(
        any(l.split()[:1] == ["job/horovod-launcher"] and "[%s] %s" % (r, msg) in l
            for l in t.splitlines()) for r, msg in said))(m.read("jobs", "horovod", "events")),
        timeout=30, message="the launcher Job's events in jobs/horovod/events: %s" % said)
    os.rmdir(m.path("jobs", "horovod"))
    wait_until(lambda: c.kubectl("get", "mpijobs.kubeflow.org", "horovod",
                                 check=False).returncode != 0,
               timeout=60, message="the MPIJob to be gone")
    wait_until(lambda: not [p for p in te.pods(c, ns)
                            if not p["metadata"].get("deletionTimestamp")],
               timeout=90, message="its pods to be deleted")


# ---- under Kueue ----

QUEUE = "user-queue"        # to cluster-queue, nvidia.com/gpu quota 8 (tests/cluster/queues.yaml)
VISIBILITY = "/apis/visibility.kueue.x-k8s.io/v1beta2"


def queued_spec(workers, gpus):
    """An MPIJob in QUEUE of workers x gpus GPUs that runs until deleted."""
    return ("type: mpijob\nimage: horovod/horovod:0.28.1\ncommand: horovodrun python train.py\n"
            "workers: %d\ngpus: %d\nqueue: %s\n"
            'env: {SIM_RUN_SECONDS: "100000", KWOK_RUN: "forever"}\n' % (workers, gpus, QUEUE))


def workload_of(c, ns, name):
    """The Workload Kueue made for MPIJob name (its owner), or None."""
    for wl in c.kubectl_json("get", "workloads.kueue.x-k8s.io", "-n", ns)["items"]:
        if any(o["kind"] == "MPIJob" and o["name"] == name
               for o in wl["metadata"].get("ownerReferences") or []):
            return wl
    return None


def condition(obj, ctype):
    return next((x for x in (obj.get("status") or {}).get("conditions") or []
                 if x["type"] == ctype), {})


def test_mpijob_v2beta1_waits_in_a_kueue_queue_and_runs_once_admitted(v2):
    c, m = v2
    ns = getattr(c, "namespace", "default")
    # the module's namespace's LocalQueue (kubesim and up make it in default only)
    c.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
        "metadata": {"name": QUEUE, "namespace": ns},
        "spec": {"clusterQueue": "cluster-queue"}}))
    wait_until(lambda: "\n%s " % QUEUE in "\n" + m.read("queues", "list"), timeout=60,
               message="queues/list shows LocalQueue " + QUEUE)

    def status(name):
        return m.read("jobs", name, "status").strip()

    def submit(name, text):
        with open(m.path("submit", name + ".yaml"), "w") as f:
            f.write(text)

    # the job ahead takes the ClusterQueue's 8 GPUs
    submit("mq-ahead", queued_spec(2, 4))
    wait_until(lambda: status("mq-ahead") == "RUNNING", timeout=180,
               message="mq-ahead admitted and RUNNING")
    submit("mq-wait", queued_spec(2, 2))
    job = c.kubectl_json("get", "mpijobs.kubeflow.org", "mq-wait")
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == QUEUE
    wait_until(lambda: status("mq-wait") == "QUEUED", timeout=120, message="mq-wait QUEUED")

    # Kueue's Workload, owned by the MPIJob, and what the tree says of it
    wl = wait_until(lambda: (lambda w: w and condition(w, "QuotaReserved").get("message") and w)(
        workload_of(c, ns, "mq-wait")), timeout=60, message="mq-wait's Workload with a reason")
    said = condition(wl, "QuotaReserved")
    assert said["status"] == "False" and said["reason"] == "Pending", said
    assert wl["spec"]["queueName"] == QUEUE
    assert [ps["name"] for ps in wl["spec"]["podSets"]] == ["launcher", "worker"], wl["spec"]
    assert said["message"] == ("couldn't assign flavors to pod set worker: insufficient unused "
                               "quota for nvidia.com/gpu in flavor default-flavor, 4 more needed")
    line = json.loads(c.kubectl("get", "--raw", "%s/namespaces/%s/localqueues/%s/"
                                "pendingworkloads" % (VISIBILITY, ns, QUEUE)).stdout)["items"]
    assert [w["metadata"]["name"] for w in line] == [wl["metadata"]["name"]], line
    why = wait_until(lambda: (lambda w: "place 1 in line" in w and w)(
        m.read("jobs", "mq-wait", "why")), timeout=60, message="mq-wait's place in line")
    assert why.startswith("Queued in LocalQueue %s (ClusterQueue cluster-queue), place 1 in "
                          "line (1 in its LocalQueue), waiting " % QUEUE), why
    # Kueue's message, ended as a sentence
    assert why.endswith("Kueue says: %s.\n" % said["message"].rstrip(".")), why
    info = m.read("jobs", "mq-wait", "info")
    assert info.startswith(why + "\n"), info
    assert "\nStatus:      QUEUED\n" in info, info
    assert "\nQueue:       %s (ClusterQueue cluster-queue), Workload %s" % (
        QUEUE, wl["metadata"]["name"]) in info, info
    # held by Kueue's suspend: no pod, no GPU
    assert c.kubectl_json("get", "mpijobs.kubeflow.org", "mq-wait")["spec"]["runPolicy"][
        "suspend"] is True
    assert m.read("jobs", "mq-wait", "suspend") == "1\n"
    assert os.listdir(m.path("jobs", "mq-wait", "instances")) == []
    assert m.read("jobs", "mq-wait", "gpus") == "0/4\n"
    rows = {l.split()[0]: l.split() for l in m.read("cluster", "list").splitlines()[1:] if l}
    assert rows["mq-wait"][1] == "QUEUED" and rows["mq-ahead"][1] == "RUNNING", rows
    waiting = m.read("queues", "list").split("  Waiting, in line:\n")[1].splitlines()
    assert waiting[2].split()[:8] == ["1", ns, "mq-wait", "MPIJOB", QUEUE, "4", "0", "QUEUED"], \
        waiting

    # the job ahead goes: mq-wait is admitted, resumed and runs
    os.rmdir(m.path("jobs", "mq-ahead"))
    wait_until(lambda: status("mq-wait") == "RUNNING", timeout=180,
               message="mq-wait admitted and RUNNING")
    wl = workload_of(c, ns, "mq-wait")
    assert condition(wl, "Admitted").get("status") == "True", wl["status"]
    assert wl["status"]["admission"]["clusterQueue"] == "cluster-queue"
    # the launcher asks no GPU (nor anything the ClusterQueue covers): no flavor
    assert [(a["name"], a.get("flavors"), a.get("resourceUsage"))
            for a in wl["status"]["admission"]["podSetAssignments"]] == [
        ("launcher", None, None),
        ("worker", {"nvidia.com/gpu": "default-flavor"}, {"nvidia.com/gpu": "4"})], wl["status"]
    assert c.kubectl_json("get", "mpijobs.kubeflow.org", "mq-wait")["spec"]["runPolicy"][
        "suspend"] is False
    assert m.read("jobs", "mq-wait", "suspend") == "0\n"
    assert m.read("jobs", "mq-wait", "why").startswith("Running since ")
    info = m.read("jobs", "mq-wait", "info")
    assert "\nQueue:       %s (ClusterQueue cluster-queue), Workload %s" % (
        QUEUE, wl["metadata"]["name"]) in info, info
    job = c.kubectl_json("get", "mpijobs.kubeflow.org", "mq-wait")
    launcher = [p for p in te.pods(c, ns) if te.is_launcher(p)
                and p["metadata"]["name"].startswith("mq-wait-launcher")]
    names = sorted({p["metadata"]["name"] for p in te.pods_of_job(job, te.pods(c, ns)) +
                    launcher})
    assert len(launcher) == 1 and len(names) == 3, names
    wait_until(lambda: sorted(os.listdir(m.path("jobs", "mq-wait", "instances"))) == names,
               timeout=30, message="instances/: the launcher and the two workers")
    chief = [l for l in m.read("jobs", "mq-wait", "info").splitlines()
             if launcher[0]["metadata"]["name"] in l]
    assert chief and "true" in chief[0].lower(), info
    assert first_line(m.read("jobs", "mq-wait", "gpus")) == "4/4\n"
    os.rmdir(m.path("jobs", "mq-wait"))
    wait_until(lambda: workload_of(c, ns, "mq-wait") is None and
               c.kubectl("get", "mpijobs.kubeflow.org", "mq-wait", check=False).returncode != 0,
               timeout=60, message="mq-wait and its Workload gone")


def live_pods_of(c, ns, name):
    """The MPIJob's pods not being deleted (its workers and its launcher Job's)."""
    return sorted(p["metadata"]["name"] for p in te.pods(c, ns)
                  if not p["metadata"].get("deletionTimestamp") and
                  (p["metadata"].get("labels") or {}).get("training.kubeflow.org/job-name") == name)


def test_mpijob_v2beta1_evicted_and_preempted_by_kueue(v2):
    """Evicted (its LocalQueue drained) and preempted (by a job of higher
    priority): the word, why, and the job suspended with its pods gone, as
    kubectl shows; admitted again, it runs."""
    c, m = v2
    ns = getattr(c, "namespace", "default")

    def status(name):
        return m.read("jobs", name, "status").strip()

    def submit(name, text):
        with open(m.path("submit", name + ".yaml"), "w") as f:
            f.write(text)

    def suspended(name):
        return c.kubectl_json("get", "mpijobs.kubeflow.org", name)["spec"]["runPolicy"].get(
            "suspend")

    submit("mq-ev", queued_spec(1, 2))
    wait_until(lambda: status("mq-ev") == "RUNNING", timeout=180, message="mq-ev RUNNING")
    c.kubectl("patch", "localqueue", QUEUE, "--type=merge", "-p",
              json.dumps({"spec": {"stopPolicy": "HoldAndDrain"}}))
    try:
        wait_until(lambda: status("mq-ev") == "EVICTED", timeout=120, message="mq-ev EVICTED")
        evicted = condition(workload_of(c, ns, "mq-ev"), "Evicted")
        assert evicted.get("status") == "True" and evicted["reason"] == "LocalQueueStopped", \
            evicted
        # Kueue holds a stopped LocalQueue's Workloads out of its line (Inadmissible):
        # no place in line is promised, and the visibility API lists none
        why = wait_until(lambda: (lambda w: "held out of line" in w and w)(
            m.read("jobs", "mq-ev", "why")), timeout=60, message="mq-ev held out of line")
        assert why.startswith("Evicted by Kueue ") and " ago (LocalQueueStopped), back in " \
            "LocalQueue %s (ClusterQueue cluster-queue), held out of line (inadmissible): " \
            % QUEUE in why, why
        assert why.endswith("Kueue says: %s.\n" % evicted["message"].rstrip(".")), why
        held = condition(workload_of(c, ns, "mq-ev"), "QuotaReserved")
        assert held["status"] == "False" and held["reason"] == "Inadmissible", held
        # (a stopped LocalQueue is not in Kueue's queues at all: its line is not found)
        r = c.kubectl("get", "--raw", "%s/namespaces/%s/localqueues/%s/pendingworkloads"
                      % (VISIBILITY, ns, QUEUE), check=False)
        assert r.returncode != 0 and "NotFound" in r.stderr, (r.stdout, r.stderr)
        line = json.loads(c.kubectl("get", "--raw", "%s/clusterqueues/cluster-queue/"
                                    "pendingworkloads" % VISIBILITY).stdout)["items"]
        assert [w["metadata"]["name"] for w in line] == [], line
        assert suspended("mq-ev") is True and m.read("jobs", "mq-ev", "suspend") == "1\n"
        # the operator suspends the launcher Job and deletes the workers
        wait_until(lambda: c.kubectl_json("get", "jobs.batch", "mq-ev-launcher")["spec"].get(
            "suspend") is True, timeout=60, message="the launcher Job suspended")
        wait_until(lambda: live_pods_of(c, ns, "mq-ev") == [] and
                   os.listdir(m.path("jobs", "mq-ev", "instances")) == [],
                   timeout=120, message="mq-ev's pods gone, in kubectl and instances/")
        assert m.read("jobs", "mq-ev", "gpus") == "0/2\n"
    finally:
        c.kubectl("patch", "localqueue", QUEUE, "--type=merge", "-p",
                  json.dumps({"spec": {"stopPolicy": "None"}}))
    wait_until(lambda: status("mq-ev") == "RUNNING", timeout=180,
               message="mq-ev admitted again, RUNNING")
    assert suspended("mq-ev") is False
    assert m.read("jobs", "mq-ev", "why").startswith("Running since ")
    names = wait_until(lambda: (lambda n: len(n) == 2 and n)(live_pods_of(c, ns, "mq-ev")),
                       timeout=60, message="mq-ev's launcher and worker again")
    wait_until(lambda: sorted(os.listdir(m.path("jobs", "mq-ev", "instances"))) == names,
               timeout=60, message="instances/ as kubectl: " + " ".join(names))
    # Kueue's own events on the job, as kubectl shows them, in jobs/NAME/events
    said = {(e["reason"], e["message"]) for e in c.kubectl_json("get", "events", "-n", ns)[
        "items"] if e["involvedObject"]["kind"] == "MPIJob" and
        e["involvedObject"]["name"] == "mq-ev"}
    wl = workload_of(c, ns, "mq-ev")["metadata"]["name"]
    kueue = [("CreatedWorkload", "Created Workload: %s/%s" % (ns, wl)),
             ("Started", "Admitted by clusterQueue cluster-queue"),
             ("Stopped", "The LocalQueue is stopped")]
    assert set(kueue) <= said, said
    events = m.read("jobs", "mq-ev", "events")
    for reason, message in kueue:
        assert "[%s] %s" % (reason, message) in events, events
    os.rmdir(m.path("jobs", "mq-ev"))

    # preemption: a ClusterQueue of 4 GPUs that preempts by priority
    cq, lq = "mq-prio", "mq-prio"
    c.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": cq},
        "spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
                 "resourceGroups": [{"coveredResources": ["cpu", "memory", "ephemeral-storage",
                                                          "nvidia.com/gpu"],
                                     "flavors": [{"name": "default-flavor", "resources": [
                                         {"name": "cpu", "nominalQuota": "128"},
                                         {"name": "memory", "nominalQuota": "1Ti"},
                                         {"name": "ephemeral-storage", "nominalQuota": "2000Gi"},
                                         {"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]}}))
    c.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
        "metadata": {"name": lq, "namespace": ns}, "spec": {"clusterQueue": cq}}))
    try:
        wait_until(lambda: "\n%s " % lq in "\n" + m.read("queues", "list"), timeout=60,
                   message="queues/list shows LocalQueue " + lq)
        submit("mq-low", queued_spec(2, 2).replace(QUEUE, lq) + "priority: low\n")
        wait_until(lambda: status("mq-low") == "RUNNING", timeout=180, message="mq-low RUNNING")
        submit("mq-high", queued_spec(2, 2).replace(QUEUE, lq) + "priority: high\n")
        wait_until(lambda: status("mq-low") == "PREEMPTED" and status("mq-high") == "RUNNING",
                   timeout=180, message="mq-high RUNNING, mq-low PREEMPTED")
        low = workload_of(c, ns, "mq-low")
        preempted = condition(low, "Preempted")
        assert preempted.get("status") == "True" and preempted["reason"] == "InClusterQueue", \
            low["status"]
        back = ", back in LocalQueue %s (ClusterQueue %s), place 1 in line" % (lq, cq)
        why = wait_until(lambda: (lambda w: back in w and w)(m.read("jobs", "mq-low", "why")),
                         timeout=60, message="mq-low's place in line")
        assert why.startswith("Preempted by Kueue "), why
        assert "Kueue says: Preempted to accommodate a workload (UID: %s" % \
            workload_of(c, ns, "mq-high")["metadata"]["uid"] in why, why
        assert suspended("mq-low") is True
        wait_until(lambda: live_pods_of(c, ns, "mq-low") == [] and
                   os.listdir(m.path("jobs", "mq-low", "instances")) == [],
                   timeout=120, message="mq-low's pods gone, in kubectl and instances/")
        rows = {l.split()[0]: l.split() for l in m.read("cluster", "list").splitlines()[1:] if l}
        assert rows["mq-low"][1] == "PREEMPTED" and rows["mq-high"][1] == "RUNNING", rows
        # the job of higher priority goes: the preempted one runs again
        os.rmdir(m.path("jobs", "mq-high"))
        wait_until(lambda: status("mq-low") == "RUNNING", timeout=180,
                   message="mq-low admitted again, RUNNING")
        os.rmdir(m.path("jobs", "mq-low"))
        wait_until(lambda: not [w for w in c.kubectl_json(
            "get", "workloads.kueue.x-k8s.io", "-n", ns)["items"]], timeout=60,
            message="the Workloads gone with their jobs")
    finally:
        c.kubectl("delete", "localqueue", lq, "--wait=false", check=False)
        c.kubectl("delete", "clusterqueue", cq, "--wait=false", check=False)
