"""Copying a spec into submit/ creates the objects docs/spec.md promises, field by
field, as kubectl then shows them: the job of each type (replicas, containers,
command, env, resources, volumes, scheduling, runPolicy, labels, annotations),
the TensorBoard Deployment and Service owned by the job, full manifests as they
stand, and the stored spec in jobs/NAME/spec.yaml. Every expectation comes from
docs/spec.md; one small cluster and one mount serve the module (a second
cluster serving MPIJob v2beta1 only for the tests that need it)."""

import errno
import json
import os
import re
import shlex

import pytest
import yaml

from helpers import wait_until
import realcluster

TF_IMAGE = "tensorflow/tensorflow:2.15.0-gpu"
TORCH_IMAGE = "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime"
MPI_IMAGE = "horovod/horovod:0.28.1"
XGB_IMAGE = "docker.io/kubeflow/xgboost-dist-iris:latest"
PADDLE_IMAGE = "registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu"
JAX_IMAGE = "docker.io/kubeflow/jaxjob-dist-spmd-mnist:latest"
GIT_SYNC_IMAGE = "registry.cn-zhangjiakou.aliyuncs.com/acs/git-sync:v3.3.5"
TENSORBOARD_IMAGE = "registry.cn-zhangjiakou.aliyuncs.com/acs/tensorflow:1.12.0-devel"

# the CRD field holding each kind's replica specs
REPLICA_FIELD = {"TFJob": "tfReplicaSpecs", "PyTorchJob": "pytorchReplicaSpecs",
                 "MPIJob": "mpiReplicaSpecs", "XGBoostJob": "xgbReplicaSpecs",
                 "PaddleJob": "paddleReplicaSpecs", "JAXJob": "jaxReplicaSpecs"}


# ---- the cluster, the mount, submitting ----

@pytest.fixture(scope="module", params=realcluster.cluster_params())
def cluster(request, kubesim_module):
    """kubesim, or the real cluster in a namespace of this module's own."""
    return realcluster.module_cluster(request, kubesim_module,
                                      "--nodes", "3", "--gpus", "8", "--speed", "20")


@pytest.fixture(scope="module")
def mnt(cluster, arenafs_module):
    return arenafs_module(cluster)


@pytest.fixture(scope="module")
def v2(kubesim_module, arenafs_module):
    """A cluster serving MPIJob as kubeflow.org/v2beta1 (mpi-operator), and its mount."""
    c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "20", "--mpi-v2beta1")
    return c, arenafs_module(c)


def write_spec(path, text):
    """Writes text to path as cp does; the errno close(2) returned (0 for success)."""
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        return e.errno
    return 0


def staging(m, entry):
    """(status, error) of the staging entry submit/ENTRY."""
    status = m.read("submit", entry, "status")
    err = m.read("submit", entry, "error") if os.path.exists(m.path("submit", entry, "error")) \
        else None
    return status, err


def submit(m, entry, text, as_dir=False):
    """cp ENTRY.yaml submit/ (or submit/ENTRY/spec.yaml with as_dir); it must succeed."""
    if as_dir:
        os.mkdir(m.path("submit", entry))
        path = m.path("submit", entry, "spec.yaml")
    else:
        path = m.path("submit", entry + ".yaml")
    rc = write_spec(path, text)
    if as_dir and rc == 0:
        # a folder's job is made once its copy is over (docs/submit.md, "Local code")
        wait_until(lambda: staging(m, entry)[0] != "submitting\n", timeout=30,
                   message="submit/%s/status to leave submitting" % entry)
    status, err = staging(m, entry)
    assert rc == 0 and status == "submitted\n", \
        "submitting %s: close(2) %s, status %r, error %r\n%s" % (
            entry, errno.errorcode.get(rc, rc), status, err, text)


def get(c, kind, name):
    return c.kubectl_json("get", kind, name, "-n", c.namespace)


def show(obj):
    return json.dumps(obj, indent=1, sort_keys=True)


# ---- reading the objects ----

def replica_specs(job):
    return job["spec"][REPLICA_FIELD[job["kind"]]]


def templates(job):
    """{replica type: pod template} of a job."""
    return {rt: rs["template"] for rt, rs in replica_specs(job).items()}


def only_container(template, name, where):
    cs = template["spec"]["containers"]
    assert [c["name"] for c in cs] == [name], "%s: containers %s" % (where, show(cs))
    return cs[0]


def env_of(container):
    """The env of a container as [(name, value)], in order."""
    return [(e["name"], e.get("value")) for e in container.get("env", [])]


def mounts_of(container):
    return {v["name"]: v["mountPath"] for v in container.get("volumeMounts", [])}


def volumes_of(template):
    return template["spec"].get("volumes", [])


def words(parts):
    """The words of a command + args, each element split as sh would."""
    out = []
    for p in parts:
        out += shlex.split(p)
    return out


def has_run(seq, run):
    return any(seq[i:i + len(run)] == run for i in range(len(seq) - len(run) + 1))


# ---- a tfjob with every key ----

TF_FULL = """\
type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: python code/main.py --logdir /training_logs
gpus: 2
workers: 3
ps: 2
chief: true
evaluator: true
cpu: "2"
memory: 4Gi
share_memory: 1Gi
env: {SIM_RUN_SECONDS: "3600", BATCH_SIZE: 64, DEBUG: yes, A_LAST: z}
data: {training-data: /data, my.ckpt: /ckpt}
data_dir: {/mnt/nfs: /nfs, /mnt/scratch: }
sync: {mode: git, source: https://github.com/org/repo.git, branch: main}
working_dir: /workspace
selector: {accelerator: a100}
tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}, "dedicated=ml:NoSchedule"]
priority: high
retry: 3
labels: {team: vision}
annotations: {owner: alice}
image_pull_secrets: [regcred, other-cred]
image_pull_policy: IfNotPresent
ttl_after_finished: 2h30m
running_timeout: 3h
"""
TF_FULL_ENV = [("SIM_RUN_SECONDS", "3600"), ("BATCH_SIZE", "64"), ("DEBUG", "yes"),
               ("A_LAST", "z")]


