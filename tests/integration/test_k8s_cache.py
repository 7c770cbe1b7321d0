"""The watch-fed cache (k8s/cache/cache.c, reflector.c, store.c) against kubesim and the
real cluster, through build/tools/k8scache: the first list holds what kubectl
sees, changes arrive, a relist after compaction notices a deletion made while
the cache was not watching, an outage loses nothing and shows in the health
(these two by kubesim's fault injection, on kubesim only), the viewer sees only
its namespace, and start-up failures say why.
"""
import json
import os
import time

import pytest
import yaml

from helpers import let_viewer_read
import realcluster
from k8scache_helpers import (K8SCACHE, KUBESIM, brief, cache_tool, converge,  # noqa: F401
                              create, last_request, run_once, sim_requests, tfjob, wait_for)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(K8SCACHE), reason="build/tools/k8scache not built (make unit)"),
]



@pytest.fixture(params=realcluster.cluster_params())
def cluster(request, kubesim):
    """kubesim with six jobs moving, or the real cluster seen through a namespace
    of the test's own, where two jobs of its own move."""
    if request.param == "real":
        c = request.getfixturevalue("real_view")
        for i in range(2):
            create(c, tfjob("moving-%d" % i, run_seconds=8))
        return c
    return kubesim("--nodes", "2", "--gpus", "4", "--jobs", "6", "--speed", "10")


# for the tests that need kubesim's fault injection and request log
on_kubesim = pytest.mark.parametrize("cluster", ["kubesim"], indirect=True)


