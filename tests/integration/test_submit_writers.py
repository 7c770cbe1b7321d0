"""What a writer into submit/ did decides what is launched (issue 33, items 3, 4
and 9; issue 32, item 4): a folder copied by a tar that pauses, in a file or
between two, ships every byte written; a spec whose writer was killed, or one
built line by line with >>, launches nothing until it is written whole; two cp
to one name leave the file showing what was launched; a cluster that cannot be
reached fails a submission at once, saying so, and a submission that waits says
what it waits for while it waits. On kubesim (its faults hold requests up and
take the cluster down)."""

import base64
import errno
import os
import signal
import subprocess
import threading
import time

import pytest

from helpers import wait_until, write_as_cp

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python model.py\n")
REST = "gpus: 8\nworkers: 4\n"
ROUNDS = int(os.environ.get("ARENAFS_TEST_ROUNDS", "8"))
TFJOBS = "^POST /apis/kubeflow.org/v1/namespaces/default/tfjobs"


@pytest.fixture(scope="module")
def env(kubesim_module, arenafs_module):
    c = kubesim_module("--nodes", "2", "--gpus", "8", "--speed", "4")
    return c, arenafs_module(c)


def jobs_named(c, name):
    """The TFJobs named name (kubectl get)."""
    out = c.kubectl("get", "tfjobs", "-o", "name").stdout.split()
    return [o for o in out if o.split("/", 1)[1] == name]


def wait_outcome(m, entry):
    wait_until(lambda: os.path.exists(m.path("submit", entry, "status")) and
               m.read("submit", entry, "status") != "submitting\n",
               timeout=60, message="submit/%s/status to leave submitting" % entry)
    return m.read("submit", entry, "status")


def code_files(c, name):
    """The files of the ConfigMap NAME-code as {key: bytes}."""
    cm = c.kubectl_json("get", "configmap", name + "-code")
    files = {k: v.encode() for k, v in cm.get("data", {}).items()}
    files.update({k: base64.b64decode(v) for k, v in cm.get("binaryData", {}).items()})
    return files


# ---- item 3: a folder copy that pauses ----

