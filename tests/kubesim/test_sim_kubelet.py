"""The simulated kubelets: pod lifecycle, container statuses, logs, restarts,
init containers and graceful deletion."""

from kubesim_lib.sim import loglines
from sim_helpers import Cluster, pod


def container_status(p, name="main", init=False):
    key = "initContainerStatuses" if init else "containerStatuses"
    return [s for s in p["status"].get(key) or [] if s["name"] == name][0]


def cond(p, ctype):
    return [c for c in p["status"]["conditions"] if c["type"] == ctype][0]


def test_lifecycle_creating_running_succeeded():
    with Cluster(speed=20) as c:
        c.store.create("pods", pod("p", SIM_RUN_SECONDS=10, SIM_START_SECONDS=4))
        creating = c.wait("ContainerCreating", lambda: (
            (c.get("pods", "p").get("status") or {}).get("containerStatuses") and c.get("pods", "p")))
        s = container_status(creating)
        assert creating["status"]["phase"] == "Pending"
        assert s["state"] == {"waiting": {"reason": "ContainerCreating"}}
        assert (s["ready"], s["restartCount"], s["started"], s["imageID"]) == (False, 0, False, "")
        assert s["image"] == "docker.io/library/busybox:1.36"
        assert "podIP" not in creating["status"]
        assert creating["status"]["hostIP"] == "10.0.0.4" or creating["status"]["hostIP"] == "10.0.0.5"

        running = c.wait_phase("p", "Running")
        s = container_status(running)
        assert s["ready"] is True and s["started"] is True
        assert s["containerID"].startswith("containerd://") and len(s["containerID"]) == 13 + 64
        assert s["imageID"].startswith("docker.io/library/busybox@sha256:")
        assert set(s["state"]) == {"running"} and s["state"]["running"]["startedAt"].endswith("Z")
        assert running["status"]["podIP"].startswith("10.64.")
        assert running["status"]["podIPs"] == [{"ip": running["status"]["podIP"]}]
        assert cond(running, "Ready")["status"] == "True"
        assert cond(running, "ContainersReady")["status"] == "True"
        assert cond(running, "PodScheduled")["status"] == "True"

        done = c.wait_phase("p", "Succeeded")
        s = container_status(done)
        t = s["state"]["terminated"]
        assert (t["exitCode"], t["reason"]) == (0, "Completed")
        assert t["containerID"] == s["containerID"]
        assert t["startedAt"] <= t["finishedAt"]
        assert (s["ready"], s["started"]) == (False, False)
        assert (cond(done, "Ready")["status"], cond(done, "Ready")["reason"]) == ("False", "PodCompleted")

        reasons = [e["reason"] for e in sorted(c.events("p"), key=lambda e: e["metadata"]["name"])]
        assert reasons == ["Scheduled", "Pulling", "Pulled", "Created", "Started"], reasons
        msgs = {e["reason"]: e for e in c.events("p")}
        assert msgs["Pulling"]["message"] == 'Pulling image "busybox:1.36"'
        assert msgs["Pulled"]["message"].startswith('Successfully pulled image "busybox:1.36" in ')
        assert msgs["Created"]["message"] == "Created container: main"
        assert msgs["Started"]["message"] == "Started container main"
        assert msgs["Started"]["source"] == {"component": "kubelet", "host": done["spec"]["nodeName"]}
        assert msgs["Started"]["involvedObject"]["fieldPath"] == "spec.containers{main}"


def test_logs_are_the_deterministic_training_log():
    with Cluster(speed=50, seed=3) as c:
        c.store.create("pods", pod("trainer", SIM_RUN_SECONDS=6, SIM_LOG_LINES_PER_SECOND=3))
        c.wait_phase("trainer", "Succeeded")
        lines, finished = c.log("trainer", "main")
        assert finished
        want = loglines.expected_log(3, "default", "trainer", "main", 0, 6, 3, 0)
        assert lines == want
        assert len(lines) == 19
        assert lines[0].startswith("epoch 1 step 10 loss=") and " accuracy=" in lines[0]
        assert lines[-1].startswith("training finished after 180 steps: loss=")


def test_log_lines_are_padded_to_requested_bytes():
    with Cluster() as c:
        c.store.create("pods", pod("wide", SIM_RUN_SECONDS=2, SIM_LOG_LINE_BYTES=200))
        c.wait_phase("wide", "Succeeded")
        raw, _ = c.logs.lines_from("default", "wide", "main", 0, 0)
        assert raw and all(len(l) == 200 for _, l in raw), [len(l) for _, l in raw]


def test_last_words_are_written_as_the_bytes_they_are():
    words = b"before\0NUL\0after\n\xff caf\xe9 \x1b[31mred\x07"
    with Cluster() as c:
        c.store.create("pods", pod("garbled", SIM_RUN_SECONDS=2, SIM_EXIT_CODE=1,
                                   SIM_LAST_WORDS_HEX=words.hex()))
        c.wait_phase("garbled", "Failed")
        raw, _ = c.logs.lines_from("default", "garbled", "main", 0, 0)
        assert b"".join(l for _, l in raw).endswith(words + b"\n")
        assert raw[-2][1].startswith(b"ERROR training failed")


def test_failing_container_fails_pod_with_error():
    with Cluster() as c:
        c.store.create("pods", pod("bad", SIM_RUN_SECONDS=3, SIM_EXIT_CODE=2))
        p = c.wait_phase("bad", "Failed")
        t = container_status(p)["state"]["terminated"]
        assert (t["exitCode"], t["reason"]) == (2, "Error")
        lines, finished = c.log("bad", "main")
        assert finished and lines[-1] == "ERROR training failed at step 60: exit code 2"


