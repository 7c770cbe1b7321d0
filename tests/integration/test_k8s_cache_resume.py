"""Where the cache's watches resume (k8s/cache/reflector.c), against kubesim (and
one case on the real cluster), through
build/tools/k8scache. What the cache asked for is read in kubesim's request log
(/_sim/requests): the resourceVersion of each re-watch, a one-item probe told
apart from a full list.

- A watch the server ends cleanly (its timeoutSeconds) resumes from the last
  resourceVersion it was sent, with no list; a cut one too, after a one-item
  probe.
- Bookmarks move that resourceVersion on, so a quiet cache survives a
  compaction and a cut connection without a relist.
- A watch answered HTTP 410 relists; on the real cluster too, where the 410
  is its own (etcd compacted, kube-apiserver restarted).
- A kind larger than a page (500) is listed in pages, and a continue token
  expired between pages starts the list again.
"""
import json
import os

import pytest

from k8scache_helpers import (K8SCACHE, KUBESIM, brief, cache_tool, converge,  # noqa: F401
                              create, last_request, list_counts, sim_requests, tfjob, wait_for)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(K8SCACHE), reason="build/tools/k8scache not built (make unit)"),
]

# Every watch asks timeoutSeconds=2: kubesim ends it cleanly (a bookmark when quiet,
# then the final chunk) as kube-apiserver does, long enough not to count as a
# failure (the reflector's WATCH_MIN_HEALTHY_MS is 1 s).
WATCH_TIMEOUT = "watch_timeout=2"


@pytest.fixture
def cluster(kubesim):
    return kubesim("--nodes", "2", "--gpus", "4", "--jobs", "6", "--speed", "10")


def by_collection(entries, watches_only=False):
    """{path: [entries, oldest first]} of the lists and watches among entries."""
    out = {}
    for e in entries:
        if e["watch"] or (not watches_only and "limit" in e["query"]):
            out.setdefault(e["path"], []).append(e)
    return out


def resumed_from_elsewhere(entries):
    """Watches that did not ask for the resourceVersion the request before them
    ended at: a list's, or the last one a watch sent (when it sent nothing, the
    one it asked for itself)."""
    bad = []
    for prev, cur in zip(entries, entries[1:]):
        want = prev.get("rv") or prev["query"].get("resourceVersion")
        if cur["watch"] and cur["query"].get("resourceVersion") != want:
            bad.append((want, brief([prev, cur])))
    return bad


def test_clean_watch_end_resumes_from_last_version_without_relist(cluster, cache_tool):
    n = last_request(cluster)
    tool = cache_tool(cluster.kubeconfig, extra=[WATCH_TIMEOUT])
    ready = last_request(cluster)
    lists = list_counts(cluster)

    def clean_ends(path):
        return [e for e in sim_requests(cluster, n)
                if e["path"] == path and e["watch"] and e.get("end") == "clean"]
    wait_for("three clean ends of the pods watch", lambda: len(clean_ends("/api/v1/pods")) >= 3)
    create(cluster, tfjob("after-clean-ends"))
    wait_for("the job's ADDED", lambda: tool.changes_matching(
        object="job", name="after-clean-ends", type="ADDED"))
    wait_for("its pods", lambda: len(tool.changes_matching(
        object="pod", owner_job="after-clean-ends")) >= 2)
    seen = len(clean_ends("/apis/kubeflow.org/v1/tfjobs"))
    wait_for("a clean end of the tfjobs watch after the change",
             lambda: len(clean_ends("/apis/kubeflow.org/v1/tfjobs")) > seen)
    # (before converge: its kubectl lists would count too)
    assert list_counts(cluster) == lists, "kubesim counted lists: %s, then %s" % (
        lists, list_counts(cluster))
    converge(cluster, tool, "after several clean ends")

    log = sim_requests(cluster, n)
    ended = [e for e in log if e["watch"] and "end" in e]
    assert all(e["end"] == "clean" for e in ended), brief(ended)
    for path, es in by_collection(log).items():
        assert sum(e["watch"] for e in es) >= 2, (path, brief(es))
        bad = resumed_from_elsewhere(es)
        assert not bad, "%s: watches not from the last resourceVersion sent: %s" % (path, bad)
    after = [e for e in sim_requests(cluster, ready) if not e["watch"]]
    assert after == [], "a clean end needs no list or probe: %s" % brief(after)


