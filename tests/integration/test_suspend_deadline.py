"""One user action, one deadline (issue 33, item 10; docs/reliability.md, "One
action, one deadline").

Under 429s one `echo 1 > jobs/NAME/suspend` took 37.7 s with request_timeout
30 s: the access review its lookup asked (for the file's mode) and the PATCH
of its write each had a request_timeout of their own. They share one now. The
proof is in what the server saw, not in a clock: with request_timeout=3 and
the access review answered after 5 s, the review uses up the action's
deadline and its PATCH is never sent (before, it went out with 3 s of its own); the write fails with ETIMEDOUT and the job's info
says why. A write after a pause is a new action with a deadline of its own."""

import errno
import os
import time

from helpers import wait_until, write_once
from k8scache_helpers import sim_answers

REVIEWS = r"^POST \S*/selfsubjectaccessreviews"


def test_the_access_review_and_the_patch_of_one_echo_share_one_deadline(kubesim, arenafs):
    c = kubesim("--jobs", "3", "--nodes", "2")
    m = arenafs(c, "request_timeout=3",
                allow=[r"jobs/\S+/suspend of namespace default refused: "])
    job = wait_until(lambda: sorted(os.listdir(m.path("jobs")))[0]
                     if os.listdir(m.path("jobs")) else None, message="a job listed")
    c.fault(reset=True)
    c.fault(delay_ms=5000, delay_match=REVIEWS)
    try:
        rc = write_once(m.path("jobs", job, "suspend"), "1\n")
        reviews = len(sim_answers(c, REVIEWS))
        patches = sim_answers(c, r"^PATCH ")
    finally:
        c.fault(delay_ms=0)
    assert reviews == 1, reviews
    # the reviews used the whole request_timeout of the action: no PATCH went out
    assert patches == [], patches
    assert rc == errno.ETIMEDOUT, os.strerror(rc)
    info = m.read("jobs", job, "info")
    assert "\nSuspend: refused at " in info, info
    assert "used all of its request_timeout (3000 ms)" in info, info
    # a write after a pause is an action of its own: the PATCH goes out
    time.sleep(2.5)
    assert write_once(m.path("jobs", job, "suspend"), "1\n") == 0
    assert sim_answers(c, r"^PATCH ") == [200], sim_answers(c, r"^PATCH ")
