"""jobs/NAME/code/ (docs/tree.md): the files a job shipped, named by its
arenafs.io/code annotation and read from its ConfigMap. Jobs and ConfigMaps are
made here directly through the API, as submit/'s write side makes them: the
read side is held to the contract alone. What a user sees is checked: ls -R,
cat of every file byte for byte, modes and sizes from stat, one request per
job's code however many files are read, and the errno of a ConfigMap that
cannot be read."""

import base64
import errno
import json
import os
import stat
import subprocess
import time

import pytest

from helpers import wait_until
import jobspecs
import realcluster

# path below code/ → (bytes, mode). Text goes to the ConfigMap's data, other bytes
# to binaryData, as kubectl create configmap --from-file does.
FILES = {
    "train.py": (b"import sys\nprint('training', sys.argv)\n", 0o644),
    "scripts/run.sh": (b"#!/bin/sh\necho ran \"$@\"\n", 0o755),
    "data/small file.txt": (b"hello", 0o644),
    "data/deep/er/weights.bin": (bytes(range(256)) * 3 + b"\x00\xff\x00", 0o600),
    "data/empty": (b"", 0o644),
    "README": ("été ✓\n".encode(), 0o444),
}

# kubectl's answer for files that are not UTF-8 text, here: those holding NUL too
def is_text(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data


def annotation(configmap, files, keys):
    lines = ["configmap " + configmap]
    for path, (data, mode) in files.items():
        lines.append("%04o %d %s %s" % (mode, len(data), keys[path], path))
    return "\n".join(lines)


def make_job(c, name, files=None, note=None, configmap=True, owner=True, contents=None):
    """A TFJob carrying the annotation (note, else one made from files), then its
    ConfigMap owned by it (contents, else the files' bytes). Returns the job."""
    files = FILES if files is None else files
    keys = {p: "f%d" % i for i, p in enumerate(files)}
    job = jobspecs.tfjob(name, run=600)
    if files or note:
        job["metadata"]["annotations"] = {
            "arenafs.io/code": note if note is not None else annotation(name + "-code", files,
                                                                         keys)}
    jobspecs.create(c, job)
    made = c.kubectl_json("get", "tfjob", name, "-n", c.namespace)
    if not configmap:
        return made
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "immutable": True,
          "metadata": {"name": name + "-code", "labels": {"arenafs.io/code": name}},
          "data": {}, "binaryData": {}}
    if owner:
        cm["metadata"]["ownerReferences"] = [{
            "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "name": name,
            "uid": made["metadata"]["uid"], "controller": False}]
    for path, (data, _mode) in (contents if contents is not None else files).items():
        if is_text(data):
            cm["data"][keys[path]] = data.decode()
        else:
            cm["binaryData"][keys[path]] = base64.b64encode(data).decode()
    jobspecs.create(c, cm)
    return made


def configmap_gets(c):
    """GETs of ConfigMaps kubesim has answered so far."""
    return sum(v for k, v in c.stats()["requests"].items()
               if k.startswith("get ") and "configmaps" in k)


def walk(root):
    """ls -R as (path, kind) pairs: every file and directory below root."""
    seen = []
    for d, dirs, files in os.walk(root):
        for name in dirs:
            seen.append((os.path.relpath(os.path.join(d, name), root), "dir"))
        for name in files:
            seen.append((os.path.relpath(os.path.join(d, name), root), "file"))
    return sorted(seen)


def expected_walk(files):
    dirs = set()
    for path in files:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    return sorted([(d, "dir") for d in dirs] + [(p, "file") for p in files])


CODE_WARNINGS = [r"job \S+: code/ cannot be read: ", r"job \S+: code/ unlike its annotation",
                 r"job \S+: annotation arenafs.io/code: "]


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def cluster(request, kubesim_module):
    return realcluster.module_cluster(request, kubesim_module, "--nodes", "2", "--gpus", "8")


@pytest.fixture(scope="module")
def mnt(cluster, arenafs_module):
    return arenafs_module(cluster, allow=CODE_WARNINGS)


def job_dir(m, name):
    path = m.path("jobs", name)
    wait_until(lambda: os.path.isdir(path), timeout=30, message="jobs/%s" % name)
    return path