@pytest.fixture(scope="module")
def vision(cluster, mnt):
    """TF_FULL submitted as vision.yaml (its name from the file)."""
    submit(mnt, "vision", TF_FULL)
    return get(cluster, "tfjob", "vision")


def test_tfjob_has_ps_chief_evaluator_and_workers(cluster, vision):
    rs = replica_specs(vision)
    assert vision["apiVersion"] == "kubeflow.org/v1" and vision["kind"] == "TFJob"
    assert vision["metadata"]["name"] == "vision" and \
        vision["metadata"]["namespace"] == cluster.namespace
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in rs.items()}
    # Workers restart OnFailure when there is a Chief; PS, Chief and Evaluator never
    assert got == {"PS": (2, "Never"), "Worker": (3, "OnFailure"), "Chief": (1, "Never"),
                   "Evaluator": (1, "Never")}


def test_tfjob_containers_run_the_command_with_sh_c(vision):
    for rt, t in templates(vision).items():
        c = only_container(t, "tensorflow", rt)
        assert c["image"] == TF_IMAGE, rt
        assert c["command"] == ["sh", "-c", "python code/main.py --logdir /training_logs"], rt
        assert "args" not in c, "%s: args %r" % (rt, c.get("args"))
        assert c["workingDir"] == "/workspace", rt
        assert c["imagePullPolicy"] == "IfNotPresent", rt
        assert {"containerPort": 2222, "name": "tfjob-port"} in \
            [{k: p[k] for k in ("containerPort", "name") if k in p} for p in c.get("ports", [])], \
            "%s: ports %s" % (rt, c.get("ports"))


def test_tfjob_env_is_user_env_then_workers_gpus_and_void_without_gpus(vision):
    for rt, t in templates(vision).items():
        want = TF_FULL_ENV + [("workers", "3"), ("gpus", "2")]
        if rt == "PS":                  # the only replica without GPUs
            want.append(("NVIDIA_VISIBLE_DEVICES", "void"))
        assert env_of(only_container(t, "tensorflow", rt)) == want, rt


def test_tfjob_gpus_cpu_memory_are_requests_and_limits(vision):
    for rt, t in templates(vision).items():
        want = {"cpu": "2", "memory": "4Gi"}
        if rt != "PS":                  # PS: no GPUs (chief + evaluator + workers count)
            want["nvidia.com/gpu"] = "2"
        res = only_container(t, "tensorflow", rt).get("resources", {})
        assert res.get("limits") == want and res.get("requests") == want, \
            "%s: resources %s" % (rt, show(res))


def test_tfjob_volumes_in_documented_order_and_mounted(vision):
    for rt, t in templates(vision).items():
        vols = volumes_of(t)
        assert [v["name"] for v in vols] == ["code-sync", "training-data", "pvc-1",
                                             "training-data-0", "training-data-1", "dshm"], \
            "%s: volumes %s" % (rt, show(vols))
        by = {v["name"]: v for v in vols}
        assert "emptyDir" in by["code-sync"], show(by["code-sync"])
        assert by["training-data"]["persistentVolumeClaim"]["claimName"] == "training-data"
        # my.ckpt is a PVC name but no valid volume name: pvc-<index in data>
        assert by["pvc-1"]["persistentVolumeClaim"]["claimName"] == "my.ckpt"
        assert by["training-data-0"]["hostPath"]["path"] == "/mnt/nfs"
        assert by["training-data-1"]["hostPath"]["path"] == "/mnt/scratch"
        assert by["dshm"]["emptyDir"].get("medium") == "Memory", show(by["dshm"])
        assert by["dshm"]["emptyDir"].get("sizeLimit") == "1Gi", show(by["dshm"])
        c = only_container(t, "tensorflow", rt)
        assert mounts_of(c) == {"code-sync": "/workspace/code", "training-data": "/data",
                                "pvc-1": "/ckpt", "training-data-0": "/nfs",
                                "training-data-1": "/mnt/scratch", "dshm": "/dev/shm"}, \
            "%s: mounts %s" % (rt, show(c.get("volumeMounts")))


def test_tfjob_git_sync_init_container(vision):
    for rt, t in templates(vision).items():
        inits = t["spec"].get("initContainers", [])
        assert [i["name"] for i in inits] == ["init-code"], "%s: %s" % (rt, show(inits))
        i = inits[0]
        assert i["image"] == GIT_SYNC_IMAGE, rt
        env = dict(env_of(i))
        for k, v in TF_FULL_ENV + [("GIT_SYNC_REPO", "https://github.com/org/repo.git"),
                                   ("GIT_SYNC_DEST", "repo"), ("GIT_SYNC_ROOT", "/code"),
                                   ("GIT_SYNC_ONE_TIME", "true"), ("GIT_SYNC_BRANCH", "main")]:
            assert env.get(k) == v, "%s: init-code env %s=%r, want %r" % (rt, k, env.get(k), v)
        assert mounts_of(i) == {"code-sync": "/code"}, rt
        res = i.get("resources", {})
        want = {"cpu": "2", "memory": "4Gi"}
        assert res.get("limits") == want and res.get("requests") == want, \
            "%s: init-code resources %s" % (rt, show(res))
        assert i["imagePullPolicy"] == "IfNotPresent", rt


