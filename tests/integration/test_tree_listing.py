"""The tree as ls, find, stat, cat, grep -r, du and os.walk see it, compared with
what kubectl says about the same objects (issue 4). One lively kubesim cluster
(--demo: every kind, a TensorBoard, another namespace, plus a fleet of TFJobs)
and one mount serve the whole module; jobs move while the tests run, so every
comparison is retried until both sides agree (helpers.wait_until). The last two
tests make their own clusters; NAME.TYPE and namespaces coming and going runs on
the real cluster too (any_cluster)."""

import calendar
import json
import os
import stat
import subprocess
import time

import pytest

from helpers import first_line, wait_until
import jobspecs
import tree_expect as te

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))


def places():
    """fs/'s table of places as tests/tools/places prints it: {path: set of flags}."""
    tool = os.path.join(TOOLS, "places")
    assert os.access(tool, os.X_OK), "%s is missing: make unit builds it" % tool
    out = subprocess.run([tool], check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return {path: set(flags.split(",")) - {"-"} for path, flags in rows}


def files_of(directory):
    """The fixed names of a directory (e.g. "jobs/NAME/"), those that come and go
    apart: (always, sometimes)."""
    always, sometimes = set(), set()
    for path, flags in places().items():
        rest = path[len(directory):] if path.startswith(directory) else ""
        name = rest.rstrip("/")
        if not name or "/" in name or name.isupper():
            continue        # not a child, or named after an object (POD, NODE)
        (sometimes if "optional" in flags else always).add(name)
    return always, sometimes


@pytest.fixture(scope="module")
def env(kubesim_module, arenafs_module):
    c = kubesim_module("--demo", "--jobs", "12", "--seed", "3")
    m = arenafs_module(c)
    return c, m


def listdir(path):
    """Entries in readdir order (os.listdir keeps it)."""
    return os.listdir(path)


# The exact listings here (the root, cluster/, a pod's, a node's, namespaces/NS/) are the
# contract users script against, written by hand rather than read from the table they
# test: a new file of those directories adds its name (docs/architecture.md's recipe).
def test_ls_root_shows_the_tree(env):
    c, m = env
    assert listdir(m.mnt) == ["README", "check", "cluster", "data", "jobs", "namespaces",
                             "nodes", "queues", "runtimes", "submit"]
    assert listdir(m.path("cluster")) == ["context", "gpus", "health", "list", "list-all",
                                          "list-all.json", "list-all.yaml", "list.json",
                                          "list.yaml", "queues", "queues.json",
                                          "queues.yaml", "top", "top-job",
                                          "top-job.json", "top-job.yaml", "top.json",
                                          "top.yaml"]
    assert listdir(m.path("submit")) == []
    assert m.read("README").startswith("arenafs: ")


def test_ls_jobs_lists_every_job_of_any_kind_newest_first(env):
    c, m = env

    wait_until(lambda: listdir(m.path("jobs")) ==
               te.listing_order(te.job_dir_names(te.all_jobs(c))),
               message="jobs/ listing equal to kubectl's jobs, newest first")
    kinds = {j["kind"] for j in te.all_jobs(c)}
    assert {"TFJob", "PyTorchJob", "MPIJob", "TrainJob"} <= kinds


def test_tree_md_lists_every_place():
    """docs/tree.md's layout names every place of the table (a new file's row needs
    its line there)."""
    with open(os.path.join(ROOT, "docs", "tree.md")) as f:
        text = f.read()
    layout = text[text.index("## The layout"):text.index("## Order of each directory")]
    listed = [line.split()[0] for line in layout.splitlines() if line.startswith("    ")]
    missing = [p for p in places() if not any(l.startswith(p.rstrip("/")) for l in listed)]
    assert not missing, "docs/tree.md's layout does not list %s" % missing


def test_job_directories_hold_their_files(env):
    c, m = env
    base, sometimes = files_of("jobs/NAME/")
    assert {"status", "logs", "instances"} <= base and "tensorboard_url" in sometimes

    def agree():
        services = c.kubectl_json("get", "services")["items"]
        nodes = c.kubectl_json("get", "nodes")["items"]
        for d, job in te.job_dir_names(te.all_jobs(c)).items():
            want = set(base)
            if te.tensorboard_url(job, services, nodes):
                want.add("tensorboard_url")
            if set(listdir(m.path("jobs", d))) != want:
                return False
        return True
    wait_until(agree, message="every job directory holding its files")
    assert os.path.exists(m.path("jobs", "mnist", "tensorboard_url"))
    assert not os.path.exists(m.path("jobs", "bert-finetune", "tensorboard_url"))


def test_status_of_every_job_agrees_with_kubectl(env):
    c, m = env
    # the demo's own jobs may all have finished by now on a slow machine: one that
    # runs for the module's lifetime, so that RUNNING is among the words compared
    jobspecs.create(c, jobspecs.tfjob("listing-running", gpus=0, run=100000))

    def compare():
        jobs = te.job_dir_names(te.all_jobs(c))
        all_pods = te.pods(c)
        seen = {d: m.read("jobs", d, "status") for d in jobs}
        want = {d: te.job_status(j, te.pods_of_job(j, all_pods)) + "\n" for d, j in jobs.items()}
        return (seen == want and want.get("listing-running") == "RUNNING\n") or None
    wait_until(compare, timeout=60, message="status files equal to Arena's mapping of kubectl's view")
    words = {m.read("jobs", d, "status") for d in listdir(m.path("jobs"))}
    assert words <= {"PENDING\n", "RUNNING\n", "SUCCEEDED\n", "FAILED\n", "QUEUING\n"}
    assert "SUCCEEDED\n" in words and "RUNNING\n" in words


def test_type_and_job_json_are_the_object(env):
    c, m = env
    for d, job in te.job_dir_names(te.all_jobs(c)).items():
        assert m.read("jobs", d, "type") == te.TYPE_OF_KIND[job["kind"]] + "\n"
        obj = json.loads(m.read("jobs", d, "job.json"))
        assert obj["kind"] == job["kind"]
        assert obj["metadata"]["uid"] == job["metadata"]["uid"]
        assert obj["metadata"]["name"] == job["metadata"]["name"]
        assert obj["spec"] == job["spec"]
        assert "managedFields" not in obj["metadata"]


def test_instances_are_the_jobs_pods(env):
    c, m = env

    def agree():
        all_pods = te.pods(c)
        for d, job in te.job_dir_names(te.all_jobs(c)).items():
            want = sorted(p["metadata"]["name"] for p in te.pods_of_job(job, all_pods))
            if listdir(m.path("jobs", d, "instances")) != want:
                return False
            for p in te.pods_of_job(job, all_pods):
                inst = m.path("jobs", d, "instances", p["metadata"]["name"])
                node = p["spec"].get("nodeName") or "N/A"
                ip = p["status"].get("podIP") or "N/A"
                if m.read(inst, "node") != node + "\n" or m.read(inst, "ip") != ip + "\n":
                    return False
                if first_line(m.read(inst, "gpus")) != "%d\n" % te.pod_gpus(p):
                    return False
        return True
    wait_until(agree, timeout=60, message="instances/ equal to the jobs' pods")


def regular_files(top):
    for dirpath, dirnames, filenames in os.walk(top):
        for f in filenames:
            yield os.path.join(dirpath, f)


SUSPENDABLE = {"tfjob", "pytorchjob", "mpijob", "xgboostjob", "paddlejob", "jaxjob", "trainjob"}


def test_stat_sizes_are_what_read_returns(env):
    c, m = env
    checked = 0
    for path in regular_files(m.mnt):
        if os.path.basename(path).startswith("logs"):
            continue            # growing files: tests/integration/test_tree_logs.py
        for attempt in range(5):
            st = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
            if st.st_size == len(data):
                break           # else the object changed between stat and read: again
        assert st.st_size == len(data), path
        # a job's suspend is the one file that may be written, for the kinds that
        # can be suspended (docs/tree.md)
        mode = 0o444
        if os.path.basename(path) == "suspend":
            with open(os.path.join(os.path.dirname(path), "type")) as f:
                if f.read().strip() in SUSPENDABLE:
                    mode = 0o644
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == mode, path
        assert st.st_blocks == (st.st_size + 511) // 512, path
        assert st.st_nlink == 1
        assert st.st_mtime > 0
        checked += 1
    assert checked > 100
    for dirpath, dirnames, filenames in os.walk(m.mnt):
        st = os.stat(dirpath)
        assert stat.S_ISDIR(st.st_mode), dirpath


def test_ls_l_lists_every_entry(env):
    c, m = env
    r = subprocess.run(["ls", "-l", m.path("jobs", "mnist-v1")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()[1:]          # "total N" first
    names = sorted(line.split()[-1] for line in lines)
    assert names == sorted(listdir(m.path("jobs", "mnist-v1")))
    for line in lines:
        fields = line.split()
        name, size = fields[-1], int(fields[4])
        if name != "instances":
            assert size == os.stat(m.path("jobs", "mnist-v1", name)).st_size, line
            assert fields[0] == ("-rw-r--r--" if name == "suspend" else "-r--r--r--"), line
        else:
            assert fields[0].startswith("dr-x"), line


def test_find_lists_what_os_walk_walks(env):
    c, m = env
    stable = [m.path("cluster"), m.path("nodes"), m.path("jobs", "mnist-v1")]
    r = subprocess.run(["find"] + stable, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    walked = set()
    for top in stable:
        for dirpath, dirnames, filenames in os.walk(top):
            walked.add(dirpath)
            walked.update(os.path.join(dirpath, n) for n in dirnames + filenames)
    assert set(r.stdout.split("\n")) - {""} == walked
    r = subprocess.run(["find", m.path("jobs"), "-name", "status", "-type", "f"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.split()) > len(listdir(m.path("jobs")))   # jobs' and pods'


def test_grep_r_finds_the_running_jobs(env):
    c, m = env

    def agree():
        jobs = te.job_dir_names(te.all_jobs(c))
        all_pods = te.pods(c)
        want = {d for d, j in jobs.items()
                if te.job_status(j, te.pods_of_job(j, all_pods)) == "RUNNING"}
        r = subprocess.run(["grep", "-rlx", "--include=status", "RUNNING", m.path("jobs")],
                           capture_output=True, text=True)
        seen = {os.path.relpath(p, m.path("jobs")).split("/")[0] for p in r.stdout.split()
                if p.count("/") - m.path("jobs").count("/") == 2}   # jobs/NAME/status only
        return seen == want and r.returncode in (0, 1)
    wait_until(agree, timeout=60, message="grep -r over status files matching kubectl")


def test_du_counts_apparent_sizes(env):
    c, m = env
    top = m.path("jobs", "mnist-v1")
    r = subprocess.run(["du", "-ab", top], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sizes = {path: int(size) for size, path in (line.split("\t") for line in r.stdout.splitlines())}
    for path in regular_files(top):
        if not os.path.basename(path).startswith("logs"):
            assert sizes[path] == os.stat(path).st_size, path
    r = subprocess.run(["du", "-s", m.mnt], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_nodes_gpus_agree_with_kubectl(env):
    c, m = env

    def agree():
        nodes = c.kubectl_json("get", "nodes")["items"]
        all_pods = c.kubectl_json("get", "pods", "-A")["items"]
        if sorted(listdir(m.path("nodes"))) != sorted(n["metadata"]["name"] for n in nodes):
            return False
        for n in nodes:
            a, t = te.node_gpus(n, all_pods)
            if m.read("nodes", n["metadata"]["name"], "gpus") != "%d/%d\n" % (a, t):
                return False
        return True
    wait_until(agree, timeout=60, message="nodes/*/gpus equal to allocated/total from kubectl")
    assert listdir(m.path("nodes", "node-0")) == ["gpus", "info", "ip", "role", "status"]
    node = c.kubectl_json("get", "node", "node-0")
    assert m.read("nodes", "node-0", "ip") == te.internal_ip(node) + "\n"
    assert m.read("nodes", "node-0", "status") == "Ready\n"


def test_tensorboard_url_agrees_with_kubectl(env):
    c, m = env
    job = c.kubectl_json("get", "tfjob", "mnist")
    services = c.kubectl_json("get", "services")["items"]
    nodes = c.kubectl_json("get", "nodes")["items"]
    url = te.tensorboard_url(job, services, nodes)
    assert url
    assert m.read("jobs", "mnist", "tensorboard_url") == url + "\n"
    assert url in m.read("jobs", "mnist", "info")


def test_other_namespaces_are_under_namespaces(env):
    c, m = env
    assert listdir(m.path("namespaces")) == ["research"]
    assert listdir(m.path("namespaces", "research")) == ["check", "data", "jobs", "queues",
                                                         "submit"]
    names = te.job_dir_names(te.all_jobs(c, "research"))
    assert listdir(m.path("namespaces", "research", "jobs")) == te.listing_order(names)
    job = c.kubectl_json("get", "tfjob", "gan", "-n", "research")
    pods = te.pods(c, "research")
    wait_until(lambda: m.read("namespaces", "research", "jobs", "gan", "status") ==
               te.job_status(job, te.pods_of_job(job, pods)) + "\n",
               message="research/gan status")
    assert "gan" not in listdir(m.path("jobs"))


def test_cluster_files(env):
    c, m = env
    ctx = m.read("cluster", "context")
    assert "Server:      %s\n" % c.url in ctx
    assert c.token() not in ctx
    assert m.read("cluster", "health") == "ok\n"
    top = m.read("cluster", "top")
    for n in listdir(m.path("nodes")):
        assert n in top
    assert m.read("cluster", "gpus").startswith("Allocated/Total GPUs In Cluster: ")


def test_missing_names_are_enoent_not_errors(env):
    c, m = env
    for p in ["nope", "jobs/nope", "jobs/mnist/nope", "nodes/nope", "namespaces/nope",
              "jobs/mnist/instances/nope", "cluster/nope", ".Trash-1000", "jobs/mnist.tfjob"]:
        assert not os.path.exists(m.path(p)), p
    with pytest.raises(FileNotFoundError):
        open(m.path("jobs", "nope", "status"))
    with pytest.raises(NotADirectoryError):
        os.listdir(m.path("README"))


# ---- docs/tree.md: order, mtimes outside jobs, NAME.TYPE, namespaces and RBAC ----

def unix_time(rfc3339):
    """"2026-12-02T10:14:29Z" as Unix seconds."""
    return calendar.timegm(time.strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ"))


def test_directories_list_in_the_documented_order(env):
    c, m = env
    nodes = listdir(m.path("nodes"))
    assert nodes == sorted(nodes, key=lambda n: n.encode())
    assert listdir(m.path("namespaces")) == sorted(listdir(m.path("namespaces")))
    for d in listdir(m.path("jobs")):
        pods = listdir(m.path("jobs", d, "instances"))
        assert pods == sorted(pods, key=lambda n: n.encode()), d
    job = listdir(m.path("jobs", "mnist"))
    assert job == sorted(job, key=lambda n: n.encode())
    pod = listdir(m.path("jobs", "mnist-v1", "instances", "mnist-v1-chief-0"))
    assert pod == ["attempts", "gpus", "ip", "logs", "node", "status"]
    assert listdir(m.path("nodes", nodes[0])) == ["gpus", "info", "ip", "role", "status"]


def test_mtimes_outside_jobs(env):
    c, m = env
    mount_time = os.stat(m.mnt).st_mtime
    for p in ("README", "cluster", os.path.join("cluster", "context")):
        assert os.stat(m.path(p)).st_mtime == mount_time, p
    now = time.time()
    assert mount_time <= os.stat(m.path("submit")).st_mtime <= now   # as a local directory
    for n in c.kubectl_json("get", "nodes")["items"]:
        created = unix_time(n["metadata"]["creationTimestamp"])
        name = n["metadata"]["name"]
        for f in ("status", "ip", "role"):
            assert os.stat(m.path("nodes", name, f)).st_mtime == created, (name, f)
        assert os.stat(m.path("nodes", name)).st_mtime == created, name
        assert created <= os.stat(m.path("nodes", name, "gpus")).st_mtime <= now, name
    for f in ("top", "gpus", "list", "list-all", "top-job"):
        assert mount_time <= os.stat(m.path("cluster", f)).st_mtime <= now, f
    for d in ("jobs", "nodes", "namespaces"):
        assert mount_time - 5 <= os.stat(m.path(d)).st_mtime <= now, d


def other_namespaces_with_jobs(c):
    """The namespaces besides the mount's own that hold a training job, as kubectl
    lists them (on the real cluster, other tests' namespaces may still hold some)."""
    found = set()
    for resource in te.served_resources(c):
        found |= {j["metadata"]["namespace"]
                  for j in c.kubectl_json("get", resource, "-A")["items"]}
    return sorted(found - {c.namespace})


def test_two_kinds_with_one_name_are_name_dot_type_and_namespaces_come_and_go(any_cluster,
                                                                             arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("twin", run=300))
    wait_until(lambda: "twin" in listdir(m.path("jobs")), message="jobs/twin")
    assert m.read("jobs", "twin", "type") == "tfjob\n"
    jobspecs.create(c, jobspecs.pytorchjob("twin", run=300))
    wait_until(lambda: sorted(listdir(m.path("jobs"))) == ["twin.pytorchjob", "twin.tfjob"],
               message="both kinds as NAME.TYPE")
    assert not os.path.exists(m.path("jobs", "twin"))
    assert m.read("jobs", "twin.pytorchjob", "type") == "pytorchjob\n"
    assert m.read("jobs", "twin.tfjob", "type") == "tfjob\n"
    c.kubectl("delete", "pytorchjob", "twin", "--wait=false")
    wait_until(lambda: listdir(m.path("jobs")) == ["twin"], message="jobs/twin again")
    assert m.read("jobs", "twin", "type") == "tfjob\n"

    # another namespace (a new one) shows with its first job and goes with its last
    other = c.namespace + "-b"
    c.kubectl("create", "namespace", other)
    try:
        wait_until(lambda: listdir(m.path("namespaces")) == other_namespaces_with_jobs(c),
                   message="namespaces/ listing what kubectl finds jobs in")
        if c.kind == "kubesim":
            assert listdir(m.path("namespaces")) == []
        jobspecs.create(c, jobspecs.tfjob("elsewhere", run=300), namespace=other)
        wait_until(lambda: other in listdir(m.path("namespaces")) and
                   listdir(m.path("namespaces")) == other_namespaces_with_jobs(c),
                   message="namespaces/%s" % other)
        assert listdir(m.path("namespaces", other, "jobs")) == ["elsewhere"]
        c.kubectl("delete", "tfjob", "elsewhere", "-n", other, "--wait=false")
        wait_until(lambda: other not in listdir(m.path("namespaces")) and
                   listdir(m.path("namespaces")) == other_namespaces_with_jobs(c),
                   message="namespaces/%s gone again" % other)
        # no longer listed, but the namespace exists: found by name, empty
        assert listdir(m.path("namespaces", other, "jobs")) == []
    finally:
        c.kubectl("delete", "namespace", other, "--wait=false", check=False)
    # and gone once the namespace is
    wait_until(lambda: not os.path.exists(m.path("namespaces", other)), timeout=120,
               message="namespaces/%s gone with its namespace" % other)


def test_what_rbac_forbids_is_absent_not_an_error(kubesim, arenafs):
    c = kubesim("--demo")
    m = arenafs(c, "context=viewer")         # may read namespace default only
    assert listdir(m.path("nodes")) == []
    assert listdir(m.path("namespaces")) == []
    assert m.read("cluster", "gpus") == "Allocated/Total GPUs In Cluster: 0/0 (0.0%)\n"
    top = m.read("cluster", "top").splitlines()
    assert top[0].split() == ["NAME", "IPADDRESS", "ROLE", "STATUS", "GPU(Total)",
                              "GPU(Allocated)"]
    assert top[-2:] == ["Allocated/Total GPUs In Cluster:", "0/0 (0.0%)"]
    assert m.read("cluster", "health") == "ok\n"
    wait_until(lambda: listdir(m.path("jobs")) ==
               te.listing_order(te.job_dir_names(te.all_jobs(c))),
               message="default's jobs as the admin sees them")
    assert "gan" not in listdir(m.path("jobs"))          # research's job: not listable
