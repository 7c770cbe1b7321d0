"""Starting and stopping arenafs as a user does: every start-up failure prints
one line and exits non-zero before anything is mounted (in the foreground and
when daemonizing), --help and --version, the mount's name and type, the daemon
mode, readonly, and refused writes (issue 4, SPEC.md §1 and §5)."""

import errno
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import ARENAFS_BIN, run_arenafs
from helpers import wait_until


def write_kubeconfig(c, path, **change):
    """A copy of the cluster's kubeconfig with its cluster or user fields changed."""
    cfg = c.config()
    ctx = next(x for x in cfg["contexts"] if x["name"] == cfg["current-context"])["context"]
    for k, v in change.items():
        if k == "server":
            next(x for x in cfg["clusters"] if x["name"] == ctx["cluster"])["cluster"]["server"] = v
        else:
            next(x for x in cfg["users"] if x["name"] == ctx["user"])["user"][k] = v
    with open(path, "w") as f:
        yaml.safe_dump(cfg, f)
    return str(path)


def one_line_failure(r, *needles):
    assert r.returncode != 0, r
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("arenafs: "), lines
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def mnt(tmp_path):
    d = tmp_path / "mnt"
    d.mkdir()
    return str(d)


@pytest.mark.parametrize("foreground", [True, False])
def test_missing_kubeconfig_prints_one_line(tmp_path, mnt, foreground):
    args = (["-f"] if foreground else []) + ["-o", "kubeconfig=/nonexistent/kubeconfig", mnt]
    line = one_line_failure(run_arenafs(args, tmp_path), "/nonexistent/kubeconfig")
    assert "No such file" in line
    assert not os.path.ismount(mnt)


def test_unknown_context_prints_one_line(kubesim, tmp_path, mnt):
    c = kubesim("--nodes", "1")
    r = run_arenafs(["-f", "-o", "kubeconfig=%s,context=nope" % c.kubeconfig, mnt], tmp_path)
    one_line_failure(r, '"nope"')
    assert not os.path.ismount(mnt)


@pytest.mark.parametrize("foreground", [True, False])
def test_wrong_token_prints_one_line(kubesim, tmp_path, mnt, foreground):
    c = kubesim("--nodes", "1")
    kc = write_kubeconfig(c, tmp_path / "bad-token", token="not-the-token")
    args = (["-f"] if foreground else []) + ["-o", "kubeconfig=" + kc, mnt]
    line = one_line_failure(run_arenafs(args, tmp_path), "Unauthorized")
    assert "not-the-token" not in line          # never a secret in a message
    assert not os.path.ismount(mnt)


def test_unreachable_server_prints_one_line(kubesim, tmp_path, mnt):
    c = kubesim("--nodes", "1")
    kc = write_kubeconfig(c, tmp_path / "nowhere", server="http://127.0.0.1:9")
    r = run_arenafs(["-f", "-o", "kubeconfig=" + kc, mnt], tmp_path)
    one_line_failure(r, "127.0.0.1:9")
    assert not os.path.ismount(mnt)


def test_unknown_option_prints_one_line(kubesim, tmp_path, mnt):
    c = kubesim("--nodes", "1")
    r = run_arenafs(["-f", "-o", "kubeconfig=%s,bogus_option" % c.kubeconfig, mnt], tmp_path)
    one_line_failure(r, "bogus_option")
    assert not os.path.ismount(mnt)


def test_bad_mount_point_prints_one_line(kubesim, tmp_path):
    c = kubesim("--nodes", "1")
    r = run_arenafs(["-f", "-o", "kubeconfig=" + c.kubeconfig, str(tmp_path / "nope")], tmp_path)
    one_line_failure(r, "nope")


def test_help_and_version(tmp_path):
    r = run_arenafs(["--help"], tmp_path)
    assert r.returncode == 0, r.stderr
    for opt in ["kubeconfig=", "context=", "namespace=", "readonly", "attr_timeout=",
                "entry_timeout=", "static_timeout=", "log_wait="]:
        assert opt in r.stdout, opt
    r = run_arenafs(["--version"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("arenafs version ")


def mount_entry(mnt):
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, point, fstype, opts = line.split()[:4]
            if point == mnt:
                return dev, fstype, opts.split(",")
    return None


def test_mount_shows_type_and_cluster(kubesim, arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    dev, fstype, opts = mount_entry(m.mnt)
    assert fstype == "fuse.arenafs"
    assert dev == "arenafs:" + c.config()["current-context"]
    assert "rw" in opts


def test_daemon_mode_returns_once_mounted(kubesim, tmp_path, mnt):
    c = kubesim("--nodes", "1", "--jobs", "2")
    r = run_arenafs(["-o", "kubeconfig=" + c.kubeconfig, mnt], tmp_path, timeout=120)
    try:
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
        assert os.path.ismount(mnt)          # mounted before the command returned
        assert sorted(os.listdir(os.path.join(mnt, "jobs"))) == ["tfjob-00000", "tfjob-00001"]
    finally:
        u = subprocess.run(["fusermount3", "-u", mnt], capture_output=True, text=True)
    assert u.returncode == 0, u.stderr
    wait_until(lambda: not os.path.ismount(mnt), message="unmounted")


def test_readonly_refuses_every_write(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--jobs", "1")
    m = arenafs(c, "readonly")
    assert "ro" in mount_entry(m.mnt)[2]
    assert os.statvfs(m.mnt).f_flag & os.ST_RDONLY
    for attempt in [lambda: os.mkdir(m.path("submit", "x")),
                    lambda: open(m.path("submit", "x.yaml"), "w"),
                    lambda: os.rmdir(m.path("jobs", "tfjob-00000")),
                    lambda: open(m.path("jobs", "tfjob-00000", "status"), "w")]:
        with pytest.raises(OSError) as e:
            attempt()
        assert e.value.errno == errno.EROFS
    assert m.read("jobs", "tfjob-00000", "type") == "tfjob\n"


def test_files_of_the_tree_refuse_writes(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--jobs", "1")
    m = arenafs(c)
    status = m.path("jobs", "tfjob-00000", "status")
    for attempt in [lambda: open(status, "w"), lambda: open(status, "a"),
                    lambda: os.truncate(status, 0), lambda: os.unlink(status),
                    lambda: os.mkdir(m.path("jobs", "new")),
                    lambda: os.rename(status, m.path("jobs", "tfjob-00000", "s2")),
                    lambda: os.symlink("x", m.path("cluster", "link"))]:
        with pytest.raises(OSError) as e:
            attempt()
        assert e.value.errno == errno.EROFS, attempt
    assert not os.access(status, os.W_OK)
    assert os.access(status, os.R_OK)


def test_no_xattrs(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--jobs", "1")
    m = arenafs(c)
    path = m.path("jobs", "tfjob-00000", "status")
    for _ in range(2):     # the first ENOSYS turns them off for the mount: still ENOTSUP
        with pytest.raises(OSError) as e:
            os.getxattr(path, "user.x")
        assert e.value.errno in (errno.ENOTSUP, errno.ENODATA)
        with pytest.raises(OSError) as e:
            os.listxattr(path)
        assert e.value.errno == errno.ENOTSUP
