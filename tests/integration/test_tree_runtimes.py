"""The file `runtimes` (docs/tree.md): Kubeflow Trainer's ClusterTrainingRuntimes
and the namespace's TrainingRuntimes, what a trainjob's `runtime:` can name;
and a trainjob naming one that does not exist refused at submit with the list
of those that do. On kubesim (which installs Trainer v2.2.0's runtimes at
start, as the real cluster's up does) and on the real cluster, where Trainer's
own webhook admits the namespace's runtime."""

import json

from helpers import wait_until

SPEC = """type: trainjob
runtime: %s
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun train.py
env: {KWOK_RUN: forever, SIM_RUN_SECONDS: "100000"}
"""


def rows(text):
    """{NAME: [KIND, FRAMEWORK, NODES]} of the table."""
    lines = text.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "FRAMEWORK", "NODES", "AGE"], text
    return {l.split()[0]: l.split()[1:4] for l in lines[1:]}


def submit(m, name, text):
    try:
        with open(m.path("submit", name + ".yaml"), "w") as f:
            f.write(text)
    except OSError as e:
        return e.errno
    return 0


def test_runtimes_lists_the_clusters_and_the_namespaces(any_cluster, arenafs):
    c = any_cluster
    ns = getattr(c, "namespace", "default")
    m = arenafs(c, "namespace=" + ns)
    cluster_rts = c.kubectl_json("get", "clustertrainingruntimes")["items"]
    assert cluster_rts, "the cluster has no ClusterTrainingRuntime: is Trainer installed?"
    got = rows(m.read("runtimes"))
    for rt in cluster_rts:
        name = rt["metadata"]["name"]
        framework = rt["metadata"].get("labels", {}).get("trainer.kubeflow.org/framework",
                                                          "<none>")
        assert got[name] == ["ClusterTrainingRuntime", framework,
                             str(rt["spec"]["mlPolicy"]["numNodes"])], (name, got)
    assert len(got) == len(cluster_rts)

    # the namespace's own: a copy of torch-distributed, as a TrainingRuntime
    torch = next(r for r in cluster_rts if r["metadata"]["name"] == "torch-distributed")
    mine = {"apiVersion": torch["apiVersion"], "kind": "TrainingRuntime",
            "metadata": {"name": "my-torch", "namespace": ns},
            "spec": dict(torch["spec"], mlPolicy=dict(torch["spec"]["mlPolicy"], numNodes=2))}
    c.kubectl("create", "-f", "-", input=json.dumps(mine))
    wait_until(lambda: rows(m.read("runtimes")).get("TrainingRuntime/my-torch")
               == ["TrainingRuntime", "<none>", "2"], timeout=30,
               message="the namespace's TrainingRuntime in runtimes (listed every 10 s)")

    # a spec may name it; the job runs on it
    assert submit(m, "mine", SPEC % "TrainingRuntime/my-torch") == 0
    job = c.kubectl_json("get", "trainjobs.trainer.kubeflow.org", "mine")
    assert job["spec"]["runtimeRef"]["kind"] == "TrainingRuntime"


def test_a_missing_runtime_is_refused_with_those_there_are(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c, "namespace=" + getattr(c, "namespace", "default"))
    names = sorted(r["metadata"]["name"]
                   for r in c.kubectl_json("get", "clustertrainingruntimes")["items"])
    assert submit(m, "typo", SPEC % "torch-distributd") != 0
    error = m.read("submit", "typo", "error")
    assert 'no ClusterTrainingRuntime "torch-distributd"' in error, error
    assert ", ".join(names) in error, error
    assert c.kubectl("get", "trainjobs.trainer.kubeflow.org", "typo",
                     check=False).returncode != 0
    assert submit(m, "typo2", SPEC % "TrainingRuntime/nowhere") != 0
    assert 'no TrainingRuntime "nowhere" in namespace' in m.read("submit", "typo2", "error")


def test_a_cluster_without_trainer_says_so(kubesim, arenafs):
    c = kubesim("--no-kinds", "trainjobs,trainingruntimes,clustertrainingruntimes")
    m = arenafs(c)
    assert m.read("runtimes") == ("No Kubeflow Trainer in this cluster: it serves no training "
                                  "runtimes (trainer.kubeflow.org).\n")
