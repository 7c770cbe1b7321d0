"""kubesim against the real thing: the requests arenafs makes, sent to kubesim
and to the real cluster (tests/cluster/), their answers compared field by field
once what is meant to differ (uids, times, resourceVersions, generated names,
the server's address) is taken out. Where they differ on purpose, the
difference is written in docs/kubesim.md and named in KNOWN below; any other
difference fails the test with both answers.

The requests: discovery (Kueue's groups too); list with limit and continue; watch with bookmarks
from a resourceVersion, from one that is too old (410) and from one that is
no version (500; a list 400); get; create with
dryRun=All; delete with propagationPolicy; a SelfSubjectAccessReview; pod logs (previous, container,
tailLines, follow of a finished container); Kueue's: a labelled job made
suspended, its Workload, the LocalQueue's line from the visibility API and the
admission when quota frees; and the errors 401, 403, 404, 409, 410 and 422 with
the webhook's denial."""

import json
import re
import time
import urllib.request

import pytest

from helpers import wait_until

NS = "default"
TFJOBS = "/apis/kubeflow.org/v1/namespaces/%s/tfjobs" % NS
# Fields that are the server's own and never compared.
VOLATILE = {"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
            "selfLink", "deletionTimestamp", "continue"}


def tfjob(name, run="600"):
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                    "env": [{"name": "SIM_RUN_SECONDS", "value": run},
                            {"name": "KWOK_RUN", "value": run + "s"}]}]}}}}}}


def scrub(v):
    """v without the fields each server fills in its own way."""
    if isinstance(v, dict):
        return {k: scrub(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v


def cel_as_newest(v):
    """A refusal by a CRD's CEL rule as 1.37 words it: 1.32 writes `Invalid value:
    "object": MESSAGE` and `Invalid value: "null": ...` where 1.37 writes `Invalid
    value: MESSAGE` and `Invalid value: null: ...` (kubesim: the newest;
    docs/kubesim.md)."""
    text = json.dumps(v).replace('Invalid value: \\"object\\": ', "Invalid value: ")
    return json.loads(text.replace('Invalid value: \\"null\\": ', "Invalid value: null: "))


def same(real, sim, what):
    """Asserts equal after scrub(), printing both in full when not."""
    a, b = scrub(real), scrub(sim)
    assert a == b, "%s differs:\nreal:    %s\nkubesim: %s" % (
        what, json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))


@pytest.fixture(scope="module")
def both(real_cluster, kubesim_module):
    sim = kubesim_module("--tls", "--nodes", "2", "--gpus", "8", "--speed", "10", "--kueue")
    return real_cluster, sim


def on_both(both, method, path, body=None, **kw):
    real, sim = both
    return real.api(method, path, body, **kw), sim.api(method, path, body, **kw)


def cleanup(both, *names):
    for c in both:
        for n in names:
            c.api("DELETE", "%s/%s" % (TFJOBS, n))


# ---- discovery ----

# Resources the API gained after the oldest release the real cluster is built at
# (tests/cluster/k8s/), with the minor that brought them. kubesim lists them as
# the newest does; against an older release they are left out of its answer, and
# the real one must indeed lack them (docs/kubesim.md).
SINCE = {"pods/resize": 33}


def real_minor(real):
    status, body = real.api("GET", "/version")
    assert status == 200, body
    return int(body["minor"].rstrip("+"))


def resources(body, names):
    return sorted((r for r in body["resources"] if r["name"].split("/")[0] in names),
                  key=lambda r: r["name"])


def as_of(sim_resources, minor):
    """kubesim's discovery of names as a release of that minor lists them."""
    return [r for r in sim_resources if SINCE.get(r["name"], 0) <= minor]


def test_discovery_of_the_training_kinds(both):
    (rs, real), (ss, sim) = on_both(both, "GET", "/apis/kubeflow.org/v1")
    assert rs == ss == 200
    kinds = ["tfjobs", "pytorchjobs", "mpijobs", "xgboostjobs", "paddlejobs", "jaxjobs"]
    same(resources(real, kinds), resources(sim, kinds), "/apis/kubeflow.org/v1")


def test_discovery_of_the_core_resources_arenafs_reads(both):
    (rs, real), (ss, sim) = on_both(both, "GET", "/api/v1")
    assert rs == ss == 200
    names = ["pods", "nodes", "events", "namespaces", "services", "persistentvolumeclaims"]
    keep = ("name", "kind", "namespaced", "verbs", "shortNames", "singularName", "categories",
            "storageVersionHash", "group", "version")
    minor = real_minor(both[0])
    real_names = {r["name"] for r in resources(real, names)}
    for name, since in SINCE.items():
        assert (name in real_names) == (minor >= since), \
            "1.%d %s %s (SINCE says from 1.%d)" % (minor, "lists" if name in real_names
                                                   else "lacks", name, since)
    pick = lambda rs: [{k: r.get(k) for k in keep} for r in rs]  # noqa: E731
    same(pick(resources(real, names)), pick(as_of(resources(sim, names), minor)),
         "/api/v1 (against 1.%d)" % minor)


def test_a_claim_as_made_listed_and_watched(both):
    """data/ reads claims: a claim nothing binds (no class, no volume) is created,
    listed and watched alike: Pending, the same defaults and finalizer."""
    pvcs = "/api/v1/namespaces/%s/persistentvolumeclaims" % NS
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "conf-claim", "annotations": {"description": "d"}},
             "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "storageClassName": "",
                      "resources": {"requests": {"storage": "1Gi"}}}}
    try:
        (rs, real), (ss, sim) = on_both(both, "POST", pvcs, claim)
        assert rs == ss == 201, (real, sim)
        same(real, sim, "a created claim")
        (rs, real), (ss, sim) = on_both(both, "GET", pvcs + "?fieldSelector=metadata.name%3Dconf-claim")
        assert rs == ss == 200
        same([real["kind"], real["items"]], [sim["kind"], sim["items"]], "the list of claims")
    finally:
        for c in both:
            c.api("DELETE", pvcs + "/conf-claim")


