"""The shrunk sequences the hostile machine (test_hostile_machine.py) found, as
plain tests: each replays one on a fresh kubesim and mount through
hostile_world.World, whose checks say which promise broke.

A test named after a known defect (hostile_world.KNOWN_DEFECTS: issue 33's items
by number, the machine's own finds by name) behaves as that defect's entry in
hostile_world.OPEN says. While the defect is open (its fix is on another branch)
the test checks that the sequence still breaks the promise, so that it fails
once the fix is merged, saying to close the defect; closed, it checks the
promise. ARENAFS_HOSTILE_OPEN= (empty) runs every test as if all were fixed:
each of them failed that way on the branch that added it.
"""

import re
import time

import pytest

from helpers import wait_until
import hostile_world as hw
from hostile_world import Died, World


def still_broken(w, defect):
    """Ends a test of a known defect: while it is open, the sequence must have
    broken its promise (World.promise raised already if it is closed)."""
    if defect in hw.OPEN:
        assert defect in w.breaches, (
            "the sequence of %r no longer breaks its promise (%s): if its fix is merged, "
            "remove it from hostile_world.KNOWN_DEFECTS; the world did:\n  %s"
            % (defect, hw.KNOWN_DEFECTS[defect], "\n  ".join(w.log)))


def dies_while_open(w, defect, sequence):
    """Runs sequence, which kills the daemon while defect is open: then the
    death is the breach, and the mount is torn down without its exit status."""
    try:
        sequence()
    except Died as e:
        if defect not in hw.OPEN:
            raise
        w.note("broken, known (%s): %s" % (hw.KNOWN_DEFECTS[defect], e))
        w.breaches.append(defect)
        w.m.allow.append(re.compile(r"Assertion .* failed|Aborted|^arenafs: "))
        w.m.kill()


@pytest.mark.parametrize("dotted", ["rayjob", "trainjob"])
def test_item1_dotted_name_that_is_another_kinds_suffix(kubesim, arenafs, dotted):
    """TFJob and PyTorchJob mnist show as mnist.tfjob and mnist.pytorchjob; a
    RayJob (the issue's case) or a TrainJob (the machine's, with item 1 closed:
    shrunk to these three creations) named mnist.tfjob made in the same second."""
    w = World(kubesim, arenafs)

    def sequence():
        # creationTimestamp has seconds: three objects straddling a second's
        # turn are the other case (item 2); then again under another name
        for base in ("mnist", "mnist-2", "mnist-3"):
            for typ, name in [("tfjob", base), ("pytorchjob", base), (dotted, base + ".tfjob")]:
                assert w.create(typ, name) == 201
            stamps = {o["metadata"]["creationTimestamp"] for _, n, _, o in w.objects()
                      if n in (base, base + ".tfjob")}
            if len(stamps) == 1:
                break
        w.check_converged()
    dies_while_open(w, "1", sequence)
    still_broken(w, "1")


def test_item2_rmdir_deletes_what_the_folder_shows(kubesim, arenafs):
    """The RayJob mnist.tfjob made seconds after TFJob and PyTorchJob mnist;
    then every folder is rmdir'ed."""
    w = World(kubesim, arenafs)

    def sequence():
        assert w.create("tfjob", "mnist") == 201
        assert w.create("pytorchjob", "mnist") == 201
        w.check_converged()
        time.sleep(1.1)       # another creationTimestamp: issue 33 item 2's case
        assert w.create("rayjob", "mnist.tfjob") == 201
        w.check_converged()
        for folder in sorted(set(w.check_listing())):
            w.rmdir(folder)
        w.check_converged()
    dies_while_open(w, "1", sequence)
    if "1" not in w.breaches:
        still_broken(w, "2")


def test_item2_names_longer_than_255_bytes(kubesim, arenafs):
    """A RayJob and a SparkApplication of one 250-character name: NAME.TYPE
    would be 257 and 259 bytes."""
    w = World(kubesim, arenafs)
    assert w.create("rayjob", "x" * 250) == 201
    assert w.create("sparkjob", "x" * 250) == 201
    # both in the daemon's cache (cluster/list, Arena's table, lists every job),
    # so that the listing is the one of both objects
    wait_until(lambda: w.read("cluster", "list").count("x" * 250) == 2, timeout=hw.CONVERGE_S,
               message="cluster/list to show both jobs")
    w.check_converged()
    still_broken(w, "2")


def test_item3_folder_copy_paused_inside_a_file(kubesim, arenafs):
    """cp -r of a folder whose copy stalls 1.5 s inside model.py."""
    w = World(kubesim, arenafs)
    files = hw.folder_files(3, [405264])
    at = len(hw.spec_text(hw.SPEC_LINES)) + 243200
    w.copy_folder("stalled", files, at, 1.5)
    w.check_converged()
    still_broken(w, "3")


def test_item4_writer_killed_after_three_lines(kubesim, arenafs):
    """A writer of submit/mnist.yaml killed (SIGKILL) after three of its six
    lines: the spec is valid from its third line, but nobody finished it."""
    w = World(kubesim, arenafs)
    w.interrupted_writer("mnist", 3, "kill")
    w.check_converged()
    still_broken(w, "4")


def test_item5_health_read_while_writers_wait(kubesim, arenafs):
    """12 cps into submit/ while every POST waits 3 s, then cat cluster/health."""
    w = World(kubesim, arenafs)
    w.slow_writers(12, 3000)
    w.heal()
    w.check_converged()
    still_broken(w, "5")


def test_item6_object_too_large_leaves_the_tree_stale(kubesim, arenafs):
    """A 17 MiB TFJob stored, then a spec submitted: the tree must show the new
    job, or cluster/health say that it is not current."""
    w = World(kubesim, arenafs)
    w.huge_object("bert", 17)
    w.create("tfjob", "after")
    w.check_converged()
    still_broken(w, "6")


def test_item8_an_error_quoting_a_value_is_one_clean_line(kubesim, arenafs):
    """A spec whose gpus: is "t\\nwo": submit/b/error quoted it with the newline
    raw (two lines), as it quotes ESC and C1 controls of other values raw; the
    daemon's log line is sanitized."""
    w = World(kubesim, arenafs)
    w.bad_spec("b", "newline in a value")
    w.check_converged()
    still_broken(w, "8")


def test_item9_two_cps_of_one_name(kubesim, arenafs):
    """Two cps of specs that differ in workers: to one name at once, rounds
    until one shows the race (the machine's first find: one round)."""
    w = World(kubesim, arenafs)
    for i in range(8):
        w.two_writers("s%d" % i, (1, 4))
        if "9" in w.breaches:
            break
    w.check_converged()
    still_broken(w, "9")


def test_code_lost_when_the_specs_close_waits(kubesim, arenafs):
    """cp -r of a folder, spec.yaml first, while the next four POSTs are answered
    429: the spec's close waits out the retries of its dry run, the folder is
    quiet meanwhile, and its job is made before cp could write model.py."""
    w = World(kubesim, arenafs)
    w.failing(4, 429, "posts")
    w.copy_folder("yy", hw.folder_files(181, [225283, 182838]), None, 0)
    w.heal()
    w.check_converged()
    still_broken(w, "code-lost-at-close")
