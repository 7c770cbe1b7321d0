"""Logs as files: GNU tail -f prints lines as the job writes them and ends up with
exactly what kubectl logs shows; tail -F follows a restarted container to its new
instance; a finished container's log is complete and stable; a pending pod's
log is an empty file; and the daemon stops cleanly while tail -f holds a log
open (issue 4)."""

import os
import signal
import subprocess
import time

from helpers import wait_until
import jobspecs


def kubectl_logs(c, pod, container, previous=False):
    args = ["logs", pod, "-c", container] + (["--previous"] if previous else [])
    return c.kubectl(*args).stdout


def pod_phase(c, pod):
    return c.kubectl_json("get", "pod", pod)["status"].get("phase")


class Tail:
    """GNU tail in a subprocess, its output collected in a file."""

    def __init__(self, args, directory):
        self.out_path = os.path.join(str(directory), "tail-%d.out" % time.monotonic_ns())
        self.out = open(self.out_path, "wb")
        self.proc = subprocess.Popen(["tail"] + args, stdout=self.out, stderr=subprocess.STDOUT)

    def text(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=30)
        self.out.close()


def test_tail_f_prints_lines_as_written_and_ends_equal_to_kubectl_logs(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("chatty", start=1, run=6, lines=5))
    wait_until(lambda: pod_phase(c, "chatty-worker-0") == "Running", timeout=60,
               message="the worker to run")
    logs = m.path("jobs", "chatty", "logs")
    tail = Tail(["-n", "+1", "-s", "0.2", "-f", logs], tmp_path)
    try:
        first = wait_until(lambda: tail.text().count("\n"), message="tail to print a line")
        # while the container still runs, more lines arrive through the same open file
        wait_until(lambda: tail.text().count("\n") > first, timeout=30,
                   message="tail -f to print new lines")
        wait_until(lambda: pod_phase(c, "chatty-worker-0") == "Succeeded", timeout=60,
                   message="the worker to finish")
        full = kubectl_logs(c, "chatty-worker-0", "tensorflow")
        assert "training finished" in full
        wait_until(lambda: tail.text() == full, timeout=30,
                   message="tail -f output equal to kubectl logs")
    finally:
        tail.stop()
    # the same text through the instance's own file, and its size is the text's
    inst = m.path("jobs", "chatty", "instances", "chatty-worker-0", "logs")
    with open(inst) as f:
        assert f.read() == full
    assert os.stat(inst).st_size == len(full.encode())


def test_finished_log_is_complete_and_stable(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("done", start=1, run=2, lines=50))
    wait_until(lambda: pod_phase(c, "done-worker-0") == "Succeeded", timeout=60,
               message="the worker to finish")
    full = kubectl_logs(c, "done-worker-0", "tensorflow")
    assert full.count("\n") > 50
    path = m.path("jobs", "done", "logs")
    for _ in range(3):
        with open(path) as f:
            assert f.read() == full
        assert os.stat(path).st_size == len(full.encode())
    r = subprocess.run(["tail", "-n", "3", path], capture_output=True, text=True)
    assert r.stdout == "".join(full.splitlines(True)[-3:])
    r = subprocess.run(["grep", "-c", "loss=", path], capture_output=True, text=True)
    assert int(r.stdout) == full.count("loss=")


def test_pending_pods_log_is_an_empty_file(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "2")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("huge", gpus=64, run=60))
    wait_until(lambda: os.path.exists(m.path("jobs", "huge", "instances", "huge-worker-0")),
               timeout=30, message="the pending pod")
    for path in [m.path("jobs", "huge", "logs"),
                 m.path("jobs", "huge", "instances", "huge-worker-0", "logs")]:
        with open(path) as f:
            assert f.read() == ""
        assert os.stat(path).st_size == 0
    wait_until(lambda: "Unschedulable" in m.read("jobs", "huge", "info"), timeout=30,
               message="the reason in info")
    assert m.read("jobs", "huge", "status") == "PENDING\n"


def test_tail_F_follows_a_restarted_container(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.pytorchjob("crashy", restart_policy="OnFailure", backoff=3,
                                           start=1, run=3, exit_code=1, lines=5))
    pod = "crashy-master-0"
    wait_until(lambda: pod_phase(c, pod) == "Running", timeout=60, message="the master to run")
    inst = m.path("jobs", "crashy", "instances", pod)
    first_ino = os.stat(os.path.join(inst, "logs")).st_ino
    assert not os.path.exists(os.path.join(inst, "logs.previous"))
    tail = Tail(["-n", "+1", "-s", "0.2", "-F", os.path.join(inst, "logs")], tmp_path)
    try:
        def restarted():
            p = c.kubectl_json("get", "pod", pod)
            cs = p["status"].get("containerStatuses") or []
            return cs and cs[0].get("restartCount", 0) >= 1 and "running" in cs[0]["state"]
        wait_until(restarted, timeout=90, message="the container to restart")
        previous = kubectl_logs(c, pod, "pytorch", previous=True)
        assert "ERROR training failed" in previous
        wait_until(lambda: os.path.exists(os.path.join(inst, "logs.previous")), timeout=30,
                   message="logs.previous to appear")
        with open(os.path.join(inst, "logs.previous")) as f:
            assert f.read() == previous
        wait_until(lambda: os.stat(os.path.join(inst, "logs")).st_ino != first_ino, timeout=30,
                   message="logs to be a new file")
        # tail -F saw the first instance whole, then the new one from its start
        wait_until(lambda: "following new file" in tail.text(), timeout=60,
                   message="tail -F to reopen logs")
        text = tail.text()
        assert text.startswith(previous)
        after = text.split("following new file\n", 1)[1]
        current = kubectl_logs(c, pod, "pytorch")
        wait_until(lambda: tail.text().split("following new file\n", 1)[1].startswith(
            current.splitlines(True)[0]) if current else True, timeout=30,
            message="the new instance's lines")
        assert after == "" or current.startswith(after.splitlines(True)[0])
    finally:
        tail.stop()


def tail_on_a_running_log(c, m, tmp_path):
    """tail -f on a job's log that keeps growing, once it has printed."""
    jobspecs.create(c, jobspecs.tfjob("long", run=300, lines=5))
    wait_until(lambda: pod_phase(c, "long-worker-0") == "Running", timeout=60,
               message="the worker to run")
    tail = Tail(["-s", "0.2", "-f", m.path("jobs", "long", "logs")], tmp_path)
    wait_until(lambda: tail.text().count("\n") >= 2, message="tail to print")
    return tail


def test_sigterm_while_tail_f_holds_a_log_stops_cleanly(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    tail = tail_on_a_running_log(c, m, tmp_path)
    try:
        m.proc.send_signal(signal.SIGTERM)
        m.wait(timeout=30)
        assert not os.path.ismount(m.mnt)
        tail.proc.wait(timeout=30)        # its file went away: tail gives up
    finally:
        tail.stop()


def test_lazy_unmount_while_tail_f_holds_a_log_stops_cleanly(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    tail = tail_on_a_running_log(c, m, tmp_path)
    try:
        # plain fusermount3 -u refuses while a file is open; -z detaches at once
        r = subprocess.run(["fusermount3", "-u", "-z", m.mnt], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        m.wait(timeout=30)
        tail.proc.wait(timeout=30)
    finally:
        tail.stop()
