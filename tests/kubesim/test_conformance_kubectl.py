"""kubectl 1.32 against kubesim: what it prints for get (table, wide, json),
api-resources, create -f with default validation, get -w, logs, logs -f,
delete, auth can-i, and NodePort allocation (a taken port's 422). Where kubectl and
kubesim disagree, kubesim is wrong."""

import subprocess
import threading

import pytest
import yaml

from helpers import wait_until

SPEED = "20"


def tfjob_yaml(name, workers=2, run_seconds=20, exit_code=0, image="tensorflow/tensorflow:2.15.0",
               extra_spec=""):
    return """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: %s
spec:%s
  tfReplicaSpecs:
    Worker:
      replicas: %d
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: %s
            env:
            - name: SIM_RUN_SECONDS
              value: "%s"
            - name: SIM_EXIT_CODE
              value: "%d"
""" % (name, extra_spec, workers, image, run_seconds, exit_code)


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "3", "--gpus", "4", "--cpu-nodes", "1", "--speed", SPEED,
                          "--seed", "3")


def rows(out):
    """Table output as lists of columns (split on 2+ spaces)."""
    import re
    return [re.split(r"\s{2,}", line.strip()) for line in out.strip().splitlines()]


def test_get_nodes_table_and_wide(c):
    out = c.kubectl("get", "nodes").stdout
    r = rows(out)
    assert r[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"], out
    names = [x[0] for x in r[1:]]
    assert names == ["cpu-node-0", "node-0", "node-1", "node-2"], out
    assert all(x[1] == "Ready" and x[2] == "worker" and x[4] == "v1.32.0" for x in r[1:]), out
    wide = rows(c.kubectl("get", "nodes", "-o", "wide").stdout)
    assert wide[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP",
                       "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"], wide
    assert wide[1][5].startswith("10.0."), wide


def test_get_nodes_json_has_gpu_capacity(c):
    d = c.kubectl_json("get", "nodes")
    assert d["kind"] == "List" or d["kind"] == "NodeList"
    by = {n["metadata"]["name"]: n for n in d["items"]}
    assert by["node-0"]["status"]["capacity"]["nvidia.com/gpu"] == "4"
    assert "nvidia.com/gpu" not in by["cpu-node-0"]["status"]["capacity"]
    assert all(n["kind"] == "Node" and n["apiVersion"] == "v1" for n in d["items"])


def test_api_resources_lists_the_kubeflow_kinds(c):
    out = c.kubectl("api-resources", "--api-group", "kubeflow.org").stdout
    r = rows(out)
    assert r[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"], out
    kinds = sorted((x[0], x[-1]) for x in r[1:])
    assert kinds == [("jaxjobs", "JAXJob"), ("mpijobs", "MPIJob"), ("paddlejobs", "PaddleJob"),
                     ("pytorchjobs", "PyTorchJob"), ("tfjobs", "TFJob"),
                     ("xgboostjobs", "XGBoostJob")], out
    core = rows(c.kubectl("api-resources", "--api-group", "").stdout)
    assert ["pods", "po", "v1", "true", "Pod"] in core, core
    assert ["nodes", "no", "v1", "false", "Node"] in core, core


def test_create_f_with_default_validation_then_watch_states(c, tmp_path):
    f = tmp_path / "tf.yaml"
    f.write_text(tfjob_yaml("watched", run_seconds=40))
    out = c.kubectl("create", "-f", str(f))
    assert out.stdout == "tfjob.kubeflow.org/watched created\n", out
    proc = subprocess.Popen(["kubectl", "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache_dir,
                             "get", "tfjob", "watched", "-w"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    states = []
    timer = threading.Timer(60, proc.kill)
    timer.start()
    try:
        header = proc.stdout.readline()
        assert header.split() == ["NAME", "STATE", "AGE"], header
        for line in proc.stdout:
            states.append(line.split()[1])
            if states[-1] == "Succeeded":
                break
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()
    assert states[-1] == "Succeeded", states
    assert "Running" in states or states[0] == "Created", states
    job = c.kubectl_json("get", "tfjob", "watched")
    assert [x["type"] for x in job["status"]["conditions"]] == ["Created", "Running", "Succeeded"]
    assert job["status"]["replicaStatuses"] == {"Worker": {"succeeded": 2}}


def test_server_dry_run_creates_nothing_and_sees_a_taken_name(c, tmp_path):
    f = tmp_path / "dry.yaml"
    f.write_text(tfjob_yaml("dry-taken", run_seconds=40))
    out = c.kubectl("create", "--dry-run=server", "-f", str(f))
    assert out.stdout == "tfjob.kubeflow.org/dry-taken created (server dry run)\n", out
    assert c.kubectl("get", "tfjob", "dry-taken", check=False).returncode != 0
    c.kubectl("create", "-f", str(f))
    # kube-apiserver's dry-run storage checks the name as a real create does
    out = c.kubectl("create", "--dry-run=server", "-f", str(f), check=False)
    assert out.returncode == 1
    assert out.stderr.strip() == ('Error from server (AlreadyExists): error when creating "%s": '
                                  'tfjobs.kubeflow.org "dry-taken" already exists' % f), out


def nodeport_service(name, node_port=None):
    return """apiVersion: v1
kind: Service
metadata:
  name: %s
spec:
  type: NodePort
  selector:
    app: %s
  ports:
  - name: http
    port: 80
%s""" % (name, name, "    nodePort: %d\n" % node_port if node_port else "")


def test_nodeport_is_allocated_and_a_taken_one_is_422(c, tmp_path):
    f = tmp_path / "svc.yaml"
    f.write_text(nodeport_service("np-auto"))
    assert c.kubectl("create", "-f", str(f)).stdout == "service/np-auto created\n"
    port = c.kubectl_json("get", "svc", "np-auto")["spec"]["ports"][0]["nodePort"]
    # Allocated at random above the static band kept for ports asked for by
    # number: 30000 + min(max(16, 2768/32), 128) = 30086 (KEP-3668, GA in 1.29).
    assert 30086 <= port <= 32767, port
    taken = tmp_path / "taken.yaml"
    taken.write_text(nodeport_service("np-taken", port))
    r = c.kubectl("create", "-f", str(taken), check=False)
    assert r.returncode == 1
    assert r.stderr == ('The Service "np-taken" is invalid: spec.ports[0].nodePort: Invalid '
                        'value: %d: provided port is already allocated\n' % port), r.stderr
    status, body = c.api("POST", "/api/v1/namespaces/default/services",
                         yaml.safe_load(taken.read_text()))
    assert (status, body["reason"], body["details"]["causes"]) == (422, "Invalid", [{
        "reason": "FieldValueInvalid", "field": "spec.ports[0].nodePort",
        "message": "Invalid value: %d: provided port is already allocated" % port}]), body
    outside = tmp_path / "outside.yaml"
    outside.write_text(nodeport_service("np-outside", 8080))
    r = c.kubectl("create", "-f", str(outside), check=False)
    assert r.stderr == ('The Service "np-outside" is invalid: spec.ports[0].nodePort: Invalid '
                        'value: 8080: provided port is not in the valid range. The range of '
                        'valid ports is 30000-32767\n'), r.stderr
    # replace -f of the manifest without nodePort keeps the port (patchAllocatedValues)
    assert c.kubectl("replace", "-f", str(f)).stdout == "service/np-auto replaced\n"
    assert c.kubectl_json("get", "svc", "np-auto")["spec"]["ports"][0]["nodePort"] == port
    # deleting the Service frees its port
    c.kubectl("delete", "svc", "np-auto")
    assert c.kubectl("create", "-f", str(taken)).stdout == "service/np-taken created\n"
    assert c.kubectl_json("get", "svc", "np-taken")["spec"]["ports"][0]["nodePort"] == port


def test_deployment_template_keeps_what_was_written_and_gets_only_api_defaults(c, tmp_path):
    f = tmp_path / "dep.yaml"
    f.write_text("""apiVersion: apps/v1
kind: Deployment
metadata:
  name: tolerant
spec:
  selector: {matchLabels: {app: tolerant}}
  template:
    metadata: {labels: {app: tolerant}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      priorityClassName: high
      containers: [{name: tb, image: tensorflow/tensorflow:2.15.0}]
""")
    c.kubectl("create", "-f", str(f))
    spec = c.kubectl_json("get", "deployment", "tolerant")["spec"]["template"]["spec"]
    # kube-apiserver defaults the template as a PodSpec; the pod admission plugins
    # (default tolerations, service account, priority value) act on pods only
    assert spec["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists",
                                    "effect": "NoSchedule"}]
    assert spec["priorityClassName"] == "high"
    assert (spec["restartPolicy"], spec["dnsPolicy"], spec["terminationGracePeriodSeconds"]) == \
        ("Always", "ClusterFirst", 30)
    for k in ("serviceAccountName", "priority", "enableServiceLinks"):
        assert k not in spec, k


def test_get_pods_table_and_logs(c, tmp_path):
    f = tmp_path / "tf.yaml"
    f.write_text(tfjob_yaml("logged", workers=1, run_seconds=20))
    c.kubectl("create", "-f", str(f))
    wait_until(lambda: "Completed" in c.kubectl("get", "pod", "logged-worker-0").stdout,
               60, "logged-worker-0 Completed")
    r = rows(c.kubectl("get", "pods", "-l", "training.kubeflow.org/job-name=logged").stdout)
    assert r[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], r
    assert r[1][:4] == ["logged-worker-0", "0/1", "Completed", "0"], r
    logs = c.kubectl("logs", "logged-worker-0").stdout.splitlines()
    assert logs[0].startswith("epoch 1 step "), logs[:3]
    assert logs[-1].startswith("training finished after "), logs[-3:]
    tail = c.kubectl("logs", "logged-worker-0", "--tail", "2").stdout.splitlines()
    assert tail == logs[-2:]
    ts = c.kubectl("logs", "logged-worker-0", "--tail", "1", "--timestamps").stdout
    stamp, line = ts.rstrip("\n").split(" ", 1)
    assert stamp.endswith("Z") and "T" in stamp and line == logs[-1], ts


def test_logs_follow_ends_when_the_container_ends(c, tmp_path):
    f = tmp_path / "tf.yaml"
    f.write_text(tfjob_yaml("followed", workers=1, run_seconds=60))
    c.kubectl("create", "-f", str(f))
    wait_until(lambda: "Running" in c.kubectl("get", "pod", "followed-worker-0").stdout,
               60, "followed-worker-0 Running")
    out = c.kubectl("logs", "-f", "followed-worker-0", timeout=60).stdout.splitlines()
    assert out[-1].startswith("training finished after "), out[-3:]
    assert out == c.kubectl("logs", "followed-worker-0").stdout.splitlines()


def test_delete_waits_until_gone_and_collects_dependents(c, tmp_path):
    f = tmp_path / "tf.yaml"
    f.write_text(tfjob_yaml("doomed", workers=2, run_seconds=600))
    c.kubectl("create", "-f", str(f))
    wait_until(lambda: c.kubectl("get", "pods", "-l", "training.kubeflow.org/job-name=doomed",
                                 "-o", "name").stdout.count("pod/") == 2, 60, "two pods")
    out = c.kubectl("delete", "tfjob", "doomed", timeout=60)
    assert out.stdout == 'tfjob.kubeflow.org "doomed" deleted\n', out
    gone = c.kubectl("get", "tfjob", "doomed", check=False)
    assert gone.returncode == 1
    assert gone.stderr == 'Error from server (NotFound): tfjobs.kubeflow.org "doomed" not found\n'
    wait_until(lambda: c.kubectl("get", "pods,services", "-l",
                                 "training.kubeflow.org/job-name=doomed", "-o", "name").stdout == "",
               60, "the job's pods and services collected")


def test_get_json_of_one_pod_and_a_list(c):
    pods = c.kubectl_json("get", "pods", "-A")
    for p in pods["items"]:
        assert p["kind"] == "Pod" and p["apiVersion"] == "v1"
    assert pods["items"], "the cluster has pods"
    ns = c.kubectl_json("get", "namespace", "default")
    assert ns["status"]["phase"] == "Active"
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "default"}


def test_auth_can_i_answers_for_each_user(kubesim):
    """kubectl auth can-i sends its SelfSubjectAccessReview as protobuf; over
    TLS, since kubectl sends the viewer's token over https only."""
    tls = kubesim("--tls", "--nodes", "1")

    def can_i(*args, context=None):
        r = tls.kubectl("auth", "can-i", *args, context=context, check=False)
        return r.stdout.strip()
    assert can_i("create", "tfjobs.kubeflow.org", "-n", "team-a") == "yes"
    assert can_i("create", "tfjobs.kubeflow.org", "-n", "team-a", context="viewer") == "no"
    assert can_i("create", "tfjobs.kubeflow.org", "-n", "default", context="viewer") == "no"
    assert can_i("watch", "pods", "-n", "default", context="viewer") == "yes"
    assert can_i("list", "pods", "-n", "team-a", context="viewer") == "no"