def test_sync_as_a_url_and_rsync(cluster, mnt):
    submit(mnt, "syncurl", "type: pytorchjob\nimage: %s\ncommand: python t.py\n"
           "sync: https://github.com/org/other.git\n" % TORCH_IMAGE)
    t = templates(get(cluster, "pytorchjob", "syncurl"))["Master"]
    i = t["spec"]["initContainers"][0]
    assert (i["name"], i["image"]) == ("init-code", GIT_SYNC_IMAGE)
    env = dict(env_of(i))
    assert {k: env.get(k) for k in ("GIT_SYNC_REPO", "GIT_SYNC_DEST", "GIT_SYNC_ROOT",
                                    "GIT_SYNC_ONE_TIME")} == \
        {"GIT_SYNC_REPO": "https://github.com/org/other.git", "GIT_SYNC_DEST": "other",
         "GIT_SYNC_ROOT": "/code", "GIT_SYNC_ONE_TIME": "true"}, show(i)
    assert "GIT_SYNC_BRANCH" not in env
    assert mounts_of(only_container(t, "pytorch", "Master"))["code-sync"] == "/root/code"

    submit(mnt, "syncrsync", "type: pytorchjob\nimage: %s\ncommand: python t.py\n"
           "sync: {mode: rsync, source: \"10.0.0.1::backup/code\", image: my/rsync:1}\n"
           % TORCH_IMAGE)
    t = templates(get(cluster, "pytorchjob", "syncrsync"))["Master"]
    i = t["spec"]["initContainers"][0]
    assert (i["name"], i["image"]) == ("init-code", "my/rsync:1")
    assert has_run(words(i.get("command", []) + i.get("args", [])),
                   ["rsync", "-avP", "10.0.0.1::backup/code", "/code"]), show(i)
    assert mounts_of(i) == {"code-sync": "/code"}


def test_tfjob_scheduling_fields_on_every_pod(vision):
    for rt, t in templates(vision).items():
        s = t["spec"]
        assert s.get("nodeSelector") == {"accelerator": "a100"}, rt
        assert s.get("tolerations") == [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}], \
            "%s: tolerations %s" % (rt, show(s.get("tolerations")))
        assert s.get("priorityClassName") == "high", rt
        assert s.get("imagePullSecrets") == [{"name": "regcred"}, {"name": "other-cred"}], rt


def test_tfjob_run_policy(vision):
    # suspend: false is the CRD's default, filled in by the API server
    assert vision["spec"]["runPolicy"] == {"backoffLimit": 3, "cleanPodPolicy": "Running",
                                           "suspend": False,
                                           "ttlSecondsAfterFinished": 9000,
                                           "activeDeadlineSeconds": 10800}


def test_tfjob_labels_and_annotations(vision):
    labels = {"app": "tfjob", "release": "vision", "createdBy": "TFJob",
              "arenafs.io/submitted-by": "arenafs", "team": "vision"}
    md = vision["metadata"]
    assert md["labels"] == labels
    assert md["annotations"] == {"owner": "alice", "requestGPUsOfJobOwner": "10",
                                 "arenafs.io/spec": "name: vision\n" + TF_FULL}
    for rt, t in templates(vision).items():
        assert t["metadata"].get("labels") == labels, rt
        # the pod templates: the same annotations without the spec
        assert t["metadata"].get("annotations") == {"owner": "alice",
                                                    "requestGPUsOfJobOwner": "10"}, rt


# ---- a tfjob with the defaults ----

@pytest.fixture(scope="module")
def solo(cluster, mnt):
    submit(mnt, "solo", "type: tfjob\nimage: %s\ncommand: python train.py\n" % TF_IMAGE)
    return get(cluster, "tfjob", "solo")


def test_tfjob_one_worker_no_ps_is_a_standalone_chief(solo):
    rs = replica_specs(solo)
    assert {rt: (s["replicas"], s["restartPolicy"]) for rt, s in rs.items()} == \
        {"Chief": (1, "Never")}
    where = {"job": solo["metadata"].get("annotations", {}),
             "Chief template": rs["Chief"]["template"]["metadata"].get("annotations", {})}
    assert any(a.get("arena.kubeflow.org/disable-tf-config") == "true" for a in where.values()), \
        show(where)


def test_tfjob_defaults(solo):
    t = templates(solo)["Chief"]
    c = only_container(t, "tensorflow", "Chief")
    assert c["command"] == ["sh", "-c", "python train.py"]
    assert c["workingDir"] == "/root"
    assert c["imagePullPolicy"] == "Always"
    assert env_of(c) == [("workers", "1"), ("gpus", "0"), ("NVIDIA_VISIBLE_DEVICES", "void")]
    assert "nvidia.com/gpu" not in c.get("resources", {}).get("limits", {}), show(c)
    assert [(v["name"], v["emptyDir"]) for v in volumes_of(t)] == \
        [("dshm", {"medium": "Memory", "sizeLimit": "2Gi"})]
    assert mounts_of(c) == {"dshm": "/dev/shm"}
    for k in ("initContainers", "nodeSelector", "tolerations", "priorityClassName",
              "imagePullSecrets"):
        assert k not in t["spec"], "%s: %s" % (k, show(t["spec"][k]))
    # cleanPodPolicy Running; no backoffLimit unless retry (Arena's TF chart writes none)
    assert solo["spec"].get("runPolicy") == {"cleanPodPolicy": "Running", "suspend": False}
    assert solo["metadata"]["annotations"]["requestGPUsOfJobOwner"] == "0"


