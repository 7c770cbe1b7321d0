"""Small helpers every pytest suite of the project may import (tests/ is on
sys.path through tests/conftest.py)."""

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