# ---- errors ----

def test_not_found(both):
    (rs, real), (ss, sim) = on_both(both, "GET", TFJOBS + "/nope")
    assert rs == ss == 404
    same(real, sim, "404 of a TFJob")
    (rs, real), (ss, sim) = on_both(both, "GET", "/api/v1/namespaces/%s/pods/nope" % NS)
    same(real, sim, "404 of a pod")


def test_already_exists(both):
    try:
        for c in both:
            assert c.api("POST", TFJOBS, tfjob("twice"))[0] == 201
        (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS, tfjob("twice"))
        assert rs == ss == 409
        same(real, sim, "409 AlreadyExists")
    finally:
        cleanup(both, "twice")


def test_invalid_name_is_422(both):
    (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS, tfjob("Bad_Name"))
    assert rs == ss == 422
    same(real, sim, "422 Invalid")


def test_webhook_denies_a_name_that_is_no_dns1035_label(both):
    (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS + "?dryRun=All", tfjob("9lives"))
    same({"code": rs, **real}, {"code": ss, **sim}, "the operator webhook's denial")


def test_unauthorized_token_is_401(both):
    (rs, real), (ss, sim) = on_both(both, "GET", TFJOBS, token="not-a-token")
    assert rs == ss == 401
    same(real, sim, "401 of an unknown token")


def test_viewer_may_not_create_403(both):
    (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS + "?dryRun=All", tfjob("v"),
                                    context="viewer")
    assert rs == ss == 403
    real["message"] = real["message"].replace("system:serviceaccount:default:viewer", "viewer")
    same(real, sim, "403 of the viewer")


SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


def access_review(namespace, verb="create", resource="tfjobs", group="kubeflow.org"):
    return {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
            "spec": {"resourceAttributes": {"namespace": namespace, "verb": verb,
                                            "group": group, "resource": resource}}}


