"""What a kubelet knows of a pod and its containers, and the pod status that
follows from it (phase, the four kubelet-owned conditions, container
statuses). Pure: the kubelet (kubelet.py) drives it, and populate uses the
same code to write the status of pods that ran in the past.
"""

from . import util

DEFAULT_RUN = 30.0
DEFAULT_INIT_RUN = 1.0
DEFAULT_START = 2.0
DEFAULT_RATE = 2.0


def go_duration(seconds):
    """time.Duration.String() of a duration truncated to milliseconds."""
    ms = int(seconds * 1000)
    if ms < 1000:
        return "%dms" % ms
    s = ms / 1000.0
    if s < 60:
        return ("%.3f" % s).rstrip("0").rstrip(".") + "s"
    m, s = divmod(s, 60)
    if m < 60:
        return "%dm%ss" % (m, ("%.3f" % s).rstrip("0").rstrip("."))
    h, m = divmod(m, 60)
    return "%dh%dm%ss" % (h, m, ("%.3f" % s).rstrip("0").rstrip("."))


class Container:
    def __init__(self, spec, is_init, forever):
        self.spec = spec
        self.name = spec.get("name")
        self.image = spec.get("image") or ""
        self.image_status, self.image_id = util.image_ref(self.image)
        self.is_init = is_init
        self.start_seconds = util.env_float(spec, "SIM_START_SECONDS", DEFAULT_START)
        run = util.env_value(spec, "SIM_RUN_SECONDS")
        if run is None and forever:
            self.run_seconds = None
        else:
            self.run_seconds = util.env_float(spec, "SIM_RUN_SECONDS",
                                              DEFAULT_INIT_RUN if is_init else DEFAULT_RUN)
        self.exit_code = util.env_int(spec, "SIM_EXIT_CODE", 0)
        # SIM_OOM_KILLED: the process is killed for lack of memory when it ends, as
        # the kernel's OOM killer does (exit code 137, reason OOMKilled)
        self.oom = util.env_value(spec, "SIM_OOM_KILLED") not in (None, "", "0")
        if self.oom:
            self.exit_code = 137
        # SIM_PULL_FAILS: the image cannot be pulled (not found): the container
        # waits in ErrImagePull, then ImagePullBackOff, and never starts
        self.pull_fails = util.env_value(spec, "SIM_PULL_FAILS") not in (None, "", "0")
        self.rate = util.env_float(spec, "SIM_LOG_LINES_PER_SECOND", DEFAULT_RATE)
        self.line_bytes = util.env_int(spec, "SIM_LOG_LINE_BYTES", 0)
        # SIM_LAST_WORDS_HEX: bytes (in hex) the process writes last, as they are:
        # NUL, escape sequences, what is not UTF-8 (a hostile or broken program)
        self.last_words = bytes.fromhex(util.env_value(spec, "SIM_LAST_WORDS_HEX") or "")
        self.state = "waiting"
        self.reason = "ContainerCreating"
        self.message = None
        self.restarts = 0
        self.started_at = None
        self.finished_at = None
        self.exit = None
        self.last = None           # lastState.terminated
        self.cid = None
        self.ever_started = False
        self.start_mono = None
        self.lines = 0
        self.profile = None
        self.token = 0
        self.backoff = None        # current CrashLoopBackOff window, sim seconds
        self.last_fail_mono = None

    def will_restart(self, policy):
        if self.is_init:
            return self.exit != 0 and policy != "Never"
        if policy == "Always":
            return True
        if policy == "OnFailure":
            return self.exit != 0
        return False

    def status(self):
        if self.is_init:
            ready = self.state == "terminated" and self.exit == 0
        else:
            ready = self.state == "running"
        st = {"name": self.name, "image": self.image_status,
              "imageID": self.image_id if self.ever_started else "",
              "ready": ready, "restartCount": self.restarts,
              "started": self.state == "running",
              "lastState": {"terminated": self.last} if self.last else {}}
        if self.cid:
            st["containerID"] = self.cid
        if self.state == "running":
            st["state"] = {"running": {"startedAt": self.started_at}}
        elif self.state == "terminated":
            st["state"] = {"terminated": self.terminated()}
        else:
            w = {"reason": self.reason}
            if self.message:
                w["message"] = self.message
            st["state"] = {"waiting": w}
        return st

    def terminated(self):
        reason = "Completed" if self.exit == 0 else "OOMKilled" if self.oom else "Error"
        return {"exitCode": self.exit, "reason": reason,
                "startedAt": self.started_at, "finishedAt": self.finished_at,
                "containerID": self.cid}


