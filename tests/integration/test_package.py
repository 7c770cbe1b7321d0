"""The Debian package, the way a user meets it: `make deb` builds it (tests/deb.sh),
lintian finds nothing to say, `dpkg -i` installs it on this machine, the installed
arenafs mounts kubesim's demo cluster through `mount -t fuse.arenafs` and through an
fstab line, its example specs submit from /usr/share/doc/arenafs/examples/, a
spec's error names the installed spec.md, and `dpkg --purge` takes every file it
brought away again.

It installs a package on the machine that runs it, so it needs root (CI runs as
root) and a machine where arenafs is not installed already: it fails and says so
otherwise, rather than touch a user's own installation."""

import errno
import os
import re
import subprocess

import pytest

from helpers import wait_until, write_as_cp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def installed():
    r = run(["dpkg-query", "-W", "-f=${Status}", "arenafs"])
    return r.returncode == 0 and "installed" in r.stdout.split()


def served_by(mnt):
    """The executable of the daemon serving mnt (the one whose command line names it)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                args = f.read().split(b"\0")
            exe = os.readlink("/proc/%s/exe" % pid)
        except OSError:
            continue
        if mnt.encode() in args and os.path.basename(exe) == "arenafs":
            return exe
    return None


def mounted_status(mnt):
    """What a user checks first: the mount is there, of its type, served by the
    installed binary, and a job's status reads as one of the tree's states."""
    wait_until(lambda: os.path.ismount(mnt), timeout=60, message="the mount")
    with open("/proc/self/mounts") as f:
        types = [line.split()[2] for line in f if line.split()[1] == mnt]
    assert types == ["fuse.arenafs"], types
    assert served_by(mnt) == "/usr/bin/arenafs"
    jobs = sorted(os.listdir(os.path.join(mnt, "jobs")))
    assert jobs, "the demo cluster's jobs"
    with open(os.path.join(mnt, "jobs", jobs[0], "status")) as f:
        status = f.read()
    assert re.fullmatch(r"(PENDING|RUNNING|SUCCEEDED|FAILED)\n", status), (jobs[0], status)
    return status


def after_apt_install(mnt, files):
    """What a user of the package has without the sources: the example specs, in
    /usr/share/doc/arenafs/examples/, which submit as they are, and a spec's error
    that sends the user to the spec's keys where the package put them."""
    examples = "/usr/share/doc/arenafs/examples"
    for name in os.listdir(os.path.join(ROOT, "docs", "examples")):
        if os.path.isdir(os.path.join(ROOT, "docs", "examples", name)):
            assert os.path.join(examples, name, "spec.yaml") in files, name
    assert examples + "/README.md" in files
    r = run(["cp", "-r", examples + "/tf-mnist", os.path.join(mnt, "submit") + "/"])
    assert r.returncode == 0, r.stderr
    # a folder submits once its files have all come (docs/submit.md)
    status = os.path.join(mnt, "submit", "tf-mnist", "status")
    wait_until(lambda: open(status).read() == "submitted\n", timeout=60,
               message="submit/tf-mnist/status: submitted")
    bad = os.path.join(mnt, "submit", "bad.yaml")
    assert write_as_cp(bad, "type: tfjob\nimage: x\ncommand: y\nflavour: big\n") == errno.EINVAL
    with open(os.path.join(mnt, "submit", "bad", "error")) as f:
        error = f.read()
    assert "the spec's keys are listed in docs/spec.md (installed as " \
           "/usr/share/doc/arenafs/spec.md)" in error, error
    assert "/usr/share/doc/arenafs/spec.md" in files


def unmount(mnt):
    r = run(["umount", mnt])
    assert r.returncode == 0, r.stderr
    wait_until(lambda: not os.path.ismount(mnt), timeout=60, message="unmounted")


