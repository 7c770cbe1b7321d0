"""A job's whole life on the real cluster: submitted through submit/, turned into
pods by the real training-operator, scheduled by the real kube-scheduler onto
kwok GPU nodes, run, succeeded, deleted by rmdir with the real garbage
collector removing its pods and TensorBoard. Every expectation is what kubectl
says of the same objects at the same time (tests/integration/tree_expect.py)."""

import errno
import os

import pytest

from helpers import TFJOB_MANIFEST, first_line, wait_until
import tree_expect as te


def submit(m, name, text):
    """cp of a spec: the errno close(2) returned (0 on success)."""
    try:
        with open(m.path("submit", name + ".yaml"), "w") as f:
            f.write(text)
    except OSError as e:
        return e.errno
    return 0


def kubectl_logs(c, ns, pod):
    return c.kubectl("logs", "-n", ns, pod).stdout


@pytest.fixture
def ns_mount(real_view, arenafs):
    return real_view, arenafs(real_view, "namespace=" + real_view.namespace)


def test_tfjob_ps_and_two_workers_runs_and_succeeds(ns_mount):
    c, m = ns_mount
    ns = c.namespace
    assert submit(m, "mnist", """type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: python train.py
gpus: 2
workers: 2
ps: 1
tensorboard: true
env: {KWOK_RUN: 12s}
""") == 0
    assert m.read("jobs", "mnist", "type") == "tfjob\n"
    job = c.kubectl_json("get", "tfjob", "mnist")
    assert set(job["spec"]["tfReplicaSpecs"]) == {"PS", "Worker"}

    # the real operator makes three pods; the real scheduler binds them
    def running():
        pods = te.pods_of_job(c.kubectl_json("get", "tfjob", "mnist"), te.pods(c, ns))
        return len(pods) == 3 and all(p["status"].get("phase") == "Running" for p in pods) and pods
    pods = wait_until(running, timeout=90, message="three running pods of mnist")
    wait_until(lambda: m.read("jobs", "mnist", "status") == "RUNNING\n", timeout=20,
               message="status RUNNING")
    names = sorted(p["metadata"]["name"] for p in pods)
    wait_until(lambda: sorted(os.listdir(m.path("jobs", "mnist", "instances"))) == names,
               timeout=20, message="instances/ to list the three pods")
    for p in pods:
        pn = p["metadata"]["name"]
        assert m.read("jobs", "mnist", "instances", pn, "node") == p["spec"]["nodeName"] + "\n"
        assert m.read("jobs", "mnist", "instances", pn, "status") == "Running\n"

    # GPUs: 2 per worker, none for the PS, counted on the nodes the scheduler chose
    assert first_line(m.read("jobs", "mnist", "gpus")) == "4/4\n"
    nodes = c.kubectl_json("get", "nodes")["items"]

    def node_gpus_agree():
        # pods being deleted hold no GPU (Arena's count): an earlier module's
        # namespace may still be going away
        pods = c.kubectl_json("get", "pods", "-A")["items"]
        for n in nodes:
            name = n["metadata"]["name"]
            used = sum(int(ctr.get("resources", {}).get("limits", {}).get(te.GPU, 0))
                       for p in pods
                       if p["spec"].get("nodeName") == name
                       and p["status"].get("phase") in ("Pending", "Running")
                       and not p["metadata"].get("deletionTimestamp")
                       for ctr in p["spec"]["containers"])
            total = int(n["status"]["allocatable"][te.GPU])
            if m.read("nodes", name, "gpus") != "%d/%d\n" % (used, total):
                return False
        return True
    wait_until(node_gpus_agree, timeout=30, interval=0.5,
               message="nodes/*/gpus to match the pods kubectl shows")
    top = m.read("cluster", "top")
    for n in nodes:
        assert n["metadata"]["name"] in top

    # logs: byte-identical to kubectl logs of the main instance (worker 0) and of each pod
    worker0 = next(p["metadata"]["name"] for p in pods if p["metadata"]["name"].endswith("worker-0"))
    assert m.read("jobs", "mnist", "logs") == kubectl_logs(c, ns, worker0)
    for p in pods:
        pn = p["metadata"]["name"]
        assert m.read("jobs", "mnist", "instances", pn, "logs") == kubectl_logs(c, ns, pn)

    # TensorBoard: the real Deployment and NodePort Service, owned by the job
    svc = c.kubectl_json("get", "service", "mnist-tensorboard")
    port = svc["spec"]["ports"][0]["nodePort"]
    url = m.read("jobs", "mnist", "tensorboard_url").strip()
    assert url.endswith(":%d" % port), url
    dep = c.kubectl_json("get", "deployment", "mnist-tensorboard")
    assert dep["metadata"]["ownerReferences"][0]["name"] == "mnist"

    wait_until(lambda: m.read("jobs", "mnist", "status") == "SUCCEEDED\n", timeout=90,
               message="status SUCCEEDED")
    info = m.read("jobs", "mnist", "info")
    assert "SUCCEEDED" in info and "tfjob" in info.lower()
    assert te.job_status(c.kubectl_json("get", "tfjob", "mnist"),
                         te.pods_of_job(c.kubectl_json("get", "tfjob", "mnist"),
                                        te.pods(c, ns))) == "SUCCEEDED"

    # rmdir: the job goes at once; the real garbage collector removes its dependents
    os.rmdir(m.path("jobs", "mnist"))
    assert "mnist" not in os.listdir(m.path("jobs"))
    wait_until(lambda: c.kubectl("get", "tfjob", "mnist", check=False).returncode != 0,
               timeout=60, message="the TFJob to be gone")
    wait_until(lambda: not c.kubectl_json("get", "deployments")["items"], timeout=90,
               message="the garbage collector to delete the TensorBoard Deployment")
    wait_until(lambda: not c.kubectl_json("get", "services")["items"], timeout=90,
               message="the garbage collector to delete the TensorBoard Service")
    wait_until(lambda: not te.pods(c, ns), timeout=90,
               message="the job's pods to be deleted")


