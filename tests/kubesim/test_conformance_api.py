"""The API's semantics over raw HTTP, as kube-apiserver 1.32 answers:
discovery and OpenAPI documents, Tables, list resourceVersion and
pagination rules, watch streams (synthetic ADDED, resume, bookmarks,
timeout, 410, selector transitions), dryRun, generateName, updates with
conflicts, the three patch types and the status subresource."""

import http.client
import json
import time
import urllib.parse

import pytest

CM = "/api/v1/namespaces/default/configmaps"
TF = "/apis/kubeflow.org/v1/namespaces/default/tfjobs"


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--nodes", "2", "--speed", "20", "--bookmark-seconds", "1")


def cm(name, **labels):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": labels}, "data": {"k": name}}


def ok(res, code=200):
    status, body = res
    assert status == code, body
    return body


class Stream:
    """A watch (or any chunked) response read line by line."""

    def __init__(self, c, path, accept="application/json"):
        u = urllib.parse.urlsplit(c.url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        self.conn.request("GET", path, headers={"Accept": accept})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status

    def next(self):
        line = self.resp.readline()
        return json.loads(line) if line else None

    def rest(self):
        out = []
        while True:
            ev = self.next()
            if ev is None:
                return out
            out.append(ev)

    def close(self):
        self.conn.close()


def test_version_and_discovery(c):
    v = ok(c.api("GET", "/version"))
    assert set(v) >= {"major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate",
                      "goVersion", "compiler", "platform"}
    assert (v["major"], v["minor"]) == ("1", "32")
    api = ok(c.api("GET", "/api"))
    assert api["versions"] == ["v1"]
    assert api["serverAddressByClientCIDRs"][0]["serverAddress"] == c.url.split("//")[1]
    groups = {g["name"]: g for g in ok(c.api("GET", "/apis"))["groups"]}
    assert groups["kubeflow.org"]["preferredVersion"]["groupVersion"] == "kubeflow.org/v1"
    assert groups["trainer.kubeflow.org"]["versions"][0]["version"] == "v1alpha1"
    core = {r["name"]: r for r in ok(c.api("GET", "/api/v1"))["resources"]}
    assert core["pods"]["shortNames"] == ["po"] and core["pods"]["namespaced"] is True
    assert core["pods/log"] == {"name": "pods/log", "singularName": "", "namespaced": True,
                                "kind": "Pod", "verbs": ["get"]}
    kf = {r["name"]: r for r in ok(c.api("GET", "/apis/kubeflow.org/v1"))["resources"]}
    assert kf["tfjobs"]["kind"] == "TFJob" and kf["tfjobs"]["singularName"] == "tfjob"
    assert kf["tfjobs/status"]["verbs"] == ["get", "patch", "update"]
    status, _ = c.api("GET", "/apis/no.such.group/v1")
    assert status == 404


def test_openapi_v3_patch_operations_carry_field_validation(c):
    index = ok(c.api("GET", "/openapi/v3"))["paths"]
    url = index["apis/kubeflow.org/v1"]["serverRelativeURL"]
    doc = ok(c.api("GET", url))
    op = doc["paths"]["/apis/kubeflow.org/v1/namespaces/{namespace}/tfjobs/{name}"]["patch"]
    assert op["x-kubernetes-group-version-kind"] == {"group": "kubeflow.org", "version": "v1",
                                                     "kind": "TFJob"}
    assert "fieldValidation" in [p["name"] for p in op["parameters"] if p["in"] == "query"]
    core = ok(c.api("GET", index["api/v1"]["serverRelativeURL"]))
    assert "/api/v1/nodes/{name}" in core["paths"]


def test_table_for_kubectl(c):
    t = ok(c.api("GET", "/api/v1/nodes", headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}))
    assert t["kind"] == "Table" and t["apiVersion"] == "meta.k8s.io/v1"
    assert [x["name"] for x in t["columnDefinitions"] if x["priority"] == 0] == \
        ["Name", "Status", "Roles", "Age", "Version"]
    row = t["rows"][0]
    assert row["cells"][:3] == ["node-0", "Ready", "worker"]
    assert row["object"]["kind"] == "PartialObjectMetadata"
    assert row["object"]["metadata"]["name"] == "node-0"


