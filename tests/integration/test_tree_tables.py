"""The tables of jobs as `cat` shows them (issue 14): cluster/list (arena list
for the mount's namespace), cluster/list-all (arena list -A) and
cluster/top-job (arena top job), row by row against what kubectl says of the
same jobs (status, trainer, GPUs, the chief's node) and the tree's own files
(info's Duration and chief). One lively kubesim --demo cluster serves the
module; jobs move while the tests run, so every comparison is retried until
both sides agree. The last test follows a job in and out of the tables and the
cluster out of reach and back. Then their JSON and YAML forms (issue 36):
cluster/list.json and .yaml, list-all.*, top-job.* and jobs/NAME/info.* as a
script reads them: every one parses with `jq`, json.load and yaml.safe_load,
its JSON and YAML say the same, `stat` gives its size, and its values are
kubectl's (names, uid, status, trainer, GPUs, the instances and their nodes) and
its table's (order, status, GPUs). Arena's own output and -o json beside these
files: test_arena_parity.py on the real cluster."""

import datetime
import json
import os
import re
import subprocess
import time

import pytest
import yaml

from helpers import wait_until
import jobspecs
import tree_expect as te

# Arena's columns, then arenafs's PROGRESS (docs/tree.md)
LIST_HEAD = ["NAME", "STATUS", "TRAINER", "DURATION", "GPU(Requested)", "GPU(Allocated)", "NODE",
             "PROGRESS"]
TOP_HEAD = ["NAME", "STATUS", "TRAINER", "AGE", "GPU(Requested)", "GPU(Allocated)", "NODE",
            "PROGRESS", "GPU(DutyCycle)"]
DUTY = re.compile(r"^GPU\(DutyCycle\) (\S+%) ", re.M)
STALE_S = 600
FOOTER = re.compile(r"\nTotal Allocated/Requested GPUs of Training Jobs: (\d+)/(\d+)\n\Z")


@pytest.fixture(scope="module")
def env(kubesim_module, arenafs_module):
    c = kubesim_module("--demo")
    m = arenafs_module(c)
    return c, m


def cells(line):
    return re.split(r"\s{2,}", line.strip())


def rows(text):
    """The header and the rows of a table, each a list of cells, up to a blank line."""
    lines = text.split("\n\n", 1)[0].splitlines()
    return cells(lines[0]), [cells(l) for l in lines[1:]]


def info_facts(info):
    """(Duration, the pod marked IS_CHIEF or None) of an info text."""
    duration = re.search(r"^Duration:\s+(\S+)$", info, re.M).group(1)
    chief = re.search(r"^  (\S+)\s+\S+\s+\S+\s+true\s", info, re.M)
    return duration, chief.group(1) if chief else None


def progress_cell(job, status):
    """PROGRESS: a TrainJob's last progressPercentage, "(stale)" when its report is 10
    minutes old and the job still runs; N/A without one."""
    ts = (job.get("status") or {}).get("trainerStatus") or {}
    if job["kind"] != "TrainJob" or ts.get("progressPercentage") is None:
        return "N/A"
    sent = datetime.datetime.strptime(ts["lastUpdatedTime"][:19], "%Y-%m-%dT%H:%M:%S")
    age = time.time() - sent.replace(tzinfo=datetime.timezone.utc).timestamp()
    stale = age >= STALE_S and status not in ("SUCCEEDED", "FAILED")
    return "%d%%%s" % (ts["progressPercentage"], "(stale)" if stale else "")


def shaped(rows, col):
    """rows with the cell col of each a "%" where it holds a percentage: the demo's
    TrainJob reports every 5 s and its GPUs' figures move as often, so a table and
    what the test gathers around it agree on whether there is one, and the exact
    cell is checked apart (test_cat_cluster_list_..., and the unit tests)."""
    return [r[:col] + ["%" if "%" in r[col] else r[col]] + r[col + 1:] for r in rows]


