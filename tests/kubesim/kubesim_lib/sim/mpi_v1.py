"""training-operator's own MPIJob (kubeflow.org/v1): workers NAME-worker-N
first (sleep 365d unless given a command), then the launcher pod
NAME-launcher with the kubectl-delivery init container; the job's status
follows the launcher (Running once it and every worker run). MPIJobs of
apiVersion kubeflow.org/v2beta1 are mpi-operator's, in mpi.py.
"""

from . import util
from .kubeflow import Reconcile
from .kubeflow_kinds import API, INDEX_LABEL, KUBECTL_DELIVERY, ROLE_LABEL, TYPE_LABEL, replica_index


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
