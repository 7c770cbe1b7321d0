"""The write verbs: create (POST), update (PUT), patch, delete and
deletecollection, and the subresources status, scale, binding and eviction.

As the apiserver: apiVersion/kind must match the endpoint; the body's
namespace must match the URL's (400) and exist (404 `namespaces "x" not
found`; 403 while it terminates); generateName; server-set metadata is
reset on create; fieldValidation Strict/Warn/Ignore for the fields we know
(unknown ones are dropped, as decoding drops them); dryRun=All validates
and answers without storing; an update with a stale resourceVersion is 409
Conflict, a custom resource update without one 422; a write that changes
nothing stores nothing; the main resource ignores status changes and the
status subresource everything but status.
"""

import copy
import json
import uuid

from . import patch as patching
from .admission import Admission, invalid
from .gc import Deleter, delete_options
from .store import ApiError, now_rfc3339

META_FIELDS = {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
               "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
               "finalizers", "managedFields"}
TOP_FIELDS = {
    "configmaps": {"data", "binaryData", "immutable"},
    "secrets": {"data", "stringData", "type", "immutable"},
    "serviceaccounts": {"secrets", "imagePullSecrets", "automountServiceAccountToken"},
    "events": {"involvedObject", "reason", "message", "source", "firstTimestamp",
               "lastTimestamp", "count", "type", "eventTime", "series", "action", "related",
               "reportingComponent", "reportingInstance"},
    "priorityclasses.scheduling.k8s.io": {"value", "globalDefault", "description",
                                          "preemptionPolicy"},
    "workloadpriorityclasses.kueue.x-k8s.io": {"value", "description"},
}
KUBEFLOW_SPEC = {"runPolicy", "successPolicy", "enableDynamicWorker", "elasticPolicy",
                 "nprocPerNode", "slotsPerWorker", "mainContainer", "runLauncherAsWorker",
                 "mpiImplementation", "launcherCreationPolicy", "sshAuthMountPath",
                 "cleanPodPolicy"}
REPLICA_FIELDS = {"replicas", "template", "restartPolicy"}
RUN_POLICY = {"cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
              "backoffLimit", "schedulingPolicy", "suspend", "managedBy"}
REPLICA_SPECS = {"TFJob": "tfReplicaSpecs", "PyTorchJob": "pytorchReplicaSpecs",
                 "MPIJob": "mpiReplicaSpecs", "XGBoostJob": "xgbReplicaSpecs",
                 "PaddleJob": "paddleReplicaSpecs", "JAXJob": "jaxReplicaSpecs"}


def unknown_fields(res, obj):
    """Paths of fields the kind's schema does not know (as far as we model
    it), removed from obj as decoding would."""
    found = []
    top = {"apiVersion", "kind", "metadata"} | TOP_FIELDS.get(res.key, {"spec", "status"})
    for k in list(obj):
        if k not in top:
            found.append(k)
            del obj[k]
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        for k in list(meta):
            if k not in META_FIELDS:
                found.append("metadata." + k)
                del meta[k]
    spec = obj.get("spec")
    if res.group == "kubeflow.org" and isinstance(spec, dict):
        rfield = REPLICA_SPECS.get(res.kind)
        for k in list(spec):
            if k != rfield and k not in KUBEFLOW_SPEC:
                found.append("spec." + k)
                del spec[k]
        for rtype, rs in (spec.get(rfield) or {}).items():
            if isinstance(rs, dict):
                for k in list(rs):
                    if k not in REPLICA_FIELDS:
                        found.append("spec.%s.%s.%s" % (rfield, rtype, k))
                        del rs[k]
        rp = spec.get("runPolicy")
        if isinstance(rp, dict):
            for k in list(rp):
                if k not in RUN_POLICY:
                    found.append("spec.runPolicy." + k)
                    del rp[k]
    return found