def test_cut_watch_resumes_from_the_last_event_sent_after_a_probe(cluster, cache_tool):
    n = last_request(cluster)
    tool = cache_tool(cluster.kubeconfig)
    create(cluster, tfjob("before-the-cut"))
    wait_for("its pods in the cache", lambda: len(tool.changes_matching(
        object="pod", owner_job="before-the-cut")) >= 2)
    cut_at = last_request(cluster)
    # no bookmark yet (kubesim sends them every 60 s): what the cache resumes from
    # is what the events it got carried
    cluster.fault(drop_watches=True)
    wait_for("every kind watching again", lambda: all(
        any(e["n"] > cut_at and e["status"] == 200 for e in es if e["watch"])
        for es in by_collection(sim_requests(cluster, n), watches_only=True).values()))
    for path, es in by_collection(sim_requests(cluster, n)).items():
        cut = [e for e in es if e.get("end") == "cut"]
        assert len(cut) == 1, (path, brief(es))
        after = es[es.index(cut[0]) + 1:]
        probe, rewatch = after[0], next(e for e in after if e["watch"])
        assert probe["query"] == {"limit": "1"} and not probe["watch"], \
            "%s: a probe, not a list, after the cut: %s" % (path, brief(es))
        assert after.index(rewatch) == 1, "%s: nothing but the probe: %s" % (path, brief(es))
        want = cut[0].get("rv") or cut[0]["query"]["resourceVersion"]
        assert rewatch["query"]["resourceVersion"] == want, \
            "%s: not resumed from %s: %s" % (path, want, brief(es))
    create(cluster, tfjob("after-the-cut"))
    wait_for("a change after the cut", lambda: tool.changes_matching(
        object="job", name="after-the-cut", type="ADDED"))


def test_bookmarks_let_a_quiet_cache_resume_after_compaction_without_relist(kubesim, cache_tool):
    c = kubesim("--nodes", "1", "--bookmark-seconds", "1")   # nothing moves on its own
    n = last_request(c)
    tool = cache_tool(c.kubeconfig)
    first = sim_requests(c, n)
    kinds = set(by_collection(first))
    open_watches = lambda: [e for e in sim_requests(c, n)
                            if e["watch"] and e["status"] == 200 and "end" not in e]
    wait_for("every kind watching", lambda: {e["path"] for e in open_watches()} == kinds)
    # Writes the cache does not watch: the revision moves past every list's, and
    # only bookmarks can tell the cache so.
    for i in range(3):
        c.kubectl("create", "configmap", "moves-%d" % i)
    rv = c.stats()["resourceVersion"]
    wait_for("a bookmark at revision %d on every watch" % rv, lambda: all(
        int(e.get("rv", 0)) >= rv for e in open_watches()), timeout=30)
    before = last_request(c)
    c.fault(compact=True, drop_watches=True)
    assert c.stats()["resourceVersion"] == rv, "something wrote: the compaction is not at the bookmark"
    wait_for("every kind watching again", lambda: {
        e["path"] for e in sim_requests(c, before)
        if e["watch"] and e["status"] == 200} == kinds)
    log = sim_requests(c, before)
    for path, ws in by_collection(log, watches_only=True).items():
        assert ws[0]["query"]["resourceVersion"] == str(rv) and "error" not in ws[0], \
            "%s: not resumed from the bookmark's %d: %s" % (path, rv, brief(ws))
    lists = [e for e in log if not e["watch"]]
    assert all(e["query"].get("limit") == "1" for e in lists), \
        "only one-item probes, no relist: %s" % brief(lists)
    c.kubectl("create", "service", "clusterip", "after-resume", "--tcp=80:80")
    wait_for("a change after the resume", lambda: tool.changes_matching(
        object="service", name="after-resume", type="ADDED"))