def test_list_items_and_resource_versions(c):
    ok(c.api("POST", CM, cm("rv-a")), 201)
    lst = ok(c.api("GET", CM))
    assert lst["kind"] == "ConfigMapList" and lst["apiVersion"] == "v1"
    assert all("kind" not in i and "apiVersion" not in i for i in lst["items"]), \
        "core list items carry no kind"
    rvs = [int(i["metadata"]["resourceVersion"]) for i in lst["items"]]
    assert max(rvs) <= int(lst["metadata"]["resourceVersion"])
    empty = ok(c.api("GET", CM + "?labelSelector=nothing%3Dhere"))
    assert empty["items"] == []
    # resourceVersion=0 is served from the cache: limit is ignored
    for i in range(3):
        ok(c.api("POST", CM, cm("page-%d" % i, page="yes")), 201)
    zero = ok(c.api("GET", CM + "?labelSelector=page%3Dyes&limit=1&resourceVersion=0"))
    assert len(zero["items"]) == 3 and "continue" not in zero["metadata"]


def test_limit_continue_and_expired_token(c):
    for i in range(5):
        ok(c.api("POST", CM, cm("cont-%d" % i, cont="yes")), 201)
    first = ok(c.api("GET", CM + "?labelSelector=cont%3Dyes&limit=2"))
    assert [i["metadata"]["name"] for i in first["items"]] == ["cont-0", "cont-1"]
    tok = first["metadata"]["continue"]
    ok(c.api("DELETE", CM + "/cont-2"))
    # the continued list is the list as of the first page's resourceVersion
    second = ok(c.api("GET", CM + "?labelSelector=cont%3Dyes&limit=2&continue=" + tok))
    assert [i["metadata"]["name"] for i in second["items"]] == ["cont-2", "cont-3"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    c.fault(compact=True)
    status, body = c.api("GET", CM + "?limit=2&continue=" + second["metadata"]["continue"])
    assert status == 410 and body["reason"] == "Expired", body
    status, body = c.api("GET", CM + "?limit=2&continue=garbage")
    assert status == 400


def test_a_list_read_in_pages_is_assembled_once(c):
    """kube-apiserver serves a list's pages from its watch cache: each costs what
    its items cost. kubesim sorted and skipped the whole list again for every
    page (50,000 pods: 31.8 s in pages of 500, 3.4 s as one list); now it keeps
    the list made at the first page for the next ones, which show it as of
    then, with and without a selector."""
    for i in range(60):
        ok(c.api("POST", CM, cm("pg-%02d" % i, pg="yes", odd=str(i % 2))), 201)
    whole = [i["metadata"]["name"] for i in ok(c.api("GET", CM + "?labelSelector=pg%3Dyes"))
             ["items"]]
    for selector, want in (("pg%3Dyes", whole),
                           ("odd%3D1", [n for n in whole if int(n[3:]) % 2])):
        built = c.stats()["lists_built"]["configmaps"]
        names, tok, pages = [], "", 0
        while tok is not None:
            page = ok(c.api("GET", CM + "?labelSelector=%s&limit=7%s" % (
                selector, "&continue=" + tok if tok else "")))
            names += [i["metadata"]["name"] for i in page["items"]]
            tok = page["metadata"].get("continue")
            pages += 1
            if pages == 2:
                ok(c.api("DELETE", CM + "/" + want[-1]))   # later pages: the list as of then
                ok(c.api("POST", CM, cm("pg-zz", pg="yes", odd="1")), 201)
        assert names == want and pages > 4, (selector, names)
        assert c.stats()["lists_built"]["configmaps"] - built == 1, (selector, pages)
        ok(c.api("POST", CM, cm(want[-1], pg="yes", odd="1")), 201)
        ok(c.api("DELETE", CM + "/pg-zz"))


def test_watch_synthetic_added_then_changes_and_timeout(c):
    ok(c.api("POST", CM, cm("w-1", w="a")), 201)
    s = Stream(c, CM + "?watch=True&labelSelector=w%3Da&timeoutSeconds=2")
    assert s.status == 200
    first = s.next()
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "w-1")
    assert first["object"]["kind"] == "ConfigMap"
    ok(c.api("PATCH", CM + "/w-1", b'{"data":{"k":"v2"}}',
             headers={"Content-Type": "application/merge-patch+json"}))
    ev = s.next()
    assert ev["type"] == "MODIFIED" and ev["object"]["data"] == {"k": "v2"}
    start = time.monotonic()
    assert s.rest() == [], "the stream ends cleanly at timeoutSeconds"
    assert time.monotonic() - start < 10
    s.close()


