"""Launching and deleting jobs with the tools people already use (issue 5):
cp -r, cp, cp -a, install, rsync, shell redirection and the two ways editors
save, each making a job that kubectl then shows; rmdir and rm -r deleting a job
and what it owns; rm -r of a staging entry leaving the job alone; readonly
mounts refusing both; reruns (cp jobs/A/spec.yaml submit/B.yaml) and the
staging entry's status following its job until it is deleted. The objects'
fields per job type are checked in test_submit_objects.py, the failures in
test_submit_errors.py."""

import errno
import json
import os
import shutil
import stat
import subprocess

import pytest

from helpers import wait_until
import realcluster
import tree_expect as te

# how long the containers run: kubesim's SIM_* and the real cluster's kwok KWOK_RUN
SIM_ENV = ('env: {SIM_START_SECONDS: "1", SIM_RUN_SECONDS: "3", SIM_LOG_LINES_PER_SECOND: "4",'
           ' KWOK_RUN: "3s"}\n')


def spec(name=None, workers=1, gpus=1, tensorboard=False, extra=""):
    text = ("type: tfjob\n"
            "image: tensorflow/tensorflow:2.15.0-gpu\n"
            "command: python train.py --epochs 1\n"
            "gpus: %d\nworkers: %d\n" % (gpus, workers) + SIM_ENV + extra)
    if name:
        text = "name: %s\n" % name + text
    if tensorboard:
        text += "tensorboard: true\n"
    return text


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    """kubesim, or the real cluster in a namespace of this module's own; one mount."""
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "3", "--gpus", "8", "--speed", "4")
    return c, arenafs_module(c)


def listdir(path):
    return sorted(os.listdir(path))


def run(*cmd, **kw):
    return subprocess.run([str(a) for a in cmd], capture_output=True, text=True, timeout=120,
                          **kw)


def assert_launched(c, m, name, entry=None, workers=1):
    """The job exists in kubectl and in jobs/ the moment the copy returned, and the
    staging entry says submitted."""
    assert os.path.isdir(m.path("jobs", name)), listdir(m.path("jobs"))
    job = c.kubectl_json("get", "tfjob", name)
    replicas = job["spec"]["tfReplicaSpecs"]
    # Arena's standalone mode: one worker and no PS is a single Chief (docs/spec.md)
    role = replicas["Chief"] if workers == 1 else replicas["Worker"]
    assert role["replicas"] == (1 if workers == 1 else workers)
    ctr = role["template"]["spec"]["containers"][0]
    assert ctr["image"] == "tensorflow/tensorflow:2.15.0-gpu"
    assert ctr["resources"]["limits"]["nvidia.com/gpu"] in (1, "1")
    entry = entry or name
    assert m.read("submit", entry, "status") == "submitted\n"
    assert not os.path.exists(m.path("submit", entry, "error"))
    return job


def test_cp_r_directory_launches_the_job_and_it_runs_to_succeeded(env, tmp_path):
    c, m = env
    src = tmp_path / "mnist"
    src.mkdir()
    (src / "spec.yaml").write_text(spec(workers=2))
    (src / "notes.txt").write_text("what this run is for\n")
    r = run("cp", "-r", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "mnist", workers=2)
    # the copy is all there: the spec as written, the other file kept, the outcome
    assert listdir(m.path("submit", "mnist")) == ["notes.txt", "spec.yaml", "status"]
    assert m.read("submit", "mnist", "spec.yaml") == spec(workers=2)
    assert m.read("submit", "mnist", "notes.txt") == "what this run is for\n"
    wait_until(lambda: m.read("jobs", "mnist", "status") == "SUCCEEDED\n", timeout=90,
               message="mnist to run to SUCCEEDED in the tree")
    job = c.kubectl_json("get", "tfjob", "mnist")
    assert te.job_status(job, te.pods_of_job(job, te.pods(c))) == "SUCCEEDED"


def test_cp_of_one_file_names_the_job_after_the_file(env, tmp_path):
    c, m = env
    src = tmp_path / "single.yaml"
    src.write_text(spec())
    r = run("cp", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "single")
    # the file stays where cp put it; its outcome has a directory of its own
    assert m.read("submit", "single.yaml") == spec()
    assert listdir(m.path("submit", "single")) == ["status"]


