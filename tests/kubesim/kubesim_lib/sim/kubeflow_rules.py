"""What differs between the training-operator's kinds: the env each
framework's SetClusterSpec injects, and each kind's UpdateJobStatus with its
own condition messages (upstream they are not uniform: TFJob says
"TFJob default/mnist is running.", PyTorchJob "PyTorchJob mnist is
running.", and so on). Mixed into Reconcile.
"""

import json

from . import conditions as cond
from .kubeflow_kinds import TYPE_LABEL, exit_code_of, gen_name, replica_index


class KindRules:
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