class PodRun:
    """What a kubelet knows of one of its pods."""

    def __init__(self, pod, node):
        m = util.meta(pod)
        spec = pod.get("spec") or {}
        self.key = util.key_of(pod)
        self.uid = m.get("uid")
        self.node = node
        self.policy = spec.get("restartPolicy") or "Always"
        self.grace = spec.get("terminationGracePeriodSeconds", 30)
        forever = long_running(pod)
        self.inits = [Container(c, True, False) for c in spec.get("initContainers") or []]
        self.mains = [Container(c, False, forever) for c in spec.get("containers") or []]
        self.init_index = 0 if self.inits else None   # None = init done
        self.ip = None
        self.ip_freed = False
        self.start_time = None
        self.sandbox = False
        self.deleting = False
        self.finished = False
        self.conds = {}     # type -> [status, lastTransitionTime, reason, message]
        self.pull_policy = {c.name: (c.spec.get("imagePullPolicy") or
                                     util.default_pull_policy(c.image))
                            for c in self.inits + self.mains}


def long_running(pod):
    ref = util.controller_ref(pod) or {}
    if ref.get("kind") == "ReplicaSet":
        return True
    labels = util.meta(pod).get("labels") or {}
    if labels.get("training.kubeflow.org/operator-name") in ("mpi-operator", "mpijob-controller"):
        role = labels.get("training.kubeflow.org/job-role") or labels.get(
            "training.kubeflow.org/replica-type")
        return role == "worker"
    return False


def profile_kind(c, pod):
    if c.is_init:
        return "init"
    text = " ".join([c.image] + list(c.spec.get("command") or []) + list(c.spec.get("args") or []))
    if "tensorboard" in text:
        return "tensorboard"
    if c.run_seconds is None and long_running(pod) and (util.controller_ref(pod) or {}).get(
            "kind") != "ReplicaSet":
        return "sshd"
    return "train"


MANAGED_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")


def pod_phase(run):
    if run.init_index is not None:
        c = run.inits[run.init_index]
        if c.state == "terminated" and c.exit != 0 and run.policy == "Never":
            return "Failed"
        return "Pending"
    if any(not c.ever_started for c in run.mains):
        return "Pending"
    if any(c.state == "running" for c in run.mains):
        return "Running"
    if any(c.state == "waiting" or (c.state == "terminated" and c.will_restart(run.policy)
                                    and not run.deleting) for c in run.mains):
        return "Running"
    if all(c.exit == 0 for c in run.mains):
        return "Succeeded"
    return "Failed"


def _cond(run, ctype, ok, now, reason=None, message=None):
    status = "True" if ok else "False"
    cur = run.conds.get(ctype)
    if cur is None or cur[0] != status:
        cur = [status, now, None, None]
    cur[2], cur[3] = (None, None) if ok else (reason, message)
    run.conds[ctype] = cur
    c = {"type": ctype, "status": status, "lastProbeTime": None, "lastTransitionTime": cur[1]}
    if cur[2]:
        c["reason"] = cur[2]
    if cur[3]:
        c["message"] = cur[3]
    return c


def status_fields(run, host_ip, now):
    """The part of pod.status a kubelet owns, for the pod's current state."""
    phase = pod_phase(run)
    terminal = phase in ("Succeeded", "Failed")
    init_pending = [c.name for c in run.inits if not (c.state == "terminated" and c.exit == 0)]
    unready = [c.name for c in run.mains if c.state != "running"]
    conds = [_cond(run, "PodReadyToStartContainers", run.sandbox and not terminal, now)]
    if run.inits:
        conds.append(_cond(run, "Initialized", not init_pending, now, "ContainersNotInitialized",
                           "containers with incomplete status: [%s]" % " ".join(init_pending)))
    else:
        conds.append(_cond(run, "Initialized", True, now))
    if terminal:
        conds.append(_cond(run, "Ready", False, now, "PodCompleted"))
        conds.append(_cond(run, "ContainersReady", False, now, "PodCompleted"))
    else:
        msg = "containers with unready status: [%s]" % " ".join(unready)
        conds.append(_cond(run, "Ready", not unready, now, "ContainersNotReady", msg))
        conds.append(_cond(run, "ContainersReady", not unready, now, "ContainersNotReady", msg))
    f = {"phase": phase, "conditions": conds, "startTime": run.start_time,
         "containerStatuses": [c.status() for c in run.mains]}
    if host_ip:
        f["hostIP"] = host_ip
        f["hostIPs"] = [{"ip": host_ip}]
    if run.ip:
        f["podIP"] = run.ip
        f["podIPs"] = [{"ip": run.ip}]
    if run.inits:
        f["initContainerStatuses"] = [c.status() for c in run.inits]
    return f


def merge_status(cur, fields, start_time):
    """cur (the stored status) with the kubelet's fields; conditions other
    components own (PodScheduled, DisruptionTarget) are kept."""
    st = dict(cur)
    other = [c for c in st.get("conditions") or [] if c.get("type") not in MANAGED_CONDITIONS]
    if not any(c.get("type") == "PodScheduled" for c in other):
        other.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                      "lastTransitionTime": start_time})
    st.update(fields)
    st["conditions"] = fields["conditions"] + other
    return st


def internal_ip(node):
    for a in (node.get("status") or {}).get("addresses") or []:
        if a.get("type") == "InternalIP":
            return a.get("address")
    return None
