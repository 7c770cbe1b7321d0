"""The simulation seen through real clients (kubectl 1.32 and Debian's
python3-kubernetes): failing jobs, unschedulable pods and their events,
restarts, logs equal to what the simulated containers print, cleanPodPolicy
All/Running/None, MPIJob v2beta1, TrainJob, the TensorBoard Deployment, the
demo and the --jobs fleet.
"""

import json
import re
import sys
import time

import pytest

from helpers import wait_until
from kubesim_lib.sim import loglines

SEED = 11


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "2", "--gpus", "4", "--speed", "20", "--seed", str(SEED))


def rows(out):
    return [re.split(r"\s{2,}", line.strip()) for line in out.strip().splitlines()]


def manifest(kind, name, specs_key, replicas, container, policy="Never", run_policy=""):
    specs = ""
    for rtype, n in replicas:
        specs += """    %s:
      replicas: %d
      restartPolicy: %s
      template:
        spec:
          containers:
%s""" % (rtype, n, policy, container)
    return """apiVersion: kubeflow.org/v1
kind: %s
metadata:
  name: %s
spec:%s
  %s:
%s""" % (kind, name, run_policy, specs_key, specs)


def tf_container(gpus=0, name="tensorflow", **env):
    lines = ["          - name: %s" % name, "            image: tensorflow/tensorflow:2.15.0-gpu",
             "            env:"]
    for k, v in env.items():
        lines += ["            - name: %s" % k, '              value: "%s"' % v]
    if gpus:
        lines += ["            resources:", "              limits:",
                  '                nvidia.com/gpu: "%d"' % gpus]
    return "\n".join(lines) + "\n"


def create(c, tmp_path, text):
    f = tmp_path / "obj.yaml"
    f.write_text(text)
    return c.kubectl("create", "-f", str(f)).stdout


def condition(c, resource, name, ctype):
    def check():
        obj = c.kubectl_json("get", resource, name)
        for x in (obj.get("status") or {}).get("conditions") or []:
            if x["type"] == ctype and x["status"] == "True":
                return obj
        return None
    return wait_until(check, 90, "%s %s %s" % (resource, name, ctype))


def test_failing_job_ends_failed(c, tmp_path):
    create(c, tmp_path, manifest("TFJob", "bad", "tfReplicaSpecs", [("Worker", 1)],
                                 tf_container(SIM_RUN_SECONDS=10, SIM_EXIT_CODE=1)))
    job = condition(c, "tfjob", "bad", "Failed")
    failed = [x for x in job["status"]["conditions"] if x["type"] == "Failed"][0]
    assert (failed["reason"], failed["message"]) == (
        "TFJobFailed", "TFJob default/bad has failed because 1 Worker replica(s) failed.")
    assert job["status"]["replicaStatuses"] == {"Worker": {"failed": 1}}
    r = rows(c.kubectl("get", "pod", "bad-worker-0").stdout)
    assert r[1][:4] == ["bad-worker-0", "0/1", "Error", "0"], r
    assert rows(c.kubectl("get", "tfjob", "bad").stdout)[1][1] == "Failed"
    ev = c.kubectl("get", "events", "--field-selector", "involvedObject.name=bad").stdout
    assert "TFJobFailed" in ev and "ExitedWithCode" in ev, ev


def test_pending_pod_shows_failed_scheduling(c, tmp_path):
    create(c, tmp_path, manifest("TFJob", "huge", "tfReplicaSpecs", [("Worker", 1)],
                                 tf_container(gpus=16)))
    msg = ("0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are "
           "available: 2 No preemption victims found for incoming pod..")
    out = wait_until(lambda: (lambda o: "FailedScheduling" in o and o)(c.kubectl(
        "get", "events", "--field-selector", "involvedObject.name=huge-worker-0").stdout),
        60, "FailedScheduling event")
    line = [x for x in out.splitlines() if "FailedScheduling" in x][0]
    assert re.split(r"\s{2,}", line.strip())[1:4] == ["Warning", "FailedScheduling", "pod/huge-worker-0"], line
    assert msg in line, line
    d = c.kubectl("describe", "pod", "huge-worker-0").stdout
    assert re.search(r"^Status:\s+Pending$", d, re.M), d
    assert re.search(r"Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+" + re.escape(msg), d), d
    r = rows(c.kubectl("get", "pod", "huge-worker-0", "-o", "wide").stdout)
    assert r[1][2] == "Pending" and r[1][6] == "<none>", r
    c.kubectl("delete", "tfjob", "huge")