def test_on_failure_restarts_with_backoff_and_new_log_instances():
    with Cluster(speed=50) as c:
        c.store.create("pods", pod("crash", restart="OnFailure", SIM_RUN_SECONDS=2, SIM_EXIT_CODE=1))

        def restarted(n):
            p = c.get("pods", "crash")
            s = (p.get("status") or {}).get("containerStatuses")
            return s and s[0]["restartCount"] >= n and p
        p = c.wait("first restart", lambda: restarted(1))
        s = container_status(p)
        assert p["status"]["phase"] == "Running"
        last = s["lastState"]["terminated"]
        assert (last["exitCode"], last["reason"]) == (1, "Error")
        assert last["containerID"] != s.get("containerID")

        def backoff():
            p = c.get("pods", "crash")
            w = container_status(p)["state"].get("waiting")
            return w and w["reason"] == "CrashLoopBackOff" and (p, w)
        p, w = c.wait("CrashLoopBackOff", backoff)
        uid = p["metadata"]["uid"]
        assert w["message"] == "back-off 10s restarting failed container=main pod=crash_default(%s)" % uid
        ev = c.wait("BackOff event", lambda: c.events("crash", "BackOff"))
        assert ev[0]["type"] == "Warning"
        assert ev[0]["message"] == "Back-off restarting failed container main in pod crash_default(%s)" % uid
        c.wait("third start", lambda: restarted(2))
        for instance in (0, 1):
            lines, finished = c.log("crash", "main", instance)
            assert finished and lines[-1].startswith("ERROR"), (instance, lines[-1:])
        again = [e for e in c.events("crash", "Pulled") if "already present" in e["message"]]
        assert again and again[0]["count"] >= 2, [e["message"] for e in c.events("crash", "Pulled")]


def test_init_containers_run_first():
    init = [{"name": "init-code", "image": "alpine/git:2.45", "env": [
        {"name": "SIM_RUN_SECONDS", "value": "5"}]}]
    with Cluster(speed=20) as c:
        c.store.create("pods", pod("withinit", init=init, SIM_RUN_SECONDS=5))

        def init_running():
            p = c.get("pods", "withinit")
            st = (p.get("status") or {}).get("initContainerStatuses")
            return st and "running" in st[0]["state"] and p
        p = c.wait("init running", init_running)
        assert p["status"]["phase"] == "Pending"
        assert container_status(p)["state"] == {"waiting": {"reason": "PodInitializing"}}
        ini = cond(p, "Initialized")
        assert (ini["status"], ini["reason"], ini["message"]) == (
            "False", "ContainersNotInitialized", "containers with incomplete status: [init-code]")
        p = c.wait_phase("withinit", "Running")
        t = container_status(p, "init-code", init=True)["state"]["terminated"]
        assert t["reason"] == "Completed"
        assert cond(p, "Initialized")["status"] == "True"
        lines, finished = c.log("withinit", "init-code")
        assert finished and lines[-1] == "init-code: done"


def test_deletion_kills_containers_and_removes_pod():
    with Cluster() as c:
        c.store.create("pods", pod("victim", SIM_RUN_SECONDS=1000))
        c.wait_phase("victim", "Running")
        c.wait("some log", lambda: c.log("victim", "main")[0])

        def mark(p):
            p["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
            p["metadata"]["deletionGracePeriodSeconds"] = 30
        c.store.mutate("pods", "default", "victim", mark)
        c.wait_gone("pods", "victim")
        ev = c.events("victim", "Killing")
        assert ev and ev[0]["message"] == "Stopping container main"
        assert c.logs.get("default", "victim", "main", 0) is None


def test_images_already_present_are_not_pulled_again():
    with Cluster(nodes=1) as c:
        c.store.create("pods", pod("a", SIM_RUN_SECONDS=1))
        c.wait_phase("a", "Succeeded")
        c.store.create("pods", pod("b", SIM_RUN_SECONDS=1))
        c.wait_phase("b", "Succeeded")
        assert not c.events("b", "Pulling")
        assert c.events("b", "Pulled")[0]["message"] == \
            'Container image "busybox:1.36" already present on machine'


def test_replicaset_pods_run_until_deleted():
    with Cluster() as c:
        p = pod("tb-abc12", restart="Always")
        p["spec"]["containers"][0]["image"] = "tensorflow/tensorflow:2.15.0"
        p["spec"]["containers"][0]["command"] = ["tensorboard", "--logdir", "/logs"]
        p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                             "name": "tb", "uid": "u1", "controller": True}]
        c.store.create("pods", p)
        c.wait_phase("tb-abc12", "Running")
        lines, finished = c.wait("tensorboard banner", lambda: c.log("tb-abc12", "main")[0] and
                                 c.log("tb-abc12", "main"))
        assert not finished
        assert lines[-1] == "TensorBoard 2.15.1 at http://0.0.0.0:6006/ (Press CTRL+C to quit)"


def test_finalizers_hold_a_killed_pod_until_removed():
    with Cluster() as c:
        p = pod("held", SIM_RUN_SECONDS=1000)
        p["metadata"]["finalizers"] = ["example.com/keep"]
        c.store.create("pods", p)
        c.wait_phase("held", "Running")

        def mark(p):
            p["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
            p["metadata"]["deletionGracePeriodSeconds"] = 30
        c.store.mutate("pods", "default", "held", mark)
        held = c.wait("stopped and held", lambda: c.get("pods", "held")["metadata"].get(
            "deletionGracePeriodSeconds") == 0 and c.get("pods", "held"))
        assert held["status"]["phase"] == "Failed"
        assert container_status(held)["state"]["terminated"]["exitCode"] == 143
        c.store.mutate("pods", "default", "held", lambda p: p["metadata"].pop("finalizers"))
        c.wait_gone("pods", "held")
