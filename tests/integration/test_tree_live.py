"""The tree follows the cluster: a job's status moves as kubesim moves it, GPUs
are counted as jobs start and end, deleted jobs leave, names shared by two kinds
become NAME.TYPE, and the last state keeps being served while the cluster is
unreachable (issue 4). Waits are generous and never timed asserts: a slow,
shared machine makes these tests slower, not wrong."""

import calendar
import os
import subprocess
import threading
import time

import pytest

from helpers import wait_until
import jobspecs
import tree_expect as te


def expected_status(c, kind, name):
    job = c.kubectl_json("get", kind, name)
    return te.job_status(job, te.pods_of_job(job, te.pods(c)))


class StatusRecorder:
    """Reads a status file every few milliseconds and keeps each new word."""

    def __init__(self, path):
        self.path = path
        self.words = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                with open(self.path) as f:
                    w = f.read()
            except OSError:
                w = None
            if w and (not self.words or self.words[-1] != w):
                self.words.append(w)
            time.sleep(0.02)

    def finish(self):
        self.stop = True
        self.thread.join()
        return self.words


def test_status_moves_pending_running_succeeded(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("steady", start=2, run=4))
    wait_until(lambda: os.path.exists(m.path("jobs", "steady", "status")),
               message="jobs/steady to appear")
    rec = StatusRecorder(m.path("jobs", "steady", "status"))
    wait_until(lambda: expected_status(c, "tfjob", "steady") == "RUNNING", timeout=60,
               message="kubectl to show steady running")
    wait_until(lambda: m.read("jobs", "steady", "status") == "RUNNING\n", timeout=10,
               message="status RUNNING soon after kubectl")
    wait_until(lambda: expected_status(c, "tfjob", "steady") == "SUCCEEDED", timeout=60,
               message="kubectl to show steady succeeded")
    wait_until(lambda: m.read("jobs", "steady", "status") == "SUCCEEDED\n", timeout=10,
               message="status SUCCEEDED soon after kubectl")
    assert rec.finish() == ["PENDING\n", "RUNNING\n", "SUCCEEDED\n"]
    info = m.read("jobs", "steady", "info")
    assert "Status:      SUCCEEDED" in info
    assert "EndTime:     N/A" not in info
    # st_mtime follows the content: the job's last transition, not the mount time
    job = c.kubectl_json("get", "tfjob", "steady")
    created = calendar.timegm(time.strptime(job["metadata"]["creationTimestamp"],
                                            "%Y-%m-%dT%H:%M:%SZ"))
    mtime = os.stat(m.path("jobs", "steady", "status")).st_mtime
    assert created < mtime <= time.time() + 1


def test_failing_job_ends_failed(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("doomed", start=1, run=2, exit_code=1))
    wait_until(lambda: expected_status(c, "tfjob", "doomed") == "FAILED", timeout=60,
               message="kubectl to show doomed failed")
    wait_until(lambda: m.read("jobs", "doomed", "status") == "FAILED\n", timeout=10,
               message="status FAILED")
    assert m.read("jobs", "doomed", "logs") == c.kubectl("logs", "doomed-worker-0").stdout
    if c.kind == "kubesim":
        assert "ERROR training failed" in m.read("jobs", "doomed", "logs")


def test_gpus_of_nodes_follow_jobs_starting_and_ending(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c)

    def agree():
        node = c.kubectl_json("get", "node", "node-0")
        pods = c.kubectl_json("get", "pods", "-A")["items"]
        a, t = te.node_gpus(node, pods)
        seen = m.read("nodes", "node-0", "gpus")
        return seen if seen == "%d/%d\n" % (a, t) else None
    assert wait_until(agree, message="node gpus before") == "0/4\n"
    jobspecs.create(c, jobspecs.tfjob("eater", workers=1, gpus=3, start=1, run=5))
    wait_until(lambda: agree() == "3/4\n", timeout=60, message="3 of 4 GPUs allocated")
    assert "3/4" in m.read("cluster", "gpus")
    wait_until(lambda: expected_status(c, "tfjob", "eater") == "SUCCEEDED", timeout=60,
               message="eater to finish")
    wait_until(lambda: agree() == "0/4\n", timeout=10, message="GPUs released")


def test_deleted_job_disappears(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("brief", run=60))
    wait_until(lambda: "brief" in os.listdir(m.path("jobs")), message="brief listed")
    ino = os.stat(m.path("jobs", "brief")).st_ino
    wait_until(lambda: os.listdir(m.path("jobs", "brief", "instances")) == ["brief-worker-0"],
               timeout=30, message="its pod listed")
    c.kubectl("delete", "tfjob", "brief", "--wait=false")
    wait_until(lambda: "brief" not in os.listdir(m.path("jobs")), timeout=30,
               message="brief gone from ls")
    wait_until(lambda: not os.path.exists(m.path("jobs", "brief")), message="brief gone")
    # created again: the same name, another object, another inode
    jobspecs.create(c, jobspecs.tfjob("brief", run=60))
    wait_until(lambda: os.path.exists(m.path("jobs", "brief", "status")), message="brief back")
    assert os.stat(m.path("jobs", "brief")).st_ino != ino