def test_file_name_wins_over_the_spec_name(env, tmp_path):
    c, m = env
    src = tmp_path / "whatever.yml"
    src.write_text(spec(name="named-in-spec"))
    r = run("cp", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "whatever")
    assert gone_from_cluster(c, "tfjob/named-in-spec")
    # the stored spec says the name the job got
    assert m.read("jobs", "whatever", "spec.yaml") == spec(name="whatever")
    # a file name that can name no job (an underscore): the spec's name: does
    src = tmp_path / "named_v2.yml"
    src.write_text(spec(name="named-v2"))
    r = run("cp", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "named-v2", entry="named_v2")


def test_shell_redirection_launches_the_job(env):
    c, m = env
    r = run("sh", "-c", 'cat > "$1"', "sh", m.path("submit", "redirected.yaml"),
            input=spec())
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "redirected")


def test_cp_a_and_install_keep_mode_and_times(env, tmp_path):
    c, m = env
    src = tmp_path / "preserved"
    src.mkdir()
    (src / "spec.yaml").write_text(spec())
    os.chmod(src / "spec.yaml", 0o640)
    os.utime(src / "spec.yaml", (1_700_000_000, 1_700_000_000))
    r = run("cp", "-a", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "preserved")
    st = os.stat(m.path("submit", "preserved", "spec.yaml"))
    assert stat.S_IMODE(st.st_mode) == 0o640
    assert int(st.st_mtime) == 1_700_000_000

    (tmp_path / "installed.yaml").write_text(spec())
    r = run("install", "-m", "600", tmp_path / "installed.yaml", m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "installed")
    assert stat.S_IMODE(os.stat(m.path("submit", "installed.yaml")).st_mode) == 0o600


def test_rsync_launches_the_job_through_its_temporary_file(env, tmp_path):
    c, m = env
    src = tmp_path / "synced"
    src.mkdir()
    (src / "spec.yaml").write_text(spec())
    r = run("rsync", "-a", src, m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "synced")
    # rsync wrote .spec.yaml.XXXXXX and renamed it: nothing of that is left
    assert listdir(m.path("submit", "synced")) == ["spec.yaml", "status"]


def test_editor_saving_by_rename_launches_the_job(env):
    """gedit, VS Code's atomic save, emacs: write a temporary file, rename it over."""
    c, m = env
    tmp = m.path("submit", ".saved.yaml.swp")
    with open(tmp, "w") as f:
        f.write(spec())
    assert not os.path.exists(m.path("jobs", "saved")), "a temporary file is never a spec"
    os.rename(tmp, m.path("submit", "saved.yaml"))
    assert_launched(c, m, "saved")
    assert listdir(m.path("submit")).count(".saved.yaml.swp") == 0


def test_fixing_a_failed_spec_in_place_launches_it(env):
    """vim's way: keep a backup by renaming, write the file anew."""
    c, m = env
    path = m.path("submit", "fixed.yaml")
    f = open(path, "w")
    f.write(spec().replace("gpus: 1", "gpus: one"))
    with pytest.raises(OSError) as e:
        f.close()
    assert e.value.errno == errno.EINVAL
    assert m.read("submit", "fixed", "status") == "failed\n"
    assert "gpus" in m.read("submit", "fixed", "error")
    os.rename(path, path + "~")
    with open(path, "w") as f:
        f.write(spec())
    assert_launched(c, m, "fixed")
    os.unlink(path + "~")


def test_tensorboard_url_appears_for_a_job_that_asked_for_one(env, tmp_path):
    c, m = env
    (tmp_path / "boarded.yaml").write_text(spec(tensorboard=True))
    assert run("cp", tmp_path / "boarded.yaml", m.path("submit")).returncode == 0
    assert_launched(c, m, "boarded")

    def agrees():
        job = c.kubectl_json("get", "tfjob", "boarded")
        url = te.tensorboard_url(job, c.kubectl_json("get", "services")["items"],
                                 c.kubectl_json("get", "nodes")["items"])
        return url and m.read("jobs", "boarded", "tensorboard_url") == url + "\n"
    wait_until(agrees, timeout=30, message="tensorboard_url to agree with kubectl")


def test_rm_r_of_a_staging_entry_leaves_the_job(env, tmp_path):
    c, m = env
    (tmp_path / "kept.yaml").write_text(spec())
    assert run("cp", tmp_path / "kept.yaml", m.path("submit")).returncode == 0
    assert_launched(c, m, "kept")
    r = run("rm", "-r", m.path("submit", "kept"), m.path("submit", "kept.yaml"))
    assert r.returncode == 0, r.stderr
    assert "kept" not in listdir(m.path("submit"))
    assert "kept.yaml" not in listdir(m.path("submit"))
    assert c.kubectl_json("get", "tfjob", "kept")["metadata"]["name"] == "kept"
    assert os.path.isdir(m.path("jobs", "kept"))


