"""data/ (issue 26 item 3, "where is my data"): the namespace's
PersistentVolumeClaims in data/list, in `arena data list`'s columns with STATUS,
CAPACITY, CLASS and the JOBS that mount each, on kubesim and the real cluster.
A claim bound to a hostPath PersistentVolume made for it and a claim nothing
can bind (no storage class, no provisioner: Pending on the real cluster too),
so both states are read; rows are compared with what kubectl says of the same
claims, retried until both agree (claims change while the test reads).
docs/tree.md describes the files, docs/arena.md the columns."""

import errno
import json
import os
import re

import pytest
import yaml

from helpers import let_viewer_read, wait_until
import jobspecs

HEAD = ["NAME", "STATUS", "CAPACITY", "ACCESSMODE", "CLASS", "JOBS", "DESCRIPTION", "OWNER",
        "AGE"]


def table(text):
    """{name: {column: cell}} of data/list's text (cells are split on the column
    starts of the header, so empty cells stay empty)."""
    lines = text.splitlines()
    head = lines[0]
    starts = [head.index(h) for h in HEAD]
    rows = {}
    for line in lines[1:]:
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        rows[cells[0]] = dict(zip(HEAD, cells))
    return rows


def kubectl_rows(c):
    """What data/list should say of each claim, from kubectl (AGE left out)."""
    out = {}
    for p in c.kubectl_json("get", "pvc", "-n", c.namespace)["items"]:
        md, spec, st = p["metadata"], p["spec"], p.get("status", {})
        ann = md.get("annotations", {})
        out[md["name"]] = {
            "NAME": md["name"], "STATUS": st.get("phase", "N/A"),
            "CAPACITY": st.get("capacity", {}).get("storage")
            or spec["resources"]["requests"]["storage"],
            "ACCESSMODE": ",".join(spec.get("accessModes", [])),
            "CLASS": spec.get("storageClassName") or "<none>",
            "DESCRIPTION": ann.get("description", ""), "OWNER": ann.get("owner", "")}
    return out


def claim(name, storage, volume=None, annotations=None):
    md = {"name": name, "annotations": annotations or {}}
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
            "resources": {"requests": {"storage": storage}}}
    if volume:
        spec["volumeName"] = volume
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": spec}


def volume(name, ns, claim_name, storage):
    """A hostPath volume reserved for ns/claim_name (claimRef): the real cluster's
    volume binder binds the two, with no provisioner."""
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": storage}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "", "persistentVolumeReclaimPolicy": "Retain",
                     "hostPath": {"path": "/tmp/" + name},
                     "claimRef": {"namespace": ns, "name": claim_name}}}


def bind(c, name, pv, storage):
    """What the volume binder writes, for kubesim, which serves no PersistentVolumes
    and runs no binder (docs/kubesim.md): the claim's volumeName, then its status."""
    path = "/api/v1/namespaces/%s/persistentvolumeclaims/%s" % (c.namespace, name)
    status, obj = c.api("GET", path)
    assert status == 200, obj
    obj["status"] = {"phase": "Bound", "accessModes": obj["spec"]["accessModes"],
                     "capacity": {"storage": storage}}
    status, out = c.api("PUT", path + "/status", obj)
    assert status == 200, out


def apply(c, manifest, namespace=True):
    args = ["create", "-f", "-"] + (["-n", c.namespace] if namespace else [])
    c.kubectl(*args, input=json.dumps(manifest))


def mounting(name, claims):
    job = jobspecs.pytorchjob(name, gpus=0)
    spec = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    spec["volumes"] = [{"name": "v%d" % i, "persistentVolumeClaim": {"claimName": n}}
                       for i, n in enumerate(claims)]
    spec["containers"][0]["volumeMounts"] = [{"name": "v%d" % i, "mountPath": "/data/%d" % i}
                                             for i in range(len(claims))]
    return job