def test_gio_remove_deletes_the_job(any_cluster, arenafs):
    """A file manager's "Delete permanently" (Shift+Delete), `gio remove`, deletes
    the job as rmdir does; its Delete key, the trash, is test_tree_trash.py's."""
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("binned", run=60))
    wait_until(lambda: os.path.exists(m.path("jobs", "binned", "status")), message="binned")
    r = subprocess.run(["gio", "remove", m.path("jobs", "binned")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "binned" not in os.listdir(m.path("jobs"))
    wait_until(lambda: c.kubectl("get", "tfjob", "binned", check=False).returncode != 0,
               timeout=30, message="the TFJob deleted")


def test_two_kinds_with_one_name_appear_as_name_dot_type(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("twin", run=120))
    wait_until(lambda: "twin" in os.listdir(m.path("jobs")), message="twin plain")
    jobspecs.create(c, jobspecs.pytorchjob("twin", run=120))
    wait_until(lambda: sorted(n for n in os.listdir(m.path("jobs")) if n.startswith("twin")) ==
               ["twin.pytorchjob", "twin.tfjob"], message="both kinds listed as NAME.TYPE")
    # the kernel may hold the old name until the notifier's invalidation lands
    wait_until(lambda: not os.path.exists(m.path("jobs", "twin")), timeout=10,
               message="the plain name gone")
    assert m.read("jobs", "twin.tfjob", "type") == "tfjob\n"
    assert m.read("jobs", "twin.pytorchjob", "type") == "pytorchjob\n"
    wait_until(lambda: os.listdir(m.path("jobs", "twin.pytorchjob", "instances")) ==
               ["twin-master-0"], timeout=30, message="the PyTorchJob's own pod")
    c.kubectl("delete", "pytorchjob", "twin", "--wait=false")
    wait_until(lambda: [n for n in os.listdir(m.path("jobs")) if n.startswith("twin")] == ["twin"],
               timeout=30, message="the name plain again once one kind holds it")
    wait_until(lambda: not os.path.exists(m.path("jobs", "twin.tfjob")), timeout=10,
               message="the suffixed name gone")
    assert m.read("jobs", "twin", "type") == "tfjob\n"


def test_cluster_health_while_the_cluster_is_down(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--jobs", "3")
    m = arenafs(c, allow=[r"the cluster is unreachable", r"the cluster is reachable again"])
    assert m.read("cluster", "health") == "ok\n"
    before = {d: m.read("jobs", d, "status") for d in os.listdir(m.path("jobs"))}
    c.fault(down_seconds=5)
    health = wait_until(lambda: (lambda h: h if h.startswith("disconnected since ") else None)(
        m.read("cluster", "health")), timeout=30, message="health to say disconnected")
    assert health.endswith("\n") and health.count("\n") == 1
    assert ": " in health[len("disconnected since "):]
    # the last state keeps being served
    assert sorted(os.listdir(m.path("jobs"))) == sorted(before)
    for d in before:
        assert m.read("jobs", d, "status") in ("PENDING\n", "RUNNING\n", "SUCCEEDED\n",
                                               "FAILED\n")
    wait_until(lambda: m.read("cluster", "health") == "ok\n", timeout=90,
               message="health ok once the cluster is back")
    # and changes flow again
    jobspecs.create(c, jobspecs.tfjob("after", run=60))
    wait_until(lambda: "after" in os.listdir(m.path("jobs")), timeout=30,
               message="a job made after the outage")


def test_new_namespace_appears_under_namespaces(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    assert os.listdir(m.path("namespaces")) == []
    jobspecs.create(c, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-x"}})
    jobspecs.create(c, jobspecs.tfjob("exp", run=60), namespace="team-x")
    wait_until(lambda: os.listdir(m.path("namespaces")) == ["team-x"], timeout=30,
               message="team-x under namespaces/")
    wait_until(lambda: os.listdir(m.path("namespaces", "team-x", "jobs")) == ["exp"], timeout=30,
               message="its job")
    assert "exp" not in os.listdir(m.path("jobs"))
    assert m.read("namespaces", "team-x", "jobs", "exp", "type") == "tfjob\n"


def test_an_open_file_reads_the_version_it_was_opened_at(kubesim, arenafs):
    """Small files are snapshotted at open: a reader that reads in pieces across a
    change never gets a mix of two versions, whatever other readers do meanwhile."""
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("torn", start=1, run=2))
    wait_until(lambda: os.path.exists(m.path("jobs", "torn", "status")), message="jobs/torn")
    status = m.path("jobs", "torn", "status")
    fd = os.open(status, os.O_RDONLY)
    try:
        first = os.read(fd, 3)
        wait_until(lambda: m.read("jobs", "torn", "status") == "SUCCEEDED\n", timeout=60,
                   message="another reader to see SUCCEEDED")
        for _ in range(3):                     # other readers fill whatever cache there is
            assert m.read("jobs", "torn", "status") == "SUCCEEDED\n"
        rest = b""
        while True:
            piece = os.read(fd, 3)
            if not piece:
                break
            rest += piece
    finally:
        os.close(fd)
    seen = (first + rest).decode()
    assert seen in ("PENDING\n", "RUNNING\n"), seen


def test_cat_of_a_file_being_stat_ed_reads_its_text(kubesim, arenafs):
    """An open renders a file and takes its snapshot in one hold of the inode's lock.
    A large text (over 256 bytes) stays in its inode only while it is opened, so a stat
    (or the notifier) refreshing it between the two dropped it: the open then read
    nothing (info, which shows ages and is rendered at every stat) or, when the text had
    a size reported, the daemon crashed (a NULL text's length: job.json during a walk of
    2,000 changing jobs). attr_timeout=0 sends every stat to the daemon."""
    c = kubesim("--nodes", "1", "--jobs", "1")
    m = arenafs(c, "attr_timeout=0")
    info = m.path("jobs", "tfjob-00000", "info")
    assert os.stat(info).st_size > 256, "info must be a text the inode does not keep"
    stop = time.monotonic() + 8
    errors = []

    def stat_loop():
        try:
            while time.monotonic() < stop:
                os.stat(info)
        except OSError as e:
            errors.append(e)

    threads = [threading.Thread(target=stat_loop) for _ in range(2)]
    for t in threads:
        t.start()
    reads = empty = 0
    try:
        while time.monotonic() < stop:
            with open(info, "rb") as f:
                reads += 1
                if not f.read():
                    empty += 1
    finally:
        for t in threads:
            t.join()
    assert not errors, errors
    assert empty == 0, "%d of %d reads of info were empty" % (empty, reads)
    assert m.unexpected_output() == []


def test_inode_numbers_survive_the_kernel_forgetting_them(kubesim, arenafs):
    """st_ino of a path stays while its object lives, even after the kernel dropped
    its inodes (find -inum, rsync and tar compare st_ino between walks)."""
    if os.geteuid() != 0:
        pytest.skip("dropping the kernel's caches needs root")
    c = kubesim("--nodes", "1", "--jobs", "2")
    m = arenafs(c)
    paths = [m.path("jobs"), m.path("jobs", "tfjob-00000"),
             m.path("jobs", "tfjob-00000", "status"), m.path("README"), m.path("nodes", "node-0")]
    before = [os.stat(p).st_ino for p in paths]
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2\n")
    assert [os.stat(p).st_ino for p in paths] == before


def walk_files(root):
    """{path: (st_ino, text)} of every file but logs, and {path: d_ino} as readdir
    gave them, by a walk as find and rsync make it."""
    files, d_inos = {}, {}
    for top, dirs, names in os.walk(root):
        with os.scandir(top) as it:
            for e in it:
                d_inos[e.path] = e.inode()
        for n in names:
            p = os.path.join(top, n)
            if n.startswith("logs") or n in ("age", "events", "info"):
                continue                      # grow or show ages: not comparable twice
            with open(p, "rb") as f:
                files[p] = (os.stat(p).st_ino, f.read())
    return files, d_inos


def test_a_walk_leaves_at_most_max_inodes_and_the_tree_reads_the_same(kubesim, arenafs):
    """The kernel keeps every inode a walk showed it; beyond max_inodes the daemon
    makes it forget the least recently used ones, and what is read afterwards, looked
    up again, is the same text under the same inode numbers. readdir's d_ino is the
    st_ino a stat then gives."""
    c = kubesim("--nodes", "2", "--jobs", "15")
    m = arenafs(c, "max_inodes=60")
    first, d_inos = walk_files(m.mnt)
    assert len(first) > 200, "the walk read %d files" % len(first)
    for p, (ino, _) in first.items():
        assert d_inos[p] == ino, "%s: d_ino %d, st_ino %d" % (p, d_inos[p], ino)
    # about the limit: submit/'s entries are never forgotten this way
    wait_until(lambda: os.statvfs(m.mnt).f_files <= 62, timeout=30,
               message="the daemon back to about 60 inodes (df -i)")
    stable = {p: v for p, v in first.items()
              if p.endswith(("/type", "/spec.yaml", "/README", "/cluster/context"))}
    assert len(stable) > 30
    again, _ = walk_files(m.mnt)
    for p, v in stable.items():
        assert again[p] == v, "%s read differently after its inode was forgotten" % p
    assert m.unexpected_output() == []
