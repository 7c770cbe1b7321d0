"""README.md's commands work as written on `make demo`: every command of its code
blocks that names /arena is run, in README's order, from the source tree, on the
cluster tests/demo.sh starts (what `make demo` runs) mounted where
ARENAFS_DEMO_MNT says, that path put for /arena, as README tells a user to.
Each exits 0 and writes nothing on stderr; a `cat` or `ls` prints something;
where README's comment shows the output (OUTPUT_SHOWN), the output is that,
waited for (a job is RUNNING when the cluster says so). `tail -f` and `watch`
are run once, as `tail` and the command watched. README's other commands build
or install (NOT_ON_THE_DEMO): a command that is neither fails the test, so a
new one is run or said not to be."""

import os
import re
import signal
import subprocess

from conftest import ARENAFS_BIN
from helpers import wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOUNT = re.compile(r"/arena(?=/|\s|$)")  # README's mount point, not /arenafs_...

# Commands of README whose comment is their output ("..." anything, a number any).
OUTPUT_SHOWN = {
    "cat /arena/jobs/tf-mnist/status",
    "cat /arena/jobs/big-model/why",
    "cat /arena/jobs/waiting/why",
    "cat /arena/jobs/tf-mnist/tensorboard_url",
    "cat /arena/nodes/node-0/gpus",
    "ls /arena/jobs/tf-dist/instances/",
}

# Building, testing and installing: not commands on the demo's mount.
NOT_ON_THE_DEMO = {
    "make deb && sudo apt install ./build-deb/arenafs_*.deb",
    "make && sudo make install",
    "make demo",
    "make test",
}
# A notebook cell, not a shell command: tests/integration/test_jupyterlab.py runs
# it in a notebook on a mount (one row per job).
NOTEBOOK_LINES = {
    'pd.read_json("arena/cluster/list.json")',
}


def readme_commands():
    """(command, comment) of each line of README's indented code blocks."""
    out = []
    prev_blank = True
    in_block = False
    with open(os.path.join(ROOT, "README.md")) as f:
        for line in f.read().splitlines():
            if not line.strip():
                prev_blank = True
                continue
            in_block = line.startswith("    ") and (in_block or prev_blank)
            prev_blank = False
            if not in_block:
                continue
            m = re.match(r"(.*?)(?:\s+#\s+(.*))?$", line.strip())
            out.append((m.group(1), m.group(2) or ""))
    return out


def as_pattern(comment):
    """README's comment as the output it shows: "..." stands for anything, a
    number for any number, a run of spaces for any white space."""
    parts = []
    for i, piece in enumerate(comment.split("...")):
        words = [re.sub(r"\d+", r"\\d+", re.escape(w)) for w in piece.split()]
        parts.append(r"\s+".join(words))
    return r"\s*" + r".*?".join(parts) + r"\s*"


def runnable(cmd, mnt):
    """The command as run here: /arena is the mount, once for an endless one."""
    cmd = MOUNT.sub(mnt, cmd)
    cmd = re.sub(r"^watch\s+", "", cmd)
    return re.sub(r"^tail\s+-f\s+", "tail ", cmd)


def run(cmd):
    return subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def check(cmd, comment, mnt):
    shell = runnable(cmd, mnt)
    if cmd in OUTPUT_SHOWN:
        want = as_pattern(comment)

        seen = []

        def shown():
            seen[:] = [run(shell)]
            return seen[0].returncode == 0 and re.fullmatch(want, seen[0].stdout, re.S)
        try:
            wait_until(shown, timeout=90, message="%r to print %r" % (cmd, comment))
        except AssertionError as e:
            raise AssertionError("%s; it printed %r, %r" % (e, seen[0].stdout, seen[0].stderr))
        r = seen[0]
    else:
        r = run(shell)
    assert r.returncode == 0, (cmd, r.stderr)
    assert r.stderr == "", (cmd, r.stderr)
    if cmd.split()[0] in ("cat", "ls", "tail", "watch"):
        assert r.stdout.strip(), (cmd, "printed nothing")


def test_every_readme_command_works_on_the_demo(tmp_path):
    commands = readme_commands()
    on_demo = [(c, m) for c, m in commands if MOUNT.search(c)]
    others = {c for c, _ in commands if not MOUNT.search(c)}
    assert others == NOT_ON_THE_DEMO | NOTEBOOK_LINES, \
        "a README command neither run here nor listed"
    assert OUTPUT_SHOWN <= {c for c, _ in on_demo}, "OUTPUT_SHOWN names a command README lacks"
    assert len(on_demo) >= 15, on_demo
    work = tmp_path / "demo"
    mnt = str(tmp_path / "arena")
    proc = subprocess.Popen(["sh", os.path.join(ROOT, "tests", "demo.sh"), ARENAFS_BIN],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, ARENAFS_DEMO_DIR=str(work),
                                     ARENAFS_DEMO_MNT=mnt,
                                     XDG_CACHE_HOME=str(tmp_path / "cache")),
                            start_new_session=True)
    try:
        wait_until(lambda: os.path.ismount(mnt), timeout=60, message="the demo's mount")
        # demo.sh queues its Kueue jobs after the mount: README's begin when it is done
        wait_until(lambda: os.path.isdir(os.path.join(mnt, "jobs", "waiting")), timeout=60,
                   message="the demo's job waiting in its queue")
        for cmd, comment in on_demo:
            check(cmd, comment, mnt)
    finally:
        os.killpg(proc.pid, signal.SIGINT)       # Ctrl-C in the demo's terminal
        out, _ = proc.communicate(timeout=60)
    assert "mounted at\n\n    %s\n" % mnt in out, out
    assert proc.returncode == 0, out
