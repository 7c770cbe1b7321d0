"""The soak's short form (tests/bench/soak.py; `make soak` runs 20 minutes): the
daemon's memory stays flat under two and a half minutes of churn once the
cluster forgets as fast as it makes, i.e. once its Events expire (kubesim
--event-ttl 20s here, where a real cluster keeps them an hour).

What is asserted, after a warm-up of the TTL, its lease's reuse window and a
minute: the Events the cluster holds have levelled (no more than half again
the count at the warm-up's end), and the daemon's highest RSS in the second
half of the samples is at most 15 % above the first half's. Both fail while
Events never expire (the daemon grew from 12 to 45 MB in 8 minutes of churn).
The kept logs' budget is small (keep_logs=256K) for the same reason: their
index grows until it is full.
The churn and the reads must meet no error but ENOENT of a job deleted under
a reader. Runs on kubesim only: the real cluster's run is `make soak
CLUSTER=real` (docs/reliability.md), with a cluster of its own started with a
short --event-ttl."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))

import soak  # noqa: E402

TTL = 20
BOUND = 0.15


def test_memory_stays_flat_under_churn_while_events_expire(kubesim, arenafs):
    c = kubesim("--nodes", "8", "--gpus", "8", "--speed", "4", "--event-ttl", "%ds" % TTL)
    # kept logs bounded to about 140 of these logs, full within the warm-up: their
    # index grows up to that bound (20,000 logs with the default 256M)
    m = arenafs(c, "keep_logs=256K")
    result = soak.soak(c, m.mnt, m.proc.pid, minutes=2.5, rate=4, lifetime=30, readers=4,
                       sample_seconds=5, ttl=TTL)
    series = soak.table(result)
    print(series)
    assert result["errors"] == [], result["errors"][:10]
    assert result["churn"]["deleted"] > 100, result["churn"]
    after = [s for s in result["samples"] if s["minute"] * 60 >= result["warmup_s"]]
    assert len(after) >= 8, series
    assert max(s["events"] for s in after) <= 1.5 * after[0]["events"], \
        "the cluster's Events did not level off:\n" + series
    flat, why = soak.verdict(result, BOUND)
    assert flat, why + "\n" + series
