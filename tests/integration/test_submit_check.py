"""check/: a dry run of what submit/ would make (docs/submit.md, "Checking a
spec"). `cp spec.yaml check/` answers with the objects the API server's dry run
returned (its defaults applied) in check/NAME/objects.yaml, or with submit/'s
own errno and error; a folder shows its code's ConfigMap too. Nothing is ever
created: every kind submit/ makes is listed before and after, on kubesim and
on the real cluster."""

import errno
import os
import subprocess

import pytest
import yaml

from helpers import wait_until, write_as_cp
import realcluster

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n"
        "tensorboard: true\n"
        'env: {SIM_RUN_SECONDS: "30", KWOK_RUN: "30s"}\n')

# every kind a submission may make, and what its job makes
KINDS = "tfjobs,pytorchjobs,mpijobs,xgboostjobs,paddlejobs,deployments,services,configmaps,pods"


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    """kubesim, or the real cluster in a namespace of this module's own; one mount."""
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "2", "--gpus", "8",
                                   "--speed", "4")
    return c, arenafs_module(c)


def everything(c):
    """Every object of the kinds a submission makes, in the test's namespace."""
    return sorted(c.kubectl("get", KINDS, "-n", c.namespace, "-o", "name").stdout.split())


def outcome(m, area, entry):
    status = m.read(area, entry, "status")
    err_path = m.path(area, entry, "error")
    return status, (m.read(area, entry, "error") if os.path.exists(err_path) else None)


def documents(m, entry):
    text = m.read("check", entry, "objects.yaml")
    return [d for d in yaml.safe_load_all(text) if d is not None]


def test_check_shows_the_objects_with_server_defaults_and_makes_nothing(env):
    c, m = env
    before = everything(c)
    rc = write_as_cp(m.path("check", "dry.yaml"), SPEC)
    status, err = outcome(m, "check", "dry")
    assert rc == 0 and status == "checked\n" and err is None, (rc, status, err)
    assert os.stat(m.path("check", "dry", "objects.yaml")).st_mode & 0o777 == 0o444
    docs = documents(m, "dry")
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("TFJob", "dry"), ("Deployment", "dry-tensorboard"), ("Service", "dry-tensorboard")], docs
    for d in docs:
        assert d["metadata"]["namespace"] == c.namespace, d["metadata"]
        assert d["metadata"].get("uid"), "the server's answer has a uid: %s" % d["metadata"]
        assert "managedFields" not in d["metadata"], d["metadata"]
    # The spec names none of these (arenafs' manifests neither): the CRD schema's
    # default, applied by the API server to the job ...
    assert docs[0]["spec"]["runPolicy"]["suspend"] is False, docs[0]["spec"]["runPolicy"]
    # ... and the API server's defaults for a Deployment.
    dep = docs[1]
    container = dep["spec"]["template"]["spec"]["containers"][0]
    assert container["terminationMessagePath"] == "/dev/termination-log", container
    assert dep["spec"]["template"]["spec"]["restartPolicy"] == "Always", dep["spec"]
    assert dep["spec"]["revisionHistoryLimit"] == 10, dep["spec"]
    # ... and nothing of it exists, in the cluster or in the tree.
    assert everything(c) == before
    assert "dry" not in os.listdir(m.path("jobs"))
    assert c.kubectl("get", "tfjob", "dry", "-n", c.namespace, check=False).returncode != 0


def test_check_of_a_bad_spec_fails_as_submit_does(env):
    c, m = env
    bad = SPEC.replace("gpus: 1", "gpus: [1]")
    before = everything(c)
    rc_check = write_as_cp(m.path("check", "bad.yaml"), bad)
    rc_submit = write_as_cp(m.path("submit", "bad.yaml"), bad)
    assert rc_check == rc_submit == errno.EINVAL, (rc_check, rc_submit)
    assert outcome(m, "check", "bad") == outcome(m, "submit", "bad")
    assert outcome(m, "check", "bad")[0] == "failed\n"
    assert not os.path.exists(m.path("check", "bad", "objects.yaml"))
    assert everything(c) == before


def test_check_of_a_taken_name_is_the_servers_eexist(env):
    c, m = env
    spec = SPEC.replace("tensorboard: true\n", "")
    assert write_as_cp(m.path("submit", "taken.yaml"), spec) == 0
    uid = c.kubectl_json("get", "tfjob", "taken", "-n", c.namespace)["metadata"]["uid"]
    rc = write_as_cp(m.path("check", "taken.yaml"), spec)
    status, err = outcome(m, "check", "taken")
    assert rc == errno.EEXIST and status == "failed\n", (rc, status, err)
    assert "taken" in err and "already exists" in err, err
    assert not os.path.exists(m.path("check", "taken", "objects.yaml"))
    # the job that was there is the same one: the check touched nothing
    assert c.kubectl_json("get", "tfjob", "taken", "-n", c.namespace)["metadata"]["uid"] == uid


def test_check_of_a_folder_shows_its_code_configmap(env, tmp_path):
    c, m = env
    src = tmp_path / "withcode"
    src.mkdir()
    (src / "spec.yaml").write_text(SPEC.replace("tensorboard: true\n", ""))
    (src / "train.py").write_text("print('hello')\n")
    before = everything(c)
    subprocess.run(["cp", "-r", str(src), m.path("check") + "/"], check=True)
    wait_until(lambda: outcome(m, "check", "withcode")[0] not in ("submitting\n",),
               timeout=30, message="check/withcode/status to leave submitting")
    assert outcome(m, "check", "withcode") == ("checked\n", None)
    docs = documents(m, "withcode")
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("TFJob", "withcode"), ("ConfigMap", "withcode-code")], docs
    assert "print('hello')\n" in docs[1]["data"].values(), docs[1]
    assert everything(c) == before
    assert "withcode" not in os.listdir(m.path("jobs"))


def test_check_and_submit_are_two_trees(env):
    c, m = env
    assert write_as_cp(m.path("check", "twin.yaml"), SPEC) == 0
    assert "twin.yaml" not in os.listdir(m.path("submit"))
    with pytest.raises(OSError) as e:
        os.rename(m.path("check", "twin.yaml"), m.path("submit", "twin.yaml"))
    assert e.value.errno == errno.EXDEV
    assert "check" in os.listdir(m.path())
