"""Container log streams (k8s/logs/logstream.c, loglines.c, logbuf.c) against kubesim,
through build/tools/logfollow: a followed log ends with the container and equals
what `kubectl logs` prints; broken connections (dropped streams, an outage)
resume without a line lost or repeated, with several readers sharing the stream;
the previous instance of a restarted container; logs that do not exist yet are
empty with the reason; readers are woken by the append callback; a 25 MB log is
followed in bounded memory.

The previous instance and the unscheduled pod run on the real cluster too; the
rest needs kubesim: logs that grow and end (kwok's are static and its follow
streams never end), fault injection, a start delay kwok does not offer.
"""
import json
import os
import time

import pytest

import realcluster
from k8scache_helpers import KUBESIM, LOGFOLLOW, finish_logfollow, logfollow, wait_for

pytestmark = [
    pytest.mark.skipif(not os.path.exists(KUBESIM), reason="kubesim not there yet"),
    pytest.mark.skipif(not os.path.exists(LOGFOLLOW), reason="build/tools/logfollow not built (make unit)"),
]


def pod(name, restart="Never", gpus=0, **env):
    c = {"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "train"],
         "env": [{"name": k, "value": str(v)} for k, v in env.items()]}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": restart, "containers": [c]}}


def create(c, obj):
    c.kubectl("create", "-f", "-", "--validate=false", input=json.dumps(obj))


def container_status(c, name):
    obj = c.kubectl_json("get", "pod", name)
    return (obj.get("status", {}).get("containerStatuses") or [{}])[0]


def running(c, name):
    return "running" in container_status(c, name).get("state", {})


def kubectl_logs(c, name, *args):
    return c.kubectl("logs", name, "-c", "main", *args).stdout.encode()


def check_lines(got, want):
    """The same log; on failure, says where they part."""
    if got == want:
        return
    g, w = got.splitlines(), want.splitlines()
    dup = len(g) - len(set(g))
    first = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
    raise AssertionError("logs differ: %d lines (%d repeated) vs kubectl's %d; first difference "
                         "at line %d: %r vs %r" % (len(g), dup, len(w), first,
                                                   g[first] if first < len(g) else None,
                                                   w[first] if first < len(w) else None))


@pytest.fixture
def cluster(kubesim):
    return kubesim("--nodes", "2", "--gpus", "4")


@pytest.fixture(params=realcluster.cluster_params())
def any_cluster(request, kubesim):
    """As cluster, or the real cluster seen through a namespace of the test's own."""
    if request.param == "real":
        return request.getfixturevalue("real_view")
    return kubesim("--nodes", "2", "--gpus", "4")


def test_followed_log_ends_with_the_container_and_equals_kubectl_logs(cluster):
    create(cluster, pod("talker", SIM_RUN_SECONDS=6, SIM_LOG_LINES_PER_SECOND=40))
    wait_for("the container running", lambda: running(cluster, "talker"))
    proc = logfollow(cluster.kubeconfig, "talker", "main")
    rc, out, stats, err = finish_logfollow(proc, timeout=120)
    assert rc == 0, err
    assert stats["status"] == "", stats
    assert "terminated" in container_status(cluster, "talker")["state"]
    check_lines(out, kubectl_logs(cluster, "talker"))
    assert out.count(b"\n") >= 100, out[:200]
    # logfollow also wakes once a second without a callback: only its count shows
    # that on_append ran. The done notice is one call; more are appends.
    assert int(stats["notifications"]) > 1, "on_append called only %s times: %s" % (
        stats["notifications"], stats)
    assert int(stats["notified_bytes"]) == len(out), stats


# A log much larger than what a stream keeps in memory (256 KiB ring, a held line
# of at most 64 KiB, one chunk): lines of 100 kB (longer than a held line, so
# they are stored in pieces), 25 MB in all, written over 5 s.
BIG_LOG_LINE_BYTES = 100000
BIG_LOG_LINES_PER_SECOND = 50
BIG_LOG_SECONDS = 5
# Measured: logfollow peaks at ~11 MB (most of it libcurl and OpenSSL) for a
# 100 MB log. The bound is generous, yet below the log's own size: a stream
# that kept the log in memory could not stay under it.
BIG_LOG_PEAK_RSS_KB = 20 * 1024


