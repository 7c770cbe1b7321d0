"""Events expire as kube-apiserver makes them expire (--event-ttl, kubesim_lib/leases.py):
a lease per write, shared by the writes of a short window, revoked as a whole in one
revision; what a watch sees of it; an update that prolongs an Event's life; 0 for ever.

The lease tests drive a Store with a fake clock (no waiting); the last one runs
kubesim with a short --event-ttl and watches over HTTP, as arenafs does."""

import http.client
import json
import time
import urllib.parse

import pytest

from kubesim_lib.store import Store


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def event(name, count=1):
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
            "reason": "Started", "message": name, "type": "Normal", "count": count}


def store_with(ttl):
    clock = Clock()
    s = Store(ttls={"events": ttl})
    s.lessor.clock = clock
    return s, clock


def names(s):
    return [e.obj["metadata"]["name"] for e in s.list("events")[0]]


def deleted(w):
    out = []
    while True:
        ev = w.get(0)
        if not ev:
            return out
        if ev.type == "DELETED":
            out.append(ev)


def test_an_event_is_deleted_ttl_after_its_write_with_a_deleted_watch_event():
    s, clock = store_with(60)             # reuse min(5 % of 60, 60) = 3 s: lease of 63 s
    s.create("events", event("a"))
    s.create("configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": "cm", "namespace": "default"}})
    w = s.watch("events", None, s.current_rv())
    clock.t += 62
    s.lessor.revoke_expired()
    assert names(s) == ["a"], "an Event went before its lease ran out"
    clock.t += 1
    s.lessor.revoke_expired()
    assert names(s) == []
    gone = deleted(w)
    assert [e.entry.obj["metadata"]["name"] for e in gone] == ["a"]
    assert gone[0].entry.obj["message"] == "a"           # the last state, as etcd's prevKV
    assert gone[0].entry.obj["metadata"]["resourceVersion"] == str(s.current_rv())
    assert s.get("configmaps", "default", "cm") is not None, "only Events expire"


def test_writes_within_the_reuse_window_share_a_lease_and_go_at_one_revision():
    s, clock = store_with(60)
    s.create("events", event("a"))
    clock.t += 2                           # within the 3 s of reuse: same lease
    s.create("events", event("b"))
    clock.t += 2                           # past it: a new lease, 4 s later
    s.create("events", event("c"))
    w = s.watch("events", None, s.current_rv())
    clock.t += 61
    s.lessor.revoke_expired()
    gone = deleted(w)
    assert sorted(e.entry.obj["metadata"]["name"] for e in gone) == ["a", "b"]
    assert gone[0].rv == gone[1].rv, "one lease is revoked in one etcd transaction"
    assert names(s) == ["c"]
    clock.t += 4
    s.lessor.revoke_expired()
    assert names(s) == []
    assert [e.entry.obj["metadata"]["name"] for e in deleted(w)] == ["c"]


def test_a_lease_holds_at_most_1000_objects():
    s, clock = store_with(60)
    for i in range(1001):
        s.create("events", event("e%04d" % i))
    w = s.watch("events", None, s.current_rv())
    clock.t += 70
    s.lessor.revoke_expired()
    revisions = {e.rv for e in deleted(w)}
    assert len(revisions) == 2, revisions


def test_an_update_gives_the_event_a_full_ttl_from_then():
    s, clock = store_with(60)
    s.create("events", event("a"))
    s.create("events", event("b"))
    clock.t += 30
    s.mutate("events", "default", "b", lambda o: o.update(count=2))
    w = s.watch("events", None, s.current_rv())
    clock.t += 34                          # a's lease (63 s) is over, b's new one is not
    s.lessor.revoke_expired()
    assert names(s) == ["b"]
    clock.t += 60
    s.lessor.revoke_expired()
    gone = deleted(w)
    assert [(e.entry.obj["metadata"]["name"], e.entry.obj["count"]) for e in gone] == \
        [("a", 1), ("b", 2)]


def test_a_deleted_event_is_not_deleted_again_and_a_ttl_of_0_keeps_them():
    s, clock = store_with(60)
    s.create("events", event("a"))
    s.delete("events", "default", "a")
    rv = s.current_rv()
    clock.t += 100
    s.lessor.revoke_expired()
    assert s.current_rv() == rv, "an empty lease wrote a revision"
    s, clock = store_with(0)
    s.create("events", event("a"))
    clock.t += 10 ** 7
    s.lessor.revoke_expired()
    assert names(s) == ["a"]


def test_kubesim_event_ttl_flag_expires_events_seen_by_a_watch(kubesim):
    ttl = 3
    c = kubesim("--nodes", "1", "--event-ttl", "%ds" % ttl)
    status, lst = c.api("GET", "/api/v1/namespaces/default/events")
    assert status == 200, lst
    u = urllib.parse.urlsplit(c.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", "/api/v1/namespaces/default/events?watch=1&timeoutSeconds=%d"
                 "&resourceVersion=%s" % (ttl + 40, lst["metadata"]["resourceVersion"]),
                 headers={"Authorization": "Bearer " + c.token()})
    resp = conn.getresponse()
    assert resp.status == 200
    made = time.monotonic()
    status, body = c.api("POST", "/api/v1/namespaces/default/events", event("mine"))
    assert status == 201, body
    seen = []
    while True:
        line = resp.readline()
        if not line:
            break
        ev = json.loads(line)
        seen.append((ev["type"], ev["object"]["metadata"]["name"]))
        if ev["type"] == "DELETED" and ev["object"]["metadata"]["name"] == "mine":
            lived = time.monotonic() - made
            assert ev["object"]["message"] == "mine"
            break
    conn.close()
    assert ("DELETED", "mine") in seen, "no DELETED event within the watch: %s" % seen
    assert lived >= ttl, "the Event went after %.1f s, before its --event-ttl" % lived
    status, _ = c.api("GET", "/api/v1/namespaces/default/events/mine")
    assert status == 404


@pytest.mark.parametrize("bad", ["60", "1x", "h"])
def test_kubesim_refuses_an_event_ttl_that_is_no_duration(kubesim, bad):
    with pytest.raises(Exception) as e:
        kubesim("--event-ttl", bad, ready_timeout=20)
    assert "--event-ttl: invalid duration" in str(e.value), e.value
