"""The Debian python3-kubernetes client (22.6) against kubesim: typed lists
and reads (its models require every field the API promises), list
pagination, one resourceVersion counter for every kind, watch with
resource_version resume and 410 after compaction, pod logs, custom
objects, and errors as ApiException."""

import json

import pytest

from helpers import wait_until

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

GROUP, VERSION = "kubeflow.org", "v1"


def tfjob(name, workers=1, run_seconds=20, **env):
    env = dict({"SIM_RUN_SECONDS": str(run_seconds)}, **{k: str(v) for k, v in env.items()})
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": workers, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                    "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}}}


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--tls", "--nodes", "3", "--gpus", "4", "--jobs", "12",
                          "--speed", "20", "--seed", "5")


@pytest.fixture(scope="module")
def api(c):
    return c.python_client()


def test_typed_lists_and_reads(c, api):
    core = client.CoreV1Api(api)
    nodes = core.list_node()
    assert sorted(n.metadata.name for n in nodes.items) == ["node-0", "node-1", "node-2"]
    info = nodes.items[0].status.node_info
    assert info.kubelet_version == "v1.32.0" and info.machine_id and info.boot_id
    pods = core.list_pod_for_all_namespaces()
    assert len(pods.items) == 60, [p.metadata.name for p in pods.items]   # 12 jobs x 5 pods
    running = [p for p in pods.items if p.status.container_statuses]
    assert running, "the fleet has pods that ran"
    st = running[0].status.container_statuses[0]
    assert st.image and st.image_id and st.name and st.ready in (True, False)
    assert st.restart_count == 0
    ref = running[0].metadata.owner_references[0]
    assert (ref.api_version, ref.kind, ref.controller) == ("kubeflow.org/v1", "TFJob", True)
    one = core.read_namespaced_pod(running[0].metadata.name, "default")
    assert one.metadata.uid == running[0].metadata.uid
    assert int(pods.metadata.resource_version) >= int(one.metadata.resource_version)


def test_one_resource_version_counter_for_every_kind(kubesim):
    # A quiet cluster (no jobs, so no pod is written): only a global counter
    # moves the pods list's resourceVersion when a ConfigMap is created.
    api = kubesim("--nodes", "1").python_client()
    core = client.CoreV1Api(api)
    before = core.list_namespaced_pod("default")
    assert before.items == []
    cm = core.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="rv-probe"), data={"k": "v"}))
    after = core.list_namespaced_pod("default")
    assert after.items == []
    b, w, a = (int(before.metadata.resource_version), int(cm.metadata.resource_version),
               int(after.metadata.resource_version))
    assert b < w <= a, "pods list %d, then configmap written at %d, then pods list %d" % (b, w, a)
    nodes = core.list_node()
    assert int(nodes.metadata.resource_version) >= w, nodes.metadata.resource_version


