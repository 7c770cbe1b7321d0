"""mpi-operator (v0.6, kubeflow.org/v2beta1 MPIJob), called by the training
operator's controller for MPIJobs of that apiVersion.

As upstream's syncHandler: Created condition and event first; a headless
Service NAME and ConfigMap NAME-config for the workers; worker pods
NAME-worker-N (labels training.kubeflow.org/operator-name=mpi-operator,
job-name, job-role=worker, replica-index; sshd unless they have a command;
they run until deleted); the launcher as a batch/v1 Job NAME-launcher
(job-role=launcher on its pod template, backoffLimit and TTL from runPolicy)
which the Job controller runs; status from the launcher Job and the workers,
conditions MPIJobCreated/MPIJobRunning/MPIJobSucceeded/MPIJobFailed (the
failed reason is "BackoffLimitExceeded/" plus the last failed pod's reason, as
upstream builds it); cleanPodPolicy Running or All deletes workers once
finished. The SSH Secret, Role and RoleBinding are not made (those kinds are
not served).
"""

import copy

from . import batch
from . import conditions as cond
from . import util

API = "kubeflow.org/v2beta1"
COMPONENT = "mpi-job-controller"
OPERATOR = "mpi-operator"
LABELS = ("training.kubeflow.org/operator-name", "training.kubeflow.org/job-name",
          "training.kubeflow.org/job-role")


def default_labels(name, role):
    return {LABELS[0]: OPERATOR, LABELS[1]: name, LABELS[2]: role}


def specs_of(job):
    raw = (job.get("spec") or {}).get("mpiReplicaSpecs") or {}
    out = {}
    for k, v in raw.items():
        canon = {"launcher": "Launcher", "worker": "Worker"}.get(str(k).lower())
        if canon and isinstance(v, dict):
            s = dict(v)
            if s.get("replicas") is None:
                s["replicas"] = 1 if canon == "Launcher" else 0
            s["restartPolicy"] = s.get("restartPolicy") or ("OnFailure" if canon == "Launcher" else "Never")
            out[canon] = s
    return out


