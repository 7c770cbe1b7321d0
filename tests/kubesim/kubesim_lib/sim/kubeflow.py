"""The Kubeflow training-operator (v1.9) for kubeflow.org/v1 TFJob, PyTorchJob,
XGBoostJob, PaddleJob, JAXJob and MPIJob.

It follows the operator's ReconcileJobs: for each replica type and index a pod
NAME-<type>-<index> and a headless Service of the same name, labelled with
training.kubeflow.org/{operator-name,job-name,replica-type,replica-index}
(job-role=master on the master role), controlled by the job (controller and
blockOwnerDeletion); the framework's env (TF_CONFIG, MASTER_ADDR/WORLD_SIZE/
RANK, ...); replicaStatuses counted from the pods; conditions with each
kind's own reasons and messages (they differ between kinds upstream: TFJob
says "TFJob default/mnist is running.", PyTorchJob "PyTorchJob mnist is
running."); restart of failed pods per restartPolicy (OnFailure/Always pods
are restarted in place by the kubelet, ExitCode pods with a retryable code
>= 128 are deleted and recreated, Restarting condition); runPolicy
backoffLimit (container restarts of running pods), activeDeadlineSeconds,
cleanPodPolicy once finished, ttlSecondsAfterFinished, suspend; and the
events it records (SuccessfulCreatePod "Created pod: mnist-worker-0",
SuccessfulCreateService, ExitedWithCode, TFJobSucceeded, ...).

MPIJob v1 keeps the operator's own layout: workers NAME-worker-N first, then
the launcher pod NAME-launcher with the kubectl-delivery init container; its
status follows the launcher. MPIJob objects of apiVersion kubeflow.org/v2beta1
belong to mpi.py.
"""

import json
import time

from . import conditions as cond
from . import util
from .runtime import Controller

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


