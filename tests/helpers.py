"""Small helpers every pytest suite of the project may import (tests/ is on
sys.path through tests/conftest.py)."""

import os
import subprocess
import time


def wait_until(predicate, timeout=30.0, message="condition", interval=0.05):
    """Calls predicate() until it returns something truthy and returns that.
    The deadline is generous on purpose: a slow, shared machine makes a test
    slower, never wrong. On timeout: AssertionError naming message and the
    last value seen (or the last exception predicate raised)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = predicate()
        except Exception as e:  # a predicate may race with the state it reads
            last = e
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %.0f s waiting for %s (last: %r)"
                                 % (timeout, message, last))
        time.sleep(interval)


def read_log(path):
    """A log file's text as far as it was written ("" when it was never made);
    bytes that are not UTF-8 do not stop a test from showing it."""
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def write_as_cp(path, text, mode="w"):
    """Writes path as cp would (create, write, close; mode "a": appends, as
    echo >> does): the errno of the step that failed (open, or close, where a
    submission answers), or 0."""
    try:
        f = open(path, mode)
    except OSError as e:
        return e.errno
    f.write(text)
    try:
        f.close()
    except OSError as e:
        return e.errno
    return 0


def write_once(path, text):
    """One write(2) of text after an open with O_TRUNC, as `echo text > path`
    makes it: 0 or the errno of the step that failed."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, text.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


# A one-worker TFJob as a user writes it: TFJOB_MANIFEST % (name, extra spec lines).
TFJOB_MANIFEST = """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: %s
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.15.0
%s"""


def let_viewer_read(c):
    """The viewer context reads the namespace its context names: kubesim's
    viewer may read default, which it names there. A real cluster's test
    names a namespace of its own, where ServiceAccount default/viewer needs
    the same Role it has in default (tests/cluster/objects.yaml)."""
    if c.kind != "real" or c.namespace == "default":
        return
    import json
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "viewer", "namespace": c.namespace},
            "rules": [{"apiGroups": ["*"], "resources": ["*"],
                       "verbs": ["get", "list", "watch"]}]}
    c.kubectl("create", "-f", "-", input=json.dumps(role))
    c.kubectl("create", "rolebinding", "viewer", "--role=viewer",
              "--serviceaccount=default:viewer", "-n", c.namespace)


def first_line(text):
    """The first line of a file's text, newline kept: jobs/NAME/gpus and
    instances/POD/gpus follow their count with GPU figures (or why there are none)."""
    return text.split("\n", 1)[0] + "\n"


def peers_venvs(*names):
    """The folder of the virtual environments tests/peers/venv.sh makes (pinned, from
    PyPI; NAMES: which of them, all when none), built now if need be; a failed build
    fails the test with venv.sh's words."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "venv.sh")
    r = subprocess.run([script] + list(names), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, "tests/peers/venv.sh %s failed:\n%s" % (" ".join(names), r.stderr)
    return r.stdout.strip()
