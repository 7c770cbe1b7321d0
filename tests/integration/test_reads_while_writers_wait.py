"""Reads the cache answers stay fast while writers wait for a slow server (issue
33, item 5; docs/reliability.md, "Reads while writers wait").

Twenty processes opening jobs/*/suspend while the access review is slow, or
twelve `cp spec submit/` while the POSTs are slow, used to hold every FUSE
worker of libfuse (ten at most): `cat cluster/health` then waited for the
cluster too (23 s and 15 s). Requests that wait for the cluster now wait on
threads of their own. The proof is in the order of events, not in a clock:
`cat cluster/health` ends while every slow request the server has seen is
still unanswered. How long it took, as a ratio to the unloaded read, is
printed for the record (make bench measures it too: tests/bench/bench.py)."""

import os
import threading
import time

from helpers import wait_until, write_as_cp
from k8scache_helpers import sim_answers

SLOW_MS = 20000
REVIEWS = r"^POST \S*/selfsubjectaccessreviews"
POSTS = r"^POST \S*/tfjobs"
SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n")


def timed_read(m, *parts):
    t0 = time.monotonic()
    text = m.read(*parts)
    return text, time.monotonic() - t0


def read_while_pending(c, m, pattern, writers, at_least):
    """Starts the writers, waits until the server holds at_least requests matching
    pattern unanswered, then reads cluster/health: (its text, seconds, the slow
    requests' answers as the read ended)."""
    for w in writers:
        w.start()
    wait_until(lambda: sim_answers(c, pattern).count(None) >= at_least, timeout=60,
               message="%d slow requests held by the server" % at_least)
    text, took = timed_read(m, "cluster", "health")
    return text, took, sim_answers(c, pattern)


def finish(c, writers):
    c.fault(delay_ms=0)
    for w in writers:
        w.join(timeout=120)
    assert not any(w.is_alive() for w in writers)


def test_opening_suspend_files_while_the_access_review_is_slow(kubesim, arenafs):
    c = kubesim("--jobs", "24", "--nodes", "4")
    m = arenafs(c, "request_timeout=60")
    jobs = wait_until(lambda: sorted(os.listdir(m.path("jobs")))[:20]
                      if len(os.listdir(m.path("jobs"))) >= 20 else None,
                      message="the jobs listed")
    _, unloaded = timed_read(m, "cluster", "health")
    c.fault(delay_ms=SLOW_MS, delay_match=REVIEWS)
    results = {}

    def opener(name):
        try:
            os.close(os.open(m.path("jobs", name, "suspend"), os.O_WRONLY))
            results[name] = 0
        except OSError as e:
            results[name] = e.errno

    writers = [threading.Thread(target=opener, args=(j,)) for j in jobs]
    try:
        text, took, reviews = read_while_pending(c, m, REVIEWS, writers, 10)
    finally:
        finish(c, writers)
    print("cat cluster/health: %.2f ms unloaded, %.2f ms with %d opens waiting for the access "
          "review (%.1fx)" % (unloaded * 1e3, took * 1e3, len(jobs), took / max(unloaded, 1e-6)))
    assert text.startswith("ok"), text
    # read while the reviews still waited: before, it waited for them
    assert reviews and all(s is None for s in reviews), reviews
    assert all(v == 0 for v in results.values()) and len(results) == len(jobs), results


def test_copying_specs_while_the_posts_are_slow(kubesim, arenafs, tmp_path):
    c = kubesim("--nodes", "4")
    m = arenafs(c, "request_timeout=60")
    _, unloaded = timed_read(m, "cluster", "health")
    c.fault(delay_ms=SLOW_MS, delay_match=POSTS)
    results = {}

    def copier(i):
        results[i] = write_as_cp(m.path("submit", "slow-%d.yaml" % i), SPEC)

    writers = [threading.Thread(target=copier, args=(i,)) for i in range(12)]
    try:
        text, took, posts = read_while_pending(c, m, POSTS, writers, 10)
    finally:
        finish(c, writers)
    print("cat cluster/health: %.2f ms unloaded, %.2f ms with 12 cp waiting for their POSTs "
          "(%.1fx)" % (unloaded * 1e3, took * 1e3, took / max(unloaded, 1e-6)))
    assert text.startswith("ok"), text
    assert len(posts) >= 10 and all(s is None for s in posts), posts
    assert sorted(results.values()) == [0] * 12, results
