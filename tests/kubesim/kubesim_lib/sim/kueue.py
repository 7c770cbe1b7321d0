"""Kueue (kueue.x-k8s.io/v1beta2), served with --kueue: enough of its job
framework, scheduler and visibility API for what arenafs reads of it.

- Its webhook (admission.py, kueue_suspend): a job of a kind Kueue manages
  (the kubeflow.org kinds, TrainJob) labelled kueue.x-k8s.io/queue-name is
  created suspended.
- Its job reconciler: such a job gets a Workload, named
  <kind>-<name>-<hash5> and owned by the job (deleting the job collects it),
  with spec.queueName and one pod set per replica type (count, template), in
  Kueue's order (podset_order); a finished job's Workload gets Finished=True.
- Its scheduler, per ClusterQueue, BestEffortFIFO: the pending Workloads by
  priority (high first) then creation; each that fits the ClusterQueue's
  nominal nvidia.com/gpu quota less what the admitted use gets
  status.admission, QuotaReserved=True ("Quota reserved in ClusterQueue CQ")
  and Admitted=True ("The workload is admitted"), and its job is resumed; one
  that does not fit gets QuotaReserved=False, reason Pending, with Kueue's
  message ("couldn't assign flavors to pod set worker: insufficient unused
  quota for nvidia.com/gpu in flavor default-flavor, 4 more needed", naming
  the pod sets that lack GPUs: shortage_message). With
  spec.preemption.withinClusterQueue LowerPriority, admitted Workloads of lower
  priority are evicted to make room (Evicted and Preempted True, reason
  Preempted / InClusterQueue); a ClusterQueue or LocalQueue with stopPolicy
  HoldAndDrain evicts what it admitted (ClusterQueueStopped,
  LocalQueueStopped) and Hold admits nothing new. An evicted job is suspended
  again and waits in line.
- Status: ClusterQueues' and LocalQueues' pending, reserving and admitted
  counts and flavorsUsage, and Active=True.
- Its visibility API (visibility.kueue.x-k8s.io/v1beta2, served by api.py
  through pending_workloads): a LocalQueue's or ClusterQueue's pending
  Workloads in order, positions from 0.

Not modelled (docs/kubesim.md): cohorts and borrowing, flavors other than the
first of a ClusterQueue, resources other than GPUs, admission checks,
requeue backoff, v1beta1. A Workload's priority and spec.priorityClassRef are
Kueue's: the WorkloadPriorityClass the job's label kueue.x-k8s.io/priority-class
names, else the PriorityClass of the first pod set that names one (jobframework's
ExtractPriority).
"""

import hashlib

from . import util
from .kubeflow_kinds import KINDS
from .runtime import Controller

GROUP = "kueue.x-k8s.io"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"
API = GROUP + "/v1beta2"
WORKLOADS = "workloads." + GROUP
LOCALQUEUES = "localqueues." + GROUP
CLUSTERQUEUES = "clusterqueues." + GROUP
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
PRIORITY_CLASSES = "workloadpriorityclasses." + GROUP
TRAINJOBS = "trainjobs.trainer.kubeflow.org"
MPI_V2 = "mpijobs.kubeflow.org"   # the store's key of either MPIJob version

# The kinds whose jobs Kueue manages: resource -> (apiVersion, Kind), the
# integrations the real test cluster enables (tests/cluster/kubeflow.py:
# kubeflow.org/tfjob, pytorchjob, mpijob, trainer.kubeflow.org/trainjob).
# Kueue's kubeflow.org/mpijob is the mpi-operator's v2beta1 MPIJob: a
# training-operator v1 MPIJob is not queued (managed_kinds).
MANAGED = {r: ("kubeflow.org/v1", KINDS[r].kind)
           for r in ("tfjobs.kubeflow.org", "pytorchjobs.kubeflow.org")}
MANAGED[TRAINJOBS] = ("trainer.kubeflow.org/v1alpha1", "TrainJob")


