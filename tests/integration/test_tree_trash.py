"""Deleting a job into the trash, as JupyterLab and file managers do by default
(issue 36): the real send2trash (JupyterLab's Delete, from the JupyterLab
virtual environment of tests/peers/venv.sh) and Debian's `gio trash` (a GIO
file manager's Delete key) move jobs/NAME into `.Trash-UID/files/`, which
deletes the job as rmdir does and keeps its spec; renaming it back resubmits
it, emptying forgets it, and everything else in the trash gets an errno and
leaves nothing half-made (docs/tree.md, "The trash")."""

import errno
import os
import shutil
import subprocess

import pytest

from helpers import peers_venvs, wait_until, write_as_cp
import jobspecs

TRASH = ".Trash-%d" % os.getuid()
SPEC = ("type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python train.py\n"
        'env: {SIM_RUN_SECONDS: "300", KWOK_RUN: 300s}\n')


@pytest.fixture(scope="module")
def venv_python():
    return os.path.join(peers_venvs("jupyter"), "jupyter", "bin", "python")


def send2trash(python, path):
    """JupyterLab's delete_to_trash: send2trash.send2trash(path), its Linux code
    (the venv has no PyGObject, so not GIO's): the CompletedProcess."""
    return subprocess.run([python, "-c", "import sys, send2trash; send2trash.send2trash("
                           "sys.argv[1])", path], capture_output=True, text=True, timeout=60)


def submitted(m, name):
    assert write_as_cp(m.path("submit", name + ".yaml"), SPEC) == 0, \
        m.read("submit", name, "error")
    wait_until(lambda: os.path.isdir(m.path("jobs", name)), message="jobs/" + name)


def tfjobs(c):
    return sorted(n.split("/")[-1] for n in c.kubectl("get", "tfjobs", "-o", "name").stdout.split())


def test_send2trash_deletes_the_job_and_keeps_its_spec(kubesim, arenafs, venv_python):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    submitted(m, "binned")
    submitted(m, "kept")
    spec = m.read("jobs", "binned", "spec.yaml")
    assert TRASH not in os.listdir(m.mnt)
    links = os.stat(m.mnt).st_nlink
    r = send2trash(venv_python, m.path("jobs", "binned"))
    assert r.returncode == 0, r.stderr
    assert tfjobs(c) == ["kept"]
    assert os.stat(m.mnt).st_nlink == links + 1    # the root counts the trash's folder
    assert sorted(os.listdir(m.path("jobs"))) == ["kept"]
    assert TRASH in os.listdir(m.mnt)
    assert sorted(os.listdir(m.path(TRASH))) == ["expunged", "files", "info"]
    assert os.listdir(m.path(TRASH, "files")) == ["binned"]
    wait_until(lambda: os.listdir(m.path(TRASH, "files", "binned")) == ["spec.yaml"],
               timeout=10, message="the kernel to drop its entry of the job's folder")
    assert m.read(TRASH, "files", "binned", "spec.yaml") == spec
    info = m.read(TRASH, "info", "binned.trashinfo")
    assert info.startswith("[Trash Info]\nPath=jobs/binned\nDeletionDate=20"), info
    st = os.stat(m.path(TRASH))
    assert st.st_uid == os.getuid() and oct(st.st_mode & 0o7777) == "0o700"
    # the same name again: send2trash picks another, the trash keeps both
    submitted(m, "binned")
    r = send2trash(venv_python, m.path("jobs", "binned"))
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(m.path(TRASH, "files"))) == ["binned", "binned 1"]
    assert sorted(os.listdir(m.path(TRASH, "info"))) == ["binned 1.trashinfo",
                                                         "binned.trashinfo"]
    assert tfjobs(c) == ["kept"]


