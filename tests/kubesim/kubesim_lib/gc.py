"""Deletion as the apiserver and kube-controller-manager do it: DeleteOptions,
graceful pod deletion, finalizers, propagation policies, the garbage
collector and the namespace controller.

Deleter.delete (the DELETE verb, also used by the collector):
- preconditions (uid, resourceVersion) → 409 when they do not hold;
- pods: grace = gracePeriodSeconds, else spec.terminationGracePeriodSeconds
  (30); 0 for unscheduled or finished pods. Grace > 0 marks the pod
  (deletionTimestamp = now + grace, deletionGracePeriodSeconds) and the
  simulated kubelet completes it; if nothing does, the collector removes it
  once the grace period has passed;
- propagationPolicy: Background (the default; batch/v1 Jobs default to
  Orphan, as upstream keeps for compatibility), Foreground (finalizer
  foregroundDeletion: the owner stays until its blockOwnerDeletion
  dependents are gone), Orphan (finalizer orphan: dependents lose their
  ownerReference to it, then it goes);
- an object with finalizers is only marked; it goes once they are removed;
- answers: pods and services return the object, other kinds a Status
  Success with details; a marked (not yet gone) object is returned as is.

GarbageCollector: one thread fed by store events (any writer: API or
simulation). It indexes ownerReferences by owner uid, deletes dependents
whose owners are all gone (dropping dangling references when some owners
remain), runs the orphan and foregroundDeletion finalizers, completes
deletions whose finalizers are gone, and deletes the contents of a
terminating namespace before the namespace itself; and, as the pvc-protection
controller, lets a claim being deleted go once no pod that has not finished
mounts it.
"""

import collections
import heapq
import itertools
import sys
import threading
import time
import traceback

from .store import ApiError, now_rfc3339
from .sim.util import rfc3339

RETURNS_OBJECT = ("pods", "services")
# Added to every claim at creation (admission's StorageObjectInUseProtection),
# removed by the pvc-protection controller once no running pod mounts it.
PVC_PROTECTION = "kubernetes.io/pvc-protection"
UNDELETABLE_NAMESPACES = ("default", "kube-system", "kube-public")
POLICIES = ("Orphan", "Background", "Foreground")


def delete_options(body, query):
    """{"policy", "grace", "uid", "rv"} from a DeleteOptions body and the query."""
    body = body or {}
    pol = body.get("propagationPolicy") or query.get("propagationPolicy")
    orphan = body.get("orphanDependents", query.get("orphanDependents"))
    if pol is None and orphan is not None:
        pol = "Orphan" if orphan in (True, "true", "True", "1") else "Background"
    if pol is not None and pol not in POLICIES:
        raise ApiError(422, "Invalid", 'DeleteOptions.meta.k8s.io "" is invalid: '
                       'propagationPolicy: Unsupported value: "%s": supported values: '
                       '"Foreground", "Background", "Orphan", "nil"' % pol)
    grace = body.get("gracePeriodSeconds", query.get("gracePeriodSeconds"))
    if grace is not None and grace != "":
        try:
            grace = int(grace)
        except (TypeError, ValueError):
            raise ApiError(400, "BadRequest", 'strconv.ParseInt: parsing "%s": invalid syntax'
                           % grace)
        if grace < 0:
            grace = 0
    else:
        grace = None
    pre = body.get("preconditions") or {}
    return {"policy": pol, "grace": grace, "uid": pre.get("uid"), "rv": pre.get("resourceVersion")}


def _status_success(res, obj):
    d = {"name": obj["metadata"]["name"], "kind": res.plural, "uid": obj["metadata"].get("uid")}
    if res.group:
        d = {"name": d["name"], "group": res.group, "kind": res.plural, "uid": d["uid"]}
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": d}


