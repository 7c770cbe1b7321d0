"""The simulated kubelets of every node (one controller plays them all).

A pod bound to a node goes: Pending with its containers waiting in
ContainerCreating (SIM_START_SECONDS, default 2) → init containers one by one
(Init:0/1 ...) → main containers Running with a pod IP, Ready → each
container ends after SIM_RUN_SECONDS (default 30) with SIM_EXIT_CODE
(default 0) → the pod's phase per restartPolicy. While running, a container
prints SIM_LOG_LINES_PER_SECOND lines (default 2) into the LogStore, one
instance per restart, and at its end SIM_LAST_WORDS_HEX's bytes, if any. Restarts follow the kubelet: restartCount+1,
lastState.terminated, a CrashLoopBackOff wait of 10 s doubling to 5 min
(the first restart is immediate), a new container ID and log instance.

Long-running containers: a container with no SIM_RUN_SECONDS in its env runs
until deleted when its pod belongs to a ReplicaSet (TensorBoard and other
Deployments) or is an MPI worker (sshd); every other container ends after 30 s.

Deletion: a pod with metadata.deletionTimestamp gets Killing events, its
containers stop within min(grace period, 1 s), the final status is written
and the pod object is removed (what the apiserver does once the kubelet
reports the pod terminated).

Events (source kubelet, host = node): Pulling, Pulled (a pull time, or
"already present on machine" for an image the node has), Created, Started,
Killing, BackOff, with the messages of kubelet 1.32.

Efficiency: per container instance there are at most an exit timer and a log
timer that fires no more than ten times a second (wall clock) and writes all
lines due; nothing ever walks all pods.
"""

import math
import time

from . import loglines, util
from .podstate import (PodRun, go_duration, internal_ip, merge_status, pod_phase,
                       profile_kind, status_fields)
from .runtime import Controller

COMPONENT = "kubelet"
STOP_SECONDS = 1.0
RESTART_DELAY = 1.0       # the "immediate" first restart: the next sync
BACKOFF_FIRST = 10.0
BACKOFF_MAX = 300.0
LOG_TICK_MIN_WALL = 0.1
BACKLOG_MAX = 20          # lines written at once for an adopted running container
GRACE_STOP_EXIT = 143     # SIGTERM


