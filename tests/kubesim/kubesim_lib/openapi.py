"""The OpenAPI documents: /openapi/v3 (an index and one document per
group-version) and /openapi/v2 (one Swagger 2.0 document), built from the
resource table once and kept. discovery.py serves them.

Who reads them. `kubectl create/replace/apply -f` with the default
--validate=strict asks whether the kind's PATCH operation takes the
fieldValidation query parameter: kubectl 1.27+ in the v3 document of the
kind's group-version, falling back to /openapi/v2 when v3 fails; if it
does, the server validates. kubectl before 1.27 (Debian bookworm's 1.20)
downloads /openapi/v2 and checks the manifest against the definition whose
x-kubernetes-group-version-kind names its kind (a 404 there fails
`create -f`).

What they hold: the paths and operations of every served kind (PATCH with
x-kubernetes-group-version-kind and the fieldValidation and dryRun
parameters) and, in v2, one definition per kind and list kind. A
definition's properties are the top-level fields the server's own decoding
knows (writes.TOP_FIELDS, spec and status otherwise), typed but not
described further (FIELD_TYPES), and metadata refers to ObjectMeta with the
fields writes.META_FIELDS knows; so an old kubectl's client-side validation
rejects what strict field validation on the server rejects at those two
levels, and nothing the server accepts. There are no deeper schemas:
`kubectl explain --output plaintext-openapiv2` shows the top-level fields
only, and the v3 documents have no schemas at all.

/openapi/v2 is negotiated as kube-openapi's handler does: the Accept
clauses in order of preference (q, then the less wildcarded), the first
that JSON or the protobuf types match wins; none matches: 406 with no body.
"""

import hashlib
import json

from .openapi_pb import encode_document
from .writes import META_FIELDS, TOP_FIELDS

V2_JSON = "application/json"
V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
# What the Accept header may ask for, and what is sent for it.
V2_ACCEPTED = (("application", "json", V2_JSON),
               ("application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", V2_PROTOBUF),
               ("application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", V2_PROTOBUF))

META = "io.k8s.apimachinery.pkg.apis.meta.v1."
OBJECT_META = META + "ObjectMeta"
LIST_META = META + "ListMeta"
STATUS = META + "Status"
# Where the built-in groups' types live (k8s.io/api), for definition names.
BUILTIN_PACKAGES = {"": "core", "apps": "apps", "batch": "batch", "scheduling.k8s.io": "scheduling"}


def _op_id(verb, res, scope):
    gv = (res.group.split(".")[0].capitalize() if res.group else "Core") + res.version.capitalize()
    return "%s%s%s%s" % (verb, gv, scope, res.kind)


def _param(name, desc=""):
    return {"name": name, "in": "query", "description": desc, "schema": {"type": "string",
                                                                           "uniqueItems": True}}


def _gvk(res, kind=None):
    return {"group": res.group, "kind": kind or res.kind, "version": res.version}


def definition_name(res, kind=None):
    """The name the apiserver gives a kind's definition: `io.k8s.api.core.v1.Pod`
    for built-in kinds; for custom resources the group reversed,
    `org.kubeflow.v1.TFJob` (apiextensions' ToRESTFriendlyName)."""
    kind = kind or res.kind
    if not res.crd:
        return "io.k8s.api.%s.%s.%s" % (BUILTIN_PACKAGES[res.group], res.version, kind)
    return "%s.%s.%s" % (".".join(reversed(res.group.split("."))), res.version, kind)


def _ref(name):
    return {"$ref": "#/definitions/" + name}


def accept_clauses(header):
    """[(type, subtype)] of an Accept header, most preferred first (goautoneg)."""
    clauses = []
    for part in (header or "*/*").split(","):
        fields = [f.strip() for f in part.split(";")]
        if "/" not in fields[0]:
            continue
        typ, sub = fields[0].split("/", 1)
        q = 1.0
        for f in fields[1:]:
            if f.startswith("q="):
                try:
                    q = float(f[2:])
                except ValueError:
                    q = 0.0
        clauses.append((-q, typ == "*", sub == "*", typ, sub))
    clauses.sort(key=lambda c: c[:3])
    return [(c[3], c[4]) for c in clauses]


