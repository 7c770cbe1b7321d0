"""Pod logs as the apiserver and kubelet answer them: every option, every
error of the reference's section 4, restarts and --previous, and kubectl's
output for them."""

import pytest

from helpers import wait_until

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "2", "--gpus", "2", "--speed", "20", "--seed", "11")


def env(**kv):
    return [{"name": k, "value": str(v)} for k, v in kv.items()]


def pod(name, containers, restart="Never", gpus=0, init=None):
    for ct in containers:
        ct.setdefault("image", "busybox:1.36")
        if gpus:
            ct["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec = {"containers": containers, "restartPolicy": restart}
    if init:
        spec["initContainers"] = init
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def make(c, body):
    status, out = c.api("POST", PODS, body)
    assert status == 201, out
    return out


def phase(c, name):
    return (c.api("GET", PODS + "/" + name)[1].get("status") or {}).get("phase")


def log(c, name, query=""):
    return c.api("GET", PODS + "/" + name + "/log" + query)


@pytest.fixture(scope="module")
def done(c):
    """A finished single-container pod and its full log."""
    make(c, pod("done", [{"name": "main", "env": env(SIM_RUN_SECONDS=20)}]))
    wait_until(lambda: phase(c, "done") == "Succeeded", 60, "done Succeeded")
    status, text = log(c, "done")
    assert status == 200
    return text


def test_options(c, done):
    lines = done.splitlines()
    assert len(lines) > 5 and lines[-1].startswith("training finished after ")
    assert log(c, "done", "?tailLines=2")[1].splitlines() == lines[-2:]
    assert log(c, "done", "?tailLines=0")[1] == ""
    assert log(c, "done", "?limitBytes=7")[1] == done[:7], "limitBytes may cut mid-line"
    stamped = log(c, "done", "?timestamps=true&tailLines=1")[1]
    ts, rest = stamped.rstrip("\n").split(" ", 1)
    assert rest == lines[-1] and ts.endswith("Z") and ts[10] == "T"
    assert log(c, "done", "?sinceTime=2000-01-01T00:00:00Z")[1] == done
    assert log(c, "done", "?sinceTime=2999-01-01T00:00:00Z")[1] == ""
    assert log(c, "done", "?sinceSeconds=3600")[1] == done
    assert c.kubectl("logs", "done", "--tail=1").stdout.splitlines() == lines[-1:]


def test_invalid_options_are_422(c, done):
    for query, field in (("?tailLines=-1", "tailLines"), ("?limitBytes=0", "limitBytes"),
                         ("?sinceSeconds=0", "sinceSeconds")):
        status, body = log(c, "done", query)
        assert status == 422 and body["reason"] == "Invalid", body
        assert body["message"].startswith('PodLogOptions "done" is invalid: %s: ' % field)
    status, body = log(c, "done", "?sinceSeconds=5&sinceTime=2000-01-01T00:00:00Z")
    assert status == 422 and "at most one of `sinceTime` or `sinceSeconds`" in body["message"]
    status, body = log(c, "nope")
    assert status == 404 and body["message"] == 'pods "nope" not found'


def test_container_choice(c):
    make(c, pod("two", [{"name": "a", "env": env(SIM_RUN_SECONDS=2)},
                        {"name": "b", "env": env(SIM_RUN_SECONDS=2)}],
                init=[{"name": "setup", "image": "busybox:1.36", "env": env(SIM_RUN_SECONDS=1)}]))
    wait_until(lambda: phase(c, "two") == "Succeeded", 60, "two Succeeded")
    status, body = log(c, "two")
    assert status == 400
    assert body["message"] == ("a container name must be specified for pod two, choose one of: "
                               "[setup a b]")
    status, body = log(c, "two", "?container=zzz")
    assert status == 400 and body["message"] == "container zzz is not valid for pod two"
    assert log(c, "two", "?container=b")[0] == 200
    assert log(c, "two", "?container=setup")[0] == 200
    # kubectl picks the first container (and says so) when none is given
    out = c.kubectl("logs", "two")
    assert out.returncode == 0 and 'Defaulted container "a" out of: a, b, setup (init)' \
        in out.stderr, out.stderr


def test_unscheduled_and_waiting(c):
    make(c, pod("pending", [{"name": "main"}], gpus=16))
    status, body = log(c, "pending")
    assert (status, body) == (204, "")
    make(c, pod("slow", [{"name": "main", "env": env(SIM_START_SECONDS=2000)}]))
    wait_until(lambda: (c.api("GET", PODS + "/slow")[1]["spec"].get("nodeName")), 30, "bound")
    status, body = log(c, "slow")
    assert status == 400
    assert body["message"] == 'container "main" in pod "slow" is waiting to start: ContainerCreating'
    out = c.kubectl("logs", "slow", check=False)
    assert out.stderr == ('Error from server (BadRequest): container "main" in pod "slow" is '
                          'waiting to start: ContainerCreating\n')


def test_previous_after_a_restart(c):
    # a container that never ran has no previous instance (bound first: the log of a
    # pod not yet scheduled is 204, whatever is asked)
    make(c, pod("fresh", [{"name": "main", "env": env(SIM_START_SECONDS=2000)}],
                restart="OnFailure"))
    wait_until(lambda: (c.api("GET", PODS + "/fresh")[1]["spec"].get("nodeName")), 30, "bound")
    status, body = log(c, "fresh", "?previous=true")
    assert status == 400 and body["message"] == \
        'previous terminated container "main" in pod "fresh" not found'
    make(c, pod("crashy", [{"name": "main", "env": env(SIM_RUN_SECONDS=4, SIM_EXIT_CODE=1)}],
                restart="OnFailure"))

    def restarted():
        st = c.api("GET", PODS + "/crashy")[1].get("status") or {}
        cs = (st.get("containerStatuses") or [{}])[0]
        return cs.get("restartCount", 0) >= 1 and (cs.get("state") or {}).get("running")
    wait_until(restarted, 60, "crashy restarted and running")

    def restarts():
        """Which instance `previous` names: lastState's container (a crash moves it
        before restartCount grows, as the kubelet's CrashLoopBackOff does)."""
        st = c.api("GET", PODS + "/crashy")[1].get("status") or {}
        cs = (st.get("containerStatuses") or [{}])[0]
        return ((cs.get("lastState") or {}).get("terminated") or {}).get("containerID")

    # The container keeps crashing (0.2 s runs at --speed 20): compare kubectl with a
    # read of the same previous instance, retrying when it crashed in between.
    for _ in range(10):
        before = restarts()
        status, prev = log(c, "crashy", "?previous=true")
        assert status == 200 and prev.splitlines()[-1].startswith("ERROR training failed at step ")
        by_kubectl = c.kubectl("logs", "crashy", "--previous").stdout
        if restarts() == before:
            assert by_kubectl == prev
            break
    else:
        pytest.fail("crashy crashed again during every comparison")


def test_follow_streams_until_the_container_ends(c):
    make(c, pod("streamer", [{"name": "main", "env": env(SIM_RUN_SECONDS=40)}]))
    wait_until(lambda: phase(c, "streamer") == "Running", 60, "streamer Running")
    status, text = log(c, "streamer", "?follow=true")
    assert status == 200
    assert text.splitlines()[-1].startswith("training finished after ")
    assert text == log(c, "streamer")[1]
    status, part = log(c, "streamer", "?follow=true&limitBytes=20")
    assert part == text[:20]
