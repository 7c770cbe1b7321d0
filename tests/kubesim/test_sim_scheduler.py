"""The simulated scheduler against an in-process store: binding, the real
FailedScheduling text, and retrying when GPUs free up."""

from sim_helpers import Cluster, pod


def test_binds_pod_to_node_with_free_gpus_and_records_scheduled():
    with Cluster(nodes=2, gpus=4) as c:
        c.store.create("pods", pod("p", gpus=3))
        p = c.wait("bound", lambda: (c.get("pods", "p") or {}).get("spec", {}).get("nodeName") and c.get("pods", "p"))
        node = p["spec"]["nodeName"]
        assert node in ("node-0", "node-1")
        sched = [x for x in p["status"]["conditions"] if x["type"] == "PodScheduled"]
        assert sched and sched[0]["status"] == "True", p["status"]
        ev = c.wait("Scheduled event", lambda: c.events("p", "Scheduled"))
        assert ev[0]["message"] == "Successfully assigned default/p to %s" % node
        assert ev[0]["source"]["component"] == "default-scheduler"
        assert ev[0]["type"] == "Normal"


def test_pods_spread_by_capacity_never_overcommit():
    with Cluster(nodes=2, gpus=4) as c:
        for i in range(4):
            c.store.create("pods", pod("p%d" % i, gpus=2, SIM_RUN_SECONDS=1000))
        c.wait("all bound", lambda: all(p["spec"].get("nodeName") for p in c.pods("p")) and len(c.pods("p")) == 4)
        used = {}
        for p in c.pods("p"):
            used[p["spec"]["nodeName"]] = used.get(p["spec"]["nodeName"], 0) + 2
        assert used == {"node-0": 4, "node-1": 4}


def test_unschedulable_pod_gets_real_message_and_event():
    with Cluster(nodes=4, gpus=8) as c:
        c.store.create("pods", pod("big", gpus=16))
        ev = c.wait("FailedScheduling", lambda: c.events("big", "FailedScheduling"))
        msg = ("0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are "
               "available: 4 No preemption victims found for incoming pod..")
        assert ev[0]["message"] == msg
        assert ev[0]["type"] == "Warning"
        p = c.get("pods", "big")
        assert not p["spec"].get("nodeName")
        cond = [x for x in p["status"]["conditions"] if x["type"] == "PodScheduled"][0]
        assert (cond["status"], cond["reason"], cond["message"]) == ("False", "Unschedulable", msg)


def test_selector_and_taint_reasons_are_named():
    with Cluster(nodes=2, gpus=8) as c:
        def taint(n):
            n["spec"]["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
        c.store.mutate("nodes", "", "node-1", taint)
        p = pod("sel", gpus=1)
        p["spec"]["nodeSelector"] = {"accelerator": "h100"}
        c.store.create("pods", p)
        ev = c.wait("FailedScheduling", lambda: c.events("sel", "FailedScheduling"))
        assert ev[0]["message"] == (
            "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
            "1 node(s) had untolerated taint {dedicated: infra}. preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling..")
        ok = pod("tolerant", gpus=1)
        ok["spec"]["nodeSelector"] = {"accelerator": "a100"}
        ok["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        c.store.create("pods", ok)
        c.wait("tolerant bound", lambda: (c.get("pods", "tolerant")["spec"].get("nodeName")))


def test_pending_pod_is_scheduled_when_gpus_free_up():
    with Cluster(nodes=1, gpus=4) as c:
        c.store.create("pods", pod("first", gpus=4, SIM_RUN_SECONDS=5))
        c.wait_phase("first", "Running")
        c.store.create("pods", pod("second", gpus=4, SIM_RUN_SECONDS=5))
        c.wait("FailedScheduling", lambda: c.events("second", "FailedScheduling"))
        c.wait_phase("first", "Succeeded")
        p = c.wait("second bound", lambda: c.get("pods", "second")["spec"].get("nodeName") and c.get("pods", "second"))
        assert p["spec"]["nodeName"] == "node-0"
        cond = [x for x in p["status"]["conditions"] if x["type"] == "PodScheduled"][0]
        assert cond["status"] == "True"


def test_no_nodes_message():
    with Cluster(nodes=0) as c:
        c.store.create("pods", pod("lonely"))
        ev = c.wait("FailedScheduling", lambda: c.events("lonely", "FailedScheduling"))
        assert ev[0]["message"] == "no nodes available to schedule pods"


def test_other_schedulers_pods_are_left_alone():
    with Cluster(nodes=1, gpus=1) as c:
        p = pod("volcano")
        p["spec"]["schedulerName"] = "volcano"
        c.store.create("pods", p)
        c.store.create("pods", pod("mine"))
        c.wait("mine bound", lambda: c.get("pods", "mine")["spec"].get("nodeName"))
        assert not c.get("pods", "volcano")["spec"].get("nodeName")
        assert not c.events("volcano")


def test_pending_pods_keep_one_failedscheduling_event_each_however_often_retried():
    # The real scheduler counts repeats in an events.k8s.io series, with no cap on
    # how many series it keeps: more pending pods than client-go's 4,096-entry
    # correlator must not turn every retry into a new Event (a cluster of 10,000 jobs
    # made 670 a second that way, and the tree's cache grew with them).
    n = 4200
    with Cluster(nodes=1, gpus=4) as c:
        for i in range(n):
            c.store.create("pods", pod("pend-%d" % i, gpus=8))
        c.wait("every pod's first FailedScheduling",
               lambda: len(c.events(reason="FailedScheduling")) >= n, timeout=120)
        # pods that end free resources: each end makes the scheduler try again
        for i in range(3):
            c.store.create("pods", pod("short-%d" % i, gpus=1, SIM_RUN_SECONDS=1))
            c.wait_phase("short-%d" % i, "Succeeded")
        evs = c.wait("a repeat counted", lambda: [
            e for e in c.events(reason="FailedScheduling") if (e.get("count") or 1) >= 2],
            timeout=60)
        assert evs
        per_pod = {}
        for e in c.events(reason="FailedScheduling"):
            per_pod.setdefault(e["involvedObject"]["name"], []).append(e)
        assert len(per_pod) == n
        assert max(len(v) for v in per_pod.values()) == 1, \
            [v for v in per_pod.values() if len(v) > 1][:1]