class Writes:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.admission = Admission(sim.store, sim.registry)
        self.deleter = Deleter(sim.store, sim.registry)
        sim.deleter = self.deleter

    def handle(self, req, rt, verb):
        if verb == "create":
            if rt.sub == "binding":
                return self.binding(req, rt)
            if rt.sub == "eviction":
                return self.eviction(req, rt)
            return self.create(req, rt)
        if verb in ("update", "patch"):
            return self.update(req, rt, verb)
        if verb == "delete":
            return self.delete(req, rt)
        return self.delete_collection(req, rt)

    # ---- helpers ----

    def _decode(self, req, res, obj):
        if not isinstance(obj, dict):
            raise ApiError(400, "BadRequest", "the object provided is unrecognized (must be of "
                           "type %s)" % res.kind)
        # The endpoint's group/version/kind is the decoder's default: a body
        # without them (the python client's models) is that kind.
        obj.setdefault("kind", res.kind)
        obj.setdefault("apiVersion", res.api_version)
        if obj.get("apiVersion") != res.api_version:
            raise ApiError(400, "BadRequest", "the API version in the data (%s) does not match "
                           "the expected API version (%s)" % (obj.get("apiVersion"),
                                                              res.api_version))
        if obj["kind"] != res.kind:
            raise ApiError(400, "BadRequest", "the kind in the data (%s) does not match the "
                           "expected kind (%s)" % (obj["kind"], res.kind))
        if not isinstance(obj.get("metadata", {}), dict):
            raise ApiError(400, "BadRequest", "%s in version \"%s\" cannot be handled as a %s: "
                           "json: cannot unmarshal into Go struct field of type "
                           "v1.ObjectMeta" % (res.kind, res.version, res.kind))
        mode = req.q("fieldValidation") or "Warn"
        extra = unknown_fields(res, obj)
        warnings = {}
        if extra and mode == "Strict":
            raise ApiError(400, "BadRequest", '%s in version "%s" cannot be handled as a %s: '
                           'strict decoding error: %s' % (
                               res.kind, res.version, res.kind,
                               ", ".join('unknown field "%s"' % f for f in extra)))
        if extra and mode == "Warn":
            warnings["Warning"] = ", ".join('299 - "unknown field \\"%s\\""' % f for f in extra)
        return warnings

    def _check_namespace(self, res, obj, ns):
        meta = obj.setdefault("metadata", {})
        if not res.namespaced:
            meta.pop("namespace", None)
            return
        bns = meta.get("namespace")
        if bns and bns != ns:
            raise ApiError(400, "BadRequest", "the namespace of the provided object does not "
                           "match the namespace sent on the request")
        meta["namespace"] = ns

    def _dry_run(self, req):
        v = req.query.get("dryRun")
        if v in (None, ""):
            return False
        if v != "All":
            raise ApiError(400, "BadRequest", 'Invalid dry run value: %s (must be "All")' % v)
        return True

    # ---- create ----

    def create(self, req, rt):
        res = rt.res
        obj = req.json_body()
        warnings = self._decode(req, res, obj)
        self._check_namespace(res, obj, rt.namespace)
        meta = obj["metadata"]
        if res.namespaced:
            nse = self.store.get("namespaces", "", rt.namespace)
            if nse is None:
                raise ApiError(404, "NotFound", 'namespaces "%s" not found' % rt.namespace,
                               {"name": rt.namespace, "kind": "namespaces"})
            if nse.obj["metadata"].get("deletionTimestamp"):
                name = meta.get("name") or meta.get("generateName") or ""
                raise ApiError(403, "Forbidden", '%s "%s" is forbidden: unable to create new '
                               'content in namespace %s because it is being terminated'
                               % (res.qualified(), name, rt.namespace),
                               {"name": name, "kind": res.plural,
                                "causes": [{"reason": "NamespaceTerminating",
                                            "message": "namespace %s is being terminated"
                                            % rt.namespace,
                                            "field": "metadata.namespace"}]})
        if meta.get("resourceVersion"):
            raise ApiError(400, "BadRequest", "resourceVersion should not be set on objects to "
                           "be created")
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                  "generation", "selfLink", "managedFields"):
            meta.pop(k, None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = self.admission.generate_name(res, meta)
        if res.key == "services":
            # The apiserver reserves a nodePort in its allocator before the
            # write: under the store's lock, two creates at once never get
            # (or are both granted) the same port.
            with self.store.lock:
                stored = self._admit_and_store(req, res, obj)
        else:
            stored = self._admit_and_store(req, res, obj)
        req.h.send_bytes(201, json.dumps(stored, separators=(",", ":")).encode(),
                         headers=warnings)

    def _admit_and_store(self, req, res, obj):
        """The object as stored, or as it would be with dryRun=All."""
        meta = obj["metadata"]
        self.admission.admit_create(res, obj)
        if self._dry_run(req):
            self.store.check_can_create(res.key, meta.get("namespace", ""), meta["name"])
            meta.setdefault("uid", str(uuid.uuid4()))
            meta["creationTimestamp"] = now_rfc3339()
            if "spec" in obj:
                meta["generation"] = 1
            return obj
        return self.store.create(res.key, obj, adopt=True)

    # ---- update and patch ----

    def _patched(self, req, res, base):
        ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip()
        body = req.json_body()
        if ctype == "application/merge-patch+json":
            return patching.merge_patch(base, body)
        if ctype == "application/json-patch+json":
            return patching.json_patch(base, body)
        if ctype == "application/strategic-merge-patch+json":
            if res.crd:
                raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an "
                               "unknown format - accepted media types include: "
                               "application/json-patch+json, application/merge-patch+json, "
                               "application/apply-patch+yaml")
            return patching.strategic_merge(base, body)
        if ctype == "application/apply-patch+yaml":
            return patching.merge_patch(base, body)
        raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                       "format - accepted media types include: application/json-patch+json, "
                       "application/merge-patch+json, application/apply-patch+yaml"
                       + ("" if res.crd else ", application/strategic-merge-patch+json"))

    def update(self, req, rt, verb):
        res = rt.res
        store = self.store
        dry = self._dry_run(req)
        if verb == "update" and rt.sub != "scale":
            body = req.json_body()
            name = ((body or {}).get("metadata") or {}).get("name") if isinstance(body, dict) \
                else None
            if isinstance(body, dict) and name != rt.name:
                raise ApiError(400, "BadRequest", "the name of the object (%s) does not match "
                               "the name on the URL (%s)" % (name, rt.name))
        with store.lock:
            old = store.get(res.key, rt.namespace, rt.name)
            if old is None:
                from .api import not_found
                raise not_found(res, rt.name)
            cur = old.obj
            if rt.sub == "scale":
                return self._update_scale(req, res, old, verb, dry)
            if verb == "patch":
                new = self._patched(req, res, copy.deepcopy(cur))
                if not isinstance(new, dict):
                    raise ApiError(422, "Invalid", "the patch produced no object")
                new.setdefault("kind", res.kind)
                new.setdefault("apiVersion", res.api_version)
                expect = (new.get("metadata") or {}).get("resourceVersion")
            else:
                new = req.json_body()
                if isinstance(new, dict):
                    new.setdefault("metadata", {})
                expect = ((new or {}).get("metadata") or {}).get("resourceVersion") \
                    if isinstance(new, dict) else None
            warnings = self._decode(req, res, new)
            meta = new["metadata"]
            if meta.get("name") != rt.name:
                raise ApiError(400, "BadRequest", "the name of the object (%s) does not match "
                               "the name on the URL (%s)" % (meta.get("name"), rt.name))
            self._check_namespace(res, new, rt.namespace)
            if expect and expect != cur["metadata"]["resourceVersion"]:
                raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the '
                               'object has been modified; please apply your changes to the '
                               'latest version and try again' % (res.qualified(), rt.name),
                               {"name": rt.name, "kind": res.plural,
                                **({"group": res.group} if res.group else {})})
            if not expect and verb == "update" and res.crd:
                raise invalid(res, rt.name, [(
                    "FieldValueInvalid", "metadata.resourceVersion",
                    "Invalid value: 0x0: must be specified for an update")])
            om = cur["metadata"]
            for k in ("uid", "creationTimestamp", "deletionTimestamp",
                      "deletionGracePeriodSeconds", "generation"):
                if k in om:
                    meta[k] = om[k]
                else:
                    meta.pop(k, None)
            meta["resourceVersion"] = om["resourceVersion"]
            if "status" in res.subresources:
                if rt.sub == "status":
                    st = new.get("status")
                    new = copy.deepcopy(cur)
                    if st is None:
                        new.pop("status", None)
                    else:
                        new["status"] = st
                elif "status" in cur:
                    new["status"] = cur["status"]
                else:
                    new.pop("status", None)
            self.admission.validate_meta(res, new)
            self.admission.admit_update(res, cur, new)
            if new == cur:
                return req.h.send_bytes(200, old.json_bytes(), headers=warnings)
            if dry:
                return req.h.send_json(200, new, warnings)
            stored = store.replace(res.key, new, cur["metadata"]["resourceVersion"])
        req.h.send_bytes(200, json.dumps(stored, separators=(",", ":")).encode(), headers=warnings)

    # ---- scale ----

    def scale_of(self, res, obj):
        m = obj["metadata"]
        sel = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": m["name"], "namespace": m.get("namespace"), "uid": m["uid"],
                             "resourceVersion": m["resourceVersion"],
                             "creationTimestamp": m.get("creationTimestamp")},
                "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 1)},
                "status": {"replicas": (obj.get("status") or {}).get("replicas", 0),
                           "selector": ",".join("%s=%s" % kv for kv in sorted(sel.items()))}}

    def _update_scale(self, req, res, old, verb, dry):
        cur = self.scale_of(res, old.obj)
        if verb == "patch":
            new = self._patched(req, res, copy.deepcopy(cur))
        else:
            new = req.json_body() or {}
        replicas = (new.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or replicas < 0:
            raise ApiError(422, "Invalid", 'Scale.autoscaling "%s" is invalid: spec.replicas: '
                           'Invalid value: %s: must be greater than or equal to 0'
                           % (old.obj["metadata"]["name"], replicas))
        expect = (new.get("metadata") or {}).get("resourceVersion")
        if expect and expect != old.obj["metadata"]["resourceVersion"]:
            raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the '
                           'object has been modified; please apply your changes to the latest '
                           'version and try again' % (res.qualified(), old.obj["metadata"]["name"]))
        obj = copy.deepcopy(old.obj)
        obj.setdefault("spec", {})["replicas"] = replicas
        if not dry and obj != old.obj:
            obj = self.store.replace(res.key, obj)
        req.h.send_json(200, self.scale_of(res, obj))

    # ---- pods/binding, pods/eviction ----

    def binding(self, req, rt):
        body = req.json_body() or {}
        target = (body.get("target") or {}).get("name")
        if not target:
            raise ApiError(422, "Invalid", 'Binding "%s" is invalid: target.name: Required value'
                           % rt.name)

        def bind(pod):
            node = (pod.get("spec") or {}).get("nodeName")
            if node:
                raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on pods/binding '
                               '"%s": pod %s is already assigned to node "%s"'
                               % (rt.name, rt.name, node))
            if pod["metadata"].get("deletionTimestamp"):
                raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on pods/binding '
                               '"%s": pod %s is being deleted, cannot be assigned to a host'
                               % (rt.name, rt.name))
            pod["spec"]["nodeName"] = target
        if self.store.mutate("pods", rt.namespace, rt.name, bind) is None:
            from .api import not_found
            raise not_found(rt.res, rt.name)
        req.h.send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                              "status": "Success", "code": 201})

    def eviction(self, req, rt):
        body = req.json_body() or {}
        opts = delete_options(body.get("deleteOptions") or {}, {})
        self.deleter.delete(rt.res, rt.namespace, rt.name, opts)
        req.h.send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                              "status": "Success", "code": 201})

    # ---- delete ----

    def delete(self, req, rt):
        res = rt.res
        body = req.json_body() or {}
        if body and body.get("kind") not in (None, "DeleteOptions"):
            raise ApiError(400, "BadRequest", "the body of the request was in an unknown format")
        opts = delete_options(body, req.query)
        if self._dry_run(req):
            e = self.store.get(res.key, rt.namespace, rt.name)
            if e is None:
                from .api import not_found
                raise not_found(res, rt.name)
            return req.h.send_bytes(200, e.json_bytes())
        code, out = self.deleter.delete(res, rt.namespace, rt.name, opts)
        req.h.send_json(code, out)

    def delete_collection(self, req, rt):
        from . import selectors
        res = rt.res
        body = req.json_body() or {}
        opts = delete_options(body, req.query)
        pred, _ = selectors.compile_filter(res, req.q("labelSelector"), req.q("fieldSelector"))
        entries, rv = self.store.list(res.key, rt.namespace)
        items = []
        for e in entries:
            if pred is not None and not pred(e.obj):
                continue
            if self._dry_run(req):
                items.append(e.obj)
                continue
            try:
                self.deleter.delete(res, e.obj["metadata"].get("namespace", ""),
                                    e.obj["metadata"]["name"], opts)
                items.append(e.obj)
            except ApiError as err:
                if err.code != 404:
                    raise
        req.h.send_json(200, {"kind": res.list_kind, "apiVersion": res.api_version,
                              "metadata": {"resourceVersion": str(self.store.current_rv())},
                              "items": items})
