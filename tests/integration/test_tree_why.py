"""jobs/NAME/why (issue 26): one line that says why a job is where it is, from
what the cluster says, and heads info. Each case where the real scheduler,
operator and kwok make it runs on both clusters (any_cluster): a job that asks
too many GPUs, a failing container (with its kept log's end), a success, a
restart, a PriorityClass that does not exist (the API server refuses the pods,
the operator says FailedCreatePod), a suspended job, a running job. kubesim alone makes an image that cannot be
pulled and a container killed for lack of memory (kwok pulls nothing and has
no memory). Waits are generous and never timed asserts."""

import os
import re
import stat

from helpers import wait_until
import jobspecs


def why(m, name):
    """The why text of jobs/NAME, checked to be one line (and a failed log's end), read-only, its st_size
    what read returns (as a file browser shows it); None while the job is not there."""
    path = m.path("jobs", name, "why")
    try:
        for attempt in range(5):
            st = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
            if st.st_size == len(data):
                break           # else an age in it moved between stat and read: again
    except FileNotFoundError:
        return None
    text = data.decode()
    # one line; a failed job's kept log may follow it, indented (docs/tree.md)
    assert text.endswith("\n") and all(l.startswith("    ") for l in text.splitlines()[1:]), text
    assert st.st_size == len(data), (st.st_size, text)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o444, path
    return text


def why_says(m, name, pattern, timeout=90):
    """Waits until jobs/NAME/why matches pattern; returns the line."""
    return wait_until(lambda: (lambda t: t if t and re.search(pattern, t) else None)(why(m, name)),
                      timeout=timeout, message="jobs/%s/why to match %r (now %r)"
                      % (name, pattern, why(m, name)))


def heads_info(m, name, line):
    info = m.read("jobs", name, "info")
    first, blank, rest = info.partition("\n\nName:")
    rest = "\nName:" + rest
    # the clock and a retrying operator may move the line's ages and counts between
    # the two reads: compare their words
    strip = lambda s: re.sub(r"\d+", "N", re.sub(r", \d+ times", "", s))
    assert blank and strip(first + "\n") == strip(line), (first, line)


def test_why_of_a_job_asking_too_many_gpus_quotes_the_scheduler(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("toobig", gpus=64, run=60))
    why_says(m, "toobig", r"^Waiting for the scheduler: ")

    def scheduled_condition():
        pod = c.kubectl_json("get", "pod", "toobig-worker-0")
        return [x for x in pod["status"].get("conditions") or []
                if x["type"] == "PodScheduled" and x.get("message")]
    # the scheduler writes its event and the pod's condition one after the other
    cond = wait_until(scheduled_condition, message="PodScheduled=False on the pod")[0]
    # the scheduler's own words: how many nodes, which resource
    assert "Insufficient nvidia.com/gpu" in cond["message"], cond
    line = why_says(m, "toobig", re.escape(cond["message"].replace("\n", " ")) + "\n$")
    assert "instance toobig-worker-0 waits" in line
    heads_info(m, "toobig", why(m, "toobig"))


def test_why_of_a_failed_job_names_instance_exit_code_and_log(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("broken", start=1, run=2, exit_code=3))
    line = why_says(m, "broken", r"^Failed at ")
    st = c.kubectl_json("get", "pod", "broken-worker-0")["status"]["containerStatuses"][0]
    code = st["state"]["terminated"]["exitCode"]
    assert code != 0
    assert "instance broken-worker-0 ended with exit code %d" % code in line, line
    assert "its log: instances/broken-worker-0/logs" in line
    # the path it names is there, and says what kubectl says
    log = c.kubectl("logs", "broken-worker-0").stdout
    assert m.read("jobs", "broken", "instances", "broken-worker-0", "logs") == log
    # once arenafs kept that log (keep_logs, on by default), its last lines follow
    line = why_says(m, "broken", r"which ends:\n")
    tail = [l for l in log.rstrip("\n").split("\n")][-5:]
    assert line.splitlines()[1:] == ["    " + l for l in tail], (line, tail)
    heads_info(m, "broken", line)


def test_why_of_a_succeeded_job_says_when_and_how_long(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("done", start=1, run=3))
    line = why_says(m, "done", r"^Succeeded at ")
    job = c.kubectl_json("get", "tfjob", "done")
    end = job["status"]["completionTime"]
    assert "Succeeded at %s UTC" % end.replace("T", " ").rstrip("Z") in line, (line, end)
    assert re.search(r", after running \d+s\.$", line.rstrip("\n")), line
    heads_info(m, "done", line)


