"""The Kubeflow training-operator's (v1.9) ReconcileJobs for the
kubeflow.org/v1 kinds (TFJob, PyTorchJob, XGBoostJob, PaddleJob, JAXJob;
MPIJob v1 in mpi_v1.py).

For each replica type and index a pod NAME-<type>-<index> and a headless
Service of the same name, labelled training.kubeflow.org/{operator-name,
job-name,replica-type,replica-index} (job-role=master on the master role),
controlled by the job (controller and blockOwnerDeletion); replicaStatuses
counted from the pods; restart of failed pods per restartPolicy (OnFailure
and Always pods restart in place in the kubelet; ExitCode pods with a
retryable code >= 128 are deleted and recreated, with the Restarting
condition); runPolicy backoffLimit (container restarts of running pods),
activeDeadlineSeconds, cleanPodPolicy once finished, ttlSecondsAfterFinished,
suspend; and the events it records (SuccessfulCreatePod "Created pod:
mnist-worker-0", SuccessfulCreateService, ExitedWithCode, ...). What each
kind does differently is in kubeflow_rules.py.
"""

import time

from . import conditions as cond
from . import util
from ..store import ApiError
from .kubeflow_kinds import (API, INDEX_LABEL, JOB_LABEL, OPERATOR_LABEL, ROLE_LABEL, TYPE_LABEL,
                             exit_code_of, gen_name, replica_index, run_policy)
from .kubeflow_rules import KindRules


class Reconcile(KindRules):
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
        try:
            made = self.rt.create("pods", pod)
        except ApiError as e:
            # the training-operator's pod control: Warning FailedCreatePod, then retry
            self.event("Warning", "FailedCreatePod", "Error creating: %s" % e.message)
            return
        if made is not None:
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