def expected_rows(c, m, namespaces, top=False):
    """What the tables should show, from kubectl and the tree's info files, in the
    documented order: newest first (then namespace, name, type); top job: most GPUs
    requested first."""
    out = []
    for ns in namespaces:
        where = ("jobs",) if ns == c.namespace else ("namespaces", ns, "jobs")
        all_pods = te.pods(c, ns)
        for d, job in te.job_dir_names(te.all_jobs(c, ns)).items():
            job_pods = te.pods_of_job(job, all_pods)
            status = te.job_status(job, job_pods)
            allocated, requested = te.job_gpus(job_pods)
            duration, chief = info_facts(m.read(*where, d, "info"))
            node = "N/A"
            for p in job_pods:
                if p["metadata"]["name"] == chief and p["status"].get("phase") != "Pending":
                    node = p["status"].get("hostIP") or "N/A"
            if not top and status not in ("PENDING", "RUNNING"):
                allocated = "N/A"       # Arena's list: only a pending or running job holds
            meta = job["metadata"]
            key = (te._neg_time(meta["creationTimestamp"]), ns, meta["name"],
                   te.TYPE_OF_KIND[job["kind"]])
            row = [ns, meta["name"], status, job["kind"].upper(), duration,
                   str(requested), str(allocated), node, progress_cell(job, status)]
            if top:
                key = (-requested,) + key
                # a duty cycle where jobs/NAME/gpus tells one (kubesim's Prometheus)
                row.append("%" if DUTY.search(m.read(*where, d, "gpus")) else "N/A")
            out.append((key, row))
    return [row for _, row in sorted(out)]


def test_cat_cluster_list_is_arena_list_of_the_mounts_namespace(env):
    c, m = env

    def agree():
        head, got = rows(m.read("cluster", "list"))
        want = [r[1:] for r in expected_rows(c, m, [c.namespace])]
        return head == LIST_HEAD and shaped(got, 7) == shaped(want, 7) and got
    got = wait_until(agree, timeout=90, interval=0.5,
                     message="cluster/list to be arena list of kubectl's jobs")
    # the rows are jobs/'s jobs in jobs/'s order (the demo has no NAME.TYPE)
    assert [r[0] for r in got] == os.listdir(m.path("jobs"))
    mine = {r[0]: r for r in got}
    # known jobs: big-model waits for GPUs no node has, mnist-v1 finished long ago
    assert mine["big-model"][1] == "PENDING" and mine["big-model"][5:] == ["0", "N/A", "N/A"]
    assert mine["mnist-v1"][1:3] == ["SUCCEEDED", "TFJOB"] and mine["mnist-v1"][5] == "N/A"
    assert mine["horovod-mnist"][2] == "MPIJOB" and mine["llm-pretrain"][2] == "TRAINJOB"
    assert mine["mnist-v1"][7] == "N/A"          # a TFJob reports no progress
    assert "gan" not in mine                     # research's: in list-all only

    # the TrainJob's PROGRESS is its progress file's last percentage (read on each
    # side of the table: a report may come between)
    def last_percent():
        last = m.read("jobs", "llm-pretrain", "progress").splitlines()[-1]
        found = re.match(r"\S+ \S+  (\d+%)", last)
        return found.group(1) if found else None

    def same_as_progress():
        before = last_percent()
        cell = rows(m.read("cluster", "list"))[1]
        cell = [r for r in cell if r[0] == "llm-pretrain"][0][7]
        return cell in (before, last_percent()) and before and cell
    print("llm-pretrain's PROGRESS: %s" % wait_until(
        same_as_progress, timeout=60, interval=0.5,
        message="llm-pretrain's PROGRESS to be its progress file's last percentage"))


def test_cat_cluster_list_all_is_arena_list_A(env):
    c, m = env
    namespaces = [c.namespace] + os.listdir(m.path("namespaces"))
    assert "research" in namespaces

    def agree():
        head, got = rows(m.read("cluster", "list-all"))
        return head == ["NAMESPACE"] + LIST_HEAD and \
            shaped(got, 8) == shaped(expected_rows(c, m, namespaces), 8) and got
    got = wait_until(agree, timeout=90, interval=0.5,
                     message="cluster/list-all to be arena list -A of kubectl's jobs")
    assert ["research", "gan"] in [r[:2] for r in got]
    ours = [r[1:] for r in got if r[0] == c.namespace]
    assert [r[0] for r in ours] == os.listdir(m.path("jobs"))


def test_cat_cluster_top_job_is_arena_top_job(env):
    c, m = env

    def agree():
        text = m.read("cluster", "top-job")
        head, got = rows(text)
        got = shaped(shaped(got, 7), 8)
        want = shaped([r[1:] for r in expected_rows(c, m, [c.namespace], top=True)], 7)
        footer = FOOTER.search(text)
        return head == TOP_HEAD and got == want and footer and (got, footer)
    got, footer = wait_until(agree, timeout=90, interval=0.5,
                             message="cluster/top-job to be arena top job of kubectl's jobs")
    requested = [int(r[4]) for r in got]
    assert requested == sorted(requested, reverse=True) and requested[0] == 32   # big-model
    running = [r for r in got if r[1] == "RUNNING"]
    assert footer.groups() == (str(sum(int(r[5]) for r in running)),
                               str(sum(int(r[4]) for r in running)))
    assert {r[0]: r for r in got}["mnist-v1"][5] == "0"   # top job prints the number
    # a running job's GPUs busy in the demo's Prometheus: a duty cycle in the last column
    assert any(r[1] == "RUNNING" and r[8] == "%" for r in got), got


