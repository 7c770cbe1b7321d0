"""The examples of docs/examples/ work as their README says: each folder, copied
with `cp -r docs/examples/NAME submit/`, is submitted and its job runs
(jobs/NAME/status RUNNING or SUCCEEDED) on kubesim and on the real cluster,
where the real training-operator makes its pods and the real scheduler places
them on kwok's GPU nodes. The folders are found by listing docs/examples/, so a
new example is tested without touching this file. An example whose kind the
cluster does not serve fails here with the error arenafs gave: no skip.

Also checked without a cluster, so that the documentation cannot drift from
the folders: every example has a spec.yaml opening with a comment saying what
it shows, docs/examples/README.md lists every example, and every
docs/examples/NAME that README.md, docs/ or tests/demo.sh mention exists."""

import errno
import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

from helpers import wait_until
import realcluster

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "docs", "examples")

# How long a copy of a directory may take to be submitted: the daemon may wait
# for the copy to be quiet before it submits (a directory's other files ship
# with the job), so submit/NAME/status is polled rather than read once.
SUBMITTED_TIMEOUT = 10
# From submitted to a running job: image pull, scheduling and the operator's
# work on the real cluster (the same budget as test_real_lifecycle.py).
RUNNING_TIMEOUT = 90


def example_names():
    return sorted(d for d in os.listdir(EXAMPLES)
                  if os.path.isdir(os.path.join(EXAMPLES, d)) and not d.startswith("."))


def example_spec(name):
    with open(os.path.join(EXAMPLES, name, "spec.yaml")) as f:
        return f.read()


def claims_of(spec):
    """The PersistentVolumeClaims a spec (small or a full manifest) mounts."""
    if "data" in spec:
        return list(spec["data"] or {})
    found = []

    def walk(v):
        if isinstance(v, dict):
            if isinstance(v.get("persistentVolumeClaim"), dict):
                found.append(v["persistentVolumeClaim"]["claimName"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(spec)
    return found


def job_type(spec):
    """What jobs/NAME/type says for a spec: its type, or a manifest's kind in lower case."""
    if "kind" in spec:
        return spec["kind"].lower()
    aliases = {"tf": "tfjob", "pytorch": "pytorchjob", "mpi": "mpijob", "xgboost": "xgboostjob",
               "paddle": "paddlejob", "jax": "jaxjob"}
    return aliases.get(spec["type"], spec["type"])


# ---- the folders and the documents that name them (no cluster) ----

def test_there_are_examples_of_every_kind_the_brief_names():
    specs = [yaml.safe_load(example_spec(n)) for n in example_names()]
    types = {job_type(s) for s in specs}
    assert {"tfjob", "pytorchjob", "mpijob", "xgboostjob"} <= types, types
    assert any(s.get("tensorboard") for s in specs), "no example with tensorboard: true"
    assert any(s.get("data") for s in specs), "no example with data: (a PVC)"
    assert any(s.get("sync") for s in specs), "no example with sync:"
    assert any(s.get("ps") for s in specs), "no TFJob with a parameter server (ps:)"
    assert any("apiVersion" in s for s in specs), "no full manifest"
    local = [n for n in example_names() if set(os.listdir(os.path.join(EXAMPLES, n))) - {"spec.yaml"}]
    assert local, "no example shipping local code beside its spec.yaml"


@pytest.mark.parametrize("name", example_names())
def test_example_is_a_spec_that_says_what_it_shows(name):
    text = example_spec(name)
    assert text.startswith("# "), "%s/spec.yaml: begin with a comment saying what it shows" % name
    spec = yaml.safe_load(text)
    assert isinstance(spec, dict), name
    # the folder's name is the job's name: a spec or manifest naming another would surprise
    assert "name" not in spec and "name" not in spec.get("metadata", {}), \
        "%s: the job is named after its folder; do not name it in the spec" % name
    assert re.fullmatch(r"[a-z]([-a-z0-9]{0,47}[a-z0-9])?", name), \
        "%s: a job name is a DNS-1035 label of at most 49 characters" % name


def test_the_examples_readme_lists_every_example():
    with open(os.path.join(EXAMPLES, "README.md")) as f:
        readme = f.read()
    missing = [n for n in example_names() if "[%s](%s/)" % (n, n) not in readme]
    assert not missing, "docs/examples/README.md does not list %s (as [NAME](NAME/))" % missing


def test_every_example_the_documents_mention_exists():
    texts = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "tests", "demo.sh")]
    texts += [os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
              if f.endswith(".md")]
    texts.append(os.path.join(EXAMPLES, "README.md"))
    named = set()
    for path in texts:
        with open(path) as f:
            for m in re.finditer(r"docs/examples/([a-z0-9][-a-z0-9]*)", f.read()):
                named.add((os.path.relpath(path, ROOT), m.group(1)))
    assert named, "README.md names no example"
    gone = sorted((where, n) for where, n in named if n not in example_names())
    assert not gone, "documents naming examples that do not exist: %s" % gone


# ---- submitting each example ----

@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    """kubesim (four 8-GPU nodes), or the real cluster in a namespace of this
    module's own; one mount. PersistentVolumes made for the examples' claims
    are deleted when the module ends (they are not namespaced)."""
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "4", "--gpus", "8")
    volumes = []
    request.addfinalizer(lambda: [c.kubectl("delete", "pv", v, "--wait=false", check=False)
                                  for v in volumes])
    return c, arenafs_module(c), volumes