def test_gio_trash_deletes_the_job_with_its_info(any_cluster, arenafs):
    """A GIO file manager's Delete key: gio trash writes its info through a
    temporary file renamed over it, then renames the folder."""
    c = any_cluster
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("gioed", run=60))
    wait_until(lambda: os.path.exists(m.path("jobs", "gioed", "status")), message="gioed")
    r = subprocess.run(["gio", "trash", m.path("jobs", "gioed")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "gioed" not in os.listdir(m.path("jobs"))
    assert c.kubectl("get", "tfjob", "gioed", check=False).returncode != 0
    assert os.listdir(m.path(TRASH, "files")) == ["gioed"]
    assert os.listdir(m.path(TRASH, "info")) == ["gioed.trashinfo"]
    info = m.read(TRASH, "info", "gioed.trashinfo")
    assert info.startswith("[Trash Info]\nPath=jobs/gioed\nDeletionDate=20"), info


def test_restoring_resubmits_and_emptying_forgets(kubesim, arenafs, venv_python):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    submitted(m, "back")
    assert send2trash(venv_python, m.path("jobs", "back")).returncode == 0
    assert tfjobs(c) == []
    # restore: the file manager renames files/X to the info's Path
    os.rename(m.path(TRASH, "files", "back"), m.path("jobs", "back"))
    assert tfjobs(c) == ["back"]
    assert os.path.isdir(m.path("jobs", "back"))
    assert os.listdir(m.path(TRASH, "files")) == []
    assert os.listdir(m.path(TRASH, "info")) == []
    wait_until(lambda: m.read("jobs", "back", "status") == "RUNNING\n", timeout=60,
               message="the resubmitted job running")
    # deleted again, made again by hand: restoring it fails with words, and keeps it
    assert send2trash(venv_python, m.path("jobs", "back")).returncode == 0
    spec = m.read(TRASH, "files", "back", "spec.yaml")
    assert write_as_cp(m.path("submit", "back.yaml"), spec) == 0, m.read("submit", "back", "error")
    with pytest.raises(OSError) as e:
        os.rename(m.path(TRASH, "files", "back"), m.path("jobs", "back"))
    assert e.value.errno == errno.EEXIST
    assert "already exists" in m.read(TRASH, "files", "back", "error")
    assert sorted(os.listdir(m.path(TRASH, "files", "back"))) == ["error", "spec.yaml"]
    # under another name or namespace: refused, the words say how it comes back
    with pytest.raises(OSError) as e:
        os.rename(m.path(TRASH, "files", "back"), m.path("jobs", "other"))
    assert e.value.errno == errno.EPERM
    assert "comes back only as itself: jobs/back" in m.read(TRASH, "files", "back", "error")
    # emptying the trash: rm -rf of files/X forgets it and its info
    shutil.rmtree(m.path(TRASH, "files", "back"))
    assert os.listdir(m.path(TRASH, "files")) == []
    assert os.listdir(m.path(TRASH, "info")) == []
    assert tfjobs(c) == ["back"]
    # as gvfs empties it (Files' trash:/// view): into expunged/, then its info
    submitted(m, "gone")
    assert send2trash(venv_python, m.path("jobs", "gone")).returncode == 0
    os.makedirs(m.path(TRASH, "expunged"), exist_ok=True)
    os.rename(m.path(TRASH, "files", "gone"), m.path(TRASH, "expunged", "1234"))
    with pytest.raises(FileNotFoundError):
        os.unlink(m.path(TRASH, "info", "gone.trashinfo"))
    assert os.listdir(m.path(TRASH, "expunged")) == []
    assert os.listdir(m.path(TRASH, "files")) == []
    assert os.listdir(m.path(TRASH, "info")) == []
    # an empty trash is removed as any folder: rm -rf of it all
    shutil.rmtree(m.path(TRASH))
    assert TRASH not in os.listdir(m.mnt)


def test_a_refused_delete_keeps_nothing_and_the_job_stays(kubesim, arenafs, venv_python):
    """The DELETE is rmdir's: its refusal (a 403 here) fails the rename with its
    errno, and neither the entry nor the info send2trash wrote is kept."""
    c = kubesim("--nodes", "1")
    m = arenafs(c, allow=[r"rmdir default/stays: .*injected failure"])
    submitted(m, "stays")
    c.fault(fail_next=1, code=403, match=r"^DELETE ")
    r = send2trash(venv_python, m.path("jobs", "stays"))
    assert r.returncode != 0 and "Permission denied" in r.stderr, r.stderr
    assert tfjobs(c) == ["stays"]
    assert os.path.isdir(m.path("jobs", "stays"))
    assert os.listdir(m.path(TRASH, "files")) == []
    assert os.listdir(m.path(TRASH, "info")) == []


def test_the_rest_of_the_trash_gets_an_errno_and_nothing_made(kubesim, arenafs, venv_python):
    c = kubesim("--nodes", "1", "--jobs", "2")
    m = arenafs(c)
    submitted(m, "one")
    assert send2trash(venv_python, m.path("jobs", "one")).returncode == 0
    files, info = m.path(TRASH, "files"), m.path(TRASH, "info")

    def fails(err, fn, *args):
        with pytest.raises(OSError) as e:
            fn(*args)
        assert e.value.errno == err, (fn, args, e.value)

    fails(errno.EEXIST, os.mkdir, m.path(TRASH))
    fails(errno.EEXIST, os.mkdir, info)
    fails(errno.EPERM, os.mkdir, os.path.join(files, "made"))
    fails(errno.EPERM, os.mkdir, os.path.join(info, "made"))
    fails(errno.EPERM, open, os.path.join(files, "made"), "w")
    fails(errno.EPERM, open, m.path(TRASH, "directorysizes"), "w")
    fails(errno.EPERM, os.symlink, "x", os.path.join(info, "link"))
    fails(errno.EACCES, open, os.path.join(files, "one", "spec.yaml"), "w")
    fails(errno.ENOTEMPTY, os.rmdir, m.path(TRASH))
    fails(errno.ENOTEMPTY, os.rmdir, files)
    # only a job's whole folder goes in: its files are the read-only tree's
    fails(errno.EROFS, os.rename, m.path("jobs", "tfjob-00000", "status"),
          os.path.join(files, "status"))
    # submit/ is another tree: mv copies (and a copy into submit/ submits)
    assert write_as_cp(m.path("submit", "note.txt"), "hello\n") == 0
    fails(errno.EXDEV, os.rename, m.path("submit", "note.txt"), os.path.join(files, "note.txt"))
    fails(errno.EPERM, os.rename, os.path.join(files, "one"), os.path.join(files, "two"))
    fails(errno.EPERM, os.rename, m.path("jobs", "tfjob-00001"), os.path.join(info, "x"))
    # info/ holds what trashers write, within bounds
    with open(os.path.join(info, "mine.trashinfo"), "w") as f:
        f.write("[Trash Info]\n")
    fd = os.open(os.path.join(info, "mine.trashinfo"), os.O_WRONLY)
    try:
        fails(errno.EFBIG, os.write, fd, b"x" * 5000)
    finally:
        os.close(fd)
    assert m.read(TRASH, "info", "mine.trashinfo") == "[Trash Info]\n"
    assert sorted(os.listdir(files)) == ["one"]
    assert sorted(os.listdir(info)) == ["mine.trashinfo", "one.trashinfo"]
    os.unlink(os.path.join(info, "mine.trashinfo"))
    assert os.listdir(info) == ["one.trashinfo"]
    assert tfjobs(c) == ["tfjob-00000", "tfjob-00001"]


def test_another_namespaces_job_comes_back_there(kubesim, arenafs, venv_python):
    """namespaces/NS/jobs/NAME goes to the same trash, its Path saying where it
    was; it comes back only into that jobs/."""
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    jobspecs.create(c, jobspecs.tfjob("away", run=600), namespace="team-a")
    wait_until(lambda: os.path.isdir(m.path("namespaces", "team-a", "jobs", "away")),
               message="namespaces/team-a/jobs/away")
    r = send2trash(venv_python, m.path("namespaces", "team-a", "jobs", "away"))
    assert r.returncode == 0, r.stderr
    assert c.kubectl("get", "tfjob", "away", "-n", "team-a", check=False).returncode != 0
    info = m.read(TRASH, "info", "away.trashinfo")
    assert "\nPath=namespaces/team-a/jobs/away\n" in info, info
    with pytest.raises(OSError) as e:
        os.rename(m.path(TRASH, "files", "away"), m.path("jobs", "away"))
    assert e.value.errno == errno.EPERM
    assert "jobs/away of namespace team-a" in m.read(TRASH, "files", "away", "error")
    os.rename(m.path(TRASH, "files", "away"), m.path("namespaces", "team-a", "jobs", "away"))
    assert c.kubectl_json("get", "tfjob", "away", "-n", "team-a")["metadata"]["name"] == "away"
    assert os.listdir(m.path(TRASH, "files")) == []


def test_a_file_of_submit_goes_to_the_home_trash(kubesim, arenafs, venv_python, tmp_path):
    """submit/ is another tree than the trash (EXDEV): send2trash then moves a
    staged file into the user's own trash, copying it, and the mount's trash
    keeps nothing of it."""
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    os.mkdir(m.path(TRASH))
    assert write_as_cp(m.path("submit", "notes.txt"), "to read\n") == 0
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    r = subprocess.run([venv_python, "-c", "import sys, send2trash; send2trash.send2trash("
                        "sys.argv[1])", m.path("submit", "notes.txt")], capture_output=True,
                       text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert "notes.txt" not in os.listdir(m.path("submit"))
    assert (home / "data" / "Trash" / "files" / "notes.txt").read_text() == "to read\n"
    assert os.listdir(m.path(TRASH, "files")) == []
    assert os.listdir(m.path(TRASH, "info")) == []