def managed_kinds(mpi_v2beta1):
    kinds = dict(MANAGED)
    if mpi_v2beta1:
        kinds[MPI_V2] = ("kubeflow.org/v2beta1", "MPIJob")
    return kinds


def job_suspend_path(resource):
    """Where a managed kind keeps suspend (spec.runPolicy.suspend, TrainJob's spec.suspend)."""
    return ("suspend",) if resource == TRAINJOBS else ("runPolicy", "suspend")


def kueue_suspend(res, obj):
    """The webhook: a managed job with a queue label is created suspended."""
    res_key = res.key
    if res_key not in MANAGED and not (res_key == MPI_V2 and res.version == "v2beta1"):
        return
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if not labels.get(QUEUE_LABEL):
        return
    spec = obj.setdefault("spec", {})
    path = job_suspend_path(res_key)
    if len(path) == 2:
        spec = spec.setdefault(path[0], {})
    spec[path[-1]] = True


def workload_name(kind, name, uid):
    h = hashlib.sha1(("%s/%s/%s" % (kind, name, uid)).encode()).hexdigest()[:5]
    return ("%s-%s" % (kind.lower(), name))[:57] + "-" + h


def _cond(wl, ctype):
    for c in (wl.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def _true(wl, ctype):
    c = _cond(wl, ctype)
    return bool(c and c.get("status") == "True")


def _set(status, ctype, cstatus, reason, message, now):
    conds = status.setdefault("conditions", [])
    for c in conds:
        if c.get("type") == ctype:
            if c.get("status") != cstatus:
                c["status"] = cstatus
                c["lastTransitionTime"] = now
            c["reason"], c["message"] = reason, message
            return
    conds.append({"type": ctype, "status": cstatus, "lastTransitionTime": now,
                  "reason": reason, "message": message, "observedGeneration": 1})


def _reset(status, ctype, reason, now):
    """Kueue's resetActiveCondition: a True condition becomes False, "Previously: ..."."""
    for c in status.get("conditions") or []:
        if c.get("type") == ctype and c.get("status") == "True":
            c.update(status="False", reason=reason, lastTransitionTime=now,
                     message="Previously: " + (c.get("message") or ""))


def workload_gpus(wl):
    total = 0
    for ps in (wl.get("spec") or {}).get("podSets") or []:
        tspec = (ps.get("template") or {}).get("spec") or {}
        total += int(ps.get("count") or 0) * int(util.pod_request(tspec, util.GPU))
    return total


# The order of a job's pod sets in its Workload (Kueue's OrderedReplicaTypes:
# TFJob Chief, Master, PS, Worker, Evaluator; PyTorchJob Master, Worker; MPIJob
# Launcher, Worker), which is also the order the flavor assigner tries them in.
PODSET_ORDER = ("Chief", "Master", "PS", "Launcher", "Worker", "Evaluator")


def podset_order(rtype):
    return (PODSET_ORDER.index(rtype) if rtype in PODSET_ORDER else len(PODSET_ORDER), rtype)


def assignment(ps, flavor):
    """A pod set's status.admission.podSetAssignments entry: its flavor and use of
    the resources it asks (only GPUs counted); one asking none (an MPIJob's
    launcher) has neither, as in the real one."""
    count = int(ps.get("count") or 0)
    gpus = count * int(util.pod_request(((ps.get("template") or {}).get("spec") or {}), util.GPU))
    out = {"name": ps.get("name"), "count": count}
    if gpus:
        out.update({"flavors": {util.GPU: flavor}, "resourceUsage": {util.GPU: str(gpus)}})
    return out


def shortage_message(wl, flavor, quota, used):
    """Kueue's flavor assigner's message for a Workload whose GPUs do not fit
    (pkg/scheduler/flavorassigner): the pod sets in order, each asking its GPUs
    on top of those of the pod sets before it; one that does not fit what is
    unused is named with how many more it needs, and the next are tried (a
    preemption could make room); one asking more than the whole quota ends the
    search. A pod set asking no GPU (an MPIJob's launcher) fits and is not named."""
    out, asked = [], 0
    for ps in (wl.get("spec") or {}).get("podSets") or []:
        tspec = (ps.get("template") or {}).get("spec") or {}
        gpus = int(ps.get("count") or 0) * int(util.pod_request(tspec, util.GPU))
        if not gpus:
            continue
        head = "couldn't assign flavors to pod set %s: " % ps.get("name")
        if asked + gpus > quota:
            out.append(head + "insufficient quota for %s in flavor %s, previously considered "
                       "podsets requests (%d) + current podset request (%d) > maximum "
                       "capacity (%d)" % (util.GPU, flavor, asked, gpus, quota))
            break
        if asked + gpus > quota - used:
            out.append(head + "insufficient unused quota for %s in flavor %s, %d more needed" % (
                util.GPU, flavor, asked + gpus - (quota - used)))
        asked += gpus
    return "; ".join(out)


def _pending(wl):
    return not _true(wl, "QuotaReserved") and not _true(wl, "Finished") and \
        (wl.get("spec") or {}).get("active", True) is not False


def _order(wl):
    m = util.meta(wl)
    return (-int((wl.get("spec") or {}).get("priority") or 0), m.get("creationTimestamp", ""),
            m.get("namespace", ""), m.get("name", ""))


def quota_of(cq):
    """(flavor, nominal GPUs) of a ClusterQueue: its first flavor's, summed over groups."""
    flavor, total = "default-flavor", 0
    for g in (cq.get("spec") or {}).get("resourceGroups") or []:
        for f in g.get("flavors") or []:
            for r in f.get("resources") or []:
                if r.get("name") == util.GPU:
                    if not total:
                        flavor = f.get("name") or flavor
                    total += int(util.quantity(r.get("nominalQuota") or 0))
    return flavor, total


def pending_workloads(store, cq_name=None, ns=None, lq=None):
    """The visibility API's answer: [(workload, posInCQ, posInLQ)] in line order, for
    a ClusterQueue (cq_name) or a LocalQueue (ns, lq); None for a LocalQueue that
    does not exist or is stopped. As the real one, it leaves out the Workloads of a
    stopped LocalQueue (Kueue holds them out of its queues)."""
    lqs = {util.key_of(e.obj): e.obj for e in store.list(LOCALQUEUES)[0]}
    if cq_name is None:
        q = lqs.get((ns, lq))
        # a stopped LocalQueue is not in Kueue's queue manager: 404, as one that is not
        if q is None or ((q.get("spec") or {}).get("stopPolicy") or "None") != "None":
            return None
        cq_name = (q.get("spec") or {}).get("clusterQueue")
    line = []
    for e in store.list(WORKLOADS)[0]:
        wl = e.obj
        m = util.meta(wl)
        q = lqs.get((m.get("namespace"), (wl.get("spec") or {}).get("queueName")))
        if q is None or (q.get("spec") or {}).get("clusterQueue") != cq_name or not _pending(wl):
            continue
        # a stopped LocalQueue's Workloads are out of line (Inadmissible) until it runs again
        if ((q.get("spec") or {}).get("stopPolicy") or "None") != "None":
            continue
        line.append(wl)
    line.sort(key=_order)
    out, per_lq = [], {}
    for i, wl in enumerate(line):
        k = (util.meta(wl).get("namespace"), (wl.get("spec") or {}).get("queueName"))
        pos_lq = per_lq.get(k, 0)
        per_lq[k] = pos_lq + 1
        if lq is None or k == (ns, lq):
            out.append((wl, i, pos_lq))
    return out


def pending_summary(store, version, cq_name=None, ns=None, lq=None):
    """A PendingWorkloadsSummary document, or None when the queue does not exist."""
    if cq_name is not None and store.get(CLUSTERQUEUES, "", cq_name) is None:
        return None
    line = pending_workloads(store, cq_name, ns, lq)
    if line is None:
        return None
    items = []
    for wl, pos_cq, pos_lq in line:
        m = util.meta(wl)
        # the visibility server copies four fields of each ownerReference
        owners = [{k: r[k] for k in ("apiVersion", "kind", "name", "uid") if k in r}
                  for r in m.get("ownerReferences") or []]
        items.append({"metadata": {"name": m["name"], "namespace": m.get("namespace", ""),
                                   "creationTimestamp": m.get("creationTimestamp"),
                                   "ownerReferences": owners},
                      "priority": int((wl.get("spec") or {}).get("priority") or 0),
                      "localQueueName": (wl.get("spec") or {}).get("queueName"),
                      "positionInClusterQueue": pos_cq, "positionInLocalQueue": pos_lq})
    return {"kind": "PendingWorkloadsSummary",
            "apiVersion": "visibility.kueue.x-k8s.io/" + version,
            "metadata": {"creationTimestamp": None}, "items": items}


class KueueController(Controller):
    name = "kueue-controller-manager"

    def __init__(self, rt):
        super().__init__(rt)
        self.managed = managed_kinds(bool(getattr(rt.opts, "mpi_v2beta1", False)))
        self.resources = tuple(self.managed) + (WORKLOADS, LOCALQUEUES, CLUSTERQUEUES)

    def observe(self, ev):
        self.enqueue("all")

    def job_event(self, job, api, kind, reason, message):
        """An event of Kueue's job reconciler on the job (kubectl describe shows it;
        so does jobs/NAME/events), from "<framework>-kueue-controller"."""
        framework = "%s/%s" % (api.split("/")[0], kind.lower())
        self.rt.event(job, kind, api, "Normal", reason, message, framework + "-kueue-controller")

    def reconcile(self, key):
        store = self.rt.store
        now = util.rfc3339()
        self._workloads_of_jobs(store, now)
        cqs = {util.meta(e.obj)["name"]: e.obj for e in store.list(CLUSTERQUEUES)[0]}
        lqs = {util.key_of(e.obj): e.obj for e in store.list(LOCALQUEUES)[0]}
        wls = [e.obj for e in store.list(WORKLOADS)[0]]
        for name, cq in sorted(cqs.items()):
            self._schedule(cq, lqs, wls, now)
        self._no_queue(cqs, lqs, now)
        self._queue_status(cqs, lqs)

    # ---- jobs → Workloads ----

    def _workloads_of_jobs(self, store, now):
        owned = {}
        for e in store.list(WORKLOADS)[0]:
            ref = util.controller_ref(e.obj) or {}
            owned[ref.get("uid")] = e.obj
        for resource, (api, kind) in self.managed.items():
            for e in store.list(resource)[0]:
                job = e.obj
                m = util.meta(job)
                queue = (m.get("labels") or {}).get(QUEUE_LABEL)
                if not queue or m.get("deletionTimestamp"):
                    continue
                wl = owned.get(m.get("uid"))
                if wl is None:
                    wl = self._new_workload(job, resource, api, kind, queue)
                    if self.rt.create(WORKLOADS, wl) is not None:
                        self.job_event(job, api, kind, "CreatedWorkload", "Created Workload: %s/%s"
                                       % (m.get("namespace", ""), util.meta(wl)["name"]))
                elif self._finished(job) and not _true(wl, "Finished"):
                    status = util.clone(wl.get("status") or {})
                    ok = self._finished(job) == "Succeeded"
                    _set(status, "Finished", "True", "Succeeded" if ok else "Failed",
                         "Job finished successfully" if ok else "Job failed", now)
                    self.rt.set_status(WORKLOADS, wl, status)
                    self.job_event(job, api, kind, "FinishedWorkload",
                                   "Workload '%s/%s' is declared finished"
                                   % (m.get("namespace", ""), util.meta(wl)["name"]))

    @staticmethod
    def _finished(job):
        for c in (job.get("status") or {}).get("conditions") or []:
            if c.get("status") == "True" and c.get("type") in ("Succeeded", "Complete"):
                return "Succeeded"
            if c.get("status") == "True" and c.get("type") == "Failed":
                return "Failed"
        return None

    def _new_workload(self, job, resource, api, kind, queue):
        m = util.meta(job)
        spec = job.get("spec") or {}
        podsets = []
        if resource == TRAINJOBS:
            tr = spec.get("trainer") or {}
            c = {"name": "node", "image": tr.get("image") or "trainer"}
            if tr.get("resourcesPerNode"):
                c["resources"] = util.clone(tr["resourcesPerNode"])
            podsets.append({"name": "node", "count": int(tr.get("numNodes") or 1),
                            "template": {"spec": {"containers": [c]}}})
        else:
            specs = spec.get(KINDS[resource].specs) or {}
            for rtype in sorted(specs, key=podset_order):
                rs = specs[rtype] or {}
                podsets.append({"name": rtype.lower(), "count": int(rs.get("replicas", 1)),
                                "template": util.clone(rs.get("template") or {})})
        prio, ref = self._priority(m, podsets)
        return {"apiVersion": API, "kind": "Workload",
                "metadata": {"name": workload_name(kind, m["name"], m.get("uid", "")),
                             "namespace": m.get("namespace", ""),
                             "labels": {"kueue.x-k8s.io/job-uid": m.get("uid", "")},
                             "ownerReferences": [util.owner_ref(job, api, kind)]},
                "spec": dict({"queueName": queue, "podSets": podsets, "priority": prio,
                              "active": True}, **({"priorityClassRef": ref} if ref else {})),
                "status": {}}

    def _priority(self, m, podsets):
        """(priority, spec.priorityClassRef or None) as Kueue's priority.go picks them:
        the job's label kueue.x-k8s.io/priority-class naming a WorkloadPriorityClass,
        else the pod templates' PriorityClass."""
        wpc = (m.get("labels") or {}).get(PRIORITY_LABEL)
        e = self.rt.store.get(PRIORITY_CLASSES, "", wpc) if wpc else None
        if e is not None:
            return int(e.obj.get("value") or 0), {"group": GROUP, "kind": "WorkloadPriorityClass",
                                                  "name": wpc}
        for ps in podsets:
            pc = ((ps.get("template") or {}).get("spec") or {}).get("priorityClassName")
            e = self.rt.store.get("priorityclasses.scheduling.k8s.io", "", pc) if pc else None
            if e is not None:
                return int(e.obj.get("value") or 0), {"group": "scheduling.k8s.io",
                                                      "kind": "PriorityClass", "name": pc}
        return 0, None

    # ---- the scheduler ----

    def _job_of(self, wl):
        ref = util.controller_ref(wl) or {}
        for resource, (api, kind) in self.managed.items():
            if ref.get("kind") == kind and ref.get("apiVersion", "").split("/")[0] == \
                    api.split("/")[0]:
                job = self.rt.get(resource, util.meta(wl).get("namespace", ""), ref.get("name"))
                if job is not None and util.meta(job).get("uid") == ref.get("uid"):
                    return resource, job
        return None, None

    def _suspend_job(self, wl, value, reason, message):
        """Suspends (value True) or resumes the Workload's job; a change is told
        in an event on the job (Stopped, Started)."""
        resource, job = self._job_of(wl)
        if job is None:
            return
        path = job_suspend_path(resource)
        changed = []

        def fn(cur):
            spec = cur.setdefault("spec", {})
            if len(path) == 2:
                spec = spec.setdefault(path[0], {})
            if spec.get(path[-1]) is value:
                return False
            spec[path[-1]] = value
            changed.append(True)
        self.rt.store.mutate(resource, *util.key_of(job), fn)
        if changed:
            api, kind = self.managed[resource]
            self.job_event(job, api, kind, reason, message)

    def _admit(self, wl, cq_name, flavor, now):
        status = util.clone(wl.get("status") or {})
        status["admission"] = {"clusterQueue": cq_name, "podSetAssignments": [
            assignment(ps, flavor) for ps in (wl.get("spec") or {}).get("podSets") or []]}
        _set(status, "QuotaReserved", "True", "QuotaReserved",
             "Quota reserved in ClusterQueue %s" % cq_name, now)
        _reset(status, "Evicted", "QuotaReserved", now)
        _reset(status, "Preempted", "QuotaReserved", now)
        _set(status, "Admitted", "True", "Admitted", "The workload is admitted", now)
        self.rt.set_status(WORKLOADS, wl, status)
        self._suspend_job(wl, False, "Started", "Admitted by clusterQueue %s" % cq_name)

    def _unreserve(self, wl, reason, message, now, evict=None, preempted=None):
        status = util.clone(wl.get("status") or {})
        if evict:
            _set(status, "Evicted", "True", evict[0], evict[1], now)
        if preempted:
            _set(status, "Preempted", "True", preempted[0], preempted[1], now)
        _set(status, "QuotaReserved", "False", reason, message, now)
        status.pop("admission", None)
        if _cond({"status": status}, "Admitted"):
            _set(status, "Admitted", "False", "NoReservation", "The workload has no reservation",
                 now)
        self.rt.set_status(WORKLOADS, wl, status)
        if evict:
            self._suspend_job(wl, True, "Stopped", evict[1])

    def _schedule(self, cq, lqs, wls, now):
        name = util.meta(cq)["name"]
        flavor, quota = quota_of(cq)
        cq_stop = (cq.get("spec") or {}).get("stopPolicy") or "None"
        mine, admitted, used = [], [], 0
        for wl in wls:
            m = util.meta(wl)
            lq = lqs.get((m.get("namespace"), (wl.get("spec") or {}).get("queueName")))
            res = (wl.get("status") or {}).get("admission") or {}
            if _true(wl, "Finished"):
                continue
            if res.get("clusterQueue") == name and _true(wl, "QuotaReserved"):
                lq_stop = ((lq or {}).get("spec") or {}).get("stopPolicy") or "None"
                if cq_stop == "HoldAndDrain":
                    self._unreserve(wl, "Pending", "The ClusterQueue is stopped", now,
                                    evict=("ClusterQueueStopped", "The ClusterQueue is stopped"))
                elif lq_stop == "HoldAndDrain":
                    self._unreserve(wl, "Pending", "The LocalQueue is stopped", now,
                                    evict=("LocalQueueStopped", "The LocalQueue is stopped"))
                else:
                    admitted.append(wl)
                    used += workload_gpus(wl)
            elif lq is not None and (lq.get("spec") or {}).get("clusterQueue") == name \
                    and _pending(wl):
                mine.append((wl, lq))
        mine.sort(key=lambda p: _order(p[0]))
        lower_first = sorted(admitted, key=lambda w: (int((w.get("spec") or {}).get(
            "priority") or 0), util.meta(w).get("creationTimestamp", "")), reverse=False)
        preempt = ((cq.get("spec") or {}).get("preemption") or {}).get(
            "withinClusterQueue") == "LowerPriority"
        for wl, lq in mine:
            need = workload_gpus(wl)
            lq_stop = (lq.get("spec") or {}).get("stopPolicy") or "None"
            if cq_stop != "None":
                self._unreserve(wl, "Inadmissible", "ClusterQueue %s is stopped" % name, now)
                continue
            if lq_stop != "None":
                # the real Kueue words it "is stopped" or "is inactive" as its two
                # reconcilers race; the latter is what it was seen to settle on
                self._unreserve(wl, "Inadmissible", "LocalQueue %s is inactive" %
                                util.meta(lq)["name"], now)
                continue
            if used + need <= quota:
                self._admit(wl, name, flavor, now)
                used += need
                continue
            if preempt:
                prio = int((wl.get("spec") or {}).get("priority") or 0)
                victims, freed = [], 0
                for v in lower_first:
                    if used - freed + need <= quota:
                        break
                    if int((v.get("spec") or {}).get("priority") or 0) < prio:
                        victims.append(v)
                        freed += workload_gpus(v)
                if victims and used - freed + need <= quota:
                    msg = ("Preempted to accommodate a workload (UID: %s, JobUID: %s) due to "
                           "prioritization in the ClusterQueue" % (
                               util.meta(wl).get("uid", ""),
                               (util.meta(wl).get("labels") or {}).get(
                                   "kueue.x-k8s.io/job-uid", "")))
                    for v in victims:
                        self._unreserve(v, "Preempted", msg, now, evict=("Preempted", msg),
                                        preempted=("InClusterQueue", msg))
                        lower_first.remove(v)
                    used -= freed
                    self.enqueue("all", delay=0.5)
                    continue
            self._unreserve(wl, "Pending", shortage_message(wl, flavor, quota, used), now)

    def _no_queue(self, cqs, lqs, now):
        """Workloads whose LocalQueue or ClusterQueue does not exist: Inadmissible."""
        for e in self.rt.store.list(WORKLOADS)[0]:
            wl = e.obj
            if not _pending(wl):
                continue
            m = util.meta(wl)
            qn = (wl.get("spec") or {}).get("queueName")
            lq = lqs.get((m.get("namespace"), qn))
            if lq is None:
                self._unreserve(wl, "Inadmissible", "LocalQueue %s doesn't exist" % qn, now)
            elif (lq.get("spec") or {}).get("clusterQueue") not in cqs:
                self._unreserve(wl, "Inadmissible", "ClusterQueue %s doesn't exist" %
                                (lq.get("spec") or {}).get("clusterQueue"), now)

    # ---- queue status ----

    @staticmethod
    def _usage(cq, flavor, gpus, borrowed):
        """flavorsUsage as Kueue writes it: every flavor of the ClusterQueue's quota
        in order, each with every resource it has a quota of and its total used (the
        GPUs of flavor; "0" for what kubesim does not count: other resources and
        flavors), and borrowed "0" (kubesim models no cohort)."""
        out = []
        for g in (cq.get("spec") or {}).get("resourceGroups") or []:
            for f in g.get("flavors") or []:
                res = []
                for n in sorted(r.get("name") for r in f.get("resources") or []):
                    r = {"name": n, "total": str(gpus) if (n, f.get("name")) ==
                         (util.GPU, flavor) else "0"}
                    if borrowed:
                        r["borrowed"] = "0"
                    res.append(r)
                out.append({"name": f.get("name"), "resources": res})
        return out

    def _queue_status(self, cqs, lqs):
        wls = [e.obj for e in self.rt.store.list(WORKLOADS)[0]]
        for name, cq in cqs.items():
            flavor, _ = quota_of(cq)
            st = self._counts(wls, lambda wl, lqname=None: self._cq_of(wl, lqs) == name)
            status = util.clone(cq.get("status") or {})
            status.update(pendingWorkloads=st[0], reservingWorkloads=st[1],
                          admittedWorkloads=st[2],
                          flavorsReservation=self._usage(cq, flavor, st[3], True),
                          flavorsUsage=self._usage(cq, flavor, st[3], True))
            _set(status, "Active", "True", "Ready", "Can admit new workloads",
                 (_cond(cq, "Active") or {}).get("lastTransitionTime") or util.rfc3339())
            self.rt.set_status(CLUSTERQUEUES, cq, status)
        for key, lq in lqs.items():
            cqn = (lq.get("spec") or {}).get("clusterQueue")
            flavor, _ = quota_of(cqs.get(cqn) or {})
            st = self._counts(wls, lambda wl: (util.meta(wl).get("namespace"),
                                               (wl.get("spec") or {}).get("queueName")) == key)
            status = util.clone(lq.get("status") or {})
            status.update(pendingWorkloads=st[0], reservingWorkloads=st[1],
                          admittedWorkloads=st[2],
                          flavorsReservation=self._usage(cqs.get(cqn) or {}, flavor, st[3],
                                                         False),
                          flavorsUsage=self._usage(cqs.get(cqn) or {}, flavor, st[3], False))
            ok = cqn in cqs
            _set(status, "Active", "True" if ok else "False",
                 "Ready" if ok else "ClusterQueueDoesNotExist",
                 "Can submit new workloads to localQueue" if ok else
                 "Can't submit new workloads to clusterQueue",
                 (_cond(lq, "Active") or {}).get("lastTransitionTime") or util.rfc3339())
            self.rt.set_status(LOCALQUEUES, lq, status)

    @staticmethod
    def _cq_of(wl, lqs):
        adm = (wl.get("status") or {}).get("admission") or {}
        if adm.get("clusterQueue"):
            return adm["clusterQueue"]
        lq = lqs.get((util.meta(wl).get("namespace"), (wl.get("spec") or {}).get("queueName")))
        return ((lq or {}).get("spec") or {}).get("clusterQueue")

    @staticmethod
    def _counts(wls, pred):
        """(pending, reserving, admitted, GPUs used) of the Workloads pred picks."""
        pending = reserving = admitted = gpus = 0
        for wl in wls:
            if _true(wl, "Finished") or not pred(wl):
                continue
            if _true(wl, "QuotaReserved"):
                reserving += 1
                gpus += workload_gpus(wl)
                if _true(wl, "Admitted"):
                    admitted += 1
            elif (wl.get("spec") or {}).get("active", True) is not False:
                pending += 1
        return pending, reserving, admitted, gpus


def populate(store, opts):
    """The real test cluster's queues (tests/cluster/): ResourceFlavor default-flavor,
    ClusterQueue cluster-queue with an nvidia.com/gpu quota of opts.kueue_gpus, and
    LocalQueue user-queue in default and team-a."""
    now = util.rfc3339()
    gpus = getattr(opts, "kueue_gpus", 8)
    store.create("resourceflavors." + GROUP, {
        "apiVersion": API, "kind": "ResourceFlavor",
        "metadata": {"name": "default-flavor", "creationTimestamp": now}, "spec": {}})
    store.create(CLUSTERQUEUES, {
        "apiVersion": API, "kind": "ClusterQueue",
        "metadata": {"name": "cluster-queue", "creationTimestamp": now},
        "spec": {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                 "stopPolicy": "None", "flavorFungibility": {
                     "whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
                 "preemption": {"borrowWithinCohort": {"policy": "Never"},
                                "reclaimWithinCohort": "Never", "withinClusterQueue": "Never"},
                 # tests/cluster/queues.yaml's
                 "resourceGroups": [{"coveredResources": ["cpu", "memory", "ephemeral-storage",
                                                          util.GPU],
                                     "flavors": [{"name": "default-flavor", "resources": [
                                         {"name": "cpu", "nominalQuota": "128"},
                                         {"name": "memory", "nominalQuota": "1Ti"},
                                         {"name": "ephemeral-storage",
                                          "nominalQuota": "2000Gi"},
                                         {"name": util.GPU, "nominalQuota": str(gpus)}]}]}]},
        "status": {}})
    for ns in ("default", "team-a"):
        store.create(LOCALQUEUES, {
            "apiVersion": API, "kind": "LocalQueue",
            "metadata": {"name": "user-queue", "namespace": ns, "creationTimestamp": now},
            "spec": {"clusterQueue": "cluster-queue", "stopPolicy": "None"}, "status": {}})
