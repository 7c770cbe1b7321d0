"""A log that cannot be had is never an empty file (issue 10, docs/tree.md "A
log that cannot be read"): with the API server gone, reading a log not read
before fails with EIO; with a server slower than log_wait, with ETIMEDOUT,
before the server answers, a running container's log as a finished one's
(issue 23, item 3); a finished job whose pods were deleted has no log
(ENODATA) and info says why. These are the logs arenafs did not keep (keep_logs=0;
kept ones: test_tree_logs_kept.py). A log that is rightly empty still reads as
empty."""

import errno
import os
import re
import subprocess

import pytest

from helpers import wait_until
from k8scache_helpers import brief, last_request, sim_requests
import jobspecs


def read_errno(path):
    """(errno, text): 0 and the content when cat would succeed."""
    try:
        with open(path) as f:
            return 0, f.read()
    except OSError as e:
        return e.errno, ""


@pytest.fixture
def finished(kubesim, arenafs):
    """A cluster with a TFJob whose one worker has finished; its log not read yet,
    nor kept (keep_logs=0: a kept log is read from disk, test_tree_logs_kept.py)."""
    c = kubesim("--nodes", "1", "--speed", "4")
    m = arenafs(c, "log_wait=1000", "keep_logs=0",
                allow=[r"log of default/", r"cluster is unreachable|reachable again"])
    jobspecs.create(c, jobspecs.tfjob("done", gpus=0, start=0, run=2))
    wait_until(lambda: m.read("jobs", "done", "status") == "SUCCEEDED\n", timeout=60,
               message="the job to succeed")
    return c, m


def test_a_log_the_server_cannot_give_is_eio_not_empty(finished):
    c, m = finished
    c.fault(down_seconds=30)
    err, text = read_errno(m.path("jobs", "done", "logs"))
    assert (err, text) == (errno.EIO, ""), (err, text)
    r = subprocess.run(["cat", m.path("jobs", "done", "instances", "done-worker-0", "logs")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "Input/output error" in r.stderr, r
    # the reason is in the tree: the cluster is gone, and info says its state is old
    wait_until(lambda: m.read("cluster", "health").startswith("disconnected"), timeout=30,
               message="cluster/health to say disconnected")
    wait_until(lambda: "\nCluster: unreachable since " in m.read("jobs", "done", "info"),
               timeout=10, message="info to say the cluster is unreachable")
    assert "this is the state last seen then" in m.read("jobs", "done", "info")
    # and stops saying so once it is back
    wait_until(lambda: "Cluster: unreachable" not in m.read("jobs", "done", "info"),
               timeout=90, interval=1, message="info to drop the note after reconnecting")


def test_a_server_slower_than_log_wait_is_etimedout(finished):
    c, m = finished
    c.fault(delay_ms=8000)
    try:
        err, text = read_errno(m.path("jobs", "done", "logs"))
    finally:
        c.fault(delay_ms=0)
    # the error came before the server's answer could: the read kept its deadline
    assert (err, text) == (errno.ETIMEDOUT, ""), (err, text)
    # and once the server answers again, the same file reads whole
    wait_until(lambda: read_errno(m.path("jobs", "done", "logs"))[1] ==
               c.kubectl("logs", "done-worker-0").stdout, timeout=30,
               message="the log once the server answers")


def wait_running(c, m, job):
    pod = job + "-worker-0"
    wait_until(lambda: m.read("jobs", job, "status") == "RUNNING\n" and c.kubectl(
        "get", "pod", pod, "-o", "jsonpath={.status.phase}", check=False).stdout == "Running",
        timeout=60, message="%s to run" % job)


def test_a_running_log_the_server_is_slow_to_give_is_etimedout(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--speed", "4")
    m = arenafs(c, "log_wait=1000", "keep_logs=0", allow=[r"log of default/"])
    jobspecs.create(c, jobspecs.tfjob("slow", gpus=0, start=0, run=600))
    wait_running(c, m, "slow")
    c.fault(delay_ms=5000)
    try:
        err, text = read_errno(m.path("jobs", "slow", "logs"))
        r = subprocess.run(["cat", m.path("jobs", "slow", "instances", "slow-worker-0",
                                          "logs")], capture_output=True, text=True)
    finally:
        c.fault(delay_ms=0)
    # a log the server did not give within log_wait is not an empty log
    assert (err, text) == (errno.ETIMEDOUT, ""), (err, text)
    assert r.returncode == 1 and "Connection timed out" in r.stderr, r
    assert "has not answered" in m.log(), m.log()
    # and once the server answers, the same file reads what the container printed
    wait_until(lambda: read_errno(m.path("jobs", "slow", "logs"))[1] != "", timeout=30,
               message="the log once the server answers")


def test_opens_that_wait_for_a_slow_server_are_told(kubesim, arenafs):
    """An open of a log waits up to log_wait for its first bytes: a walk that
    opens every log (rsync -a of the mount) against a slow server waited minutes
    without a word (issue 33, item 12). The daemon now says how many opens
    waited all of log_wait for the server, once a minute, naming the last."""
    c = kubesim("--nodes", "1", "--speed", "4")
    m = arenafs(c, "log_wait=1000", "keep_logs=0", allow=[r"log of default/"])
    jobspecs.create(c, jobspecs.tfjob("slow", gpus=0, start=0, run=600))
    wait_running(c, m, "slow")
    c.fault(delay_ms=3000, delay_match=r"^GET \S*/pods/[^/?]+/log\?")
    try:
        read_errno(m.path("jobs", "slow", "logs"))
    finally:
        c.fault(delay_ms=0)
    said = wait_until(lambda: re.search(r"log of default/slow-worker-0: its open waited \d+ "
                                        r"ms for the API server \(log_wait 1000 ms.*since the "
                                        r"last word: 1$", m.log(), re.M),
                      timeout=10, message="the daemon to say the open waited")
    assert said


def test_a_running_container_that_printed_nothing_reads_empty(kubesim, arenafs):
    """A kubelet answers a follow only with its first byte: the one probe without
    follow tells a silent container from a silent server."""
    c = kubesim("--nodes", "1", "--speed", "4")
    m = arenafs(c, "log_wait=1000", "keep_logs=0")
    jobspecs.create(c, jobspecs.tfjob("quiet", gpus=0, start=0, run=600, lines=0))
    wait_running(c, m, "quiet")
    since = last_request(c)
    assert read_errno(m.path("jobs", "quiet", "logs")) == (0, "")
    logs = [e for e in sim_requests(c, since) if e["path"].endswith("/log")]
    # the follow, and one probe without follow that the server answered at once
    assert len(logs) == 2 and "follow=true" not in logs[1]["request"], brief(logs)


def test_a_finished_job_whose_pods_are_gone_has_no_log(finished):
    c, m = finished
    c.kubectl("delete", "pod", "done-worker-0", "--wait=true")
    wait_until(lambda: os.listdir(m.path("jobs", "done", "instances")) == [], timeout=30,
               message="the pod to leave instances/")
    err, _ = read_errno(m.path("jobs", "done", "logs"))
    assert err == errno.ENODATA
    info = m.read("jobs", "done", "info")
    assert "the pods of this finished job are gone, and their logs with them" in info, info


def test_a_rightly_empty_log_still_reads_empty(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("waits", gpus=2))     # never fits: Pending
    wait_until(lambda: os.path.isdir(m.path("jobs", "waits", "instances", "waits-worker-0")),
               timeout=30, message="the pending pod")
    assert read_errno(m.path("jobs", "waits", "logs")) == (0, "")
    assert read_errno(m.path("jobs", "waits", "instances", "waits-worker-0", "logs")) == (0, "")
