"""Every attempt's log (issue 26 item 5; docs/tree.md, "instances/POD/attempts/"):
a pod whose main container restarts keeps, with keep_logs, each instance's log,
numbered from 1 in instances/POD/attempts/N/, each with `log` and `info` (exit
code, reason, start, end); a restart the keeper did not see terminated is fetched
as the container's previous log before the next restart replaces it; beyond the
keep_logs budget the oldest go, and their info says so (the log then fails with
ENODATA, never an empty file)."""

import errno
import json
import os

import pytest

from helpers import wait_until
import jobspecs


def restarts(c, pod):
    r = c.kubectl("get", "pod", pod, "-o", "json", check=False)
    if r.returncode != 0:
        return 0
    cs = json.loads(r.stdout).get("status", {}).get("containerStatuses") or []
    return cs[0].get("restartCount", 0) if cs else 0


def attempts(m, job, pod):
    d = m.path("jobs", job, "instances", pod, "attempts")
    return sorted(os.listdir(d), key=int) if os.path.isdir(d) else []


def test_a_restarted_containers_first_attempt_is_kept_with_how_it_ended(any_cluster, arenafs):
    """On both clusters: the real one's kwok crashes the container once 2 s after it
    starts and restarts it at once (restartCount 1, lastState terminated with exit
    code 1), so the keeper never sees it terminated: attempt 1 is fetched as the
    previous log. kubesim's exits 1 after 10 s, each time."""
    c = any_cluster
    m = arenafs(c)
    manifest = jobspecs.tfjob("again", restart_policy="OnFailure", backoff=20, gpus=0, start=1,
                              run=10, exit_code=1)
    env = manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"]
    env[:] = [e for e in env if not e["name"].startswith("KWOK_")] + [
        {"name": "KWOK_CRASH_ONCE", "value": "1"}, {"name": "KWOK_RUN", "value": "forever"}]
    jobspecs.create(c, manifest)
    pod = "again-worker-0"
    previous = {}

    def restarted_once():
        if restarts(c, pod) != 1:
            return False
        r = c.kubectl("logs", pod, "--previous", check=False)
        if r.returncode == 0 and restarts(c, pod) == 1:
            previous["text"] = r.stdout
        return "text" in previous
    wait_until(restarted_once, timeout=120, message="the container to restart once")
    base = m.path("jobs", "again", "instances", pod, "attempts")
    wait_until(lambda: "Log:        kept" in m.read("jobs", "again", "instances", pod,
                                                   "attempts", "1", "info"),
               timeout=30, message="attempt 1's log kept")
    assert attempts(m, "again", pod)[:2] == ["1", "2"]
    info = m.read("jobs", "again", "instances", pod, "attempts", "1", "info")
    assert "Terminated, exit code 1 (Error)" in info, info
    assert "Started:    20" in info and "Ended:      20" in info, info
    assert os.stat(os.path.join(base, "1", "log")).st_size == len(previous["text"].encode())
    with open(os.path.join(base, "1", "log")) as f:
        assert f.read() == previous["text"]
    two = m.read("jobs", "again", "instances", pod, "attempts", "2", "info")
    if restarts(c, pod) == 1:
        assert "State:      Running" in two and "Ended:      -" in two, two


