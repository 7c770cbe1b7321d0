"""Load (issue 10): 48 readers (ls -lR, cat, stat) and 4 `tail -f` for 60 s
while jobs are created and deleted. The only error a reader may meet is ENOENT
of a job deleted under it; the daemon's memory after the run is within 20 % of
before (measured after a 10 s warm-up under the same readers, so that the FUSE
worker threads and their malloc arenas exist in both); under the ASan build (make test-asan) the same run must leave no
sanitizer report (the mount fixture fails on any unexpected output)."""

import errno
import os
import random
import subprocess
import threading
import time

from helpers import wait_until
import jobspecs

READERS = 48
TAILS = 4
SECONDS = 60


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def reader(root, stop, errors, seed, done):
    rnd = random.Random(seed)
    while not stop.is_set():
        done[seed] += 1
        try:
            jobs = os.listdir(os.path.join(root, "jobs"))
        except OSError as e:
            errors.append(("listdir jobs", e.errno))
            continue
        if not jobs:
            continue
        job = rnd.choice(jobs)
        base = os.path.join(root, "jobs", job)
        what = rnd.randrange(4)
        try:
            if what == 0:
                for name in os.listdir(base):
                    os.stat(os.path.join(base, name))
            elif what == 1:
                for name in ("status", "info", "gpus", "events"):
                    with open(os.path.join(base, name)) as f:
                        f.read()
            elif what == 2:
                for d, _, files in os.walk(base):
                    for name in files:
                        os.stat(os.path.join(d, name))
            else:
                os.stat(os.path.join(root, "cluster", "top"))
                with open(os.path.join(root, "cluster", "top")) as f:
                    f.read()
        except OSError as e:
            if e.errno != errno.ENOENT:
                errors.append((base, e.errno, e.strerror))


def churn(c, stop, made):
    i = 0
    while not stop.is_set():
        name = "churn-%d" % i
        jobspecs.create(c, jobspecs.tfjob(name, gpus=0, start=0, run=3))
        made.append(name)
        if i >= 3:
            c.kubectl("delete", "tfjob", "churn-%d" % (i - 3), "--wait=false")
        i += 1
        stop.wait(1.0)


def test_readers_and_tails_under_churn(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "4", "--jobs", "20", "--speed", "4")
    m = arenafs(c)
    wait_until(lambda: len(os.listdir(m.path("jobs"))) >= 20, timeout=30,
               message="the jobs listed")
    # a warm-up under the same readers, so that "before" is a mount that has been
    # read by as many threads (the FUSE workers and their malloc arenas exist)
    errors, made, done = [], [], [0] * READERS
    warm = threading.Event()
    warmers = [threading.Thread(target=reader, args=(m.mnt, warm, errors, s, done))
               for s in range(READERS)]
    for t in warmers:
        t.start()
    time.sleep(10)
    warm.set()
    for t in warmers:
        t.join(timeout=60)
    before = rss_kib(m.proc.pid)
    done[:] = [0] * READERS

    stop = threading.Event()
    threads = [threading.Thread(target=reader, args=(m.mnt, stop, errors, s, done))
               for s in range(READERS)]
    threads.append(threading.Thread(target=churn, args=(c, stop, made)))
    running = [j for j in os.listdir(m.path("jobs"))
               if m.read("jobs", j, "status") == "RUNNING\n"][:TAILS]
    assert len(running) == TAILS, running
    tails = [subprocess.Popen(["tail", "-f", m.path("jobs", j, "logs")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for j in running]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    for p in tails:
        assert p.poll() is None, "tail -f ended: %s" % p.stderr.read()
        p.terminate()
        p.wait(timeout=10)
    assert errors == [], errors[:10]
    assert min(done) > 10, done         # every reader kept reading
    assert len(made) > 10, made
    # the churned jobs come and go in the tree as in the cluster
    wait_until(lambda: sorted(os.listdir(m.path("jobs"))) ==
               sorted(j["metadata"]["name"] for j in c.kubectl_json("get", "tfjobs")["items"]),
               timeout=30, message="jobs/ to match the cluster after the churn")
    # the kernel forgets the inodes it no longer needs (as under memory pressure):
    # what the daemon still holds then is its own
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2\n")
    time.sleep(2)
    after = rss_kib(m.proc.pid)
    print("load: %d reads by %d readers, %d jobs churned, RSS %d -> %d KiB"
          % (sum(done), READERS, len(made), before, after))
    assert after <= before * 1.2, "RSS grew from %d to %d KiB" % (before, after)
