"""The controller manager of kubesim: one thread runs every simulated
controller (operators, scheduler, kubelets, deployments, jobs).

Why one thread: the controllers share indexes (pods by owner, pods by node)
and timers; with a single owner of that state no controller needs a lock, and
Python's GIL would serialise them anyway. The Store tells us of writes in the
writer's thread (an API handler, or this thread); that callback only appends
to the inbox. The loop then, in turn: folds inbox events into the indexes and
hands them to the controllers that watch that resource (they mark keys
dirty), runs due timers, and reconciles dirty keys, a batch at a time.

Time: every duration a controller asks for is in simulated seconds and is
divided by --speed here, in one place.
"""

import collections
import heapq
import itertools
import sys
import threading
import time
import traceback

from ..store import ApiError
from . import util

# Resources whose events the controllers need (events are written, never watched).
WATCHED = (
    "nodes", "pods", "services", "jobs.batch", "deployments.apps", "replicasets.apps",
    "tfjobs.kubeflow.org", "pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org",
    "xgboostjobs.kubeflow.org", "paddlejobs.kubeflow.org", "jaxjobs.kubeflow.org",
    "trainjobs.trainer.kubeflow.org", "jobsets.jobset.x-k8s.io",
    "workloads.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io",
)

# client-go's EventCorrelator keeps this many recent events for aggregation.
EVENT_CACHE_MAX = 4096
# The scheduler records through events.k8s.io's broadcaster instead (client-go's
# tools/events): it keeps every event it made, with no cap, and counts repeats in a
# series: the first repeat writes count 2, later ones are written every 30 minutes,
# and a series not repeated for 6 minutes is finished (a later repeat makes a new
# Event). A pod pending for hours is one Event, not one per scheduling attempt.
SERIES_COMPONENTS = ("default-scheduler",)
SERIES_FINISH_SECONDS = 360
SERIES_REFRESH_SECONDS = 1800

WORK_BATCH = 200


class Controller:
    """Base of the simulated controllers. `resources` are those whose events
    observe() receives; reconcile(key) is called for keys put with enqueue()."""

    name = "controller"
    resources = ()

    def __init__(self, rt):
        self.rt = rt

    def observe(self, ev):
        pass

    def reconcile(self, key):
        pass

    def enqueue(self, key, delay=0.0):
        self.rt.enqueue(self, key, delay)


class Recorder:
    """core/v1 Events as client-go's recorder writes them: one object per
    distinct (object, reason, message, source), repeats bump count and
    lastTimestamp. They expire as the API server makes them (the store's
    lessor, --event-ttl): a repeat of an expired one makes a new Event."""

    def __init__(self, rt):
        self.rt = rt
        self.recent = collections.OrderedDict()  # key -> (ns, name)
        self.series = {}   # key -> [ns, name, count, last seen, last written] (monotonic)
        self.seq = itertools.count()

    def event(self, obj, kind, api_version, type_, reason, message, component,
              host=None, field_path=None):
        m = util.meta(obj)
        ns = m.get("namespace") or "default"
        key = (ns, kind, m.get("name"), m.get("uid"), field_path, type_, reason, message,
               component, host)
        now = util.rfc3339()
        store = self.rt.store
        if component in SERIES_COMPONENTS and self._repeat_in_series(key, now):
            return
        known = self.recent.get(key)
        if known is not None:
            def bump(ev):
                ev["count"] = int(ev.get("count") or 1) + 1
                ev["lastTimestamp"] = now
            if store.mutate("events", known[0], known[1], bump) is not None:
                self.recent.move_to_end(key)
                return
            del self.recent[key]
        involved = {"kind": kind, "namespace": m.get("namespace", ""), "name": m.get("name"),
                    "uid": m.get("uid"), "apiVersion": api_version,
                    "resourceVersion": m.get("resourceVersion", "")}
        if not m.get("namespace"):
            del involved["namespace"]
        if field_path:
            involved["fieldPath"] = field_path
        # client-go names events <object>.<unix nanoseconds in hex>.
        name = "%s.%x" % (m.get("name"), time.time_ns() + next(self.seq))
        ev = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": ns},
            "involvedObject": involved,
            "reason": reason, "message": message, "type": type_,
            "source": {"component": component, **({"host": host} if host else {})},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1,
            "eventTime": None,
            "reportingComponent": component, "reportingInstance": host or "",
        }
        try:
            store.create("events", ev)
        except ApiError:
            return
        if component in SERIES_COMPONENTS:
            t = time.monotonic()
            self.series[key] = [ns, name, 1, t, t]
            if len(self.series) % 1024 == 0:
                self._finish_series(t)
        else:
            self.recent[key] = (ns, name)
            if len(self.recent) > EVENT_CACHE_MAX:
                self.recent.popitem(last=False)

    def _sim_seconds(self, since, t):
        return (t - since) * self.rt.speed

    def _repeat_in_series(self, key, now):
        """True when key's event is a repeat within its series (counted, written
        when due); False when a new Event is to be made."""
        s = self.series.get(key)
        t = time.monotonic()
        if s is None:
            return False
        if self._sim_seconds(s[3], t) >= SERIES_FINISH_SECONDS:
            del self.series[key]
            return False
        s[2] += 1
        s[3] = t
        if s[2] > 2 and self._sim_seconds(s[4], t) < SERIES_REFRESH_SECONDS:
            return True
        count = s[2]

        def bump(ev):
            ev["count"] = count
            ev["lastTimestamp"] = now
        if self.rt.store.mutate("events", s[0], s[1], bump) is None:
            del self.series[key]      # expired: a new Event
            return False
        s[4] = t
        return True

    def _finish_series(self, t):
        for key in [k for k, s in self.series.items()
                    if self._sim_seconds(s[3], t) >= SERIES_FINISH_SECONDS]:
            del self.series[key]


