"""The simulated kube-scheduler (default-scheduler).

Binds each pod that has no spec.nodeName (and asks for the default scheduler)
to a Ready, schedulable node whose free allocatable resources fit the pod
(nvidia.com/gpu, cpu, memory, pods and any other resource asked for),
honouring nodeSelector, required node affinity and taints. The filters run in
the default profile's order and the first failing one names the node's
reason, so a pod that fits nowhere gets the real FitError text:

    0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption:
    0/4 nodes are available: 4 No preemption victims found for incoming pod..

(the double period is the real scheduler's). Unschedulable pods are retried
when the cluster changes in a way that can help (a pod releasing resources, a
node changing) with the scheduler's per-pod backoff (1 s doubling to 10 s),
and at least every 5 minutes, as the real scheduling queue does. Nothing is
preempted.

Accounting is incremental (per-pod contribution to its node), so no attempt
scans pods; an attempt scans nodes, starting where the last one stopped, and
stops after 100 feasible ones as the real scheduler's numFeasibleNodesToFind.
"""

import collections
import time

from . import util
from .runtime import Controller

COMPONENT = "default-scheduler"
BACKOFF_INITIAL = 1.0
BACKOFF_MAX = 10.0
UNSCHEDULABLE_FLUSH = 300.0
FEASIBLE_ENOUGH = 100

SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector"
UNSCHEDULABLE_NODE = "node(s) were unschedulable"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def fit_error_message(n, hist, pre):
    """FitError.Error(): the filters' reason histogram, then PostFilter's
    (preemption's) own sentence, each joined with " %v." as upstream, which
    is where the final ".." comes from."""
    parts = sorted("%d %s" % (c, x) for x, c in hist.items())
    pparts = sorted("%d %s" % (c, x) for x, c in pre.items())
    return "0/%d nodes are available: %s. preemption: 0/%d nodes are available: %s.." % (
        n, ", ".join(parts), n, ", ".join(pparts))


class NodeInfo:
    __slots__ = ("name", "labels", "taints", "unschedulable", "ready", "alloc", "used", "npods")

    def __init__(self, node):
        self.used = collections.Counter()
        self.npods = 0
        self.update(node)

    def update(self, node):
        m = util.meta(node)
        spec = node.get("spec") or {}
        st = node.get("status") or {}
        self.name = m.get("name")
        self.labels = m.get("labels") or {}
        self.taints = list(spec.get("taints") or [])
        self.unschedulable = bool(spec.get("unschedulable"))
        self.ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                         for c in st.get("conditions") or [])
        alloc = st.get("allocatable") or st.get("capacity") or {}
        self.alloc = {k: util.quantity(v) for k, v in alloc.items()}
        if not self.ready and not any(t.get("key") == "node.kubernetes.io/not-ready"
                                      for t in self.taints):
            # The node lifecycle controller taints a NotReady node.
            self.taints.append({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})


def tolerates(tolerations, taint):
    for t in tolerations or []:
        eff = t.get("effect")
        if eff and eff != taint.get("effect"):
            continue
        key = t.get("key")
        op = t.get("operator") or "Equal"
        if op == "Exists":
            if not key or key == taint.get("key"):
                return True
        elif key == taint.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _match_expr(labels, e):
    k, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
    if op == "In":
        return k in labels and labels[k] in vals
    if op == "NotIn":
        return k not in labels or labels[k] not in vals
    if op == "Exists":
        return k in labels
    if op == "DoesNotExist":
        return k not in labels
    if op in ("Gt", "Lt"):
        try:
            a, b = int(labels[k]), int(vals[0])
        except (KeyError, IndexError, ValueError):
            return False
        return a > b if op == "Gt" else a < b
    return False


def matches_node(spec, node):
    sel = spec.get("nodeSelector") or {}
    for k, v in sel.items():
        if node.labels.get(k) != v:
            return False
    req = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
           .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = req.get("nodeSelectorTerms")
    if terms:
        ok = False
        for term in terms:
            exprs = term.get("matchExpressions") or []
            fields = term.get("matchFields") or []
            if not exprs and not fields:
                continue
            if all(_match_expr(node.labels, e) for e in exprs) and \
                    all(_match_expr({"metadata.name": node.name}, f) for f in fields):
                ok = True
                break
        if not ok:
            return False
    return True


