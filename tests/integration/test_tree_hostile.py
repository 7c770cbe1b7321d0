"""A broken or hostile server (issue 10): what it sends never breaks the tree.
kubesim's `store` fault puts objects in unvalidated, as such a server would
serve them; the mount must list everything else and say what it left out."""

import os
import subprocess

from helpers import wait_until
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
    m = arenafs(c, allow=[r"a name no file can have: not shown"])
    for resource, obj in HOSTILE:
        c.fault(store={"resource": resource, "object": obj})

    def reported():
        health = m.read("cluster", "health").splitlines()
        return len(health) == 2 and health
    health = wait_until(reported, timeout=20, message="cluster/health to report the names")
    assert health[0] == "ok"
    assert health[1].startswith("not shown: ") and \
        "objects whose names cannot be file names (the last: " in health[1], health
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
