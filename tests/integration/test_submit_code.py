"""Local code travels with the spec (docs/submit.md, "Local code"): the other
files of a folder copied into submit/ become one ConfigMap owned by the job,
mounted read-only at /code (or code_dir) in every replica, which works there
unless the spec says otherwise; hidden files and __pycache__/ stay behind; code
larger than a ConfigMap holds fails the copy with EFBIG and makes nothing; a
ConfigMap that cannot be made takes its job with it; rmdir deletes it with the
job. On kubesim and the real cluster (fault injection on kubesim only)."""

import base64
import errno
import os
import subprocess

import pytest

from helpers import wait_until
import realcluster

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\nworkers: 2\n"
        'env: {SIM_RUN_SECONDS: "30", KWOK_RUN: "30s"}\n')
BINARY = bytes(range(256)) * 4


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    """kubesim, or the real cluster in a namespace of this module's own; one mount."""
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "3", "--gpus", "8",
                                   "--speed", "4")
    return c, arenafs_module(c)


def run(*cmd, **kw):
    return subprocess.run([str(a) for a in cmd], capture_output=True, text=True, timeout=120,
                          **kw)


def project(tmp_path, name, spec=SPEC):
    """A folder as a data scientist has it: spec, code, a package, a binary file,
    and what is never shipped (.git/, __pycache__/, an editor's swap file)."""
    src = tmp_path / name
    (src / "model").mkdir(parents=True)
    (src / ".git").mkdir()
    (src / "__pycache__").mkdir()
    (src / "spec.yaml").write_text(spec)
    (src / "train.py").write_text("import model.net\nprint('training')\n")
    (src / "model" / "net.py").write_text("LAYERS = 3\n")
    (src / "run.sh").write_text("#!/bin/sh\nexec python train.py\n")
    os.chmod(src / "run.sh", 0o755)
    (src / "weights.bin").write_bytes(BINARY)
    (src / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (src / "__pycache__" / "train.cpython-312.pyc").write_bytes(b"\x00pyc")
    (src / ".train.py.swp").write_text("swap")
    return src


def wait_submitted(m, entry):
    """submit/ENTRY/status once the folder's job was made or refused."""
    wait_until(lambda: m.read("submit", entry, "status") != "submitting\n",
               timeout=30, message="submit/%s/status to leave submitting" % entry)
    return m.read("submit", entry, "status")


def absent(c, kind, name):
    """kubectl finds no KIND NAME."""
    r = c.kubectl("get", kind, name, check=False)
    return r.returncode != 0 and "NotFound" in r.stderr


def code_of(c, name):
    """The ConfigMap NAME-code as {path: bytes}, through the job's volume items."""
    cm = c.kubectl_json("get", "configmap", name + "-code")
    job = c.kubectl_json("get", "tfjob", name)
    vol = [v for v in job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["volumes"]
           if v.get("configMap", {}).get("name") == name + "-code"]
    assert len(vol) == 1, job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]
    files = {}
    for item in vol[0]["configMap"]["items"]:
        key = item["key"]
        if key in cm.get("data", {}):
            files[item["path"]] = cm["data"][key].encode()
        else:
            files[item["path"]] = base64.b64decode(cm["binaryData"][key])
    return cm, job, vol[0], files