class OpenAPI:
    def __init__(self, registry):
        self.registry = registry
        self._v3 = {}
        self._v2 = None

    # ---- v3 ----

    def _gvs(self):
        out = []
        for r in self.registry.resources:
            gv = "api/v1" if not r.group else "apis/%s/%s" % (r.group, r.version)
            if gv not in out:
                out.append(gv)
        return out

    def v3_index(self):
        paths = {}
        for gv in self._gvs():
            body = json.dumps(self.v3_document(gv), sort_keys=True).encode()
            digest = hashlib.sha512(body).hexdigest()[:128].upper()
            paths[gv] = {"serverRelativeURL": "/openapi/v3/%s?hash=%s" % (gv, digest)}
        return {"paths": paths}

    def v3_document(self, gv):
        """The document of "api/v1" or "apis/G/V"; None for an unknown one."""
        if gv in self._v3:
            return self._v3[gv]
        if gv == "api/v1":
            group, version = "", "v1"
        elif gv.startswith("apis/") and gv.count("/") == 2:
            _, group, version = gv.split("/")
        else:
            return None
        rs = self.registry.in_version(group, version)
        if not rs:
            return None
        paths = {}
        prefix = "/api/v1" if not group else "/apis/%s/%s" % (group, version)
        for r in rs:
            gvk = {"group": r.group, "version": r.version, "kind": r.kind}
            scope = "Namespaced" if r.namespaced else ""
            base = prefix + ("/namespaces/{namespace}" if r.namespaced else "") + "/" + r.plural
            write_params = [_param("dryRun"), _param("fieldManager"),
                            _param("fieldValidation", "fieldValidation instructs the server "
                                   "on how to handle objects in the request containing unknown "
                                   "or duplicate fields.")]
            ok = {"200": {"description": "OK"}}
            paths[base] = {
                "get": {"operationId": _op_id("list", r, scope), "x-kubernetes-action": "list",
                        "x-kubernetes-group-version-kind": gvk, "responses": ok},
                "post": {"operationId": _op_id("create", r, scope), "x-kubernetes-action": "post",
                         "x-kubernetes-group-version-kind": gvk, "parameters": write_params,
                         "responses": {"201": {"description": "Created"}}},
            }
            item = {
                "get": {"operationId": _op_id("read", r, scope), "x-kubernetes-action": "get",
                        "x-kubernetes-group-version-kind": gvk, "responses": ok},
                "put": {"operationId": _op_id("replace", r, scope), "x-kubernetes-action": "put",
                        "x-kubernetes-group-version-kind": gvk, "parameters": write_params,
                        "responses": ok},
                "patch": {"operationId": _op_id("patch", r, scope),
                          "x-kubernetes-action": "patch", "x-kubernetes-group-version-kind": gvk,
                          "parameters": write_params + [_param("force")], "responses": ok},
                "delete": {"operationId": _op_id("delete", r, scope),
                           "x-kubernetes-action": "delete",
                           "x-kubernetes-group-version-kind": gvk,
                           "parameters": [_param("dryRun"), _param("gracePeriodSeconds"),
                                          _param("propagationPolicy")],
                           "responses": ok},
                "parameters": [{"name": "name", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
            }
            paths[base + "/{name}"] = item
            for sub in r.subresources:
                if sub == "status":
                    paths[base + "/{name}/status"] = {
                        k: dict(v, operationId=v["operationId"] + "Status")
                        for k, v in item.items() if k in ("get", "put", "patch")}
        doc = {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.32.0"},
               "paths": paths, "components": {"schemas": {}}}
        self._v3[gv] = doc
        return doc

    # ---- v2 ----

    def v2(self):
        """(JSON bytes, protobuf bytes, ETag) of the Swagger 2.0 document."""
        if self._v2 is None:
            doc = self.v2_document()
            body = json.dumps(doc, separators=(",", ":")).encode()
            etag = '"%s"' % hashlib.sha512(body).hexdigest().upper()
            self._v2 = (body, encode_document(doc), etag)
        return self._v2

    def v2_document(self):
        paths = {}
        definitions = {OBJECT_META: _object_meta(), LIST_META: _list_meta(), STATUS: _status()}
        for r in self.registry.resources:
            definitions[definition_name(r)] = _kind_definition(r)
            definitions[definition_name(r, r.list_kind)] = _list_definition(r)
            paths.update(_v2_paths(r))
        return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"},
                "paths": paths, "definitions": definitions}

    def negotiate_v2(self, accept):
        """The Content-Type to answer an Accept header with, or None (406)."""
        for typ, sub in accept_clauses(accept):
            for atyp, asub, ctype in V2_ACCEPTED:
                if typ in (atyp, "*") and sub in (asub, "*"):
                    return ctype
        return None


# The schema of each top-level and metadata field the definitions list,
# one level deep: "object" (a map of anything), "strings" (a map of strings),
# "array" (of objects), "string-array", or a JSON type. Never an untyped {}:
# kubectl 1.20's apply computes its patch from these definitions and panics
# on a field with no type that holds objects (a typed map makes it say
# "expected kind, but got map" and use its compiled-in types instead).
FIELD_TYPES = {
    # ObjectMeta
    "name": "string", "generateName": "string", "namespace": "string", "selfLink": "string",
    "uid": "string", "resourceVersion": "string", "generation": "integer",
    "creationTimestamp": "string", "deletionTimestamp": "string",
    "deletionGracePeriodSeconds": "integer", "labels": "strings", "annotations": "strings",
    "ownerReferences": "array", "finalizers": "string-array", "managedFields": "array",
    # the kinds' top levels (writes.TOP_FIELDS)
    "spec": "object", "status": "object", "data": "strings", "binaryData": "strings",
    "immutable": "boolean", "stringData": "strings", "type": "string", "secrets": "array",
    "imagePullSecrets": "array", "automountServiceAccountToken": "boolean",
    "involvedObject": "object", "reason": "string", "message": "string", "source": "object",
    "firstTimestamp": "string", "lastTimestamp": "string", "count": "integer",
    "eventTime": "string", "series": "object", "action": "string", "related": "object",
    "reportingComponent": "string", "reportingInstance": "string",
    # PriorityClass and Kueue's WorkloadPriorityClass
    "value": "integer", "globalDefault": "boolean", "description": "string",
    "preemptionPolicy": "string",
    # ListMeta and Status
    "continue": "string", "remainingItemCount": "integer", "code": "integer",
    "details": "object",
}


def _typed(t, desc=""):
    if t == "strings":
        s = {"type": "object", "additionalProperties": {"type": "string"}}
    elif t == "array":
        s = {"type": "array", "items": {"type": "object"}}
    elif t == "string-array":
        s = {"type": "array", "items": {"type": "string"}}
    else:
        s = {"type": t}
    if desc:
        s["description"] = desc
    return s


def _fields(names):
    return {f: _typed(FIELD_TYPES[f]) for f in sorted(names)}


def _object_meta():
    return {"description": "ObjectMeta is metadata that all persisted resources must have, "
                           "which includes all objects users must create.",
            "type": "object", "properties": _fields(META_FIELDS)}


def _list_meta():
    return {"description": "ListMeta describes metadata that synthetic resources must have, "
                           "including lists and various status objects.",
            "type": "object",
            "properties": _fields(("continue", "remainingItemCount", "resourceVersion",
                                   "selfLink"))}


def _status():
    props = {"apiVersion": _typed("string"), "kind": _typed("string"),
             "metadata": _ref(LIST_META)}
    props.update(_fields(("code", "details", "message", "reason", "status")))
    return {"description": "Status is a return value for calls that don't return other objects.",
            "type": "object", "properties": props,
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "Status", "version": "v1"}]}


