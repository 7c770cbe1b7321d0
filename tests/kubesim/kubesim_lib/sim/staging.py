"""A stand-in for the Runtime used while populating: the controllers' own
reconcile code runs against it at chosen moments in the past, and what it
creates (pods, services, statuses) is collected here, to be stored in one go.

So a pre-made TFJob has exactly the pods, services, labels, env and
conditions the live operator would have produced, and the operator finds
nothing to change when it starts.
"""

import uuid

from . import util


class Staging:
    def __init__(self, seed=0, speed=1.0, opts=None):
        self.seed = seed
        self.speed = speed
        self.opts = opts
        self.clock = None          # unix time stamped on created objects
        self.objects = {}          # resource -> {(ns, name): obj}
        self.order = []            # (resource, key) in creation order
        self.children = {}         # owner uid -> [(resource, key)]

    def create(self, resource, obj):
        m = obj.setdefault("metadata", {})
        m.setdefault("uid", str(uuid.uuid4()))
        m.setdefault("creationTimestamp", util.rfc3339(self.clock))
        if "spec" in obj:
            m.setdefault("generation", 1)
        key = (m.get("namespace", ""), m["name"])
        table = self.objects.setdefault(resource, {})
        if key in table:
            return None
        table[key] = obj
        self.order.append((resource, key))
        ref = util.controller_ref(obj)
        if ref:
            self.children.setdefault(ref["uid"], []).append((resource, key))
        return obj

    def get(self, resource, ns, name):
        return self.objects.get(resource, {}).get((ns, name))

    def owned(self, uid, resource):
        return [self.objects[r][k] for r, k in self.children.get(uid, ()) if r == resource]

    def set_status(self, resource, obj, status):
        obj["status"] = status
        return obj

    def event(self, *args, **kwargs):
        # Events of the past have expired (the apiserver keeps them an hour).
        pass

    def delete_pod(self, ns, name, uid=None):
        return False

    def delete(self, resource, ns, name):
        return None

    def store_into(self, store):
        # Every staged object was built for the store and nothing else holds
        # it: hand it over uncopied (50,000 pods copy in seconds otherwise).
        for resource, key in self.order:
            store.create(resource, self.objects[resource][key], adopt=True)
        self.objects.clear()
        self.order.clear()
        self.children.clear()


class StagedOperator:
    """What Reconcile needs of its controller."""

    def __init__(self, staging):
        self.rt = staging

    def enqueue(self, key, delay=0.0):
        pass
