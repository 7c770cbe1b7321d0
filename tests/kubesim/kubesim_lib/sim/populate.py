"""What exists before kubesim serves: nodes, the --jobs fleet of TFJobs in a
spread of states, and the --demo cluster.

Pre-made TFJobs are produced by running the operator's own Reconcile (and the
kubelet's status code) against a Staging runtime at moments in the past, so
their pods, services, labels, env and conditions are exactly what the live
controllers make; the live controllers then adopt them (running containers
continue to their end, pending pods get scheduled when they can).

Time in the past is simulated time too: a job that ran 20 simulated minutes
ran 20/speed wall minutes, so ages and durations agree with what the live
simulation would have produced.
"""

import time

from . import kubeflow_kinds as kubeflow
from . import loglines, podstate, scheduler, util
from .kubeflow_kinds import KINDS
from .training_operator import StagedReconcile
from .nodes import cluster_nodes
from .staging import Staging, StagedOperator

STATES = (["Succeeded"] * 11 + ["Failed"] * 2 + ["Running"] * 5 + ["Starting"] + ["Pending"])
FLEET_IMAGE = "tensorflow/tensorflow:2.15.0-gpu"
FLEET_LOG_RATE = 0.05          # lines per simulated second: 10,000 live jobs stay cheap
FINISHED_LOG_TAIL = 5


def opt(opts, name, default):
    v = getattr(opts, name, None)
    return default if v is None else v


def populate(store, logs, opts):
    seed = opt(opts, "seed", 0)
    demo = bool(opt(opts, "demo", False))
    n = int(opt(opts, "nodes", 4 if demo else 2))
    gpus = int(opt(opts, "gpus", 8))
    cpu_nodes = int(opt(opts, "cpu_nodes", 1 if demo else 0))
    nodes = cluster_nodes(n, gpus, cpu_nodes, seed)
    for node in nodes:
        store.create("nodes", node)
    jobs = int(opt(opts, "jobs", 0) or 0)
    if jobs:
        Fleet(opts, nodes).build(jobs).store_into(store, logs)
    if opt(opts, "kueue", False):
        from .kueue import populate as populate_kueue
        populate_kueue(store, opts)
    if demo:
        from .demo import populate_demo
        populate_demo(store, logs, opts, nodes)


class Placement:
    """First-fit GPU placement over the nodes for pre-made running pods."""

    def __init__(self, nodes):
        self.nodes = [(util.meta(x)["name"], util.quantity(x["status"]["allocatable"].get(util.GPU)),
                       int(x["status"]["allocatable"]["pods"])) for x in nodes]
        self.gpu_free = {name: g for name, g, _ in self.nodes}
        self.pods_free = {name: p for name, _, p in self.nodes}
        self.cursor = 0
        self.rr = 0

    def place(self, want):
        """Node names for pods wanting `want` GPUs each, all or nothing."""
        chosen = []
        free = dict(self.gpu_free)
        pods = dict(self.pods_free)
        i = self.cursor
        for w in want:
            for step in range(len(self.nodes)):
                name = self.nodes[(i + step) % len(self.nodes)][0]
                if free[name] >= w and pods[name] > 0:
                    free[name] -= w
                    pods[name] -= 1
                    chosen.append(name)
                    i = (i + step) % len(self.nodes)
                    break
            else:
                return None
        self.gpu_free, self.pods_free, self.cursor = free, pods, i
        return chosen

    def any_node(self, gpus):
        """A node that could hold the pod, for pods that finished long ago."""
        for _ in range(len(self.nodes)):
            self.rr = (self.rr + 1) % len(self.nodes)
            name, cap, _ = self.nodes[self.rr]
            if cap >= gpus:
                return name
        return None


