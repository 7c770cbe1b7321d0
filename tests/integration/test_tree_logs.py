"""Logs as files: GNU tail -f prints lines as the job writes them and ends up with
exactly what kubectl logs shows; tail -F follows a restarted container to its new
instance; a finished container's log is complete and stable; a pending pod's
log is an empty file; and the daemon stops cleanly while tail -f holds a log
open (issue 4). Sizes and mtimes (docs/tree.md, "Size and mtime of a log"): stat
asks the cluster nothing, a log's size is known once it was read, a finished
one's mtime is its container's finishedAt, and tar archives a read log whole."""

import calendar
import io
import os
import signal
import subprocess
import tarfile
import time

from helpers import wait_until
from k8scache_helpers import brief, last_request, sim_requests
import jobspecs


def kubectl_logs(c, pod, container, previous=False):
    args = ["logs", pod, "-c", container] + (["--previous"] if previous else [])
    return c.kubectl(*args).stdout


def pod_phase(c, pod):
    return c.kubectl_json("get", "pod", pod)["status"].get("phase")


def finished_at(c, pod):
    """The pod's first container's finishedAt, as kubectl shows it (Unix seconds)."""
    cs = c.kubectl_json("get", "pod", pod)["status"]["containerStatuses"][0]
    return calendar.timegm(time.strptime(cs["state"]["terminated"]["finishedAt"],
                                         "%Y-%m-%dT%H:%M:%SZ"))


def mount_with_job(c, arenafs, manifest, pod, phase, *options):
    """The cluster mounted (with options), running manifest, once pod has reached phase."""
    m = arenafs(c, *options)
    jobspecs.create(c, manifest)
    wait_until(lambda: pod_phase(c, pod) == phase, timeout=60,
               message="%s to be %s" % (pod, phase))
    return c, m


def log_requests(c, since):
    """arenafs's GETs of pods/POD/log after request number since."""
    return [e for e in sim_requests(c, since) if e["path"].endswith("/log")]


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
    c, m = mount_with_job(kubesim("--nodes", "1"), arenafs, jobspecs.tfjob("chatty", start=1, run=6, lines=5),
                          "chatty-worker-0", "Running")
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
    # followed live, the log last grew before its container finished
    end = finished_at(c, "chatty-worker-0")
    for path in (logs, inst):
        st = os.stat(path)
        assert st.st_mtime <= end + 1, (path, st.st_mtime, end)


def test_finished_log_is_complete_and_stable(any_cluster, arenafs):
    c, m = mount_with_job(any_cluster, arenafs, jobspecs.tfjob("done", start=1, run=2, lines=50),
                          "done-worker-0", "Succeeded")
    full = kubectl_logs(c, "done-worker-0", "tensorflow")
    assert full
    if c.kind == "kubesim":
        assert full.count("\n") > 50              # 2 s at 50 lines a second, and more
    path = m.path("jobs", "done", "logs")
    for _ in range(3):
        with open(path) as f:
            assert f.read() == full
        assert os.stat(path).st_size == len(full.encode())
    r = subprocess.run(["tail", "-n", "3", path], capture_output=True, text=True)
    assert r.stdout == "".join(full.splitlines(True)[-3:])
    r = subprocess.run(["grep", "-c", "loss", path], capture_output=True, text=True)
    assert int(r.stdout) == sum("loss" in line for line in full.splitlines()) > 0