def test_pytorchjob_master_and_workers(ns_mount):
    c, m = ns_mount
    ns = c.namespace
    assert submit(m, "torch", """type: pytorchjob
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: python train.py
gpus: 1
workers: 3
env: {KWOK_RUN: 8s}
""") == 0
    job = c.kubectl_json("get", "pytorchjob", "torch")
    specs = job["spec"]["pytorchReplicaSpecs"]
    assert specs["Master"]["replicas"] == 1 and specs["Worker"]["replicas"] == 2

    def three():
        pods = te.pods_of_job(c.kubectl_json("get", "pytorchjob", "torch"), te.pods(c, ns))
        return len(pods) == 3 and pods
    pods = wait_until(three, timeout=90, message="master and two workers")
    wait_until(lambda: m.read("jobs", "torch", "status") in ("RUNNING\n", "SUCCEEDED\n"),
               timeout=60, message="status RUNNING")
    master = next(p["metadata"]["name"] for p in pods if "master" in p["metadata"]["name"])
    wait_until(lambda: c.kubectl_json("get", "pod", master)["status"].get("phase")
               in ("Running", "Succeeded"), timeout=60, message="the master to run")
    assert m.read("jobs", "torch", "logs") == kubectl_logs(c, ns, master)
    wait_until(lambda: m.read("jobs", "torch", "status") == "SUCCEEDED\n", timeout=90,
               message="status SUCCEEDED")
    os.rmdir(m.path("jobs", "torch"))
    wait_until(lambda: c.kubectl("get", "pytorchjob", "torch", check=False).returncode != 0,
               timeout=60, message="the PyTorchJob to be gone")


