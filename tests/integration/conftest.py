"""Fixtures that mount arenafs against kubesim, the way a user runs it.

    def test_x(kubesim, arenafs):
        c = kubesim("--jobs", "20")
        m = arenafs(c)                        # arenafs -f -o kubeconfig=... MNT
                                              # ($XDG_CACHE_HOME: m.cache_home, its own)
        open(m.path("jobs", "tfjob-00000", "status")).read()
        m.unmount()                           # optional: done at teardown anyway

The daemon runs in the foreground (-f) with its stderr captured. As libfuse's
own tests do, a test fails when the daemon printed anything that is not
expected (a warning, an error, a sanitizer report), when `fusermount3 -u`
fails at teardown, or when the daemon does not then exit with status 0.

ARENAFS_BIN names the binary (default ./arenafs; `make test-asan` passes
./arenafs-asan); ARENAFS_VALGRIND=1 runs the daemon under valgrind.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from helpers import read_log

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARENAFS_BIN = os.environ.get("ARENAFS_BIN", os.path.join(ROOT, "arenafs"))
VALGRIND = os.environ.get("ARENAFS_VALGRIND") == "1"
FUSERMOUNT = shutil.which("fusermount3") or "fusermount3"
MOUNT_TIMEOUT = 120.0 if VALGRIND else 30.0


def daemon_command(args):
    """The command line that runs arenafs with args (under valgrind when asked)."""
    cmd = [ARENAFS_BIN] + [str(a) for a in args]
    if VALGRIND:
        cmd = ["valgrind", "--quiet", "--error-exitcode=99", "--leak-check=full",
               "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite",
               "--trace-children=no"] + cmd
    return cmd


def daemon_env(tmpdir, cache_home=None):
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env["TMPDIR"] = str(tmpdir)          # log spill files: never inside the mount
    # kept logs (keep_logs) go to $XDG_CACHE_HOME/arenafs/logs: the test's own
    env["XDG_CACHE_HOME"] = str(cache_home or os.path.join(str(tmpdir), "cache"))
    return env


def run_arenafs(args, tmpdir, timeout=120):
    """Runs arenafs to its end (start-up failures, --help): CompletedProcess."""
    return subprocess.run(daemon_command(args), capture_output=True, text=True,
                          timeout=timeout, env=daemon_env(tmpdir))


# What the daemon says of its own accord (docs/arenafs.1 DIAGNOSTICS): one line
# per submit, refusal and delete; never a test's surprise.
ACTIVITY = [r"^arenafs: submitted \S+ \S+ in namespace ", r"^arenafs: deleted \S+ \S+ in namespace ",
            r"^arenafs: (submit|check)/.* refused: ", r"^arenafs: trash: ",
            r"^arenafs: namespaces/\S+/(submit|check)/.* refused: "]


class Mount:
    """One arenafs daemon in the foreground and its mount point."""

    def __init__(self, kubeconfig, directory, options=(), allow=(), cache_home=None):
        self.dir = str(directory)
        self.mnt = os.path.join(self.dir, "mnt")
        os.makedirs(self.mnt, exist_ok=True)
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.tmp, exist_ok=True)
        self.log_path = os.path.join(self.dir, "arenafs.log")
        self.allow = [re.compile(a) for a in list(allow) + ACTIVITY]
        opts = ",".join(["kubeconfig=" + str(kubeconfig)] + list(options))
        self._log = open(self.log_path, "wb")
        self.cache_home = str(cache_home or os.path.join(self.dir, "cache"))
        self.proc = subprocess.Popen(daemon_command(["-f", "-o", opts, self.mnt]),
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     env=daemon_env(self.tmp, self.cache_home))
        self.unmounted = False
        deadline = time.monotonic() + MOUNT_TIMEOUT
        while not os.path.ismount(self.mnt):
            if self.proc.poll() is not None:
                raise AssertionError("arenafs exited with %s before mounting:\n%s"
                                     % (self.proc.returncode, self.log()))
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError("arenafs did not mount in %.0f s:\n%s"
                                     % (MOUNT_TIMEOUT, self.log()))
            time.sleep(0.05)

    def path(self, *parts):
        return os.path.join(self.mnt, *parts)

    def read(self, *parts):
        with open(self.path(*parts)) as f:
            return f.read()

    def log(self):
        return read_log(self.log_path)

    def unexpected_output(self):
        """Lines the daemon printed that no test expected."""
        return [line for line in self.log().splitlines()
                if line.strip() and not any(a.search(line) for a in self.allow)]

    def unmount(self, timeout=60):
        """fusermount3 -u, which must succeed, then the daemon must exit 0."""
        self.unmounted = True
        r = None
        deadline = time.monotonic() + 10
        while True:
            r = subprocess.run([FUSERMOUNT, "-u", self.mnt], capture_output=True, text=True)
            # a process of the test that just closed a file may still hold the mount
            if r.returncode == 0 or "busy" not in r.stderr or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert r.returncode == 0, "fusermount3 -u failed: %s" % r.stderr
        return self.wait(timeout)

    def wait(self, timeout=60):
        """Waits for the daemon to end; asserts exit status 0."""
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("arenafs did not exit after unmount:\n" + self.log())
        self.unmounted = True
        self._log.close()
        assert rc == 0, "arenafs exited with %s:\n%s" % (rc, self.log())
        return rc

    def kill(self):
        subprocess.run([FUSERMOUNT, "-u", "-z", self.mnt], capture_output=True)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.unmounted = True
        self._log.close()

    def finish(self):
        """Teardown: unmount if still mounted; the problems found, as strings."""
        problems = []
        if not self.unmounted:
            try:
                self.unmount()
            except AssertionError as e:
                problems.append(str(e))
                self.kill()
        bad = self.unexpected_output()
        if bad:
            problems.append("arenafs printed:\n  " + "\n  ".join(bad))
        return problems


def _mount_factory(base):
    mounts = []

    def start(cluster, *options, allow=(), kubeconfig=None, cache_home=None):
        m = Mount(kubeconfig or cluster.kubeconfig,
                  os.path.join(str(base), "arenafs-%d" % len(mounts)), options, allow,
                  cache_home)
        mounts.append(m)
        return m
    return start, mounts


def _finish(mounts):
    problems = []
    for m in mounts:
        problems += m.finish()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def arenafs(tmp_path):
    """Factory: arenafs(cluster, *mount_options, allow=(regex,...)) -> Mount."""
    start, mounts = _mount_factory(tmp_path)
    yield start
    _finish(mounts)


@pytest.fixture(scope="module")
def arenafs_module():
    """As arenafs, shared by a module's tests (with kubesim_module)."""
    d = tempfile.mkdtemp(prefix="arenafs-")
    start, mounts = _mount_factory(d)
    yield start
    _finish(mounts)
    shutil.rmtree(d, ignore_errors=True)