def test_every_attempt_of_a_restarting_container_keeps_its_log(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    pod = "crashy-master-0"
    jobspecs.create(c, jobspecs.pytorchjob("crashy", restart_policy="OnFailure", backoff=3,
                                           start=1, run=2, exit_code=1, lines=5))
    seen = {}

    def collect():
        # each attempt's log as kubectl logs --previous shows it, while it is the last
        n = restarts(c, pod)
        if n >= 1 and n not in seen:
            r = c.kubectl("logs", pod, "--previous", check=False)
            if r.returncode == 0 and r.stdout:
                seen[n] = r.stdout
        return n >= 3
    wait_until(collect, timeout=120, message="the container to restart three times")
    wait_until(lambda: len(attempts(m, "crashy", pod)) >= 3, timeout=30,
               message="three attempts")
    names = attempts(m, "crashy", pod)
    assert names[:3] == ["1", "2", "3"], names
    base = m.path("jobs", "crashy", "instances", pod, "attempts")
    assert sorted(os.listdir(os.path.join(base, "1"))) == ["info", "log"]
    for n, text in seen.items():
        # restartCount n: attempt n was the previous one
        wait_until(lambda: "Log:        kept" in m.read("jobs", "crashy", "instances", pod,
                                                       "attempts", str(n), "info"),
                   timeout=30, message="attempt %d's log kept" % n)
        with open(os.path.join(base, str(n), "log")) as f:
            assert f.read() == text
        st = os.stat(os.path.join(base, str(n), "log"))
        assert st.st_size == len(text.encode())         # known before any read
        assert st.st_mode & 0o777 == 0o444
        info = m.read("jobs", "crashy", "instances", pod, "attempts", str(n), "info")
        assert "Attempt:    %d of " % n in info
        assert "Terminated, exit code 1 (Error)" in info, info
        assert "Started:" in info and "Ended:" in info and "unknown" not in info
    assert len(seen) >= 2


def test_beyond_keep_logs_the_oldest_attempt_goes_and_says_so(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    pod = "tight-master-0"
    jobspecs.create(c, jobspecs.pytorchjob("tight", restart_policy="OnFailure", backoff=4,
                                           start=1, run=2, exit_code=1, lines=20))
    # room for about two attempts' logs (40 lines of ~60 bytes each)
    m = arenafs(c, "keep_logs=5K")
    wait_until(lambda: restarts(c, pod) >= 4, timeout=150,
               message="the container to restart four times")
    base = m.path("jobs", "tight", "instances", pod, "attempts")

    def dropped():
        return any("dropped at" in m.read("jobs", "tight", "instances", pod, "attempts", n,
                                          "info") for n in attempts(m, "tight", pod))
    wait_until(dropped, timeout=60, message="an attempt's log dropped for keep_logs")
    names = attempts(m, "tight", pod)
    infos = {n: m.read("jobs", "tight", "instances", pod, "attempts", n, "info") for n in names}
    gone = [n for n in names if "dropped at" in infos[n]]
    kept = [n for n in names if "Log:        kept" in infos[n]]
    assert gone and kept, infos
    assert max(map(int, gone)) < min(map(int, kept)), infos        # oldest first out
    assert "keep_logs (5.0 KiB)" in infos[gone[0]] or "keep_logs (5 KiB)" in infos[gone[0]], \
        infos[gone[0]]
    # never a silent empty file: its log cannot be read, and says why in info
    with pytest.raises(OSError) as e:
        with open(os.path.join(base, gone[0], "log")) as f:
            f.read()
    assert e.value.errno == errno.ENODATA
    assert "Terminated, exit code 1 (Error)" in infos[gone[0]]


def test_a_gone_pod_keeps_its_attempts(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    pod = "phoenix-master-0"
    jobspecs.create(c, jobspecs.pytorchjob("phoenix", restart_policy="OnFailure", backoff=2,
                                           start=1, run=2, exit_code=1, lines=5))
    wait_until(lambda: m.read("jobs", "phoenix", "status") == "FAILED\n", timeout=150,
               message="phoenix to fail after its restarts")
    wait_until(lambda: len(attempts(m, "phoenix", pod)) >= 3, timeout=30,
               message="its attempts")
    before = attempts(m, "phoenix", pod)
    wait_until(lambda: "Log:        kept" in m.read("jobs", "phoenix", "instances", pod,
                                                   "attempts", "2", "info"),
               timeout=30, message="attempt 2's log kept")
    kept = [n for n in before if "Log:        kept" in m.read("jobs", "phoenix", "instances",
                                                             pod, "attempts", n, "info")]
    logs = {n: open(os.path.join(m.path("jobs", "phoenix", "instances", pod, "attempts", n),
                                 "log")).read() for n in before}
    c.kubectl("delete", "pod", pod, "--wait=true", check=False)
    wait_until(lambda: restarts(c, pod) == 0, timeout=30, message="the pod to be gone")
    after = attempts(m, "phoenix", pod)
    assert kept and set(kept) <= set(after), (kept, after)
    for n in kept:
        with open(os.path.join(m.path("jobs", "phoenix", "instances", pod, "attempts", n),
                               "log")) as f:
            assert f.read() == logs[n]


def test_without_keep_logs_only_what_the_node_serves_is_read(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c, "keep_logs=0")
    pod = "bare-master-0"
    jobspecs.create(c, jobspecs.pytorchjob("bare", restart_policy="OnFailure", backoff=6,
                                           start=1, run=3, exit_code=1, lines=5))
    wait_until(lambda: restarts(c, pod) >= 2, timeout=120,
               message="the container to restart twice")
    base = m.path("jobs", "bare", "instances", pod, "attempts")
    info = m.read("jobs", "bare", "instances", pod, "attempts", "1", "info")
    assert "not kept (keep_logs=0)" in info, info
    with pytest.raises(OSError) as e:
        with open(os.path.join(base, "1", "log")) as f:
            f.read()
    assert e.value.errno == errno.ENODATA

    def last_is_served():
        n = restarts(c, pod)
        with open(os.path.join(base, str(n), "log")) as f:
            text = f.read()
        prev = c.kubectl("logs", pod, "--previous", check=False).stdout
        return restarts(c, pod) == n and text == prev and text
    wait_until(last_is_served, timeout=30, message="the last attempt's log, as --previous")