class Reconcile:
    """One pass of ReconcileJobs over one job."""

    def __init__(self, op, k, job, specs):
        self.op = op
        self.rt = op.rt
        self.k = k
        self.job = job
        self.specs = specs
        self.m = util.meta(job)
        self.name = self.m["name"]
        self.ns = self.m.get("namespace", "")
        self.uid = self.m["uid"]
        self.rp = run_policy(job)
        self.status = util.clone(job.get("status") or {})
        self.now = util.rfc3339()

    # ---- helpers ----

    def event(self, type_, reason, message):
        self.rt.event(self.job, self.k.kind, API, type_, reason, message, self.k.operator)

    def reason(self, what):
        return self.k.kind + what

    def set_cond(self, ctype, cstatus, what, message, reason=None):
        cond.set_condition(self.status, ctype, cstatus, reason or self.reason(what), message,
                           self.now)

    def labels(self):
        return {OPERATOR_LABEL: self.k.operator, JOB_LABEL: self.name.replace("/", "-")}

    def pods(self):
        return self.rt.owned(self.uid, "pods")

    def services(self):
        return self.rt.owned(self.uid, "services")

    def pods_of(self, pods, rtype):
        rt = rtype.lower()
        return [p for p in pods if (util.meta(p).get("labels") or {}).get(TYPE_LABEL) == rt]

    def write(self):
        if self.status != (self.job.get("status") or {}):
            self.rt.set_status(self.k.resource, self.job, self.status)

    def delete_pod(self, pod):
        pm = util.meta(pod)
        if pm.get("deletionTimestamp"):
            return
        if self.rt.delete_pod(pm.get("namespace", ""), pm["name"], pm.get("uid")):
            self.event("Normal", "SuccessfulDeletePod", "Deleted pod: %s" % pm["name"])

    def delete_service(self, name):
        svc = self.rt.get("services", self.ns, name)
        if svc is None or util.meta(svc).get("deletionTimestamp"):
            return
        if self.rt.delete("services", self.ns, name) is not None:
            self.event("Normal", "SuccessfulDeleteService", "Deleted service: %s" % name)

    def delete_pods_and_services(self, pods):
        policy = self.rp.get("cleanPodPolicy") or "None"
        finished = cond.is_finished(self.status)
        if not pods or (finished and policy == "None"):
            return
        for p in pods:
            phase = (p.get("status") or {}).get("phase")
            # A pending pod would start later: Running treats it as running.
            if finished and policy == "Running" and phase not in ("Running", "Pending"):
                continue
            self.delete_pod(p)
            self.delete_service(util.meta(p)["name"])

    # ---- ReconcileJobs ----

    def run(self):
        if not self.status.get("conditions"):
            self.set_cond("Created", "True", "Created", self.created_message())
        pods = self.pods()
        if cond.is_finished(self.status):
            self.delete_pods_and_services(pods)
            if cond.is_true(self.status, "Succeeded"):
                for rs in (self.status.get("replicaStatuses") or {}).values():
                    if rs.get("active"):
                        rs["succeeded"] = rs.get("succeeded", 0) + rs.pop("active")
            self.write()
            self.cleanup_job()
            return
        if self.rp.get("suspend"):
            self.suspend(pods)
            return
        if cond.is_true(self.status, "Suspended"):
            msg = "%s %s is resumed." % (self.k.kind, self.name)
            self.set_cond("Suspended", "False", "Resumed", msg)
            self.status["startTime"] = self.now
            self.event("Normal", self.reason("Resumed"), msg)
        self.record_abnormal(pods)
        failure = self.limits_exceeded(pods)
        if failure:
            if not self.status.get("completionTime"):
                self.status["completionTime"] = self.now
            self.delete_pods_and_services(pods)
            self.event("Normal", self.reason("Failed"), failure)
            self.set_cond("Failed", "True", "Failed", failure)
            self.write()
            self.cleanup_job()
            return
        services = self.services() if self.k.services else []
        for rtype in self.k.types:
            if rtype in self.specs:
                self.reconcile_pods(pods, rtype)
                if self.k.services:
                    self.reconcile_services(services, rtype)
        self.update_job_status(pods)
        self.normalise_replica_statuses()
        self.write()

    def created_message(self):
        return "%s %s is created." % (self.k.kind, self.name)

    def suspend(self, pods):
        self.delete_pods_and_services(pods)
        for rs in (self.status.get("replicaStatuses") or {}).values():
            rs.pop("active", None)
        msg = "%s %s is suspended." % (self.k.kind, self.name)
        if cond.is_true(self.status, "Running"):
            self.set_cond("Running", "False", "Suspended", msg)
        if not cond.is_true(self.status, "Suspended"):
            self.set_cond("Suspended", "True", "Suspended", msg)
        self.event("Normal", self.reason("Suspended"), msg)
        self.write()

    def record_abnormal(self, pods):
        # core.RecordAbnormalPods: warn on the job about active pods stuck waiting.
        for p in pods:
            st = p.get("status") or {}
            if st.get("phase") in ("Succeeded", "Failed") or util.meta(p).get("deletionTimestamp"):
                continue
            name = util.meta(p)["name"]
            statuses = st.get("containerStatuses") or st.get("initContainerStatuses") or []
            if statuses:
                for s in statuses:
                    t = (s.get("state") or {}).get("terminated")
                    if t and t.get("exitCode"):
                        self.event("Warning", t.get("reason") or "Error",
                                   "Error pod %s container %s exitCode: %d terminated message: %s"
                                   % (name, s.get("name"), t.get("exitCode"), t.get("message", "")))
                    w = (s.get("state") or {}).get("waiting")
                    if w and w.get("message"):
                        self.event("Warning", w.get("reason") or "Waiting",
                                   "Error pod %s container %s waiting message: %s"
                                   % (name, s.get("name"), w.get("message")))
                continue
            conds = sorted(st.get("conditions") or [],
                           key=lambda c: c.get("lastTransitionTime") or "", reverse=True)
            if conds and conds[0].get("status") != "True":
                self.event("Warning", conds[0].get("reason") or "Unknown",
                           "Error pod %s condition message: %s" % (name, conds[0].get("message", "")))

    def limits_exceeded(self, pods):
        """The failure message when backoffLimit or activeDeadlineSeconds is passed."""
        limit = self.rp.get("backoffLimit")
        if limit is not None:
            limit = int(limit)
            active = sum(1 for p in pods if not util.is_terminal(p)
                         and not util.meta(p).get("deletionTimestamp"))
            failed = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Failed")
            total = sum(s["replicas"] for s in self.specs.values())
            prev_failed = sum(int(rs.get("failed", 0)) for rs in
                              (self.status.get("replicaStatuses") or {}).values())
            # previousRetry (the work queue's requeues after errors) is 0 here.
            exceeds = failed > prev_failed and active != total and 1 > limit
            if exceeds or self.past_backoff_limit(pods, limit):
                return "Job %s has failed because it has reached the specified backoff limit" % self.name
        deadline = self.rp.get("activeDeadlineSeconds")
        start = util.parse_rfc3339(self.status.get("startTime"))
        if deadline is not None and start is not None:
            left = float(deadline) - (time.time() - start) * self.rt.speed
            if left <= 0:
                return "Job %s has failed because it was active longer than specified deadline" % self.name
            self.op.enqueue((self.k.resource, self.ns, self.name), left)
        return None

    def past_backoff_limit(self, pods, limit):
        restarts = 0
        for rtype, spec in self.specs.items():
            if spec["restartPolicy"] not in ("OnFailure", "Always", "ExitCode"):
                continue
            for p in self.pods_of(pods, rtype):
                st = p.get("status") or {}
                if st.get("phase") != "Running":
                    continue
                for s in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
                    restarts += int(s.get("restartCount") or 0)
        return restarts > 0 if limit == 0 else restarts >= limit

    def cleanup_job(self):
        ttl = self.rp.get("ttlSecondsAfterFinished")
        if ttl is None or self.rp.get("suspend"):
            return
        done = util.parse_rfc3339(self.status.get("completionTime"))
        if done is None:
            return
        left = float(ttl) - (time.time() - done) * self.rt.speed
        if left > 0:
            self.op.enqueue((self.k.resource, self.ns, self.name), left)
            return
        if self.rt.delete(self.k.resource, self.ns, self.name) is not None:
            self.event("Normal", "SuccessfulDeleteJob", "Deleted job: %s" % self.name)

    # ---- ReconcilePods / ReconcileServices ----

    def is_master_role(self, rtype, index):
        kind = self.k.kind
        if kind == "TFJob":
            if "Chief" in self.specs or "Master" in self.specs:
                return rtype in ("Chief", "Master")
            return rtype == "Worker" and index == 0
        if kind == "PyTorchJob":
            if "Master" in self.specs:
                return rtype == "Master"
            return rtype == "Worker" and index == 0
        if kind == "JAXJob":
            return index == 0
        if kind == "MPIJob":
            return rtype == "Launcher"
        return rtype == "Master"

    def reconcile_pods(self, pods, rtype):
        spec = self.specs[rtype]
        n = spec["replicas"]
        mine = self.pods_of(pods, rtype)
        rs = self.status.setdefault("replicaStatuses", {})
        rs[rtype] = {}
        by_index = {}
        for p in mine:
            i = replica_index(p)
            if i is not None and i >= 0:
                by_index.setdefault(i, []).append(p)
        size = max([n] + [i + 1 for i in by_index])
        for index in range(size):
            slot = by_index.get(index, [])
            if not slot:
                if index < n:
                    self.create_pod(rtype, index, spec)
                continue
            pod = slot[0]
            if index >= n:
                self.delete_pod(pod)
            code = exit_code_of(pod, self.k.container)
            if code is not None:
                self.event("Normal", "ExitedWithCode", "Pod: %s.%s exited with code %s"
                           % (self.ns, util.meta(pod)["name"], code))
            if code is None:
                code = 0xBEEF
            phase = (pod.get("status") or {}).get("phase")
            policy = spec["restartPolicy"]
            if phase == "Failed":
                if (policy == "ExitCode" and code >= 128) or policy in ("OnFailure", "Always"):
                    self.delete_pod(pod)
                    msg = "job %s is restarting because %s replica(s) failed." % (self.name, rtype)
                    self.event("Warning", self.reason("Restarting"), msg)
                    self.set_cond("Restarting", "True", "Restarting", msg)
                elif policy == "ExitCode":
                    msg = 'job "%s" is failing because "%s" replica(s) failed.' % (self.name, rtype)
                    self.event("Warning", self.reason("Failed"), msg)
                    self.set_cond("Failed", "True", "Failed", msg)
            self.count(rs[rtype], pod)

    @staticmethod
    def count(rs, pod):
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Running":
            if util.meta(pod).get("deletionTimestamp"):
                rs["failed"] = rs.get("failed", 0) + 1   # orphaned on a lost node, upstream says
            else:
                rs["active"] = rs.get("active", 0) + 1
        elif phase == "Succeeded":
            rs["succeeded"] = rs.get("succeeded", 0) + 1
        elif phase == "Failed":
            rs["failed"] = rs.get("failed", 0) + 1

    def pod_labels(self, rtype, index, master):
        labels = self.labels()
        labels[TYPE_LABEL] = rtype.lower()
        labels[INDEX_LABEL] = str(index)
        if master:
            labels[ROLE_LABEL] = "master"
        return labels

    def create_pod(self, rtype, index, spec):
        tmpl = util.clone(spec["template"])
        tm = tmpl.get("metadata") or {}
        labels = dict(tm.get("labels") or {})
        labels.update(self.pod_labels(rtype, index, self.is_master_role(rtype, index)))
        pspec = tmpl.get("spec") or {}
        self.set_cluster_spec(pspec, rtype, index)
        if pspec.get("restartPolicy"):
            self.event("Warning", "SetPodTemplateRestartPolicy",
                       "Restart policy in pod template will be overwritten by restart policy in replica spec")
        pspec["restartPolicy"] = "Never" if spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
        name = gen_name(self.name, rtype, index)
        self.create_named_pod(name, labels, tm, pspec)

    def create_named_pod(self, name, labels, tmeta, pspec, event_message=None):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": self.ns, "labels": labels,
                            "ownerReferences": [util.owner_ref(self.job, API, self.k.kind)]},
               "spec": pspec}
        if tmeta.get("annotations"):
            pod["metadata"]["annotations"] = dict(tmeta["annotations"])
        if tmeta.get("finalizers"):
            pod["metadata"]["finalizers"] = list(tmeta["finalizers"])
        util.default_pod(pod)
        if self.rt.create("pods", pod) is not None:
            self.event("Normal", "SuccessfulCreatePod", event_message or "Created pod: %s" % name)

    def ports(self, rtype):
        spec = self.specs.get(rtype)
        for c in ((spec or {}).get("template", {}).get("spec") or {}).get("containers") or []:
            if c.get("name") == self.k.container:
                return {p.get("name"): p.get("containerPort") for p in c.get("ports") or []
                        if p.get("name")}
        return {}

    def port_of(self, rtype):
        return self.ports(rtype).get(self.k.port_name, self.k.port)

    def reconcile_services(self, services, rtype):
        n = self.specs[rtype]["replicas"]
        rt = rtype.lower()
        have = {}
        for s in services:
            labels = util.meta(s).get("labels") or {}
            if labels.get(TYPE_LABEL) != rt:
                continue
            try:
                have.setdefault(int(labels.get(INDEX_LABEL)), s)
            except (TypeError, ValueError):
                continue
        for index in range(max([n] + [i + 1 for i in have])):
            if index in have:
                if index >= n:
                    self.delete_service(util.meta(have[index])["name"])
                continue
            self.create_service(rtype, index)

    def create_service(self, rtype, index):
        labels = self.labels()
        labels[TYPE_LABEL] = rtype.lower()
        labels[INDEX_LABEL] = str(index)
        ports = self.ports(rtype) or {self.k.port_name: self.k.port}
        name = gen_name(self.name, rtype, index)
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": name, "namespace": self.ns, "labels": dict(labels),
                            "ownerReferences": [util.owner_ref(self.job, API, self.k.kind)]},
               "spec": {"clusterIP": "None", "clusterIPs": ["None"], "selector": labels,
                        "ports": [{"name": pn, "port": pp, "protocol": "TCP", "targetPort": pp}
                                  for pn, pp in sorted(ports.items())],
                        "type": "ClusterIP", "sessionAffinity": "None",
                        "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                        "internalTrafficPolicy": "Cluster"},
               "status": {"loadBalancer": {}}}
        if self.rt.create("services", svc) is not None:
            self.event("Normal", "SuccessfulCreateService", "Created service: %s" % name)

    # ---- the framework's environment ----

    def set_cluster_spec(self, pspec, rtype, index):
        env = []
        kind = self.k.kind
        total = sum(s["replicas"] for s in self.specs.values())
        if kind == "TFJob":
            if total > 1 or len(self.specs) > 1:
                cluster = {}
                for t, s in self.specs.items():
                    port = self.port_of(t)
                    cluster[t.lower()] = ["%s.%s.svc:%s" % (gen_name(self.name, t, i), self.ns, port)
                                          for i in range(s["replicas"])]
                tf = {"cluster": cluster, "task": {"type": rtype.lower(), "index": index},
                      "environment": "cloud"}
                for c in pspec.get("containers") or []:
                    if c.get("name") == self.k.container:
                        c.setdefault("env", []).append(
                            {"name": "TF_CONFIG", "value": json.dumps(tf, separators=(",", ":"))})
                        break
            return
        if kind == "PyTorchJob":
            env.append(("PYTHONUNBUFFERED", "1"))
            nproc = (self.job.get("spec") or {}).get("nprocPerNode")
            try:
                world = total * int(nproc or 1)
            except ValueError:
                world = total
            if "Master" in self.specs:
                port = self.port_of("Master")
                addr = gen_name(self.name, "Master", 0)
                rank = index + 1 if rtype == "Worker" else index
                env += [("MASTER_PORT", port), ("PET_MASTER_PORT", port), ("MASTER_ADDR", addr),
                        ("PET_MASTER_ADDR", addr), ("WORLD_SIZE", world), ("RANK", rank),
                        ("PET_NODE_RANK", rank)]
            if nproc is not None:
                env.append(("PET_NPROC_PER_NODE", nproc))
            env.append(("PET_NNODES", total))
        elif kind == "XGBoostJob":
            port = self.port_of("Master")
            rank = index + 1 if rtype == "Worker" else index
            env += [("MASTER_PORT", port), ("MASTER_ADDR", gen_name(self.name, "Master", 0)),
                    ("WORLD_SIZE", total), ("RANK", rank), ("PYTHONUNBUFFERED", "0")]
        elif kind == "JAXJob":
            env += [("PYTHONUNBUFFERED", "1"), ("COORDINATOR_PORT", self.port_of("Worker")),
                    ("COORDINATOR_ADDRESS", gen_name(self.name, "Worker", 0)),
                    ("NUM_PROCESSES", total), ("PROCESS_ID", index)]
        elif kind == "PaddleJob":
            master = "Master" if "Master" in self.specs else "Worker"
            env += [("PYTHONUNBUFFERED", "1"), ("PADDLE_JOB_ID", self.name),
                    ("PADDLE_NNODES", total),
                    ("PADDLE_MASTER", "%s:%s" % (gen_name(self.name, master, 0),
                                                 self.port_of(master)))]
        if not env:
            return
        for c in pspec.get("containers") or []:
            lst = c.setdefault("env", [])
            lst.extend({"name": k, "value": str(v)} for k, v in env)

    # ---- UpdateJobStatus, per kind ----

    def update_job_status(self, pods):
        if not self.status.get("startTime"):
            self.status["startTime"] = self.now
            if self.rp.get("activeDeadlineSeconds") is not None:
                self.op.enqueue((self.k.resource, self.ns, self.name),
                                float(self.rp["activeDeadlineSeconds"]))
        getattr(self, "status_" + self.k.kind.lower())(pods)

    def counts(self, rtype):
        rs = (self.status.get("replicaStatuses") or {}).get(rtype) or {}
        spec = self.specs[rtype]
        succeeded = rs.get("succeeded", 0)
        return (spec["replicas"] - succeeded, rs.get("active", 0), rs.get("failed", 0),
                succeeded, spec["replicas"])

    def succeed(self, msg):
        self.event("Normal", self.reason("Succeeded"), msg)
        if not self.status.get("completionTime"):
            self.status["completionTime"] = self.now
        self.set_cond("Succeeded", "True", "Succeeded", msg)

    def fail(self, msg):
        self.event("Normal", self.reason("Failed"), msg)
        if not self.status.get("completionTime"):
            self.status["completionTime"] = self.now
        self.set_cond("Failed", "True", "Failed", msg)

    def restarting(self, msg):
        self.event("Warning", self.reason("Restarting"), msg)
        self.set_cond("Restarting", "True", "Restarting", msg)

    def worker0_completed(self, pods):
        if "Worker" not in self.specs:
            return True
        for p in self.pods_of(pods, "Worker"):
            if replica_index(p) == 0 and (p.get("status") or {}).get("phase") == "Succeeded" \
                    and exit_code_of(p, self.k.container) == 0:
                return True
        return False

    def status_tfjob(self, pods):
        worker0 = self.worker0_completed(pods)
        restarting = cond.find(self.status, "Restarting")
        restarting = dict(restarting) if restarting else None
        chief = "Chief" in self.specs or "Master" in self.specs
        policy = (self.job.get("spec") or {}).get("successPolicy") or ""
        dynamic = bool((self.job.get("spec") or {}).get("enableDynamicWorker"))
        full = "%s/%s" % (self.ns, self.name)
        for rtype in self.k.types:
            if rtype not in self.specs:
                continue
            expected, running, failed, _, _ = self.counts(rtype)
            if chief:
                if rtype in ("Chief", "Master"):
                    if running > 0:
                        self.set_cond("Running", "True", "Running", "TFJob %s is running." % full)
                    if expected == 0:
                        self.succeed("TFJob %s successfully completed." % full)
            elif rtype == "Worker":
                if expected == 0 or (worker0 and policy != "AllWorkers"):
                    self.succeed("TFJob %s successfully completed." % full)
                elif running > 0:
                    self.set_cond("Running", "True", "Running", "TFJob %s is running." % full)
            if failed > 0:
                if restarting is not None:
                    self.set_cond("Restarting", "True", None, restarting.get("message"),
                                  reason=restarting.get("reason"))
                elif dynamic and rtype == "Worker":
                    continue
                else:
                    self.fail("TFJob %s has failed because %d %s replica(s) failed."
                              % (full, failed, rtype))

    def _status_master_worker(self, kind, with_master_return=True):
        """PyTorchJob and PaddleJob share this shape upstream."""
        full = "%s/%s" % (self.ns, self.name)
        elastic = (self.job.get("spec") or {}).get("elasticPolicy") is not None
        for rtype in self.k.types:
            if rtype not in self.specs:
                continue
            expected, running, failed, succeeded, replicas = self.counts(rtype)
            if "Master" in self.specs:
                if rtype == "Master":
                    if running > 0:
                        self.set_cond("Running", "True", "Running", "%s %s is running." % (kind, self.name))
                    if expected == 0:
                        self.succeed("%s %s is successfully completed." % (kind, self.name))
                        if with_master_return:
                            return
            elif rtype == "Worker":
                if expected == 0 or (elastic and succeeded > 0):
                    self.succeed("%s %s successfully completed." % (kind, full))
                elif running > 0:
                    self.set_cond("Running", "True", "Running", "%s %s is running." % (kind, full))
            if failed > 0 and replicas > succeeded + running:
                if self.specs[rtype]["restartPolicy"] != "Never":
                    self.restarting("%s %s is restarting because %d %s replica(s) failed."
                                    % (kind, self.name, failed, rtype))
                else:
                    self.fail("%s %s is failed because %d %s replica(s) failed."
                              % (kind, self.name, failed, rtype))

    def status_pytorchjob(self, pods):
        self._status_master_worker("PyTorchJob")
        self.selectors()

    def status_paddlejob(self, pods):
        self._status_master_worker("PaddleJob")

    def status_jaxjob(self, pods):
        full = "%s/%s" % (self.ns, self.name)
        expected, running, failed, succeeded, replicas = self.counts("Worker")
        if expected == 0:
            self.succeed("JAXJob %s successfully completed." % full)
        elif running > 0:
            self.set_cond("Running", "True", "Running", "JAXJob %s is running." % full)
        if failed > 0 and replicas > succeeded + running:
            if self.specs["Worker"]["restartPolicy"] != "Never":
                self.restarting("JAXJob %s is restarting because %d Worker replica(s) failed."
                                % (self.name, failed))
            else:
                self.fail("JAXJob %s is failed because %d Worker replica(s) failed." % (self.name, failed))
        self.selectors()

    def status_xgboostjob(self, pods):
        running_msg = "XGBoostJob %s is running." % self.name
        for rtype in self.k.types:
            if rtype not in self.specs:
                continue
            expected, running, failed, _, _ = self.counts(rtype)
            if rtype == "Master":
                if running > 0:
                    self.set_cond("Running", "True", "Running", running_msg)
                if expected == 0:
                    self.set_cond("Running", "True", "Running", running_msg)
                    self.succeed("XGBoostJob %s is successfully completed." % self.name)
                    return
            if failed > 0:
                self.set_cond("Running", "True", "Running", running_msg)
                if self.specs[rtype]["restartPolicy"] == "ExitCode":
                    self.restarting("XGBoostJob %s is restarting because %d %s replica(s) failed."
                                    % (self.name, failed, rtype))
                else:
                    self.fail("XGBoostJob %s is failed because %d %s replica(s) failed."
                              % (self.name, failed, rtype))

    def status_mpijob(self, pods):
        launcher = next((p for p in self.pods_of(pods, "Launcher")), None)
        workers = self.pods_of(pods, "Worker")
        full = "%s/%s" % (self.ns, self.name)
        rs = self.status.setdefault("replicaStatuses", {})
        lphase = (launcher.get("status") or {}).get("phase") if launcher else None
        running = sum(1 for w in workers if (w.get("status") or {}).get("phase") == "Running")
        if lphase == "Succeeded":
            rs["Launcher"] = {"succeeded": 1}
            self.succeed("MPIJob %s successfully completed." % full)
        elif lphase == "Failed":
            rs["Launcher"] = {"failed": 1}
            self.fail("MPIJob %s has failed" % full)
        elif lphase == "Running" and running == len(workers):
            self.set_cond("Running", "True", "Running", "MPIJob %s is running." % full)

    def selectors(self):
        for rtype, rs in (self.status.get("replicaStatuses") or {}).items():
            labels = self.labels()
            labels[TYPE_LABEL] = rtype.lower()
            rs["selector"] = ",".join("%s=%s" % kv for kv in sorted(labels.items()))

    def normalise_replica_statuses(self):
        for rs in (self.status.get("replicaStatuses") or {}).values():
            for f in ("active", "succeeded", "failed"):
                if rs.get(f) == 0:
                    del rs[f]


