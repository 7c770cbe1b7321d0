"""A watch server that lies or breaks (issue 23, items 1 and 2; k8s/cache/reflector.c),
against kubesim through build/tools/k8scache. kubesim's watch_send fault puts a
hostile server's lines on a watch; its request log says what the cache asked
for next, and when.

- An event the cache skips (another kind, a name no file can have) or whose
  resourceVersion is no version ("abc") is never resumed from: the watch comes
  back from the last valid version, health is ok again, and changes arrive.
- A watch refused for its resourceVersion (400, or kube-apiserver's 500
  "resourceVersion: Invalid value") lists again, as after 410: re-watching from
  the same version could only fail the same way.
- A server that sends one good event and then garbage is re-watched with the
  backoff doubling: an event does not reset it.
"""
import json
import os

import pytest

from k8scache_helpers import (K8SCACHE, KUBESIM, brief, cache_tool, converge,  # noqa: F401
                              create, last_request, sim_requests, tfjob, wait_for)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(K8SCACHE), reason="build/tools/k8scache not built (make unit)"),
]

NODES_WATCH = r"^GET /api/v1/nodes\?(.*&)?watch=true"
PODS_WATCH = r"^GET /api/v1/pods\?(.*&)?watch=true"


@pytest.fixture
def cluster(kubesim):
    return kubesim("--nodes", "2", "--gpus", "4", "--jobs", "2", "--speed", "10")


def watching(c, path):
    """Waits until the cache has a watch of path open; returns the log's last number."""
    wait_for("a watch of %s open" % path, lambda: [
        e for e in sim_requests(c) if e["path"] == path and e["watch"] and e["status"] == 200
        and "end" not in e])
    return last_request(c)


def event(type_, obj):
    return json.dumps({"type": type_, "object": obj}, separators=(",", ":"))


# What a lying server may send on the nodes watch: each with a resourceVersion
# that is no version, which a re-watch from it would be refused for (400).
LIES = {
    "another kind": event("ADDED", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod-x", "namespace": "default", "resourceVersion": "abc"},
        "spec": {"containers": [{"name": "c", "image": "x"}]}}),
    "a name no file can have": event("ADDED", {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "../x", "resourceVersion": "abc"}}),
    "no version": event("MODIFIED", {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-0", "resourceVersion": "abc"}}),
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_watch_is_never_resumed_from_a_lie(cluster, cache_tool, lie):
    tool = cache_tool(cluster.kubeconfig)
    n = watching(cluster, "/api/v1/nodes")
    cluster.fault(watch_send={"match": NODES_WATCH, "lines": [LIES[lie]]})
    cluster.fault(drop_watches=True)

    def nodes_watches():
        return [e for e in sim_requests(cluster, n) if e["path"] == "/api/v1/nodes" and e["watch"]]
    lied = wait_for("the lie sent", lambda: [e for e in nodes_watches() if "end" in e])[0]
    assert lied["end"] == "cut" and "rv" not in lied, brief([lied])
    after = wait_for("nodes watched again after the lie", lambda: [
        e for e in nodes_watches() if e["n"] > lied["n"] and e["status"] is not None])
    assert after[0]["status"] == 200, "re-watched from what the lie said: %s" % brief(after)
    assert after[0]["query"]["resourceVersion"] == lied["query"]["resourceVersion"], \
        "not resumed from the last good version: %s" % brief([lied] + after)
    wait_for("health ok", lambda: tool.health()["connected"], timeout=30)
    nodes = sorted(o["name"] for o in tool.dump()["nodes"])
    assert nodes == ["node-0", "node-1"], nodes
    create(cluster, tfjob("after-the-lie"))
    wait_for("a change after the lie", lambda: tool.changes_matching(
        object="job", name="after-the-lie", type="ADDED"))
    cluster.kubectl("label", "node", "node-1", "after-the-lie=yes", check=True)
    wait_for("a node change after the lie", lambda: tool.changes_matching(
        object="node", name="node-1", type="MODIFIED"))


# A watch refused for its resourceVersion: 400 from a server that says so plainly,
# and kube-apiserver's own answer (1.32 to 1.37, test_conformance_real.py): a 500 with the
# storage's field error.
REFUSALS = {
    "400": (400, None),
    "kube-apiserver's 500": (500, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: '
                                  'parsing "abc": invalid syntax'),
}


@pytest.mark.parametrize("refusal", sorted(REFUSALS))
def test_a_watch_refused_for_its_version_lists_again(cluster, cache_tool, refusal):
    code, message = REFUSALS[refusal]
    tool = cache_tool(cluster.kubeconfig, extra=["watch_timeout=2"])
    n = last_request(cluster)
    # the next pods watch (after a clean end) is refused as a server refuses a
    # resourceVersion it cannot parse
    cluster.fault(fail_next=1, code=code, match=PODS_WATCH, message=message)

    def refused_and_after():
        pods = [e for e in sim_requests(cluster, n) if e["path"] == "/api/v1/pods"]
        bad = [i for i, e in enumerate(pods) if e["watch"] and e["status"] == code]
        return pods[bad[0]:] if bad and len(pods) > bad[0] + 2 else None
    pods = wait_for("the 400 and what came after", refused_and_after)
    refused, listed, watched = pods[:3]
    assert not listed["watch"] and listed["status"] == 200, brief(pods)
    assert listed["query"] == {"limit": "500"}, "a full list, not a probe: %s" % brief(pods)
    assert watched["watch"] and watched["query"]["resourceVersion"] == listed["rv"], brief(pods)
    converge(cluster, tool, "after the relist")


# Each wait is picked in [half, full] of a backoff that doubles from 250 ms
# (WATCH_BACKOFF_INITIAL_MS): the k-th failure in a row waits at least 125 ms * 2^(k-1).
BACKOFF_FLOOR_S = 0.125


def test_one_good_event_then_garbage_does_not_reset_the_backoff(cluster, cache_tool):
    tool = cache_tool(cluster.kubeconfig)
    n = watching(cluster, "/api/v1/pods")
    bookmark = event("BOOKMARK", {"apiVersion": "v1", "kind": "Pod",
                                  "metadata": {"resourceVersion": "$RV"}})
    cluster.fault(watch_send={"match": PODS_WATCH, "times": 0,
                              "lines": [bookmark, "<html>502 Bad Gateway</html>"]})
    cluster.fault(drop_watches=True)

    def garbage_watches():
        return [e for e in sim_requests(cluster, n)
                if e["path"] == "/api/v1/pods" and e["watch"] and e.get("end") == "cut"
                and e.get("bookmarks") is None and e.get("rv") is None]
    watches = wait_for("six watches sent the garbage", lambda: (
        lambda ws: ws if len(ws) >= 6 else None)(garbage_watches()), timeout=120)
    starts = [e["t"] for e in watches[:6]]
    gaps = [round(b - a, 3) for a, b in zip(starts, starts[1:])]
    floors = [BACKOFF_FLOOR_S * 2 ** k for k in range(len(gaps))]
    assert all(g >= f for g, f in zip(gaps, floors)), \
        "the waits between watches (s) %s do not double (at least %s)" % (gaps, floors)
    cluster.fault(reset=True)
    create(cluster, tfjob("after-the-garbage"))
    wait_for("a change once the server is sane", lambda: tool.changes_matching(
        object="job", name="after-the-garbage", type="ADDED"), timeout=90)
    converge(cluster, tool, "once the server is sane", timeout=90)