def test_first_list_matches_kubectl(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    counts = tool.ready["counts"]
    nodes = cluster.kubectl_json("get", "nodes")["items"]
    own = cluster.kubectl_json("get", "tfjobs")["items"]          # the namespace's
    assert counts["node"] == len(nodes) and counts["job"] >= len(own) > 0, counts
    if cluster.kind == "kubesim":
        assert counts["node"] == 2 and counts["job"] >= 6, counts     # --jobs 6
    converge(cluster, tool, "the first list")
    dump = tool.dump()
    # pods are matched to their jobs by the operator's labels and owners (in this
    # namespace: another module's may be going away meanwhile on a shared cluster)
    pods = {(p["namespace"], p["name"]): p for p in dump["pods"]}
    for job in (j for j in dump["jobs"] if j["namespace"] == cluster.namespace):
        labelled = cluster.kubectl_json("get", "pods", "-n", job["namespace"], "-l",
                                        "training.kubeflow.org/job-name=" + job["name"])
        want = sorted(i["metadata"]["name"] for i in labelled["items"])
        assert sorted(job["pods"]) == want, (job["name"], job["pods"], want)
        for name in job["pods"]:
            assert pods[(job["namespace"], name)]["job"] == job["name"]
    # pods on nodes add up
    assert sum(n["pods"] for n in dump["nodes"]) == sum(1 for p in dump["pods"] if p["node"])
    assert dump["health"]["connected"] is True, dump["health"]
    assert dump["namespaces"][0] == cluster.namespace, dump["namespaces"]


def test_changes_arrive(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    create(cluster, tfjob("fresh"))
    wait_for("the job's ADDED", lambda: tool.changes_matching(object="job", name="fresh",
                                                               type="ADDED"))
    wait_for("its pods", lambda: len(tool.changes_matching(object="pod", owner_job="fresh")) >= 2)
    job = wait_for("the job with 2 pods in the dump",
                   lambda: [j for j in tool.dump()["jobs"]
                            if j["name"] == "fresh" and len(j["pods"]) == 2])
    assert sorted(job[0]["pods"]) == ["fresh-worker-0", "fresh-worker-1"], job
    # a pod's change names its node, before and after scheduling
    bound = wait_for("a pod bound to a node",
                     lambda: [c for c in tool.changes_matching(object="pod", owner_job="fresh")
                              if c["node"] and c["old_node"] == ""
                              and c["type"] == "MODIFIED"])
    assert bound[0]["node"] in [n["metadata"]["name"]
                                for n in cluster.kubectl_json("get", "nodes")["items"]], bound[0]
    cluster.kubectl("delete", "tfjob", "fresh", "--wait=false")
    wait_for("the job's DELETED", lambda: tool.changes_matching(object="job", name="fresh",
                                                                 type="DELETED"))
    converge(cluster, tool, "after the deletion")


@on_kubesim
def test_relist_after_compaction_notices_deletion_while_not_watching(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    converge(cluster, tool, "the first list")
    victim = sorted(p["name"] for p in tool.dump()["pods"] if p["namespace"] == "default")[0]
    wait_for("the cache's pods watch open", lambda: [
        e for e in sim_requests(cluster) if e["path"] == "/api/v1/pods" and e["watch"]
        and e["status"] == 200 and "end" not in e])
    n = last_request(cluster)
    # While the cache sleeps its watches are cut (drop_watches ends them without
    # the final chunk: a broken connection, not a clean end), the pod goes (no
    # watch exists to tell), and the history is compacted past the cache's
    # resourceVersion. The cache backs off, probes, re-watches from its old
    # resourceVersion and meets the compaction: only a relist (410, then the
    # sweep) can tell it about the deletion.
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
    pods = [e for e in sim_requests(cluster, n) if e["path"] == "/api/v1/pods"]
    expired = [i for i, e in enumerate(pods) if e["watch"] and e.get("error") == 410]
    relists = [e for e in pods[expired[0] + 1:] if expired and not e["watch"]
               and e["query"].get("limit") == "500" and "continue" not in e["query"]]
    assert expired and relists and relists[0]["status"] == 200, brief(pods)


@on_kubesim
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
    """(default on kubesim; on the real cluster the test's namespace, where the
    viewer is given the Role it has in default)"""
    ns = cluster.namespace
    other = ns + "-b"
    cluster.kubectl("create", "namespace", other)
    try:
        create(cluster, tfjob("elsewhere", namespace=other))
        create(cluster, tfjob("here"))
        let_viewer_read(cluster)
        tool = cache_tool(cluster.kubeconfig, context="viewer")
        dump = tool.dump()
        assert dump["namespaces"] == [ns], dump["namespaces"]
        assert {p["namespace"] for p in dump["pods"]} <= {ns}
        assert {j["namespace"] for j in dump["jobs"]} == {ns}
        assert "here" in [j["name"] for j in dump["jobs"]]
        assert dump["nodes"] == []  # nodes are cluster-scoped: forbidden to the viewer
        assert dump["health"]["connected"] is True, dump["health"]
        want = {(i["metadata"]["namespace"], i["metadata"]["name"])
                for i in cluster.kubectl_json("get", "pods", "-n", ns)["items"]}
        wait_for("the viewer's pods", lambda: {(p["namespace"], p["name"])
                                               for p in tool.dump()["pods"]} == want,
                 timeout=30)
    finally:
        cluster.kubectl("delete", "namespace", other, "--wait=false")


def changed_kubeconfig(cluster, path, token=None, server=None):
    """A copy of the cluster's kubeconfig whose current user has only the token
    given (the real cluster's admin has a client certificate), or whose
    clusters are at server."""
    cfg = json.loads(json.dumps(cluster.config()))
    ctx = next(c["context"] for c in cfg["contexts"] if c["name"] == cfg["current-context"])
    if token:
        user = next(u["user"] for u in cfg["users"] if u["name"] == ctx["user"])
        for k in ("client-certificate-data", "client-key-data"):
            user.pop(k, None)
        user["token"] = token
    for c in cfg["clusters"]:
        c["cluster"]["server"] = server or c["cluster"]["server"]
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_start_fails_with_the_reason(cluster, tmp_path):
    bad = changed_kubeconfig(cluster, tmp_path / "bad-token.yaml", token="not-a-valid-token")
    # discover=0: the cache's own first lists meet the error, not discovery
    rc, out, err = run_once(str(bad), "discover=0")
    assert rc == 1 and out == [], (rc, out, err)
    assert err.startswith("error: EACCES: cannot list ") and "Unauthorized" in err, err

    gone = changed_kubeconfig(cluster, tmp_path / "unreachable.yaml", server="http://127.0.0.1:9")
    rc, out, err = run_once(str(gone), "discover=0")
    assert rc == 1, (rc, out, err)
    assert err.startswith("error: EIO: cannot list ") and "cannot reach" in err, err


def test_stop_is_prompt_while_watching(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    time.sleep(1)
    rc, err = tool.stop()
    assert rc == 0, err
    assert "stop_ms=" in err, err
