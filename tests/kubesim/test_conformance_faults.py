"""kubesim's control endpoints: /_sim/stats counts what clients asked and
the bytes sent them, /_sim/requests logs it with the answers, and
/_sim/fault breaks things the way a real cluster or network does."""

import http.client
import json
import socket
import time
import urllib.parse

import pytest

from helpers import wait_until


@pytest.fixture
def c(kubesim):
    return kubesim("--nodes", "2", "--speed", "20")


def conn(c):
    u = urllib.parse.urlsplit(c.url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def test_stats_count_requests_by_verb_and_resource(c):
    c.fault(reset=True)
    c.kubectl("get", "pods")
    c.kubectl("get", "tfjobs")
    c.api("GET", "/api/v1/nodes/node-0")
    s = c.stats()
    assert s["requests"]["list pods"] == 1, s
    assert s["requests"]["list tfjobs.kubeflow.org"] == 1, s
    assert s["requests"]["get nodes"] == 1, s
    assert s["total"] == sum(s["requests"].values())
    assert s["bytes"] > 0 and s["watches"] == 0
    again = c.stats()
    assert again["total"] == s["total"], "/_sim/ calls are not counted"


def test_stats_bytes_grow_by_at_least_each_response_body(c):
    h = conn(c)
    for path in ("/api/v1/nodes", "/openapi/v2",
                 "/api/v1/nodes?watch=true&timeoutSeconds=1"):
        before = c.stats()["bytes"]
        h.request("GET", path, headers={"Accept": "application/json"})
        r = h.getresponse()
        body = r.read()
        after = c.stats()["bytes"]
        assert r.status == 200 and body, (path, r.status)
        assert after - before >= len(body), \
            "%s: %d body bytes, bytes grew by %d" % (path, len(body), after - before)
    h.close()


def test_open_watches_are_counted(c):
    h = conn(c)
    h.request("GET", "/apis/kubeflow.org/v1/tfjobs?watch=true")
    r = h.getresponse()
    assert r.status == 200
    wait_until(lambda: c.stats()["watches"] == 1, 10, "one open watch")
    assert c.stats()["requests"]["watch tfjobs.kubeflow.org"] == 1
    h.close()
    wait_until(lambda: c.stats()["watches"] == 0, 10, "the watch closed with its client")


def test_fail_next(c):
    c.fault(fail_next=2, code=503)
    for _ in range(2):
        status, body = c.api("GET", "/api/v1/namespaces/default/pods")
        assert status == 503 and body["reason"] == "ServiceUnavailable" and body["code"] == 503
    assert c.api("GET", "/api/v1/namespaces/default/pods")[0] == 200
    c.fault(fail_next=1)
    status, body = c.api("GET", "/api/v1/namespaces")
    assert status == 500 and body["reason"] == "InternalError"
    r = c.kubectl("get", "pods", check=False)
    assert r.returncode == 0, "kubectl got through once the failures were used up"
    c.fault(fail_next=1, code=500, message="in the server's own words")
    status, body = c.api("GET", "/api/v1/namespaces")
    assert (status, body["message"]) == (500, "in the server's own words"), body
    assert c.api("GET", "/api/v1/namespaces")[0] == 200


def test_fail_next_matching_fails_only_the_requests_it_names(c):
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s1"},
           "spec": {"ports": [{"port": 80}]}}
    c.fault(fail_next=1, code=500,
            match=r"^POST /api/v1/namespaces/default/services\?(?!.*dryRun)")
    assert c.api("GET", "/api/v1/namespaces/default/services")[0] == 200
    assert c.api("POST", "/api/v1/namespaces/default/services?dryRun=All", svc)[0] == 201
    status, body = c.api("POST", "/api/v1/namespaces/default/services?fieldValidation=Strict",
                         svc)
    assert (status, body["reason"]) == (500, "InternalError"), body
    assert c.api("POST", "/api/v1/namespaces/default/services", svc)[0] == 201
    status, body = c.api("POST", "/_sim/fault", {"fail_next": 1, "match": "("})
    assert status == 400 and "match" in body["error"]


def test_delay(c):
    c.fault(delay_ms=400)
    t = time.monotonic()
    assert c.api("GET", "/api/v1/namespaces")[0] == 200
    assert time.monotonic() - t >= 0.4
    c.fault(delay_ms=0)