def test_viewer_asks_what_it_may_do(both):
    """A SelfSubjectAccessReview (what arenafs asks before it offers a
    namespace's submit/): the viewer may not create TFJobs in team-a; RBAC's
    no has no reason. Its yes (list pods in default) names the RoleBinding,
    whose words differ (the real viewer is a ServiceAccount)."""
    (rs, real), (ss, sim) = on_both(both, "POST", SSAR, access_review("team-a"),
                                    context="viewer")
    assert rs == ss == 201, (real, sim)
    same(real, sim, "the viewer's SelfSubjectAccessReview")
    assert real["status"] == {"allowed": False}
    (rs, real), (ss, sim) = on_both(both, "POST", SSAR,
                                    access_review(NS, "list", "pods", ""), context="viewer")
    assert rs == ss == 201, (real, sim)
    assert real["status"]["allowed"] is sim["status"]["allowed"] is True
    assert real["status"]["reason"].startswith("RBAC: allowed by RoleBinding")
    assert sim["status"]["reason"].startswith("RBAC: allowed by RoleBinding")
    (rs, real), (ss, sim) = on_both(both, "POST", SSAR, access_review("team-a"))
    assert rs == ss == 201 and real["status"]["allowed"] is sim["status"]["allowed"] is True


# ---- create, get, delete ----

def test_dry_run_create_answers_the_object_and_makes_nothing(both):
    (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS + "?dryRun=All", tfjob("dry"))
    assert rs == ss == 201
    same(real, sim, "the dry-run answer")
    for c in both:
        assert c.api("GET", TFJOBS + "/dry")[0] == 404


def test_get_after_create(both):
    try:
        for c in both:
            assert c.api("POST", TFJOBS, tfjob("got"))[0] == 201
        (rs, real), (ss, sim) = on_both(both, "GET", TFJOBS + "/got")
        assert rs == ss == 200
        # status is the operator's and moves on its own; the rest is the stored object
        real.pop("status", None)
        sim.pop("status", None)
        same(real, sim, "GET of a created TFJob")
    finally:
        cleanup(both, "got")


def test_delete_with_propagation_policy(both):
    for c in both:
        assert c.api("POST", TFJOBS, tfjob("gone"))[0] == 201
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
    (rs, real), (ss, sim) = on_both(both, "DELETE", TFJOBS + "/gone", body)
    assert rs == ss == 200
    real.pop("status", None)
    sim.pop("status", None)
    same(real, sim, "DELETE's answer")
    for c in both:
        wait_until(lambda: c.api("GET", TFJOBS + "/gone")[0] == 404, timeout=30,
                   message="the deleted TFJob to be gone")


# ---- list and watch ----

def test_list_with_limit_and_continue(both):
    names = ["page-a", "page-b", "page-c"]
    try:
        for c in both:
            for n in names:
                assert c.api("POST", TFJOBS, tfjob(n))[0] == 201
        (rs, real), (ss, sim) = on_both(both, "GET", TFJOBS + "?limit=2")
        assert rs == ss == 200
        for body in (real, sim):
            assert body["metadata"]["continue"]
        same({"meta": real["metadata"], "names": [i["metadata"]["name"] for i in real["items"]]},
             {"meta": sim["metadata"], "names": [i["metadata"]["name"] for i in sim["items"]]},
             "the first page")
        (rs, real), (ss, sim) = both[0].api("GET", TFJOBS + "?limit=2&continue=" +
                                            real["metadata"]["continue"]), \
            both[1].api("GET", TFJOBS + "?limit=2&continue=" + sim["metadata"]["continue"])
        assert rs == ss == 200
        same({"meta": real["metadata"], "names": [i["metadata"]["name"] for i in real["items"]]},
             {"meta": sim["metadata"], "names": [i["metadata"]["name"] for i in sim["items"]]},
             "the last page")
        (rs, real), (ss, sim) = on_both(both, "GET", TFJOBS + "?limit=2&continue=garbage")
        same({"code": rs, **real}, {"code": ss, **sim}, "a continue token that is no token")
    finally:
        cleanup(both, *names)


def stream(c, path, seconds):
    """The watch events a server sends on path within seconds (or until it ends)."""
    ctx = c._ssl_for(None, None)
    hdrs = {"Accept": "application/json"}
    tok = c.token()
    if tok:
        hdrs["Authorization"] = "Bearer " + tok
    req = urllib.request.Request(c.url + path, headers=hdrs)
    events = []
    deadline = time.monotonic() + seconds
    with urllib.request.urlopen(req, context=ctx, timeout=seconds + 5) as r:
        for line in r:
            events.append(json.loads(line))
            if time.monotonic() > deadline:
                break
    return events


