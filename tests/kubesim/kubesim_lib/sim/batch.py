"""A batch/v1 Job controller (kube-controller-manager's job-controller), enough
for the MPIJob v2beta1 launcher and the TrainJob's node jobs.

It creates up to parallelism pods (NonIndexed: NAME-xxxxx; Indexed:
NAME-<index>-xxxxx with the completion index label and annotation), labelled
batch.kubernetes.io/controller-uid, batch.kubernetes.io/job-name,
controller-uid and job-name; counts active/ready/succeeded/failed/
terminating; replaces failed pods after the controller's backoff (10 s
doubling, 6 min at most) until backoffLimit (default 6; for OnFailure pods
the containers' restarts count); and finishes with the 1.32 conditions:
SuccessCriteriaMet + Complete (CompletionsReached, "Reached expected number
of succeeded pods") or FailureTarget + Failed (BackoffLimitExceeded, "Job has
reached the specified backoff limit"; DeadlineExceeded for
activeDeadlineSeconds). ttlSecondsAfterFinished deletes the Job (the GC
takes its pods). podFailurePolicy and successPolicy are not simulated.
"""

import copy
import time
import uuid

from . import util
from .runtime import Controller

COMPONENT = "job-controller"
API = "batch/v1"
POD_BACKOFF = 10.0
POD_BACKOFF_MAX = 360.0


def job_spec_defaults(spec):
    """The apiserver's Job defaults: completions and parallelism 1 when both
    are unset, parallelism 1, backoffLimit 6, completionMode NonIndexed."""
    spec = dict(spec)
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 6
    if not spec.get("completionMode"):
        spec["completionMode"] = "NonIndexed"
    return spec


