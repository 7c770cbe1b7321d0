"""The object store of kubesim: what etcd and the apiserver's watch cache are.

One global resourceVersion counter for every write of every kind (as etcd's
revision), objects kept as immutable dicts (a write stores a new dict, readers
never copy), an event history for watches that resume from a resourceVersion,
and compaction (older versions answer 410 Expired). Objects of the resources
given a TTL (Events: kube-apiserver's --event-ttl) are attached to leases and
expire as etcd's do (leases.py).

Everything that writes goes through Store: the HTTP handlers (server side) and
the simulated controllers alike, so both see the same semantics.

Resources are named "plural" for the core group and "plural.group" otherwise
("pods", "deployments.apps", "tfjobs.kubeflow.org"), as kubectl names them.

Thread-safety: one lock guards objects, history and watchers. Subscribers
(controllers) and watchers are told of each event after the write, outside
the lock, in the writer's thread: they must only queue work.
"""

import collections
import copy
import datetime
import json
import threading
import uuid

from .leases import Lessor


class ApiError(Exception):
    """An error the API server answers with a Status object."""

    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self):
        st = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": self.code,
        }
        if self.reason:     # kube-apiserver's internal errors name none
            st["reason"] = self.reason
        if self.details is not None:
            st["details"] = self.details
        return st


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Entry:
    """A stored object version; the JSON text is computed once, on first need."""

    __slots__ = ("obj", "rv", "_json", "_item")

    def __init__(self, obj, rv):
        self.obj = obj
        self.rv = rv
        self._json = None
        self._item = None

    def json_bytes(self):
        if self._json is None:
            self._json = json.dumps(self.obj, separators=(",", ":")).encode()
        return self._json

    def item_parts(self):
        """The JSON as an item of a core list (without kind and apiVersion),
        as bytes-like parts to join: when the object starts with apiVersion
        and kind (as every object made here does), a view into json_bytes()
        after them, so no second copy of the text is kept."""
        if self._item is None:
            o = self.obj
            keys = list(o)[:2]
            head = b""
            if sorted(keys) == ["apiVersion", "kind"] and len(o) > 2:
                head = (json.dumps({k: o[k] for k in keys}, separators=(",", ":"))[:-1]
                        + ",").encode()
            if head and self.json_bytes().startswith(head):
                self._item = len(head)
            elif "kind" in o or "apiVersion" in o:
                self._item = json.dumps({k: v for k, v in o.items()
                                         if k not in ("kind", "apiVersion")},
                                        separators=(",", ":")).encode()
            else:
                self._item = 0
        if isinstance(self._item, bytes):
            return (self._item,)
        if self._item == 0:
            return (self.json_bytes(),)
        return (b"{", memoryview(self.json_bytes())[self._item:])


class Event:
    __slots__ = ("rv", "resource", "type", "entry", "prev")

    def __init__(self, rv, resource, type_, entry, prev=None):
        self.rv = rv
        self.resource = resource
        self.type = type_           # ADDED | MODIFIED | DELETED
        self.entry = entry          # the new version; for DELETED the last state
        self.prev = prev            # the Entry this write replaced (None for ADDED): watches
                                    # with selectors and reads at an older resourceVersion


class Watcher:
    """A watch's queue of events. `events` holds Event or None (= closed)."""

    def __init__(self, store, resource, namespace):
        self.store = store
        self.resource = resource
        self.namespace = namespace  # None = all namespaces
        self.cond = threading.Condition()
        self.events = collections.deque()
        self.closed = False

    def matches(self, ev):
        if ev.resource != self.resource:
            return False
        if self.namespace is None:
            return True
        return ev.entry.obj.get("metadata", {}).get("namespace") == self.namespace

    def push(self, ev):
        with self.cond:
            if not self.closed:
                self.events.append(ev)
                self.cond.notify()

    def close(self):
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def get(self, timeout):
        """Next Event, None when closed, or False on timeout."""
        with self.cond:
            if not self.events and not self.closed:
                self.cond.wait(timeout)
            if self.events:
                return self.events.popleft()
            if self.closed:
                return None
            return False