class Fleet:
    def __init__(self, opts, nodes):
        self.opts = opts
        self.seed = opt(opts, "seed", 0)
        self.speed = max(float(opt(opts, "speed", 1.0) or 1.0), 1e-6)
        self.nodes = nodes
        self.node_by_name = {util.meta(x)["name"]: x for x in nodes}
        self.max_gpus = max([util.quantity(x["status"]["allocatable"].get(util.GPU)) for x in nodes] or [0])
        self.place = Placement(nodes)
        self.staging = Staging(self.seed, self.speed, opts)
        self.op = StagedOperator(self.staging)
        self.logs = []             # (ns, pod, container, [last lines]) of finished containers
        self.ip_next = {}          # node -> pods given an address so far
        self.now = time.time()

    def ago(self, sim_seconds):
        """The unix time sim_seconds of simulated time ago."""
        return self.now - sim_seconds / self.speed

    def build(self, count):
        # Running and starting jobs first, so they get the GPUs.
        order = sorted(range(count), key=lambda i: 0 if STATES[i % len(STATES)] in ("Running", "Starting") else 1)
        for i in order:
            self.job(i)
        return self

    def job(self, i, name=None, state=None):
        state = state or STATES[i % len(STATES)]
        h = util.stable_int(self.seed, "fleet", i)
        name = name or "tfjob-%05d" % i
        chief = i % 2 == 0
        workers = 4 if chief else 5
        want_gpu = 1
        placement = None
        if state in ("Running", "Starting"):
            placement = self.place.place([want_gpu] * (workers + (1 if chief else 0)))
            if placement is None:
                state = "Queued"   # the cluster is full: it waits for GPUs like any pending job
        if state == "Pending":
            want_gpu = int(self.max_gpus) + 1
        # Simulated ages (seconds before now).
        if state in ("Succeeded", "Failed"):
            created = 3600 + h % (47 * 3600)
            duration = 600 + h % 3000
        elif state == "Running":
            created = 300 + h % 7200
            duration = None
        elif state == "Starting":
            created = 1 + h % 2
            duration = None
        else:
            created = 60 + h % 1800
            duration = None
        started = created - 2
        if duration:
            run_total = (started - 1) - (created - duration)
        else:
            run_total = started + 600 + h % 3600
        env = [{"name": "SIM_RUN_SECONDS", "value": str(run_total)},
               {"name": "SIM_LOG_LINES_PER_SECOND", "value": str(FLEET_LOG_RATE)}]
        container = {"name": "tensorflow", "image": FLEET_IMAGE,
                     "command": ["python", "/opt/model/train.py", "--epochs", str(5 + i % 20)],
                     "env": env,
                     "resources": {"limits": {util.GPU: str(want_gpu)}},
                     "ports": [{"name": "tfjob-port", "containerPort": 2222}]}
        specs = {}
        if chief:
            specs["Chief"] = {"replicas": 1, "restartPolicy": "Never",
                              "template": {"spec": {"containers": [dict(container)]}}}
        wc = dict(container)
        specs["Worker"] = {"replicas": workers, "restartPolicy": "Never",
                           "template": {"spec": {"containers": [wc]}}}
        job = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
               "metadata": {"name": name, "namespace": "default",
                            "labels": {"app": "tfjob", "release": name}},
               "spec": {"runPolicy": {"cleanPodPolicy": "None"}, "successPolicy": "",
                        "tfReplicaSpecs": specs}}
        self.staging.clock = self.ago(created)
        job = self.staging.create("tfjobs.kubeflow.org", job)
        k = KINDS["tfjobs.kubeflow.org"]
        specs_d = kubeflow.replica_specs(job, k)
        # Pass 1: the operator creates pods and services.
        StagedReconcile(self.op, k, job, specs_d, self.ago(created)).run()
        pods = self.staging.owned(util.meta(job)["uid"], "pods")
        pods.sort(key=lambda p: util.meta(p)["name"])
        if state in ("Pending", "Queued"):
            self.pending(pods, want_gpu)
            return
        nodes = placement or [self.place.any_node(want_gpu) for _ in pods]
        for pod, node in zip(pods, nodes):
            pod["spec"]["nodeName"] = node
        if state == "Starting":
            for pod in pods:
                self.pod_status(pod, "creating", started, None, 0)
            return
        # Pass 2: pods running.
        for pod in pods:
            self.pod_status(pod, "running", started, None, 0)
        StagedReconcile(self.op, k, job, specs_d, self.ago(started - 5)).run()
        if state == "Running":
            return
        end = created - duration
        for pod in pods:
            # A failed job: its chief (or worker 0) exited 1, the rest 0.
            labels = util.meta(pod)["labels"]
            code = 1 if state == "Failed" and labels.get(kubeflow.ROLE_LABEL) == "master" else 0
            self.pod_status(pod, "done", started, end, code)
        StagedReconcile(self.op, k, job, specs_d, self.ago(end - 1)).run()

    def pending(self, pods, want_gpu):
        # What the scheduler will say: no node has that many GPUs free.
        n = len(self.nodes)
        msg = scheduler.fit_error_message(n, {"Insufficient nvidia.com/gpu": n},
                                          {scheduler.NO_VICTIMS: n}) if n else \
            "no nodes available to schedule pods"
        for pod in pods:
            st = pod.setdefault("status", {})
            st["conditions"] = [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                 "lastTransitionTime": util.meta(pod)["creationTimestamp"],
                                 "reason": "Unschedulable", "message": msg}]

    def pod_status(self, pod, stage, started, ended, code):
        node = self.node_by_name.get(pod["spec"].get("nodeName")) or {}
        run = podstate.PodRun(pod, pod["spec"].get("nodeName"))
        t0 = util.rfc3339(self.ago(started))
        run.start_time = t0
        ns, name = util.key_of(pod)
        if stage != "creating" and node:
            run.sandbox = True
            k = self.ip_next.get(run.node, 0)
            self.ip_next[run.node] = k + 1
            run.ip = "%s.%d" % (".".join(node["spec"]["podCIDR"].split(".")[:3]), 2 + k % 253)
        for c in run.mains:
            if stage == "creating":
                continue
            c.cid = util.container_id(run.uid, c.name, 0)
            c.ever_started = True
            c.started_at = util.rfc3339(self.ago(started - 1))
            if stage == "running":
                c.state = "running"
            else:
                c.state = "terminated"
                c.exit = code
                c.finished_at = util.rfc3339(self.ago(ended))
                lines = loglines.expected_log(self.seed, ns, name, c.name, 0, c.run_seconds, c.rate,
                                              code, c.line_bytes, tail=FINISHED_LOG_TAIL)
                self.logs.append((ns, name, c.name, lines))
        when = t0 if stage != "done" else util.rfc3339(self.ago(ended))
        fields = podstate.status_fields(run, podstate.internal_ip(node), when)
        pod["status"] = podstate.merge_status(pod.get("status") or {}, fields, t0)

    def store_into(self, store, logs):
        self.staging.store_into(store)
        for ns, name, container, lines in self.logs:
            for line in lines:
                logs.append(ns, name, container, 0, line)
            logs.finish(ns, name, container, 0)