def test_watch_answered_410_relists(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig, extra=[WATCH_TIMEOUT])
    n = last_request(cluster)
    # the next pods watch (after a clean end) is refused before its stream starts,
    # as the API server's watch cache refuses a resourceVersion it no longer holds
    cluster.fault(fail_next=1, code=410, match=r"^GET /api/v1/pods\?(.*&)?watch=true")

    def relisted():
        pods = [e for e in sim_requests(cluster, n) if e["path"] == "/api/v1/pods"]
        gone = [i for i, e in enumerate(pods) if e["watch"] and e["status"] == 410]
        return pods[gone[0]:] if gone and len(pods) > gone[0] + 2 else None
    pods = wait_for("the 410 and what came after", relisted)
    refused, listed, watched = pods[:3]
    assert not listed["watch"] and listed["status"] == 200, brief(pods)
    assert listed["query"] == {"limit": "500"}, "a full list, not a probe: %s" % brief(pods)
    assert watched["watch"] and watched["query"]["resourceVersion"] == listed["rv"], brief(pods)
    converge(cluster, tool, "after the relist")


def test_big_kind_is_listed_in_pages_and_an_expired_continue_restarts_it(kubesim, cache_tool):
    c = kubesim("--nodes", "20", "--jobs", "120")            # 600 pods, 601 services
    pods_total = len(c.kubectl_json("get", "pods", "-A")["items"])
    assert pods_total > 500, pods_total
    lists = list_counts(c)
    n = last_request(c)
    c.fault(compact_on=r"^GET /api/v1/pods\?(.*&)?continue=")
    tool = cache_tool(c.kubeconfig)
    log = sim_requests(c, n)
    pods = [e for e in log if e["path"] == "/api/v1/pods" and not e["watch"]]
    got = [(e["query"].get("limit"), "continue" in e["query"], e["status"]) for e in pods]
    # a page of 500, its continue meets the compaction (410), the list starts again
    assert got == [("500", False, 200), ("500", True, 410), ("500", False, 200),
                   ("500", True, 200)], brief(pods)
    assert pods[3]["rv"] == pods[2]["rv"], "the pages of one list share its resourceVersion"
    svcs = [e for e in log if e["path"] == "/api/v1/services" and not e["watch"]]
    assert len(svcs) >= 2 and all(e["query"].get("limit") == "500" for e in svcs), brief(svcs)
    after = list_counts(c)
    assert after.get("list pods", 0) - lists.get("list pods", 0) == 4, (lists, after)
    converge(c, tool, "the paged first list")


def test_a_watch_from_a_compacted_version_lists_again_on_the_real_cluster(private_real_view,
                                                                          cache_tool):
    """The real cluster's own 410: kube-apiserver restarted after etcd compacted
    its history (a crash or an upgrade, on a cluster that compacts every 5 min).
    The cache, paused meanwhile, resumes from a version both have forgotten, is
    answered 410 and lists again: the job deleted while it was not watching is
    gone (only a list can tell it), and it watches on."""
    c = private_real_view
    for name in ("kept", "deleted-unseen"):
        create(c, tfjob(name, run_seconds=600))
    tool = cache_tool(c.kubeconfig)

    def jobs():
        return sorted(j["name"] for j in tool.dump()["jobs"] if j["namespace"] == c.namespace)
    wait_for("both jobs in the cache", lambda: jobs() == ["deleted-unseen", "kept"])
    tool.pause()
    try:
        # the cache's watches end with this first restart, before the delete: no
        # DELETED event waits in a socket for it
        c.restart_apiserver(down_seconds=1)
        # a version the paused cache cannot be past
        before = c.api("GET", "/apis/kubeflow.org/v1/tfjobs?limit=1")[1]["metadata"][
            "resourceVersion"]
        c.kubectl("delete", "tfjob", "deleted-unseen", "--wait=false", check=True)
        # then history goes: etcd compacts, and the API server's watch cache
        # starts again after the delete
        c.compact_etcd()
        c.restart_apiserver(down_seconds=1)
    finally:
        tool.resume()
    wait_for("the job deleted while the cache was paused gone", lambda: jobs() == ["kept"],
             timeout=120)
    # what its resumed watches met: the real server's 410 for any version before
    # the delete (an ERROR event in a 200 stream, or the status itself)
    status, body = c.api("GET", "/apis/kubeflow.org/v1/tfjobs?watch=true&timeoutSeconds=2"
                                "&resourceVersion=" + before)
    first = json.loads(body.splitlines()[0]) if isinstance(body, str) else body
    code = first["object"]["code"] if status == 200 else status
    assert code == 410, (status, body)
    create(c, tfjob("after", run_seconds=600))
    wait_for("a job made after the relist", lambda: "after" in jobs(), timeout=60)