class MPIv2:
    def __init__(self, rt):
        self.rt = rt

    def event(self, job, type_, reason, message):
        self.rt.event(job, "MPIJob", API, type_, reason, message, COMPONENT)

    def reconcile_job(self, job):
        m = util.meta(job)
        ns, name, uid = m.get("namespace", ""), m["name"], m["uid"]
        specs = specs_of(job)
        if "Launcher" not in specs:
            return
        rp = dict((job.get("spec") or {}).get("runPolicy") or {})
        rp.setdefault("cleanPodPolicy", "None")
        status = copy.deepcopy(job.get("status") or {})
        now = util.rfc3339()
        if not status.get("conditions"):
            msg = "MPIJob %s/%s is created." % (ns, name)
            cond.set_condition(status, "Created", "True", "MPIJobCreated", msg, now, mpi=True)
            self.event(job, "Normal", "MPIJobCreated", msg)
        workers_all = [p for p in self.rt.owned(uid, "pods")
                       if (util.meta(p).get("labels") or {}).get(LABELS[2]) == "worker"]
        if cond.is_finished(status) and status.get("completionTime"):
            if rp["cleanPodPolicy"] in ("All", "Running"):
                for p in workers_all:
                    phase = (p.get("status") or {}).get("phase")
                    if rp["cleanPodPolicy"] == "Running" and phase not in ("Running", "Pending"):
                        continue
                    self.rt.delete_pod(ns, util.meta(p)["name"], util.meta(p).get("uid"))
                rs = status.setdefault("replicaStatuses", {}).setdefault("Worker", {})
                rs.pop("active", None)
            self._write(job, status)
            return
        suspended = bool(rp.get("suspend"))
        if not status.get("startTime") and not suspended:
            status["startTime"] = now
        launcher = self.rt.get("jobs.batch", ns, name + "-launcher")
        if launcher is not None and (util.controller_ref(launcher) or {}).get("uid") != uid:
            launcher = None
        workers = []
        if launcher is None or not batch.is_finished(launcher):
            self._service(job)
            self._configmap(job, specs)
            if not suspended:
                workers = self._workers(job, specs, workers_all)
            else:
                # the operator deletes the workers of a suspended MPIJob
                for p in workers_all:
                    if not util.meta(p).get("deletionTimestamp"):
                        self.rt.delete_pod(ns, util.meta(p)["name"], util.meta(p).get("uid"))
            if launcher is None:
                launcher = self.rt.create("jobs.batch", self._launcher_job(job, specs, rp))
            elif bool((launcher.get("spec") or {}).get("suspend")) != suspended:
                # and passes suspend on to the launcher Job (a resume, Kueue's admission)
                def flip(cur):
                    cur.setdefault("spec", {})["suspend"] = suspended
                launcher = self.rt.store.mutate("jobs.batch", ns, name + "-launcher",
                                                flip) or launcher
        self._status(job, status, launcher, workers, suspended)

    def _service(self, job):
        m = util.meta(job)
        if self.rt.get("services", m.get("namespace", ""), m["name"]) is not None:
            return
        self.rt.create("services", {
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": m["name"], "namespace": m.get("namespace", ""),
                         "labels": {"app": m["name"]},
                         "ownerReferences": [util.owner_ref(job, API, "MPIJob")]},
            "spec": {"clusterIP": "None", "clusterIPs": ["None"],
                     "selector": {LABELS[0]: OPERATOR, LABELS[1]: m["name"]},
                     "publishNotReadyAddresses": False, "type": "ClusterIP",
                     "sessionAffinity": "None", "ipFamilies": ["IPv4"],
                     "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"},
            "status": {"loadBalancer": {}}})

    def _configmap(self, job, specs):
        m = util.meta(job)
        ns, name = m.get("namespace", ""), m["name"]
        if self.rt.get("configmaps", ns, name + "-config") is not None:
            return
        slots = int((job.get("spec") or {}).get("slotsPerWorker") or 1)
        n = specs.get("Worker", {}).get("replicas", 0)
        hosts = "".join("%s-worker-%d.%s.%s.svc slots=%d\n" % (name, i, name, ns, slots) for i in range(n))
        self.rt.create("configmaps", {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name + "-config", "namespace": ns, "labels": {"app": name},
                         "ownerReferences": [util.owner_ref(job, API, "MPIJob")]},
            "data": {"hostfile": hosts, "discover_hosts.sh": "#!/bin/sh\n"}})

    def _workers(self, job, specs, existing):
        m = util.meta(job)
        ns, name = m.get("namespace", ""), m["name"]
        spec = specs.get("Worker")
        n = spec["replicas"] if spec else 0
        by_name = {util.meta(p)["name"]: p for p in existing}
        for p in existing:
            try:
                idx = int((util.meta(p).get("labels") or {}).get("training.kubeflow.org/replica-index"))
            except (TypeError, ValueError):
                continue
            if idx >= n:
                self.rt.delete_pod(ns, util.meta(p)["name"], util.meta(p).get("uid"))
        out = []
        for i in range(n):
            wname = "%s-worker-%d" % (name, i)
            pod = by_name.get(wname)
            if pod is None:
                tmpl = copy.deepcopy(spec.get("template") or {})
                tm = tmpl.get("metadata") or {}
                labels = dict(tm.get("labels") or {})
                labels.update(default_labels(name, "worker"))
                labels["training.kubeflow.org/replica-index"] = str(i)
                pspec = tmpl.get("spec") or {}
                pspec["hostname"] = wname
                pspec["subdomain"] = name
                pspec["restartPolicy"] = "Never" if spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
                c = (pspec.get("containers") or [{}])[0]
                if not c.get("command") and not c.get("args"):
                    c["command"] = ["/usr/sbin/sshd", "-De"]
                c.setdefault("env", []).append({"name": "K_MPI_JOB_ROLE", "value": "worker"})
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": wname, "namespace": ns, "labels": labels,
                                    "ownerReferences": [util.owner_ref(job, API, "MPIJob")]},
                       "spec": pspec}
                if tm.get("annotations"):
                    pod["metadata"]["annotations"] = dict(tm["annotations"])
                util.default_pod(pod)
                pod = self.rt.create("pods", pod)
                if pod is None:
                    continue
            out.append(pod)
        return out

    def _launcher_job(self, job, specs, rp):
        m = util.meta(job)
        ns, name = m.get("namespace", ""), m["name"]
        spec = specs["Launcher"]
        tmpl = copy.deepcopy(spec.get("template") or {})
        tm = tmpl.setdefault("metadata", {})
        labels = dict(tm.get("labels") or {})
        labels.update(default_labels(name, "launcher"))
        tm["labels"] = labels
        pspec = tmpl.setdefault("spec", {})
        pspec["hostname"] = name + "-launcher"
        pspec["subdomain"] = name
        c = (pspec.get("containers") or [{}])[0]
        c.setdefault("env", []).extend([
            {"name": "K_MPI_JOB_ROLE", "value": "launcher"},
            {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
            {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
            {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"},
            {"name": "OMPI_MCA_rmaps_base_oversubscribe", "value": "true"},
            {"name": "OMPI_MCA_orte_set_default_slots",
             "value": str((job.get("spec") or {}).get("slotsPerWorker") or 1)},
            {"name": "NVIDIA_VISIBLE_DEVICES", "value": ""},
            {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": ""}])
        pspec["restartPolicy"] = "Never" if spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
        return batch.new_job(name + "-launcher", ns, tmpl, owner=job, owner_api=API,
                             owner_kind="MPIJob", labels={"app": name},
                             ttlSecondsAfterFinished=rp.get("ttlSecondsAfterFinished"),
                             activeDeadlineSeconds=rp.get("activeDeadlineSeconds"),
                             backoffLimit=rp.get("backoffLimit"),
                             podReplacementPolicy="Failed",
                             suspend=bool(rp.get("suspend")))

    def _status(self, job, status, launcher, workers, suspended):
        m = util.meta(job)
        ns, name = m.get("namespace", ""), m["name"]
        now = util.rfc3339()
        rs = status.setdefault("replicaStatuses", {})
        if suspended:
            if cond.set_condition(status, "Suspended", "True", "MPIJobSuspended", "MPIJob suspended",
                                  now, mpi=True):
                self.event(job, "Normal", "MPIJobSuspended", "MPIJob suspended")
        elif cond.find(status, "Suspended") is not None:
            if cond.set_condition(status, "Suspended", "False", "MPIJobResumed", "MPIJob resumed",
                                  now, mpi=True):
                self.event(job, "Normal", "MPIJobResumed", "MPIJob resumed")
                status["startTime"] = now
        launcher_running = 0
        if launcher is not None:
            lpods = self.rt.owned(util.meta(launcher)["uid"], "pods")
            launcher_running = sum(1 for p in lpods if (p.get("status") or {}).get("phase") == "Running")
            lst = launcher.get("status") or {}
            ls = {}
            if lst.get("failed"):
                ls["failed"] = lst["failed"]
            done = batch.is_finished(launcher)
            if done == "Complete":
                ls["succeeded"] = 1
                msg = "MPIJob %s/%s successfully completed." % (ns, name)
                if not cond.is_true(status, "Succeeded"):
                    self.event(job, "Normal", "MPIJobSucceeded", msg)
                status.setdefault("completionTime", lst.get("completionTime") or now)
                cond.set_condition(status, "Succeeded", "True", "MPIJobSucceeded", msg, now, mpi=True)
            elif done == "Failed":
                fc = next((c for c in lst.get("conditions") or [] if c.get("type") == "Failed"), {})
                reason = fc.get("reason") or "MPIJobFailed"
                msg = fc.get("message") or "MPIJob %s/%s has failed" % (ns, name)
                if reason == "BackoffLimitExceeded":
                    failed = [p for p in lpods if (p.get("status") or {}).get("phase") == "Failed"]
                    if failed:
                        last = max(failed, key=lambda p: util.meta(p).get("creationTimestamp") or "")
                        reason += "/" + ((last.get("status") or {}).get("reason") or "")
                        msg += ": " + ((last.get("status") or {}).get("message") or "")
                if not cond.is_true(status, "Failed"):
                    self.event(job, "Warning", reason, msg)
                status.setdefault("completionTime", now)
                cond.set_condition(status, "Failed", "True", reason, msg, now, mpi=True)
            elif launcher_running:
                ls["active"] = launcher_running
            rs["Launcher"] = ls
        ws = {}
        running = 0
        for w in workers:
            phase = (w.get("status") or {}).get("phase")
            if phase == "Failed":
                ws["failed"] = ws.get("failed", 0) + 1
            elif phase == "Succeeded":
                ws["succeeded"] = ws.get("succeeded", 0) + 1
            elif phase == "Running":
                running += 1
                ws["active"] = ws.get("active", 0) + 1
        rs["Worker"] = ws
        if suspended:
            cond.set_condition(status, "Running", "False", "MPIJobSuspended",
                               "MPIJob %s/%s is suspended." % (ns, name), now, mpi=True)
        elif cond.is_finished(status):
            if cond.find(status, "Running") is None:
                at = status.get("completionTime") or now
                status["conditions"].append({
                    "type": "Running", "status": "False", "reason": "MPIJobRunning",
                    "message": "MPIJob %s/%s is finished but Running condition was never set." % (ns, name),
                    "lastUpdateTime": at, "lastTransitionTime": at})
        elif launcher is not None and launcher_running >= 1 and running == len(workers):
            msg = "MPIJob %s/%s is running." % (ns, name)
            if cond.set_condition(status, "Running", "True", "MPIJobRunning", msg, now, mpi=True):
                self.event(job, "Normal", "MPIJobRunning", "MPIJob %s/%s is running" % (ns, name))
        self._write(job, status)

    def _write(self, job, status):
        if status != (job.get("status") or {}):
            self.rt.set_status("mpijobs.kubeflow.org", job, status)
