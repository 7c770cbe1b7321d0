"""kubesim's simulation: what makes the emulated cluster move.

    populate(store, logs, opts)   before serving: nodes, --jobs, --demo
    start(store, logs, opts)      runs the controllers; returns an object
                                  whose stop() ends them

opts is the CLI's argparse Namespace; the fields read (all optional, read
with getattr) are nodes, gpus, cpu_nodes, jobs, speed, seed, demo,
mpi_v2beta1, kueue and kueue_gpus. See docs/kubesim.md, section Simulation.
"""

from .batch import JobController
from .deployment import DeploymentController, ReplicaSetController
from .training_operator import TrainingOperator
from .kubelet import Kubelet
from .mpi import MPIv2
from .populate import populate
from .runtime import Runtime
from .scheduler import Scheduler
from .trainjob import TrainJobController
from .kueue import KueueController

__all__ = ["populate", "start"]


def start(store, logs, opts):
    rt = Runtime(store, logs, opts)
    rt.add(Scheduler(rt))
    rt.add(Kubelet(rt))
    rt.add(TrainingOperator(rt, MPIv2(rt)))
    rt.add(JobController(rt))
    rt.add(TrainJobController(rt))
    rt.add(DeploymentController(rt))
    rt.add(ReplicaSetController(rt))
    if getattr(opts, "kueue", False):
        rt.add(KueueController(rt))
    rt.start()
    return rt
