"""`make demo`, the README's first command: tests/demo.sh starts kubesim's demo
cluster, mounts arenafs in the foreground, and what it tells the user to try
works; Ctrl-C unmounts and stops the cluster."""

import os
import re
import signal
import subprocess

from conftest import ARENAFS_BIN
from helpers import wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_demo_mounts_what_it_says_and_ctrl_c_ends_it(tmp_path):
    work = tmp_path / "demo"
    proc = subprocess.Popen(["sh", os.path.join(ROOT, "tests", "demo.sh"), ARENAFS_BIN],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, ARENAFS_DEMO_DIR=str(work),
                                     XDG_CACHE_HOME=str(tmp_path / "cache")),
                            start_new_session=True)
    mnt = str(work / "mnt")
    try:
        wait_until(lambda: os.path.ismount(mnt), timeout=60, message="the demo's mount")
        jobs = os.listdir(os.path.join(mnt, "jobs"))
        assert len(jobs) >= 5, jobs
        assert open(os.path.join(mnt, "cluster", "health")).read() == "ok\n"
        # a job waiting in a Kueue queue, with its place in line and the reason
        why = os.path.join(mnt, "jobs", "waiting", "why")
        wait_until(lambda: open(why).read().startswith(
            "Queued in LocalQueue user-queue (ClusterQueue cluster-queue), place 1 in line"),
            timeout=60, message="jobs/waiting/why: queued, first in line")
        assert "insufficient unused quota for nvidia.com/gpu" in open(why).read()
        # the demo's Prometheus: a running job's GPUs with duty cycle and memory
        def busy_gpus():
            for job in os.listdir(os.path.join(mnt, "jobs")):
                text = open(os.path.join(mnt, "jobs", job, "gpus")).read()
                if "GPU(DutyCycle) " in text and "GPU_MEMORY(Used/Total) " in text:
                    return text
            return None
        print("a job's gpus: %s" % wait_until(busy_gpus, timeout=60,
                                              message="a job's GPU figures"))
        # the TrainJob's progress moving, and top-job's columns after Arena's
        progress = os.path.join(mnt, "jobs", "llm-pretrain", "progress")
        first = wait_until(lambda: (lambda t: t if "%" in t else None)(open(progress).read()),
                           timeout=60, message="llm-pretrain to report progress")
        wait_until(lambda: (lambda t: t if t.startswith(first) and len(t) > len(first)
                            else None)(open(progress).read()),
                   timeout=60, message="llm-pretrain's next report, a line more")

        def top_row():
            lines = open(os.path.join(mnt, "cluster", "top-job")).read().splitlines()
            head = re.split(r"\s{2,}", lines[0].strip())
            rows = [dict(zip(head, re.split(r"\s{2,}", l.strip()))) for l in lines[1:]]
            row = [r for r in rows if r.get("NAME") == "llm-pretrain"]
            return row and row[0]["PROGRESS"].endswith("%") and \
                row[0]["GPU(DutyCycle)"].endswith("%") and row[0]
        print("top-job's llm-pretrain: %s" % wait_until(
            top_row, timeout=60, message="llm-pretrain's PROGRESS and GPU(DutyCycle) in top-job"))
        # the commands the demo prints: the job of docs/examples/tf-mnist
        r = subprocess.run("cp -r %s/docs/examples/tf-mnist submit/ && cat jobs/tf-mnist/status"
                           % ROOT,
                           shell=True, cwd=mnt, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout in ("PENDING\n", "RUNNING\n"), r.stdout
        wait_until(lambda: os.path.exists(os.path.join(mnt, "jobs", "tf-mnist",
                                                       "tensorboard_url")),
                   timeout=30, message="tf-mnist's tensorboard_url")
        os.rmdir(os.path.join(mnt, "jobs", "tf-mnist"))
        # a spec that is wrong: refused, and the demo pane says so too
        (work / "broken.yaml").write_text("type: tfjob\n")
        r = subprocess.run(["cp", str(work / "broken.yaml"), "submit/"], cwd=mnt,
                           capture_output=True, text=True)
        assert r.returncode != 0
    finally:
        os.killpg(proc.pid, signal.SIGINT)       # Ctrl-C in the demo's terminal
        out, _ = proc.communicate(timeout=60)
    assert "mounted at" in out and mnt in out, out
    # the pane shows what the daemon did: each submit, refusal and delete, in one line
    assert "arenafs: submitted TFJob tf-mnist in namespace default\n" in out, out
    assert "arenafs: submit/broken refused: image: required" in out, out
    assert "arenafs: deleted TFJob tf-mnist in namespace default\n" in out, out
    assert "arenafs demo: stopped" in out, out
    assert proc.returncode == 0, "Ctrl-C is the demo's clean stop: make must see 0"
    assert not os.path.ismount(mnt)
    sims = subprocess.run(["pgrep", "-f", "kubesim --dir " + str(work)], capture_output=True)
    assert sims.returncode == 1, "kubesim still runs"
