"""The Deployment and ReplicaSet controllers (what TensorBoard needs)."""

from sim_helpers import Cluster

DEP = "deployments.apps"


def deployment(name, replicas=1):
    labels = {"role": "tensorboard", "release": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "labels": dict(labels)},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)}, "spec": {"containers": [{
                         "name": "tensorboard", "image": "tensorflow/tensorflow:2.15.0",
                         "command": ["tensorboard", "--logdir", "/training_logs"]}]}}}}


def test_deployment_makes_replicaset_and_running_pod():
    with Cluster() as c:
        d = c.store.create(DEP, deployment("mnist-tensorboard"))
        rs = c.wait("replicaset", lambda: c.list("replicasets.apps"))[0]
        h = rs["metadata"]["labels"]["pod-template-hash"]
        assert rs["metadata"]["name"] == "mnist-tensorboard-" + h
        assert rs["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]
        assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
        pod = c.wait("pod", lambda: c.pods("mnist-tensorboard-"))[0]
        assert pod["metadata"]["name"].startswith("mnist-tensorboard-%s-" % h)
        assert len(pod["metadata"]["name"]) == len("mnist-tensorboard-%s-" % h) + 5
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        c.wait_phase(pod["metadata"]["name"], "Running")

        def ready():
            st = c.get(DEP, "mnist-tensorboard").get("status") or {}
            return st.get("availableReplicas") == 1 and st
        st = c.wait("deployment available", ready)
        assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"]) == (1, 1, 1)
        assert "unavailableReplicas" not in st
        by = {x["type"]: x for x in st["conditions"]}
        assert (by["Available"]["status"], by["Available"]["reason"], by["Available"]["message"]) == (
            "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        c.wait("progressed", lambda: any(
            x["type"] == "Progressing" and x["reason"] == "NewReplicaSetAvailable" and
            x["message"] == 'ReplicaSet "%s" has successfully progressed.' % rs["metadata"]["name"]
            for x in c.get(DEP, "mnist-tensorboard")["status"]["conditions"]))
        ev = c.events("mnist-tensorboard", "ScalingReplicaSet")
        assert ev[0]["message"] == "Scaled up replica set %s from 0 to 1" % rs["metadata"]["name"]
        assert c.events(rs["metadata"]["name"], "SuccessfulCreate")[0]["message"] == \
            "Created pod: %s" % pod["metadata"]["name"]


def test_scaling_down_deletes_pods():
    with Cluster() as c:
        c.store.create(DEP, deployment("tb", replicas=2))
        c.wait("2 running", lambda: len([p for p in c.pods("tb-")
                                         if (p.get("status") or {}).get("phase") == "Running"]) == 2)
        c.store.mutate(DEP, "default", "tb", lambda d: d["spec"].update(replicas=1))
        c.wait("1 pod", lambda: len(c.pods("tb-")) == 1)
        ev = c.wait("scaled down", lambda: [e for e in c.events("tb", "ScalingReplicaSet")
                                            if "down" in e["message"]])
        assert ev[0]["message"].endswith("from 2 to 1")
