"""jobs/NAME/suspend (issue 26, item 2): `echo 1 > jobs/NAME/suspend` asks the
job's operator to stop it and keep it (runPolicy.suspend, one merge patch);
status says SUSPENDED when the operator says so, the pods go, their GPUs are
freed; `echo 0` brings it back. On kubesim (its operator suspends as the
training-operator does) and the real cluster (training-operator v1.9). The
reader and viewer contexts may read and not patch: the file is read-only (0444) for
them, a write fails with EACCES, the job is untouched and its info ends with the reason (docs/tree.md, "jobs/NAME/suspend")."""

import errno
import os
import stat
import threading

import pytest

from helpers import first_line, let_viewer_read, wait_until, write_as_cp, write_once as write

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n"
        'env: {SIM_RUN_SECONDS: "600", KWOK_RUN: "600s"}\n')


def suspended_in_spec(c, name):
    job = c.kubectl_json("get", "tfjob", name)
    return job["spec"].get("runPolicy", {}).get("suspend", False)


def test_suspend_stops_the_job_frees_its_gpus_and_resume_brings_it_back(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c, allow=[r"jobs/pausable/suspend of namespace \S+ refused: write 1 to suspend"])
    assert write_as_cp(m.path("submit", "pausable.yaml"), SPEC) == 0, \
        m.read("submit", "pausable", "error")
    wait_until(lambda: m.read("jobs", "pausable", "status") == "RUNNING\n", timeout=120,
               message="pausable RUNNING")
    wait_until(lambda: first_line(m.read("jobs", "pausable", "gpus")) == "1/1\n", timeout=60,
               message="its GPU taken")
    path = m.path("jobs", "pausable", "suspend")
    assert m.read("jobs", "pausable", "suspend") == "0\n"
    st = os.stat(path)
    assert st.st_mode & 0o777 == 0o644 and st.st_size == 2
    assert "suspend" in os.listdir(m.path("jobs", "pausable"))

    # other words are refused, and change nothing
    assert write(path, "yes\n") == errno.EINVAL
    assert suspended_in_spec(c, "pausable") is False
    info = m.read("jobs", "pausable", "info")
    assert "\nSuspend: refused at " in info and info.endswith(
        " (jobs/NAME/suspend): write 1 to suspend the job, 0 to resume it\n"), info

    assert write(path, "1\n") == 0
    assert suspended_in_spec(c, "pausable") is True
    assert "refused" not in m.read("jobs", "pausable", "info")   # a success forgets it
    wait_until(lambda: m.read("jobs", "pausable", "suspend") == "1\n", timeout=30,
               message="suspend reads 1")
    wait_until(lambda: m.read("jobs", "pausable", "status") == "SUSPENDED\n", timeout=120,
               message="pausable SUSPENDED")
    wait_until(lambda: os.listdir(m.path("jobs", "pausable", "instances")) == [], timeout=120,
               message="its pods gone")
    # its own GPUs, not the cluster's total: other tests' jobs of the session come and go
    wait_until(lambda: m.read("jobs", "pausable", "gpus").startswith("0/"), timeout=60,
               message="its GPU freed")
    assert c.kubectl_json("get", "tfjob", "pausable")["metadata"]["name"] == "pausable"

    assert write(path, "0") == 0
    assert suspended_in_spec(c, "pausable") is False
    wait_until(lambda: m.read("jobs", "pausable", "status") == "RUNNING\n", timeout=180,
               message="pausable RUNNING again")
    assert os.listdir(m.path("jobs", "pausable", "instances")) != []
    wait_until(lambda: first_line(m.read("jobs", "pausable", "gpus")) == "1/1\n", timeout=60,
               message="its GPU taken again")
    assert m.read("jobs", "pausable", "suspend") == "0\n"


@pytest.mark.parametrize("context", ["reader", "viewer"])
def test_who_may_only_read_may_not_suspend(any_cluster, arenafs, context):
    c = any_cluster
    if context == "viewer":
        let_viewer_read(c)
    owner = arenafs(c)
    assert write_as_cp(owner.path("submit", "kept.yaml"), SPEC) == 0, \
        owner.read("submit", "kept", "error")
    m = arenafs(c, "context=" + context, allow=[r"jobs/kept/suspend of namespace \S+ refused: "])
    # the job is in jobs/ where the context names its namespace, else in
    # namespaces/NS/jobs/ (the real cluster's reader names default)
    places = [("jobs", "kept"), ("namespaces", c.namespace, "jobs", "kept")]
    where = wait_until(lambda: [p for p in places if os.path.isdir(m.path(*p))], timeout=60,
                       message="the reader to see the job")[0]
    # read-only for who may not patch the job (a SelfSubjectAccessReview), writable
    # for its owner
    assert stat.S_IMODE(os.stat(m.path(*where, "suspend")).st_mode) == 0o444
    assert stat.S_IMODE(os.stat(owner.path("jobs", "kept", "suspend")).st_mode) == 0o644
    assert write(m.path(*where, "suspend"), "1\n") == errno.EACCES
    assert suspended_in_spec(c, "kept") is False
    assert m.read(*where, "suspend") == "0\n"
    # the reason where the job is, as submit/'s error file has a submission's
    info = m.read(*where, "info")
    assert "\nSuspend: refused at " in info and "forbidden" in info, info
    assert 'cannot patch resource "tfjobs"' in info, info
    assert "jobs/kept/suspend of namespace %s refused: " % c.namespace in m.log(), m.log()


def patches(c, name):
    """kubesim's log of the PATCHes of the job name: [status] (None: no answer yet)."""
    return [e["status"] for e in c._control("GET", "/_sim/requests?since=0")["requests"]
            if e["request"].startswith("PATCH ") and ("/tfjobs/" + name) in e["request"]]


def test_a_write_the_server_does_not_answer_holds_only_its_file(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c, "request_timeout=4",
                allow=[r"jobs/slow/suspend of namespace default refused: "])
    assert write_as_cp(m.path("submit", "slow.yaml"), SPEC) == 0, m.read("submit", "slow", "error")
    c.fault(delay_ms=60000, delay_match=r"^PATCH ")
    result = {}
    writer = threading.Thread(
        target=lambda: result.update(rc=write(m.path("jobs", "slow", "suspend"), "1\n")))
    try:
        writer.start()
        wait_until(lambda: patches(c, "slow"), timeout=30, message="the PATCH sent")
        # the job's directory and its other files answer while the PATCH waits
        listed = sorted(os.listdir(m.path("jobs", "slow")))
        status = m.read("jobs", "slow", "status")
        unanswered = patches(c, "slow") == [None]
        writer.join(timeout=120)
    finally:
        c.fault(delay_ms=0)
    assert unanswered, "the tree waited for the PATCH's answer"
    assert "suspend" in listed and status in ("PENDING\n", "RUNNING\n"), (listed, status)
    assert not writer.is_alive() and result["rc"] == errno.ETIMEDOUT, result
    assert "\nSuspend: refused at " in m.read("jobs", "slow", "info")