class Kubelet(Controller):
    name = COMPONENT
    resources = ("nodes", "pods")

    def __init__(self, rt):
        super().__init__(rt)
        self.nodes = {}        # name -> node object
        self.pods = {}         # pod key -> PodRun
        self.waiting = {}      # node name -> {pod key}: bound to a node not (yet) there
        self.ips = {}          # node name -> set of last octets in use
        self.images = {}       # node name -> set of images present

    # ---- watching ----

    def observe(self, ev):
        if ev.resource == "nodes":
            name = util.meta(ev.obj).get("name")
            if ev.type == "DELETED":
                self.nodes.pop(name, None)
                return
            self.nodes[name] = ev.obj
            for key in self.waiting.pop(name, ()):
                self.enqueue(key)
            return
        key = util.key_of(ev.obj)
        if ev.type == "DELETED":
            run = self.pods.pop(key, None)
            if run is not None and run.uid == util.meta(ev.obj).get("uid"):
                self._forget(run)
            return
        if (ev.obj.get("spec") or {}).get("nodeName"):
            run = self.pods.get(key)
            if run is None or run.uid != util.meta(ev.obj).get("uid") or (
                    util.meta(ev.obj).get("deletionTimestamp") and not run.deleting):
                self.enqueue(key)

    def reconcile(self, key):
        pod = self.rt.get("pods", *key)
        if pod is None:
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        uid = util.meta(pod).get("uid")
        run = self.pods.get(key)
        if run is not None and run.uid != uid:
            self._forget(run)
            run = None
        deleting = bool(util.meta(pod).get("deletionTimestamp"))
        if run is None:
            if deleting and (util.is_terminal(pod) or node_name not in self.nodes):
                # Nothing runs for it here: the deletion completes at once.
                self.rt.delete("pods", *key)
                return
            if node_name not in self.nodes:
                self.waiting.setdefault(node_name, set()).add(key)
                return
            if util.is_terminal(pod):
                return
            run = PodRun(pod, node_name)
            self.pods[key] = run
            if not self._adopt(run, pod):
                self._begin(run, pod)
        if deleting and not run.deleting:
            self._kill(run)

    # ---- lifecycle ----

    def _begin(self, run, pod):
        run.start_time = (pod.get("status") or {}).get("startTime") or util.rfc3339()
        first = run.inits[0] if run.inits else None
        for c in run.mains:
            c.reason = "PodInitializing" if first else "ContainerCreating"
        for c in run.inits:
            c.reason = "PodInitializing"
        self._write(run)
        if first is not None:
            self._pull(run, [first])
            self.rt.after(first.start_seconds, self._start_containers, run, [first])
        else:
            self._pull(run, run.mains)
            self.rt.after(max([c.start_seconds for c in run.mains] or [0]),
                          self._start_containers, run, list(run.mains))

    def _current(self, run):
        return self.pods.get(run.key) is run and not run.deleting

    def _pull(self, run, containers):
        present = self.images.setdefault(run.node, set())
        for c in containers:
            if run.pull_policy.get(c.name) == "Always" or c.image not in present:
                self._event(run, c, "Normal", "Pulling", 'Pulling image "%s"' % c.image)

    def _pulled(self, run, c, waited):
        present = self.images.setdefault(run.node, set())
        if run.pull_policy.get(c.name) == "Always" or c.image not in present:
            d = go_duration(waited / self.rt.speed)
            self._event(run, c, "Normal", "Pulled",
                        'Successfully pulled image "%s" in %s (%s including waiting). '
                        'Image size: %d bytes.' % (c.image, d, d, util.image_size(c.image)))
            present.add(c.image)
        else:
            self._event(run, c, "Normal", "Pulled",
                        'Container image "%s" already present on machine' % c.image)

    def _start_containers(self, run, containers):
        if not self._current(run):
            return
        if not run.sandbox:
            run.sandbox = True
            run.ip = self._alloc_ip(run.node)
        for c in containers:
            if c.pull_fails:
                self._pull_failed(run, c)
                continue
            self._pulled(run, c, c.start_seconds)
            self._run_container(run, c)
        self._write(run)

    def _pull_failed(self, run, c):
        """The registry has no such image: ErrImagePull with the runtime's error,
        then ImagePullBackOff, as kubelet 1.32 says them (its events: Failed, BackOff)."""
        ref = util.image_ref(c.image)[0]
        err = ('rpc error: code = NotFound desc = failed to pull and unpack image "%s": '
               'failed to resolve reference "%s": %s: not found' % (ref, ref, ref))
        c.reason, c.message = "ErrImagePull", err
        self._event(run, c, "Warning", "Failed", 'Failed to pull image "%s": %s' % (c.image, err))
        self._event(run, c, "Warning", "Failed", "Error: ErrImagePull")
        self.rt.after(1.0, self._pull_backoff, run, c)

    def _pull_backoff(self, run, c):
        if not self._current(run):
            return
        c.reason = "ImagePullBackOff"
        c.message = 'Back-off pulling image "%s"' % c.image
        self._event(run, c, "Normal", "BackOff", c.message)
        self._event(run, c, "Warning", "Failed", "Error: ImagePullBackOff")
        self._write(run)

    def _run_container(self, run, c, restarted=False):
        pod = self.rt.get("pods", *run.key) or {}
        if restarted:
            c.restarts += 1
        c.token += 1
        c.state = "running"
        c.message = None
        c.ever_started = True
        c.started_at = util.rfc3339()
        c.finished_at = None
        c.exit = None
        c.cid = util.container_id(run.uid, c.name, c.restarts)
        c.start_mono = time.monotonic()
        c.lines = 0
        self._event(run, c, "Normal", "Created", "Created container: %s" % c.name)
        self._event(run, c, "Normal", "Started", "Started container %s" % c.name)
        self._open_log(run, c, pod)
        if c.run_seconds is not None:
            self.rt.after(c.run_seconds, self._exit, run, c, c.token, None)

    def _open_log(self, run, c, pod):
        ns, name = run.key
        c.profile = loglines.Profile(profile_kind(c, pod), self.rt.seed, ns, name, c.name,
                                     c.restarts, c.line_bytes, image=c.image,
                                     run_seconds=c.run_seconds, rate=c.rate)
        for line in c.profile.startup():
            self.rt.logs.append(ns, name, c.name, c.restarts, line)
        if c.profile.periodic():
            self._log_tick(run, c, c.token)

    def _due_lines(self, c):
        elapsed = (time.monotonic() - c.start_mono) * self.rt.speed
        if c.run_seconds is not None:
            elapsed = min(elapsed, c.run_seconds)
            cap = loglines.training_lines(c.run_seconds, c.rate)
        else:
            cap = None
        n = int(math.floor(elapsed * c.rate + 1e-9)) + 1
        if cap is not None:
            n = min(n, cap)
        return n

    def _write_lines(self, run, c, upto):
        ns, name = run.key
        for i in range(c.lines, upto):
            self.rt.logs.append(ns, name, c.name, c.restarts, c.profile.line(i))
        c.lines = max(c.lines, upto)

    def _log_tick(self, run, c, token):
        if self.pods.get(run.key) is not run or c.token != token or c.state != "running":
            return
        self._write_lines(run, c, self._due_lines(c))
        if c.run_seconds is not None and c.lines >= loglines.training_lines(c.run_seconds, c.rate):
            return
        nxt = c.lines / c.rate   # sim time of the next line, from start
        wait_wall = max(nxt / self.rt.speed - (time.monotonic() - c.start_mono), LOG_TICK_MIN_WALL)
        self.rt.after(wait_wall * self.rt.speed, self._log_tick, run, c, token)

    def _exit(self, run, c, token, code):
        """Container c's process ended (code None = its SIM_EXIT_CODE)."""
        if self.pods.get(run.key) is not run or c.token != token or c.state != "running":
            return
        ns, name = run.key
        c.exit = c.exit_code if code is None else code
        if c.profile is not None:
            if c.profile.periodic() and code is None:
                self._write_lines(run, c, loglines.training_lines(c.run_seconds, c.rate))
            final = c.profile.final(c.exit, c.lines) if code is None else None
            if final is not None:
                self.rt.logs.append(ns, name, c.name, c.restarts, final)
            if c.last_words and code is None:
                self.rt.logs.append(ns, name, c.name, c.restarts, c.last_words)
        self.rt.logs.finish(ns, name, c.name, c.restarts)
        c.state = "terminated"
        c.finished_at = util.rfc3339()
        c.token += 1
        if run.deleting:
            return
        if c.will_restart(run.policy):
            self._schedule_restart(run, c)
        elif c.is_init and c.exit == 0:
            self._next_init(run)
        self._write(run)

    def _schedule_restart(self, run, c):
        now = time.monotonic()
        if c.last_fail_mono is not None and \
                (now - c.last_fail_mono) * self.rt.speed > 2 * BACKOFF_MAX:
            c.backoff = None   # the kubelet's backoff entry expired
        c.last_fail_mono = now
        if c.backoff is None:
            delay = RESTART_DELAY
            c.backoff = BACKOFF_FIRST
        else:
            delay = c.backoff
            c.backoff = min(c.backoff * 2, BACKOFF_MAX)
            ns, name = run.key
            pod_ref = "%s_%s(%s)" % (name, ns, run.uid)
            c.last = c.terminated()
            c.state = "waiting"
            c.reason = "CrashLoopBackOff"
            c.message = "back-off %s restarting failed container=%s pod=%s" % (
                go_duration(delay), c.name, pod_ref)
            self._event(run, c, "Warning", "BackOff",
                        "Back-off restarting failed container %s in pod %s" % (c.name, pod_ref))
        self.rt.after(delay, self._restart, run, c, c.token)

    def _restart(self, run, c, token):
        if not self._current(run) or c.token != token:
            return
        if c.state == "terminated":
            c.last = c.terminated()
        if run.pull_policy.get(c.name) == "Always":
            self._pull(run, [c])
        self._pulled(run, c, 0.5)
        self._run_container(run, c, restarted=True)
        self._write(run)

    def _next_init(self, run):
        run.init_index += 1
        if run.init_index < len(run.inits):
            c = run.inits[run.init_index]
            self._pull(run, [c])
            self.rt.after(c.start_seconds, self._start_containers, run, [c])
            return
        run.init_index = None
        for c in run.mains:
            c.reason = "ContainerCreating"
        self._pull(run, run.mains)
        self.rt.after(max([c.start_seconds for c in run.mains] or [0]),
                      self._start_containers, run, list(run.mains))

    def _kill(self, run):
        run.deleting = True
        pod = self.rt.get("pods", *run.key)
        grace = run.grace
        if pod is not None:
            g = util.meta(pod).get("deletionGracePeriodSeconds")
            if g is not None:
                grace = g
        running = [c for c in run.inits + run.mains if c.state == "running"]
        for c in running:
            self._event(run, c, "Normal", "Killing", "Stopping container %s" % c.name)
        self.rt.after(min(float(grace), STOP_SECONDS) if running else 0.0, self._killed, run)

    def _killed(self, run):
        if self.pods.get(run.key) is not run:
            return
        for c in run.inits + run.mains:
            if c.state == "running":
                self._exit(run, c, c.token, GRACE_STOP_EXIT)
        self._write(run)
        ns, name = run.key
        self.rt.delete("pods", ns, name)
        self.pods.pop(run.key, None)
        self._forget(run)

    def _forget(self, run):
        ns, name = run.key
        for c in run.inits + run.mains:
            c.token += 1
            if c.state == "running":
                self.rt.logs.finish(ns, name, c.name, c.restarts)
        self._free_ip(run)
        self.rt.logs.forget_pod(ns, name)

    # ---- adoption of pods that are already running (populate, restarts of kubesim) ----

    def _adopt(self, run, pod):
        st = pod.get("status") or {}
        if st.get("phase") != "Running":
            return False
        statuses = {s.get("name"): s for s in st.get("containerStatuses") or []}
        if not all(statuses.get(c.name, {}).get("state", {}).get("running") for c in run.mains):
            return False
        run.init_index = None
        run.sandbox = True
        run.start_time = st.get("startTime")
        run.ip = self._claim_ip(run.node, st.get("podIP"))
        self.images.setdefault(run.node, set()).update(c.image for c in run.inits + run.mains)
        for c in run.inits:
            c.state, c.exit, c.ever_started = "terminated", 0, True
            s = {x.get("name"): x for x in st.get("initContainerStatuses") or []}.get(c.name, {})
            t = (s.get("state") or {}).get("terminated") or {}
            c.started_at = t.get("startedAt", run.start_time)
            c.finished_at = t.get("finishedAt", run.start_time)
            c.cid = s.get("containerID") or util.container_id(run.uid, c.name, 0)
        now_wall, now_mono = time.time(), time.monotonic()
        for c in run.mains:
            s = statuses[c.name]
            c.state = "running"
            c.ever_started = True
            c.restarts = int(s.get("restartCount") or 0)
            c.started_at = s["state"]["running"].get("startedAt") or util.rfc3339()
            c.cid = s.get("containerID") or util.container_id(run.uid, c.name, c.restarts)
            c.last = (s.get("lastState") or {}).get("terminated")
            began = util.parse_rfc3339(c.started_at) or now_wall
            c.start_mono = now_mono - max(0.0, now_wall - began)
            c.token += 1
            c.profile = loglines.Profile(profile_kind(c, pod), self.rt.seed, run.key[0],
                                         run.key[1], c.name, c.restarts, c.line_bytes,
                                         image=c.image, run_seconds=c.run_seconds, rate=c.rate)
            if c.profile.periodic():
                due = self._due_lines(c)
                have = self.rt.logs.get(run.key[0], run.key[1], c.name, c.restarts)
                # a log kept across a restart goes on from its last line: the
                # container kept running, so what it printed meanwhile comes at once
                c.lines = (max(0, due - BACKLOG_MAX) if have is None else
                           max(0, len(have.lines) - len(c.profile.startup())))
                if have is None:
                    for line in c.profile.startup():
                        self.rt.logs.append(run.key[0], run.key[1], c.name, c.restarts, line)
                self._log_tick(run, c, c.token)
            if c.run_seconds is not None:
                left = c.run_seconds - (now_mono - c.start_mono) * self.rt.speed
                self.rt.after(max(left, 0.0), self._exit, run, c, c.token, None)
        for key, cond in (("PodReadyToStartContainers", True), ("Initialized", True),
                          ("Ready", True), ("ContainersReady", True)):
            for x in st.get("conditions") or []:
                if x.get("type") == key:
                    run.conds[key] = [x.get("status"), x.get("lastTransitionTime"),
                                      x.get("reason"), x.get("message")]
        return True

    # ---- status ----

    def _write(self, run):
        phase = pod_phase(run)
        if phase in ("Succeeded", "Failed") and not run.finished:
            run.finished = True
            self._free_ip(run)
        fields = status_fields(run, internal_ip(self.nodes.get(run.node) or {}), util.rfc3339())
        ns, name = run.key

        def fn(cur):
            if util.meta(cur).get("uid") != run.uid:
                return False
            st = merge_status(cur.get("status") or {}, fields, run.start_time)
            if st == cur.get("status"):
                return False
            cur["status"] = st
        self.rt.store.mutate("pods", ns, name, fn)

    # ---- addresses ----

    def _prefix(self, node_name):
        node = self.nodes.get(node_name) or {}
        cidr = (node.get("spec") or {}).get("podCIDR") or ""
        parts = cidr.split("/")[0].split(".")
        if len(parts) == 4:
            return ".".join(parts[:3])
        n = util.stable_int("cidr", node_name) % 65536
        return "10.%d.%d" % (128 + n // 256 % 64, n % 256)

    def _alloc_ip(self, node_name):
        used = self.ips.setdefault(node_name, set())
        for last in range(2, 255):
            if last not in used:
                used.add(last)
                return "%s.%d" % (self._prefix(node_name), last)
        return None

    def _claim_ip(self, node_name, ip):
        if ip:
            try:
                self.ips.setdefault(node_name, set()).add(int(ip.rsplit(".", 1)[1]))
            except ValueError:
                pass
            return ip
        return self._alloc_ip(node_name)

    def _free_ip(self, run):
        # The sandbox is gone: the address may serve another pod, while the
        # finished pod's status keeps showing it (as the API does).
        if run.ip and not run.ip_freed:
            try:
                self.ips.get(run.node, set()).discard(int(run.ip.rsplit(".", 1)[1]))
            except ValueError:
                pass
            run.ip_freed = True

    # ---- events ----

    def _event(self, run, c, type_, reason, message):
        pod = self.rt.get("pods", *run.key)
        if pod is None:
            return
        fp = "spec.%s{%s}" % ("initContainers" if c.is_init else "containers", c.name)
        self.rt.event(pod, "Pod", "v1", type_, reason, message, COMPONENT, host=run.node,
                      field_path=fp)
