"""Submitting goes wrong the way a user can see and leaves nothing behind
(docs/submit.md): a bad spec makes cp fail with EINVAL and
an `error` naming the problem; a taken name is EEXIST; RBAC's no is EACCES; a
cluster that cannot be reached is EIO; a TensorBoard that cannot be made takes
its job with it. After each, kubectl finds no object of the submission."""

import errno
import os
import re
import subprocess
import time

import pytest

from conftest import VALGRIND
from helpers import let_viewer_read, wait_until, write_as_cp
import realcluster

GOOD = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n"
        'env: {SIM_RUN_SECONDS: "30", KWOK_RUN: "30s"}\n')


@pytest.fixture(scope="module", params=realcluster.cluster_params())
def env(request, kubesim_module, arenafs_module):
    """kubesim, or the real cluster in a namespace of this module's own; one mount."""
    c = realcluster.module_cluster(request, kubesim_module, "--nodes", "2", "--gpus", "8", "--speed", "4")
    return c, arenafs_module(c)


def submit(m, name, text):
    """Writes MNT/submit/NAME as cp would; the errno close(2) returned, or 0."""
    return write_as_cp(m.path("submit", name), text)


def nothing_named(c, name):
    """No job of any kind, no TensorBoard Deployment or Service, no pod of name."""
    kinds = "tfjobs,pytorchjobs,mpijobs,xgboostjobs,paddlejobs,deployments,services,pods"
    out = c.kubectl("get", kinds, "-o", "name").stdout.split()
    return [o for o in out if o.split("/", 1)[1] == name or
            o.split("/", 1)[1].startswith(name + "-")]


BAD_SPECS = [
    ("syntax", GOOD + "workers: [1,\n",
     ["line 7", "YAML syntax error"]),
    ("unknownkey", GOOD + "gpu: 2\n",
     ["line 6, column 1", "gpu: unknown key (did you mean gpus?)"]),
    ("wrongtype", GOOD.replace("gpus: 1", "gpus: [1]"),
     ["line 4", "gpus:", "integer"]),
    ("gpustring", GOOD.replace("gpus: 1", 'gpus: "2"'),
     ["line 4", "gpus:"]),
    ("noimage", GOOD.replace("image: tensorflow/tensorflow:2.15.0-gpu\n", ""),
     ["image: required"]),
    ("badtype", GOOD.replace("type: tfjob", "type: tfjobs"),
     ['type: "tfjobs" is not a job type', "did you mean tfjob?", "tfjob, pytorchjob"]),
    # issue 33: YAML 1.1 made these 8 and 16 GPUs without a word
    ("octalgpus", GOOD.replace("gpus: 1", "gpus: 010"),
     ["line 4, column 7", "gpus: 010 has a leading 0", "octal, 8", "write 8 or 10"]),
    ("hexgpus", GOOD.replace("gpus: 1", "gpus: 0x10"),
     ["line 4, column 7", "gpus: 0x10 is hexadecimal for 16"]),
    ("badname", "name: Bad_Name\n" + GOOD,
     ["line 1", "name:", "Bad_Name"]),
    # a kind submitted at another version: apiVersion is at fault, on line 1
    ("newversion", "apiVersion: trainer.kubeflow.org/v2alpha1\nkind: TrainJob\n"
     "spec: {runtimeRef: {name: torch-distributed}}\n",
     ["line 1, column 13: apiVersion: arenafs submits TrainJob as trainer.kubeflow.org/v1alpha1 "
      "(served by this cluster), not as trainer.kubeflow.org/v2alpha1"]),
    # a real cluster creates such a job and then refuses every one of its pods
    ("nopriority", GOOD + "priority: nosuch\n",
     ['priority: no PriorityClass "nosuch" in this cluster', "kubectl get priorityclasses"]),
]


@pytest.mark.parametrize("entry,text,words", BAD_SPECS, ids=[b[0] for b in BAD_SPECS])
def test_bad_spec_fails_close_with_einval_and_an_error_naming_it(env, entry, text, words):
    c, m = env
    assert submit(m, entry + ".yaml", text) == errno.EINVAL
    assert m.read("submit", entry, "status") == "failed\n"
    error = m.read("submit", entry, "error")
    for w in words:
        assert w in error, error
    assert error.endswith("\n") and error.count("\n") == 1, error
    assert nothing_named(c, entry) == []
    assert not nothing_named(c, "bad-name")


THREE_MISTAKES = ("type: tfjob\n"
                  "image: tensorflow/tensorflow:2.15.0-gpu\n"
                  "gpus: two\n"
                  "workrs: 2\n"
                  "memory: 4GG\n")