def test_cp_r_ships_the_folder_to_every_replica(env, tmp_path):
    c, m = env
    src = project(tmp_path, "shipped")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    # the lookup waits for the copy to be over and the job made
    assert os.path.isdir(m.path("jobs", "shipped"))
    assert wait_submitted(m, "shipped") == "submitted\n", m.read("submit", "shipped", "error")

    cm, job, vol, files = code_of(c, "shipped")
    assert files == {
        "spec.yaml": SPEC.encode(),
        "train.py": b"import model.net\nprint('training')\n",
        "model/net.py": b"LAYERS = 3\n",
        "run.sh": b"#!/bin/sh\nexec python train.py\n",
        "weights.bin": BINARY,
    }, sorted(files)
    modes = {i["path"]: i["mode"] for i in vol["configMap"]["items"]}
    assert modes["run.sh"] == 0o555 and modes["train.py"] == 0o444
    assert cm["immutable"] is True
    assert cm["metadata"]["labels"]["arenafs.io/code"] == "shipped"
    owner = cm["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("TFJob", "shipped",
                                                            job["metadata"]["uid"])
    # mounted read-only at /code, and worked in, in every container of every replica
    for role, rs in job["spec"]["tfReplicaSpecs"].items():
        for ctr in rs["template"]["spec"]["containers"]:
            mounts = [v for v in ctr["volumeMounts"] if v["mountPath"] == "/code"]
            assert len(mounts) == 1 and mounts[0]["readOnly"] is True, (role, ctr)
            assert ctr["workingDir"] == "/code", (role, ctr)
    listed = job["metadata"]["annotations"]["arenafs.io/code"].splitlines()
    assert listed[0] == "configmap shipped-code"
    assert sorted(line.split(" ", 3)[3] for line in listed[1:]) == sorted(files)
    # the pods the operator makes carry the mount (the kubelet waits for the ConfigMap)
    def worker_pod():
        pods = c.kubectl_json("get", "pods", "-l", "training.kubeflow.org/job-name=shipped")
        return pods["items"]
    pods = wait_until(worker_pod, timeout=60, message="the job's pods")
    assert any(v.get("configMap", {}).get("name") == "shipped-code"
               for v in pods[0]["spec"]["volumes"]), pods[0]["spec"]["volumes"]


def test_a_folder_with_only_its_spec_ships_nothing(env, tmp_path):
    c, m = env
    src = tmp_path / "bare"
    src.mkdir()
    (src / "spec.yaml").write_text(SPEC)
    (src / ".hidden").write_text("never shipped")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert wait_submitted(m, "bare") == "submitted\n", m.read("submit", "bare", "error")
    job = c.kubectl_json("get", "tfjob", "bare")
    ctr = job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert ctr["workingDir"] == "/root"     # Arena's default, untouched
    assert "arenafs.io/code" not in job["metadata"].get("annotations", {})
    assert absent(c, "configmap", "bare-code")


def test_code_dir_and_working_dir_are_the_specs_to_choose(env, tmp_path):
    c, m = env
    src = project(tmp_path, "chosen", SPEC + "code_dir: /src\nworking_dir: /workspace\n")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert wait_submitted(m, "chosen") == "submitted\n", m.read("submit", "chosen", "error")
    job = c.kubectl_json("get", "tfjob", "chosen")
    ctr = job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert ctr["workingDir"] == "/workspace"
    assert [v["mountPath"] for v in ctr["volumeMounts"] if v["name"] == "arenafs-code"] == \
        ["/src"]


def test_code_too_large_for_a_configmap_fails_the_copy_and_makes_nothing(env, tmp_path):
    c, m = env
    src = tmp_path / "huge"
    src.mkdir()
    (src / "spec.yaml").write_text(SPEC)
    (src / "a.bin").write_bytes(b"a" * 700_000)
    (src / "b.bin").write_bytes(b"b" * 700_000)
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode != 0
    assert "File too large" in r.stderr, r.stderr
    assert wait_submitted(m, "huge") == "failed\n"
    error = m.read("submit", "huge", "error")
    assert "the code is too large" in error and "1048576" in error, error
    assert "nothing was created" in error, error
    assert not os.path.exists(m.path("jobs", "huge"))
    assert absent(c, "tfjob", "huge") and absent(c, "configmap", "huge-code")


@pytest.mark.parametrize("env", ["kubesim"], indirect=True)     # fault injection
def test_a_configmap_that_cannot_be_made_takes_its_job_with_it(env, tmp_path):
    c, m = env
    c.fault(fail_next=1, code=500,
            match=r"^POST /api/v1/namespaces/default/configmaps\?(?!.*dryRun)")
    src = project(tmp_path, "undone")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr       # the checks passed; the make comes after
    assert wait_submitted(m, "undone") == "failed\n"
    error = m.read("submit", "undone", "error")
    assert error.startswith("creating the code's ConfigMap undone-code: "), error
    assert "TFJob undone, made before it, has been deleted again" in error, error
    wait_until(lambda: absent(c, "tfjob", "undone"), timeout=30,
               message="the job to be gone")
    assert not os.path.exists(m.path("jobs", "undone"))


