"""Objects that expire, as kube-apiserver makes Events expire (--event-ttl).

What the real cluster does, and this mirrors (docs/kubesim.md, "Events expire"):
kube-apiserver stores every write of an Event (create or update) with an etcd
lease of --event-ttl (default 1 h; 0 = none). Its lease manager
(k8s.io/apiserver storage/etcd3/lease_manager.go) does not grant one lease per
object: it grants a lease of ttl + reuse, where reuse = min(5 % of ttl, 60 s),
and hands the same lease to the following writes as long as it still outlives
their ttl, up to 1,000 objects. When a lease runs out, etcd revokes it: every key
still attached is deleted in one transaction, so every watch sees one DELETED
event per object, all with the same resourceVersion, each carrying the object's
last state. An update attaches the key to the current lease and detaches it
from its old one: an Event lives ttl after its last write, not its first.
etcd checks for expired leases every 500 ms, and after a restart renews every
lease to its full ttl (lessor.Promote): kubesim does the same after --keep-state.

Lessor is driven by Store: attach() and detach() are called under the store's
lock by create, replace and delete; the expiry thread deletes through
Store.delete_many. Its own state is guarded by the store's lock too.
Tested by tests/kubesim/test_sim_event_ttl.py.
"""

import threading
import time

# k8s.io/apiserver storage/etcd3/lease_manager.go defaults
LEASE_REUSE_PERCENT = 0.05
LEASE_REUSE_MAX_SECONDS = 60
LEASE_MAX_OBJECTS = 1000
# etcd's lessor looks for expired leases this often
CHECK_SECONDS = 0.5


class Lease:
    __slots__ = ("expires", "keys", "attached")

    def __init__(self, expires):
        self.expires = expires     # time.monotonic() at which it is revoked
        self.keys = set()          # (resource, namespace, name) still attached
        self.attached = 0          # every attach counts, as GetLease counts (even detached)


class Lessor:
    def __init__(self, store, ttls, clock=time.monotonic):
        """ttls: {resource: seconds}; a resource absent or with 0 never expires."""
        self.store = store
        self.ttls = {r: float(s) for r, s in ttls.items() if s and s > 0}
        self.clock = clock
        self.current = {}          # ttl -> the Lease handed to writes of that ttl
        self.key_lease = {}        # (resource, namespace, name) -> Lease
        self.leases = set()
        self.stopping = threading.Event()
        self.thread = None

    def expires(self, resource):
        return resource in self.ttls

    # ---- called by Store under its lock ----

    def attach(self, resource, namespace, name):
        ttl = self.ttls.get(resource)
        if ttl is None:
            return
        key = (resource, namespace, name)
        self.detach(resource, namespace, name)
        lease = self._lease_for(ttl)
        lease.keys.add(key)
        self.key_lease[key] = lease

    def detach(self, resource, namespace, name):
        lease = self.key_lease.pop((resource, namespace, name), None)
        if lease is not None:
            lease.keys.discard((resource, namespace, name))

    def _lease_for(self, ttl):
        now = self.clock()
        reuse = min(int(LEASE_REUSE_PERCENT * ttl), LEASE_REUSE_MAX_SECONDS)
        lease = self.current.get(ttl)
        if lease is not None:
            lease.attached += 1
            if now + ttl < lease.expires and lease.attached <= LEASE_MAX_OBJECTS:
                return lease
        lease = Lease(now + ttl + reuse)
        lease.attached = 1
        self.current[ttl] = lease
        self.leases.add(lease)
        return lease

    # ---- the expiry thread ----

    def start(self):
        """Attaches what the store holds and no lease does (a state loaded at a
        restart: etcd renews its leases then), and starts revoking."""
        with self.store.lock:
            for resource in self.ttls:
                for (ns, name) in list(self.store.objects.get(resource, {})):
                    if (resource, ns, name) not in self.key_lease:
                        self.attach(resource, ns, name)
        self.thread = threading.Thread(target=self._run, name="kubesim-lessor", daemon=True)
        self.thread.start()

    def stop(self):
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)

    def _run(self):
        while not self.stopping.wait(CHECK_SECONDS):
            self.revoke_expired()

    def revoke_expired(self):
        """Deletes the keys of every lease past its time, one lease per revision."""
        now = self.clock()
        with self.store.lock:
            due = sorted((l for l in self.leases if l.expires <= now), key=lambda l: l.expires)
            for lease in due:
                self.leases.discard(lease)
                for ttl, cur in list(self.current.items()):
                    if cur is lease:
                        del self.current[ttl]
            due = [(lease, sorted(lease.keys)) for lease in due]
        for lease, keys in due:
            # a key written again since has moved to a newer lease: it stays
            self.store.delete_many(keys, lambda key, lease=lease: self.key_lease.get(key) is lease)