class Requirements:
    """What a pod needs from a node, computed once per pod version."""

    __slots__ = ("req", "spec", "sig")

    def __init__(self, pod):
        spec = pod.get("spec") or {}
        names = set()
        for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
            res = c.get("resources") or {}
            names.update((res.get("requests") or {}).keys())
            names.update((res.get("limits") or {}).keys())
        self.req = {r: util.pod_request(spec, r) for r in sorted(names)}
        self.req = {r: v for r, v in self.req.items() if v > 0}
        self.spec = spec
        self.sig = (tuple(sorted(self.req.items())),
                    repr(sorted((spec.get("nodeSelector") or {}).items())),
                    repr(spec.get("affinity")), repr(spec.get("tolerations")))


def filter_node(node, r):
    """[] when the pod fits, else the reasons of the first failing filter and
    whether preemption could help (False for the Unresolvable ones)."""
    if node.unschedulable and not tolerates(r.spec.get("tolerations"), {
            "key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}):
        return [UNSCHEDULABLE_NODE], False
    for t in node.taints:
        if t.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not tolerates(r.spec.get("tolerations"), t):
            return ["node(s) had untolerated taint {%s: %s}" % (t.get("key"), t.get("value", ""))], False
    if not matches_node(r.spec, node):
        return [SELECTOR_MISMATCH], False
    reasons = []
    if node.npods + 1 > node.alloc.get("pods", 110):
        reasons.append("Too many pods")
    for res, want in r.req.items():
        have = node.alloc.get(res, 0.0) - node.used[res]
        if want > have + 1e-9:
            reasons.append("Insufficient %s" % res)
    return reasons, True


class Scheduler(Controller):
    name = COMPONENT
    resources = ("nodes", "pods")

    def __init__(self, rt):
        super().__init__(rt)
        self.nodes = {}                  # name -> NodeInfo
        self.order = []                  # node names, for the rotating start
        self.start_index = 0
        self.usage = {}                  # pod key -> (node, {res: amount}) held
        self.pending = {}                # pod key -> [uid, backoff, last_gen, last_try]
        self.gen = 0                     # bumps whenever a pod could newly fit
        self.fail_cache = {}             # sig -> (gen, message)
        self.retry_armed = False

    # ---- watching ----

    def observe(self, ev):
        if ev.resource == "nodes":
            name = util.meta(ev.obj).get("name")
            if ev.type == "DELETED":
                self.nodes.pop(name, None)
            elif name in self.nodes:
                self.nodes[name].update(ev.obj)
            else:
                info = self.nodes[name] = NodeInfo(ev.obj)
                # Pods may have been bound to it before it (re)appeared.
                for node_name, req in self.usage.values():
                    if node_name == name:
                        info.npods += 1
                        info.used.update(req)
            self.order = sorted(self.nodes)
            self._changed()
            return
        pod = ev.obj
        key = util.key_of(pod)
        spec = pod.get("spec") or {}
        holds = ev.type != "DELETED" and spec.get("nodeName") and not util.is_terminal(pod)
        self._account(key, spec.get("nodeName") if holds else None, pod if holds else None)
        if ev.type != "DELETED" and self._wants_scheduling(pod):
            if key not in self.pending or self.pending[key][0] != util.meta(pod).get("uid"):
                self.pending[key] = [util.meta(pod).get("uid"), BACKOFF_INITIAL, None, None]
                self.enqueue(key)
        else:
            self.pending.pop(key, None)

    def initial_sync(self):
        self._changed()

    @staticmethod
    def _wants_scheduling(pod):
        spec = pod.get("spec") or {}
        m = util.meta(pod)
        return (not spec.get("nodeName") and not m.get("deletionTimestamp")
                and spec.get("schedulerName", COMPONENT) == COMPONENT
                and not spec.get("schedulingGates") and not util.is_terminal(pod))

    def _account(self, key, node_name, pod):
        old = self.usage.get(key)
        new = None
        if node_name is not None:
            if old is not None and old[0] == node_name:
                return
            new = (node_name, Requirements(pod).req)
        if old is not None:
            n = self.nodes.get(old[0])
            if n is not None:
                n.npods -= 1
                n.used.subtract(old[1])
            del self.usage[key]
            self._changed()
        if new is not None:
            n = self.nodes.get(new[0])
            if n is not None:
                n.npods += 1
                n.used.update(new[1])
            self.usage[key] = new

    def _changed(self):
        self.gen += 1
        if not self.retry_armed and self.pending:
            self.retry_armed = True
            self.rt.after(BACKOFF_INITIAL, self._retry)

    def _retry(self):
        self.retry_armed = False
        now = time.monotonic()
        for key, p in self.pending.items():
            if p[2] is None:
                continue  # first attempt already queued
            due_backoff = p[3] + p[1] / self.rt.speed
            if p[2] != self.gen and now >= due_backoff:
                self.enqueue(key)
            elif now - p[3] >= UNSCHEDULABLE_FLUSH / self.rt.speed:
                self.enqueue(key)
        if self.pending:
            self.retry_armed = True
            self.rt.after(BACKOFF_INITIAL, self._retry)

    # ---- one scheduling attempt ----

    def reconcile(self, key):
        p = self.pending.get(key)
        if p is None:
            return
        pod = self.rt.get("pods", *key)
        if pod is None or not self._wants_scheduling(pod) or util.meta(pod).get("uid") != p[0]:
            self.pending.pop(key, None)
            return
        r = Requirements(pod)
        node = self._place(pod, r)
        if node is not None:
            self._bind(pod, node, r)
            return
        p[3] = time.monotonic()
        if p[2] is not None:
            p[1] = min(p[1] * 2, BACKOFF_MAX)
        p[2] = self.gen
        cached = self.fail_cache.get(r.sig)
        msg = cached[1] if cached is not None and cached[0] == self.gen else self._fit_error(r)
        self._unschedulable(pod, msg)

    def _place(self, pod, r):
        n = len(self.order)
        if n == 0:
            return None
        cached = self.fail_cache.get(r.sig)
        if cached is not None and cached[0] == self.gen:
            return None
        best, best_score = None, None
        feasible = 0
        name = util.meta(pod).get("name")
        for i in range(n):
            node = self.nodes[self.order[(self.start_index + i) % n]]
            reasons, _ = filter_node(node, r)
            if reasons:
                continue
            feasible += 1
            score = self._score(node, r, name)
            if best is None or score > best_score:
                best, best_score = node, score
            if feasible >= FEASIBLE_ENOUGH:
                self.start_index = (self.start_index + i + 1) % n
                break
        return best

    def _score(self, node, r, pod_name):
        # NodeResourcesFit's LeastAllocated over cpu and memory, ties broken
        # by a seeded hash instead of the real scheduler's random pick.
        fr = 0.0
        for res in ("cpu", "memory"):
            cap = node.alloc.get(res, 0.0)
            if cap > 0:
                fr += (cap - node.used[res] - r.req.get(res, 0.0)) / cap
        tie = util.stable_int(self.rt.seed, pod_name, node.name) % 1000 / 1e6
        return fr + tie

    def _fit_error(self, r):
        n = len(self.order)
        if n == 0:
            return "no nodes available to schedule pods"
        hist = collections.Counter()
        pre = collections.Counter()
        for name in self.order:
            reasons, helpful = filter_node(self.nodes[name], r)
            for x in reasons:
                hist[x] += 1
            pre[NO_VICTIMS if helpful else NOT_HELPFUL] += 1
        msg = fit_error_message(n, hist, pre)
        self.fail_cache[r.sig] = (self.gen, msg)
        return msg

    def _bind(self, pod, node, _r):
        ns, name = util.key_of(pod)
        uid = util.meta(pod).get("uid")
        now = util.rfc3339()

        def bind(cur):
            if util.meta(cur).get("uid") != uid or (cur.get("spec") or {}).get("nodeName"):
                return False
            cur.setdefault("spec", {})["nodeName"] = node.name
            st = cur.setdefault("status", {})
            conds = [c for c in st.get("conditions") or [] if c.get("type") != "PodScheduled"]
            conds.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": now})
            st["conditions"] = conds
        done = self.rt.store.mutate("pods", ns, name, bind)
        self.pending.pop((ns, name), None)
        if done is None:
            return
        # Account now, not when the event comes back, so the next pod in this
        # batch sees the node's new usage.
        self._account((ns, name), node.name, done)
        self.rt.event(done, "Pod", "v1", "Normal", "Scheduled",
                      "Successfully assigned %s/%s to %s" % (ns, name, node.name), COMPONENT)

    def _unschedulable(self, pod, message):
        ns, name = util.key_of(pod)
        uid = util.meta(pod).get("uid")
        now = util.rfc3339()

        def mark(cur):
            if util.meta(cur).get("uid") != uid:
                return False
            st = cur.setdefault("status", {})
            conds = st.get("conditions") or []
            for c in conds:
                if c.get("type") == "PodScheduled" and c.get("status") == "False" and \
                        c.get("reason") == "Unschedulable" and c.get("message") == message:
                    return False
            conds = [c for c in conds if c.get("type") != "PodScheduled"]
            conds.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                          "lastTransitionTime": now, "reason": "Unschedulable",
                          "message": message})
            st["conditions"] = conds
        self.rt.store.mutate("pods", ns, name, mark)
        self.rt.event(pod, "Pod", "v1", "Warning", "FailedScheduling", message, COMPONENT)
