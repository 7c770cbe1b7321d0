"""rmdir jobs/NAME while the cluster is slow to answer the DELETE (issue 23):
the kernel holds jobs/ for the whole rmdir, so `ls jobs/` and lookups of names
not yet cached waited as long as the DELETE did (29 s with the API server
stopped). rmdir now holds jobs/ for at most 3 s: then it fails with
EINPROGRESS, the DELETE goes on, and jobs/NAME/info says how it ends
(docs/submit.md, "rmdir jobs/NAME"). kubesim delays the DELETE (fault
injection); on the real cluster kube-apiserver is stopped (SIGSTOP)."""

import os
import re
import signal
import subprocess

from helpers import wait_until, write_as_cp
import jobspecs

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n"
        'env: {SIM_RUN_SECONDS: "300", KWOK_RUN: "300s"}\n')

DELAY_MS = 20000     # far beyond rmdir's 3 s: the order of events, not a clock, is asserted


def submitted(m, name):
    assert write_as_cp(m.path("submit", name + ".yaml"), SPEC) == 0, \
        m.read("submit", name, "error")
    wait_until(lambda: os.path.isdir(m.path("jobs", name)), message="jobs/" + name)


def deletes(c, name):
    """kubesim's log of the DELETEs of the job name: [(request, status)]."""
    return [(e["request"], e["status"])
            for e in c._control("GET", "/_sim/requests?since=0")["requests"]
            if e["request"].startswith("DELETE ") and ("/tfjobs/" + name) in e["request"]]


def start_rmdir(m, name):
    return subprocess.Popen(["rmdir", m.path("jobs", name)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_ls_jobs_answers_while_a_slow_delete_waits(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c, "request_timeout=90", allow=[r"rmdir default/slowdel: no answer within"])
    submitted(m, "slowdel")
    submitted(m, "bystander")
    c.fault(delay_ms=DELAY_MS)
    rmdir = start_rmdir(m, "slowdel")
    try:
        wait_until(lambda: deletes(c, "slowdel"), timeout=30, message="the DELETE sent")
        # the kernel holds jobs/ while rmdir runs: these wait for it
        listed = sorted(os.listdir(m.path("jobs")))
        new_name = os.path.exists(m.path("jobs", "never-was"))
        answered = [status for _, status in deletes(c, "slowdel")]
    finally:
        c.fault(delay_ms=0)
    assert answered == [None], \
        "ls jobs/ waited for the DELETE's answer (%s): rmdir held jobs/" % answered
    assert listed == ["bystander", "slowdel"] and not new_name, listed
    _, stderr = rmdir.communicate(timeout=120)
    assert rmdir.returncode == 1 and "Operation now in progress" in stderr, stderr
    info = m.read("jobs", "slowdel", "info")
    assert "\nDelete: asked at " in info and "has not answered yet" in info, info
    # the DELETE goes on, and once the server answers the job is gone
    wait_until(lambda: not os.path.exists(m.path("jobs", "slowdel")), timeout=120,
               message="jobs/slowdel gone once the delayed DELETE was answered")
    assert c.kubectl("get", "tfjob", "slowdel", check=False).returncode != 0
    wait_until(lambda: "deleted TFJob slowdel in namespace default (after its rmdir "
               "returned)" in m.log(), timeout=30, message="the daemon's line")
    assert os.path.isdir(m.path("jobs", "bystander"))


def test_a_delete_refused_after_rmdir_returned_is_told_in_info(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c, "request_timeout=90",
                allow=[r"rmdir default/refused: (no answer within|.*injected failure)"])
    submitted(m, "refused")
    c.fault(delay_ms=8000, fail_next=1, code=403, match=r"^DELETE ")
    try:
        rmdir = start_rmdir(m, "refused")
        _, stderr = rmdir.communicate(timeout=120)
        assert rmdir.returncode == 1 and "Operation now in progress" in stderr, stderr

        def failed_note():
            info = m.read("jobs", "refused", "info")
            return "failed at" in info and info
        info = wait_until(failed_note, timeout=60, message="info to say the delete failed")
    finally:
        c.fault(delay_ms=0)
    assert "\nDelete: asked at " in info, info
    assert "kubesim: injected failure (HTTP 403)" in info, info
    assert info.endswith("; the job was not deleted (rmdir again to retry)\n"), info
    assert c.kubectl_json("get", "tfjob", "refused")["metadata"]["name"] == "refused"
    assert "(after the rmdir returned; its info says so)" in m.log(), m.log()
    # another rmdir tries again, and this time the server says yes at once
    os.rmdir(m.path("jobs", "refused"))
    assert not os.path.exists(m.path("jobs", "refused"))
    assert c.kubectl("get", "tfjob", "refused", check=False).returncode != 0


def test_rmdir_with_kube_apiserver_stopped_leaves_ls_jobs_free(private_real_view, arenafs):
    """The real case: kube-apiserver stopped (SIGSTOP: connections are accepted by
    the kernel and never answered). On a cluster of its own, since the session's
    must not stop."""
    c = private_real_view
    ns = c.namespace
    m = arenafs(c, "namespace=" + ns, "request_timeout=15",
                allow=[r"rmdir %s/stopped: " % ns, r"cluster is unreachable|reachable again"])
    for name in ("stopped", "bystander"):
        jobspecs.create(c, jobspecs.tfjob(name, gpus=0, run=3600))
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) == ["bystander", "stopped"],
               timeout=60, message="both jobs listed")
    with open(os.path.join(c.dir, "ready")) as f:
        apiserver = int(f.read().split()[0])
    ended = re.compile(r"rmdir %s/stopped: (?!no answer within)" % re.escape(ns))
    os.kill(apiserver, signal.SIGSTOP)
    try:
        rmdir = start_rmdir(m, "stopped")
        wait_until(lambda: "rmdir %s/stopped: no answer within" % ns in m.log() or
                   rmdir.poll() is not None, timeout=60, message="rmdir to answer")
        listed = sorted(os.listdir(m.path("jobs")))
        new_name = os.path.exists(m.path("jobs", "never-was"))
        # ls answered before the DELETE ended (request_timeout): rmdir did not hold jobs/
        assert not ended.search(m.log()), m.log()
        assert listed == ["bystander", "stopped"] and not new_name, listed
        _, stderr = rmdir.communicate(timeout=60)
        assert rmdir.returncode == 1 and "Operation now in progress" in stderr, stderr
        assert "has not answered yet" in m.read("jobs", "stopped", "info")

        def failed_note():
            info = m.read("jobs", "stopped", "info")
            return "failed at" in info and info
        info = wait_until(failed_note, timeout=90, message="info to say the delete failed")
        assert "the job was not deleted (rmdir again to retry)" in info, info
    finally:
        os.kill(apiserver, signal.SIGCONT)
    # the server back (the bystander answers), another rmdir deletes it. The stopped
    # server may yet carry out the DELETE it had received before arenafs gave up
    # on it (as it would kubectl's after --request-timeout): then the job is gone.
    wait_until(lambda: c.kubectl("get", "tfjob", "bystander", check=False).returncode == 0,
               timeout=120, message="kube-apiserver answering again")
    if c.kubectl("get", "tfjob", "stopped", check=False).returncode == 0:
        try:
            os.rmdir(m.path("jobs", "stopped"))
        except FileNotFoundError:
            pass        # that DELETE went through just now
    wait_until(lambda: not os.path.exists(m.path("jobs", "stopped")), timeout=30,
               message="jobs/stopped gone")
    assert c.kubectl("get", "tfjob", "stopped", check=False).returncode != 0