# ---- a tfjob without a chief, a word list, another shell ----

TF_PS = """\
type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: [python, train.py, --msg, "hello world", "it's", "$HOME"]
shell: bash
gpus: 1
workers: 2
ps: 1
share_memory: 0
env: {NVIDIA_VISIBLE_DEVICES: all, LR: "0.1"}
tolerations: ["spot:NoExecute"]
"""


@pytest.fixture(scope="module")
def psjob(cluster, mnt):
    submit(mnt, "psjob", TF_PS)
    return get(cluster, "tfjob", "psjob")


def test_tfjob_without_chief_workers_restart_never(psjob):
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(psjob).items()}
    assert got == {"PS": (1, "Never"), "Worker": (2, "Never")}
    assert psjob["metadata"]["annotations"]["requestGPUsOfJobOwner"] == "2"


def test_command_list_is_one_quoted_line_for_the_shell(psjob):
    for rt, t in templates(psjob).items():
        cmd = only_container(t, "tensorflow", rt)["command"]
        assert cmd[:2] == ["bash", "-c"] and len(cmd) == 3, "%s: %r" % (rt, cmd)
        assert shlex.split(cmd[2]) == ["python", "train.py", "--msg", "hello world", "it's",
                                       "$HOME"], "%s: %r" % (rt, cmd)


def test_explicit_nvidia_visible_devices_is_kept_and_share_memory_0_drops_dshm(psjob):
    for rt, t in templates(psjob).items():
        c = only_container(t, "tensorflow", rt)
        assert env_of(c) == [("NVIDIA_VISIBLE_DEVICES", "all"), ("LR", "0.1"), ("workers", "2"),
                             ("gpus", "1")], rt
        assert "dshm" not in [v["name"] for v in volumes_of(t)], rt
        assert "/dev/shm" not in mounts_of(c).values(), rt


def test_toleration_written_as_kubectl_taint_key_effect(psjob):
    for rt, t in templates(psjob).items():
        tol = t["spec"].get("tolerations")
        assert len(tol) == 1 and tol[0].get("key") == "spot" and \
            tol[0].get("effect") == "NoExecute" and tol[0].get("value", "") == "", \
            "%s: %s" % (rt, show(tol))


# ---- pytorchjob ----

TORCH = """\
type: pytorchjob
image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
command: torchrun --nproc-per-node=2 /root/code/train.py
gpus: 2
workers: 3
nproc_per_node: gpu
env: {EPOCHS: "5"}
image_pull_secrets: regcred
"""


@pytest.fixture(scope="module")
def torch(cluster, mnt):
    submit(mnt, "torch", TORCH, as_dir=True)       # cp -r torch/ submit/: its name from the dir
    return get(cluster, "pytorchjob", "torch")


def test_pytorchjob_workers_count_the_master(torch):
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(torch).items()}
    assert got == {"Master": (1, "Never"), "Worker": (2, "OnFailure")}
    assert torch["metadata"]["annotations"]["requestGPUsOfJobOwner"] == "6"
    assert torch["spec"]["runPolicy"] == {"cleanPodPolicy": "Running", "backoffLimit": 0,
                                          "suspend": False}


def test_pytorchjob_containers(torch):
    for rt, t in templates(torch).items():
        c = only_container(t, "pytorch", rt)
        assert c["image"] == TORCH_IMAGE
        assert c["command"] == ["sh", "-c", "torchrun --nproc-per-node=2 /root/code/train.py"]
        assert {"containerPort": 23456, "name": "pytorchjob-port"} in \
            [{k: p[k] for k in ("containerPort", "name") if k in p} for p in c.get("ports", [])], \
            "%s: ports %s" % (rt, c.get("ports"))
        env = env_of(c)
        assert ("PET_NPROC_PER_NODE", "gpu") in env, "%s: env %s" % (rt, env)
        assert [e for e in env if e[0] != "PET_NPROC_PER_NODE"] == \
            [("EPOCHS", "5"), ("workers", "3"), ("gpus", "2")], rt
        res = c.get("resources", {})
        assert res.get("limits") == {"nvidia.com/gpu": "2"} and \
            res.get("requests") == {"nvidia.com/gpu": "2"}, "%s: %s" % (rt, show(res))
        assert t["spec"].get("imagePullSecrets") == [{"name": "regcred"}], rt
    labels = torch["metadata"]["labels"]
    assert labels == {"app": "pytorchjob", "release": "torch", "createdBy": "PyTorchJob",
                      "arenafs.io/submitted-by": "arenafs"}


def test_pytorchjob_one_worker_is_a_lone_master(cluster, mnt):
    submit(mnt, "torch1", "type: pytorchjob\nimage: %s\ncommand: python t.py\n" % TORCH_IMAGE)
    job = get(cluster, "pytorchjob", "torch1")
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(job).items()}
    assert got == {"Master": (1, "Never")}


# ---- mpijob ----

MPI = """\
type: mpijob
image: horovod/horovod:0.28.1
command: horovodrun -np 4 python /root/code/train.py
gpus: 2
workers: 2
cpu: "1"
memory: 2Gi
"""