def test_delay_of_the_requests_that_match(c):
    """delay_match holds up only its requests (a LIST of pods, say): another is
    answered at once (a 60 s wait would outlast the client's 30 s timeout)."""
    c.fault(delay_ms=60000, delay_match=r"^GET /api/v1/namespaces/default/pods")
    try:
        assert c.api("GET", "/api/v1/nodes")[0] == 200
    finally:
        c.fault(delay_ms=0)
    status, body = c.api("POST", "/_sim/fault", {"delay_ms": 1, "delay_match": "("})
    assert status == 400 and "delay_match" in body["error"]


def test_drop_watches_cuts_streams(c):
    h = conn(c)
    h.request("GET", "/api/v1/nodes?watch=true")
    r = h.getresponse()
    first = json.loads(r.readline())
    assert first["type"] == "ADDED"
    r.readline()                       # node-1
    c.fault(drop_watches=True)
    with pytest.raises(http.client.IncompleteRead):
        r.read()                       # the stream ends without its last chunk: a cut
    h.close()


def test_compact_expires_older_versions(c):
    rv = c.api("GET", "/api/v1/namespaces")[1]["metadata"]["resourceVersion"]
    c.kubectl("create", "configmap", "after")
    c.fault(compact=True)
    h = conn(c)
    h.request("GET", "/api/v1/configmaps?watch=true&resourceVersion=" + rv)
    ev = json.loads(h.getresponse().readline())
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410
    h.close()


def test_down_refuses_connections_then_recovers(c):
    port = urllib.parse.urlsplit(c.url).port
    h = conn(c)
    h.request("GET", "/api/v1/nodes?watch=true")
    r = h.getresponse()
    c.fault(down_seconds=2)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with pytest.raises((http.client.IncompleteRead, ConnectionError, OSError)):
        while r.read(1):
            pass
    h.close()
    wait_until(lambda: c.api("GET", "/api/v1/namespaces")[0] == 200, 30,
               "kubesim listening again on the same port")


def test_reset_clears_faults_and_counters(c):
    c.fault(fail_next=5, code=500, delay_ms=10)
    c.fault(reset=True)
    assert c.api("GET", "/api/v1/namespaces")[0] == 200
    s = c.stats()
    assert s["total"] == 1 and s["requests"] == {"list namespaces": 1}
    h = conn(c)
    h.request("POST", "/_sim/fault", b'{"bogus": 1}', {"Content-Type": "application/json"})
    r = h.getresponse()
    assert r.status == 400 and "bogus" in r.read().decode()
    h.close()


def requests_since(c, n):
    return c._control("GET", "/_sim/requests?since=%d" % n)


def test_request_log_says_what_was_asked_and_how_it_was_answered(c):
    n = requests_since(c, 0)["last"]
    status, nodes = c.api("GET", "/api/v1/nodes?limit=1")
    assert status == 200
    assert c.api("GET", "/api/v1/namespaces/default/pods/nope")[0] == 404
    c.stats()                                  # /_sim/ calls are not logged
    log = requests_since(c, n)
    got = [(e["request"], e["status"], e.get("rv")) for e in log["requests"]]
    assert got == [("GET /api/v1/nodes?limit=1", 200, nodes["metadata"]["resourceVersion"]),
                   ("GET /api/v1/namespaces/default/pods/nope", 404, None)], got
    assert log["last"] == n + 2 and log["requests"][0]["n"] == n + 1, log
    assert log["requests"][0]["agent"].startswith("Python-urllib/"), log
    assert requests_since(c, n + 1)["requests"][0]["request"].endswith("/pods/nope")
    c.fault(reset=True)
    assert requests_since(c, 0) == {"requests": [], "last": n + 2}, "numbers go on after a reset"


def test_request_log_follows_a_watch_to_its_end(c):
    rv = c.stats()["resourceVersion"]
    c.kubectl("create", "configmap", "moves-the-revision")
    n = requests_since(c, 0)["last"]
    h = conn(c)
    # ended by its timeout: the final chunk, after a bookmark at the current revision
    h.request("GET", "/api/v1/nodes?watch=true&timeoutSeconds=1&allowWatchBookmarks=true"
                     "&resourceVersion=%d" % rv)
    lines = h.getresponse().read().splitlines()
    assert json.loads(lines[-1])["type"] == "BOOKMARK", lines
    w = requests_since(c, n)["requests"][0]
    assert (w["status"], w["end"], w["bookmarks"], w["rv"]) == (200, "clean", 1, str(rv + 1)), w
    # cut by drop_watches: no final chunk; rv is that of the last event sent
    h.request("GET", "/api/v1/nodes?watch=true")
    r = h.getresponse()
    node = json.loads(r.readline())["object"]
    r.readline()
    c.fault(drop_watches=True)
    with pytest.raises(http.client.IncompleteRead):
        r.read()
    h.close()
    cut = wait_until(lambda: [e for e in requests_since(c, n + 1)["requests"]
                              if e.get("end") == "cut"], 10, "the cut watch logged as cut")[0]
    assert cut["status"] == 200 and "bookmarks" not in cut, cut
    assert int(cut["rv"]) >= int(node["metadata"]["resourceVersion"]), cut