def test_list_pagination_with_limit_and_continue(api):
    core = client.CoreV1Api(api)
    everything = core.list_namespaced_pod("default").items
    seen, token, pages = [], None, 0
    rv = None
    while True:
        page = core.list_namespaced_pod("default", limit=7, _continue=token)
        pages += 1
        seen += [p.metadata.name for p in page.items]
        rv = rv or page.metadata.resource_version
        assert page.metadata.resource_version == rv, "a continued list keeps its resourceVersion"
        token = page.metadata._continue
        if not token:
            break
        assert len(page.items) == 7
    assert pages == -(-len(everything) // 7)
    assert seen == sorted(p.metadata.name for p in everything)


def test_label_and_field_selectors(api):
    core = client.CoreV1Api(api)
    sel = "training.kubeflow.org/job-name=tfjob-00000"
    pods = core.list_namespaced_pod("default", label_selector=sel).items
    assert len(pods) == 5
    assert all(p.metadata.labels["training.kubeflow.org/job-name"] == "tfjob-00000" for p in pods)
    notin = core.list_namespaced_pod(
        "default", label_selector="training.kubeflow.org/replica-type notin (worker)").items
    assert notin and all(p.metadata.labels["training.kubeflow.org/replica-type"] != "worker"
                         for p in notin)
    on_node = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=node-1").items
    assert all(p.spec.node_name == "node-1" for p in on_node)
    unscheduled = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=").items
    assert all(not p.spec.node_name for p in unscheduled)
    with pytest.raises(ApiException) as e:
        core.list_namespaced_pod("default", field_selector="spec.bogus=1")
    assert e.value.status == 400 and "field label not supported: spec.bogus" in e.value.body


def test_create_custom_object_and_watch_it_finish(api):
    co = client.CustomObjectsApi(api)
    made = co.create_namespaced_custom_object(GROUP, VERSION, "default", "tfjobs",
                                              tfjob("py-made", workers=2, run_seconds=20))
    assert made["metadata"]["uid"] and made["kind"] == "TFJob"
    rv = made["metadata"]["resourceVersion"]
    w = watch.Watch()
    states = []
    for ev in w.stream(co.list_namespaced_custom_object, GROUP, VERSION, "default", "tfjobs",
                       field_selector="metadata.name=py-made", resource_version=rv,
                       timeout_seconds=60):
        conds = ev["object"].get("status", {}).get("conditions") or []
        if conds:
            states.append(conds[-1]["type"])
        if states and states[-1] == "Succeeded":
            w.stop()
    assert states[-1] == "Succeeded", states
    got = co.get_namespaced_custom_object(GROUP, VERSION, "default", "tfjobs", "py-made")
    assert got["status"]["replicaStatuses"]["Worker"]["succeeded"] == 2
    listed = co.list_namespaced_custom_object(GROUP, VERSION, "default", "tfjobs")
    assert listed["kind"] == "TFJobList"
    assert all(i["kind"] == "TFJob" and i["apiVersion"] == "kubeflow.org/v1"
               for i in listed["items"])
    gone = co.delete_namespaced_custom_object(GROUP, VERSION, "default", "tfjobs", "py-made")
    assert gone["kind"] == "Status" and gone["status"] == "Success"
    assert gone["details"]["name"] == "py-made" and gone["details"]["group"] == GROUP


def test_watch_resumes_from_a_resource_version(api):
    core = client.CoreV1Api(api)
    start = core.list_namespaced_config_map("default").metadata.resource_version
    for i in range(3):
        core.create_namespaced_config_map("default", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="w-%d" % i), data={"i": str(i)}))
    w = watch.Watch()
    got = []
    for ev in w.stream(core.list_namespaced_config_map, "default", resource_version=start,
                       timeout_seconds=10):
        got.append((ev["type"], ev["object"].metadata.name))
        if len(got) == 3:
            w.stop()
    assert got == [("ADDED", "w-0"), ("ADDED", "w-1"), ("ADDED", "w-2")]
    # resume after the second event: only the third comes again
    second_rv = core.read_namespaced_config_map("w-1", "default").metadata.resource_version
    w = watch.Watch()
    again = []
    for ev in w.stream(core.list_namespaced_config_map, "default", resource_version=second_rv,
                       timeout_seconds=2):
        again.append(ev["object"].metadata.name)
        w.stop()
    assert again == ["w-2"]


def test_watch_from_a_compacted_version_is_410(c, api):
    core = client.CoreV1Api(api)
    old = core.list_namespaced_config_map("default").metadata.resource_version
    core.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="after-compact")))
    c.fault(compact=True)
    with pytest.raises(ApiException) as e:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                      resource_version=old, timeout_seconds=5):
            pass
    assert e.value.status == 410, e.value
    assert "too old resource version" in str(e.value)


def test_read_pod_log(api):
    core = client.CoreV1Api(api)
    co = client.CustomObjectsApi(api)
    co.create_namespaced_custom_object(GROUP, VERSION, "default", "tfjobs",
                                       tfjob("py-logs", run_seconds=40))
    wait_until(lambda: core.read_namespaced_pod("py-logs-worker-0", "default").status.phase
               == "Running", 60, "py-logs-worker-0 Running")
    # follow: the stream ends with the container
    resp = core.read_namespaced_pod_log("py-logs-worker-0", "default", follow=True,
                                        _preload_content=False)
    text = b"".join(resp.stream()).decode()
    lines = text.splitlines()
    assert lines[0].startswith("epoch 1 step ") and lines[-1].startswith("training finished"), \
        lines[-3:]
    full = core.read_namespaced_pod_log("py-logs-worker-0", "default")
    assert full == text
    tail = core.read_namespaced_pod_log("py-logs-worker-0", "default", tail_lines=3)
    assert tail.splitlines() == lines[-3:]
    cut = core.read_namespaced_pod_log("py-logs-worker-0", "default", limit_bytes=10)
    assert cut == text[:10]
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod_log("py-logs-worker-0", "default", previous=True)
    assert e.value.status == 400
    assert json.loads(e.value.body)["message"] == \
        'previous terminated container "tensorflow" in pod "py-logs-worker-0" not found'
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod_log("py-logs-worker-0", "default", container="nope")
    assert e.value.status == 400
    assert json.loads(e.value.body)["message"] == \
        "container nope is not valid for pod py-logs-worker-0"


def test_api_exception_codes(api):
    core = client.CoreV1Api(api)
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod("nope", "default")
    assert e.value.status == 404
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="conflict"), data={"a": "1"})
    made = core.create_namespaced_config_map("default", cm)
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map("default", cm)
    assert e.value.status == 409 and '"reason":"AlreadyExists"' in e.value.body.replace(" ", "")
    made.data = {"a": "2"}
    core.replace_namespaced_config_map("conflict", "default", made)
    made.data = {"a": "3"}      # still the first resourceVersion: stale
    with pytest.raises(ApiException) as e:
        core.replace_namespaced_config_map("conflict", "default", made)
    assert e.value.status == 409 and "the object has been modified" in e.value.body