def new_job(name, namespace, template, owner=None, owner_api=None, owner_kind=None, labels=None,
            **fields):
    """A Job as the apiserver stores it after defaulting: a generated
    selector on its own uid, and the matching labels on the pod template."""
    uid = str(uuid.uuid4())
    tmpl = copy.deepcopy(template)
    tl = tmpl.setdefault("metadata", {}).setdefault("labels", {})
    tl.update({"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
               "controller-uid": uid, "job-name": name})
    spec = {"template": tmpl, "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "manualSelector": False, "suspend": False, "podReplacementPolicy": "TerminatingOrFailed"}
    spec.update({k: v for k, v in fields.items() if v is not None})
    spec = job_spec_defaults(spec)
    if spec.get("completionMode") == "Indexed" and spec.get("completions") is None:
        spec["completions"] = spec["parallelism"]
    meta = {"name": name, "namespace": namespace, "uid": uid,
            "labels": dict(labels or {})}
    if owner is not None:
        meta["ownerReferences"] = [util.owner_ref(owner, owner_api, owner_kind)]
    return {"apiVersion": API, "kind": "Job", "metadata": meta, "spec": spec, "status": {}}


def is_finished(job):
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return c.get("type")
    return None


def _ready(pod):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def completion_index(pod):
    m = util.meta(pod)
    v = (m.get("annotations") or {}).get("batch.kubernetes.io/job-completion-index")
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def format_indexes(idx):
    """Job.status.completedIndexes: "0-3,5"."""
    out, run = [], []
    for i in sorted(idx):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [i]
    if run:
        out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
    return ",".join(out)


class JobController(Controller):
    name = COMPONENT
    resources = ("jobs.batch", "pods")

    def __init__(self, rt):
        super().__init__(rt)
        self.created = {}   # job uid -> pods created (for distinct names)

    def observe(self, ev):
        if ev.resource == "jobs.batch":
            if ev.type != "DELETED":
                self.enqueue(util.key_of(ev.obj))
            else:
                self.created.pop(util.meta(ev.obj).get("uid"), None)
            return
        ref = util.controller_ref(ev.obj)
        if ref and ref.get("kind") == "Job" and ref.get("apiVersion") == API:
            self.enqueue((util.meta(ev.obj).get("namespace", ""), ref.get("name")))

    def event(self, job, type_, reason, message):
        self.rt.event(job, "Job", API, type_, reason, message, COMPONENT)

    def reconcile(self, key):
        job = self.rt.get("jobs.batch", *key)
        if job is None or util.meta(job).get("deletionTimestamp"):
            return
        ns, name = key
        spec = job_spec_defaults(job.get("spec") or {})
        status = copy.deepcopy(job.get("status") or {})
        now = util.rfc3339()
        pods = self.rt.owned(util.meta(job)["uid"], "pods")
        if is_finished(job):
            self._ttl(job, status)
            return
        if spec.get("suspend"):
            # the Job controller deletes the pods of a suspended Job
            for p in pods:
                if not util.is_terminal(p) and not util.meta(p).get("deletionTimestamp"):
                    self.rt.delete_pod(*util.key_of(p))
            return
        status.setdefault("startTime", now)
        active = [p for p in pods if not util.is_terminal(p) and not util.meta(p).get("deletionTimestamp")]
        terminating = [p for p in pods if util.meta(p).get("deletionTimestamp") and not util.is_terminal(p)]
        succeeded = [p for p in pods if (p.get("status") or {}).get("phase") == "Succeeded"]
        failed = [p for p in pods if (p.get("status") or {}).get("phase") == "Failed"]
        limit = int(spec["backoffLimit"])
        policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
        restarts = 0
        if policy == "OnFailure":
            for p in active:
                for s in ((p.get("status") or {}).get("initContainerStatuses") or []) + \
                        ((p.get("status") or {}).get("containerStatuses") or []):
                    restarts += int(s.get("restartCount") or 0)
        indexed = spec.get("completionMode") == "Indexed"
        completions = spec.get("completions")
        done_idx = {completion_index(p) for p in succeeded} - {None}
        finish = None
        if len(failed) > limit or (policy == "OnFailure" and (
                restarts > 0 if limit == 0 else restarts >= limit)):
            finish = ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
        elif spec.get("activeDeadlineSeconds") is not None and \
                (time.time() - (util.parse_rfc3339(status["startTime"]) or time.time())) * \
                self.rt.speed >= float(spec["activeDeadlineSeconds"]):
            finish = ("Failed", "DeadlineExceeded", "Job was active longer than specified deadline")
        elif (completions is not None and (
                (indexed and len(done_idx) >= completions) or
                (not indexed and len(succeeded) >= completions))) or (
                completions is None and succeeded and not active):
            finish = ("Complete", "CompletionsReached", "Reached expected number of succeeded pods")
        if finish is None:
            # podReplacementPolicy Failed: a terminating pod is not replaced yet.
            busy = active + terminating if spec.get("podReplacementPolicy") == "Failed" else active
            self._scale(job, spec, busy, succeeded, failed, done_idx)
            if spec.get("activeDeadlineSeconds") is not None:
                start = util.parse_rfc3339(status["startTime"]) or time.time()
                left = float(spec["activeDeadlineSeconds"]) - (time.time() - start) * self.rt.speed
                self.enqueue(key, max(left, 0.0))
        else:
            for p in active:
                pm = util.meta(p)
                if self.rt.delete_pod(ns, pm["name"], pm.get("uid")):
                    self.event(job, "Normal", "SuccessfulDelete", "Deleted pod: %s" % pm["name"])
            ctype, reason, message = finish
            conds = status.setdefault("conditions", [])
            interim = "SuccessCriteriaMet" if ctype == "Complete" else "FailureTarget"
            for t in (interim, ctype):
                if not any(c.get("type") == t for c in conds):
                    conds.append({"type": t, "status": "True", "lastProbeTime": now,
                                  "lastTransitionTime": now, "reason": reason, "message": message})
            if ctype == "Complete":
                status["completionTime"] = now
                self.event(job, "Normal", "Completed", "Job completed")
            else:
                self.event(job, "Warning", reason, message)
            active = []
        status["active"] = len(active)
        status["ready"] = sum(1 for p in active if _ready(p))
        status["terminating"] = len(terminating)
        if succeeded:
            status["succeeded"] = len(succeeded)
        if failed:
            status["failed"] = len(failed)
        if indexed and done_idx:
            status["completedIndexes"] = format_indexes(done_idx)
        status.setdefault("uncountedTerminatedPods", {})
        if status.get("active") == 0 and finish is not None:
            status.pop("active")
        self.rt.set_status("jobs.batch", job, status)
        if finish is not None:
            self._ttl(self.rt.get("jobs.batch", *key) or job, status)

    def _ttl(self, job, status):
        ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
        if ttl is None:
            return
        done = util.parse_rfc3339(status.get("completionTime")) or util.parse_rfc3339(
            next((c.get("lastTransitionTime") for c in status.get("conditions") or []
                  if c.get("type") == "Failed"), None))
        if done is None:
            return
        left = float(ttl) - (time.time() - done) * self.rt.speed
        if left > 0:
            self.enqueue(util.key_of(job), left)
        else:
            self.rt.delete("jobs.batch", *util.key_of(job))

    def _scale(self, job, spec, active, succeeded, failed, done_idx):
        ns, name = util.key_of(job)
        parallelism = int(spec.get("parallelism") or 0)
        completions = spec.get("completions")
        if failed:
            # The controller's pod-failure backoff before creating a replacement.
            last = max(util.parse_rfc3339(((p.get("status") or {}).get("containerStatuses") or [{}])[0]
                                          .get("state", {}).get("terminated", {}).get("finishedAt"))
                       or 0.0 for p in failed)
            wait = min(POD_BACKOFF * 2 ** (len(failed) - 1), POD_BACKOFF_MAX)
            left = wait - (time.time() - last) * self.rt.speed
            if left > 0:
                self.enqueue((ns, name), left)
                return
        if spec.get("completionMode") == "Indexed":
            busy = {completion_index(p) for p in active}
            want = [i for i in range(int(completions or 0)) if i not in done_idx and i not in busy]
            room = parallelism - len(active)
            for i in want[:max(room, 0)]:
                self._create(job, spec, i)
            return
        remaining = parallelism
        if completions is not None:
            remaining = min(parallelism, int(completions) - len(succeeded))
        for _ in range(max(remaining - len(active), 0)):
            self._create(job, spec, None)

    def _create(self, job, spec, index):
        ns, name = util.key_of(job)
        uid = util.meta(job)["uid"]
        n = self.created.get(uid, 0)
        self.created[uid] = n + 1
        tmpl = copy.deepcopy(spec.get("template") or {})
        tm = tmpl.get("metadata") or {}
        labels = dict(tm.get("labels") or {})
        labels.update({"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                       "controller-uid": uid, "job-name": name})
        annotations = dict(tm.get("annotations") or {})
        prefix = name + "-"
        if index is not None:
            labels["batch.kubernetes.io/job-completion-index"] = str(index)
            annotations["batch.kubernetes.io/job-completion-index"] = str(index)
            prefix = "%s-%d-" % (name, index)
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": prefix + util.safe_suffix(5, self.rt.seed, uid, n),
                            "generateName": prefix, "namespace": ns, "labels": labels,
                            "ownerReferences": [util.owner_ref(job, API, "Job")]},
               "spec": tmpl.get("spec") or {}}
        if annotations:
            pod["metadata"]["annotations"] = annotations
        if index is not None:
            pod["spec"].setdefault("hostname", "%s-%d" % (name, index))
        util.default_pod(pod)
        if self.rt.create("pods", pod) is not None:
            self.event(job, "Normal", "SuccessfulCreate", "Created pod: %s" % pod["metadata"]["name"])