def gone_from_cluster(c, *names):
    """None of the kind/name pairs exists any more."""
    out = c.kubectl("get", *names, "--ignore-not-found", "-o", "name").stdout
    return out.strip() == ""


def test_rmdir_deletes_the_job_and_everything_it_owns(env, tmp_path):
    c, m = env
    (tmp_path / "doomed.yaml").write_text(spec(tensorboard=True, workers=2))
    assert run("cp", tmp_path / "doomed.yaml", m.path("submit")).returncode == 0
    assert_launched(c, m, "doomed", workers=2)
    wait_until(lambda: len(te.pods_of_job(c.kubectl_json("get", "tfjob", "doomed"),
                                          te.pods(c))) >= 2,
               message="doomed's pods to be made")
    c.kubectl("get", "deployment/doomed-tensorboard", "service/doomed-tensorboard")
    os.rmdir(m.path("jobs", "doomed"))
    # gone from the tree when rmdir returns, gone from the API server
    assert "doomed" not in listdir(m.path("jobs"))
    assert gone_from_cluster(c, "tfjob/doomed")
    # the garbage collector follows the owner references: nothing is orphaned
    wait_until(lambda: gone_from_cluster(c, "deployment/doomed-tensorboard",
                                         "service/doomed-tensorboard"),
               timeout=30, message="the TensorBoard to be collected")
    wait_until(lambda: not [p for p in te.pods(c)
                            if te.labels(p).get("training.kubeflow.org/job-name") == "doomed"],
               timeout=60, message="doomed's pods to be collected")
    # and nothing of it is left to look up under its old path
    with pytest.raises(FileNotFoundError):
        os.stat(m.path("jobs", "doomed", "status"))


@pytest.mark.parametrize("flags", ["-r", "-rf"])
def test_rm_r_of_a_job_directory_deletes_the_job(env, tmp_path, flags):
    """rm -r and rm -rf empty a directory before removing it: inside a job's
    directory every unlink and rmdir returns 0 and changes nothing, so that the
    job itself is deleted and rm exits 0 (docs/tree.md, "Deleting")."""
    c, m = env
    name = "removed" + flags.replace("-", "")
    (tmp_path / (name + ".yaml")).write_text(spec())
    assert run("cp", tmp_path / (name + ".yaml"), m.path("submit")).returncode == 0
    assert_launched(c, m, name)
    wait_until(lambda: os.listdir(m.path("jobs", name, "instances")),
               message=name + "'s instances to be listed")
    # a subdirectory alone: 0, and nothing changes
    pods = listdir(m.path("jobs", name, "instances"))
    os.rmdir(m.path("jobs", name, "instances", pods[0]))
    os.rmdir(m.path("jobs", name, "instances"))
    assert listdir(m.path("jobs", name, "instances")) == pods
    r = run("rm", flags, m.path("jobs", name))
    assert r.returncode == 0, r.stderr
    assert name not in listdir(m.path("jobs"))
    assert gone_from_cluster(c, "tfjob/" + name)


def test_unlink_of_one_job_file_changes_nothing(env, tmp_path):
    c, m = env
    (tmp_path / "intact.yaml").write_text(spec())
    assert run("cp", tmp_path / "intact.yaml", m.path("submit")).returncode == 0
    os.unlink(m.path("jobs", "intact", "status"))     # what rm -r does first
    assert os.path.exists(m.path("jobs", "intact", "status"))
    assert c.kubectl_json("get", "tfjob", "intact")["metadata"]["name"] == "intact"