def test_restarts_and_previous_logs(c, tmp_path):
    create(c, tmp_path, manifest("PyTorchJob", "crashy", "pytorchReplicaSpecs", [("Master", 1)],
                                 tf_container(name="pytorch", SIM_RUN_SECONDS=2, SIM_EXIT_CODE=3),
                                 policy="OnFailure"))

    def restarted():
        r = rows(c.kubectl("get", "pod", "crashy-master-0").stdout)[1]
        return int(r[3].split()[0]) >= 2 and r
    r = wait_until(restarted, 90, "two restarts")
    assert r[0] == "crashy-master-0"
    wait_until(lambda: "CrashLoopBackOff" in c.kubectl("get", "pod", "crashy-master-0").stdout,
               90, "CrashLoopBackOff in STATUS")
    prev = c.kubectl("logs", "crashy-master-0", "--previous").stdout.splitlines()
    assert prev[-1] == "ERROR training failed at step 40: exit code 3", prev[-2:]
    pod = c.kubectl_json("get", "pod", "crashy-master-0")
    st = pod["status"]["containerStatuses"][0]
    assert st["lastState"]["terminated"]["exitCode"] == 3
    assert pod["status"]["phase"] == "Running"
    d = c.kubectl("describe", "pod", "crashy-master-0").stdout
    assert "Back-off restarting failed container pytorch in pod crashy-master-0_default(" in d, d
    c.kubectl("delete", "pytorchjob", "crashy")


@pytest.mark.parametrize("policy", ["All", "Running", "None"])
def test_clean_pod_policy_when_the_job_succeeds(c, tmp_path, policy):
    # training-operator's deletePodsAndServices once the job has finished:
    # All deletes every pod (and its Service), Running the running and
    # pending ones, None nothing. A PS that never ends is still running when
    # worker 0's success makes the job Succeeded.
    name = "clean-" + policy.lower()
    spec = "\n  runPolicy:\n    cleanPodPolicy: %s\n  tfReplicaSpecs:\n" % policy
    for rtype, seconds in (("PS", 100000), ("Worker", 4)):
        spec += ("    %s:\n      replicas: 1\n      restartPolicy: Never\n      template:\n"
                 "        spec:\n          containers:\n%s"
                 % (rtype, tf_container(SIM_RUN_SECONDS=seconds)))
    create(c, tmp_path, "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: %s\n"
           "spec:%s" % (name, spec))
    condition(c, "tfjob", name, "Succeeded")
    # The operator deletes in the pass that moves the PS from active to
    # succeeded, before it writes that status: once it is there, every
    # deletion the policy asks for has been made.
    settled = {"PS": {"succeeded": 1}, "Worker": {"succeeded": 1}}
    wait_until(lambda: c.kubectl_json("get", "tfjob", name)["status"]["replicaStatuses"] ==
               settled, 60, "replicaStatuses settled")
    ps, worker = name + "-ps-0", name + "-worker-0"
    deleted = sorted(e["message"] for e in c.kubectl_json(
        "get", "events", "--field-selector",
        "involvedObject.name=%s,reason=SuccessfulDeletePod" % name)["items"])
    expect = {"All": [ps, worker], "Running": [ps], "None": []}[policy]
    assert deleted == ["Deleted pod: " + p for p in expect], deleted

    def pods_and_services():
        sel = "training.kubeflow.org/job-name=" + name
        return (c.kubectl("get", "pods", "-l", sel, "-o", "name").stdout.split(),
                c.kubectl("get", "services", "-l", sel, "-o", "name").stdout.split())
    kept = {"All": [], "Running": [worker], "None": [ps, worker]}[policy]
    want = (["pod/" + p for p in kept], ["service/" + p for p in kept])
    wait_until(lambda: pods_and_services() == want, 60, "only %s left" % kept)
    pods = c.kubectl_json("get", "pods", "-l", "training.kubeflow.org/job-name=" + name)["items"]
    phases = {p["metadata"]["name"]: (p["status"]["phase"], p["metadata"].get("deletionTimestamp"))
              for p in pods}
    assert phases == {"All": {}, "Running": {worker: ("Succeeded", None)},
                      "None": {ps: ("Running", None), worker: ("Succeeded", None)}}[policy], \
        phases


def test_python_client_reads_the_simulation(c, tmp_path):
    from kubernetes import client
    create(c, tmp_path, manifest("TFJob", "pyclient", "tfReplicaSpecs", [("Worker", 2)],
                                 tf_container(gpus=1, SIM_RUN_SECONDS=6, SIM_LOG_LINES_PER_SECOND=5)))
    api = c.python_client()
    core = client.CoreV1Api(api)
    custom = client.CustomObjectsApi(api)
    job = wait_until(lambda: (lambda j: any(x["type"] == "Succeeded" and x["status"] == "True" for x in
                                            (j.get("status") or {}).get("conditions") or []) and j)(
        custom.get_namespaced_custom_object("kubeflow.org", "v1", "default", "tfjobs", "pyclient")),
        90, "pyclient Succeeded")
    assert job["status"]["completionTime"]
    wait_until(lambda: custom.get_namespaced_custom_object(
        "kubeflow.org", "v1", "default", "tfjobs", "pyclient")["status"]["replicaStatuses"] ==
        {"Worker": {"succeeded": 2}}, 30, "both workers counted succeeded")
    pods = core.list_namespaced_pod("default", label_selector="training.kubeflow.org/job-name=pyclient")
    names = sorted(p.metadata.name for p in pods.items)
    assert names == ["pyclient-worker-0", "pyclient-worker-1"]
    p0 = [p for p in pods.items if p.metadata.name == "pyclient-worker-0"][0]
    cs = p0.status.container_statuses[0]
    assert cs.name == "tensorflow" and cs.image_id.startswith("docker.io/tensorflow/tensorflow@sha256:")
    assert p0.metadata.owner_references[0].kind == "TFJob"
    assert p0.spec.node_name in ("node-0", "node-1")
    log = core.read_namespaced_pod_log("pyclient-worker-0", "default", container="tensorflow")
    assert log.splitlines() == loglines.expected_log(SEED, "default", "pyclient-worker-0",
                                                     "tensorflow", 0, 6, 5, 0)
    evs = core.list_namespaced_event("default", field_selector="involvedObject.name=pyclient-worker-0")
    reasons = {e.reason for e in evs.items}
    assert {"Scheduled", "Created", "Started"} <= reasons, reasons
    sched = [e for e in evs.items if e.reason == "Scheduled"][0]
    assert sched.message == "Successfully assigned default/pyclient-worker-0 to %s" % p0.spec.node_name
    nodes = core.list_node().items
    assert nodes[0].status.node_info.kubelet_version == "v1.32.0"
    assert nodes[0].status.capacity["nvidia.com/gpu"] == "4"