def _kind_definition(res):
    props = {"apiVersion": _typed("string", "APIVersion defines the versioned schema of this "
                                  "representation of an object."),
             "kind": _typed("string", "Kind is a string value representing the REST resource "
                            "this object represents."),
             "metadata": _ref(OBJECT_META)}
    props.update(_fields(TOP_FIELDS.get(res.key, {"spec", "status"})))
    return {"description": "%s (%s), as kubesim serves it: top-level fields only."
                           % (res.kind, res.api_version),
            "type": "object", "properties": props,
            "x-kubernetes-group-version-kind": [_gvk(res)]}


def _list_definition(res):
    return {"description": "%s is a list of %s." % (res.list_kind, res.kind),
            "type": "object", "required": ["items"],
            "properties": {"apiVersion": _typed("string"), "kind": _typed("string"),
                           "metadata": _ref(LIST_META),
                           "items": {"type": "array", "items": _ref(definition_name(res))}},
            "x-kubernetes-group-version-kind": [_gvk(res, res.list_kind)]}


def _query(name, desc=""):
    p = {"uniqueItems": True, "type": "string", "name": name, "in": "query"}
    if desc:
        p["description"] = desc
    return p


def _path_param(name):
    return {"uniqueItems": True, "type": "string", "name": name, "in": "path",
            "required": True}