def test_watch_from_a_resource_version_sees_an_add(both):
    try:
        got = []
        for c in both:
            rv = c.api("GET", TFJOBS)[1]["metadata"]["resourceVersion"]
            assert c.api("POST", TFJOBS, tfjob("watched"))[0] == 201
            events = stream(c, TFJOBS + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=2"
                            "&resourceVersion=" + rv, 3)
            got.append([(e["type"], e["object"]["kind"],
                         e["object"]["metadata"].get("name")) for e in events
                        if e["type"] != "MODIFIED"][:1])
        assert got[0] == got[1] == [("ADDED", "TFJob", "watched")]
    finally:
        cleanup(both, "watched")


def test_watch_from_a_too_old_resource_version_is_410(both):
    got = []
    for c in both:
        status, body = c.api("GET", TFJOBS + "?watch=true&resourceVersion=1&timeoutSeconds=2")
        if status == 200:  # the real server: an ERROR event in a 200 stream
            events = [json.loads(line) for line in body.splitlines() if line.strip()] \
                if isinstance(body, str) else [body]
            obj = scrub(events[0]["object"])
            if "message" in obj:  # resourceVersions: "too old resource version: 1 (271)"
                obj["message"] = re.sub(r"\d+", "N", obj["message"])
            got.append(("event", events[0]["type"], obj))
        else:
            got.append(("status", status, scrub(body)))
    assert got[0] == got[1], "410 differs:\nreal:    %s\nkubesim: %s" % tuple(got)


def test_a_resource_version_that_is_no_version_is_refused(both):
    """What a watch resumed from a lying server's "abc" meets (issue 23): the
    reflector lists again on it, so kubesim must answer it as the real one: a
    watch 500 (no reason; the storage's field error), a list 400."""
    for query in ("?watch=true&resourceVersion=abc&timeoutSeconds=2",
                  "?watch=true&resourceVersion=18446744073709551616&timeoutSeconds=2",
                  "?resourceVersion=abc&limit=500"):
        got = [(c.api("GET", TFJOBS + query)) for c in both]
        got = [(status, scrub(body)) for status, body in got]
        assert got[0] == got[1], "%s differs:\nreal:    %s\nkubesim: %s" % ((query,) + tuple(got))
        assert got[0][0] in (400, 500) and \
            'resourceVersion: Invalid value: "' in got[0][1]["message"], got


# ---- logs ----

def read_for(c, path, seconds):
    """What a streaming GET sends within seconds (it may never end)."""
    req = urllib.request.Request(c.url + path, headers={"Accept": "application/json, */*"})
    data = b""
    try:
        with urllib.request.urlopen(req, context=c._ssl(), timeout=seconds) as r:
            while True:
                chunk = r.read1(65536)
                if not chunk:
                    break
                data += chunk
    except (TimeoutError, OSError):
        pass
    return data.decode(errors="replace")


def a_finished_pod(c):
    pods = c.api("GET", "/api/v1/namespaces/%s/pods" % NS)[1]["items"]
    return next((p for p in pods if p["status"].get("phase") == "Succeeded"), None)


def test_log_errors(both):
    try:
        for c in both:
            assert c.api("POST", TFJOBS, tfjob("logged", run="2"))[0] == 201
        for c in both:
            wait_until(lambda: c.api("GET", "/api/v1/namespaces/%s/pods/logged-worker-0" % NS)[1]
                       .get("status", {}).get("phase") == "Succeeded", timeout=90,
                       message="logged-worker-0 to finish")
        base = "/api/v1/namespaces/%s/pods/logged-worker-0/log" % NS
        # previous=true of a first instance: a kubelet answers 400 (kubesim says
        # what it says); kwok serves its one "previous" file for every container.
        # A difference of the fake node, not of kubesim (docs/real-cluster.md):
        # held here as it is, so that a kwok that learns it shows up.
        (rs, real), (ss, sim) = on_both(both, "GET", base + "?previous=true")
        assert (rs, ss) == (200, 400), (real, sim)
        assert sim["message"] == ('previous terminated container "tensorflow" in pod '
                                  '"logged-worker-0" not found')
        (rs, real), (ss, sim) = on_both(both, "GET", base + "?container=nope")
        same({"code": rs, "body": real}, {"code": ss, "body": sim}, "an unknown container")
        (rs, real), (ss, sim) = on_both(both, "GET", base + "?tailLines=2")
        assert rs == ss == 200
        assert len(real.splitlines()) == len(sim.splitlines()) == 2
        # follow of a finished container: a kubelet sends the log and ends the
        # stream; kwok's never ends (docs/real-cluster.md), so the real side is
        # read for a few seconds only
        ss, sim = both[1].api("GET", base + "?follow=true&timestamps=true")
        real = read_for(both[0], base + "?follow=true&timestamps=true", 3)
        assert ss == 200 and real.strip() and sim.strip()
        for body in (real, sim):
            assert all(line[:4].isdigit() and "Z " in line for line in body.splitlines())
    finally:
        cleanup(both, "logged")