class Deleter:
    def __init__(self, store, registry):
        self.store = store
        self.registry = registry

    def default_policy(self, res):
        return "Orphan" if res.key == "jobs.batch" else "Background"

    def delete(self, res, ns, name, opts):
        """(HTTP code, body) of a DELETE; raises ApiError."""
        store = self.store
        if res.key == "namespaces" and name in UNDELETABLE_NAMESPACES:
            raise ApiError(403, "Forbidden", 'namespaces "%s" is forbidden: this namespace may '
                           'not be deleted' % name, {"name": name, "kind": "namespaces"})
        with store.lock:
            e = store.get(res.key, ns, name)
            if e is None:
                from .api import not_found
                raise not_found(res, name)
            obj = e.obj
            m = obj["metadata"]
            if opts.get("uid") and opts["uid"] != m.get("uid"):
                raise ApiError(409, "Conflict", "Precondition failed: UID in precondition: %s, "
                               "UID in object meta: %s" % (opts["uid"], m.get("uid")))
            if opts.get("rv") and opts["rv"] != m.get("resourceVersion"):
                raise ApiError(409, "Conflict", "Precondition failed: ResourceVersion in "
                               "precondition: %s, ResourceVersion in object meta: %s"
                               % (opts["rv"], m.get("resourceVersion")))
            policy = opts.get("policy") or self.default_policy(res)
            grace = 0
            if res.key == "pods":
                spec = obj.get("spec") or {}
                grace = opts.get("grace")
                if grace is None:
                    grace = spec.get("terminationGracePeriodSeconds", 30)
                phase = (obj.get("status") or {}).get("phase")
                if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
                    grace = 0
            fins = list(m.get("finalizers") or [])
            if policy == "Foreground" and "foregroundDeletion" not in fins:
                fins.append("foregroundDeletion")
            elif policy == "Orphan" and "orphan" not in fins:
                fins.append("orphan")
            elif policy == "Background" and opts.get("policy"):
                fins = [f for f in fins if f not in ("orphan", "foregroundDeletion")]
            if res.key == "namespaces":
                return 200, self._terminate_namespace(res, obj)
            if m.get("deletionTimestamp"):
                cur_grace = m.get("deletionGracePeriodSeconds") or 0
                if fins == list(m.get("finalizers") or []) and grace >= cur_grace:
                    return 200, obj
                if not fins and grace == 0:
                    gone = store.delete(res.key, ns, name)
                    return 200, gone if res.key in RETURNS_OBJECT else _status_success(res, gone)
                upd = self._marked(obj, fins, min(grace, cur_grace))
                return 200, store.replace(res.key, upd)
            if not fins and grace == 0:
                gone = store.delete(res.key, ns, name)
                return 200, gone if res.key in RETURNS_OBJECT else _status_success(res, gone)
            return 200, store.replace(res.key, self._marked(obj, fins, grace))

    def _marked(self, obj, fins, grace):
        import copy
        o = copy.deepcopy(obj)
        m = o["metadata"]
        if not m.get("deletionTimestamp") or grace < (m.get("deletionGracePeriodSeconds") or 0):
            m["deletionTimestamp"] = rfc3339(time.time() + grace)
        m["deletionGracePeriodSeconds"] = grace
        if fins:
            m["finalizers"] = fins
        else:
            m.pop("finalizers", None)
        return o

    def _terminate_namespace(self, res, obj):
        if obj["metadata"].get("deletionTimestamp"):
            return obj
        import copy
        o = copy.deepcopy(obj)
        o["metadata"]["deletionTimestamp"] = now_rfc3339()
        o["metadata"]["deletionGracePeriodSeconds"] = 0
        o.setdefault("spec", {})["finalizers"] = ["kubernetes"]
        o.setdefault("status", {})["phase"] = "Terminating"
        return self.store.replace(res.key, o)


