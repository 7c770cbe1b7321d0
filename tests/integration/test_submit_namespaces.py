"""namespaces/NS/submit/ launches in NS (docs/submit.md, "namespaces/NS/submit/"):
a spec copied there makes its job in NS, which kubectl finds there and
namespaces/NS/jobs/ shows; its outcome stays in that submit/, not in the
mount's. Where the credentials may not create jobs in NS (the `reader`, who
sees every namespace and may change nothing), creating anything there is
EACCES and namespaces/NS/submit/error says why. A namespace with no job yet is
not listed but found by name, so its first job (or a manifest naming it, as the
training operator's examples name kubeflow) goes there in one step."""

import errno
import os
import time

import pytest
import yaml

from helpers import TFJOB_MANIFEST, wait_until, write_as_cp

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0\n"
        "command: python train.py\n"
        'env: {SIM_RUN_SECONDS: "600", KWOK_RUN: "600s"}\n')
REFUSED = r"^arenafs: namespaces/\S+/submit/ refused: these credentials may not create jobs"


@pytest.fixture
def other(any_cluster, request):
    """(cluster, another namespace than the mount's, holding one job so that
    namespaces/ lists it)."""
    c = any_cluster
    if c.kind == "real":
        ns = c.fresh_namespace("other-" + request.node.name[-20:])
        request.addfinalizer(lambda: c.kubectl("delete", "namespace", ns, "--wait=false",
                                               check=False))
    else:
        ns = "team-a"
    run = "            env: [{name: KWOK_RUN, value: 600s}]\n"
    c.kubectl("create", "-n", ns, "-f", "-", input=TFJOB_MANIFEST % ("resident", run))
    return c, ns


def test_a_spec_in_namespaces_ns_submit_is_launched_in_ns(other, arenafs):
    c, ns = other
    m = arenafs(c)
    wait_until(lambda: os.path.isdir(m.path("namespaces", ns, "jobs", "resident")),
               message="namespaces/%s/jobs/resident" % ns)
    assert sorted(os.listdir(m.path("namespaces", ns))) == ["check", "data", "jobs", "queues",
                                                         "submit"]
    assert os.listdir(m.path("namespaces", ns, "submit")) == []

    assert write_as_cp(m.path("namespaces", ns, "submit", "elsewhere.yaml"), SPEC) == 0
    assert m.read("namespaces", ns, "submit", "elsewhere", "status") == "submitted\n"
    job = c.kubectl_json("get", "tfjob", "elsewhere", "-n", ns)
    assert job["metadata"]["namespace"] == ns
    # close(2) returned once the job showed in the tree: namespaces/NS/jobs/, not jobs/
    assert m.read("namespaces", ns, "jobs", "elsewhere", "type") == "tfjob\n"
    assert not os.path.exists(m.path("jobs", "elsewhere"))
    assert c.kubectl("get", "tfjob", "elsewhere", "-n", c.namespace, check=False).returncode != 0
    # the outcome stays where the spec was copied
    assert sorted(os.listdir(m.path("namespaces", ns, "submit"))) == ["elsewhere",
                                                                        "elsewhere.yaml"]
    assert os.listdir(m.path("submit")) == []

    # a directory too (cp -r), and the same name again is EEXIST there
    os.mkdir(m.path("namespaces", ns, "submit", "second"))
    assert write_as_cp(m.path("namespaces", ns, "submit", "second", "spec.yaml"), SPEC) == 0
    # a folder's job is made once its copy is over (docs/submit.md, "Local code")
    wait_until(lambda: m.read("namespaces", ns, "submit", "second", "status") == "submitted\n",
               timeout=30, message="namespaces/%s/submit/second/status" % ns)
    assert c.kubectl_json("get", "tfjob", "second", "-n", ns)["metadata"]["name"] == "second"
    assert write_as_cp(m.path("namespaces", ns, "submit", "second.yaml"), SPEC) == errno.EEXIST

    # two namespaces' submit/ are two trees: mv copies (and the copy submits there)
    with pytest.raises(OSError) as e:
        os.rename(m.path("namespaces", ns, "submit", "elsewhere.yaml"),
                  m.path("submit", "elsewhere.yaml"))
    assert e.value.errno == errno.EXDEV

    os.rmdir(m.path("namespaces", ns, "jobs", "elsewhere"))
    assert c.kubectl("get", "tfjob", "elsewhere", "-n", ns, check=False).returncode != 0


def test_reader_may_not_launch_and_submit_error_says_why(other, arenafs):
    c, ns = other
    m = arenafs(c, "context=reader", allow=[REFUSED])
    wait_until(lambda: os.path.isdir(m.path("namespaces", ns, "jobs", "resident")),
               message="the reader to see namespaces/%s/jobs/resident" % ns)
    submit = m.path("namespaces", ns, "submit")
    assert os.listdir(submit) == []

    assert write_as_cp(os.path.join(submit, "peek.yaml"), SPEC) == errno.EACCES
    with pytest.raises(PermissionError):
        os.mkdir(os.path.join(submit, "peek"))
    assert os.listdir(submit) == ["error"]
    error = m.read("namespaces", ns, "submit", "error")
    assert error.startswith("these credentials may not create jobs in namespace %s: " % ns), error
    assert "create tfjobs.kubeflow.org" in error, error
    assert "kubectl auth can-i create tfjobs.kubeflow.org -n %s" % ns in error, error
    assert error.endswith("\n") and error.count("\n") == 1, error
    assert os.stat(os.path.join(submit, "error")).st_mode & 0o777 == 0o444
    assert c.kubectl("get", "tfjob", "peek", "-n", ns, check=False).returncode != 0
    # asked once, then kept: one line in the daemon's log for both refusals
    assert len([line for line in m.log().splitlines() if "submit/ refused:" in line]) == 1, \
        m.log()