def test_watch_selector_transitions_and_resume(c):
    ok(c.api("POST", CM, cm("sel-1", tier="gold")), 201)
    rv = ok(c.api("GET", CM))["metadata"]["resourceVersion"]
    s = Stream(c, CM + "?watch=1&labelSelector=tier%3Dgold&timeoutSeconds=3&resourceVersion="
               + rv)
    # leaves the selection: DELETED; comes back: ADDED
    ok(c.api("PATCH", CM + "/sel-1", b'{"metadata":{"labels":{"tier":"iron"}}}',
             headers={"Content-Type": "application/merge-patch+json"}))
    ok(c.api("PATCH", CM + "/sel-1", b'{"metadata":{"labels":{"tier":"gold"}}}',
             headers={"Content-Type": "application/merge-patch+json"}))
    evs = [(e["type"], e["object"]["metadata"]["labels"]["tier"]) for e in s.rest()]
    assert evs == [("DELETED", "gold"), ("ADDED", "gold")], evs
    s.close()


def test_watch_bookmarks_and_410(c):
    s = Stream(c, "/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=%s"
               "&timeoutSeconds=3" % ok(c.api("GET", "/api/v1/nodes"))["metadata"]
               ["resourceVersion"])
    evs = s.rest()
    marks = [e for e in evs if e["type"] == "BOOKMARK"]
    assert marks, evs
    assert marks[0]["object"]["kind"] == "Node"
    assert set(marks[0]["object"]["metadata"]) == {"resourceVersion"}
    s.close()
    old = ok(c.api("GET", CM))["metadata"]["resourceVersion"]
    ok(c.api("POST", CM, cm("after")), 201)
    c.fault(compact=True)
    s = Stream(c, CM + "?watch=true&resourceVersion=" + old)
    assert s.status == 200
    evs = s.rest()
    assert len(evs) == 1 and evs[0]["type"] == "ERROR", evs
    st = evs[0]["object"]
    assert (st["kind"], st["code"], st["reason"]) == ("Status", 410, "Expired")
    assert st["message"].startswith("too old resource version: %s (" % old)
    s.close()