def tar_member_end(sizes, upto):
    """Bytes of a ustar archive up to the end of member number upto (its data
    padded to 512), members of the given sizes in order."""
    return sum(512 + (s + 511) // 512 * 512 for s in sizes[:upto + 1])


@pytest.mark.parametrize("where", ["inside-a-file", "between-files"])
def test_a_tar_that_pauses_ships_every_byte(env, tmp_path, where):
    """tar c | (a pause) | tar x -C submit/: the pause comes after spec.yaml was
    closed (its checks done), inside model.py or between model.py and data.py.
    Before: the job was made after half a second of quiet with the part of
    model.py written so far, or without data.py, and status said submitted."""
    c, m = env
    name = "paused-" + where.split("-")[0]
    src = tmp_path / name
    src.mkdir()
    model = bytes((i * 7) % 251 for i in range(300_000))
    data = b"1,2,3\n" * 1000
    (src / "spec.yaml").write_text(SPEC)
    (src / "model.py").write_bytes(model)
    (src / "data.py").write_bytes(data)
    members = [name, name + "/spec.yaml", name + "/model.py", name + "/data.py"]
    sizes = [0, len(SPEC), len(model), len(data)]
    cut = (tar_member_end(sizes, 1) + 512 + len(model) // 2 if where == "inside-a-file"
           else tar_member_end(sizes, 2))
    pipeline = ("tar c --format=ustar --no-recursion -C %s %s | "
                "{ head -c %d; sleep 2; cat; } | tar x -C %s"
                % (tmp_path, " ".join(members), cut, m.path("submit")))
    r = subprocess.run(["bash", "-o", "pipefail", "-c", pipeline], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert wait_outcome(m, name) == "submitted\n", m.read("submit", name, "error")
    files = code_files(c, name)
    assert files["model.py"] == model, "model.py shipped %d of %d bytes" % (
        len(files["model.py"]), len(model))
    assert files["data.py"] == data
    with open(m.path("submit", name, "model.py"), "rb") as f:
        assert f.read() == model


def test_a_tar_killed_inside_a_file_makes_no_job(env, tmp_path):
    """tar x killed (Ctrl-C) inside model.py, after spec.yaml was closed: its
    copy is cut short, and no job is made from what arrived."""
    c, m = env
    name = "cut-short"
    src = tmp_path / name
    src.mkdir()
    model = b"x = 1\n" * 50_000
    (src / "spec.yaml").write_text(SPEC)
    (src / "model.py").write_bytes(model)
    members = [name, name + "/spec.yaml", name + "/model.py"]
    archive = subprocess.run(["tar", "c", "--format=ustar", "--no-recursion", "-C",
                              str(tmp_path)] + members, capture_output=True, check=True).stdout
    cut = tar_member_end([0, len(SPEC), len(model)], 1) + 512 + len(model) // 2
    tar = subprocess.Popen(["tar", "x", "-C", m.path("submit")], stdin=subprocess.PIPE)
    tar.stdin.write(archive[:cut])
    tar.stdin.flush()
    model_path = m.path("submit", name, "model.py")
    wait_until(lambda: os.path.exists(model_path) and os.path.getsize(model_path) > 0,
               timeout=30, message="tar to write a part of model.py")
    tar.send_signal(signal.SIGINT)
    assert tar.wait(timeout=30) == -signal.SIGINT
    tar.stdin.close()
    assert wait_outcome(m, name) == "failed\n"
    error = m.read("submit", name, "error")
    assert "cut-short/model.py: may be cut short: tar (pid %d) was killed by signal 2 " \
        "(SIGINT) while writing it" % tar.pid in error, error
    assert jobs_named(c, name) == []


def test_a_script_that_copied_a_folder_finds_its_job(env):
    """A program that copies a folder itself and goes on running (this test's own
    process) holds its copy open while it runs; looking up jobs/NAME says it is
    done, and the lookup finds the job made."""
    c, m = env
    os.mkdir(m.path("submit", "scripted"))
    with open(m.path("submit", "scripted", "spec.yaml"), "w") as f:
        f.write(SPEC)
    with open(m.path("submit", "scripted", "model.py"), "w") as f:
        f.write("print('hello')\n")
    assert os.path.isdir(m.path("jobs", "scripted"))
    assert m.read("submit", "scripted", "status") == "submitted\n"
    assert code_files(c, "scripted")["model.py"] == b"print('hello')\n"


# ---- item 4: a spec whose writer did not finish ----

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_writer_killed_mid_spec_launches_nothing(env, sig):
    """cat > submit/NAME.yaml, three lines typed, then Ctrl-C (or kill): before,
    the kernel's close of the killed cat submitted the three lines, and a job
    ran without its gpus: 8 and workers: 4."""
    c, m = env
    name = "typed-%s" % sig.name.lower()
    cat = subprocess.Popen(["bash", "-c", 'exec cat > "$0"', m.path("submit", name + ".yaml")],
                           stdin=subprocess.PIPE)
    cat.stdin.write(SPEC.encode())
    cat.stdin.flush()
    wait_until(lambda: os.path.exists(m.path("submit", name + ".yaml")) and
               os.path.getsize(m.path("submit", name + ".yaml")) == len(SPEC),
               timeout=30, message="cat to write three lines")
    cat.send_signal(sig)
    assert cat.wait(timeout=30) == -sig
    cat.stdin.close()
    assert wait_outcome(m, name) == "failed\n"
    error = m.read("submit", name, "error")
    assert error.startswith("not submitted: cat (pid %d) was killed by signal %d (%s) "
                            "before it closed submit/%s.yaml" % (cat.pid, sig, sig.name, name)), error
    assert jobs_named(c, name) == []
    # written whole afterwards, it is submitted
    assert write_as_cp(m.path("submit", name + ".yaml"), SPEC + REST) == 0
    assert m.read("submit", name, "status") == "submitted\n"
    job = c.kubectl_json("get", "tfjob", name)
    assert job["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 4


def test_a_spec_built_with_appends_is_staged_until_renamed(env):
    """echo LINE >> submit/NAME.yaml, line by line: before, the job was made at
    the third line (a valid spec), and the later lines' closes were EEXIST,
    which bash's echo does not report. Now each close stages it (exit 0, status
    staged, error says how to submit it), and renaming it to its name submits
    it whole, as docs/submit.md says."""
    c, m = env
    path = m.path("submit", "appended.yaml")
    script = "".join("echo %s >> %s && " % (subprocess.list2cmdline([line]), path)
                     for line in (SPEC + REST).splitlines()) + "true"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert m.read("submit", "appended", "status") == "staged\n"
    error = m.read("submit", "appended", "error")
    assert "appended to (>>)" in error and "mv " in error, error
    assert jobs_named(c, "appended") == []
    # building it under another name, then mv to a spec's name: one submission
    r = subprocess.run(["bash", "-c", "mv %s %s.part && mv %s.part %s" % (path, path, path, path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert m.read("submit", "appended", "status") == "submitted\n"
    job = c.kubectl_json("get", "tfjob", "appended")
    assert job["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 4


# ---- item 9: two cp to one name ----

@pytest.mark.parametrize("delay_ms", [300, 5000])
def test_two_cp_to_one_name_show_what_was_launched(env, tmp_path, delay_ms):
    """Two shells cp different specs to submit/NAME.yaml, the second while the
    first's submission waits for the API server: before, the file showed the
    second spec while the job ran the first, status submitted. Now the second cp
    waits for the first submission (3 s at most: an open that creates holds
    submit/ in the kernel) and is EEXIST, or EBUSY when it is not over by then;
    the file, status and job agree."""
    c, m = env
    name = "race-%d" % delay_ms
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(SPEC + "workers: 2\n")
    b.write_text(SPEC + "workers: 3\n")
    c.fault(delay_ms=delay_ms, delay_match=TFJOBS)
    try:
        first = subprocess.Popen(["cp", str(a), m.path("submit", name + ".yaml")],
                                 stderr=subprocess.PIPE, text=True)
        wait_until(lambda: os.path.exists(m.path("submit", name, "status")),
                   timeout=30, message="the first submission to start")
        second = subprocess.run(["cp", str(b), m.path("submit", name + ".yaml")],
                                capture_output=True, text=True, timeout=120)
        assert first.wait(timeout=120) == 0, first.stderr.read()
    finally:
        c.fault(delay_ms=0)
    assert second.returncode == 1
    if delay_ms > 3000:  # two POSTs held 5 s each: still under way after 3 s
        assert "Device or resource busy" in second.stderr, second.stderr
    else:
        assert "File exists" in second.stderr or "Device or resource busy" in second.stderr, \
            second.stderr
    assert m.read("submit", name + ".yaml") == a.read_text()
    assert m.read("submit", name, "status") == "submitted\n"
    job = c.kubectl_json("get", "tfjob", name)
    assert job["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 2


def test_two_cp_at_once_never_launch_a_mix(env, tmp_path):
    """Eight rounds of two cp started together: whatever the interleaving, the
    spec file, status and job agree (a job from the text the file shows, or no
    job and a status that is not submitted), and a cp whose text was not
    launched exits 1."""
    c, m = env
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(SPEC + "workers: 2\n")
    b.write_text(SPEC + "workers: 3\n")
    for i in range(ROUNDS):
        name = "both-%d" % i
        dest = m.path("submit", name + ".yaml")
        procs = [subprocess.Popen(["cp", str(src), dest], stderr=subprocess.PIPE)
                 for src in (a, b)]
        codes = [p.wait(timeout=120) for p in procs]
        errs = [p.stderr.read().decode() for p in procs]
        status = wait_outcome(m, name)
        shown = m.read("submit", name + ".yaml")
        jobs = jobs_named(c, name)
        if status == "submitted\n":
            replicas = c.kubectl_json("get", "tfjob", name)[
                "spec"]["tfReplicaSpecs"]["Worker"]["replicas"]
            assert shown == (a if replicas == 2 else b).read_text(), (i, shown, replicas)
            assert sorted(codes) == [0, 1], (codes, errs)
        else:
            assert jobs == [], (i, status, jobs, errs)
            assert codes != [0, 0], (i, status, codes, errs)


# ---- issue 32, item 4: the cluster down ----

def test_a_submission_says_what_it_waits_for_while_it_waits(env):
    """The API server slow to answer: while cp waits, status says submitting and
    error says what for, since when, and for how long at most. Before, error
    appeared only once it had failed."""
    c, m = env
    c.fault(delay_ms=3000, delay_match=TFJOBS)
    try:
        cp = threading.Thread(target=write_as_cp,
                              args=(m.path("submit", "slow.yaml"), SPEC))
        cp.start()
        wait_until(lambda: os.path.exists(m.path("submit", "slow", "error")), timeout=30,
                   message="submit/slow/error while it waits")
        assert m.read("submit", "slow", "status") == "submitting\n"
        error = m.read("submit", "slow", "error")
        assert error.startswith("waiting since ") and "for the API server at " in error, error
        assert "request_timeout" in error, error
        cp.join(timeout=120)
    finally:
        c.fault(delay_ms=0)
    assert m.read("submit", "slow", "status") == "submitted\n"
    assert not os.path.exists(m.path("submit", "slow", "error"))


def test_a_cluster_down_fails_a_submission_at_once_saying_so(kubesim, arenafs):
    """cluster/health already says disconnected (no answer at all): cp fails
    with EIO without asking, its error naming cluster/health's reason. Before,
    it waited for request_timeout, with no word, then said "cannot reach"."""
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c, allow=[r"cluster is unreachable|reachable again|disconnected|watch"])
    c.fault(down_seconds=60)
    wait_until(lambda: m.read("cluster", "health").startswith("disconnected"), timeout=60,
               message="cluster/health to say disconnected")
    assert write_as_cp(m.path("submit", "offline.yaml"), SPEC) == errno.EIO
    assert m.read("submit", "offline", "status") == "failed\n"
    error = m.read("submit", "offline", "error")
    assert "the cluster cannot be reached (cluster/health says disconnected since" in error, error
    assert "nothing was sent" in error, error