def check_mpijob(job, name, version, worker_words):
    assert job["apiVersion"] == "kubeflow.org/" + version and job["kind"] == "MPIJob"
    rs = replica_specs(job)
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in rs.items()}
    assert got == {"Launcher": (1, "Never"), "Worker": (2, "Never")}
    assert job["spec"]["slotsPerWorker"] == 2
    # suspend: false is the training-operator CRD's default (v1); the
    # mpi-operator's v2beta1 is served by kubesim only (docs/real-cluster.md)
    want = {"cleanPodPolicy": "All", "backoffLimit": 0}
    if version == "v1":
        want["suspend"] = False
    assert job["spec"]["runPolicy"] == want
    launcher = only_container(rs["Launcher"]["template"], "mpi", "Launcher")
    assert launcher["image"] == MPI_IMAGE
    assert launcher["command"] == ["sh", "-c", "horovodrun -np 4 python /root/code/train.py"]
    # the launcher: no GPUs, no cpu/memory; a pod without GPUs gets void
    assert not launcher.get("resources", {}).get("limits") and \
        not launcher.get("resources", {}).get("requests"), show(launcher.get("resources"))
    assert env_of(launcher) == [("workers", "2"), ("gpus", "2"),
                                ("NVIDIA_VISIBLE_DEVICES", "void")]
    assert not launcher.get("ports"), show(launcher.get("ports"))
    worker = only_container(rs["Worker"]["template"], "mpi", "Worker")
    assert worker["image"] == MPI_IMAGE
    want = {"nvidia.com/gpu": "2", "cpu": "1", "memory": "2Gi"}
    assert worker["resources"].get("limits") == want and \
        worker["resources"].get("requests") == want, show(worker["resources"])
    assert env_of(worker) == [("workers", "2"), ("gpus", "2")]
    assert not worker.get("ports"), show(worker.get("ports"))
    got_words = words(worker.get("command", []) + worker.get("args", []))
    if worker_words is None:
        assert got_words == [], "v1 workers run no command of their own: %r" % got_words
    else:
        assert has_run(got_words, worker_words), "worker runs %r" % got_words
    for rt, t in templates(job).items():
        assert t["metadata"]["labels"] == {"app": "mpijob", "release": name,
                                           "createdBy": "MPIJob",
                                           "arenafs.io/submitted-by": "arenafs"}, rt


def test_mpijob_v1_launcher_and_workers(cluster, mnt):
    submit(mnt, "horovod", MPI)
    check_mpijob(get(cluster, "mpijob", "horovod"), "horovod", "v1", None)


def test_mpijob_slots_default_to_one_without_gpus(cluster, mnt):
    submit(mnt, "mpicpu", "type: mpijob\nimage: %s\ncommand: mpirun hostname\nworkers: 2\n"
           % MPI_IMAGE)
    job = get(cluster, "mpijob", "mpicpu")
    assert job["spec"]["slotsPerWorker"] == 1


def test_mpijob_slots_per_worker_and_worker_command(cluster, mnt):
    submit(mnt, "mpicmd", "type: mpijob\nimage: %s\ncommand: mpirun hostname\ngpus: 2\n"
           "slots_per_worker: 4\nworker_command: sleep infinity\n" % MPI_IMAGE)
    job = get(cluster, "mpijob", "mpicmd")
    assert job["spec"]["slotsPerWorker"] == 4
    worker = only_container(replica_specs(job)["Worker"]["template"], "mpi", "Worker")
    assert worker["command"] == ["sh", "-c", "sleep infinity"], show(worker)


def test_mpijob_v2beta1_when_only_v2beta1_is_served(v2):
    c, m = v2
    submit(m, "horovod", MPI)
    check_mpijob(get(c, "mpijob", "horovod"), "horovod", "v2beta1", ["/usr/sbin/sshd", "-De"])


def test_mpijob_v2beta1_worker_command_replaces_sshd(v2):
    c, m = v2
    submit(m, "mpicmd", "type: mpijob\nimage: %s\ncommand: mpirun hostname\n"
           "worker_command: sleep infinity\n" % MPI_IMAGE)
    job = get(c, "mpijob", "mpicmd")
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    worker = only_container(replica_specs(job)["Worker"]["template"], "mpi", "Worker")
    assert worker["command"] == ["sh", "-c", "sleep infinity"], show(worker)
    assert "sshd" not in " ".join(worker.get("args", [])), show(worker)


# ---- xgboostjob, paddlejob, jaxjob ----

def test_xgboostjob_master_and_workers(cluster, mnt):
    submit(mnt, "xgb", "type: xgboostjob\nimage: %s\ncommand: python /opt/mlkube/main.py "
           "--job_type=Train --n_estimators=10\nworkers: 3\ntolerations: [all]\n" % XGB_IMAGE)
    job = get(cluster, "xgboostjob", "xgb")
    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "XGBoostJob"
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(job).items()}
    assert got == {"Master": (1, "Never"), "Worker": (2, "Never")}
    # cleanPodPolicy is the operator's unless set
    assert "cleanPodPolicy" not in job["spec"].get("runPolicy", {}), show(job["spec"])
    for rt, t in templates(job).items():
        c = only_container(t, "xgboost", rt)
        assert c["image"] == XGB_IMAGE
        assert c["command"] == ["sh", "-c", "python /opt/mlkube/main.py --job_type=Train "
                                "--n_estimators=10"]
        assert {"containerPort": 9999, "name": "xgboostjob-port"} in \
            [{k: p[k] for k in ("containerPort", "name") if k in p} for p in c.get("ports", [])], \
            "%s: ports %s" % (rt, c.get("ports"))
        assert env_of(c) == [("workers", "3"), ("gpus", "0"), ("NVIDIA_VISIBLE_DEVICES", "void")]
        assert t["spec"].get("tolerations") == [{"operator": "Exists"}], rt
        assert t["metadata"]["labels"]["createdBy"] == "XGBoostJob", rt
        assert t["metadata"]["labels"]["app"] == "xgboostjob", rt