def test_code_shows_every_file_with_its_bytes_mode_and_size(cluster, mnt):
    job = make_job(cluster, "shipped")
    code = os.path.join(job_dir(mnt, "shipped"), "code")
    assert "code" in os.listdir(os.path.dirname(code))
    assert walk(code) == expected_walk(FILES)
    assert sorted(os.listdir(code)) == ["README", "data", "scripts", "train.py"]
    r = subprocess.run(["ls", "-R", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "small file.txt" in r.stdout and "weights.bin" in r.stdout
    created = job["metadata"]["creationTimestamp"]
    for path, (data, mode) in FILES.items():
        full = os.path.join(code, path)
        st = os.stat(full)
        assert stat.S_ISREG(st.st_mode), path
        # readable by all, executable as shipped, never writable
        assert stat.S_IMODE(st.st_mode) == 0o444 | (mode & 0o111), (path, oct(st.st_mode))
        assert st.st_size == len(data), path
        with open(full, "rb") as f:
            assert f.read() == data, path
    for d in ["data", "data/deep", "data/deep/er", "scripts"]:
        st = os.stat(os.path.join(code, d))
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o555, d
    st = os.stat(code)
    assert stat.S_IMODE(st.st_mode) == 0o555
    import calendar
    when = calendar.timegm(time.strptime(created, "%Y-%m-%dT%H:%M:%SZ"))
    assert int(os.stat(os.path.join(code, "train.py")).st_mtime) == when
    # the job directory counts code/ among its links (., .., instances/, code/)
    assert os.stat(os.path.dirname(code)).st_nlink == 4
    # a script shipped executable runs from the mount
    run = os.path.join(code, "scripts", "run.sh")
    assert os.access(run, os.X_OK) and not os.access(os.path.join(code, "train.py"), os.X_OK)
    r = subprocess.run([run, "a b"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "ran a b\n", r
    # nothing below code/ is writable
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "train.py"), "w")
    assert e.value.errno == errno.EROFS
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "new.py"), "w")
    assert e.value.errno == errno.EROFS
    # cp -r takes it whole
    r = subprocess.run(["cp", "-r", code, os.path.join(mnt.dir, "copy")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    for path, (data, _mode) in FILES.items():
        with open(os.path.join(mnt.dir, "copy", path), "rb") as f:
            assert f.read() == data, path


def test_the_same_under_namespaces(cluster, arenafs_module):
    """namespaces/NS/jobs/NAME/code/ as jobs/NAME/code/, from a mount whose own
    namespace is another."""
    other = arenafs_module(cluster, "namespace=arenafs-elsewhere", allow=CODE_WARNINGS)
    make_job(cluster, "elsewhere", files={"x/y.py": (b"y = 1\n", 0o644)})
    path = other.path("namespaces", cluster.namespace, "jobs", "elsewhere", "code", "x", "y.py")
    wait_until(lambda: os.path.exists(path), timeout=30, message=path)
    with open(path, "rb") as f:
        assert f.read() == b"y = 1\n"


def test_a_job_without_the_annotation_has_no_code(cluster, mnt):
    jobspecs.create(cluster, jobspecs.tfjob("plain", run=600))
    d = job_dir(mnt, "plain")
    assert "code" not in os.listdir(d)
    with pytest.raises(FileNotFoundError):
        os.stat(os.path.join(d, "code"))
    # (., .., instances/)
    assert os.stat(d).st_nlink == 3


def test_code_appears_when_the_annotation_does(cluster, mnt):
    jobspecs.create(cluster, jobspecs.tfjob("later", run=600))
    d = job_dir(mnt, "later")
    assert "code" not in os.listdir(d)
    cluster.kubectl("annotate", "tfjob", "later", "-n", cluster.namespace,
                    "arenafs.io/code=configmap later-code\n0644 2 k a.py")
    wait_until(lambda: "code" in os.listdir(d), timeout=30, message="code/ to appear")
    assert os.listdir(os.path.join(d, "code")) == ["a.py"]
    assert os.stat(os.path.join(d, "code", "a.py")).st_size == 2


def test_a_deleted_configmap_is_enodata_and_the_tree_stays(cluster, mnt):
    make_job(cluster, "orphan", files={"a.py": (b"a\n", 0o644), "b/c.py": (b"c\n", 0o644)})
    cluster.kubectl("delete", "configmap", "orphan-code", "-n", cluster.namespace)
    code = os.path.join(job_dir(mnt, "orphan"), "code")
    # names, sizes and modes come from the annotation: still there
    assert walk(code) == expected_walk(["a.py", "b/c.py"])
    assert os.stat(os.path.join(code, "b", "c.py")).st_size == 2
    for path in ["a.py", "b/c.py"]:
        with pytest.raises(OSError) as e:
            open(os.path.join(code, path), "rb").read()
        assert e.value.errno == errno.ENODATA, path
    wait_until(lambda: "job %s/orphan: code/ cannot be read: ConfigMap orphan-code: "
               % cluster.namespace in mnt.log(), timeout=10, message="the daemon's line")


def test_a_configmap_unlike_its_annotation_is_eio(cluster, mnt):
    files = {"right.py": (b"right\n", 0o644), "short.py": (b"twelve bytes", 0o644),
             "missing.py": (b"x", 0o644)}
    contents = {"right.py": files["right.py"], "short.py": (b"ten bytes!", 0o644)}
    make_job(cluster, "unlike", files=files, contents=contents)
    code = os.path.join(job_dir(mnt, "unlike"), "code")
    with open(os.path.join(code, "right.py"), "rb") as f:
        assert f.read() == b"right\n"
    for path in ["short.py", "missing.py"]:
        with pytest.raises(OSError) as e:
            open(os.path.join(code, path), "rb").read()
        assert e.value.errno == errno.EIO, path
    assert "job %s/unlike: code/ unlike its annotation" % cluster.namespace in mnt.log()


def test_a_configmap_of_another_owner_is_eio(cluster, mnt):
    jobspecs.create(cluster, {"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "someone"}})
    other = cluster.kubectl_json("get", "configmap", "someone", "-n", cluster.namespace)
    make_job(cluster, "stolen", files={"a.py": (b"a\n", 0o644)}, owner=False)
    # the ConfigMap is another object's (left by an earlier job of that name, say)
    cluster.kubectl("patch", "configmap", "stolen-code", "-n", cluster.namespace,
                    "--type=merge", "-p", json.dumps({"metadata": {"ownerReferences": [{
                        "apiVersion": "v1", "kind": "ConfigMap", "name": "someone",
                        "uid": other["metadata"]["uid"]}]}}))
    code = os.path.join(job_dir(mnt, "stolen"), "code")
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "a.py"), "rb").read()
    assert e.value.errno == errno.EIO
    # one with no owner at all is read (made before its job, not yet pointed at it)
    make_job(cluster, "ownerless", files={"a.py": (b"a\n", 0o644)}, owner=False)
    with open(os.path.join(job_dir(mnt, "ownerless"), "code", "a.py"), "rb") as f:
        assert f.read() == b"a\n"


def test_paths_from_the_cluster_are_not_trusted(cluster, mnt):
    note = "\n".join(["configmap hostile-code",
                      "0644 1 k1 ok.py",
                      "0644 1 k2 ../../escape.py",
                      "0644 1 k3 /abs.py",
                      "0644 1 k4 a//b.py",
                      "0644 1 k5 " + "n" * 256,
                      "0644 1 k6 d/./x.py",
                      "not a line"])
    jobspecs.create(cluster, dict(jobspecs.tfjob("hostile", run=600),
                                  metadata={"name": "hostile",
                                            "annotations": {"arenafs.io/code": note}}))
    code = os.path.join(job_dir(mnt, "hostile"), "code")
    assert walk(code) == [("ok.py", "file")]
    r = subprocess.run(["find", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == [code, os.path.join(code, "ok.py")], r
    wait_until(lambda: "job %s/hostile: annotation arenafs.io/code: 6 files not shown in "
               "code/; the first: file line 2: path" % cluster.namespace in mnt.log(),
               timeout=10, message="the daemon's line")


def test_rm_r_of_a_job_with_code(cluster, mnt):
    make_job(cluster, "removed", files={"a/b.py": (b"b\n", 0o644)})
    d = job_dir(mnt, "removed")
    r = subprocess.run(["rm", "-r", d], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(d)


# ---- kubesim only: counting requests, injecting faults ----

@pytest.fixture(scope="module")
def sim(kubesim_module, arenafs_module):
    c = kubesim_module("--nodes", "1", "--gpus", "8")
    return c, arenafs_module(c, allow=CODE_WARNINGS + [r"cluster is unreachable|reachable again"])


def test_one_request_per_job_however_many_files(sim):
    c, m = sim
    make_job(c, "counted")
    code = os.path.join(job_dir(m, "counted"), "code")
    before = configmap_gets(c)
    walk(code)
    for path in FILES:
        os.stat(os.path.join(code, path))
    assert configmap_gets(c) == before, "ls and stat of code/ must ask the cluster nothing"
    for _ in range(3):
        for path, (data, _mode) in FILES.items():
            with open(os.path.join(code, path), "rb") as f:
                assert f.read() == data
    subprocess.run(["cat"] + [os.path.join(code, p) for p in FILES], capture_output=True,
                   check=True)
    assert configmap_gets(c) == before + 1


def test_forbidden_is_eacces_and_the_next_try_reads(sim):
    c, m = sim
    make_job(c, "guarded", files={"g.py": (b"g\n", 0o644)})
    code = os.path.join(job_dir(m, "guarded"), "code")
    c.fault(fail_next=1, code=403, match="^GET /api/v1/namespaces/default/configmaps/")
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "g.py"), "rb").read()
    assert e.value.errno == errno.EACCES
    # remembered a few seconds (one request for cp -r), then asked again
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "g.py"), "rb").read()
    assert e.value.errno == errno.EACCES

    def reads():
        with open(os.path.join(code, "g.py"), "rb") as f:
            return f.read() == b"g\n"
    wait_until(reads, timeout=20, message="g.py read once the fault is over")


def test_an_unreachable_cluster_is_eio_at_once(sim):
    c, m = sim
    make_job(c, "unreached", files={"u.py": (b"u\n", 0o644)})
    code = os.path.join(job_dir(m, "unreached"), "code")
    c.fault(down_seconds=8)
    wait_until(lambda: m.read("cluster", "health").startswith("disconnected"), timeout=20,
               message="cluster/health to say disconnected")
    started = time.monotonic()
    with pytest.raises(OSError) as e:
        open(os.path.join(code, "u.py"), "rb").read()
    assert e.value.errno == errno.EIO
    assert time.monotonic() - started < 2, "an open must not wait for a server known gone"
    wait_until(lambda: m.read("cluster", "health") == "ok\n", timeout=60,
               message="the cluster back")
    with open(os.path.join(code, "u.py"), "rb") as f:
        assert f.read() == b"u\n"