def test_compact_on_expires_the_continue_token_of_the_request_it_meets(c):
    for i in range(3):
        c.kubectl("create", "configmap", "page-%d" % i)
    path = "/api/v1/namespaces/default/configmaps?limit=1"
    first = c.api("GET", path)[1]
    c.fault(compact_on=r"continue=")
    rv = c.stats()["resourceVersion"]
    assert c.api("GET", path)[0] == 200, "only a request the expression finds meets it"
    assert c.stats()["resourceVersion"] == rv
    status, body = c.api("GET", path + "&continue=" + first["metadata"]["continue"])
    # the apiserver's answer to a continue token older than the compaction
    assert (status, body["reason"], body["code"]) == (410, "Expired", 410), body
    assert body["message"].startswith("The provided continue parameter is too old"), body
    # another write came first, as on a live cluster: even the newest revision is gone
    assert c.stats()["resourceVersion"] == rv + 1
    h = conn(c)
    h.request("GET", "/api/v1/configmaps?watch=true&resourceVersion=%d" % rv)
    ev = json.loads(h.getresponse().readline())
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410, ev
    h.close()
    # once: a fresh list pages on
    again = c.api("GET", path)[1]
    assert c.api("GET", path + "&continue=" + again["metadata"]["continue"])[0] == 200
    status, body = c.api("POST", "/_sim/fault", {"compact_on": "("})
    assert status == 400 and "compact_on" in body["error"], body


def test_watch_send_sends_a_broken_servers_lines_then_cuts_or_ends(c):
    n = requests_since(c, 0)["last"]
    bookmark = ('{"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1",'
                '"metadata":{"resourceVersion":"$RV"}}}')
    c.fault(watch_send={"match": r"^GET /api/v1/nodes\?.*watch=true", "times": 2,
                        "lines": [bookmark, "not json"]})
    rv = c.stats()["resourceVersion"]
    h = conn(c)
    h.request("GET", "/api/v1/pods?watch=true&timeoutSeconds=1")
    first = h.getresponse().read().splitlines()
    assert b"not json" not in first, "a watch the expression does not find is not touched"
    for _ in range(2):
        h = conn(c)
        h.request("GET", "/api/v1/nodes?watch=true&resourceVersion=%d" % rv)
        r = h.getresponse()
        ev = json.loads(r.readline())   # $RV: the resourceVersion when it was sent
        assert ev["type"] == "BOOKMARK" and \
            int(ev["object"]["metadata"]["resourceVersion"]) >= rv, ev
        assert r.readline() == b"not json\n"
        with pytest.raises(http.client.IncompleteRead):   # cut, as a broken connection
            r.read()
        h.close()
    # times=2: the third watch is the server's own again
    h = conn(c)
    h.request("GET", "/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion=%d" % rv)
    assert b"not json" not in h.getresponse().read()
    h.close()
    # "end" closes with the final chunk, "stream" goes on with the real events
    c.fault(watch_send={"match": "nodes", "lines": ["x"], "then": "end"})
    h = conn(c)
    h.request("GET", "/api/v1/nodes?watch=true&resourceVersion=%d" % rv)
    assert h.getresponse().read() == b"x\n"
    c.fault(watch_send={"match": "nodes", "lines": ["y"], "then": "stream", "times": 0})
    h.request("GET", "/api/v1/nodes?watch=true&timeoutSeconds=1&allowWatchBookmarks=true"
                     "&resourceVersion=%d" % rv)
    lines = h.getresponse().read().splitlines()
    assert lines[0] == b"y" and len(lines) > 1, lines
    h.close()
    cuts = [e for e in requests_since(c, n)["requests"] if e.get("end") == "cut"]
    assert len(cuts) == 2, cuts
    assert all(isinstance(e["t"], float) for e in requests_since(c, n)["requests"])
    for bad in ({"lines": "x"}, {"lines": ["a\nb"]}, {"lines": [], "then": "later"},
                {"lines": [], "match": "("}, {"lines": [], "times": -1}):
        status, body = c.api("POST", "/_sim/fault", {"watch_send": bad})
        assert status == 400 and "watch_send" in body["error"], (bad, body)
