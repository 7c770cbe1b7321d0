"""Kubeflow Trainer's status server on the real cluster (tests/cluster/statusserver.py,
docs/real-cluster.md): what a training script does through the Kubeflow SDK's
update_trainjob_status, done by the test since kwok's pods run no code. From the
trainer pod the runtime made: the URL, the CA and the token's audience it
injected; the token minted as the kubelet would project it (TokenRequest, bound
to the pod); the URL's Service found;
a POST of progress, time left and metrics over TLS to the name the certificate
covers, sent to 127.0.0.1 where the controller listens. The real Trainer controller writes status.trainerStatus; the test never
writes a TrainJob's status. A token for another TrainJob or another namespace,
or none, is refused. Real cluster only: the kubesim side is the next round's."""

import json
import os
import sys
import urllib.parse

from helpers import wait_until

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "cluster"))
from trainer_client import MOUNT, injected, post, token_args  # noqa: E402
from trainer_client import report_body as report  # noqa: E402,F401

TRAINJOB = "trainjobs.trainer.kubeflow.org"


def trainjob(c, name):
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": name, "namespace": c.namespace},
        "spec": {"runtimeRef": {"name": "torch-distributed"},
                 "trainer": {"image": "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime",
                             "command": ["torchrun", "train.py"], "numNodes": 1,
                             "env": [{"name": "KWOK_RUN", "value": "forever"}]}}}))


def trainer_pod(c, name):
    """The TrainJob's trainer pod, once the JobSet's Job made it."""
    def made():
        pods = c.kubectl_json("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=" + name)
        return pods["items"][0] if pods["items"] else None
    return wait_until(made, timeout=120, interval=0.5,
                      message="the TrainJob's trainer pod to be made")


def route(c, url):
    """(address, port) that SERVICE.NAMESPACE.svc:PORT of url reaches: the
    Service must exist with a port of that number; the controller behind it
    runs on this machine, at 127.0.0.1 (an EndpointSlice may not name a
    loopback address, so the Service has none: tests/cluster/statusserver.py)."""
    u = urllib.parse.urlsplit(url)
    name, ns, svc = u.hostname.split(".")[:3]
    assert svc == "svc", u.hostname
    service = c.kubectl_json("get", "service", name, "-n", ns)
    assert any(p["port"] == u.port for p in service["spec"]["ports"]), service["spec"]
    return "127.0.0.1", u.port


def token_for(c, namespace, sa, audience, pod=None):
    """A service-account token from the TokenRequest API, as the kubelet
    projects it into the pod (bound to the pod when pod is given)."""
    return c.kubectl(*token_args(namespace, sa, audience, pod)).stdout.strip()


def running_trainjob(c, name):
    """A TrainJob and what its trainer pod was given: {"pod", "env", "token"
    (the projected token's source), "url", "ca" (PEM, from the ConfigMap the pod
    mounts), "address" (where the URL's Service routes), "sa"}."""
    trainjob(c, name)
    pod = trainer_pod(c, name)
    env, projected, config_map = injected(pod)
    url = env["KUBEFLOW_TRAINER_SERVER_URL"]
    return {"pod": pod, "env": env, "token": projected, "url": url,
            "ca": c.kubectl_json("get", "configmap", config_map["name"])["data"]["ca.crt"],
            "address": route(c, url), "sa": pod["spec"].get("serviceAccountName") or "default"}


def test_a_progress_report_reaches_trainer_status(real_view):
    c = real_view
    ns = c.namespace
    job = running_trainjob(c, "progress")
    env, projected, url, ca, address = (job[k] for k in ("env", "token", "url", "ca", "address"))

    # what the runtime injects (the TrainJobStatus plugin)
    u = urllib.parse.urlsplit(url)
    assert u.scheme == "https" and \
        u.hostname == "kubeflow-trainer-controller-manager.kubeflow-system.svc", url
    assert u.path == "/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/progress/status" \
        % ns, url
    assert env["KUBEFLOW_TRAINER_SERVER_CA_CERT"] == MOUNT + "/ca.crt"
    assert env["KUBEFLOW_TRAINER_SERVER_TOKEN"] == MOUNT + "/token"
    audience = "trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/progress/status" % ns
    assert projected["audience"] == audience and projected["expirationSeconds"] == 3600
    token = token_for(c, ns, job["sa"], audience, job["pod"])
    print("status server: %s -> %s:%d" % (url, address[0], address[1]))

    first = report(42, 2700, [("loss", "0.231"), ("eval_accuracy", "0.874")])
    status, reply = post(address, url, ca, token, first)
    print("POST %s -> %d %s" % (json.dumps(first), status, json.dumps(reply)))
    assert status == 200, reply
    assert reply == first, reply

    tj = c.kubectl_json("get", TRAINJOB, "progress", "--show-managed-fields")
    print("status.trainerStatus: %s" % json.dumps(tj["status"].get("trainerStatus")))
    assert tj["status"]["trainerStatus"] == first["trainerStatus"], tj["status"]
    writers = {(f["manager"], f.get("subresource")) for f in tj["metadata"]["managedFields"]
               if "trainerStatus" in json.dumps(f.get("fieldsV1", {}))}
    print("trainerStatus written by (manager, subresource): %s" % sorted(writers))
    assert writers == {("trainer-status", "status")}, tj["metadata"]["managedFields"]

    # the next report replaces the last one whole: a metric not sent again is gone
    second = report(43, 2600, [("loss", "0.198")])
    status, reply = post(address, url, ca, token, second)
    assert status == 200, reply
    tj = c.kubectl_json("get", TRAINJOB, "progress")
    print("then: %s" % json.dumps(tj["status"]["trainerStatus"]))
    assert tj["status"]["trainerStatus"] == second["trainerStatus"], tj["status"]


def test_a_token_for_another_trainjob_or_namespace_is_refused(real_view):
    c = real_view
    ns = c.namespace
    job = running_trainjob(c, "guarded")
    url, ca, address, audience = job["url"], job["ca"], job["address"], job["token"]["audience"]
    body = report(10, 100, [("loss", "1.5")])

    other_job = token_for(c, ns, job["sa"], audience.replace("/guarded/", "/other/"))
    other_ns = c.fresh_namespace("elsewhere")
    try:
        wait_until(lambda: c.kubectl("get", "serviceaccount", "default", "-n", other_ns,
                                     check=False).returncode == 0,
                   timeout=60, message="the other namespace's default ServiceAccount")
        # the right audience, from a pod's account in another namespace
        elsewhere = token_for(c, other_ns, "default", audience)
        for what, token in (("another TrainJob's audience", other_job),
                            ("another namespace's account", elsewhere), ("no token", None)):
            status, reply = post(address, url, ca, token, body)
            print("%s: %d %s" % (what, status, json.dumps(reply)))
            assert status in (401, 403), (what, status, reply)
            assert reply.get("status") == "Failure", reply
    finally:
        c.kubectl("delete", "namespace", other_ns, "--wait=false", check=False)
    tj = c.kubectl_json("get", TRAINJOB, "guarded")
    assert "trainerStatus" not in tj.get("status", {}), tj["status"]
