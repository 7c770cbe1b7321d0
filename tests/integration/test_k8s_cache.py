"""The watch-fed cache (k8s/cache.c, reflector.c, store.c) against kubesim,
through build/tools/k8scache: the first list holds what kubectl sees, changes
arrive, a relist after compaction notices a deletion made while the cache was
not watching, an outage loses nothing and shows in the health, the viewer sees
only its namespace, and start-up failures say why.
"""
import json
import os
import time

import pytest

from k8scache_helpers import K8SCACHE, KUBESIM, CacheTool, run_once, wait_for

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(K8SCACHE), reason="build/tools/k8scache not built (make unit)"),
]



def kubectl_state(c, context=None):
    """What kubectl sees: {kind: {(namespace, name): resourceVersion}} and pod phases."""
    state = {}
    for kind, res in (("pod", "pods"), ("node", "nodes"), ("job", "tfjobs"),
                      ("service", "services")):
        args = ["get", res] + ([] if kind == "node" else ["-A"])
        items = c.kubectl_json(*args, context=context)["items"]
        state[kind] = {(i["metadata"].get("namespace", ""), i["metadata"]["name"]):
                       i["metadata"]["resourceVersion"] for i in items}
        if kind == "pod":
            state["phase"] = {(i["metadata"]["namespace"], i["metadata"]["name"]):
                              i.get("status", {}).get("phase", "Pending") for i in items}
    return state


def cache_state(dump):
    state = {}
    for kind, key in (("pod", "pods"), ("node", "nodes"), ("service", "services")):
        state[kind] = {(o.get("namespace", ""), o["name"]): o.get("rv") for o in dump[key]}
    state["node"] = {k: None for k in state["node"]}
    state["job"] = {(j["namespace"], j["name"]): j["rv"] for j in dump["jobs"] if j["type"] == "tfjob"}
    state["phase"] = {(p["namespace"], p["name"]): p["phase"] for p in dump["pods"]}
    return state


def same_as_kubectl(c, tool, context=None):
    """The cache and kubectl agree (the cluster moves meanwhile: callers poll)."""
    want = kubectl_state(c, context)
    want["node"] = {k: None for k in want["node"]}
    got = cache_state(tool.dump())
    return want == got, want, got


def converge(c, tool, what, context=None, timeout=60):
    result = {}

    def check():
        ok, want, got = same_as_kubectl(c, tool, context)
        result.update(want=want, got=got)
        return ok
    try:
        wait_for(what, check, timeout=timeout, interval=0.5)
    except AssertionError:
        want, got = result["want"], result["got"]
        diff = {k: (sorted(set(want[k].items()) - set(got[k].items()))[:5],
                    sorted(set(got[k].items()) - set(want[k].items()))[:5])
                for k in want if want[k] != got[k]}
        raise AssertionError("%s: cache and kubectl differ (kubectl only, cache only): %s"
                             % (what, json.dumps(diff, default=str)))


@pytest.fixture
def cluster(kubesim):
    return kubesim("--nodes", "2", "--gpus", "4", "--jobs", "6", "--speed", "10")


@pytest.fixture
def cache_tool():
    """Starts k8scache serve processes; at the end each must quit cleanly (exit 0,
    no sanitizer report: make test-asan runs these tools built with ASan)."""
    started = []

    def start(*args, **kw):
        t = CacheTool(*args, **kw)
        started.append(t)
        return t
    yield start
    for t in started:
        rc, err = t.stop()
        assert rc == 0 and "Sanitizer" not in err, "k8scache exited %d: %s" % (rc, err)


def tfjob(name, namespace="default", workers=2, run_seconds=30):
    env = [{"name": "SIM_RUN_SECONDS", "value": str(run_seconds)}]
    tpl = {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                                    "command": ["python", "train.py"], "env": env}]}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"tfReplicaSpecs": {"Worker": {"replicas": workers, "restartPolicy": "Never",
                                                   "template": tpl}}}}


def create(c, obj, context=None):
    c.kubectl("create", "-f", "-", "--validate=false", input=json.dumps(obj), context=context)


