"""In-process clusters for the simulation's unit tests: a Store and LogStore
(no HTTP), populated and driven by kubesim_lib.sim at a high --speed.

Waits poll the store until a predicate holds, with a deadline far beyond
what the simulation needs, so a slow machine makes a test slower, never
wrong.
"""

import argparse
import time

from kubesim_lib import sim
from kubesim_lib.logs import LogStore
from kubesim_lib.store import Store

DEADLINE = 30.0


class Cluster:
    def __init__(self, **opts):
        defaults = dict(nodes=2, gpus=4, cpu_nodes=0, jobs=0, speed=50.0, seed=7, demo=False,
                        mpi_v2beta1=False)
        defaults.update(opts)
        self.opts = argparse.Namespace(**defaults)
        self.store = Store()
        self.logs = LogStore()
        for ns in ("default", "research"):
            self.store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                             "metadata": {"name": ns}, "status": {"phase": "Active"}})
        sim.populate(self.store, self.logs, self.opts)
        self.rt = None

    def start(self):
        self.rt = sim.start(self.store, self.logs, self.opts)
        return self

    def stop(self):
        if self.rt is not None:
            self.rt.stop()
            assert self.rt.errors == 0, "a controller raised (see stderr)"
            self.rt = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- reading ----

    def get(self, resource, name, ns="default"):
        e = self.store.get(resource, ns, name)
        return e.obj if e is not None else None

    def list(self, resource, ns=None):
        return [e.obj for e in self.store.list(resource, ns)[0]]

    def pods(self, prefix="", ns="default"):
        return [p for p in self.list("pods", ns) if p["metadata"]["name"].startswith(prefix)]

    def events(self, name=None, reason=None):
        out = []
        for e in self.list("events"):
            if name is not None and e["involvedObject"]["name"] != name:
                continue
            if reason is not None and e["reason"] != reason:
                continue
            out.append(e)
        return out

    def log(self, pod, container, instance=0, ns="default"):
        lines, finished = self.logs.lines_from(ns, pod, container, instance, 0)
        return [l.decode().rstrip("\n") for _, l in lines], finished

    def wait(self, what, pred, timeout=DEADLINE):
        """Polls pred() until it returns something truthy; returns it."""
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            last = pred()
            if last:
                return last
            time.sleep(0.01)
        raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))

    def settle(self):
        """Waits until the controllers have had a turn with nothing left to do."""
        seen = self.rt.idle_rounds
        self.wait("controllers idle", lambda: self.rt.idle_rounds >= seen + 2)

    def wait_phase(self, pod, phase, ns="default"):
        def p():
            o = self.get("pods", pod, ns)
            return o is not None and (o.get("status") or {}).get("phase") == phase and o
        return self.wait("pod %s %s" % (pod, phase), p)

    def wait_condition(self, resource, name, ctype, status="True", ns="default"):
        def p():
            o = self.get(resource, name, ns)
            for c in ((o or {}).get("status") or {}).get("conditions") or []:
                if c["type"] == ctype and c["status"] == status:
                    return o
            return None
        return self.wait("%s %s condition %s=%s" % (resource, name, ctype, status), p)

    def wait_gone(self, resource, name, ns="default"):
        return self.wait("%s %s deleted" % (resource, name), lambda: self.get(resource, name, ns) is None)


def env(**kv):
    return [{"name": k, "value": str(v)} for k, v in kv.items()]


def tfjob(name, workers=2, chief=0, ps=0, gpus=1, policy="Never", run_policy=None, ns="default",
          **sim_env):
    c = {"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0-gpu",
         "command": ["python", "train.py"], "env": env(**sim_env)}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    specs = {}
    for rtype, n in (("Chief", chief), ("PS", ps), ("Worker", workers)):
        if n:
            specs[rtype] = {"replicas": n, "restartPolicy": policy,
                            "template": {"spec": {"containers": [dict(c)]}}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"runPolicy": run_policy or {}, "tfReplicaSpecs": specs}}


def pod(name, gpus=0, ns="default", restart="Never", node=None, init=None, **sim_env):
    c = {"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "train"],
         "env": env(**sim_env)}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec = {"containers": [c], "restartPolicy": restart}
    if node:
        spec["nodeName"] = node
    if init:
        spec["initContainers"] = init
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": spec}