# ---- Kueue (the real cluster's queues.yaml; kubesim --kueue makes the same) ----

KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
VISIBILITY = "/apis/visibility.kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def test_discovery_of_kueue(both):
    for path, names in ((KUEUE, ["workloads", "localqueues", "clusterqueues", "resourceflavors"]),
                        (VISIBILITY, ["localqueues", "clusterqueues"])):
        (rs, real), (ss, sim) = on_both(both, "GET", path)
        assert rs == ss == 200, (path, real, sim)
        same(resources(real, names), resources(sim, names), path)


def queued_tfjob(name, gpus):
    job = tfjob(name, run="100000")
    job["metadata"]["labels"] = {QUEUE_LABEL: "user-queue"}
    c = job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return job


def workload_of(c, job):
    """The Workload whose controller is job (its name is Kueue's hash: not compared)."""
    _, body = c.api("GET", "%s/namespaces/%s/workloads" % (KUEUE, NS))
    for w in body.get("items", []):
        for ref in w["metadata"].get("ownerReferences", []):
            if ref.get("controller") and ref["name"] == job:
                return w
    return None


def workload_facts(w):
    """What arenafs reads of a Workload, names of Kueue's own making left out."""
    st = w.get("status", {})
    conds = {c["type"]: (c["status"], c.get("reason"), c.get("message"))
             for c in st.get("conditions", [])}
    adm = st.get("admission") or {}
    return {"queueName": w["spec"].get("queueName"),
            "podSets": [(p.get("name"), p.get("count")) for p in w["spec"]["podSets"]],
            "owner": [(r["kind"], r["name"], r.get("controller")) for r in
                      w["metadata"].get("ownerReferences", [])],
            "QuotaReserved": conds.get("QuotaReserved"),
            "Admitted": conds.get("Admitted", (None,))[0] == "True" and conds["Admitted"],
            "clusterQueue": adm.get("clusterQueue"),
            "usage": [(a.get("name"), (a.get("resourceUsage") or {}).get("nvidia.com/gpu"))
                      for a in adm.get("podSetAssignments", [])]}


def line(c):
    _, body = c.api("GET", "%s/namespaces/%s/localqueues/user-queue/pendingworkloads"
                    % (VISIBILITY, NS))
    return [(i["localQueueName"], i["positionInClusterQueue"], i["positionInLocalQueue"],
             i["priority"], [(r["kind"], r["name"], sorted(r)) for r in
                             i["metadata"].get("ownerReferences", [])])
            for i in body.get("items", [])]


