"""A broken or hostile server (issue 10): what it sends never breaks the tree.
kubesim's `store` fault puts objects in unvalidated, as such a server would
serve them, and `watch_send` puts a hostile server's lines on a watch; the
mount must list everything else, say what it left out, and recover."""

import json
import os
import socket
import subprocess
import time

from helpers import wait_until
import jobspecs
import tree_expect as te

HOSTILE = [
    ("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "../../etc"}}),
    ("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n" * 300}}),
    ("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": ".."}}),
    ("pods", {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": "a/b", "namespace": "default"},
              "spec": {"containers": [{"name": "c", "image": "x"}]}}),
    ("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "."}}),
]


def test_names_no_file_can_have_are_skipped_and_reported(kubesim, arenafs):
    c = kubesim("--nodes", "2", "--jobs", "3")
    m = arenafs(c, allow=[r"a name no file can have: not shown \(see cluster/health\)"])
    for resource, obj in HOSTILE:
        c.fault(store={"resource": resource, "object": obj})

    def reported():
        health = m.read("cluster", "health").splitlines()
        return len(health) == 2 and health
    health = wait_until(reported, timeout=20, message="cluster/health to report the names")
    assert health[0] == "ok"
    assert health[1].startswith("not shown: ") and "objects unfit for the tree (the last: " \
        in health[1] and health[1].endswith(", a name no file can have)"), health
    # every directory still lists, with exactly the objects a file can stand for
    assert sorted(os.listdir(m.path("nodes"))) == ["node-0", "node-1"]
    assert sorted(os.listdir(m.path("jobs"))) == \
        sorted(te.job_dir_names(te.all_jobs(c)))
    assert "." not in os.listdir(m.path("namespaces"))
    r = subprocess.run(["ls", "-lR", m.path()], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "etc" not in r.stdout and "n" * 300 not in r.stdout
    # and the daemon said so once, naming one
    wait_until(lambda: "a name no file can have: not shown (see cluster/health)" in m.log(),
               timeout=10, message="the daemon's warning")
    assert m.log().count("a name no file can have") == 1, m.log()


def test_a_pod_sent_on_the_nodes_watch_is_no_node_and_the_watch_recovers(kubesim, arenafs):
    """Issue 23: a lying server sends a Pod, with a resourceVersion that is no
    version, on the watch of nodes. It is not a node, the watch is not resumed
    from it (which every re-watch would be refused for), and the mount says so."""
    c = kubesim("--nodes", "2", "--jobs", "1")
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again",
                          r"of kind Pod: not shown \(see cluster/health\)"])
    lie = {"type": "ADDED", "object": {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod-x", "namespace": "default", "resourceVersion": "abc"},
        "spec": {"containers": [{"name": "c", "image": "x"}]}}}
    c.fault(watch_send={"match": r"^GET /api/v1/nodes\?(.*&)?watch=true",
                        "lines": [json.dumps(lie)]})
    c.fault(drop_watches=True)      # the next nodes watch is the one that lies
    seen = []

    def ok_and_said():
        seen[:] = [m.read("cluster", "health")]
        return seen[0].startswith("ok\nnot shown: ")
    try:
        wait_until(ok_and_said, timeout=60)
    except AssertionError:
        raise AssertionError("cluster/health not ok, saying what it left out, in 60 s: %r; "
                             "nodes/: %s" % (seen, sorted(os.listdir(m.path("nodes")))))
    health = seen[0]
    assert 'nodes "pod-x", of kind Pod' in health, health
    assert sorted(os.listdir(m.path("nodes"))) == ["node-0", "node-1"]
    # the nodes watch goes on: a node made now shows
    c.kubectl("create", "-f", "-", check=True, input=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-late"}}))
    wait_until(lambda: "node-late" in os.listdir(m.path("nodes")), timeout=30,
               message="a node made after the lie")
    wait_until(lambda: 'the server sent nodes "pod-x", of kind Pod: not shown' in m.log(),
               timeout=10, message="the daemon's warning")
    assert m.log().count("of kind Pod: not shown") == 1, m.log()


def test_a_mount_whose_watches_fail_from_the_start_says_the_cluster_is_unreachable(
        kubesim, arenafs):
    """Issue 23: the lists answer, so the mount starts, but every watch and
    every probe after it is refused. The daemon must say so, not only when the
    cluster was reachable first."""
    c = kubesim("--nodes", "1", "--jobs", "1")
    c.fault(fail_next=1 << 30, code=503, match=r"[?&]watch=true|[?&]limit=1(&|$)")
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again"])
    wait_until(lambda: "the cluster is unreachable" in m.log(), timeout=30,
               message="the daemon to say the cluster is unreachable")
    health = m.read("cluster", "health")
    assert health.startswith("disconnected since ") and "injected failure (HTTP 503)" in health, \
        health
    job = os.listdir(m.path("jobs"))[0]
    assert "Cluster: unreachable since" in m.read("jobs", job, "info")
    c.fault(reset=True)
    wait_until(lambda: m.read("cluster", "health") == "ok\n", timeout=90, interval=0.5,
               message="cluster/health ok once the watches answer")
    wait_until(lambda: "the cluster is reachable again" in m.log(), timeout=10,
               message="the daemon to say it is reachable again")
    assert m.log().count("the cluster is unreachable") == 1, m.log()


def test_a_cluster_restored_with_a_fresh_history_is_listed_anew(kubesim, arenafs):
    """An etcd restore: versions start again below what the mount has seen, and
    a job made after the backup is gone without a DELETED event. The watches'
    next start meets "Too large resource version": the mount lists again."""
    c = kubesim("--nodes", "1", "--jobs", "4")
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again"])
    jobs = sorted(te.job_dir_names(te.all_jobs(c)))
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) == jobs, timeout=30,
               message="the jobs listed")
    gone = jobs[0]
    c.fault(restore=["tfjobs.kubeflow.org/default/" + gone])
    assert gone not in c.kubectl("get", "tfjobs", "-o", "name").stdout
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) ==
               sorted(te.job_dir_names(te.all_jobs(c))), timeout=60,
               message="jobs/ to match the restored cluster")
    assert gone not in os.listdir(m.path("jobs"))
    # and it follows the restored cluster from there
    c.kubectl("delete", "tfjob", jobs[1])
    wait_until(lambda: jobs[1] not in os.listdir(m.path("jobs")), timeout=30,
               message="a delete after the restore")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def tree_matches_kubectl(c, m):
    """jobs/ and every job's status as kubectl's objects say (tree_expect)."""
    jobs = te.all_jobs(c)
    all_pods = te.pods(c)
    if sorted(os.listdir(m.path("jobs"))) != sorted(te.job_dir_names(jobs)):
        return False
    for j in jobs:
        want = te.job_status(j, te.pods_of_job(j, all_pods)) + "\n"
        try:
            if m.read("jobs", j["metadata"]["name"], "status") != want:
                return False
        except OSError:
            return False
    return True