def test_paddlejob_workers(cluster, mnt):
    submit(mnt, "paddle", "type: paddlejob\nimage: %s\ncommand: python -m "
           "paddle.distributed.launch run_check\nworkers: 2\nclean_pod_policy: All\n"
           % PADDLE_IMAGE)
    job = get(cluster, "paddlejob", "paddle")
    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "PaddleJob"
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(job).items()}
    assert got == {"Worker": (2, "Never")}
    assert job["spec"]["runPolicy"].get("cleanPodPolicy") == "All", show(job["spec"])
    c = only_container(templates(job)["Worker"], "paddle", "Worker")
    assert c["command"] == ["sh", "-c", "python -m paddle.distributed.launch run_check"]
    assert 36543 in [p["containerPort"] for p in c.get("ports", [])], show(c.get("ports"))
    assert env_of(c) == [("workers", "2"), ("gpus", "0"), ("NVIDIA_VISIBLE_DEVICES", "void")]
    assert job["metadata"]["labels"]["createdBy"] == "PaddleJob"


def test_jaxjob_workers(cluster, mnt):
    submit(mnt, "jax", "type: jaxjob\nimage: %s\ncommand: python3 train.py\nworkers: 2\n"
           % JAX_IMAGE)
    job = get(cluster, "jaxjob", "jax")
    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "JAXJob"
    got = {rt: (s["replicas"], s["restartPolicy"]) for rt, s in replica_specs(job).items()}
    assert got == {"Worker": (2, "Never")}
    assert "cleanPodPolicy" not in job["spec"].get("runPolicy", {}), show(job["spec"])
    c = only_container(templates(job)["Worker"], "jax", "Worker")
    assert {"containerPort": 6666, "name": "jaxjob-port"} in \
        [{k: p[k] for k in ("containerPort", "name") if k in p} for p in c.get("ports", [])], \
        show(c.get("ports"))


# ---- tensorboard ----

TB = """\
type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: python train.py --logdir /training_logs
workers: 2
ps: 1
chief: true
env: {SIM_RUN_SECONDS: "3600"}
tensorboard: true
tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
priority: high
image_pull_secrets: regcred
"""


@pytest.fixture(scope="module")
def tb(cluster, mnt):
    submit(mnt, "tb", TB)
    return (get(cluster, "tfjob", "tb"), get(cluster, "deployment", "tb-tensorboard"),
            get(cluster, "service", "tb-tensorboard"))


def check_owned(obj, job):
    want = [{"apiVersion": job["apiVersion"], "kind": job["kind"],
             "name": job["metadata"]["name"], "uid": job["metadata"]["uid"],
             "controller": True, "blockOwnerDeletion": True}]
    assert obj["metadata"].get("ownerReferences") == want, \
        "%s %s: ownerReferences %s" % (obj["kind"], obj["metadata"]["name"],
                                       show(obj["metadata"].get("ownerReferences")))


def check_tb_labels(obj, job):
    l = obj["metadata"].get("labels", {})
    jl = job["metadata"]["labels"]
    assert {k: l.get(k) for k in ("app", "release", "createdBy", "role")} == \
        {"app": jl["app"], "release": jl["release"], "createdBy": jl["createdBy"],
         "role": "tensorboard"}, "%s labels %s" % (obj["kind"], show(l))


def test_tensorboard_service_is_a_nodeport_owned_by_the_job(tb):
    job, _, svc = tb
    check_owned(svc, job)
    check_tb_labels(svc, job)
    assert svc["spec"]["type"] == "NodePort"
    ports = [{k: p.get(k) for k in ("name", "port", "targetPort")} for p in svc["spec"]["ports"]]
    assert ports == [{"name": "tensorboard", "port": 6006, "targetPort": 6006}], show(ports)
    assert svc["spec"]["selector"] == {"app": "tfjob", "release": "tb", "role": "tensorboard"}


def test_tensorboard_deployment_is_owned_and_reads_the_local_logs(tb):
    job, dep, svc = tb
    check_owned(dep, job)
    check_tb_labels(dep, job)
    assert dep["spec"].get("replicas", 1) == 1
    t = dep["spec"]["template"]
    for k, v in svc["spec"]["selector"].items():
        assert t["metadata"]["labels"].get(k) == v, "the Service selects the pod: %s" % k
    cs = t["spec"]["containers"]
    assert len(cs) == 1, show(cs)
    c = cs[0]
    assert c["image"] == TENSORBOARD_IMAGE
    run = words(c.get("command", []) + c.get("args", []))
    assert has_run(run, ["tensorboard", "--logdir", "/output/training_logs",
                         "--host", "0.0.0.0"]), run
    assert 6006 in [p["containerPort"] for p in c.get("ports", [])], show(c.get("ports"))
    s = t["spec"]
    assert s.get("tolerations") == [{"key": "nvidia.com/gpu", "operator": "Exists",
                                     "effect": "NoSchedule"}], show(s.get("tolerations"))
    assert s.get("priorityClassName") == "high"
    assert s.get("imagePullSecrets") == [{"name": "regcred"}]
    logs = [v for v in s.get("volumes", []) if "hostPath" in v]
    ns = job["metadata"]["namespace"]
    assert [v["hostPath"]["path"] for v in logs] == ["/arena_logs/%s/tb" % ns], show(logs)
    assert mounts_of(c).get(logs[0]["name"]) == "/output/training_logs", show(c)


def test_tensorboard_job_pods_write_logs_to_the_node(tb):
    job = tb[0]
    for rt, t in templates(job).items():
        vols = volumes_of(t)
        c = only_container(t, "tensorflow", rt)
        if rt == "PS":                  # the log volume: Workers and the Chief only
            assert "training-logs-volume" not in [v["name"] for v in vols], show(vols)
            continue
        assert vols[-1]["name"] == "training-logs-volume", "%s: %s" % (rt, show(vols))
        assert vols[-1]["hostPath"] == {"path": "/arena_logs/%s/tb" % job["metadata"]["namespace"],
                                        "type": "DirectoryOrCreate"}, show(vols[-1])
        assert mounts_of(c).get("training-logs-volume") == "/training_logs", rt