def test_tables_follow_jobs_and_say_when_the_cluster_is_unreachable(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c, allow=[r"the cluster is unreachable", r"the cluster is reachable again"])
    assert m.read("cluster", "list") == "  ".join(LIST_HEAD) + "\n"
    assert m.read("cluster", "top-job").endswith(
        "\n\nTotal Allocated/Requested GPUs of Training Jobs: 0/0\n")
    jobspecs.create(c, jobspecs.tfjob("exp", workers=2, gpus=2, run=600))

    def row(name, *path):
        head, got = rows(m.read(*path))
        found = [dict(zip(head, r)) for r in got if name in r[:2]]
        return found[0] if found else None
    running = wait_until(lambda: (lambda r: r if r and r["STATUS"] == "RUNNING" else None)(
        row("exp", "cluster", "list")), timeout=60, message="exp RUNNING in cluster/list")
    assert (running["GPU(Requested)"], running["GPU(Allocated)"]) == ("4", "4")
    chief = c.kubectl_json("get", "pod", "exp-worker-0")       # worker 0: no chief
    assert running["NODE"] == chief["status"]["hostIP"]
    wait_until(lambda: FOOTER.search(m.read("cluster", "top-job")).groups() == ("4", "4"),
               timeout=30, message="the running job in top-job's total")
    assert row("exp", "cluster", "list-all")["NAMESPACE"] == c.namespace
    for f in ("list", "list-all", "top-job"):
        for attempt in range(5):     # a duration may tick between the stat and the read
            size = os.stat(m.path("cluster", f)).st_size
            if size == len(m.read("cluster", f).encode()):
                break
        assert size == len(m.read("cluster", f).encode()), f
    # while the cluster is out of reach, the last state with a note saying so
    c.fault(down_seconds=5)
    text = wait_until(lambda: (lambda t: t if "\nCluster: unreachable since " in t else None)(
        m.read("cluster", "list")), timeout=30, message="cluster/list to say unreachable")
    assert row("exp", "cluster", "list") is not None
    assert text.endswith(")\n")
    wait_until(lambda: "Cluster: unreachable" not in m.read("cluster", "top-job"), timeout=90,
               message="the note gone once the cluster is back")
    c.kubectl("delete", "tfjob", "exp")
    wait_until(lambda: row("exp", "cluster", "list") is None and
               row("exp", "cluster", "top-job") is None, timeout=30,
               message="a deleted job's rows gone")


# ---- the JSON and YAML forms ----

CLUSTER_FORMS = ["list-all.json", "list-all.yaml", "list.json", "list.yaml",
                 "top-job.json", "top-job.yaml", "top.json", "top.yaml"]
# Arena's YAML names its fields without a yaml tag by Go's lower-cased name
YAML_KEYS = {"modelname": "modelName", "modelversion": "modelVersion",
             "modelsource": "modelSource"}
TICKING = ("duration", "age", "why")       # change with the clock between two reads


def steady(doc):
    """doc without the values that tick, YAML keys renamed to JSON's."""
    if isinstance(doc, list):
        return [steady(x) for x in doc]
    if isinstance(doc, dict):
        return {YAML_KEYS.get(k, k): steady(v) for k, v in doc.items() if k not in TICKING}
    return doc


def parsed(m, *path):
    """The file read through json.load or yaml.safe_load, and jq's word on it."""
    with open(m.path(*path)) as f:
        doc = yaml.safe_load(f) if path[-1].endswith(".yaml") else json.load(f)
    if path[-1].endswith(".json"):
        r = subprocess.run(["jq", "-e", "type", m.path(*path)], capture_output=True, text=True)
        assert r.returncode == 0, (path, r.stderr)
        assert r.stdout.strip() == ('"array"' if isinstance(doc, list) else '"object"'), path
    return doc


def table(text):
    """The rows of a table as {header: cell}."""
    head, got = rows(text)
    return [dict(zip(head, r)) for r in got]