def test_rmdir_deletes_the_code_with_the_job(env, tmp_path):
    c, m = env
    src = project(tmp_path, "gone")
    assert run("cp", "-r", src, m.path("submit")).returncode == 0
    assert wait_submitted(m, "gone") == "submitted\n", m.read("submit", "gone", "error")
    assert not absent(c, "configmap", "gone-code")
    os.rmdir(m.path("jobs", "gone"))
    wait_until(lambda: absent(c, "configmap", "gone-code"),
               timeout=60, message="the garbage collector to delete gone-code")


def test_a_bad_spec_in_a_folder_still_fails_the_copy(env, tmp_path):
    c, m = env
    src = project(tmp_path, "badfolder", SPEC.replace("gpus: 1", "gpus: two"))
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode != 0 and "Invalid argument" in r.stderr, r.stderr
    assert m.read("submit", "badfolder", "status") == "failed\n"
    assert absent(c, "configmap", "badfolder-code") and absent(c, "tfjob", "badfolder")


def test_a_finished_job_reruns_with_its_code_in_one_cp(env, tmp_path):
    """docs/submit.md: `cp -r jobs/A/code submit/B` runs A's spec and code as B."""
    c, m = env
    src = project(tmp_path, "first")
    assert run("cp", "-r", src, m.path("submit")).returncode == 0
    assert wait_submitted(m, "first") == "submitted\n", m.read("submit", "first", "error")
    r = run("cp", "-r", m.path("jobs", "first", "code"), m.path("submit", "again"))
    assert r.returncode == 0, r.stderr
    assert wait_submitted(m, "again") == "submitted\n", m.read("submit", "again", "error")
    _, job, _, files = code_of(c, "again")
    _, _, _, before = code_of(c, "first")
    assert files == before
    assert job["metadata"]["name"] == "again"
    # what jobs/again/code/ shows is what it ran with
    assert m.read("jobs", "again", "code", "model", "net.py") == "LAYERS = 3\n"
    with open(m.path("jobs", "again", "code", "weights.bin"), "rb") as f:
        assert f.read() == BINARY


def test_a_folder_holding_symlinks_is_refused_and_makes_nothing(env, tmp_path):
    """Issue 23: cp -r of a folder holding links (to /etc/shadow, to a directory
    outside) failed on them, yet a job was made from the rest. submit/ takes no
    links (EPERM), and a folder whose copy failed makes no job: status says failed
    and error names the link; the same folder without the links then submits."""
    c, m = env
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.csv").write_text("1,2\n")
    src = project(tmp_path, "linked")
    os.symlink("/etc/shadow", src / "shadow")
    os.symlink(outside, src / "model" / "data")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode != 0, r.stderr
    assert wait_submitted(m, "linked") == "failed\n"
    assert "cannot create symbolic link" in r.stderr and \
        "Operation not permitted" in r.stderr, r.stderr
    error = m.read("submit", "linked", "error")
    assert error.startswith("the copy of the folder failed, so nothing was created: "), error
    assert "linked/" in error and "a symbolic link (to " in error, error
    assert "(and 1 more refused)" in error, error
    assert not os.path.exists(m.path("jobs", "linked"))
    assert absent(c, "tfjob", "linked") and absent(c, "configmap", "linked-code")
    assert not os.path.lexists(m.path("submit", "linked", "shadow"))
    # the links replaced by what the user means to send: another copy submits
    os.unlink(src / "shadow")
    os.unlink(src / "model" / "data")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert wait_submitted(m, "linked") == "submitted\n", m.read("submit", "linked", "error")
    assert "data.csv" not in str(code_of(c, "linked"))


def test_a_file_whose_name_is_not_utf8_is_named_in_error(env, tmp_path):
    """Issue 23: a code file named in Latin-1 gave "out of memory adding the code
    to the job"; error says which name and what is wrong with it."""
    c, m = env
    src = project(tmp_path, "latin")
    with open(os.path.join(os.fsencode(src), b"caf\xe9.txt"), "wb") as f:
        f.write(b"x\n")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr       # the copy itself is whole
    assert wait_submitted(m, "latin") == "failed\n"
    error = m.read("submit", "latin", "error")
    assert "caf\\xe9.txt is not UTF-8" in error, error
    assert "out of memory" not in error, error
    assert absent(c, "tfjob", "latin") and absent(c, "configmap", "latin-code")