def test_why_of_a_running_job_says_since_when(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("steady", start=1, run=600))
    line = why_says(m, "steady", r"^Running since ")
    start = c.kubectl_json("get", "tfjob", "steady")["status"]["startTime"]
    assert "Running since %s UTC" % start.replace("T", " ").rstrip("Z") in line, (line, start)
    assert ", 1 instance." in line


def test_why_of_a_restarted_container_counts_and_gives_the_last_exit(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    manifest = jobspecs.tfjob("flaky", restart_policy="OnFailure", backoff=20, start=1, run=2,
                              exit_code=1)
    env = manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"]
    # kwok crashes it once and runs it on; kubesim's exits 1 every 2 s
    env[:] = [e for e in env if not e["name"].startswith("KWOK_")] + [
        {"name": "KWOK_CRASH_ONCE", "value": "1"}, {"name": "KWOK_RUN", "value": "forever"}]
    jobspecs.create(c, manifest)
    line = why_says(m, "flaky", r"restarted \d+ times?", timeout=120)
    st = c.kubectl_json("get", "pod", "flaky-worker-0")["status"]["containerStatuses"][0]
    assert st["restartCount"] >= 1
    assert "instance flaky-worker-0" in line
    assert "the last ended with exit code 1 (Error)" in line, line


def test_why_of_a_job_whose_pods_are_refused_quotes_the_operator(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c)
    manifest = jobspecs.tfjob("refused", run=60)
    manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["priorityClassName"] = \
        "no-such-class"
    jobspecs.create(c, manifest)
    line = why_says(m, "refused", r"^Pods refused: 0 of 1 instances exist")
    events = c.kubectl_json("get", "events")["items"]
    failed = [e for e in events if e["involvedObject"]["name"] == "refused"
              and e["reason"].startswith("FailedCreate")]
    assert failed, events
    assert "no PriorityClass with name no-such-class was found" in line, line
    assert "(%s" % failed[0]["reason"] in line
    assert os.listdir(m.path("jobs", "refused", "instances")) == []
    heads_info(m, "refused", line)


def test_why_of_an_image_that_cannot_be_pulled(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    manifest = jobspecs.tfjob("nopull", run=60)
    ct = manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    ct["image"] = "example.invalid/nope:1"
    ct["env"].append({"name": "SIM_PULL_FAILS", "value": "1"})
    jobspecs.create(c, manifest)
    line = why_says(m, "nopull", r"^Image cannot be pulled: .*\(ImagePullBackOff: ")
    assert "instance nopull-worker-0 waits for image example.invalid/nope:1" in line, line
    st = c.kubectl_json("get", "pod", "nopull-worker-0")["status"]["containerStatuses"][0]
    assert st["state"]["waiting"]["message"] in line, (line, st)
    heads_info(m, "nopull", line)


def test_why_of_a_container_killed_for_lack_of_memory(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    manifest = jobspecs.tfjob("hungry", start=1, run=2)
    ct = manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    ct["env"].append({"name": "SIM_OOM_KILLED", "value": "1"})
    jobspecs.create(c, manifest)
    line = why_says(m, "hungry", r"^Failed at ")
    st = c.kubectl_json("get", "pod", "hungry-worker-0")["status"]["containerStatuses"][0]
    assert st["state"]["terminated"]["reason"] == "OOMKilled"
    assert ("instance hungry-worker-0 ended with exit code 137: killed for lack of memory "
            "(OOMKilled)") in line, line


def test_why_of_a_suspended_job_says_so_and_what_may_resume_it(any_cluster, arenafs):
    """runPolicy.suspend, as Kueue sets it on a job it has not admitted: the operator's
    Suspended condition is what the cache has (Kueue's Workloads it does not watch)."""
    c = any_cluster
    m = arenafs(c)
    manifest = jobspecs.tfjob("held", run=60)
    manifest["spec"]["runPolicy"] = {"suspend": True}
    jobspecs.create(c, manifest)
    line = why_says(m, "held", r"^Suspended since ")
    job = c.kubectl_json("get", "tfjob", "held")
    cond = [x for x in job["status"]["conditions"] if x["type"] == "Suspended"][0]
    assert cond["status"] == "True"
    assert "Suspended since %s UTC" % cond["lastTransitionTime"].replace("T", " ").rstrip("Z") \
        in line, (line, cond)
    assert "a queue such as Kueue" in line and cond["message"] in line, line
    assert os.listdir(m.path("jobs", "held", "instances")) == []
    heads_info(m, "held", line)