class GarbageCollector:
    def __init__(self, store, registry, deleter):
        self.store = store
        self.registry = registry
        self.deleter = deleter
        self.cond = threading.Condition()
        self.inbox = collections.deque()
        self.dependents = collections.defaultdict(set)   # owner uid -> {dependent key}
        self.owners = {}                                  # dependent key -> {owner uid}
        self.foreground = {}                              # owner uid -> key, while it waits
        self.timers = []
        self.seq = itertools.count()
        self.stopping = False
        self.thread = None
        self.by_group_kind = {}
        for r in registry.resources:
            self.by_group_kind[(r.group, r.kind)] = r

    def start(self):
        with self.store.lock:
            self.store.subscribe(self._on_event)
            for r in self.registry.resources:
                for e in self.store.list(r.key)[0]:
                    self._index(r.key, e.obj)
                    m = e.obj["metadata"]
                    if m.get("deletionTimestamp") or m.get("ownerReferences"):
                        self.inbox.append(("check", r.key, m.get("namespace", ""), m["name"]))
        self.thread = threading.Thread(target=self._run, name="kubesim-gc", daemon=True)
        self.thread.start()

    def stop(self):
        with self.cond:
            self.stopping = True
            self.cond.notify()
        if self.thread is not None:
            self.thread.join(5)

    def _on_event(self, ev):
        with self.cond:
            self.inbox.append(("event", ev))
            self.cond.notify()

    def after(self, seconds, fn, *args):
        with self.cond:
            heapq.heappush(self.timers, (time.monotonic() + seconds, next(self.seq), fn, args))
            self.cond.notify()

    # ---- the loop ----

    def _run(self):
        while True:
            with self.cond:
                while not self.inbox and not self.stopping:
                    wait = None
                    if self.timers:
                        wait = max(0.0, self.timers[0][0] - time.monotonic())
                        if wait == 0:
                            break
                    self.cond.wait(wait if wait is not None else 1.0)
                if self.stopping:
                    return
                items = list(self.inbox)
                self.inbox.clear()
                due = []
                now = time.monotonic()
                while self.timers and self.timers[0][0] <= now:
                    due.append(heapq.heappop(self.timers))
            for it in items:
                self._guard(self._process, it)
            for _, _, fn, args in due:
                self._guard(fn, *args)

    def _guard(self, fn, *args):
        try:
            fn(*args)
        except ApiError:
            pass
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _index(self, resource, obj, deleted=False):
        m = obj.get("metadata") or {}
        key = (resource, m.get("namespace", ""), m.get("name"))
        new = set() if deleted else {r.get("uid") for r in m.get("ownerReferences") or []
                                     if r.get("uid")}
        old = self.owners.get(key, set())
        if new == old:
            return old
        for u in old - new:
            s = self.dependents.get(u)
            if s is not None:
                s.discard(key)
                if not s:
                    del self.dependents[u]
        for u in new - old:
            self.dependents[u].add(key)
        if new:
            self.owners[key] = new
        else:
            self.owners.pop(key, None)
        return old

    def _process(self, item):
        if item[0] == "check":
            _, resource, ns, name = item
            e = self.store.get(resource, ns, name)
            if e is not None:
                self._check_live(resource, e.obj)
            return
        ev = item[1]
        obj = ev.entry.obj
        m = obj.get("metadata") or {}
        if ev.type == "DELETED":
            old_owners = self._index(ev.resource, obj, deleted=True)
            uid = m.get("uid")
            for dep in list(self.dependents.get(uid, ())):
                self._check_dependent(dep)
            for ou in old_owners:
                self._recheck_owner(ou)
            if ev.resource == "namespaces":
                return
            ns_key = m.get("namespace")
            if ns_key:
                nse = self.store.get("namespaces", "", ns_key)
                if nse is not None and nse.obj["metadata"].get("deletionTimestamp"):
                    self._namespace(nse.obj)
            return
        self._index(ev.resource, obj)
        self._check_live(ev.resource, obj)

    def _check_live(self, resource, obj):
        m = obj["metadata"]
        if m.get("deletionTimestamp"):
            self._finalize(resource, obj)
        if m.get("ownerReferences"):
            self._check_dependent((resource, m.get("namespace", ""), m["name"]))

    # ---- owners and dependents ----

    def _owner_present(self, ref, ns):
        group = ref.get("apiVersion", "").rpartition("/")[0]
        res = self.by_group_kind.get((group, ref.get("kind")))
        if res is None:
            return True      # a kind we do not serve: leave its dependents alone
        e = self.store.get(res.key, ns if res.namespaced else "", ref.get("name"))
        return e is not None and e.obj["metadata"].get("uid") == ref.get("uid")

    def _check_dependent(self, key):
        resource, ns, name = key
        e = self.store.get(resource, ns, name)
        if e is None:
            return
        refs = e.obj["metadata"].get("ownerReferences") or []
        absent = [r for r in refs if not self._owner_present(r, ns)]
        if not absent:
            return
        if len(absent) < len(refs):
            gone = {r.get("uid") for r in absent}

            def drop(o):
                o["metadata"]["ownerReferences"] = [
                    r for r in o["metadata"].get("ownerReferences") or []
                    if r.get("uid") not in gone]
            self.store.mutate(resource, ns, name, drop)
            return
        if e.obj["metadata"].get("deletionTimestamp"):
            return
        res = self.registry.get(resource)
        if res is not None:
            self.deleter.delete(res, ns, name, {"policy": "Background"})

    def _recheck_owner(self, uid):
        """A dependent of uid went away: a foreground owner may now be free."""
        key = self.foreground.get(uid)
        if key is None:
            return
        e = self.store.get(*key)
        if e is None or e.obj["metadata"].get("uid") != uid:
            self.foreground.pop(uid, None)
            return
        self._finalize(key[0], e.obj)

    def _finalize(self, resource, obj):
        m = obj["metadata"]
        ns, name, uid = m.get("namespace", ""), m["name"], m.get("uid")
        fins = m.get("finalizers") or []
        if resource == "namespaces":
            return self._namespace(obj)
        if resource == "persistentvolumeclaims" and PVC_PROTECTION in fins:
            return self._pvc_protection(ns, name, uid)
        if "orphan" in fins:
            for dep in list(self.dependents.get(uid, ())):
                def unref(o):
                    refs = o["metadata"].get("ownerReferences") or []
                    o["metadata"]["ownerReferences"] = [r for r in refs if r.get("uid") != uid]
                    if not o["metadata"]["ownerReferences"]:
                        del o["metadata"]["ownerReferences"]
                self.store.mutate(dep[0], dep[1], dep[2], unref)
            self._remove_finalizer(resource, ns, name, uid, "orphan")
            return
        if "foregroundDeletion" in fins:
            self.foreground[uid] = (resource, ns, name)
            blocking = 0
            for dep in list(self.dependents.get(uid, ())):
                e = self.store.get(*dep)
                if e is None:
                    continue
                dm = e.obj["metadata"]
                ref = next((r for r in dm.get("ownerReferences") or [] if r.get("uid") == uid),
                           None)
                if ref is None:
                    continue
                if ref.get("blockOwnerDeletion"):
                    blocking += 1
                if not dm.get("deletionTimestamp"):
                    res = self.registry.get(dep[0])
                    if res is not None:
                        policy = "Foreground" if self.dependents.get(dm.get("uid")) else "Background"
                        try:
                            self.deleter.delete(res, dep[1], dep[2], {"policy": policy})
                        except ApiError:
                            pass
            if not blocking:
                self.foreground.pop(uid, None)
                self._remove_finalizer(resource, ns, name, uid, "foregroundDeletion")
            return
        if fins:
            return
        if resource == "pods":
            grace = m.get("deletionGracePeriodSeconds") or 0
            if grace > 0:
                self.after(grace + 0.5, self._pod_deadline, ns, name, uid)
                return
        try:
            self.store.delete(resource, ns, name)
        except ApiError:
            pass

    def _pvc_protection(self, ns, name, uid):
        """The pvc-protection controller: a claim being deleted keeps its
        finalizer while a pod of its namespace on a node, not finished, mounts it;
        checked again each second until none does."""
        for e in self.store.list("pods", ns)[0]:
            p = e.obj
            # as upstream's: a pod not yet on a node, or finished, holds no claim
            if not p.get("spec", {}).get("nodeName") or \
                    p.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                continue
            for v in p.get("spec", {}).get("volumes") or []:
                if (v.get("persistentVolumeClaim") or {}).get("claimName") == name:
                    self.after(1.0, self._pvc_recheck, ns, name, uid)
                    return
        self._remove_finalizer("persistentvolumeclaims", ns, name, uid, PVC_PROTECTION)

    def _pvc_recheck(self, ns, name, uid):
        e = self.store.get("persistentvolumeclaims", ns, name)
        if e is not None and e.obj["metadata"].get("uid") == uid:
            self._pvc_protection(ns, name, uid)

    def _remove_finalizer(self, resource, ns, name, uid, fin):
        def fn(o):
            if o["metadata"].get("uid") != uid:
                return False
            fs = [f for f in o["metadata"].get("finalizers") or [] if f != fin]
            if fs:
                o["metadata"]["finalizers"] = fs
            else:
                o["metadata"].pop("finalizers", None)
                if resource == "pods":
                    o["metadata"]["deletionGracePeriodSeconds"] = 0
        self.store.mutate(resource, ns, name, fn)

    def _pod_deadline(self, ns, name, uid):
        e = self.store.get("pods", ns, name)
        if e is None or e.obj["metadata"].get("uid") != uid:
            return
        m = e.obj["metadata"]
        if m.get("deletionTimestamp") and not m.get("finalizers"):
            try:
                self.store.delete("pods", ns, name)
            except ApiError:
                pass

    # ---- namespaces ----

    def _namespace(self, ns_obj):
        name = ns_obj["metadata"]["name"]
        if not ns_obj["metadata"].get("deletionTimestamp"):
            return
        left = 0
        for r in self.registry.resources:
            if not r.namespaced:
                continue
            for e in self.store.list(r.key, name)[0]:
                left += 1
                if not e.obj["metadata"].get("deletionTimestamp"):
                    try:
                        self.deleter.delete(r, name, e.obj["metadata"]["name"],
                                            {"policy": "Background"})
                    except ApiError:
                        pass
        if left:
            self.after(1.0, self._namespace_again, name)
            return
        try:
            self.store.delete("namespaces", "", name)
        except ApiError:
            pass

    def _namespace_again(self, name):
        e = self.store.get("namespaces", "", name)
        if e is not None:
            self._namespace(e.obj)