def test_kueue_holds_a_labelled_job_in_line_and_admits_it_when_quota_frees(both):
    names = ["conf-q1", "conf-q2", "conf-q3"]
    try:
        for n in names:
            (rs, real), (ss, sim) = on_both(both, "POST", TFJOBS, queued_tfjob(n, 4))
            assert rs == ss == 201, (real, sim)
            # Kueue's webhook: created suspended
            assert real["spec"]["runPolicy"]["suspend"] is True, real
            assert sim["spec"]["runPolicy"]["suspend"] is True, sim
            time.sleep(1)   # created in this order: the line is by creation
        for c in both:
            wait_until(lambda: (lambda w: w and workload_facts(w)["QuotaReserved"] and
                                workload_facts(w)["QuotaReserved"][0] == "False")(
                workload_of(c, "conf-q3")), timeout=120, message="conf-q3 waits in line")
            wait_until(lambda: all(workload_of(c, n) and workload_facts(workload_of(c, n))[
                "Admitted"] for n in names[:2]), timeout=120, message="two admitted")
        real, sim = both
        for n in names:
            same(workload_facts(workload_of(real, n)), workload_facts(workload_of(sim, n)),
                 "the Workload of " + n)
        same(line(real), line(sim), "the line of user-queue")
        for n in names:
            (rs, rj), (ss, sj) = on_both(both, "GET", "%s/%s" % (TFJOBS, n))
            assert rj["spec"]["runPolicy"]["suspend"] == sj["spec"]["runPolicy"]["suspend"], n
        # Kueue writes a LocalQueue's counts a moment after the Workloads' conditions
        for c in both:
            wait_until(lambda: c.api("GET", "%s/namespaces/%s/localqueues/user-queue" % (
                KUEUE, NS))[1].get("status", {}).get("admittedWorkloads") == 2, timeout=60,
                message="user-queue's status counts the two admitted")
        (rs, real_lq), (ss, sim_lq) = on_both(
            both, "GET", "%s/namespaces/%s/localqueues/user-queue" % (KUEUE, NS))
        pick = lambda q: {k: q["status"].get(k) for k in (  # noqa: E731
            "pendingWorkloads", "reservingWorkloads", "admittedWorkloads", "flavorsUsage")}
        same(pick(real_lq), pick(sim_lq), "user-queue's status")
        # one admitted job goes: the one in line is admitted, and resumed
        for c in both:
            c.api("DELETE", "%s/%s" % (TFJOBS, names[0]))
        for c in both:
            wait_until(lambda: workload_of(c, "conf-q3") and workload_facts(
                workload_of(c, "conf-q3"))["Admitted"], timeout=120,
                message="conf-q3 admitted")
            wait_until(lambda: c.api("GET", "%s/conf-q3" % TFJOBS)[1]["spec"]["runPolicy"][
                "suspend"] is False, timeout=60, message="conf-q3 resumed")
        same(workload_facts(workload_of(real, "conf-q3")),
             workload_facts(workload_of(sim, "conf-q3")), "the admitted Workload")
        same(line(real), line(sim), "the empty line")
        (rs, real), (ss, sim) = on_both(
            both, "GET", "%s/namespaces/%s/localqueues/nope/pendingworkloads" % (VISIBILITY, NS))
        assert rs == ss == 404
        same(real, sim, "the line of a LocalQueue that does not exist")
    finally:
        cleanup(both, *names)
# ---- Kubeflow Trainer v2: TrainJob, its runtimes, its pods ----

TRAINER = "/apis/trainer.kubeflow.org/v1alpha1"
TRAINJOBS = TRAINER + "/namespaces/%s/trainjobs" % NS


def trainjob(name, nodes=2, run="600"):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name},
            "spec": {"runtimeRef": {"name": "torch-distributed"},
                     "trainer": {"image": "pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime",
                                 "command": ["torchrun", "train.py"], "numNodes": nodes,
                                 "env": [{"name": "SIM_RUN_SECONDS", "value": run},
                                         {"name": "KWOK_RUN", "value": run + "s"}],
                                 "resourcesPerNode": {"limits": {"nvidia.com/gpu": "1"}}}}}


def test_discovery_of_trainer(both):
    (rs, real), (ss, sim) = on_both(both, "GET", TRAINER)
    assert rs == ss == 200
    names = ["trainjobs", "trainingruntimes", "clustertrainingruntimes"]
    keep = ("name", "kind", "namespaced", "verbs", "singularName")
    pick = lambda b: [{k: r.get(k) for k in keep} for r in resources(b, names)]  # noqa: E731
    same(pick(real), pick(sim), TRAINER)