def test_data_list_shows_each_claim_its_state_and_the_jobs_that_mount_it(any_cluster, arenafs,
                                                                         request):
    c = any_cluster
    real = c.kind == "real"
    pv = "pv-" + c.namespace
    if real:
        apply(c, volume(pv, c.namespace, "imagenet", "2Gi"), namespace=False)
        request.addfinalizer(lambda: c.kubectl("delete", "pv", pv, "--wait=false", check=False))
    m = arenafs(c)
    assert m.read("data", "list").startswith("NAME ")
    apply(c, claim("imagenet", "1Gi", volume=pv,
                   annotations={"description": "ImageNet 2012", "owner": "alice"}))
    apply(c, claim("scratch", "500Mi"))
    jobspecs.create(c, mounting("train", ["imagenet", "scratch"]))
    jobspecs.create(c, mounting("eval", ["imagenet"]))
    if not real:
        bind(c, "imagenet", pv, "2Gi")

    def agrees():
        # the claims and the jobs reach the cache each in its own watch: a row can
        # name one job before the other job is seen (once in an integrated run)
        rows = table(m.read("data", "list"))
        want = kubectl_rows(c)
        got = {n: {k: v for k, v in r.items() if k not in ("AGE", "JOBS")}
               for n, r in rows.items()}
        jobs = {n: sorted(r["JOBS"].split(",")) for n, r in rows.items()}
        return ((rows, want) if got == want and set(want) == {"imagenet", "scratch"}
                and jobs == {"imagenet": ["eval", "train"], "scratch": ["train"]} else None)

    rows, want = wait_until(agrees, timeout=60, message="data/list agrees with kubectl and "
                            "names imagenet's jobs eval and train, scratch's train")
    # data/list.json and .yaml: the same claims, as lists and numbers (docs/tree.md)
    def forms_agree():
        rows = table(m.read("data", "list"))
        docs = [json.loads(m.read("data", "list.json")),
                yaml.safe_load(m.read("data", "list.yaml"))]
        for doc in docs:
            mine = {d["name"]: d for d in doc}
            if sorted(mine) != sorted(rows):
                return False
            for n, r in rows.items():
                d = mine[n]
                if (d["namespace"], d["status"], d["capacity"] or d["requested"],
                        ",".join(d["accessModes"]), sorted(d["jobs"]),
                        d["storageClass"] or "<none>") != \
                        (c.namespace, r["STATUS"], r["CAPACITY"], r["ACCESSMODE"],
                         sorted(r["JOBS"].split(",")), r["CLASS"]):
                    return False
                if not isinstance(d["age"], int) or not d["creationTimestamp"].endswith("Z"):
                    return False
        return docs[0]
    doc = wait_until(forms_agree, timeout=60,
                     message="data/list.json and .yaml to say what data/list says")
    assert {d["name"]: d["description"] for d in doc}["imagenet"] == "ImageNet 2012"
    # a job's info lists the claims it mounts
    assert "\nData:\n  imagenet\n  scratch\n" in m.read("jobs", "train", "info")
    assert "\nData:\n  imagenet\n" in m.read("jobs", "eval", "info")
    assert re.fullmatch(r"\d+[smhd]", rows["imagenet"]["AGE"])
    assert rows["scratch"]["STATUS"] == "Pending"       # nothing can bind it, anywhere
    # real: the controller-manager's volume binder binds the reserved volume
    rows, _ = wait_until(lambda: (lambda r: r if r and r[0]["imagenet"]["STATUS"] == "Bound"
                                  else None)(agrees()),
                         timeout=120, message="imagenet Bound")
    assert rows["imagenet"]["CAPACITY"] == "2Gi"        # what it got, not the 1Gi asked
    assert rows["imagenet"]["DESCRIPTION"] == "ImageNet 2012"
    # another namespace's claims: in namespaces/NS/data/list, not in data/list
    other = (c.namespace + "-other")[-50:].lstrip("-")
    c.kubectl("create", "namespace", other)
    request.addfinalizer(lambda: c.kubectl("delete", "namespace", other, "--wait=false",
                                           check=False))
    c.kubectl("create", "-n", other, "-f", "-", input=json.dumps(claim("shared", "1Gi")))
    jobspecs.create(c, mounting("reader", ["shared"]), namespace=other)
    # the claim and the job reach the cache apart: the row may show the claim first
    theirs = wait_until(lambda: (lambda r: r if r and r["JOBS"] == "reader" else None)(
                            table(m.read("namespaces", other, "data", "list")).get("shared")),
                        timeout=60, message="namespaces/%s/data/list has shared, mounted by reader"
                        % other)
    assert theirs["STATUS"] == "Pending"
    assert "shared" not in table(m.read("data", "list"))
    # read-only, as every file of data/
    assert sorted(os.listdir(m.path("data"))) == ["list", "list.json", "list.yaml"]
    with pytest.raises(OSError) as e:
        open(m.path("data", "list"), "w")
    assert e.value.errno in (errno.EACCES, errno.EROFS, errno.EPERM)
    # a claim deleted leaves the table
    c.kubectl("delete", "pvc", "scratch", "-n", c.namespace, "--wait=false")
    wait_until(lambda: "scratch" not in table(m.read("data", "list")), timeout=60,
               message="scratch gone from data/list")


