"""The Deployment and ReplicaSet controllers, enough for TensorBoard.

Deployment NAME → ReplicaSet NAME-<pod-template-hash> (the hash encoded with
the SafeEncodeString alphabet; computed from the template's JSON, so it
looks like but does not equal kube's spew-based hash) → pods
NAME-<hash>-<5 chars>, each controlled by its owner. A template change makes
a new ReplicaSet and scales the old ones to 0 at once (no surge pacing).
Statuses: the ReplicaSet's replicas/fullyLabeledReplicas/readyReplicas/
availableReplicas; the Deployment's replicas/updatedReplicas/readyReplicas/
availableReplicas/unavailableReplicas and the Available and Progressing
conditions with their real reasons and messages. Events ScalingReplicaSet
("Scaled up replica set tb-5d8f7c9b4 from 0 to 1") and SuccessfulCreate /
SuccessfulDelete ("Created pod: ...").
"""

import copy
import json
import math

from . import util
from .runtime import Controller

API = "apps/v1"


def template_hash(template, collisions=0):
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collisions:
        data += str(collisions).encode()
    return util.safe_encode(str(util.fnv32a(data)))


def _ready(pod):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def _set_condition(conds, ctype, status, reason, message, now):
    """deploymentutil.SetDeploymentCondition: same status and reason keeps the
    old one; else the old one goes and the new one is appended."""
    for c in conds:
        if c.get("type") == ctype and c.get("status") == status and c.get("reason") == reason:
            if c.get("message") != message:
                c["message"] = message
                c["lastUpdateTime"] = now
            return conds
    old = next((c for c in conds if c.get("type") == ctype), None)
    new = {"type": ctype, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
           "reason": reason, "message": message}
    if old is not None and old.get("status") == status:
        new["lastTransitionTime"] = old.get("lastTransitionTime", now)
    return [c for c in conds if c.get("type") != ctype] + [new]


def _int_or_percent(v, total, round_up):
    if isinstance(v, str) and v.endswith("%"):
        x = total * float(v[:-1]) / 100.0
        return int(math.ceil(x) if round_up else math.floor(x))
    return int(v or 0)


class DeploymentController(Controller):
    name = "deployment-controller"
    resources = ("deployments.apps", "replicasets.apps")

    def observe(self, ev):
        if ev.resource == "deployments.apps":
            if ev.type != "DELETED":
                self.enqueue(util.key_of(ev.obj))
            return
        ref = util.controller_ref(ev.obj)
        if ref and ref.get("kind") == "Deployment":
            self.enqueue((util.meta(ev.obj).get("namespace", ""), ref.get("name")))

    def event(self, d, reason, message):
        self.rt.event(d, "Deployment", API, "Normal", reason, message, self.name)

    def reconcile(self, key):
        d = self.rt.get("deployments.apps", *key)
        if d is None or util.meta(d).get("deletionTimestamp"):
            return
        ns, name = key
        dm = util.meta(d)
        spec = d.get("spec") or {}
        replicas = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
        tmpl = spec.get("template") or {}
        status = copy.deepcopy(d.get("status") or {})
        h = template_hash(tmpl, status.get("collisionCount", 0))
        rss = self.rt.owned(dm["uid"], "replicasets.apps")
        new = next((r for r in rss if (util.meta(r).get("labels") or {}).get("pod-template-hash") == h), None)
        now = util.rfc3339()
        conds = status.get("conditions") or []
        strategy = spec.get("strategy") or {}
        ru = strategy.get("rollingUpdate") or {}
        surge = _int_or_percent(ru.get("maxSurge", "25%"), replicas, True)
        created = False
        if new is None:
            revs = [int((util.meta(r).get("annotations") or {}).get("deployment.kubernetes.io/revision", 0))
                    for r in rss]
            new = self._create_rs(d, h, replicas, surge, max(revs + [0]) + 1)
            if new is not None:
                self.event(d, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d"
                           % (util.meta(new)["name"], replicas))
                conds = _set_condition(conds, "Progressing", "True", "NewReplicaSetCreated",
                                       'Created new replica set "%s"' % util.meta(new)["name"], now)
                created = True
        elif int((new.get("spec") or {}).get("replicas", 0)) != replicas:
            self._scale(d, new, replicas)
        for r in rss:
            if r is not new and int((r.get("spec") or {}).get("replicas", 0)) > 0:
                self._scale(d, r, 0)
        rss = self.rt.owned(dm["uid"], "replicasets.apps")
        total = sum(int((r.get("status") or {}).get("replicas", 0)) for r in rss)
        ready = sum(int((r.get("status") or {}).get("readyReplicas", 0)) for r in rss)
        avail = sum(int((r.get("status") or {}).get("availableReplicas", 0)) for r in rss)
        nst = (new or {}).get("status") or {}
        updated = int(nst.get("replicas", 0))
        status.update({"observedGeneration": dm.get("generation", 1), "replicas": total,
                       "updatedReplicas": updated, "readyReplicas": ready,
                       "availableReplicas": avail})
        unavailable = max(total - avail, 0) if total else replicas - avail
        if unavailable > 0:
            status["unavailableReplicas"] = unavailable
        else:
            status.pop("unavailableReplicas", None)
        for f in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
            if not status.get(f):
                status.pop(f, None)
        max_unavailable = _int_or_percent(ru.get("maxUnavailable", "25%"), replicas, False)
        if avail >= replicas - max_unavailable:
            conds = _set_condition(conds, "Available", "True", "MinimumReplicasAvailable",
                                   "Deployment has minimum availability.", now)
        else:
            conds = _set_condition(conds, "Available", "False", "MinimumReplicasUnavailable",
                                   "Deployment does not have minimum availability.", now)
        if new is not None and not created:
            rsname = util.meta(new)["name"]
            if updated == replicas and avail >= replicas and total == replicas:
                conds = _set_condition(conds, "Progressing", "True", "NewReplicaSetAvailable",
                                       'ReplicaSet "%s" has successfully progressed.' % rsname, now)
            elif updated or ready:
                conds = _set_condition(conds, "Progressing", "True", "ReplicaSetUpdated",
                                       'ReplicaSet "%s" is progressing.' % rsname, now)
        status["conditions"] = conds
        if status != (d.get("status") or {}):
            self.rt.set_status("deployments.apps", d, status)

    def _create_rs(self, d, h, replicas, surge, revision):
        dm = util.meta(d)
        spec = d.get("spec") or {}
        tmpl = copy.deepcopy(spec.get("template") or {})
        tm = tmpl.setdefault("metadata", {})
        tm.setdefault("labels", {})["pod-template-hash"] = h
        sel = copy.deepcopy(spec.get("selector") or {"matchLabels": {}})
        sel.setdefault("matchLabels", {})["pod-template-hash"] = h
        rs = {"apiVersion": API, "kind": "ReplicaSet",
              "metadata": {"name": "%s-%s" % (dm["name"], h), "namespace": dm.get("namespace", ""),
                           "labels": dict(tm["labels"]),
                           "annotations": {"deployment.kubernetes.io/desired-replicas": str(replicas),
                                           "deployment.kubernetes.io/max-replicas": str(replicas + surge),
                                           "deployment.kubernetes.io/revision": str(revision)},
                           "ownerReferences": [util.owner_ref(d, API, "Deployment")]},
              "spec": {"replicas": replicas, "selector": sel, "template": tmpl,
                       "minReadySeconds": spec.get("minReadySeconds", 0)},
              "status": {"replicas": 0}}
        return self.rt.create("replicasets.apps", rs)

    def _scale(self, d, rs, n):
        rm = util.meta(rs)
        old = int((rs.get("spec") or {}).get("replicas", 0))

        def fn(cur):
            if (cur.get("spec") or {}).get("replicas") == n:
                return False
            cur.setdefault("spec", {})["replicas"] = n
            cur.setdefault("metadata", {}).setdefault("annotations", {})[
                "deployment.kubernetes.io/desired-replicas"] = str(n)
        if self.rt.store.mutate("replicasets.apps", rm.get("namespace", ""), rm["name"], fn) is not None:
            self.event(d, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d"
                       % ("up" if n > old else "down", rm["name"], old, n))