def make_claim(c, volumes, claim):
    """The PVC an example mounts, as a user would make it before submitting.
    On the real cluster it is bound to a hostPath PersistentVolume made for it
    (the cluster has no provisioner), so that the scheduler places the pods;
    kubesim does not serve PersistentVolumes and schedules without them."""
    if c.kind == "real":
        pv = "%s-%s" % (c.namespace, claim)
        c.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteMany"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                     "hostPath": {"path": "/tmp/arenafs-examples/" + pv},
                     "claimRef": {"namespace": c.namespace, "name": claim}}}))
        volumes.append(pv)
    c.kubectl("create", "-n", c.namespace, "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
        "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
                 "resources": {"requests": {"storage": "1Gi"}},
                 **({"volumeName": "%s-%s" % (c.namespace, claim)} if c.kind == "real" else {})}}))
    if c.kind == "real":
        wait_until(lambda: c.kubectl_json("get", "pvc", claim, "-n", c.namespace)
                   ["status"].get("phase") == "Bound", timeout=30,
                   message="PVC %s to be bound" % claim)


def read_or(m, *parts):
    try:
        return m.read(*parts)
    except OSError as e:
        return "<%s>" % errno.errorcode.get(e.errno, e.errno)


@pytest.mark.parametrize("name", example_names())
def test_example_submits_and_runs(env, name):
    c, m, volumes = env
    spec = yaml.safe_load(example_spec(name))
    for claim in claims_of(spec):
        make_claim(c, volumes, claim)

    # what the README tells a user to do
    r = subprocess.run(["cp", "-r", os.path.join(EXAMPLES, name), m.path("submit") + "/"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, "cp -r docs/examples/%s submit/: %s\nsubmit/%s/error: %s" % (
        name, r.stderr.strip(), name, read_or(m, "submit", name, "error"))
    wait_until(lambda: read_or(m, "submit", name, "status") in ("submitted\n", "failed\n"),
               timeout=SUBMITTED_TIMEOUT, message="submit/%s/status to say submitted" % name)
    assert read_or(m, "submit", name, "status") == "submitted\n", \
        "%s was not submitted: %s" % (name, read_or(m, "submit", name, "error"))
    # the copy is complete in submit/: the other files of the folder are kept
    for dirpath, _, files in os.walk(os.path.join(EXAMPLES, name)):
        rel = os.path.relpath(dirpath, EXAMPLES)
        for f in files:
            with open(os.path.join(dirpath, f)) as a, open(m.path("submit", rel, f)) as b:
                assert a.read() == b.read(), "submit/%s/%s differs from the example" % (rel, f)

    wait_until(lambda: os.path.isdir(m.path("jobs", name)), timeout=SUBMITTED_TIMEOUT,
               message="jobs/%s to appear" % name)
    # a folder with more than its spec ships it all in the ConfigMap NAME-code
    shipped = {os.path.relpath(os.path.join(d, f), os.path.join(EXAMPLES, name))
               for d, _, files in os.walk(os.path.join(EXAMPLES, name)) for f in files}
    if shipped != {"spec.yaml"}:
        cm = c.kubectl_json("get", "configmap", name + "-code", "-n", c.namespace)
        listed = c.kubectl_json("get", job_type(spec), name, "-n", c.namespace)[
            "metadata"]["annotations"]["arenafs.io/code"].splitlines()[1:]
        keys = {line.split(" ", 3)[3]: line.split(" ", 3)[2] for line in listed}
        assert set(keys) == shipped, listed
        for path, key in keys.items():
            with open(os.path.join(EXAMPLES, name, path)) as f:
                assert cm["data"][key] == f.read(), path
    kind = job_type(spec)
    assert m.read("jobs", name, "type") == kind + "\n"
    assert c.kubectl_json("get", kind, name, "-n", c.namespace)["metadata"]["name"] == name

    def runs():
        s = read_or(m, "jobs", name, "status")
        assert s not in ("FAILED\n",), "%s failed:\n%s" % (name, read_or(m, "jobs", name, "events"))
        return s in ("RUNNING\n", "SUCCEEDED\n")
    try:
        wait_until(runs, timeout=RUNNING_TIMEOUT, interval=0.5,
                   message="jobs/%s/status RUNNING or SUCCEEDED" % name)
    except AssertionError as e:
        raise AssertionError("%s\njobs/%s/status: %sevents:\n%s" % (
            e, name, read_or(m, "jobs", name, "status"), read_or(m, "jobs", name, "events")))

    if spec.get("tensorboard"):
        url = wait_until(lambda: read_or(m, "jobs", name, "tensorboard_url").startswith("http")
                         and m.read("jobs", name, "tensorboard_url"), timeout=30,
                         message="jobs/%s/tensorboard_url" % name)
        port = c.kubectl_json("get", "service", name + "-tensorboard", "-n", c.namespace)
        assert url.strip().endswith(":%d" % port["spec"]["ports"][0]["nodePort"]), url

    # leave the cluster as it was: the next example gets the GPUs back
    os.rmdir(m.path("jobs", name))
    shutil.rmtree(m.path("submit", name))
    wait_until(lambda: name not in os.listdir(m.path("jobs")), timeout=30,
               message="jobs/%s to go" % name)