def test_a_restarted_cluster_converges_and_tail_f_has_no_gap_or_repeat(kubesim, arenafs,
                                                                       tmp_path):
    """kube-apiserver restarted with its etcd (kubesim --keep-state): down for
    10 s under churn. The tree converges to exactly what kubectl shows, and a
    tail -f that was following a log goes on without a missing or repeated line."""
    c = kubesim("--nodes", "2", "--jobs", "6", "--speed", "4", "--keep-state",
                "--port", str(free_port()))
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again"])
    jobspecs.create(c, jobspecs.tfjob("steady", gpus=0, start=0, run=3600, lines=4))
    pod = "steady-worker-0"
    wait_until(lambda: os.path.isfile(m.path("jobs", "steady", "instances", pod, "logs")) and
               c.kubectl("logs", pod).stdout.count("\n") >= 3, timeout=60,
               message="steady's log")
    out = open(tmp_path / "tail.out", "wb")
    tail = subprocess.Popen(["tail", "-f", "-n", "+1", m.path("jobs", "steady", "logs")],
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        for i in range(4):                       # churn before ...
            jobspecs.create(c, jobspecs.tfjob("before-%d" % i, gpus=0, start=0, run=2))
        c.kubectl("delete", "tfjob", "before-0", "--wait=false")
        c.restart(down_seconds=10)
        for i in range(4):                       # ... and after
            jobspecs.create(c, jobspecs.tfjob("after-%d" % i, gpus=0, start=0, run=2))
        c.kubectl("delete", "tfjob", "before-1", "after-0", "--wait=false")
        wait_until(lambda: tree_matches_kubectl(c, m), timeout=90, interval=1,
                   message="the tree to match kubectl after the restart")
        before = len(c.kubectl("logs", pod).stdout)

        def caught_up():
            got = open(tmp_path / "tail.out", "rb").read().decode()
            return len(got) > before and got
        got = wait_until(caught_up, timeout=60, message="tail -f to go on after the restart")
    finally:
        tail.terminate()
        tail.wait(timeout=10)
        out.close()
    want = c.kubectl("logs", pod).stdout
    lines = got.splitlines(True)
    # no gap, no repeat: what tail printed is exactly the log's beginning
    assert want.startswith("".join(lines)), (len(got), len(want))
    assert len(set(lines)) == len(lines), "a repeated line"


def test_kube_apiserver_restarted_converges_and_tail_f_has_no_gap_or_repeat(private_real_view,
                                                                           arenafs, tmp_path):
    """The same on the real cluster: kube-apiserver down 10 s (etcd, the
    controllers, the scheduler, kwok and the operator run on) under churn. On a
    cluster of its own: the session's cluster stays undisturbed for later tests."""
    c = private_real_view
    m = arenafs(c, "namespace=" + c.namespace,
                allow=[r"cluster is unreachable|reachable again", r"log of "])
    jobspecs.create(c, jobspecs.tfjob("steady", gpus=0, run=3600))
    pod = "steady-worker-0"
    wait_until(lambda: m.read("jobs", "steady", "status") == "RUNNING\n" and
               c.kubectl("logs", pod, check=False).stdout.count("\n") >= 3, timeout=90,
               interval=1, message="steady running with a log")
    out = open(tmp_path / "tail.out", "wb")
    tail = subprocess.Popen(["tail", "-f", "-n", "+1", m.path("jobs", "steady", "logs")],
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        for i in range(3):
            jobspecs.create(c, jobspecs.tfjob("before-%d" % i, gpus=0, run=3))
        c.kubectl("delete", "tfjob", "before-0", "--wait=false")
        c.restart_apiserver(down_seconds=10)
        for i in range(3):
            jobspecs.create(c, jobspecs.tfjob("after-%d" % i, gpus=0, run=3))
        c.kubectl("delete", "tfjob", "before-1", "after-0", "--wait=false")
        wait_until(lambda: tree_matches_kubectl(c, m), timeout=180, interval=2,
                   message="the tree to match kubectl after kube-apiserver's restart")
        # the whole control plane came back: a job made after it runs to its end. The
        # training-operator's informers take their time to watch again (client-go's
        # backoff): it noticed a new TFJob 34 to 92 s after a restart here.
        wait_until(lambda: m.read("jobs", "after-1", "status") == "SUCCEEDED\n", timeout=300,
                   interval=1, message="a job made after the restart to succeed")
        time.sleep(2)
    finally:
        tail.terminate()
        tail.wait(timeout=10)
        out.close()
    got = open(tmp_path / "tail.out", "rb").read().decode()
    want = c.kubectl("logs", pod).stdout
    assert got and want.startswith(got), (got[-300:], want[-300:])
    assert len(set(got.splitlines())) == len(got.splitlines()), "a repeated line"


def test_rewritten_credentials_are_taken_without_a_remount(kubesim, arenafs, tmp_path):
    """Credentials rotated (the old token refused) and the kubeconfig rewritten
    with the new one, as `kubectl config set-credentials` would: the mount says
    it is cut off meanwhile, then takes the new token and catches up."""
    c = kubesim("--nodes", "1", "--jobs", "2")
    kc = tmp_path / "kubeconfig"
    kc.write_text(open(c.kubeconfig).read())
    m = arenafs(c, kubeconfig=str(kc),
                allow=[r"cluster is unreachable|reachable again", r"kubeconfig changed"])
    old = c.token()
    c.fault(rotate_token={"user": "admin", "token": "admin-rotated"})
    c.fault(drop_watches=True)
    # the test's own kubectl follows the rotation at once
    with open(c.kubeconfig) as f:
        own = f.read()
    with open(c.kubeconfig, "w") as f:
        f.write(own.replace(old, "admin-rotated"))
    c._config = None
    wait_until(lambda: m.read("cluster", "health").startswith("disconnected") and
               "Unauthorized" in m.read("cluster", "health"), timeout=30,
               message="cluster/health to say the credentials are refused")
    job = os.listdir(m.path("jobs"))[0]
    assert "Cluster: unreachable since" in m.read("jobs", job, "info")
    # a job made meanwhile: the mount cannot see it yet
    jobspecs.create(c, jobspecs.tfjob("meanwhile", gpus=0))
    assert "meanwhile" not in os.listdir(m.path("jobs"))
    text = kc.read_text()
    assert old in text
    kc.write_text(text.replace(old, "admin-rotated"))
    wait_until(lambda: m.read("cluster", "health") == "ok\n", timeout=60, interval=0.5,
               message="the mount to take the new token")
    wait_until(lambda: "meanwhile" in os.listdir(m.path("jobs")), timeout=30,
               message="the job made meanwhile")
    assert "Cluster: unreachable" not in m.read("jobs", job, "info")
    assert "presenting its new credentials" in m.log()