def test_trainer_runtimes_installed(both):
    """What the file runtimes reads: the same ClusterTrainingRuntimes, names,
    framework labels and numNodes (kubesim makes them as up installs them)."""
    (rs, real), (ss, sim) = on_both(both, "GET", TRAINER + "/clustertrainingruntimes")
    assert rs == ss == 200
    pick = lambda b: sorted((i["metadata"]["name"],  # noqa: E731
                             i["metadata"].get("labels", {}).get("trainer.kubeflow.org/framework"),
                             i["spec"]["mlPolicy"].get("numNodes")) for i in b["items"])
    same(pick(real), pick(sim), "the ClusterTrainingRuntimes")


def trainjob_pods(c, name):
    code, body = c.api("GET", "/api/v1/namespaces/%s/pods?labelSelector="
                       "jobset.sigs.k8s.io/jobset-name%%3D%s" % (NS, name))
    assert code == 200, body
    return body["items"]


def test_a_trainjob_as_arenafs_reads_it(both):
    """The TrainJob's status while it runs, its Job, and what arenafs reads of
    its pods: the JobSet labels (instances/), the completion index (the main
    instance), the container and its GPUs."""
    try:
        for c in both:
            code, body = c.api("POST", TRAINJOBS, trainjob("tj-conf"))
            assert code == 201, body
        for c in both:
            wait_until(lambda: len(trainjob_pods(c, "tj-conf")) == 2 and all(
                p["status"].get("phase") == "Running" for p in trainjob_pods(c, "tj-conf")),
                timeout=120, message="the TrainJob's two pods running on %s" % c.kind)
        # JobSet's status follows the Job's, which follows the pods'
        for c in both:
            wait_until(lambda: ((c.api("GET", TRAINJOBS + "/tj-conf")[1].get("status") or {})
                                .get("jobsStatus") or [{}])[0].get("ready") == 1,
                       timeout=60, message="the TrainJob's Job ready on %s" % c.kind)
        (rs, real), (ss, sim) = on_both(both, "GET", TRAINJOBS + "/tj-conf")
        assert rs == ss == 200
        same(real.get("status"), sim.get("status"), "a running TrainJob's status")
        (rs, real), (ss, sim) = on_both(both, "GET", "/apis/batch/v1/namespaces/%s/jobs" % NS)
        pick_jobs = lambda b: sorted(  # noqa: E731
            (j["metadata"]["name"], j["spec"].get("completionMode"), j["spec"].get("completions"),
             j["spec"].get("parallelism"))
            for j in b["items"] if j["metadata"]["name"].startswith("tj-conf"))
        same(pick_jobs(real), pick_jobs(sim), "the TrainJob's batch Jobs")

        def pick_pods(c):
            out = []
            for p in sorted(trainjob_pods(c, "tj-conf"), key=lambda p: p["metadata"]["name"]):
                lab = p["metadata"].get("labels") or {}
                ctr = p["spec"]["containers"][0]
                out.append({
                    # job-key and jobset-uid are hashes and uids: each server's own
                    "labels": {k: v for k, v in lab.items() if k.startswith("jobset.sigs.k8s.io/")
                               and k not in ("jobset.sigs.k8s.io/job-key",
                                             "jobset.sigs.k8s.io/jobset-uid")},
                    "index": p["metadata"]["annotations"].get(
                        "batch.kubernetes.io/job-completion-index"),
                    "container": ctr["name"],
                    "gpus": (ctr.get("resources") or {}).get("limits", {}).get("nvidia.com/gpu"),
                    "owner": [(o["kind"], o.get("controller")) for o in
                              p["metadata"].get("ownerReferences") or []]})
            return out
        same(pick_pods(both[0]), pick_pods(both[1]), "the TrainJob's pods as arenafs reads them")
    finally:
        for c in both:
            c.api("DELETE", TRAINJOBS + "/tj-conf")


MERGE = {"Content-Type": "application/merge-patch+json"}
LONG = "v" * 65


def causes_unordered(status):
    """A 422 with its causes in field order: kube-apiserver checks a custom
    resource's fields in its map's order, which varies from request to request."""
    s = json.loads(json.dumps(status))
    causes = s.get("details", {}).get("causes") or []
    causes.sort(key=lambda c: c["field"])
    head, sep, tail = s.get("message", "").partition(" is invalid: [")
    if sep:
        parts = [c["field"] + ": " + c["message"] for c in causes]
        s["message"] = head + sep + ", ".join(parts) + "]"
    return s