def test_every_form_parses_and_its_json_and_yaml_agree(env):
    c, m = env
    job = os.listdir(m.path("jobs"))[0]
    paths = [("cluster", f) for f in CLUSTER_FORMS] + \
            [("jobs", job, "info.json"), ("jobs", job, "info.yaml")]
    for path in paths:
        doc = parsed(m, *path)
        assert doc, path
        # one document: the JSON a list or an object, the YAML one document
        with open(m.path(*path)) as f:
            assert len(list(yaml.safe_load_all(f))) == 1, path
    for stem in ("list", "list-all", "top-job", "top"):
        wait_until(lambda: steady(parsed(m, "cluster", stem + ".json")) ==
                   steady(parsed(m, "cluster", stem + ".yaml")), timeout=30, interval=0.5,
                   message="cluster/%s.json and .yaml to agree" % stem)
    yaml_text = m.read("cluster", "list.yaml")
    assert "modelname:" in yaml_text and "modelName" not in yaml_text


def test_forms_are_sized_right_in_stat(env):
    c, m = env
    job = os.listdir(m.path("jobs"))[0]
    for path in [("cluster", f) for f in CLUSTER_FORMS] + [("jobs", job, "info.json"),
                                                           ("jobs", job, "info.yaml")]:
        def same():    # an age may tick between the stat and the read
            return os.stat(m.path(*path)).st_size == len(m.read(*path).encode())
        wait_until(same, timeout=10, interval=0.2, message="%s's size in stat" % (path,))


def kubectl_view(c, ns):
    """{name: (job, its pods)} of a namespace, as kubectl shows them."""
    all_pods = te.pods(c, ns)
    return {j["metadata"]["name"]: (j, te.pods_of_job(j, all_pods))
            for j in te.all_jobs(c, ns)}


def agrees_with_kubectl(entry, job, pods, m, where):
    """One job of a form against kubectl's objects and the tree's own files."""
    meta = job["metadata"]
    allocated, requested = te.job_gpus(pods)
    name = entry["name"]
    ok = (entry["uuid"] == meta["uid"] and entry["namespace"] == meta["namespace"] and
          entry["status"] == te.job_status(job, pods) and
          entry["trainer"] == te.TYPE_OF_KIND[job["kind"]] and
          entry["requestGPUs"] == requested and entry["allocatedGPUs"] == allocated and
          re.fullmatch(r"\d+s", entry["duration"]) is not None and
          entry["priority"] and isinstance(entry["creationTimestamp"], int))
    if not ok:
        return False
    by_name = {p["metadata"]["name"]: p for p in pods}
    if [i["name"] for i in entry["instances"]] != sorted(by_name):
        return False
    for i in entry["instances"]:
        p = by_name[i["name"]]
        pending = p["status"].get("phase") == "Pending"
        if (i["nodeIP"], i["node"]) != (("N/A", "N/A") if pending else
                                        (p["status"].get("hostIP", ""),
                                         p["spec"].get("nodeName", ""))):
            return False
        if i["requestGPUs"] != te.pod_gpus(p) or i["ip"] != p["status"].get("podIP", "") or \
                not re.fullmatch(r"\d+s", i["age"]) or i["gpuMetrics"] != {}:
            return False
    chiefs = [i["name"] for i in entry["instances"] if i["chief"]]
    if chiefs != ([entry["chiefName"]] if entry["chiefName"] else []):
        return False
    return entry["status"] + "\n" == m.read(*where, name, "status")


def test_list_json_is_kubectls_jobs_in_the_tables_order(env):
    c, m = env

    def agree():
        doc = parsed(m, "cluster", "list.json")
        view = kubectl_view(c, c.namespace)
        rows = table(m.read("cluster", "list"))
        names = [e["name"] for e in doc]
        if names != os.listdir(m.path("jobs")) or sorted(names) != sorted(view):
            return False
        if names != [r["NAME"] for r in rows]:
            return False
        for e, r in zip(doc, rows):
            if (e["status"], str(e["requestGPUs"])) != (r["STATUS"], r["GPU(Requested)"]):
                return False
            if r["GPU(Allocated)"] not in ("N/A", str(e["allocatedGPUs"])):
                return False
        return all(agrees_with_kubectl(e, *view[e["name"]], m, ("jobs",)) for e in doc) and doc
    doc = wait_until(agree, timeout=90, interval=0.5,
                     message="cluster/list.json to be kubectl's jobs in cluster/list's order")
    mine = {e["name"]: e for e in doc}
    # known demo jobs: big-model waits for 32 GPUs, mnist-v1 finished long ago
    assert mine["big-model"]["status"] == "PENDING" and mine["big-model"]["requestGPUs"] == 32
    assert mine["mnist-v1"]["status"] == "SUCCEEDED" and mine["mnist-v1"]["allocatedGPUs"] == 0
    assert mine["llm-pretrain"]["trainer"] == "trainjob"
    assert all(set(e) >= {"why", "queue"} for e in doc)