def test_big_log_is_followed_in_bounded_memory_and_equals_kubectl_logs(cluster):
    size = BIG_LOG_LINE_BYTES * BIG_LOG_LINES_PER_SECOND * BIG_LOG_SECONDS
    assert size > 1024 * BIG_LOG_PEAK_RSS_KB
    create(cluster, pod("bigtalker", SIM_RUN_SECONDS=BIG_LOG_SECONDS,
                        SIM_LOG_LINES_PER_SECOND=BIG_LOG_LINES_PER_SECOND,
                        SIM_LOG_LINE_BYTES=BIG_LOG_LINE_BYTES))
    wait_for("the container running", lambda: running(cluster, "bigtalker"))
    rc, out, stats, err = finish_logfollow(logfollow(cluster.kubeconfig, "bigtalker", "main"),
                                           timeout=300)
    assert rc == 0, err
    assert stats["status"] == "", stats
    want = kubectl_logs(cluster, "bigtalker")
    assert len(want) >= size, "kubectl logs printed %d bytes, not the %d written" % (
        len(want), size)
    check_lines(out, want)
    assert int(stats["notifications"]) > 1, stats
    if stats["asan"] == "1":
        pytest.skip("AddressSanitizer build: its shadow memory and quarantine make RSS "
                    "meaningless (the log itself was checked)")
    assert int(stats["peak_rss_kb"]) < BIG_LOG_PEAK_RSS_KB, \
        "logfollow peaked at %s kB following a %d-byte log (bound %d kB)" % (
            stats["peak_rss_kb"], len(out), BIG_LOG_PEAK_RSS_KB)


def test_broken_streams_resume_without_loss_or_repeats(cluster):
    create(cluster, pod("chatty", SIM_RUN_SECONDS=14, SIM_LOG_LINES_PER_SECOND=50))
    wait_for("the container running", lambda: running(cluster, "chatty"))
    logs_before = cluster.stats()["requests"]
    proc = logfollow(cluster.kubeconfig, "chatty", "main", "readers=3")
    time.sleep(2)
    cluster.fault(drop_watches=True)   # cuts follow streams like a dropped connection
    time.sleep(1.5)
    cluster.fault(drop_watches=True)
    time.sleep(1.5)
    cluster.fault(down_seconds=3)      # and an outage
    rc, out, stats, err = finish_logfollow(proc, timeout=180)
    assert rc == 0, err                # the three readers read the same bytes
    check_lines(out, kubectl_logs(cluster, "chatty"))
    after = cluster.stats()["requests"]
    log_requests = sum(v - logs_before.get(k, 0) for k, v in after.items() if "log" in k)
    assert log_requests >= 3, after    # the stream really was reconnected


def test_previous_instance_of_a_restarted_container(any_cluster):
    cluster = any_cluster
    create(cluster, pod("crasher", restart="OnFailure", SIM_RUN_SECONDS=3, SIM_EXIT_CODE=1,
                        SIM_LOG_LINES_PER_SECOND=20, KWOK_CRASH_ONCE=1, KWOK_RUN="forever"))
    if cluster.kind == "kubesim":
        # two failures: the second restart waits in CrashLoopBackOff (10 s), so the
        # previous instance stays the same while we read it
        wait_for("two restarts", lambda: container_status(cluster, "crasher").get(
            "restartCount", 0) >= 2 and "waiting" in container_status(cluster, "crasher").get(
            "state", {}), timeout=90)
    else:
        # kwok crashes it once, then it runs on: its previous instance stays
        wait_for("a restart", lambda: container_status(cluster, "crasher").get(
            "restartCount", 0) >= 1 and running(cluster, "crasher"), timeout=90)
    proc = logfollow(cluster.kubeconfig, "crasher", "main", "previous=1")
    rc, out, stats, err = finish_logfollow(proc, timeout=60)
    assert rc == 0, err
    check_lines(out, kubectl_logs(cluster, "crasher", "--previous"))
    assert out
    if cluster.kind == "kubesim":
        assert out.count(b"\n") >= 20, out[:200]            # 3 s at 20 lines a second


def test_log_of_an_unscheduled_pod_is_empty_with_the_reason(any_cluster):
    cluster = any_cluster
    create(cluster, pod("toobig", gpus=64))
    wait_for("the pod pending", lambda: cluster.kubectl_json("get", "pod", "toobig")
             .get("status", {}).get("phase") == "Pending")
    rc, out, stats, err = finish_logfollow(logfollow(cluster.kubeconfig, "toobig", "main"),
                                           timeout=60)
    assert rc == 0, err
    assert out == b"" and stats["bytes"] == "0", stats
    assert "not scheduled" in stats["status"], stats


def test_log_of_a_container_not_started_is_empty_with_the_reason(cluster):
    create(cluster, pod("slowstart", SIM_START_SECONDS=600))
    wait_for("the pod on a node", lambda: cluster.kubectl_json("get", "pod", "slowstart")
             .get("spec", {}).get("nodeName"))
    wait_for("the container waiting", lambda: "waiting" in container_status(
        cluster, "slowstart").get("state", {}))
    rc, out, stats, err = finish_logfollow(logfollow(cluster.kubeconfig, "slowstart", "main"),
                                           timeout=60)
    assert rc == 0, err
    assert out == b"", out[:200]
    assert "waiting to start" in stats["status"] and "ContainerCreating" in stats["status"], stats
