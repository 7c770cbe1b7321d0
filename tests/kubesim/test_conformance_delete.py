"""Deletion as a cluster does it: graceful pod deletion (MODIFIED with
deletionTimestamp, then DELETED), immediate deletion of unscheduled pods,
propagation policies (Background collects dependents, Foreground keeps the
owner until they are gone, Orphan leaves them ownerless), finalizers, the
answers (pods return the object, custom resources a Status) and namespace
deletion."""

import json

import pytest

from helpers import wait_until

PODS = "/api/v1/namespaces/default/pods"
CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "2", "--gpus", "2", "--speed", "20")


def pod(name, gpus=0, run_seconds=600, grace=None):
    c = {"name": "main", "image": "busybox:1.36",
         "env": [{"name": "SIM_RUN_SECONDS", "value": str(run_seconds)}]}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec = {"containers": [c], "restartPolicy": "Never"}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def ok(res, code=200):
    status, body = res
    assert status == code, body
    return body


def running(c, name):
    return wait_until(lambda: (ok(c.api("GET", PODS + "/" + name)).get("status") or {})
                      .get("phase") == "Running", 60, name + " Running")


def test_pod_defaults_on_create(c):
    p = ok(c.api("POST", PODS, pod("defaults")), 201)
    spec = p["spec"]
    assert spec["restartPolicy"] == "Never" and spec["terminationGracePeriodSeconds"] == 30
    assert spec["dnsPolicy"] == "ClusterFirst" and spec["schedulerName"] == "default-scheduler"
    ctr = spec["containers"][0]
    assert ctr["terminationMessagePath"] == "/dev/termination-log"
    assert ctr["imagePullPolicy"] == "IfNotPresent"
    assert p["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_graceful_pod_delete_is_modified_then_deleted(c):
    ok(c.api("POST", PODS, pod("graceful")), 201)
    running(c, "graceful")
    rv = ok(c.api("GET", PODS))["metadata"]["resourceVersion"]
    out = c.kubectl("delete", "pod", "graceful", timeout=60)
    assert out.stdout == 'pod "graceful" deleted\n'
    raw = c.kubectl("get", "--raw", "/api/v1/namespaces/default/pods?watch=true"
                    "&fieldSelector=metadata.name%3Dgraceful&timeoutSeconds=1&resourceVersion="
                    + rv).stdout
    types = []
    for line in raw.splitlines():
        ev = json.loads(line)
        types.append((ev["type"], bool(ev["object"]["metadata"].get("deletionTimestamp"))))
    assert ("MODIFIED", True) in types and types[-1] == ("DELETED", True), types
    first_marked = next(i for i, t in enumerate(types) if t[1])
    assert types[first_marked][0] == "MODIFIED"


def test_delete_answers(c):
    # an unscheduled pod goes at once; the answer is the pod
    ok(c.api("POST", PODS, pod("unschedulable", gpus=64)), 201)
    body = ok(c.api("DELETE", PODS + "/unschedulable"))
    assert body["kind"] == "Pod" and body["metadata"]["name"] == "unschedulable"
    assert c.api("GET", PODS + "/unschedulable")[0] == 404
    # a bound pod is marked, with its grace period
    ok(c.api("POST", PODS, pod("marked", grace=7)), 201)
    running(c, "marked")
    body = ok(c.api("DELETE", PODS + "/marked"))
    assert body["metadata"]["deletionGracePeriodSeconds"] == 7
    assert body["metadata"]["deletionTimestamp"]
    # configmaps answer a Status
    ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}), 201)
    st = ok(c.api("DELETE", CM + "/x"))
    assert (st["kind"], st["status"]) == ("Status", "Success")
    assert st["details"]["name"] == "x" and st["details"]["kind"] == "configmaps"
    assert c.api("DELETE", CM + "/x")[0] == 404


def owned_cm(name, owner, block=True):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "ownerReferences": [{
                "apiVersion": "v1", "kind": "ConfigMap", "name": owner["metadata"]["name"],
                "uid": owner["metadata"]["uid"], "blockOwnerDeletion": block}]}}


