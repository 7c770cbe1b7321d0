"""The kubeflow.org/v1 kinds as training-operator v1.9 defines them: names,
framework containers and ports, default restart policies, replica types,
the labels the operator puts on what it makes, and the readers of a job's
replica specs and runPolicy (with the operator's defaults applied).
"""

from . import util

API = "kubeflow.org/v1"


class Kind:
    def __init__(self, resource, kind, specs, container, port_name, port, restart, types,
                 services=True):
        self.resource = resource
        self.kind = kind
        self.specs = specs
        self.container = container
        self.port_name = port_name
        self.port = port
        self.restart = restart
        self.types = types            # reconcile / status order
        self.operator = kind.lower() + "-controller"
        self.services = services


KINDS = {k.resource: k for k in (
    Kind("tfjobs.kubeflow.org", "TFJob", "tfReplicaSpecs", "tensorflow", "tfjob-port", 2222,
         "Never", ["Chief", "Evaluator", "Master", "PS", "Worker"]),
    Kind("pytorchjobs.kubeflow.org", "PyTorchJob", "pytorchReplicaSpecs", "pytorch",
         "pytorchjob-port", 23456, "OnFailure", ["Master", "Worker"]),
    Kind("xgboostjobs.kubeflow.org", "XGBoostJob", "xgbReplicaSpecs", "xgboost",
         "xgboostjob-port", 9999, "Never", ["Master", "Worker"]),
    Kind("paddlejobs.kubeflow.org", "PaddleJob", "paddleReplicaSpecs", "paddle", "master",
         36543, "OnFailure", ["Master", "Worker"]),
    Kind("jaxjobs.kubeflow.org", "JAXJob", "jaxReplicaSpecs", "jax", "jaxjob-port", 6666,
         "Never", ["Worker"]),
    Kind("mpijobs.kubeflow.org", "MPIJob", "mpiReplicaSpecs", "mpi", "mpi-port", 9999,
         "Never", ["Launcher", "Worker"], services=False),
)}

OPERATOR_LABEL = "training.kubeflow.org/operator-name"
JOB_LABEL = "training.kubeflow.org/job-name"
TYPE_LABEL = "training.kubeflow.org/replica-type"
INDEX_LABEL = "training.kubeflow.org/replica-index"
ROLE_LABEL = "training.kubeflow.org/job-role"
KUBECTL_DELIVERY = "mpioperator/kubectl-delivery:latest"


def replica_specs(job, k):
    """{ReplicaType: spec with the operator's defaults} or None when unusable.
    Type names are matched case-insensitively, as the defaulter does."""
    raw = (job.get("spec") or {}).get(k.specs)
    if not isinstance(raw, dict) or not raw:
        return None
    out = {}
    for name, spec in raw.items():
        if not isinstance(spec, dict):
            return None
        canon = next((t for t in k.types if t.lower() == str(name).lower()), None)
        if canon is None:
            continue
        s = dict(spec)
        default_replicas = 0 if (k.kind == "MPIJob" and canon == "Worker") else 1
        s["replicas"] = int(s.get("replicas", default_replicas) if s.get("replicas") is not None
                            else default_replicas)
        s["restartPolicy"] = s.get("restartPolicy") or k.restart
        tmpl = s.get("template") or {}
        if not ((tmpl.get("spec") or {}).get("containers")):
            return None
        s["template"] = tmpl
        out[canon] = s
    return out or None


def run_policy(job):
    spec = job.get("spec") or {}
    rp = dict(spec.get("runPolicy") or {})
    # Before runPolicy existed (#966) these lived in spec itself.
    for f in ("cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
              "backoffLimit"):
        if f not in rp and f in spec:
            rp[f] = spec[f]
    rp.setdefault("cleanPodPolicy", "None")
    return rp


def gen_name(job_name, rtype, index):
    return ("%s-%s-%s" % (job_name, rtype.lower(), index)).replace("/", "-")


def replica_index(pod):
    try:
        return int((util.meta(pod).get("labels") or {}).get(INDEX_LABEL))
    except (TypeError, ValueError):
        return None


def exit_code_of(pod, container):
    for s in (pod.get("status") or {}).get("containerStatuses") or []:
        t = (s.get("state") or {}).get("terminated")
        if s.get("name") == container and t is not None:
            return t.get("exitCode")
    return None