def test_create_dry_run_and_generate_name(c):
    body = ok(c.api("POST", CM + "?dryRun=All", cm("dry")), 201)
    assert body["metadata"]["uid"] and "resourceVersion" not in body["metadata"]
    assert c.api("GET", CM + "/dry")[0] == 404
    gen = ok(c.api("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"generateName": "gen-"}}), 201)
    name = gen["metadata"]["name"]
    assert name.startswith("gen-") and len(name) == 9
    assert ok(c.api("GET", CM + "/" + name))["metadata"]["uid"] == gen["metadata"]["uid"]


def test_update_conflict_and_no_op(c):
    made = ok(c.api("POST", CM, cm("upd")), 201)
    made["data"] = {"k": "2"}
    upd = ok(c.api("PUT", CM + "/upd", made))
    assert int(upd["metadata"]["resourceVersion"]) > int(made["metadata"]["resourceVersion"])
    status, body = c.api("PUT", CM + "/upd", made)      # the old resourceVersion
    assert status == 409 and body["reason"] == "Conflict"
    assert body["message"] == ('Operation cannot be fulfilled on configmaps "upd": the object has '
                               'been modified; please apply your changes to the latest version '
                               'and try again')
    same = ok(c.api("PUT", CM + "/upd", upd))
    assert same["metadata"]["resourceVersion"] == upd["metadata"]["resourceVersion"], \
        "an update that changes nothing writes nothing"
    status, body = c.api("PUT", CM + "/other-name", upd)
    assert status == 400


def test_patch_types(c):
    ok(c.api("POST", CM, dict(cm("pt"), data={"a": "1", "b": "2"})), 201)
    merged = ok(c.api("PATCH", CM + "/pt", b'{"data":{"a":null,"c":"3"}}',
                      headers={"Content-Type": "application/merge-patch+json"}))
    assert merged["data"] == {"b": "2", "c": "3"}
    jp = ok(c.api("PATCH", CM + "/pt", b'[{"op":"replace","path":"/data/b","value":"x"},'
                  b'{"op":"add","path":"/metadata/labels/j","value":"p"}]',
                  headers={"Content-Type": "application/json-patch+json"}))
    assert jp["data"]["b"] == "x" and jp["metadata"]["labels"]["j"] == "p"
    status, _ = c.api("PATCH", CM + "/pt", b'[{"op":"test","path":"/data/b","value":"no"}]',
                      headers={"Content-Type": "application/json-patch+json"})
    assert status == 422
    smp = ok(c.api("PATCH", CM + "/pt", b'{"data":{"d":"4"}}',
                   headers={"Content-Type": "application/strategic-merge-patch+json"}))
    assert smp["data"]["d"] == "4" and smp["data"]["b"] == "x"
    status, body = c.api("PATCH", TF + "/nope", b'{}',
                         headers={"Content-Type": "application/merge-patch+json"})
    assert status == 404 and body["message"] == 'tfjobs.kubeflow.org "nope" not found'


def test_status_subresource(c):
    pvcs = "/api/v1/namespaces/default/persistentvolumeclaims"
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "st"},
             "spec": {"accessModes": ["ReadWriteOnce"],
                      "resources": {"requests": {"storage": "1Gi"}}}}
    made = ok(c.api("POST", pvcs, claim), 201)
    assert made["status"] == {"phase": "Pending"}
    # the main resource ignores status; the status subresource takes only status
    made["status"] = {"phase": "Bound"}
    made["metadata"]["labels"] = {"kept": "yes"}
    after = ok(c.api("PUT", pvcs + "/st", made))
    assert after["status"] == {"phase": "Pending"} and after["metadata"]["labels"] == {"kept": "yes"}
    after["status"] = {"phase": "Bound"}
    after["metadata"]["labels"] = {"ignored": "yes"}
    st = ok(c.api("PUT", pvcs + "/st/status", after))
    assert st["status"] == {"phase": "Bound"} and st["metadata"]["labels"] == {"kept": "yes"}


def test_custom_resource_update_needs_a_resource_version(c):
    path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainingruntimes"
    made = ok(c.api("POST", path, {"apiVersion": "trainer.kubeflow.org/v1alpha1",
                                   "kind": "TrainingRuntime", "metadata": {"name": "rt"},
                                   "spec": {"mlPolicy": {"numNodes": 1}}}), 201)
    del made["metadata"]["resourceVersion"]
    status, body = c.api("PUT", path + "/rt", made)
    assert status == 422, body
    assert body["message"] == ('TrainingRuntime.trainer.kubeflow.org "rt" is invalid: '
                               'metadata.resourceVersion: Invalid value: 0x0: must be specified '
                               'for an update')
