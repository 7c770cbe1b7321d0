"""Kubeflow Trainer (trainer.kubeflow.org/v1alpha1 TrainJob).

Upstream, a TrainJob plus its (Cluster)TrainingRuntime becomes a JobSet whose
replicated job "node" is an Indexed batch Job of numNodes pods. This controller
plays Trainer and the JobSet controller both: it creates the JobSet NAME
(jobset.x-k8s.io/v1alpha2, owned by the TrainJob) and the Job NAME-node-0
(owned by the JobSet, so deleting the TrainJob collects everything), whose
pods are NAME-node-0-<index>-xxxxx with the JobSet labels
(jobset.sigs.k8s.io/jobset-name=NAME, replicatedjob-name=node, job-index=0)
and the trainer's container "node" built from spec.trainer (image, command,
args, env, resourcesPerNode) plus the torch env (PET_NNODES, PET_NODE_RANK,
PET_MASTER_ADDR, ...). The runtime named by spec.runtimeRef is not read.
Status: jobsStatus for "node" (JobSet's counts of Jobs: ready is 1 once
the Job's ready and succeeded pods reach its parallelism, not a count of
pods), the JobSet's replicatedJobsStatus, terminalState and condition
Completed (AllJobsCompleted, "jobset completed successfully", and an event of
the JobSet saying so, as the JobSet controller records it) or Failed
(FailedJobs, "jobset failed due to one or more job failures", a Warning), and
the TrainJob's conditions as Trainer copies them from the JobSet: Complete or
Failed with the same reason and message; Suspended when spec.suspend. The
JobSet's spec holds the one replicated job and suspend; the runtime named by
spec.runtimeRef is not read. With SIM_REPORT_SECONDS in the
trainer's env, the training script's reports too (trainer_report.py).
"""

import copy

from . import batch
from . import trainer_report
from . import util
from .runtime import Controller

API = "trainer.kubeflow.org/v1alpha1"
RESOURCE = "trainjobs.trainer.kubeflow.org"
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
JOBSETS = "jobsets.jobset.x-k8s.io"
JOBSET_COMPONENT = "jobset"
NODE = "node"
DEFAULT_IMAGE = "pytorch/pytorch:2.5.0-cuda12.4-cudnn9-runtime"
MASTER_PORT = 29400


def set_condition(status, ctype, cstatus, reason, message, now, generation):
    """meta.SetStatusCondition: in place; the transition time moves only
    when the status changes."""
    conds = status.setdefault("conditions", [])
    for c in conds:
        if c.get("type") == ctype:
            if c.get("status") != cstatus:
                c["status"] = cstatus
                c["lastTransitionTime"] = now
            c["reason"], c["message"], c["observedGeneration"] = reason, message, generation
            return
    conds.append({"type": ctype, "status": cstatus, "observedGeneration": generation,
                  "lastTransitionTime": now, "reason": reason, "message": message})


