"""Non-resource endpoints: /version, discovery (/api, /api/v1, /apis,
/apis/G, /apis/G/V), /openapi/v2, /openapi/v3 and the health checks.

Discovery is the legacy (unaggregated) JSON: kubectl 1.32 asks for
aggregated discovery first and falls back when the answer is plain
application/json. The OpenAPI documents, and what kubectl reads in them,
are in openapi.py.
"""

from .openapi import OpenAPI
from .store import ApiError

VERSION = {
    "major": "1", "minor": "32", "gitVersion": "v1.32.0",
    "gitCommit": "70d3cc986aa8221cd1dfb1121852688902d3bf53", "gitTreeState": "clean",
    "buildDate": "2024-12-11T17:59:15Z", "goVersion": "go1.23.3", "compiler": "gc",
    "platform": "linux/amd64",
}

HEALTH = ("/healthz", "/livez", "/readyz")


class Discovery:
    def __init__(self, sim):
        self.sim = sim
        self.registry = sim.registry
        self.openapi = OpenAPI(sim.registry)

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
            doc = self.openapi.v3_index()
        elif p.startswith("/openapi/v3/"):
            gv = p[len("/openapi/v3/"):]
            doc = self.openapi.v3_document(gv)
            if doc is None:
                self.sim.stats.count("get " + p)
                raise ApiError(404, "NotFound", "the server could not find the requested "
                               "resource", {})
        elif p == "/openapi/v2":
            self.sim.stats.count("get " + p)
            return self.serve_openapi_v2(req)
        elif p == "/swagger.json":
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

    def serve_openapi_v2(self, req):
        """JSON or protobuf as the Accept header prefers (kube-openapi's
        handler): 406 with no body when neither is acceptable, 304 for a
        current If-None-Match."""
        h = req.h
        ctype = self.openapi.negotiate_v2(req.headers.get("Accept"))
        if ctype is None:
            h.send_bytes(406, b"", "text/plain; charset=utf-8", {"Vary": "Accept"})
            return True
        body_json, body_pb, etag = self.openapi.v2()
        headers = {"Etag": etag, "Vary": "Accept"}
        if req.headers.get("If-None-Match") == etag:
            h.send_bytes(304, b"", ctype, headers)
            return True
        h.send_bytes(200, body_json if ctype == "application/json" else body_pb, ctype,
                     headers)
        return True