def test_finished_log_size_is_known_once_read_and_mtime_is_finishedAt(any_cluster, arenafs):
    pod = "ended-worker-0"
    # a log that is not kept (keep_logs=0); a kept one's size is known at once
    # (test_tree_logs_kept.py)
    c, m = mount_with_job(any_cluster, arenafs, jobspecs.tfjob("ended", start=1, run=2, lines=20),
                          pod, "Succeeded", "keep_logs=0")
    end = finished_at(c, pod)
    # read well after the end, so that a fetch time would show in st_mtime
    wait_until(lambda: time.time() > end + 2.5, message="2.5 s past finishedAt")
    full = kubectl_logs(c, pod, "tensorflow").encode()
    assert len(full) > 0
    job_log = m.path("jobs", "ended", "logs")
    inst_log = m.path("jobs", "ended", "instances", pod, "logs")

    # never read: size unknown (0), mtime the container's finishedAt
    for path in (job_log, inst_log):
        st = os.stat(path)
        assert (st.st_size, st.st_mtime) == (0, end), path

    with open(job_log, "rb") as f:
        assert os.fstat(f.fileno()).st_size == len(full)   # open waited for the whole log
        assert f.read() == full
    # known once read, through both names of the instance (the other name's cached
    # attributes are invalidated by the notifier); mtime still finishedAt
    for path in (job_log, inst_log):
        wait_until(lambda: os.stat(path).st_size == len(full), timeout=5,
                   message="st_size of %s to be %d" % (path, len(full)))
        st = os.stat(path)
        assert end - 1 <= st.st_mtime <= end + 1, (path, st.st_mtime, end)

    # opened again, the size is the whole log at once, and read returns exactly it
    with open(inst_log, "rb") as f:
        assert os.fstat(f.fileno()).st_size == len(full)
        assert f.read() == full

    # tar trusts st_size: a read log is archived whole, without "file changed"
    r = subprocess.run(["tar", "cf", "-", "-C", m.mnt, "jobs/ended/logs",
                        "jobs/ended/instances/%s/logs" % pod], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
        for member in tar.getmembers():
            assert tar.extractfile(member).read() == full, member.name
            assert member.mtime == end, member.name


def test_ls_l_and_du_fetch_no_log(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "1")
    m = arenafs(c, "keep_logs=0")     # kept logs cost no request at all (test_tree_logs_kept.py)
    for name in ("quiet-a", "quiet-b", "quiet-c"):
        jobspecs.create(c, jobspecs.tfjob(name, workers=2, start=1, run=1, lines=5))
    pods = ["quiet-%s-worker-%d" % (x, i) for x in "abc" for i in range(2)]
    wait_until(lambda: all(pod_phase(c, p) == "Succeeded" for p in pods), timeout=60,
               message="the workers to finish")
    wait_until(lambda: all(os.path.isdir(m.path("jobs", "quiet-a", "instances", p))
                           for p in pods[:2]), message="the pods in the tree")
    since = last_request(c)
    for cmd in (["ls", "-lR", m.path("jobs")], ["du", "-ab", m.path("jobs")],
                ["find", m.path("jobs"), "-name", "logs", "-size", "+0"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, (cmd, r.stderr)
    assert log_requests(c, since) == [], brief(log_requests(c, since))
    # reading one log is one request
    m.read("jobs", "quiet-b", "logs")
    assert len(log_requests(c, since)) == 1, brief(log_requests(c, since))
    # rsync sizes a file by fstat after open, and open waits for a finished log: an
    # unread log (st_size 0) is copied whole
    pod = "quiet-c-worker-1"
    src = m.path("jobs", "quiet-c", "instances", pod)
    assert os.stat(os.path.join(src, "logs")).st_size == 0
    r = subprocess.run(["rsync", "-a", src + "/", str(tmp_path / "copy")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    full = kubectl_logs(c, pod, "tensorflow").encode()
    assert full and (tmp_path / "copy" / "logs").read_bytes() == full


def test_running_log_keeps_the_size_read_after_close(kubesim, arenafs):
    c, m = mount_with_job(kubesim("--nodes", "1"), arenafs, jobspecs.tfjob("steady", start=1, run=120, lines=5),
                          "steady-worker-0", "Running")
    path = m.path("jobs", "steady", "logs")
    assert os.stat(path).st_size == 0                      # not read yet
    wait_until(lambda: kubectl_logs(c, "steady-worker-0", "tensorflow").count("\n") >= 3,
               message="a few lines")
    with open(path, "rb") as f:
        got = f.read()
    assert got
    after = os.stat(path)
    # what was read stays (the stream is closed: the log's growth is no longer seen)
    assert after.st_size >= len(got)
    time.sleep(1.5)
    later = os.stat(path)
    assert (later.st_size, later.st_mtime) == (after.st_size, after.st_mtime)
    assert later.st_mtime <= time.time()
    current = kubectl_logs(c, "steady-worker-0", "tensorflow").encode()
    assert current.startswith(got) and len(current) >= later.st_size
    # opened again it catches up, and what it reports is what it reads
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        again = f.read(size)
    assert size > len(got) and len(again) == size and again.startswith(got)


def test_cat_of_a_chatty_running_log_ends_with_the_log_so_far(kubesim, arenafs):
    """A running container that never falls quiet (a progress bar: 200 lines a
    second) still gives `cat` an end: the log up to about the open, never a
    follow that lasts as long as the job. The stream knows when it has caught up
    by the lines' timestamps (docs/tree.md, "Logs")."""
    c, m = mount_with_job(kubesim("--nodes", "1"), arenafs,
                          jobspecs.tfjob("chatty", gpus=0, start=1, run=3600, lines=200),
                          "chatty-worker-0", "Running")
    wait_until(lambda: kubectl_logs(c, "chatty-worker-0", "tensorflow").count("\n") >= 200,
               message="a second of lines")
    for _ in range(2):      # the first open starts the stream; the second joins it
        before = kubectl_logs(c, "chatty-worker-0", "tensorflow")
        # a hang would be a cat that follows the job: it runs for an hour
        out = subprocess.run(["cat", m.path("jobs", "chatty", "logs")], capture_output=True,
                             text=True, timeout=60).stdout
        after = kubectl_logs(c, "chatty-worker-0", "tensorflow")
        assert out.startswith(before) and after.startswith(out), (len(before), len(out))
        assert out.endswith("\n")


def test_pending_pods_log_is_an_empty_file(any_cluster, arenafs):
    c = any_cluster
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
    pod = "crashy-master-0"
    c, m = mount_with_job(kubesim("--nodes", "1"), arenafs,
                          jobspecs.pytorchjob("crashy", restart_policy="OnFailure", backoff=3,
                                              start=1, run=3, exit_code=1, lines=5),
                          pod, "Running")
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


def test_sigterm_while_tail_f_holds_a_log_stops_cleanly(any_cluster, arenafs, tmp_path):
    c = any_cluster
    m = arenafs(c)
    tail = tail_on_a_running_log(c, m, tmp_path)
    try:
        m.proc.send_signal(signal.SIGTERM)
        m.wait(timeout=30)
        assert not os.path.ismount(m.mnt)
        tail.proc.wait(timeout=30)        # its file went away: tail gives up
    finally:
        tail.stop()


def test_lazy_unmount_while_tail_f_holds_a_log_stops_cleanly(any_cluster, arenafs, tmp_path):
    c = any_cluster
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