def _v2_paths(r):
    """The Swagger 2.0 path items of one kind: its collection, its objects and
    their status subresource, with the operations its verbs allow."""
    scope = "Namespaced" if r.namespaced else ""
    prefix = "/api/v1" if not r.group else "/apis/%s/%s" % (r.group, r.version)
    base = prefix + ("/namespaces/{namespace}" if r.namespaced else "") + "/" + r.plural
    gvk = _gvk(r)
    obj, lst = _ref(definition_name(r)), _ref(definition_name(r, r.list_kind))
    writes = [_query("dryRun"), _query("fieldManager"),
              _query("fieldValidation", "fieldValidation instructs the server on how to handle "
                     "objects in the request containing unknown or duplicate fields.")]
    body = {"name": "body", "in": "body", "required": True, "schema": obj}
    patch_types = ["application/json-patch+json", "application/merge-patch+json"] + \
        ([] if r.crd else ["application/strategic-merge-patch+json"]) + \
        ["application/apply-patch+yaml"]

    def op(verb, action, result, params=(), code="200", **extra):
        o = {"operationId": _op_id(verb, r, scope), "x-kubernetes-action": action,
             "x-kubernetes-group-version-kind": gvk,
             "responses": {code: {"description": "OK" if code == "200" else "Created",
                                  "schema": result}}}
        if params:
            o["parameters"] = list(params)
        o.update(extra)
        return o

    ns = [_path_param("namespace")] if r.namespaced else []
    collection = {"parameters": ns} if ns else {}
    if "list" in r.verbs:
        collection["get"] = op("list", "list", lst, [_query("labelSelector"),
                                                     _query("fieldSelector"), _query("limit"),
                                                     _query("continue"), _query("watch")])
    if "create" in r.verbs:
        collection["post"] = op("create", "post", obj, [body] + writes, code="201")
    if "deletecollection" in r.verbs:
        collection["delete"] = op("deletecollection", "deletecollection", _ref(STATUS),
                                  [_query("labelSelector"), _query("fieldSelector")])
    item = {"parameters": [_path_param("name")] + ns,
            "get": op("read", "get", obj),
            "put": op("replace", "put", obj, [body] + writes),
            "patch": op("patch", "patch", obj, [dict(body, schema={"type": "object"})] + writes
                        + [_query("force")], consumes=patch_types),
            "delete": op("delete", "delete", _ref(STATUS),
                         [_query("dryRun"), _query("gracePeriodSeconds"),
                          _query("propagationPolicy")])}
    paths = {base: collection, base + "/{name}": item}
    if "status" in r.subresources:
        paths[base + "/{name}/status"] = {
            "parameters": item["parameters"],
            **{k: dict(item[k], operationId=item[k]["operationId"] + "Status")
               for k in ("get", "put", "patch")}}
    return paths
