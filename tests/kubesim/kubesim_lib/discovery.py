"""Non-resource endpoints: /version, discovery (/api, /api/v1, /apis,
/apis/G, /apis/G/V), /openapi/v3 and the health checks.

Discovery is the legacy (unaggregated) JSON: kubectl 1.32 asks for
aggregated discovery first and falls back when the answer is plain
application/json. OpenAPI v3 serves an index and, per group-version, the
paths of each kind with the operations kubectl's query-parameter verifier
reads: the PATCH operation carries x-kubernetes-group-version-kind and the
fieldValidation and dryRun parameters, which is what `kubectl create -f`
with the default --validate=strict needs. No schemas: `kubectl explain` and
client-side validation do not work (kubectl then relies on the server's
fieldValidation, as it does against any 1.27+ cluster).
"""

import hashlib
import json

from .store import ApiError

VERSION = {
    "major": "1", "minor": "32", "gitVersion": "v1.32.0",
    "gitCommit": "70d3cc986aa8221cd1dfb1121852688902d3bf53", "gitTreeState": "clean",
    "buildDate": "2024-12-11T17:59:15Z", "goVersion": "go1.23.3", "compiler": "gc",
    "platform": "linux/amd64",
}

HEALTH = ("/healthz", "/livez", "/readyz")


def _op_id(verb, res, scope):
    gv = (res.group.split(".")[0].capitalize() if res.group else "Core") + res.version.capitalize()
    return "%s%s%s%s" % (verb, gv, scope, res.kind)


def _param(name, desc=""):
    return {"name": name, "in": "query", "description": desc, "schema": {"type": "string",
                                                                           "uniqueItems": True}}


class Discovery:
    def __init__(self, sim):
        self.sim = sim
        self.registry = sim.registry
        self._openapi = {}

    def handle(self, req):
        """Answers req when it is a non-resource path; False otherwise."""
        p = req.path.rstrip("/") or "/"
        h = req.h
        if req.method not in ("GET", "HEAD"):
            if p in ("/api", "/apis", "/version") or p.startswith("/openapi"):
                self.sim.stats.count("%s %s" % (req.method.lower(), p))
                raise ApiError(405, "MethodNotAllowed", "the server does not allow this method "
                               "on the requested resource")
            return False
        doc = None
        if p == "/version":
            doc = VERSION
        elif p in HEALTH or p.startswith("/livez/") or p.startswith("/readyz/"):
            self.sim.stats.count("get " + p)
            h.send_bytes(200, b"ok", "text/plain; charset=utf-8")
            return True
        elif p == "/api":
            port = self.sim.listener.port if self.sim.listener else 0
            doc = {"kind": "APIVersions", "versions": ["v1"],
                   "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                   "serverAddress": "127.0.0.1:%d" % port}]}
        elif p == "/api/v1":
            doc = self.resource_list("", "v1")
        elif p == "/apis":
            doc = {"kind": "APIGroupList", "apiVersion": "v1",
                   "groups": [self.group(g, vs) for g, vs in self.registry.groups()]}
        elif p.startswith("/apis/") and p.count("/") == 2:
            g = p.split("/")[2]
            for name, vs in self.registry.groups():
                if name == g:
                    doc = {"kind": "APIGroup", "apiVersion": "v1", **self.group(name, vs)}
            if doc is None:
                self.sim.stats.count("get " + p)
                raise ApiError(404, "NotFound", "the server could not find the requested "
                               "resource", {})
        elif p.startswith("/apis/") and p.count("/") == 3:
            _, _, g, v = p.split("/")
            if not self.registry.in_version(g, v):
                self.sim.stats.count("get " + p)
                raise ApiError(404, "NotFound", "the server could not find the requested "
                               "resource", {})
            doc = self.resource_list(g, v)
        elif p == "/openapi/v3":
            doc = self.openapi_index()
        elif p.startswith("/openapi/v3/"):
            gv = p[len("/openapi/v3/"):]
            doc = self.openapi_gv(gv)
            if doc is None:
                self.sim.stats.count("get " + p)
                raise ApiError(404, "NotFound", "the server could not find the requested "
                               "resource", {})
        elif p in ("/openapi/v2", "/swagger.json"):
            self.sim.stats.count("get " + p)
            raise ApiError(404, "NotFound", "the server could not find the requested resource",
                           {})
        else:
            return False
        self.sim.stats.count("get " + p)
        self._authorize_nonresource(req)
        h.send_json(200, doc)
        return True

    def _authorize_nonresource(self, req):
        # Every authenticated user may read discovery (system:discovery).
        return

    def group(self, name, versions):
        vs = [{"groupVersion": "%s/%s" % (name, v), "version": v} for v in versions]
        return {"name": name, "versions": vs, "preferredVersion": vs[0]}

    def resource_list(self, group, version):
        resources = []
        for r in self.registry.in_version(group, version):
            resources.extend(r.discovery_entries())
        doc = {"kind": "APIResourceList", "groupVersion": version if not group else
               "%s/%s" % (group, version), "resources": resources}
        if group:
            doc["apiVersion"] = "v1"
        return doc

    # ---- openapi ----

    def _gvs(self):
        out = []
        for r in self.registry.resources:
            gv = "api/v1" if not r.group else "apis/%s/%s" % (r.group, r.version)
            if gv not in out:
                out.append(gv)
        return out

    def openapi_index(self):
        paths = {}
        for gv in self._gvs():
            body = json.dumps(self.openapi_gv(gv), sort_keys=True).encode()
            digest = hashlib.sha512(body).hexdigest()[:128].upper()
            paths[gv] = {"serverRelativeURL": "/openapi/v3/%s?hash=%s" % (gv, digest)}
        return {"paths": paths}

    def openapi_gv(self, gv):
        if gv in self._openapi:
            return self._openapi[gv]
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
        self._openapi[gv] = doc
        return doc
