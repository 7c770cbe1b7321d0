"""namespaces/NS/submit/ launches in NS (docs/submit.md, "namespaces/NS/submit/"):
a spec copied there makes its job in NS, which kubectl finds there and
namespaces/NS/jobs/ shows; its outcome stays in that submit/, not in the
mount's. Where the credentials may not create jobs in NS (the `reader`, who
sees every namespace and may change nothing), creating anything there is
EACCES and namespaces/NS/submit/error says why."""

import errno
import os

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
    assert sorted(os.listdir(m.path("namespaces", ns))) == ["check", "jobs", "submit"]
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
