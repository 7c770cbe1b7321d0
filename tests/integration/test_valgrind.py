"""One whole scenario with the daemon under valgrind (issue 10): mount, read
the tree, follow a log, submit and delete, a server fault, unmount. valgrind
must report 0 errors and 0 bytes definitely lost; the daemon exits 0."""

import os
import re
import shutil
import subprocess
import time

from conftest import ARENAFS_BIN, FUSERMOUNT
from helpers import wait_until
import jobspecs

VALGRIND = shutil.which("valgrind")

SPEC = ("type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python train.py\n"
        'env: {SIM_RUN_SECONDS: "30"}\n')


def test_a_whole_scenario_is_clean_under_valgrind(kubesim, tmp_path):
    assert VALGRIND, "valgrind is not installed (.ci/deps.sh installs it)"
    c = kubesim("--nodes", "2", "--jobs", "4", "--speed", "4")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    log = tmp_path / "valgrind.log"
    proc = subprocess.Popen(
        [VALGRIND, "--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=definite",
         "--errors-for-leak-kinds=definite", "--log-file=%s" % log, ARENAFS_BIN, "-f", "-o",
         "kubeconfig=%s" % c.kubeconfig, str(mnt)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        wait_until(lambda: os.path.ismount(mnt), timeout=120, message="the mount under valgrind")
        # read the tree
        subprocess.run(["ls", "-lR", str(mnt)], check=True, capture_output=True, timeout=120)
        jobs = os.listdir(mnt / "jobs")
        for j in jobs:
            for f in ("status", "info", "events", "gpus"):
                (mnt / "jobs" / j / f).read_text()
        for f in ("top", "list", "list-all", "top-job"):
            (mnt / "cluster" / f).read_text()
        # follow a log for a while
        jobspecs.create(c, jobspecs.tfjob("followed", gpus=0, start=0, run=30))
        wait_until(lambda: (mnt / "jobs" / "followed").is_dir(), timeout=60,
                   message="the followed job")
        tail = subprocess.Popen(["tail", "-f", str(mnt / "jobs" / "followed" / "logs")],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        time.sleep(5)
        # submit, refuse, delete
        (mnt / "submit" / "vg.yaml").write_text(SPEC)
        try:
            (mnt / "submit" / "bad.yaml").write_text("type: tfjob\n")
        except OSError:
            pass
        wait_until(lambda: (mnt / "jobs" / "vg").is_dir(), timeout=60, message="jobs/vg")
        os.rmdir(mnt / "jobs" / "vg")
        # a fault: the watches and the log stream are cut, and come back
        c.fault(drop_watches=True)
        time.sleep(3)
        tail.terminate()
        tail.wait(timeout=10)
        assert (mnt / "cluster" / "health").read_text()
    finally:
        subprocess.run([FUSERMOUNT, "-u", str(mnt)], capture_output=True)
        rc = proc.wait(timeout=180)
    report = log.read_text()
    assert "Memcheck" in report, report[:2000]
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", report)
    assert summary and summary.group(1) == "0", report[-4000:]
    lost = re.search(r"definitely lost: ([\d,]+) bytes", report)
    assert lost is None or lost.group(1) == "0", report[-4000:]
    assert rc == 0, "arenafs under valgrind exited %d:\n%s" % (rc, report[-4000:])
