"""A stale tree never says "ok" (issue 33, item 6; docs/reliability.md, "What
cannot be read").

- One TFJob of 17 MiB (kubesim's `store` fault puts it in unvalidated, as a
  server without etcd's 1.5 MiB limit would serve it) made the TFJob watch
  fail on it and start again from before it, for ever: a job made after it
  never appeared, a deleted one stayed, cluster/health said ok and the daemon
  said nothing. Now the object is left out, named in cluster/health and the
  daemon's log, and the rest of its kind is watched.
- A watch whose answer cannot be read is a disconnection with its reason until
  a watch is read again: the one-item probe that finds the server answering
  does not make cluster/health say ok while the next watch is still on its way."""

import os
import re

from helpers import wait_until
from k8scache_helpers import create, last_request, sim_requests, tfjob

TFJOBS_WATCH = r"^GET /apis/kubeflow.org/v1/(namespaces/default/)?tfjobs\?(.*&)?watch=true"
TFJOBS_PROBE = r"^GET /apis/kubeflow.org/v1/(namespaces/default/)?tfjobs\?limit=1$"


def huge_tfjob(name, mib):
    job = tfjob(name)
    job["metadata"].update({"namespace": "default",
                            "annotations": {"padding": "x" * (mib << 20)}})
    return job


def test_an_object_too_large_to_hold_is_left_out_by_name_and_its_kind_stays_watched(
        kubesim, arenafs):
    c = kubesim("--nodes", "2", "--jobs", "3")
    m = arenafs(c, allow=[r'tfjobs "huge" in default: 17\.0 MiB, larger than the 16 MiB',
                          r"the server sent tfjobs \"huge\" in default, 17\.0 MiB"])
    before = wait_until(lambda: sorted(os.listdir(m.path("jobs"))) or None,
                        message="the jobs listed")
    c.fault(store={"resource": "tfjobs.kubeflow.org", "object": huge_tfjob("huge", 17)})
    # what happens after it still reaches the tree: a new job, a deleted one
    create(c, tfjob("after"))
    c.kubectl("delete", "tfjob", before[0], "--wait=false")
    wait_until(lambda: "after" in os.listdir(m.path("jobs")), timeout=60,
               message="a job made after the huge one")
    wait_until(lambda: before[0] not in os.listdir(m.path("jobs")), timeout=60,
               message="a job deleted after the huge one to go")
    assert "huge" not in os.listdir(m.path("jobs"))
    health = m.read("cluster", "health").splitlines()
    assert health[0] == "ok", health
    assert 'tfjobs "huge" in default, 17.0 MiB, larger than the 16 MiB arenafs holds of one ' \
        'object' in health[1], health
    wait_until(lambda: 'tfjobs "huge" in default: 17.0 MiB, larger than the 16 MiB' in m.log(),
               timeout=10, message="the daemon to name it")


def test_a_watch_that_cannot_be_read_is_a_disconnection_until_one_is_read(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--jobs", "2")
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again"])
    wait_until(lambda: os.listdir(m.path("jobs")), message="the jobs listed")
    # every TFJob watch answers garbage, and each comes 3 s after it is asked
    c.fault(watch_send={"match": TFJOBS_WATCH, "times": 0,
                        "lines": ["<html>502 Bad Gateway</html>"]})
    c.fault(delay_ms=3000, delay_match=TFJOBS_WATCH)
    since = last_request(c)
    c.fault(drop_watches=True)

    def probed_and_watching_again():
        """A garbage watch, then the probe answered, and the next watch is asked
        and held: the moment the server answers but no watch was read."""
        watches = [e for e in sim_requests(c, since) if re.search(TFJOBS_WATCH, e["request"])]
        probes = [e["n"] for e in sim_requests(c, since)
                  if re.search(TFJOBS_PROBE, e["request"]) and e["status"] == 200]
        read = [w["n"] for w in watches if w["status"] == 200]
        held = [w["n"] for w in watches if w["status"] is None]
        return any(r < p < h for r in read for p in probes for h in held)
    try:
        wait_until(probed_and_watching_again, timeout=90,
                   message="a probe answered, and a watch asked again after it")
        health = m.read("cluster", "health")
        job = sorted(os.listdir(m.path("jobs")))[0]
        info = m.read("jobs", job, "info")
    finally:
        c.fault(reset=True)
    assert health.startswith("disconnected since "), health
    assert "watch tfjobs" in health and "not JSON" in health, health
    assert "Cluster: unreachable since" in info, info
    wait_until(lambda: m.read("cluster", "health") == "ok\n", timeout=90, interval=0.5,
               message="ok once a watch is read again")
    wait_until(lambda: "the cluster is reachable again" in m.log(), timeout=10,
               message="the daemon to say so")