def test_list_all_json_has_every_namespace_and_top_job_json_most_gpus_first(env):
    c, m = env
    namespaces = [c.namespace] + os.listdir(m.path("namespaces"))

    def agree_all():
        doc = parsed(m, "cluster", "list-all.json")
        rows = table(m.read("cluster", "list-all"))
        keys = [(e["namespace"], e["name"]) for e in doc]
        want = sorted((ns, n) for ns in namespaces for n in kubectl_view(c, ns))
        return keys == [(r["NAMESPACE"], r["NAME"]) for r in rows] and \
            sorted(keys) == want and doc
    doc = wait_until(agree_all, timeout=90, interval=0.5,
                     message="cluster/list-all.json to be every namespace's jobs")
    assert ("research", "gan") in [(e["namespace"], e["name"]) for e in doc]

    def agree_top():
        doc = parsed(m, "cluster", "top-job.json")
        rows = table(m.read("cluster", "top-job"))
        return [e["name"] for e in doc] == [r["NAME"] for r in rows] and \
            [str(e["allocatedGPUs"]) for e in doc] == [r["GPU(Allocated)"] for r in rows] and \
            doc
    doc = wait_until(agree_top, timeout=90, interval=0.5,
                     message="cluster/top-job.json in cluster/top-job's order")
    requested = [e["requestGPUs"] for e in doc]
    assert requested == sorted(requested, reverse=True) and requested[0] == 32


def test_info_json_is_the_jobs_entry_of_list_json_with_why(env):
    c, m = env
    for name in os.listdir(m.path("jobs")):
        def agree():
            info = parsed(m, "jobs", name, "info.json")
            entry = [e for e in parsed(m, "cluster", "list.json") if e["name"] == name]
            # why's line; a failed job's ends in "." where the file goes on with its log
            why = m.read("jobs", name, "why").split("\n")[0]
            why = why[:-len(", which ends:")] + "." if why.endswith(", which ends:") else why
            return entry and steady(info) == steady(entry[0]) and info["why"] == why and info
        info = wait_until(agree, timeout=30, interval=0.5,
                          message="jobs/%s/info.json to be its list.json entry" % name)
        assert isinstance(info, dict) and info["name"] == name
        wait_until(lambda: steady(parsed(m, "jobs", name, "info.yaml")) ==
                   steady(parsed(m, "jobs", name, "info.json")), timeout=30, interval=0.5,
                   message="jobs/%s/info.yaml and info.json to agree" % name)


def test_top_json_is_kubectls_nodes_as_cluster_top(env):
    c, m = env

    def agree():
        doc = parsed(m, "cluster", "top.json")
        nodes = {n["metadata"]["name"]: n for n in c.kubectl_json("get", "nodes")["items"]}
        all_pods = [p for ns in [c.namespace] + os.listdir(m.path("namespaces"))
                    for p in te.pods(c, ns)]
        rows = {r["NAME"]: r for r in table(m.read("cluster", "top").split("\n---")[0])}
        if sorted(doc) != ["gpuExclusiveNodes", "gpuShareNodes", "gpuTopologyNodes",
                           "normalNodes"] or doc["gpuShareNodes"] or doc["gpuTopologyNodes"]:
            return False
        gpu, normal = doc["gpuExclusiveNodes"], doc["normalNodes"]
        if sorted(n["name"] for n in gpu + normal) != sorted(nodes) or \
                [n["name"] for n in gpu] != sorted(n["name"] for n in gpu):
            return False
        for n in gpu + normal:
            k = nodes[n["name"]]
            allocated, total = te.node_gpus(k, all_pods)
            if (n["ip"], n["status"]) != (te.internal_ip(k), "Ready" if te.node_ready(k)
                                          else "NotReady"):
                return False
            if (n["type"] == "GPUExclusive") != (total > 0) or \
                    rows[n["name"]]["IPADDRESS"] != n["ip"]:
                return False
            if total and ((n["totalGPUs"], n["allocatedGPUs"]) != (total, allocated) or
                          sum(i["requestGPUs"] for i in n["instances"]) != allocated or
                          n["gpuMetrics"] != [] or n["role"] != ""):
                return False
        return doc
    doc = wait_until(agree, timeout=90, interval=0.5,
                     message="cluster/top.json to be kubectl's nodes as cluster/top counts them")
    assert doc["gpuExclusiveNodes"] and doc["normalNodes"] is not None