def test_mpijob_v2beta1_launcher_job(kubesim, tmp_path):
    k = kubesim("--nodes", "2", "--gpus", "2", "--speed", "20", "--mpi-v2beta1")
    f = tmp_path / "mpi.yaml"
    f.write_text("""apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: mpioperator/mpi-pi:openmpi
            command: [mpirun, /home/mpiuser/pi]
            env:
            - name: SIM_RUN_SECONDS
              value: "10"
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi-worker
            image: mpioperator/mpi-pi:openmpi
            resources:
              limits:
                nvidia.com/gpu: 1
""")
    assert k.kubectl("create", "-f", str(f)).stdout == "mpijob.kubeflow.org/pi created\n"
    job = condition(k, "mpijob", "pi", "Succeeded")
    assert [x["type"] for x in job["status"]["conditions"]] == ["Created", "Running", "Succeeded"]
    jobs = rows(k.kubectl("get", "jobs").stdout)
    assert jobs[1][0] == "pi-launcher" and jobs[1][2] == "1/1", jobs
    lp = k.kubectl_json("get", "pods", "-l", "training.kubeflow.org/job-role=launcher")["items"]
    assert [p["metadata"]["labels"]["job-name"] for p in lp] == ["pi-launcher"]
    wait_until(lambda: k.kubectl("get", "pods", "-l", "training.kubeflow.org/job-role=worker",
                                 "-o", "name").stdout == "", 60, "workers cleaned up")


def test_demo_cluster(kubesim):
    k = kubesim("--demo", "--speed", "20")
    out = k.kubectl("get", "tfjobs,pytorchjobs,mpijobs,trainjobs", "-A").stdout
    for name in ("mnist", "mnist-v1", "resnet-fail", "big-model", "gan", "bert-finetune", "flaky",
                 "horovod-mnist", "llm-pretrain"):
        assert re.search(r"\b%s\b" % name, out), (name, out)
    wait_until(lambda: rows(k.kubectl("get", "deploy", "mnist-tensorboard").stdout)[1][1] == "1/1",
               60, "TensorBoard ready")
    svc = rows(k.kubectl("get", "svc", "mnist-tensorboard").stdout)
    assert svc[1][1] == "NodePort" and svc[1][4] == "6006:31606/TCP", svc
    nodes = rows(k.kubectl("get", "nodes").stdout)
    assert [n[0] for n in nodes[1:]] == ["cpu-node-0", "node-0", "node-1", "node-2", "node-3"]
    condition(k, "tfjob", "mnist", "Running")
    condition(k, "tfjob", "resnet-fail", "Failed")


def test_fleet_of_ten_thousand_jobs(kubesim, capsys):
    t0 = time.monotonic()
    k = kubesim("--nodes", "1000", "--jobs", "10000", "--speed", "1", ready_timeout=600)
    ready = time.monotonic() - t0
    t1 = time.monotonic()
    names = k.kubectl("get", "tfjobs", "--no-headers", "-o", "name", timeout=300).stdout.split()
    list_jobs = time.monotonic() - t1
    assert len(names) == 10000
    t2 = time.monotonic()
    status, body = k.api("GET", "/api/v1/pods?limit=100000")
    list_pods = time.monotonic() - t2
    assert status == 200 and len(body["items"]) == 50000
    phases = {}
    for p in body["items"]:
        phases[p["status"]["phase"]] = phases.get(p["status"]["phase"], 0) + 1
    assert phases.get("Running", 0) > 0 and phases.get("Succeeded", 0) > 0, phases
    with capsys.disabled():
        sys.stdout.write("\nkubesim --nodes 1000 --jobs 10000: ready in %.1f s; kubectl get tfjobs "
                         "(10,000, pages of 500) %.1f s; one GET of 50,000 pods %.1f s; phases %s\n"
                         % (ready, list_jobs, list_pods, json.dumps(phases, sort_keys=True)))
