"""jobs/NAME/progress and jobs/NAME/metrics (docs/tree.md): what a TrainJob's
training script reports, as a person reads it and as a script greps it. On the
real cluster the report goes where a training script sends it, through the
Kubeflow SDK's update_trainjob_status: a POST to Trainer's status server with
the pod's projected token (test_real_trainer_status.py's steps), and the real
controller writes status.trainerStatus. kubesim has no status server: the test
writes status.trainerStatus through the status subresource, as that controller
would, and kubesim keeps it through its own updates of the TrainJob's status.

Both: a job that has not reported says so in words; a report shows in
progress (a line more per report, with its time), metrics and info; the next
report replaces metrics whole (a metric not sent again is gone); each report
moves the files' mtime to its lastUpdatedTime; a real `tail -f progress`
prints each report as a line as it comes."""

import datetime
import json
import os
import subprocess

import yaml

from helpers import wait_until
from test_tree_logs import Tail
from test_real_trainer_status import TRAINJOB, post, running_trainjob, token_for, trainjob

DOT = " \u00b7 "


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def when(t):
    """A line's time in progress: UTC, as arena get prints times."""
    return t.strftime("%Y-%m-%d %H:%M:%S") + "  "


def forms(m, name, stem):
    """jobs/NAME/STEM.json and .yaml read back (json.load, yaml.safe_load, and jq on
    the JSON), asserted to be the same document, each one document and sized right in
    stat; the document. The age ticks between reads: they are read until it holds."""
    def read():
        docs = []
        for ext in ("json", "yaml"):
            path = m.path("jobs", name, stem + "." + ext)
            text = m.read("jobs", name, stem + "." + ext)
            if os.stat(path).st_size != len(text.encode()):
                return None
            docs.append(json.loads(text) if ext == "json" else yaml.safe_load(text))
            if ext == "yaml":
                assert len(list(yaml.safe_load_all(text))) == 1, text
        return (docs[0],) if docs[0] == docs[1] else None     # {} is a document
    doc, = wait_until(read, timeout=30, interval=0.2,
                     message="%s.json and .yaml of %s to agree, sized right" % (stem, name))
    r = subprocess.run(["jq", "-e", "type", m.path("jobs", name, stem + ".json")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == '"object"', r
    print("%s.json: %s" % (stem, json.dumps(doc)))
    return doc


def report(when, progress, left, metrics):
    return {"trainerStatus": {"progressPercentage": progress,
                              "estimatedRemainingSeconds": left,
                              "metrics": [{"name": n, "value": v} for n, v in metrics],
                              "lastUpdatedTime": stamp(when)}}


class Reporter:
    """Sends a TrainJob's reports the way its cluster takes them."""

    def __init__(self, c, name):
        self.c, self.name = c, name
        if c.kind == "real":
            job = running_trainjob(c, name)
            self.url, self.ca, self.address = job["url"], job["ca"], job["address"]
            self.token = token_for(c, c.namespace, job["sa"], job["token"]["audience"],
                                   job["pod"])
        else:
            trainjob(c, name)

    def send(self, body):
        if self.c.kind == "real":
            status, reply = post(self.address, self.url, self.ca, self.token, body)
            assert status == 200, reply
        else:
            self.c.kubectl("patch", TRAINJOB, self.name, "--subresource=status",
                           "--type=merge", "-p", json.dumps({"status": body}))
        print("reported: %s" % json.dumps(body))


NO_REPORT = ("no progress reported yet: its training script reports it with the Kubeflow "
             "SDK's update_trainjob_status (Trainer's TrainJobStatus feature gate)\n")


def test_progress_and_metrics_follow_the_reports(any_cluster, arenafs):
    c = any_cluster
    m = arenafs(c, "namespace=" + c.namespace)
    r = Reporter(c, "llama")
    wait_until(lambda: os.path.exists(m.path("jobs", "llama")), timeout=60,
               message="jobs/llama in the tree")

    progress = m.read("jobs", "llama", "progress")
    print("before any report: progress: %s" % progress, end="")
    assert progress == NO_REPORT
    assert m.read("jobs", "llama", "metrics") == "# " + progress
    doc = forms(m, "llama", "progress")
    assert doc == {"reported": False, "percent": None, "remainingSeconds": None,
                   "metric": None, "lastUpdated": "", "age": None, "stale": False,
                   "summary": progress[:-1]}
    assert forms(m, "llama", "metrics") == {}

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    first = now - datetime.timedelta(seconds=10)
    r.send(report(first, 42, 2700, [("loss", "0.231"), ("eval_accuracy", "0.874")]))
    # a line per report the file has shown, with its time: the words it showed first stay
    want = NO_REPORT + when(first) + "42%" + DOT + "about 45m left" + DOT + "loss 0.231\n"
    wait_until(lambda: m.read("jobs", "llama", "progress") == want, timeout=30,
               message="jobs/llama/progress to show the report")
    print("progress:\n%s" % want, end="")
    metrics = m.read("jobs", "llama", "metrics")
    print("metrics:\n%s" % metrics, end="")
    assert metrics == "eval_accuracy 0.874\nloss 0.231\n"
    st = os.stat(m.path("jobs", "llama", "progress"))
    assert st.st_mtime == first.timestamp() and st.st_size == len(want.encode()), st
    assert os.stat(m.path("jobs", "llama", "metrics")).st_mtime == first.timestamp()
    # info: the last report with its age
    info = m.read("jobs", "llama", "info")
    assert "\nProgress:    42%" + DOT + "about 45m left" + DOT + "loss 0.231" + DOT + \
        "updated " in info, info
    assert "\nMetrics:\n  eval_accuracy 0.874\n  loss 0.231\n" in info, info
    # the forms: the same facts, numbers as numbers, the report's time RFC 3339
    doc = forms(m, "llama", "progress")
    assert {k: v for k, v in doc.items() if k not in ("age", "summary")} == \
        {"reported": True, "percent": 42, "remainingSeconds": 2700,
         "metric": {"name": "loss", "value": 0.231}, "lastUpdated": stamp(first),
         "stale": False}, doc
    assert isinstance(doc["age"], int) and doc["age"] >= 10, doc
    assert doc["summary"].startswith("42%" + DOT + "about 45m left" + DOT + "loss 0.231" +
                                     DOT + "updated "), doc   # info's Progress row
    assert forms(m, "llama", "metrics") == {"eval_accuracy": 0.874, "loss": 0.231}

    # the next report is a line more (metrics: replaced whole); mtime and size move
    r.send(report(now, 100, 0, [("loss", "0.0412")]))
    want += when(now) + "100%" + DOT + "0s left" + DOT + "loss 0.0412\n"
    wait_until(lambda: m.read("jobs", "llama", "progress") == want, timeout=30,
               message="jobs/llama/progress to add the second report")
    print("then:\n%s" % want, end="")
    assert m.read("jobs", "llama", "metrics") == "loss 0.0412\n"
    assert forms(m, "llama", "metrics") == {"loss": 0.0412}
    assert forms(m, "llama", "progress")["remainingSeconds"] == 0
    st2 = os.stat(m.path("jobs", "llama", "progress"))
    assert st2.st_mtime == now.timestamp() > st.st_mtime
    assert st2.st_size == len(want.encode()) > st.st_size, st2


def test_tail_f_prints_each_report_as_it_comes(any_cluster, arenafs, tmp_path):
    """A real GNU tail -f holding progress open: each report is a line it prints
    (the file grows; tail polls its size on FUSE and reads the new bytes through
    the open descriptor), with nothing else: no "file truncated", no repeat."""
    c = any_cluster
    m = arenafs(c, "namespace=" + c.namespace)
    r = Reporter(c, "tailed")
    path = m.path("jobs", "tailed", "progress")
    wait_until(lambda: os.path.exists(path), timeout=60, message="jobs/tailed in the tree")
    tail = Tail(["-n", "+1", "-s", "0.2", "-f", path], tmp_path)
    try:
        wait_until(lambda: tail.text() == NO_REPORT, timeout=30,
                   message="tail -f to print the file as it is")
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        first = now - datetime.timedelta(seconds=5)
        r.send(report(first, 10, 600, [("loss", "2.5")]))
        want = NO_REPORT + when(first) + "10%" + DOT + "about 10m left" + DOT + "loss 2.5\n"
        wait_until(lambda: tail.text() == want, timeout=30,
                   message="tail -f to print the first report")
        r.send(report(now, 20, 540, [("loss", "1.9")]))
        want += when(now) + "20%" + DOT + "about 9m left" + DOT + "loss 1.9\n"
        wait_until(lambda: tail.text() == want, timeout=30,
                   message="tail -f to print the second report")
        print("tail -f printed:\n%s" % tail.text(), end="")
        assert m.read("jobs", "tailed", "progress") == want
    finally:
        tail.stop()
    assert tail.text() == want, tail.text()


def test_a_job_of_another_kind_says_it_reports_no_progress(kubesim, arenafs):
    from jobspecs import tfjob
    c = kubesim()
    m = arenafs(c)
    c.kubectl("create", "-f", "-", input=json.dumps(tfjob("mnist")))
    wait_until(lambda: os.path.exists(m.path("jobs", "mnist")), timeout=30,
               message="jobs/mnist in the tree")
    line = "no progress: a tfjob does not report it (only a Kubeflow TrainJob does)\n"
    assert m.read("jobs", "mnist", "progress") == line
    assert m.read("jobs", "mnist", "metrics") == "# " + line
    assert "Progress:" not in m.read("jobs", "mnist", "info")
    assert forms(m, "mnist", "progress")["summary"] == line[:-1]
    assert forms(m, "mnist", "metrics") == {}