def test_a_spec_in_namespaces_ns_check_is_dry_run_in_ns(other, arenafs):
    """namespaces/NS/check/ (docs/submit.md, "Checking a spec"): the dry run's
    objects are NS's, and nothing is made in NS or in the mount's namespace."""
    c, ns = other
    m = arenafs(c)
    wait_until(lambda: os.path.isdir(m.path("namespaces", ns, "jobs", "resident")),
               message="namespaces/%s/jobs/resident" % ns)
    kinds = "tfjobs,deployments,services,configmaps,pods"
    before = [c.kubectl("get", kinds, "-n", n, "-o", "name").stdout for n in (ns, c.namespace)]
    assert write_as_cp(m.path("namespaces", ns, "check", "elsewhere.yaml"), SPEC) == 0
    assert m.read("namespaces", ns, "check", "elsewhere", "status") == "checked\n"
    docs = list(yaml.safe_load_all(m.read("namespaces", ns, "check", "elsewhere",
                                          "objects.yaml")))
    assert [(d["kind"], d["metadata"]["namespace"]) for d in docs] == [("TFJob", ns)], docs
    assert "elsewhere" not in os.listdir(m.path("check"))
    after = [c.kubectl("get", kinds, "-n", n, "-o", "name").stdout for n in (ns, c.namespace)]
    # the resident job's pods may come meanwhile: compare what is not theirs
    strip = lambda outs: [[o for o in out.split() if "resident" not in o] for out in outs]
    assert strip(after) == strip(before)


def empty_namespace(c, request, name):
    """A namespace with no job: a fresh one on the real cluster, name on kubesim."""
    if c.kind == "real":
        ns = c.fresh_namespace(name)
        request.addfinalizer(lambda: c.kubectl("delete", "namespace", ns, "--wait=false",
                                               check=False))
        return ns
    c.kubectl("create", "namespace", name)
    return name


def manifest_in(name, ns):
    """TFJOB_MANIFEST naming its namespace, as the training operator's examples do."""
    text = TFJOB_MANIFEST % (name, "            env: [{name: KWOK_RUN, value: 600s}]\n")
    return text.replace("metadata:\n", "metadata:\n  namespace: %s\n" % ns, 1)


def test_a_namespace_without_jobs_is_found_by_name_and_takes_its_first_job(any_cluster,
                                                                          arenafs, request):
    c = any_cluster
    m = arenafs(c)
    ns = empty_namespace(c, request, "first-job")
    # not listed (no job there yet), but there by name once the cache has seen it
    wait_until(lambda: os.path.isdir(m.path("namespaces", ns)),
               message="namespaces/%s/ by name" % ns)
    assert ns not in os.listdir(m.path("namespaces"))
    assert sorted(os.listdir(m.path("namespaces", ns))) == ["check", "data", "jobs", "queues",
                                                         "submit"]
    assert os.listdir(m.path("namespaces", ns, "jobs")) == []
    # kube-system too (it exists), never listed; a name that is no namespace is not there
    assert os.path.isdir(m.path("namespaces", "kube-system", "submit"))
    assert "kube-system" not in os.listdir(m.path("namespaces"))
    assert not os.path.exists(m.path("namespaces", "no-such-namespace"))
    with pytest.raises(FileNotFoundError):
        os.listdir(m.path("namespaces", "no-such-namespace"))
    # the first job, in one step
    assert write_as_cp(m.path("namespaces", ns, "submit", "first.yaml"), SPEC) == 0
    assert c.kubectl_json("get", "tfjob", "first", "-n", ns)["metadata"]["namespace"] == ns
    assert m.read("namespaces", ns, "jobs", "first", "type") == "tfjob\n"
    wait_until(lambda: ns in os.listdir(m.path("namespaces")),
               message="namespaces/ to list %s after its first job" % ns)


def test_a_manifest_naming_kubeflow_is_refused_in_submit_and_made_in_its_namespace(
        any_cluster, arenafs, request):
    """The training operator's examples say `namespace: kubeflow`: copied to submit/
    the error names the place, and there it is made in one step."""
    c = any_cluster
    m = arenafs(c)
    if c.kind == "kubesim":
        c.kubectl("create", "namespace", "kubeflow")   # the real cluster has it: the operator's
    name = "example-%d" % (int(time.time() * 1000) % 100000)
    request.addfinalizer(lambda: c.kubectl("delete", "tfjob", name, "-n", "kubeflow",
                                           "--wait=false", check=False))
    text = manifest_in(name, "kubeflow")
    assert write_as_cp(m.path("submit", name + ".yaml"), text) == errno.EINVAL
    error = m.read("submit", name, "error")
    assert "copy it to namespaces/kubeflow/submit/" in error, error
    assert c.kubectl("get", "tfjob", name, "-n", "kubeflow", check=False).returncode != 0
    # kubeflow has no job of ours (on kubesim none at all): found by name all the same
    assert write_as_cp(m.path("namespaces", "kubeflow", "submit", name + ".yaml"),
                       text) == 0
    assert m.read("namespaces", "kubeflow", "submit", name, "status") == "submitted\n"
    job = c.kubectl_json("get", "tfjob", name, "-n", "kubeflow")
    assert job["metadata"]["namespace"] == "kubeflow"
    assert m.read("namespaces", "kubeflow", "jobs", name, "type") == "tfjob\n"