def test_failed_job_and_a_restart(ns_mount):
    c, m = ns_mount
    assert submit(m, "crashy", """type: tfjob
image: tensorflow/tensorflow:2.15.0
command: python train.py
env: {KWOK_RUN: 4s, KWOK_EXIT: "1"}
""") == 0
    wait_until(lambda: m.read("jobs", "crashy", "status") == "FAILED\n", timeout=90,
               message="status FAILED")
    job = c.kubectl_json("get", "tfjob", "crashy")
    assert te.job_status(job, te.pods_of_job(job, te.pods(c, c.namespace))) == "FAILED"

    # a container that crashes once, restarts in place (OnFailure), then succeeds
    c.kubectl("create", "-f", "-", input="""apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: phoenix
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.15.0
            env:
            - {name: KWOK_CRASH_ONCE, value: "1"}
            - {name: KWOK_RUN, value: 6s}
""")
    pod = "phoenix-worker-0"
    wait_until(lambda: c.kubectl_json("get", "pod", pod)["status"]["containerStatuses"][0]
               ["restartCount"] == 1, timeout=90, message="the worker to restart once")
    prev = m.path("jobs", "phoenix", "instances", pod, "logs.previous")
    wait_until(lambda: os.path.exists(prev), timeout=20, message="logs.previous after a restart")
    assert m.read("jobs", "phoenix", "instances", pod, "logs.previous") == \
        c.kubectl("logs", "--previous", pod).stdout
    wait_until(lambda: m.read("jobs", "phoenix", "status") == "SUCCEEDED\n", timeout=90,
               message="phoenix to succeed after its restart")


def test_pending_for_lack_of_gpus(ns_mount):
    c, m = ns_mount
    gpus = max(int(n["status"]["allocatable"][te.GPU])
               for n in c.kubectl_json("get", "nodes")["items"])
    assert submit(m, "greedy", """type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: python train.py
gpus: %d
""" % (gpus + 1)) == 0
    def unschedulable():
        pods = te.pods_of_job(c.kubectl_json("get", "tfjob", "greedy"), te.pods(c, c.namespace))
        return pods and any(cond.get("reason") == "Unschedulable"
                            for cond in pods[0]["status"].get("conditions", [])) and pods[0]
    pod = wait_until(unschedulable, timeout=60,
                     message="the scheduler to find no node with enough GPUs")["metadata"]["name"]
    assert m.read("jobs", "greedy", "status") == "PENDING\n"
    assert m.read("jobs", "greedy", "instances", pod, "node") == "N/A\n"
    events = m.read("jobs", "greedy", "events")
    assert "FailedScheduling" in events and "nvidia.com/gpu" in events


def test_viewer_reads_but_cannot_submit_or_delete(real_cluster, arenafs, tmp_path):
    c = real_cluster
    c.kubectl("create", "-f", "-", input=TFJOB_MANIFEST % (
        "seen-by-viewer", "            env: [{name: KWOK_RUN, value: forever}]\n"))
    try:
        m = arenafs(c, "context=viewer", allow=(r"rmdir default/seen-by-viewer: .*forbidden",))
        wait_until(lambda: os.path.exists(m.path("jobs", "seen-by-viewer", "status")),
                   timeout=30, message="the viewer to see the job")
        assert submit(m, "nope", "type: tfjob\nimage: x\ncommand: y\n") == errno.EACCES
        assert "forbidden" in m.read("submit", "nope", "error").lower()
        with pytest.raises(OSError) as e:
            os.rmdir(m.path("jobs", "seen-by-viewer"))
        assert e.value.errno == errno.EACCES
        # what RBAC hides from the viewer: nodes (cluster-scoped), other namespaces
        assert os.listdir(m.path("nodes")) == []
        assert os.listdir(m.path("namespaces")) == []
    finally:
        c.kubectl("delete", "tfjob", "seen-by-viewer", "--wait=false")


def test_anonymous_is_forbidden(real_cluster):
    """kube-apiserver answers a request without credentials as system:anonymous:
    403 from RBAC (kubesim's TLS mode answers 401: docs/kubesim.md)."""
    status, body = real_cluster.api("GET", "/apis/kubeflow.org/v1/namespaces/default/tfjobs",
                                    token="")
    assert status == 403, body
    assert 'User "system:anonymous"' in body["message"]