class ReplicaSetController(Controller):
    name = "replicaset-controller"
    resources = ("replicasets.apps", "pods")

    def __init__(self, rt):
        super().__init__(rt)
        self.made = {}

    def observe(self, ev):
        if ev.resource == "replicasets.apps":
            if ev.type != "DELETED":
                self.enqueue(util.key_of(ev.obj))
            return
        ref = util.controller_ref(ev.obj)
        if ref and ref.get("kind") == "ReplicaSet" and ref.get("apiVersion") == API:
            self.enqueue((util.meta(ev.obj).get("namespace", ""), ref.get("name")))

    def event(self, rs, reason, message):
        self.rt.event(rs, "ReplicaSet", API, "Normal", reason, message, self.name)

    def reconcile(self, key):
        rs = self.rt.get("replicasets.apps", *key)
        if rs is None or util.meta(rs).get("deletionTimestamp"):
            return
        ns, name = key
        rm = util.meta(rs)
        spec = rs.get("spec") or {}
        want = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
        pods = self.rt.owned(rm["uid"], "pods")
        active = [p for p in pods if not util.is_terminal(p) and not util.meta(p).get("deletionTimestamp")]
        if len(active) < want:
            for _ in range(want - len(active)):
                self._create(rs)
        elif len(active) > want:
            # Delete the least useful first: not ready before ready, newest first.
            victims = sorted(active, key=lambda p: util.meta(p).get("creationTimestamp", ""),
                             reverse=True)
            victims = sorted(victims, key=_ready)
            for p in victims[:len(active) - want]:
                pm = util.meta(p)
                if self.rt.delete_pod(ns, pm["name"], pm.get("uid")):
                    self.event(rs, "SuccessfulDelete", "Deleted pod: %s" % pm["name"])
        pods = [p for p in self.rt.owned(rm["uid"], "pods")
                if not util.is_terminal(p) and not util.meta(p).get("deletionTimestamp")]
        ready = sum(1 for p in pods if _ready(p))
        status = {"replicas": len(pods), "fullyLabeledReplicas": len(pods), "readyReplicas": ready,
                  "availableReplicas": ready, "observedGeneration": rm.get("generation", 1)}
        for f in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if not status[f]:
                del status[f]
        if status != (rs.get("status") or {}):
            self.rt.set_status("replicasets.apps", rs, status)

    def _create(self, rs):
        rm = util.meta(rs)
        n = self.made.get(rm["uid"], 0)
        self.made[rm["uid"]] = n + 1
        tmpl = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
        tm = tmpl.get("metadata") or {}
        prefix = rm["name"] + "-"
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": prefix + util.safe_suffix(5, self.rt.seed, rm["uid"], n),
                            "generateName": prefix, "namespace": rm.get("namespace", ""),
                            "labels": dict(tm.get("labels") or {}),
                            "ownerReferences": [util.owner_ref(rs, API, "ReplicaSet")]},
               "spec": tmpl.get("spec") or {}}
        if tm.get("annotations"):
            pod["metadata"]["annotations"] = dict(tm["annotations"])
        util.default_pod(pod)
        if self.rt.create("pods", pod) is not None:
            self.event(rs, "SuccessfulCreate", "Created pod: %s" % pod["metadata"]["name"])