def test_spec_yaml_of_a_job_copied_back_as_it_is_runs_it_again(env, tmp_path):
    c, m = env
    (tmp_path / "again.yaml").write_text(spec())
    assert run("cp", tmp_path / "again.yaml", m.path("submit")).returncode == 0
    assert_launched(c, m, "again")
    # the name came from the file: the stored spec carries it
    stored = m.read("jobs", "again", "spec.yaml")
    assert stored == "name: again\n" + spec()
    shutil.copy(m.path("jobs", "again", "spec.yaml"), tmp_path / "spec.yaml")
    # submit/spec.yaml names no job, its name: does: while the job exists, EEXIST
    r = run("cp", tmp_path / "spec.yaml", m.path("submit"))
    assert r.returncode == 1 and "File exists" in r.stderr, r.stderr
    assert m.read("submit", "spec", "status") == "failed\n"
    os.rmdir(m.path("jobs", "again"))
    r = run("cp", tmp_path / "spec.yaml", m.path("submit"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "again", entry="spec")


def read_status(m, entry):
    """submit/ENTRY/status, checking that its size is what a read returns."""
    text = m.read("submit", entry, "status")
    assert os.stat(m.path("submit", entry, "status")).st_size == len(text), text
    return text


def as_created(job, name):
    """The job as its spec made it, with its name written NAME: what the API server
    added (status, uid, times) left out."""
    job = dict(job, metadata=dict(job["metadata"]))
    job.pop("status", None)
    for k in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"):
        job["metadata"].pop(k, None)
    return json.loads(json.dumps(job, sort_keys=True).replace(job["metadata"]["name"], name))


def test_cp_of_a_jobs_spec_yaml_to_another_name_reruns_it(env):
    """cp jobs/A/spec.yaml submit/B.yaml: B runs A's spec; B's own spec.yaml says B,
    so it can be copied on in turn; submit/B/status follows B until B is deleted."""
    c, m = env
    with open(m.path("submit", "origin.yaml"), "w") as f:
        f.write(spec(workers=2))
    assert_launched(c, m, "origin", workers=2)
    r = run("cp", m.path("jobs", "origin", "spec.yaml"), m.path("submit", "rerun.yaml"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "rerun", workers=2)
    assert m.read("jobs", "rerun", "spec.yaml") == "name: rerun\n" + spec(workers=2)
    origin, rerun = (c.kubectl_json("get", "tfjob", n) for n in ("origin", "rerun"))
    assert as_created(rerun, "origin") == as_created(origin, "origin")
    assert rerun["metadata"]["uid"] != origin["metadata"]["uid"]
    wait_until(lambda: m.read("jobs", "rerun", "status") in ("RUNNING\n", "SUCCEEDED\n"),
               timeout=60, message="the rerun to run")

    # and again, from the rerun's own spec.yaml
    r = run("cp", m.path("jobs", "rerun", "spec.yaml"), m.path("submit", "rerun2.yaml"))
    assert r.returncode == 0, r.stderr
    assert_launched(c, m, "rerun2", workers=2)
    assert m.read("jobs", "rerun2", "spec.yaml") == "name: rerun2\n" + spec(workers=2)

    # status follows the job: submitted while it exists, deleted once it is gone
    assert read_status(m, "rerun") == "submitted\n"
    os.rmdir(m.path("jobs", "rerun"))
    assert read_status(m, "rerun") == "deleted\n"
    assert not os.path.exists(m.path("submit", "rerun", "error"))
    assert read_status(m, "rerun2") == "submitted\n"
    assert read_status(m, "origin") == "submitted\n"
    # deleted by someone else: the watch tells
    c.kubectl("delete", "tfjob", "rerun2")
    wait_until(lambda: read_status(m, "rerun2") == "deleted\n", timeout=30,
               message="submit/rerun2/status to say deleted")
    # a job of the same name made since is not the one this entry made
    c.kubectl("delete", "tfjob", "origin")
    wait_until(lambda: not os.path.exists(m.path("jobs", "origin")), timeout=30,
               message="jobs/origin gone")
    c.kubectl("create", "-f", "-", input=json.dumps(as_created(origin, "origin")))
    wait_until(lambda: os.path.isdir(m.path("jobs", "origin")), message="jobs/origin back")
    assert read_status(m, "origin") == "deleted\n"
    # submitting the entry again follows the new job
    with open(m.path("submit", "rerun.yaml"), "w") as f:
        f.write(spec(workers=2))
    assert_launched(c, m, "rerun", workers=2)
    assert read_status(m, "rerun") == "submitted\n"


def test_readonly_mount_refuses_submit_and_delete(any_cluster, arenafs, tmp_path):
    c = any_cluster
    m = arenafs(c, "readonly")
    (tmp_path / "ro.yaml").write_text(spec())
    r = run("cp", tmp_path / "ro.yaml", m.path("submit"))
    assert r.returncode == 1 and "Read-only file system" in r.stderr, r.stderr
    c.kubectl("create", "-f", "-", input=(
        '{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "stays"},'
        ' "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec":'
        ' {"containers": [{"name": "tensorflow", "image": "tf"}]}}}}}}'))
    wait_until(lambda: os.path.isdir(m.path("jobs", "stays")), message="jobs/stays")
    with pytest.raises(OSError) as e:
        os.rmdir(m.path("jobs", "stays"))
    assert e.value.errno == errno.EROFS
    r = run("rm", "-rf", m.path("jobs", "stays"))
    assert r.returncode == 1
    assert c.kubectl_json("get", "tfjob", "stays")["metadata"]["name"] == "stays"
    assert listdir(m.path("submit")) == []