def kubeconfig_without_claims(c, tmp_path):
    """A real cluster's ServiceAccount that may read the test's namespace (jobs,
    pods, logs, events, services) but not its PersistentVolumeClaims: a kubeconfig
    of its own, its one context naming that namespace."""
    sa = "noclaims"
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": sa, "namespace": c.namespace},
            "rules": [{"apiGroups": [""], "verbs": ["get", "list", "watch"],
                       "resources": ["pods", "pods/log", "events", "services", "configmaps"]},
                      {"apiGroups": ["kubeflow.org", "trainer.kubeflow.org"],
                       "resources": ["*"], "verbs": ["get", "list", "watch"]}]}
    c.kubectl("create", "serviceaccount", sa, "-n", c.namespace)
    c.kubectl("create", "-f", "-", input=json.dumps(role))
    c.kubectl("create", "rolebinding", sa, "--role=" + sa,
              "--serviceaccount=%s:%s" % (c.namespace, sa), "-n", c.namespace)
    token = c.kubectl("create", "token", sa, "-n", c.namespace).stdout.strip()
    cfg = json.loads(json.dumps(c.config()))
    admin = next(x for x in cfg["contexts"] if x["name"] == cfg["current-context"])
    cfg["users"] = [{"name": sa, "user": {"token": token}}]
    cfg["contexts"] = [{"name": sa, "context": {"cluster": admin["context"]["cluster"],
                                                "user": sa, "namespace": c.namespace}}]
    cfg["current-context"] = sa
    path = str(tmp_path / "kubeconfig-noclaims")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


FORBIDDEN = ('persistentvolumeclaims is forbidden: User "system:serviceaccount:%s:noclaims" '
             'cannot list resource "persistentvolumeclaims" in API group "" in the '
             'namespace "%s"')


def test_data_list_says_when_the_claims_may_not_be_listed(any_cluster, arenafs, tmp_path):
    """Credentials that may see the jobs but not list the claims: data/list says so,
    with the API server's 403, instead of looking like a namespace without data. The
    reader and the viewer may list them: their data/list is the table."""
    c = any_cluster
    apply(c, claim("private", "1Gi"))
    if c.kind == "real":
        kubeconfig = kubeconfig_without_claims(c, tmp_path)
        m = arenafs(c, kubeconfig=kubeconfig)
        ns = c.namespace
    else:
        ns = "default"
        # kubesim's users may all list claims: its API server refuses them here
        c.fault(fail_next=1000, code=403, message=FORBIDDEN % ("default", ns),
                match=r"^GET /api/v1/(namespaces/[^/]+/)?persistentvolumeclaims\?(?!.*watch)")
        m = arenafs(c)
    text = wait_until(lambda: (lambda t: t if t.startswith("Forbidden") else None)(
        m.read("data", "list")), timeout=30, message="data/list to say it is forbidden")
    assert text.startswith("Forbidden (403): these credentials may not list the "
                           "PersistentVolumeClaims of namespace %s " % ns), text
    assert "cannot list resource \"persistentvolumeclaims\"" in text, text
    assert "private" not in text and "No PersistentVolumeClaims" not in text
    assert text.endswith("\n") and text.count("\n") == 1
    assert os.stat(m.path("data", "list")).st_size == len(text.encode())
    # its JSON and YAML forms cannot say it: their reads fail with EACCES
    for form in ("list.json", "list.yaml"):
        with pytest.raises(PermissionError):
            m.read("data", form)
    if c.kind != "real":
        c.fault(fail_next=0)      # the claims may be listed again
    for context in ("reader", "viewer"):
        if c.kind == "real" and context == "viewer":
            let_viewer_read(c)
        v = arenafs(c, "context=" + context)

        def shown():
            # data/ where the context names the namespace, else namespaces/NS/data/
            for where in (("data", "list"), ("namespaces", ns, "data", "list")):
                if os.path.exists(v.path(*where)) and "private" in table(v.read(*where)):
                    return table(v.read(*where))
            return None
        rows = wait_until(shown, timeout=60, message="%s's data/list to show the claim" % context)
        assert rows["private"]["STATUS"] in ("Pending", "Bound"), rows
