"""What populate() makes: nodes, the --jobs fleet and the --demo cluster, and
that the live controllers find the fleet consistent with their own rules."""

import collections

from sim_helpers import Cluster

NODE_INFO = ("architecture", "bootID", "containerRuntimeVersion", "kernelVersion",
             "kubeProxyVersion", "kubeletVersion", "machineID", "operatingSystem", "osImage",
             "systemUUID")


def test_nodes_have_gpus_addresses_roles_and_node_info():
    c = Cluster(nodes=3, gpus=8, cpu_nodes=2)
    nodes = {n["metadata"]["name"]: n for n in c.list("nodes")}
    assert sorted(nodes) == ["cpu-node-0", "cpu-node-1", "node-0", "node-1", "node-2"]
    n0 = nodes["node-0"]
    assert n0["status"]["capacity"]["nvidia.com/gpu"] == "8"
    assert n0["status"]["allocatable"]["nvidia.com/gpu"] == "8"
    assert "nvidia.com/gpu" not in nodes["cpu-node-0"]["status"]["capacity"]
    ready = [x for x in n0["status"]["conditions"] if x["type"] == "Ready"][0]
    assert (ready["status"], ready["reason"]) == ("True", "KubeletReady")
    addrs = {a["type"]: a["address"] for a in n0["status"]["addresses"]}
    assert addrs["Hostname"] == "node-0" and addrs["InternalIP"].startswith("10.0.")
    ips = {a["address"] for n in nodes.values() for a in n["status"]["addresses"] if a["type"] == "InternalIP"}
    assert len(ips) == 5
    assert "node-role.kubernetes.io/worker" in n0["metadata"]["labels"]
    assert set(n0["status"]["nodeInfo"]) == set(NODE_INFO)
    assert all(n0["status"]["nodeInfo"][k] for k in NODE_INFO)


def test_fleet_spreads_states_and_is_consistent_with_the_operator():
    c = Cluster(nodes=20, gpus=8, jobs=100, speed=10)
    jobs = c.list("tfjobs.kubeflow.org")
    assert len(jobs) == 100
    states = collections.Counter()
    for j in jobs:
        true = [x["type"] for x in j["status"]["conditions"] if x["status"] == "True"]
        states[true[-1]] += 1
    assert states["Succeeded"] == 55 and states["Failed"] == 10, states
    assert states["Running"] == 25 and states["Created"] == 10, states
    pods = c.list("pods")
    assert len(pods) == 500
    assert len(c.list("services")) == 500
    phases = collections.Counter(p["status"]["phase"] for p in pods)
    assert phases["Succeeded"] > 0 and phases["Failed"] == 10 and phases["Running"] == 125, phases
    per_node = collections.Counter()
    for p in pods:
        if p["status"]["phase"] in ("Running", "Pending") and p["spec"].get("nodeName"):
            per_node[p["spec"]["nodeName"]] += 1
    assert max(per_node.values()) <= 8
    ok = c.get("tfjobs.kubeflow.org", "tfjob-00000")
    assert [x["type"] for x in ok["status"]["conditions"]] == ["Created", "Running", "Succeeded"]
    assert ok["status"]["replicaStatuses"] == {"Chief": {"succeeded": 1}, "Worker": {"succeeded": 4}}
    tail, finished = c.log("tfjob-00000-worker-1", "tensorflow")
    assert finished and tail[-1].startswith("training finished after ")

    # The operator and kubelets adopt the fleet: no job status changes, no
    # new pods, running containers keep running.
    statuses = {j["metadata"]["name"]: j["status"] for j in jobs}
    c.start()
    try:
        running = [p["metadata"]["name"] for p in pods if p["status"]["phase"] == "Running"]
        c.wait("adopted logs", lambda: all(c.log(n, "tensorflow")[0] for n in running[:5]))
        c.wait("pending pods retried", lambda: c.events(reason="FailedScheduling"))
        c.settle()
        compared = 0
        for j in c.list("tfjobs.kubeflow.org"):
            before = statuses[j["metadata"]["name"]]
            # Jobs still starting or pending move on; the others must not change.
            if len(before["conditions"]) > 1:
                assert j["status"] == before, j["metadata"]["name"]
                compared += 1
        assert compared == 90
        assert len(c.list("pods")) == 500
        assert not c.events(reason="SuccessfulCreatePod")
    finally:
        c.stop()


def test_demo_cluster_comes_alive():
    with Cluster(demo=True, nodes=None, gpus=None, cpu_nodes=None, speed=20) as c:
        assert len(c.list("nodes")) == 5
        c.wait_condition("tfjobs.kubeflow.org", "mnist", "Running")
        c.wait_condition("tfjobs.kubeflow.org", "gan", "Running", ns="research")
        c.wait("big-model pending", lambda: c.events("big-model-worker-0", "FailedScheduling"))
        c.wait_condition("tfjobs.kubeflow.org", "resnet-fail", "Failed")
        c.wait("tensorboard running", lambda: [p for p in c.pods("mnist-tensorboard-")
                                               if p["status"].get("phase") == "Running"])
        old = c.get("tfjobs.kubeflow.org", "mnist-v1")
        assert old["status"]["conditions"][-1]["type"] == "Succeeded"
        assert c.get("services", "mnist-tensorboard")["spec"]["ports"][0]["nodePort"] == 31606

