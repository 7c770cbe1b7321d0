"""/openapi/v2 as clients read it: kubectl 1.32 gets it as JSON (`get --raw`)
and as gnostic protobuf (its fieldValidation check falls back to it when
/openapi/v3 fails; `explain --output plaintext-openapiv2` finds kinds by the
definitions' x-kubernetes-group-version-kind, as kubectl before 1.27 does to
validate `create -f`), content negotiation as kube-openapi's handler does it.
"""

import http.client
import json
import urllib.parse

import pytest

from helpers import TFJOB_MANIFEST as TFJOB

PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTOBUF_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "1", "--speed", "20")


def raw_get(c, path, headers):
    """(status, headers, body bytes) of a GET with exactly these headers."""
    u = urllib.parse.urlsplit(c.url)
    h = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        h.request("GET", path, headers=headers)
        r = h.getresponse()
        return r.status, r.headers, r.read()
    finally:
        h.close()


def served_kinds(c):
    """{(group, version, kind)} of every resource discovery lists."""
    gvs = [("", "v1")]
    status, apis = c.api("GET", "/apis")
    assert status == 200, apis
    for g in apis["groups"]:
        gvs += [(g["name"], v["version"]) for v in g["versions"]]
    kinds = set()
    for group, version in gvs:
        path = "/api/v1" if not group else "/apis/%s/%s" % (group, version)
        status, rl = c.api("GET", path)
        assert status == 200, rl
        kinds |= {(group, version, r["kind"]) for r in rl["resources"] if "/" not in r["name"]}
    return kinds


def refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


def test_kubectl_get_raw_openapi_v2_is_swagger_2_with_a_definition_per_kind(c):
    doc = json.loads(c.kubectl("get", "--raw", "/openapi/v2").stdout)
    assert doc["swagger"] == "2.0" and doc["info"]["title"] == "Kubernetes", doc.get("info")
    defs = doc["definitions"]
    gvks = {}
    for name, d in defs.items():
        for g in d.get("x-kubernetes-group-version-kind", []):
            gvks[(g["group"], g["version"], g["kind"])] = name
    kinds = served_kinds(c)
    missing = sorted(k for k in kinds if k not in gvks)
    assert not missing, "kinds served without a definition: %s" % missing
    missing_lists = sorted(k for k in kinds if (k[0], k[1], k[2] + "List") not in gvks)
    assert not missing_lists, "list kinds without a definition: %s" % missing_lists
    assert gvks[("", "v1", "Pod")] == "io.k8s.api.core.v1.Pod"
    assert gvks[("kubeflow.org", "v1", "TFJob")] == "org.kubeflow.v1.TFJob"
    tf = defs["org.kubeflow.v1.TFJob"]["properties"]
    assert sorted(tf) == ["apiVersion", "kind", "metadata", "spec", "status"], sorted(tf)
    assert sorted(defs["io.k8s.api.core.v1.ConfigMap"]["properties"]) == [
        "apiVersion", "binaryData", "data", "immutable", "kind", "metadata"]
    dangling = sorted({r for r in refs(doc) if r[len("#/definitions/"):] not in defs})
    assert not dangling, "$refs to no definition: %s" % dangling
    # What kubectl's v2 query-parameter verifier looks for, per kind.
    for group, version, kind in kinds:
        patch = [op for item in doc["paths"].values() for verb, op in item.items()
                 if verb == "patch" and op["x-kubernetes-group-version-kind"] ==
                 {"group": group, "version": version, "kind": kind}]
        assert patch, "no PATCH operation for %s/%s %s" % (group, version, kind)
        names = [p["name"] for p in patch[0]["parameters"] if p["in"] == "query"]
        assert "fieldValidation" in names, (kind, names)


def test_openapi_v2_negotiates_protobuf_json_or_406(c):
    status, headers, body = raw_get(c, "/openapi/v2", {"Accept": PROTOBUF})
    assert status == 200 and headers["Content-Type"] == PROTOBUF_TYPE, (status, dict(headers))
    # gnostic's Document: field 1 (swagger) first, a string "2.0"; JSON would start with "{".
    assert body[:5] == b"\x0a\x032.0", body[:16]
    etag = headers["Etag"]
    status, _, body = raw_get(c, "/openapi/v2", {"Accept": PROTOBUF, "If-None-Match": etag})
    assert (status, body) == (304, b"")
    status, headers, body = raw_get(c, "/openapi/v2", {})
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["swagger"] == "2.0"
    status, headers, _ = raw_get(c, "/openapi/v2", {
        "Accept": "application/json;q=0.5, %s" % PROTOBUF_TYPE})
    assert headers["Content-Type"] == PROTOBUF_TYPE, "the higher q wins"
    status, headers, _ = raw_get(c, "/openapi/v2", {"Accept": "text/html"})
    assert status == 406, (status, dict(headers))


def test_kubectl_create_f_checks_field_validation_in_openapi_v2_when_v3_fails(c, tmp_path):
    c.fault(reset=True)
    c.fault(fail_next=1000, code=500, match="^GET /openapi/v3")
    try:
        good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
        good.write_text(TFJOB % ("via-v2", ""))
        bad.write_text(TFJOB % ("via-v2-typo", "  cleanupPolicy: All\n"))
        r = c.kubectl("create", "-f", str(good), check=False)
        assert (r.returncode, r.stdout) == (0, "tfjob.kubeflow.org/via-v2 created\n"), r.stderr
        # fieldValidation=Strict was sent: the v2 document (protobuf) said the
        # PATCH takes it. Had kubectl not read it, create -f would fail with
        # "failed to download openapi" or "Path not found for GVK".
        r = c.kubectl("create", "-f", str(bad), check=False)
        assert r.returncode == 1
        assert r.stderr == ('Error from server (BadRequest): error when creating "%s": TFJob in '
                            'version "v1" cannot be handled as a TFJob: strict decoding error: '
                            'unknown field "spec.cleanupPolicy"\n' % bad), r.stderr
        log = c._control("GET", "/_sim/requests")["requests"]
        v3 = [e for e in log if e["request"].startswith("GET /openapi/v3")]
        v2 = [e for e in log if e["request"].startswith("GET /openapi/v2")]
        assert v3 and all(e["status"] == 500 for e in v3), v3
        assert v2 and all(e["status"] in (200, 304) for e in v2), v2
    finally:
        c.fault(reset=True)


def test_kubectl_explain_openapiv2_finds_kinds_by_group_version_kind(c):
    out = c.kubectl("explain", "tfjobs", "--output=plaintext-openapiv2").stdout
    lines = [line.strip() for line in out.splitlines()]
    assert lines[:2] == ["KIND:     TFJob", "VERSION:  kubeflow.org/v1"], out
    assert "spec\t<map[string]>" in lines and "metadata\t<Object>" in lines, out
    out = c.kubectl("explain", "configmaps.data", "--output=plaintext-openapiv2").stdout
    assert "FIELD:    data <map[string]string>" in out, out
