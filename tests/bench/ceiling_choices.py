#!/usr/bin/python3
"""What FUSE's kernel-facing choices cost: bench.py's tree rows on the FUSE ceiling
(tests/bench/ceiling.c) under each choice, against the same tree in tmpfs.

    /usr/bin/python3 tests/bench/ceiling_choices.py TREE [--rounds 5]

TREE is a copy of a mounted arenafs in tmpfs, as make bench makes it:
rsync -a --exclude=logs --exclude=logs.previous MOUNT/ /dev/shm/tree/. Every
choice is mounted at once, each on its own ceiling. Each round runs each command
twice on each mount and on TREE in turn and times the second run: the previous
run came just before, as in bench.py, and the machine's drift hits every choice
alike. Prints the median of each and its ratio to tmpfs. Nothing here is run by
make; docs/benchmarks.md says what it found.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench import CEILING, TREE_ROWS, Mount, run_timed  # noqa: E402

# (name, the ceiling's options): arenafs' own choices first
CHOICES = (
    ("arenafs' choices", []),
    ("readdirplus=always", ["-o", "readdirplus=always"]),
    ("readdirplus=no", ["-o", "readdirplus=no"]),
    ("attr/entry 60 s", ["-o", "attr_timeout=60,entry_timeout=60"]),
    ("ro mount", ["-o", "ro"]),
    ("cache_readdir", ["-o", "cache_readdir"]),
    ("no_opendir", ["-o", "no_opendir"]),
    ("no_open", ["-o", "no_open"]),
    ("ro,no_open,no_opendir", ["-o", "ro,no_open,no_opendir"]),
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="arenafs-ceiling-choices-")
    mounts = []
    try:
        for i, (_, opts) in enumerate(CHOICES):
            mounts.append(Mount([CEILING, "-f"] + opts + [args.tree], work, "m%d" % i,
                                "m%d.log" % i))
        sides = [("tmpfs", args.tree)] + [(c[0], m.path) for c, m in zip(CHOICES, mounts)]
        times = {}
        for _ in range(args.rounds):
            for what, cmd, _ in TREE_ROWS:
                for name, root in sides:
                    run_timed(cmd(root))
                    times.setdefault((name, what), []).append(run_timed(cmd(root))[0])
        w = max(len(name) for name, _ in sides)
        print("%-*s  %s" % (w, "", "  ".join("%-30s" % what for what, _, _ in TREE_ROWS)))
        for name, _ in sides:
            cells = []
            for what, _, _ in TREE_ROWS:
                t = statistics.median(times[(name, what)])
                cells.append("%8.1f ms %6.2fx tmpfs" % (
                    t * 1000, t / statistics.median(times[("tmpfs", what)])))
            print("%-*s  %s" % (w, name, "  ".join("%-30s" % c for c in cells)))
    finally:
        for m in mounts:
            m.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