class MPIv1Reconcile(Reconcile):
    """training-operator's MPIJob: workers first, then the launcher pod."""

    def reconcile_pods(self, pods, rtype):
        if rtype == "Launcher":
            return  # made after the workers, below
        launcher = next((p for p in self.pods_of(pods, "Launcher")), None)
        done = launcher is not None and util.is_terminal(launcher)
        if done:
            return
        n = self.specs.get("Worker", {}).get("replicas", 0)
        have = {replica_index(p): p for p in self.pods_of(pods, "Worker")}
        for i, p in have.items():
            if i is not None and i >= n:
                self.delete_pod(p)
        for i in range(n):
            if i not in have:
                self.create_worker(i)
        if launcher is None:
            self.create_launcher()

    def create_worker(self, i):
        spec = self.specs["Worker"]
        tmpl = util.clone(spec["template"])
        tm = tmpl.get("metadata") or {}
        labels = dict(tm.get("labels") or {})
        labels.update(self.labels())
        labels[TYPE_LABEL] = "worker"
        labels[INDEX_LABEL] = str(i)
        pspec = tmpl.get("spec") or {}
        pspec["restartPolicy"] = "Never" if spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
        c = pspec["containers"][0]
        if not c.get("command"):
            c["command"], c["args"] = ["sleep"], ["365d"]
        name = "%s-worker-%d" % (self.name, i)
        self.create_named_pod(name, labels, tm, pspec, "Created worker pod: %s" % name)

    def create_launcher(self):
        spec = self.specs["Launcher"]
        tmpl = util.clone(spec["template"])
        tm = tmpl.get("metadata") or {}
        labels = dict(tm.get("labels") or {})
        labels.update(self.labels())
        labels[TYPE_LABEL] = "launcher"
        labels[ROLE_LABEL] = "master"
        pspec = tmpl.get("spec") or {}
        name = self.name + "-launcher"
        pspec.setdefault("serviceAccountName", name)
        pspec.setdefault("initContainers", []).append({
            "name": "kubectl-delivery", "image": KUBECTL_DELIVERY, "imagePullPolicy": "IfNotPresent",
            "env": [{"name": "TARGET_DIR", "value": "/opt/kube"},
                    {"name": "NAMESPACE", "value": self.ns}],
            "resources": {"limits": {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"},
                          "requests": {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"}}})
        c = pspec["containers"][0]
        c.setdefault("env", []).extend([
            {"name": "OMPI_MCA_plm_rsh_agent", "value": "/etc/mpi/kubexec.sh"},
            {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"}])
        pspec["restartPolicy"] = "Never" if spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": self.ns, "labels": labels,
                            "ownerReferences": [util.owner_ref(self.job, API, "MPIJob")]},
               "spec": pspec}
        if tm.get("annotations"):
            pod["metadata"]["annotations"] = dict(tm["annotations"])
        util.default_pod(pod)
        if self.rt.create("pods", pod) is not None:
            self.event("Normal", "MPIJobRunning", "launcher pod created success: %s" % name)

    def update_job_status(self, pods):
        if not self.status.get("startTime"):
            self.status["startTime"] = self.now
        rs = self.status.setdefault("replicaStatuses", {})
        rs["Launcher"] = {}
        rs["Worker"] = {}
        for p in self.pods_of(pods, "Launcher") + self.pods_of(pods, "Worker"):
            t = "Launcher" if (util.meta(p).get("labels") or {}).get(TYPE_LABEL) == "launcher" else "Worker"
            self.count(rs[t], p)
        self.status_mpijob(pods)


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