def test_a_trainjobs_reported_progress_is_checked_and_kept_alike(both):
    """status.trainerStatus, what Trainer's status server writes for a training
    script (kubesim has no status server: its tests write the field through the
    status subresource): the CRD's refusals of a report out of bounds, without
    its time or with a metric too long, word for word; a report taken whole and
    kept while the operator updates the rest of the status."""
    reports = [
        {"progressPercentage": 150, "lastUpdatedTime": "2026-12-07T11:00:00Z"},
        {"progressPercentage": -1, "estimatedRemainingSeconds": -3,
         "lastUpdatedTime": "2026-12-07T11:00:00Z"},
        {"progressPercentage": 150},
        {"metrics": [{"name": "", "value": "1"}], "lastUpdatedTime": "2026-12-07T11:00:00Z"},
        {"metrics": [{"name": "loss", "value": LONG}]},
    ]
    path = TRAINJOBS + "/tj-report/status"
    try:
        for c in both:
            code, body = c.api("POST", TRAINJOBS, trainjob("tj-report", nodes=1))
            assert code == 201, body
        for report in reports:
            (rs, real), (ss, sim) = on_both(both, "PATCH", path,
                                            {"status": {"trainerStatus": report}}, headers=MERGE)
            print("%s -> %d %s" % (json.dumps(report)[:80], rs, real.get("message")))
            assert rs == ss == 422, (real, sim)
            same(causes_unordered(cel_as_newest(real)), causes_unordered(sim),
                 "the refusal of trainerStatus %s" % json.dumps(report)[:80])
        good = {"progressPercentage": 42, "estimatedRemainingSeconds": 2700,
                "metrics": [{"name": "loss", "value": "0.231"},
                            {"name": "eval_accuracy", "value": "0.874"}],
                "lastUpdatedTime": "2026-12-07T11:00:00Z"}
        (rs, real), (ss, sim) = on_both(both, "PATCH", path,
                                        {"status": {"trainerStatus": good}}, headers=MERGE)
        assert rs == ss == 200, (real, sim)
        for c in both:
            wait_until(lambda: ((c.api("GET", TRAINJOBS + "/tj-report")[1].get("status") or {})
                                .get("jobsStatus") or [{}])[0].get("ready") == 1,
                       timeout=120, message="the TrainJob's Job ready on %s" % c.kind)
        (rs, real), (ss, sim) = on_both(both, "GET", TRAINJOBS + "/tj-report")
        assert real["status"]["trainerStatus"] == good, real["status"]
        same(real["status"], sim["status"], "a TrainJob's status with a report")
    finally:
        for c in both:
            c.api("DELETE", TRAINJOBS + "/tj-report")


# ---- the service proxy (where arenafs and Arena ask Prometheus) ----

# A Service without endpoints: 1.37 answers 503 "no endpoints available", 1.32
# 404 (the Service "not found"); kubesim answers as the newest (docs/kubesim.md).
PROXY_503_SINCE = 37

def test_service_proxy_refusals(both):
    """What arenafs shows when the Service it found cannot be asked: a Service that
    is gone (404) and one without endpoints (503), in the same words on both."""
    plain = {"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": "no-endpoints", "namespace": NS},
             "spec": {"ports": [{"name": "http", "port": 9090}]}}
    proxy = "/api/v1/namespaces/%s/services/%s/proxy/api/v1/query?query=up"
    try:
        for c in both:
            assert c.api("POST", "/api/v1/namespaces/%s/services" % NS, plain)[0] == 201
        (rs, real), (ss, sim) = on_both(both, "GET", proxy % (NS, "http:nope:9090"))
        assert rs == ss == 404, (real, sim)
        same(real, sim, "the proxy of a missing Service")
        (rs, real), (ss, sim) = on_both(both, "GET", proxy % (NS, "http:no-endpoints:9090"))
        if real_minor(both[0]) < PROXY_503_SINCE:
            assert (rs, ss) == (404, 503), (real, sim)
        else:
            assert rs == ss == 503, (real, sim)
            same(real, sim, "the proxy of a Service without endpoints")
    finally:
        for c in both:
            c.api("DELETE", "/api/v1/namespaces/%s/services/no-endpoints" % NS)