def affinity_targets(c, dep, job, npods):
    """The pods of job (once all npods exist) that the Deployment's required
    podAffinity selects, by the labels the simulated operators give them."""
    terms = dep["spec"]["template"]["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]
    assert len(terms) == 1 and terms[0].get("topologyKey") == "kubernetes.io/hostname", \
        show(terms)
    ml = terms[0]["labelSelector"].get("matchLabels", {})
    assert ml.get("training.kubeflow.org/job-name") == job, show(ml)
    assert ml.get("training.kubeflow.org/replica-index") == "0", show(ml)

    def pods():
        items = c.kubectl_json("get", "pods", "-l", "training.kubeflow.org/job-name=" + job)
        return items["items"] if len(items["items"]) == npods else None
    items = wait_until(pods, timeout=30, message="the %d pods of %s" % (npods, job))
    return [p["metadata"]["name"] for p in items
            if all(p["metadata"]["labels"].get(k) == v for k, v in ml.items())]


def test_tensorboard_affinity_selects_pod_0_of_the_chief(cluster, tb):
    assert affinity_targets(cluster, tb[1], "tb", 4) == ["tb-chief-0"]


def test_tensorboard_reads_logdir_on_a_data_pvc(cluster, mnt):
    submit(mnt, "tbpvc", "type: pytorchjob\nimage: %s\ncommand: python t.py\nworkers: 2\n"
           "env: {SIM_RUN_SECONDS: '3600'}\n"
           "data: {tb-logs: /logs}\nlogdir: /logs/run1\ntensorboard: true\n"
           "tensorboard_image: tensorflow/tensorflow:2.15.0\n" % TORCH_IMAGE)
    job = get(cluster, "pytorchjob", "tbpvc")
    for rt, t in templates(job).items():
        assert not [v for v in volumes_of(t) if "hostPath" in v], \
            "%s: %s" % (rt, show(volumes_of(t)))
    dep = get(cluster, "deployment", "tbpvc-tensorboard")
    check_owned(dep, job)
    check_owned(get(cluster, "service", "tbpvc-tensorboard"), job)
    s = dep["spec"]["template"]["spec"]
    c = s["containers"][0]
    assert c["image"] == "tensorflow/tensorflow:2.15.0"
    assert has_run(words(c.get("command", []) + c.get("args", [])),
                   ["tensorboard", "--logdir", "/logs/run1", "--host", "0.0.0.0"]), show(c)
    pvc = [v for v in s.get("volumes", []) if "persistentVolumeClaim" in v]
    assert [v["persistentVolumeClaim"]["claimName"] for v in pvc] == ["tb-logs"], show(s)
    assert mounts_of(c).get(pvc[0]["name"]) == "/logs", show(c)
    assert affinity_targets(cluster, dep, "tbpvc", 2) == ["tbpvc-master-0"]


def test_tensorboard_of_mpijob_v2beta1_follows_worker_0(v2):
    c, m = v2
    submit(m, "mpitb", "type: mpijob\nimage: %s\ncommand: mpirun hostname\nworkers: 2\n"
           "env: {SIM_RUN_SECONDS: '3600'}\ntensorboard: true\n" % MPI_IMAGE)
    job = get(c, "mpijob", "mpitb")
    dep = get(c, "deployment", "mpitb-tensorboard")
    check_owned(dep, job)
    check_owned(get(c, "service", "mpitb-tensorboard"), job)
    ml = dep["spec"]["template"]["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]["matchLabels"]
    assert "training.kubeflow.org/job-role" in ml, show(ml)
    assert affinity_targets(c, dep, "mpitb", 3) == ["mpitb-worker-0"]


def test_deleting_the_job_deletes_its_tensorboard(cluster, mnt):
    submit(mnt, "tbgone", "type: tfjob\nimage: %s\ncommand: python t.py\ntensorboard: true\n"
           % TF_IMAGE)
    get(cluster, "deployment", "tbgone-tensorboard")
    cluster.kubectl("delete", "tfjob", "tbgone")

    def gone():
        r = cluster.kubectl("get", "deployment,service", "tbgone-tensorboard",
                            "--ignore-not-found", "-o", "name")
        return r.stdout.strip() == ""
    wait_until(gone, timeout=30, message="tbgone-tensorboard garbage-collected")


# ---- full manifests ----

RAW = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
       "metadata": {"labels": {"team": "raw"}, "annotations": {"note": "as is"}},
       "spec": {"runPolicy": {"backoffLimit": 2},
                "pytorchReplicaSpecs": {"Master": {
                    "replicas": 1, "restartPolicy": "OnFailure",
                    "template": {"spec": {"containers": [{
                        "name": "pytorch", "image": TORCH_IMAGE,
                        "command": ["python", "train.py"]}]}}}}}}
# RAW as the API server keeps it: the CRD's default suspend: false filled in
RAW_STORED = dict(RAW["spec"], runPolicy={"backoffLimit": 2, "suspend": False})


def test_full_manifest_is_created_as_it_stands(cluster, mnt):
    submit(mnt, "raw-job", yaml.safe_dump(RAW))       # no metadata.name: the file's name
    job = get(cluster, "pytorchjob", "raw-job")
    assert job["metadata"]["namespace"] == cluster.namespace
    assert job["metadata"].get("labels") == {"team": "raw"}
    assert job["metadata"].get("annotations") == {"note": "as is"}
    assert job["spec"] == RAW_STORED, show(job["spec"])


def test_full_manifest_is_named_after_its_file(cluster, mnt):
    raw = dict(RAW, metadata={"name": "raw-named"})
    submit(mnt, "some-file", yaml.safe_dump(raw))
    job = get(cluster, "pytorchjob", "some-file")
    assert job["metadata"].get("labels") is None and job["spec"] == RAW_STORED
    r = cluster.kubectl("get", "pytorchjob", "raw-named", "--ignore-not-found", "-o", "name")
    assert r.stdout.strip() == ""
    # copied in as submit/spec.yaml (a job's spec.yaml as it is): its own name
    submit(mnt, "spec", yaml.safe_dump(raw))
    assert get(cluster, "pytorchjob", "raw-named")["spec"] == RAW_STORED


def test_full_manifest_of_another_namespace_is_refused(cluster, mnt):
    raw = dict(RAW, metadata={"name": "elsewhere", "namespace": "team-a"})
    rc = write_spec(mnt.path("submit", "elsewhere.yaml"), yaml.safe_dump(raw))
    status, err = staging(mnt, "elsewhere")
    assert rc != 0 and status == "failed\n" and err, (rc, status, err)
    for ns in (cluster.namespace, "team-a"):
        r = cluster.kubectl("get", "pytorchjob", "elsewhere", "-n", ns, "--ignore-not-found",
                            "-o", "name")
        assert r.stdout.strip() == "", "created in %s" % ns


# ---- the stored spec ----

def test_stored_spec_is_the_spec_with_a_name_line_in_front(mnt, vision):
    assert mnt.read("jobs", "vision", "spec.yaml") == "name: vision\n" + TF_FULL


def test_stored_spec_with_a_name_is_byte_equal(cluster, mnt):
    text = "# a comment stays\nname: named\ntype: tfjob\nimage: %s\ncommand: python t.py  " \
           "# and this one\nx-anchor: &a {A: \"1\"}\nenv: *a\n" % TF_IMAGE
    submit(mnt, "named", text)
    assert mnt.read("jobs", "named", "spec.yaml") == text
    job = get(cluster, "tfjob", "named")
    assert job["metadata"]["annotations"]["arenafs.io/spec"] == text
    # x- keys are ignored and their anchors usable
    c = only_container(templates(job)["Chief"], "tensorflow", "Chief")
    assert env_of(c)[0] == ("A", "1"), env_of(c)


def test_stored_spec_says_the_name_of_the_file(mnt):
    text = "# a comment stays\nname: \"other\"  # and this one\ntype: tfjob\nimage: %s\n" \
           "command: python t.py\n" % TF_IMAGE
    submit(mnt, "file-named", text)
    assert mnt.read("jobs", "file-named", "spec.yaml") == \
        text.replace('name: "other"', "name: file-named")


def test_stored_spec_name_goes_after_a_leading_document_marker(mnt):
    body = "type: xgboostjob\nimage: %s\ncommand: python t.py\n" % XGB_IMAGE
    submit(mnt, "dashed", "---\n" + body)
    assert mnt.read("jobs", "dashed", "spec.yaml") == "---\nname: dashed\n" + body


def test_stored_spec_name_goes_inside_a_flow_mapping(mnt):
    text = "{type: paddlejob, image: %s, command: python t.py}\n" % PADDLE_IMAGE
    submit(mnt, "flowing", text)
    got = mnt.read("jobs", "flowing", "spec.yaml")
    assert yaml.safe_load(got) == dict(yaml.safe_load(text), name="flowing"), got
    assert re.sub(r"name: *flowing *, *", "", got, count=1) == text, got


def test_stored_spec_copied_back_names_the_same_job(cluster, mnt):
    submit(mnt, "echo", "type: tfjob\nimage: %s\ncommand: python t.py\n" % TF_IMAGE)
    uid = get(cluster, "tfjob", "echo")["metadata"]["uid"]
    stored = mnt.read("jobs", "echo", "spec.yaml")
    # as submit/spec.yaml (named by its name:) while the job exists: EEXIST
    rc = write_spec(mnt.path("submit", "spec.yaml"), stored)
    status, err = staging(mnt, "spec")
    assert (errno.errorcode.get(rc), status) == ("EEXIST", "failed\n"), (rc, status, err)
    assert err and "exists" in err, err
    assert get(cluster, "tfjob", "echo")["metadata"]["uid"] == uid
    # under another file name: a job of that name (a rerun), saying its name
    assert write_spec(mnt.path("submit", "echo-copy.yaml"), stored) == 0, \
        staging(mnt, "echo-copy")
    copy = get(cluster, "tfjob", "echo-copy")
    assert mnt.read("jobs", "echo-copy", "spec.yaml") == \
        stored.replace("name: echo\n", "name: echo-copy\n", 1)
    echo = get(cluster, "tfjob", "echo")
    assert templates(copy)["Chief"]["spec"] == templates(echo)["Chief"]["spec"]
    cluster.kubectl("delete", "tfjob", "echo")
    wait_until(lambda: not os.path.exists(mnt.path("jobs", "echo")), timeout=30,
               message="jobs/echo gone")
    # once it is gone: the same job again, and the same stored spec
    assert write_spec(mnt.path("submit", "spec.yaml"), stored) == 0, staging(mnt, "spec")
    assert staging(mnt, "spec")[0] == "submitted\n"
    again = get(cluster, "tfjob", "echo")
    assert again["metadata"]["uid"] != uid
    assert mnt.read("jobs", "echo", "spec.yaml") == stored