class Store:
    HISTORY_MAX = 200000   # events kept for watch resumption before older ones age out

    def __init__(self, ttls=None):
        """ttls: {resource: seconds} of the objects that expire (leases.py)."""
        self.lock = threading.RLock()
        self.rv = 0
        self.objects = {}        # resource -> {(namespace, name): Entry}
        self.history = collections.deque()
        self.compacted = 0       # watches from an rv below this get 410
        self.watchers = set()
        self.subscribers = []
        self.lessor = Lessor(self, ttls or {})

    # ---- reading ----

    def current_rv(self):
        with self.lock:
            return self.rv

    def get(self, resource, namespace, name):
        """The Entry, or None."""
        with self.lock:
            return self.objects.get(resource, {}).get((namespace or "", name))

    def list(self, resource, namespace=None):
        """(entries sorted by namespace/name, resourceVersion of the list)."""
        with self.lock:
            table = self.objects.get(resource, {})
            if namespace is None:
                keys = sorted(table)
            else:
                keys = sorted(k for k in table if k[0] == namespace)
            return [table[k] for k in keys], self.rv

    def list_at(self, resource, namespace, rv):
        """(entries sorted by namespace/name) as they were at resourceVersion
        rv: the current state with the newer history undone. Raises ApiError
        410 when rv is older than what history keeps."""
        with self.lock:
            if rv >= self.rv:
                return self.list(resource, namespace)[0]
            if rv < self.compacted:
                raise ApiError(410, "Expired", "too old resource version: %d (%d)"
                               % (rv, self.compacted))
            table = dict(self.objects.get(resource, {}))
            for ev in reversed(self.history):
                if ev.rv <= rv:
                    break
                if ev.resource != resource:
                    continue
                m = ev.entry.obj.get("metadata", {})
                key = (m.get("namespace", ""), m.get("name"))
                if ev.type == "ADDED" or ev.prev is None:
                    table.pop(key, None)
                else:
                    table[key] = ev.prev
        if namespace is None:
            keys = sorted(table)
        else:
            keys = sorted(k for k in table if k[0] == namespace)
        return [table[k] for k in keys]

    # ---- writing ----

    def _next_rv(self):
        self.rv += 1
        return self.rv

    def _publish(self, resource, type_, entry, prev=None):
        ev = Event(entry.rv, resource, type_, entry, prev)
        self.history.append(ev)
        while len(self.history) > self.HISTORY_MAX:
            old = self.history.popleft()
            self.compacted = max(self.compacted, old.rv)
        # Watchers are fed under the lock (push only appends), so a watcher's
        # queue always holds every event up to self.rv: a bookmark taken under
        # the lock with an empty queue cannot run ahead of an event.
        for w in self.watchers:
            if w.matches(ev):
                w.push(ev)
        return ev

    def _notify(self, ev):
        with self.lock:
            subscribers = list(self.subscribers)
        for fn in subscribers:
            fn(ev)

    def create(self, resource, obj, adopt=False):
        """Stores a new object (a deep copy of obj); fills uid, resourceVersion,
        creationTimestamp, generation. Returns the stored dict.
        adopt=True stores obj itself, uncopied: for a caller that built obj for
        the store and keeps no reference to it (bulk loading at start-up)."""
        if not adopt:
            obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        key = (meta.get("namespace", ""), meta["name"])
        with self.lock:
            table = self.objects.setdefault(resource, {})
            self._check_absent(resource, table, key)
            rv = self._next_rv()
            meta.setdefault("uid", str(uuid.uuid4()))
            meta.setdefault("creationTimestamp", now_rfc3339())
            meta["resourceVersion"] = str(rv)
            if "spec" in obj:
                meta.setdefault("generation", 1)
            entry = Entry(obj, rv)
            table[key] = entry
            self.lessor.attach(resource, key[0], key[1])
            ev = self._publish(resource, "ADDED", entry)
        self._notify(ev)
        return obj

    def check_can_create(self, resource, namespace, name):
        """What a create would say of the name alone: 409 AlreadyExists when it is taken.
        A dryRun=All create asks this, as the API server's dry-run storage does."""
        with self.lock:
            self._check_absent(resource, self.objects.get(resource, {}), (namespace, name))

    @staticmethod
    def _check_absent(resource, table, key):
        if key in table:
            raise ApiError(409, "AlreadyExists",
                           '%s "%s" already exists' % (resource, key[1]),
                           {"name": key[1], "kind": resource.split(".")[0],
                            **({"group": resource.split(".", 1)[1]} if "." in resource else {})})

    def replace(self, resource, obj, expect_rv=None):
        """Replaces an existing object with obj (deep-copied). expect_rv: the
        resourceVersion the writer read (409 Conflict when stale); None = no check."""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        key = (meta.get("namespace", ""), meta["name"])
        with self.lock:
            table = self.objects.get(resource, {})
            old = table.get(key)
            if old is None:
                raise ApiError(404, "NotFound", '%s "%s" not found' % (resource, key[1]))
            if expect_rv is not None and str(expect_rv) != old.obj["metadata"]["resourceVersion"]:
                raise ApiError(409, "Conflict",
                               'Operation cannot be fulfilled on %s "%s": the object has been '
                               'modified; please apply your changes to the latest version and '
                               'try again' % (resource, key[1]))
            om = old.obj["metadata"]
            for k in ("uid", "creationTimestamp"):
                if k in om:
                    meta[k] = om[k]
            if "generation" in om:
                gen = om["generation"]
                if obj.get("spec") != old.obj.get("spec"):
                    gen += 1
                meta["generation"] = gen
            rv = self._next_rv()
            meta["resourceVersion"] = str(rv)
            entry = Entry(obj, rv)
            table[key] = entry
            self.lessor.attach(resource, key[0], key[1])
            ev = self._publish(resource, "MODIFIED", entry, old)
        self._notify(ev)
        return obj

    def mutate(self, resource, namespace, name, fn):
        """Read-modify-write without a race: fn(copy) edits the copy in place (or
        returns False to skip the write). Returns the new dict, or None when the
        object is gone or fn declined."""
        with self.lock:
            entry = self.get(resource, namespace, name)
            if entry is None:
                return None
            obj = copy.deepcopy(entry.obj)
            if fn(obj) is False:
                return None
            return self.replace(resource, obj)

    def delete(self, resource, namespace, name):
        """Removes the object now. Returns the last state (with a new
        resourceVersion, as the apiserver's DELETED event carries)."""
        with self.lock:
            table = self.objects.get(resource, {})
            old = table.pop((namespace or "", name), None)
            if old is None:
                raise ApiError(404, "NotFound", '%s "%s" not found' % (resource, name))
            self.lessor.detach(resource, namespace or "", name)
            obj = copy.deepcopy(old.obj)
            rv = self._next_rv()
            obj["metadata"]["resourceVersion"] = str(rv)
            entry = Entry(obj, rv)
            ev = self._publish(resource, "DELETED", entry, old)
        self._notify(ev)
        return obj

    def delete_many(self, keys, still=None):
        """Removes the objects keys [(resource, namespace, name)] that exist (and
        for which still(key) holds) in one write: one revision for all, as etcd
        deletes the keys of a revoked lease in one transaction. Each watch gets
        one DELETED event per object, all with that resourceVersion."""
        evs = []
        with self.lock:
            gone = []
            for key in keys:
                resource, namespace, name = key
                if still is not None and not still(key):
                    continue
                old = self.objects.get(resource, {}).pop((namespace, name), None)
                if old is not None:
                    self.lessor.detach(resource, namespace, name)
                    gone.append((resource, old))
            if gone:
                rv = self._next_rv()
                for resource, old in gone:
                    obj = copy.deepcopy(old.obj)
                    obj["metadata"]["resourceVersion"] = str(rv)
                    evs.append(self._publish(resource, "DELETED", Entry(obj, rv), old))
        for ev in evs:
            self._notify(ev)
        return len(evs)

    # ---- watching ----

    def watch(self, resource, namespace, since_rv):
        """A Watcher fed with every event of resource newer than since_rv (an
        int; None = from now). Raises ApiError 410 when since_rv is compacted."""
        w = Watcher(self, resource, namespace)
        with self.lock:
            if since_rv is not None:
                if since_rv > self.rv:
                    # kube-apiserver's watch cache waits 3 s for it, then says so
                    raise ApiError(504, "Timeout", "Too large resource version: %d, current: %d"
                                   % (since_rv, self.rv),
                                   {"causes": [{"reason": "ResourceVersionTooLarge",
                                                "message": "Too large resource version"}],
                                    "retryAfterSeconds": 1})
                if since_rv < self.compacted:
                    raise ApiError(410, "Expired", "too old resource version: %d (%d)"
                                   % (since_rv, self.compacted))
                for ev in self.history:
                    if ev.rv > since_rv and w.matches(ev):
                        w.events.append(ev)
            self.watchers.add(w)
        return w

    def unwatch(self, w):
        with self.lock:
            self.watchers.discard(w)
        w.close()

    def drop_watches(self):
        """Ends every open watch (fault injection: a broken connection)."""
        with self.lock:
            ws = list(self.watchers)
            self.watchers.clear()
        for w in ws:
            w.close()

    def restore(self, forget=()):
        """As after an etcd restore from an older backup: the resourceVersion
        counter starts again, without history; the objects named in forget
        ("resource/namespace/name", made after the backup) are simply gone,
        with no event. Watches are cut."""
        with self.lock:
            gone = set(tuple(f.split("/", 2)) for f in forget)
            self.rv = 0
            for resource, table in self.objects.items():
                for key in sorted(table):
                    if (resource, key[0], key[1]) in gone:
                        del table[key]
                        continue
                    obj = table[key].obj
                    obj["metadata"]["resourceVersion"] = str(self._next_rv())
                    table[key] = Entry(obj, self.rv)
            self.history.clear()
            self.compacted = 0
        self.drop_watches()

    def compact(self, advance=False):
        """Forgets history: a watch or list continue from before now gets 410.
        advance: a write elsewhere first (the revision moves on by one, as the
        leases a real cluster renews every few seconds move it), so that even a
        token or watch at the current revision is older than the compaction."""
        with self.lock:
            if advance:
                self._next_rv()
            self.history.clear()
            self.compacted = self.rv

    def open_watches(self):
        with self.lock:
            return len(self.watchers)

    def subscribe(self, fn):
        """fn(Event) after each write, in the writer's thread; fn must only queue."""
        with self.lock:
            self.subscribers.append(fn)
