"""The training-operator controller: watches the kubeflow.org kinds and what
they own (pods, services, and for mpi-operator's v2beta1 MPIJobs the launcher
Job), and runs one Reconcile per dirty job.
"""

from . import util
from .kubeflow import Reconcile
from .kubeflow_kinds import API, KINDS, replica_specs
from .mpi_v1 import MPIv1Reconcile
from .runtime import Controller


class TrainingOperator(Controller):
    """One controller for all kubeflow.org/v1 kinds (each has its own messages)."""

    name = "training-operator"
    resources = tuple(KINDS) + ("pods", "services", "jobs.batch")

    def __init__(self, rt, mpi_v2=None):
        super().__init__(rt)
        self.mpi_v2 = mpi_v2   # the v2beta1 controller, for MPIJobs of that version

    # ---- watching ----

    def observe(self, ev):
        if ev.resource in KINDS:
            if ev.type != "DELETED":
                self.enqueue((ev.resource,) + util.key_of(ev.obj))
            return
        ref = util.controller_ref(ev.obj)
        # v2beta1 MPIJobs own pods and the launcher Job too (mpi.py).
        if ref and ref.get("apiVersion") in (API, "kubeflow.org/v2beta1"):
            for k in KINDS.values():
                if k.kind == ref.get("kind"):
                    self.enqueue((k.resource, util.meta(ev.obj).get("namespace", ""),
                                  ref.get("name")))

    def is_v2beta1(self, job):
        v = job.get("apiVersion")
        if v:
            return v == "kubeflow.org/v2beta1"
        return bool(getattr(self.rt.opts, "mpi_v2beta1", False))

    def reconcile(self, key):
        resource, ns, name = key
        job = self.rt.get(resource, ns, name)
        if job is None or util.meta(job).get("deletionTimestamp"):
            return
        k = KINDS[resource]
        if k.kind == "MPIJob" and self.is_v2beta1(job):
            if self.mpi_v2 is not None:
                self.mpi_v2.reconcile_job(job)
            return
        specs = replica_specs(job, k)
        if specs is None:
            return
        make_reconcile(self, k, job, specs).run()


def make_reconcile(op, k, job, specs):
    if k.kind == "MPIJob":
        return MPIv1Reconcile(op, k, job, specs)
    return Reconcile(op, k, job, specs)


def StagedReconcile(op, k, job, specs, at):
    """A Reconcile whose clock reads unix time `at` (populate's past)."""
    r = make_reconcile(op, k, job, specs)
    r.now = util.rfc3339(at)
    op.rt.clock = at
    return r