class TrainJobController(Controller):
    name = "trainer-controller-manager"
    resources = (RESOURCE, JOBSETS, "jobs.batch")

    def __init__(self, rt):
        super().__init__(rt)
        self.reporting = set()   # the jobs with a timer for their next report

    def observe(self, ev):
        if ev.resource == RESOURCE:
            if ev.type != "DELETED":
                self.enqueue(util.key_of(ev.obj))
            return
        ref = util.controller_ref(ev.obj)
        ns = util.meta(ev.obj).get("namespace", "")
        if ref and ref.get("apiVersion") == API and ref.get("kind") == "TrainJob":
            self.enqueue((ns, ref.get("name")))
        elif ref and ref.get("apiVersion") == JOBSET_API and ref.get("kind") == "JobSet":
            # Trainer names the JobSet after its TrainJob
            self.enqueue((ns, ref.get("name")))

    def reconcile(self, key):
        tj = self.rt.get(RESOURCE, *key)
        if tj is None or util.meta(tj).get("deletionTimestamp"):
            return
        ns, name = key
        m = util.meta(tj)
        spec = tj.get("spec") or {}
        status = copy.deepcopy(tj.get("status") or {})
        now = util.rfc3339()
        gen = m.get("generation", 1)
        terminal = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                       for c in status.get("conditions") or [])
        suspended = bool(spec.get("suspend"))
        if suspended:
            set_condition(status, "Suspended", "True", "Suspended", "TrainJob is suspended", now, gen)
        elif any(c.get("type") == "Suspended" and c.get("status") == "True"
                 for c in status.get("conditions") or []):
            set_condition(status, "Suspended", "False", "Resumed", "TrainJob is resumed", now, gen)
        js = self._jobset(tj, terminal, suspended)
        jname = "%s-%s-0" % (name, NODE)
        job = self.rt.get("jobs.batch", ns, jname)
        if job is not None and (js is None or (util.controller_ref(job) or {}).get("uid")
                                != util.meta(js).get("uid")):
            job = None
        if job is None and js is not None and not terminal:
            job = self.rt.create("jobs.batch", self._job(tj, js, jname, suspended))
        elif job is not None and bool((job.get("spec") or {}).get("suspend")) != suspended \
                and not batch.is_finished(job):
            # JobSet passes suspend on to its Jobs (Kueue admitting or evicting the TrainJob)
            def flip(cur):
                cur.setdefault("spec", {})["suspend"] = suspended
            job = self.rt.store.mutate("jobs.batch", ns, jname, flip) or job
        if job is not None:
            jst = job.get("status") or {}
            done = batch.is_finished(job)
            # JobSet counts Jobs, not pods: a Job is ready once its ready and
            # succeeded pods reach min(parallelism, completions)
            want = min(job["spec"].get("parallelism", 1), job["spec"].get("completions", 1))
            ready = 1 if not done and (jst.get("ready", 0) or 0) + \
                (jst.get("succeeded", 0) or 0) >= want else 0
            entry = {"name": NODE, "ready": ready,
                     "succeeded": 1 if done == "Complete" else 0,
                     "failed": 1 if done == "Failed" else 0,
                     "active": 0 if done else (1 if jst.get("active") else 0),
                     "suspended": 1 if suspended and not done else 0}
            status["jobsStatus"] = [entry]
            if js is not None:
                self._jobset_status(js, entry, done, now)
            if done == "Complete":
                set_condition(status, "Complete", "True", "AllJobsCompleted",
                              "jobset completed successfully", now, gen)
            elif done == "Failed":
                set_condition(status, "Failed", "True", "FailedJobs",
                              "jobset failed due to one or more job failures", now, gen)
        every = trainer_report.interval(spec)
        if every and job is not None and not batch.is_finished(job) and \
                (status.get("jobsStatus") or [{}])[0].get("ready") == 1:
            self._report(key, tj, status, every)
        if status != (tj.get("status") or {}):
            self.rt.set_status(RESOURCE, tj, status)

    def _jobset(self, tj, terminal, suspended):
        """The TrainJob's JobSet (made unless the TrainJob has ended), with its
        spec.suspend following the TrainJob's; None when there is none."""
        m = util.meta(tj)
        ns, name = m.get("namespace", ""), m["name"]
        js = self.rt.get(JOBSETS, ns, name)
        if js is not None and (util.controller_ref(js) or {}).get("uid") != m.get("uid"):
            return None
        if js is None:
            if terminal:
                return None
            meta = {"name": name, "namespace": ns,
                    "labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"},
                    "ownerReferences": [util.owner_ref(tj, API, "TrainJob")]}
            return self.rt.create(JOBSETS, {
                "apiVersion": JOBSET_API, "kind": "JobSet", "metadata": meta,
                "spec": {"replicatedJobs": [{"name": NODE, "replicas": 1}],
                         "suspend": suspended}})
        if bool((js.get("spec") or {}).get("suspend")) != suspended:
            def flip(cur):
                cur.setdefault("spec", {})["suspend"] = suspended
            js = self.rt.store.mutate(JOBSETS, ns, name, flip) or js
        return js

    def _jobset_status(self, js, entry, done, now):
        """The JobSet controller's status of its one Job, and its event when the
        JobSet ends (recorded once: the condition is set once)."""
        status = copy.deepcopy(js.get("status") or {})
        status["replicatedJobsStatus"] = [dict(entry)]
        ended = None
        if done and not status.get("terminalState"):
            ended = ("Completed", "Normal", "AllJobsCompleted", "jobset completed successfully") \
                if done == "Complete" else \
                ("Failed", "Warning", "FailedJobs", "jobset failed due to one or more job failures")
            status["terminalState"] = ended[0]
            status.setdefault("conditions", []).append({
                "type": ended[0], "status": "True", "lastTransitionTime": now,
                "reason": ended[2], "message": ended[3]})
        if status != (js.get("status") or {}) and self.rt.set_status(JOBSETS, js, status) \
                and ended:
            self.rt.event(js, "JobSet", JOBSET_API, ended[1], ended[2], ended[3],
                          JOBSET_COMPONENT)

    def _report(self, key, tj, status, every):
        """The script's report when one is due, and one timer per job for the next."""
        speed = self.rt.speed
        if not trainer_report.wait(status, every, speed):
            status["trainerStatus"] = trainer_report.report(tj, speed)
        if key not in self.reporting:
            self.reporting.add(key)
            self.rt.after(trainer_report.wait(status, every, speed) or every,
                          self._report_due, key)

    def _report_due(self, key):
        self.reporting.discard(key)
        self.enqueue(key)

    def _job(self, tj, js, jname, suspended):
        m = util.meta(tj)
        ns, name = m.get("namespace", ""), m["name"]
        tr = (tj.get("spec") or {}).get("trainer") or {}
        n = int(tr.get("numNodes") or 1)
        nproc = tr.get("numProcPerNode", "auto")
        container = {"name": NODE, "image": tr.get("image") or DEFAULT_IMAGE}
        if tr.get("command"):
            container["command"] = list(tr["command"])
        if tr.get("args"):
            container["args"] = list(tr["args"])
        env = [dict(e) for e in tr.get("env") or []]
        env += [{"name": "PET_NNODES", "value": str(n)},
                {"name": "PET_NPROC_PER_NODE", "value": str(nproc)},
                {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {
                    "apiVersion": "v1",
                    "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
                {"name": "PET_MASTER_ADDR", "value": "%s-%s-0-0.%s" % (name, NODE, name)},
                {"name": "PET_MASTER_PORT", "value": str(MASTER_PORT)}]
        container["env"] = env
        container["ports"] = [{"containerPort": MASTER_PORT, "protocol": "TCP"}]
        if tr.get("resourcesPerNode"):
            container["resources"] = copy.deepcopy(tr["resourcesPerNode"])
        # what JobSet v0.11.1 labels its Jobs and pods with (the conformance
        # test compares them with the real controller's)
        labels = {"jobset.sigs.k8s.io/jobset-name": name,
                  "jobset.sigs.k8s.io/jobset-uid": util.meta(js)["uid"],
                  "jobset.sigs.k8s.io/replicatedjob-name": NODE,
                  "jobset.sigs.k8s.io/replicatedjob-replicas": "1",
                  "jobset.sigs.k8s.io/job-index": "0",
                  "jobset.sigs.k8s.io/job-global-index": "0",
                  "jobset.sigs.k8s.io/global-replicas": "1",
                  "jobset.sigs.k8s.io/group-name": "default",
                  "jobset.sigs.k8s.io/group-replicas": "1",
                  "jobset.sigs.k8s.io/job-group-index": "0",
                  "jobset.sigs.k8s.io/priority": "0",
                  "jobset.sigs.k8s.io/restart-attempt": "0",
                  "jobset.sigs.k8s.io/job-key": util.digest("jobset", ns, jname)[:40],
                  "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
        tmpl = {"metadata": {"labels": dict(labels),
                             "annotations": {"jobset.sigs.k8s.io/jobset-name": name,
                                             "jobset.sigs.k8s.io/replicatedjob-name": NODE}},
                "spec": {"containers": [container], "restartPolicy": "OnFailure",
                         "subdomain": name}}
        labels.update((tj.get("spec") or {}).get("labels") or {})
        return batch.new_job(jname, ns, tmpl, owner=js, owner_api=JOBSET_API, owner_kind="JobSet",
                             labels=labels, completionMode="Indexed", completions=n,
                             parallelism=n, backoffLimit=0, suspend=suspended)