def test_package_installs_mounts_with_mount_8_and_fstab_and_purges_clean(kubesim, tmp_path):
    if os.geteuid() != 0:
        pytest.fail("installing a package needs root: run this test as root (CI does)")
    if installed():
        pytest.fail("arenafs is installed on this machine already (dpkg -s arenafs): "
                    "this test installs and removes its own; remove it first")

    r = run(["make", "-s", "-C", ROOT, "deb"])
    assert r.returncode == 0, r.stdout + r.stderr
    deb = os.path.join(ROOT, r.stdout.strip().splitlines()[-1])
    with open(os.path.join(ROOT, "k8s", "base", "version.h")) as f:
        version = re.search(r'#define ARENAFS_VERSION "([^"]*)"', f.read()).group(1)
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    assert os.path.basename(deb) == "arenafs_%s_%s.deb" % (version, arch)

    # lintian: not an error, not a warning (pedantic and info tags are the note's)
    r = run(["lintian", "--no-tag-display-limit", deb])
    said = [l for l in r.stdout.splitlines() if l[:2] in ("E:", "W:")]
    assert said == [] and r.returncode == 0, r.stdout + r.stderr
    fields = run(["dpkg-deb", "-f", deb, "Version", "Depends"]).stdout
    assert "Version: %s\n" % version in fields, fields
    for lib in ("libfuse3-3", "libcurl4", "libjansson4", "libyaml-0-2", "fuse3"):
        assert re.search(r"\b%s\b" % re.escape(lib), fields), (lib, fields)

    # what was there before: the folders a package shares with the system (/usr/bin)
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True, check=True)
    names = subprocess.run(["tar", "-t"], input=tar.stdout, capture_output=True, check=True)
    paths = ["/" + p.lstrip(".").strip("/") for p in names.stdout.decode().splitlines()]
    existed = {p for p in paths if os.path.lexists(p)}
    mnt = str(tmp_path / "mnt")
    os.mkdir(mnt)
    c = kubesim("--demo")
    try:
        r = run(["dpkg", "-i", deb])
        assert r.returncode == 0, r.stdout + r.stderr
        files = run(["dpkg", "-L", "arenafs"]).stdout.split("\n")
        files = [f for f in files if f and f != "/."]
        for must in ("/usr/bin/arenafs", "/sbin/mount.arenafs", "/sbin/mount.fuse.arenafs",
                     "/usr/share/man/man1/arenafs.1.gz", "/usr/share/doc/arenafs/copyright",
                     "/usr/share/doc/arenafs/tree.md", "/usr/lib/systemd/user/arenafs.service"):
            assert must in files, (must, files)
        r = run(["/usr/bin/arenafs", "-V"])
        assert r.stdout.startswith("arenafs version %s\n" % version), r.stdout
        # the unit runs the binary the package installed
        with open("/usr/lib/systemd/user/arenafs.service") as f:
            assert "ExecStart=/usr/bin/arenafs -f %h/arena\n" in f.read()

        # mount(8) with the type: it runs /sbin/mount.fuse.arenafs. ARENAFS_BIN (the
        # suite's binary) must not reach the helper, which would run it instead.
        env = {k: v for k, v in os.environ.items() if k not in ("ARENAFS_BIN", "KUBECONFIG")}
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        r = run(["mount", "-t", "fuse.arenafs", "-o", "kubeconfig=" + c.kubeconfig,
                 "arenafs", mnt], env=env)
        assert r.returncode == 0, r.stderr
        mounted_status(mnt)
        after_apt_install(mnt, files)
        unmount(mnt)

        # an fstab line, with fstab's own options, from a file of fstab's format
        fstab = tmp_path / "fstab"
        context = c.config()["current-context"]
        fstab.write_text("# arenafs' test\n%s  %s  fuse.arenafs  noauto,_netdev,nofail,"
                         "x-systemd.automount,kubeconfig=%s  0 0\n" % (context, mnt, c.kubeconfig))
        r = run(["mount", "-T", str(fstab), mnt], env=env)
        assert r.returncode == 0, r.stderr
        mounted_status(mnt)
        with open("/proc/self/mounts") as f:
            assert any(l.split()[:2] == ["arenafs:" + context, mnt] for l in f)
        unmount(mnt)
    finally:
        if os.path.ismount(mnt):
            run(["umount", "-l", mnt])
        purged = run(["dpkg", "--purge", "arenafs"])
    assert purged.returncode == 0, purged.stdout + purged.stderr
    assert not installed()
    left = [f for f in files if os.path.lexists(f) and f not in existed]
    assert left == [], left