def test_first_list_matches_kubectl(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    counts = tool.ready["counts"]
    assert counts["node"] == 2 and counts["job"] >= 6, counts
    converge(cluster, tool, "the first list")
    dump = tool.dump()
    # pods are matched to their jobs by the operator's labels and owners
    pods = {(p["namespace"], p["name"]): p for p in dump["pods"]}
    for job in dump["jobs"]:
        labelled = cluster.kubectl_json("get", "pods", "-n", job["namespace"], "-l",
                                        "training.kubeflow.org/job-name=" + job["name"])
        want = sorted(i["metadata"]["name"] for i in labelled["items"])
        assert sorted(job["pods"]) == want, (job["name"], job["pods"], want)
        for name in job["pods"]:
            assert pods[(job["namespace"], name)]["job"] == job["name"]
    # pods on nodes add up
    assert sum(n["pods"] for n in dump["nodes"]) == sum(1 for p in dump["pods"] if p["node"])
    assert dump["health"]["connected"] is True, dump["health"]
    assert dump["namespaces"][0] == "default", dump["namespaces"]


def test_changes_arrive(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    create(cluster, tfjob("fresh"))
    wait_for("the job's ADDED", lambda: tool.changes_matching(object="job", name="fresh",
                                                               type="ADDED"))
    wait_for("its pods", lambda: len(tool.changes_matching(object="pod", job_name="fresh")) >= 2)
    job = wait_for("the job with 2 pods in the dump",
                   lambda: [j for j in tool.dump()["jobs"]
                            if j["name"] == "fresh" and len(j["pods"]) == 2])
    assert sorted(job[0]["pods"]) == ["fresh-worker-0", "fresh-worker-1"], job
    # a pod's change names its node, before and after scheduling
    bound = wait_for("a pod bound to a node",
                     lambda: [c for c in tool.changes_matching(object="pod", job_name="fresh")
                              if c["node"] and c["old_node"] == ""
                              and c["type"] == "MODIFIED"])
    assert bound[0]["node"].startswith("node-"), bound[0]
    cluster.kubectl("delete", "tfjob", "fresh", "--wait=false")
    wait_for("the job's DELETED", lambda: tool.changes_matching(object="job", name="fresh",
                                                                 type="DELETED"))
    converge(cluster, tool, "after the deletion")


def test_relist_after_compaction_notices_deletion_while_not_watching(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    converge(cluster, tool, "the first list")
    victim = sorted(p["name"] for p in tool.dump()["pods"] if p["namespace"] == "default")[0]
    time.sleep(1.5)  # the watches are past their first second: a drop is a clean end
    # While the cache sleeps its watches are dropped, the pod goes (no watch
    # exists to tell), and the history is compacted past the cache's
    # resourceVersion: only a relist (410, then the sweep) can tell the cache.
    lists_before = cluster.stats()["requests"].get("list pods", 0)
    tool.pause()
    try:
        cluster.fault(drop_watches=True)
        cluster.kubectl("delete", "pod", victim, "--grace-period=0", "--force",
                        "--wait=false")
        wait_for("the pod gone in kubesim", lambda: victim not in cluster.kubectl(
            "get", "pods", "-o", "name").stdout)
        cluster.fault(compact=True)
    finally:
        tool.resume()
    wait_for("the deletion noticed", lambda: tool.changes_matching(
        object="pod", name=victim, type="DELETED"))
    converge(cluster, tool, "after the relist")
    assert victim not in [p["name"] for p in tool.dump()["pods"]]
    assert cluster.stats()["requests"].get("list pods", 0) > lists_before


def test_outage_loses_nothing_and_shows_in_health(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    converge(cluster, tool, "the first list")
    # the operator creates this job's pods while the API server is away
    create(cluster, tfjob("during-outage", workers=3))
    cluster.fault(down_seconds=5)
    h = wait_for("health disconnected", lambda: (lambda h: h if not h["connected"] else None)(
        tool.health()), timeout=30)
    assert h["last_error"].startswith(("watch ", "list ")), h
    assert h["since"] > 0, h
    wait_for("health ok again", lambda: tool.health()["connected"], timeout=90)
    assert tool.health()["last_error"] == ""
    converge(cluster, tool, "after the outage")
    job = [j for j in tool.dump()["jobs"] if j["name"] == "during-outage"]
    assert job and len(job[0]["pods"]) == 3, job


def test_viewer_sees_only_default(cluster, cache_tool):
    create(cluster, tfjob("elsewhere", namespace="team-a"))
    create(cluster, tfjob("here"))
    tool = cache_tool(cluster.kubeconfig, context="viewer")
    dump = tool.dump()
    assert dump["namespaces"] == ["default"], dump["namespaces"]
    assert {p["namespace"] for p in dump["pods"]} <= {"default"}
    assert {j["namespace"] for j in dump["jobs"]} == {"default"}
    assert "here" in [j["name"] for j in dump["jobs"]]
    assert dump["nodes"] == []  # nodes are cluster-scoped: forbidden to the viewer
    assert dump["health"]["connected"] is True, dump["health"]
    want = {(i["metadata"]["namespace"], i["metadata"]["name"])
            for i in cluster.kubectl_json("get", "pods", "-n", "default")["items"]}
    wait_for("the viewer's pods", lambda: {(p["namespace"], p["name"])
                                           for p in tool.dump()["pods"]} == want, timeout=30)


def test_start_fails_with_the_reason(cluster, tmp_path):
    with open(cluster.kubeconfig) as f:
        text = f.read()
    token = cluster.token()
    bad = tmp_path / "bad-token.yaml"
    bad.write_text(text.replace(token, "not-a-valid-token"))
    # discover=0: the cache's own first lists meet the error, not discovery
    rc, out, err = run_once(str(bad), "discover=0")
    assert rc == 1 and out == [], (rc, out, err)
    assert err.startswith("error: EACCES: cannot list ") and "Unauthorized" in err, err

    gone = tmp_path / "unreachable.yaml"
    gone.write_text(text.replace(cluster.url, "http://127.0.0.1:9"))
    rc, out, err = run_once(str(gone), "discover=0")
    assert rc == 1, (rc, out, err)
    assert err.startswith("error: EIO: cannot list ") and "cannot reach" in err, err


def test_stop_is_prompt_while_watching(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    time.sleep(1)
    rc, err = tool.stop()
    assert rc == 0, err
    assert "stop_ms=" in err, err
