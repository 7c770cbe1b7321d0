"""Container log streams (k8s/logstream.c, loglines.c, logbuf.c) against kubesim,
through build/tools/logfollow: a followed log ends with the container and equals
what `kubectl logs` prints; broken connections (dropped streams, an outage)
resume without a line lost or repeated, with several readers sharing the stream;
the previous instance of a restarted container; logs that do not exist yet are
empty with the reason.
"""
import json
import os
import time

import pytest

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
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
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


def test_previous_instance_of_a_restarted_container(cluster):
    create(cluster, pod("crasher", restart="OnFailure", SIM_RUN_SECONDS=3, SIM_EXIT_CODE=1,
                        SIM_LOG_LINES_PER_SECOND=20))
    # two failures: the second restart waits in CrashLoopBackOff (10 s), so the
    # previous instance stays the same while we read it
    wait_for("two restarts", lambda: container_status(cluster, "crasher").get("restartCount", 0) >= 2
             and "waiting" in container_status(cluster, "crasher").get("state", {}), timeout=90)
    proc = logfollow(cluster.kubeconfig, "crasher", "main", "previous=1")
    rc, out, stats, err = finish_logfollow(proc, timeout=60)
    assert rc == 0, err
    check_lines(out, kubectl_logs(cluster, "crasher", "--previous"))
    assert out.count(b"\n") >= 20, out[:200]


def test_log_of_an_unscheduled_pod_is_empty_with_the_reason(cluster):
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