class Runtime:
    def __init__(self, store, logs, opts):
        self.store = store
        self.logs = logs
        self.opts = opts
        speed = getattr(opts, "speed", 1.0) or 1.0
        self.speed = max(float(speed), 1e-6)
        self.seed = getattr(opts, "seed", 0) or 0
        self.inbox = collections.deque()
        self.wake = threading.Event()
        self.timers = []
        self.tseq = itertools.count()
        self.work = collections.OrderedDict()   # (controller, key) -> None, FIFO
        self.watchers = collections.defaultdict(list)  # resource -> [controller]
        self.controllers = []
        self.seen_rv = {}        # (resource, ns, name) -> rv of the last event folded in
        self.children = collections.defaultdict(set)   # owner uid -> {(resource, ns, name)}
        self.child_owner = {}    # (resource, ns, name) -> owner uid
        self.recorder = Recorder(self)
        self.stopping = False
        self.thread = None
        self.errors = 0
        self.idle_rounds = 0     # loop turns that found nothing queued (tests wait on it)

    # ---- wiring ----

    def add(self, controller):
        self.controllers.append(controller)
        for r in controller.resources:
            self.watchers[r].append(controller)
        return controller

    def _on_store_event(self, ev):
        # Runs in the writer's thread: only queue.
        if self.stopping or ev.resource not in self.watchers:
            return
        self.inbox.append(ev)
        self.wake.set()

    def start(self):
        # Subscribe and list under the store lock: any write after the lists
        # reaches the inbox, and seen_rv drops notifications of writes the
        # lists already hold.
        snapshot = []
        with self.store.lock:
            self.store.subscribe(self._on_store_event)
            for r in WATCHED:
                if r in self.watchers:
                    entries, _ = self.store.list(r)
                    snapshot.extend((r, e) for e in entries)
        self.thread = threading.Thread(target=self._run, args=(snapshot,),
                                       name="kubesim-sim", daemon=True)
        self.thread.start()

    def stop(self):
        self.stopping = True
        self.wake.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(10)

    # ---- scheduling work (only from this runtime's thread) ----

    def now(self):
        return time.monotonic()

    def after(self, sim_seconds, fn, *args):
        """Runs fn(*args) in this thread sim_seconds of simulated time from now."""
        due = time.monotonic() + max(sim_seconds, 0.0) / self.speed
        heapq.heappush(self.timers, (due, next(self.tseq), fn, args))

    def enqueue(self, controller, key, delay=0.0):
        if delay > 0:
            self.after(delay, self.enqueue, controller, key)
            return
        self.work[(controller, key)] = None

    # ---- informer ----

    def _fold(self, resource, type_, entry):
        obj = entry.obj
        k = (resource,) + util.key_of(obj)
        last = self.seen_rv.get(k)
        if last is not None and entry.rv <= last:
            return False
        # Kept after DELETED too (a tombstone): a late notification of an older
        # write must not bring the object back.
        self.seen_rv[k] = entry.rv
        old_owner = self.child_owner.get(k)
        ref = util.controller_ref(obj) if type_ != "DELETED" else None
        new_owner = ref.get("uid") if ref else None
        if old_owner != new_owner:
            if old_owner is not None:
                s = self.children.get(old_owner)
                if s is not None:
                    s.discard(k)
                    if not s:
                        del self.children[old_owner]
                del self.child_owner[k]
            if new_owner is not None:
                self.children[new_owner].add(k)
                self.child_owner[k] = new_owner
        return True

    def owned(self, owner_uid, resource):
        """Current objects of resource whose controller is owner_uid."""
        out = []
        for k in list(self.children.get(owner_uid, ())):
            if k[0] != resource:
                continue
            e = self.store.get(resource, k[1], k[2])
            if e is not None:
                out.append(e.obj)
        return out

    # ---- the loop ----

    def _dispatch(self, resource, type_, entry):
        if not self._fold(resource, type_, entry):
            return
        ev = _Ev(resource, type_, entry.obj)
        for c in self.watchers.get(resource, ()):
            self._guard(c.observe, ev)

    def _guard(self, fn, *args):
        try:
            fn(*args)
        except Exception:  # a controller bug must not stop the cluster
            self.errors += 1
            traceback.print_exc(file=sys.stderr)

    def _run(self, snapshot):
        for r, e in snapshot:
            self._dispatch(r, "ADDED", e)
        snapshot.clear()
        for c in self.controllers:
            init = getattr(c, "initial_sync", None)
            if init is not None:
                self._guard(init)
        while not self.stopping:
            self.wake.clear()
            n = 0
            while self.inbox and n < 5000:
                ev = self.inbox.popleft()
                self._dispatch(ev.resource, ev.type, ev.entry)
                n += 1
            now = time.monotonic()
            while self.timers and self.timers[0][0] <= now and not self.stopping:
                _, _, fn, args = heapq.heappop(self.timers)
                self._guard(fn, *args)
            done = 0
            while self.work and done < WORK_BATCH and not self.stopping:
                (c, key), _ = self.work.popitem(last=False)
                self._guard(c.reconcile, key)
                done += 1
            if self.inbox or self.work:
                continue
            self.idle_rounds += 1
            timeout = 1.0
            if self.timers:
                timeout = min(timeout, max(0.0, self.timers[0][0] - time.monotonic()))
            if timeout > 0:
                self.wake.wait(timeout)

    # ---- helpers for controllers ----

    def get(self, resource, ns, name):
        e = self.store.get(resource, ns, name)
        return e.obj if e is not None else None

    def set_status(self, resource, obj, status):
        """Writes status if it differs from what the store holds (the
        controllers' `if !reflect.DeepEqual(old, new) { UpdateStatus }`)."""
        ns, name = util.key_of(obj)
        uid = util.meta(obj).get("uid")

        def fn(cur):
            if util.meta(cur).get("uid") != uid or cur.get("status") == status:
                return False
            cur["status"] = status
        return self.store.mutate(resource, ns, name, fn)

    def create(self, resource, obj):
        try:
            if resource == "pods":
                util.admit_priority_class(self.store, obj)
            return self.store.create(resource, obj)
        except ApiError as e:
            if e.code != 409:
                raise
            return None

    def delete(self, resource, ns, name):
        """Removes an object now, unless finalizers hold it: then it is only
        marked (deletionTimestamp, grace 0) and whoever owns a finalizer
        removes it, after which the API side completes the deletion."""
        obj = self.get(resource, ns, name)
        if obj is None:
            return None
        if util.meta(obj).get("finalizers"):
            def mark(cur):
                cm = cur["metadata"]
                if cm.get("deletionTimestamp") and cm.get("deletionGracePeriodSeconds") == 0:
                    return False
                cm.setdefault("deletionTimestamp", util.rfc3339())
                cm["deletionGracePeriodSeconds"] = 0
            self.store.mutate(resource, ns, name, mark)
            return obj
        try:
            return self.store.delete(resource, ns, name)
        except ApiError:
            return None

    def delete_pod(self, ns, name, uid=None):
        """A DELETE of a pod with default options, as the apiserver does it: a
        pod bound to a node and not finished is marked with deletionTimestamp
        and its grace period (the kubelet completes it); others go now."""
        pod = self.get("pods", ns, name)
        if pod is None or (uid and util.meta(pod).get("uid") != uid):
            return False
        m = util.meta(pod)
        if m.get("deletionTimestamp"):
            return False
        if not (pod.get("spec") or {}).get("nodeName") or util.is_terminal(pod):
            return self.delete("pods", ns, name) is not None
        grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds", 30)

        def mark(cur):
            cm = cur["metadata"]
            if cm.get("deletionTimestamp") or cm.get("uid") != m.get("uid"):
                return False
            cm["deletionTimestamp"] = util.rfc3339(time.time() + grace)
            cm["deletionGracePeriodSeconds"] = grace
        return self.store.mutate("pods", ns, name, mark) is not None

    def event(self, obj, kind, api_version, type_, reason, message, component,
              host=None, field_path=None):
        self.recorder.event(obj, kind, api_version, type_, reason, message, component,
                            host, field_path)


class _Ev:
    __slots__ = ("resource", "type", "obj")

    def __init__(self, resource, type_, obj):
        self.resource = resource
        self.type = type_
        self.obj = obj