@pytest.mark.parametrize("area", ["submit", "check"])
def test_a_spec_with_three_mistakes_reports_them_all_in_line_order(env, area):
    """Every mistake at once, by line, the missing command: last: the error file of
    submit/ and of check/ alike (docs/spec.md, "Errors")."""
    c, m = env
    assert write_as_cp(m.path(area, "three.yaml"), THREE_MISTAKES) == errno.EINVAL
    error = m.read(area, "three", "error")
    assert error == ('line 3, column 7: gpus: expected an integer, got "two"; '
                     "line 4, column 1: workrs: unknown key (did you mean workers?); "
                     'line 5, column 9: memory: "4GG" is not a quantity; write it like 4, '
                     "1.5, 500m, 512Mi or 8Gi; "
                     "command: required: what the containers run, with sh -c (e.g. command: "
                     "python /root/code/main.py)\n"), error
    assert nothing_named(c, "three") == []


def test_cp_shows_the_failure(env, tmp_path):
    c, m = env
    src = tmp_path / "cpbad"
    src.mkdir()
    (src / "spec.yaml").write_text(GOOD.replace("gpus: 1", "gpus: two"))
    r = subprocess.run(["cp", "-r", str(src), m.path("submit")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "spec.yaml" in r.stderr and "Invalid argument" in r.stderr, r.stderr
    assert 'gpus: expected an integer, got "two"' in m.read("submit", "cpbad", "error")
    assert nothing_named(c, "cpbad") == []


def huge_manifest(name, entries):
    """A TFJob manifest whose env list makes it as large as wanted."""
    env = "".join('            - {name: V%06d, value: "x"}\n' % i for i in range(entries))
    return ("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: %s}\nspec:\n"
            "  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n"
            "        spec:\n          containers:\n          - name: tensorflow\n"
            "            image: tensorflow/tensorflow:2.15.0\n            env:\n%s"
            % (name, env))


def test_a_spec_cut_by_efbig_is_never_submitted(env, tmp_path):
    c, m = env
    src = tmp_path / "huge.yaml"
    src.write_text(huge_manifest("huge", 40001))
    assert src.stat().st_size > 1024 * 1024
    r = subprocess.run(["cp", str(src), m.path("submit")], capture_output=True, text=True)
    assert r.returncode == 1 and "File too large" in r.stderr, r.stderr
    assert m.read("submit", "huge", "status") == "failed\n"
    error = m.read("submit", "huge", "error")
    assert error.startswith("the spec is too large: ") and "1 MiB" in error, error
    assert "nothing was submitted" in error
    assert nothing_named(c, "huge") == []
    # closing again, or renaming it, submits nothing either; a fresh copy works
    with open(m.path("submit", "huge.yaml"), "a"):
        pass
    assert nothing_named(c, "huge") == []
    src.write_text(GOOD)
    r = subprocess.run(["cp", str(src), m.path("submit")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert m.read("submit", "huge", "status") == "submitted\n"


def test_a_small_spec_too_large_for_its_annotation_says_so(env):
    c, m = env
    text = GOOD.replace("command: python train.py", "command: |\n" + "  echo\n" * 50000)
    assert 256 * 1024 < len(text) < 1024 * 1024
    assert submit(m, "wordy.yaml", text) == errno.EFBIG
    error = m.read("submit", "wordy", "error")
    assert error.startswith("the spec is too large: %d bytes" % len(text)), error
    assert nothing_named(c, "wordy") == []


def alias_bomb(anchors, aliases):
    """A small spec whose x- keys hold many anchors and many aliases of them."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def name(i):
        s = digits[i % 62]
        while i >= 62:
            i //= 62
            s = digits[i % 62] + s
        return s

    return (GOOD + "x-anchors: [" + ",".join("&%s v" % name(i) for i in range(anchors)) +
            "]\nx-aliases: [" +
            ",".join("*%s" % name(i * 7919 % anchors) for i in range(aliases)) + "]\n")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(next(l for l in f if l.startswith("VmRSS:")).split()[1])


def test_an_alias_bomb_is_efbig_before_it_is_read(env):
    """Issue 23: 639 KB of 45,000 anchors and 50,000 aliases took 12 s of CPU in
    the daemon before its EFBIG (each alias looked through every anchor, then the
    text was read five times more to put the name in). A small spec cannot be that
    long, so it is refused for its size first, saying what may be longer."""
    c, m = env
    bomb = alias_bomb(45000, 50000)
    assert 256 * 1024 < len(bomb) < 1024 * 1024
    assert submit(m, "bomb.yaml", bomb) == errno.EFBIG
    error = m.read("submit", "bomb", "error")
    assert error.startswith("the spec is too large: %d bytes, where a small spec may have at "
                            "most 262144" % len(bomb)), error
    assert "only a manifest (apiVersion and kind at its top) may be longer" in error, error
    assert error.endswith("nothing was submitted\n") and error.count("\n") == 1, error
    assert m.read("submit", "bomb", "status") == "failed\n"
    assert nothing_named(c, "bomb") == []


def test_big_specs_give_their_memory_back(env):
    """Issue 23: the daemon's RSS rose from 12 to 146 MB after a few 1 MB specs
    and never came back. A manifest of about 1 MB (75,000 nodes) read in full and
    refused, eight times over, each removed: the daemon holds about what it held
    before (the heap's pages of a large spec go back when its submission ends)."""
    c, m = env
    start = rss_kib(m.proc.pid)
    for i in range(8):
        text = huge_manifest("mem%d" % i, 24000).replace(
            "metadata: {name: mem%d}" % i, "metadata: {name: mem%d, namespace: elsewhere}" % i)
        assert 1000 * 1000 < len(text) < 1024 * 1024
        assert submit(m, "mem%d.yaml" % i, text) == errno.EINVAL
        assert "metadata.namespace" in m.read("submit", "mem%d" % i, "error")
        os.unlink(m.path("submit", "mem%d.yaml" % i))
    end = rss_kib(m.proc.pid)
    print("RSS %d KiB before, %d KiB after" % (start, end))
    if VALGRIND or "libasan" in open("/proc/%d/maps" % m.proc.pid).read():
        pytest.skip("a daemon under valgrind or AddressSanitizer keeps what is freed in "
                    "its quarantine: RSS says nothing (the refusals were checked)")
    assert end - start < 16 * 1024, "RSS grew from %d to %d KiB" % (start, end)


def test_taken_name_is_eexist_and_the_job_is_untouched(env):
    """The same spec file written again while the job it launched exists (cp over
    it, an editor's save) is EEXIST at open: the file keeps the spec that was
    launched and status stays submitted (issue 33: what submit/ shows is what was
    launched). Another file naming the same job meets the API server's 409."""
    c, m = env
    assert submit(m, "taken.yaml", GOOD) == 0
    uid = c.kubectl_json("get", "tfjob", "taken")["metadata"]["uid"]
    assert submit(m, "taken.yaml", GOOD.replace("gpus: 1", "gpus: 2")) == errno.EEXIST
    assert m.read("submit", "taken.yaml") == GOOD
    assert m.read("submit", "taken", "status") == "submitted\n"
    assert submit(m, "spec.yaml", GOOD.replace("gpus: 1", "gpus: 2") + "name: taken\n") \
        == errno.EEXIST
    assert 'tfjobs.kubeflow.org "taken" already exists' in m.read("submit", "spec", "error")
    job = c.kubectl_json("get", "tfjob", "taken")
    assert job["metadata"]["uid"] == uid
    ctr = job["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]
    assert ctr["resources"]["limits"]["nvidia.com/gpu"] in (1, "1")


def test_taken_tensorboard_name_is_eexist_and_nothing_is_made(env):
    c, m = env
    c.kubectl("create", "service", "nodeport", "board-tensorboard", "--tcp=6006:6006")
    assert submit(m, "board.yaml", GOOD + "tensorboard: true\n") == errno.EEXIST
    error = m.read("submit", "board", "error")
    assert 'services "board-tensorboard" already exists' in error, error
    assert nothing_named(c, "board") == ["service/board-tensorboard"]


def test_a_rejected_manifest_gets_the_api_servers_message(env):
    c, m = env
    manifest = ("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: strict\n"
                "spec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      bogusField: 1\n"
                "      template:\n        spec:\n          containers:\n"
                "          - name: tensorflow\n            image: tf\n")
    assert submit(m, "strict.yaml", manifest) == errno.EINVAL
    error = m.read("submit", "strict", "error")
    assert 'unknown field "spec.tfReplicaSpecs.Worker.bogusField"' in error, error
    assert nothing_named(c, "strict") == []


def test_a_cluster_slower_than_request_timeout_is_etimedout_and_nothing_is_made(kubesim,
                                                                                arenafs):
    c = kubesim("--nodes", "1")
    m = arenafs(c, "request_timeout=2")
    c.fault(delay_ms=5000)
    try:
        assert submit(m, "slow.yaml", GOOD) == errno.ETIMEDOUT
    finally:
        c.fault(delay_ms=0)
    assert m.read("submit", "slow", "status") == "failed\n"
    error = m.read("submit", "slow", "error")
    # the request's own clock may stop a millisecond short of request_timeout
    assert re.search(r"no answer within (1999|2\d\d\d) ms", error), error
    time.sleep(6)     # anything the server still had queued has been handled now
    assert nothing_named(c, "slow") == []


def test_viewer_is_refused_with_eacces_and_nothing_is_made(any_cluster, arenafs):
    c = any_cluster
    let_viewer_read(c)
    m = arenafs(c, "context=viewer", allow=[r"rmdir %s/seen: .*forbidden" % c.namespace])
    assert submit(m, "peek.yaml", GOOD) == errno.EACCES
    assert m.read("submit", "peek", "status") == "failed\n"
    assert "forbidden" in m.read("submit", "peek", "error")
    assert nothing_named(c, "peek") == []
    c.kubectl("create", "-f", "-", input=(
        '{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "seen"},'
        ' "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec":'
        ' {"containers": [{"name": "tensorflow", "image": "tf"}]}}}}}}'))
    wait_until(lambda: os.path.isdir(m.path("jobs", "seen")), message="jobs/seen")
    with pytest.raises(PermissionError):
        os.rmdir(m.path("jobs", "seen"))
    assert c.kubectl_json("get", "tfjob", "seen")["metadata"]["name"] == "seen"


@pytest.mark.parametrize("env", ["kubesim"], indirect=True)     # fault injection
def test_failed_tensorboard_service_deletes_the_job_again(env):
    c, m = env
    c.fault(fail_next=1, code=500,
            match=r"^POST /api/v1/namespaces/default/services\?(?!.*dryRun)")
    assert submit(m, "undone.yaml", GOOD + "tensorboard: true\n") == errno.EIO
    error = m.read("submit", "undone", "error")
    assert error.startswith("creating the TensorBoard Service undone-tensorboard: "), error
    assert "has been deleted again" in error or "have been deleted again" in error, error
    assert "TFJob undone" in error and "Deployment undone-tensorboard" in error, error
    wait_until(lambda: nothing_named(c, "undone") == [], timeout=30,
               message="the job, its Deployment and pods to be gone")
    assert not os.path.exists(m.path("jobs", "undone"))


def test_unreachable_cluster_is_eio_and_nothing_is_made(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "4")
    m = arenafs(c, "request_timeout=2",
                allow=[r"cluster is unreachable|reachable again|disconnected|watch"])
    c.fault(down_seconds=6)
    start = time.monotonic()
    assert submit(m, "offline.yaml", GOOD) == errno.EIO
    assert time.monotonic() - start < 5, "the request deadline bounds the wait"
    assert m.read("submit", "offline", "status") == "failed\n"
    assert m.read("submit", "offline", "error").startswith("checking TFJob offline: ")
    wait_until(lambda: c.api("GET", "/api/v1/namespaces")[0] == 200, timeout=30,
               message="kubesim back")
    assert nothing_named(c, "offline") == []
    # while cluster/health says disconnected, a submission fails at once, saying so
    wait_until(lambda: m.read("cluster", "health").startswith("ok"), timeout=60,
               message="cluster/health to say ok again")
    # once it is back, the same spec goes through: nothing was half-made
    os.unlink(m.path("submit", "offline.yaml"))
    assert submit(m, "offline.yaml", GOOD) == 0
    assert m.read("submit", "offline", "status") == "submitted\n"
    assert not os.path.exists(m.path("submit", "offline", "error"))


def test_a_full_submit_still_says_why_a_submission_failed(kubesim, arenafs):
    """Issue 23: at submit/'s 10,000 files and directories, a failed submission
    left `status: failed` and no `error`: status and error are arenafs' own and
    are made whatever the count."""
    c = kubesim("--nodes", "1")
    m = arenafs(c)
    made = []
    with pytest.raises(OSError) as full:
        for d in range(200):
            top = m.path("submit", "fill%03d" % d)
            os.mkdir(top)
            made.append(top)
            for i in range(100):
                os.mkdir(os.path.join(top, "d%03d" % i))
                made.append(os.path.join(top, "d%03d" % i))
    assert full.value.errno == errno.ENOSPC, full.value
    for path in made[-3:]:      # room for an entry, its spec and one more
        os.rmdir(path)
    os.mkdir(m.path("submit", "full"))
    assert write_as_cp(m.path("submit", "full", "spec.yaml"),
                       GOOD.replace("gpus: 1", "gpus: two")) == errno.EINVAL
    assert m.read("submit", "full", "status") == "failed\n"
    assert "gpus: expected an integer" in m.read("submit", "full", "error")