def test_background_collects_and_orphan_keeps(c):
    owner = ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": "owner-bg"}}), 201)
    ok(c.api("POST", CM, owned_cm("dep-bg", owner)), 201)
    c.kubectl("delete", "configmap", "owner-bg")
    wait_until(lambda: c.api("GET", CM + "/dep-bg")[0] == 404, 30, "dep-bg collected")
    owner = ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": "owner-or"}}), 201)
    ok(c.api("POST", CM, owned_cm("dep-or", owner)), 201)
    c.kubectl("delete", "configmap", "owner-or", "--cascade=orphan", timeout=60)
    assert c.api("GET", CM + "/owner-or")[0] == 404
    dep = ok(c.api("GET", CM + "/dep-or"))
    assert "ownerReferences" not in dep["metadata"], dep["metadata"]


def test_foreground_keeps_the_owner_until_dependents_are_gone(c):
    owner = ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": "owner-fg"}}), 201)
    dep = owned_cm("dep-fg", owner)
    dep["metadata"]["finalizers"] = ["example.com/hold"]
    ok(c.api("POST", CM, dep), 201)
    body = ok(c.api("DELETE", CM + "/owner-fg", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                   "propagationPolicy": "Foreground"}))
    assert body["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert body["metadata"]["deletionTimestamp"]
    # the dependent is being deleted but its finalizer holds it, so the owner waits
    wait_until(lambda: ok(c.api("GET", CM + "/dep-fg"))["metadata"].get("deletionTimestamp"),
               30, "dep-fg marked")
    assert ok(c.api("GET", CM + "/owner-fg"))["metadata"]["finalizers"] == ["foregroundDeletion"]
    ok(c.api("PATCH", CM + "/dep-fg", b'{"metadata":{"finalizers":null}}',
             headers={"Content-Type": "application/merge-patch+json"}))
    wait_until(lambda: c.api("GET", CM + "/dep-fg")[0] == 404, 30, "dep-fg gone")
    wait_until(lambda: c.api("GET", CM + "/owner-fg")[0] == 404, 30, "owner-fg gone")


def test_kubectl_delete_foreground_tfjob_waits_for_its_pods(c, tmp_path):
    f = tmp_path / "tf.yaml"
    f.write_text(json.dumps({
        "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "fg"},
        "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 2, "restartPolicy": "Never",
                                               "template": {"spec": {"containers": [{
                                                   "name": "tensorflow", "image": "tf:1",
                                                   "env": [{"name": "SIM_RUN_SECONDS",
                                                            "value": "600"}]}]}}}}}}))
    c.kubectl("create", "-f", str(f))
    wait_until(lambda: c.kubectl("get", "pods", "-l", "training.kubeflow.org/job-name=fg",
                                 "-o", "name").stdout.count("pod/") == 2, 60, "fg pods")
    out = c.kubectl("delete", "tfjob", "fg", "--cascade=foreground", timeout=90)
    assert out.stdout == 'tfjob.kubeflow.org "fg" deleted\n'
    # kubectl waited for the job, which waited for its pods
    assert c.kubectl("get", "pods", "-l", "training.kubeflow.org/job-name=fg",
                     "-o", "name").stdout == ""


def test_finalizer_holds_an_object(c):
    ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": "held", "finalizers": ["example.com/x"]}}), 201)
    body = ok(c.api("DELETE", CM + "/held"))
    assert body["metadata"]["deletionTimestamp"] and body["metadata"]["finalizers"] == \
        ["example.com/x"]
    assert c.api("GET", CM + "/held")[0] == 200
    ok(c.api("PATCH", CM + "/held", b'[{"op":"remove","path":"/metadata/finalizers"}]',
             headers={"Content-Type": "application/json-patch+json"}))
    wait_until(lambda: c.api("GET", CM + "/held")[0] == 404, 30, "held deleted")


def test_namespace_deletion_removes_its_contents(c):
    c.kubectl("create", "namespace", "doomed")
    c.kubectl("create", "configmap", "inside", "-n", "doomed")
    ok(c.api("POST", "/api/v1/namespaces/doomed/pods", pod("inside")), 201)
    out = c.kubectl("delete", "namespace", "doomed", timeout=90)
    assert out.stdout == 'namespace "doomed" deleted\n'
    assert c.api("GET", "/api/v1/namespaces/doomed")[0] == 404
    assert ok(c.api("GET", "/api/v1/namespaces/doomed/configmaps"))["items"] == []
    status, body = c.api("DELETE", "/api/v1/namespaces/default")
    assert status == 403 and body["message"] == \
        'namespaces "default" is forbidden: this namespace may not be deleted'
