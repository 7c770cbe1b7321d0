"""The tree in JupyterLab, in a real browser (issue 36): JupyterLab 4.6 serves a
folder holding the mount, headless Chromium driven by Selenium does what a
notebook user does: opens the mount in the file browser, sees jobs/ and the
job folders, opens jobs/NAME/status and logs in the editor, uploads a spec into
submit/ with the Upload button and sees the job appear and run, deletes a job
folder, and reads the jobs into pandas in a notebook cell. docs/notebooks.md is
what it shows; the picture there (docs/jupyterlab.png) is taken here, written
where $ARENAFS_JUPYTER_SCREENSHOT says (into the test's folder otherwise).

JupyterLab, Selenium and pandas come from the virtual environment
tests/peers/venv.sh makes (pinned, from PyPI); Chromium and its driver are
Debian's (.ci/deps.sh). JupyterLab runs with its defaults: its Delete moves a job's
folder into the mount's trash (delete_to_trash, send2trash), which deletes the job
and keeps its spec there (docs/notebooks.md); a save refused at close leaves
nothing submitted (the last test).
Waits are for what the page shows (WebDriverWait), never for a time."""

import errno
import http.cookiejar
import json
import os
import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from helpers import peers_venvs, read_log, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(os.path.dirname(HERE), "peers")
JOB = "tfjob-00001"
DELETED = "tfjob-00002"
SPEC = ("type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python train.py\n"
        'env: {SIM_RUN_SECONDS: "3", KWOK_RUN: 3s}\n')
# The notebook cell: cluster/list.json (arena list -o json's document), one row per
# job, as README and docs/notebooks.md show it.
CELL = ('import pandas as pd\n'
        'jobs = pd.read_json("mnt/cluster/list.json")\n'
        'print(len(jobs), "rows:", " ".join(sorted(jobs["name"])))')


@pytest.fixture(scope="module")
def venv():
    return os.path.join(peers_venvs("jupyter"), "jupyter")


@pytest.fixture(scope="module")
def cluster_mount(kubesim_module, arenafs_module):
    c = kubesim_module("--jobs", "3", "--seed", "1")
    return c, arenafs_module(c)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(venv, cluster_mount):
    """JupyterLab serving the mount's folder (the mount is its mnt/): its URL."""
    _, m = cluster_mount
    home = os.path.join(m.dir, "home")
    os.makedirs(home)
    env = dict(os.environ, HOME=home, JUPYTER_CONFIG_DIR=os.path.join(home, "config"),
               JUPYTER_DATA_DIR=os.path.join(home, "data"),
               JUPYTER_RUNTIME_DIR=os.path.join(home, "runtime"),
               IPYTHONDIR=os.path.join(home, "ipython"))
    # a question about JupyterLab's news would cover the picture
    settings = os.path.join(home, "settings", "@jupyterlab", "apputils-extension")
    os.makedirs(settings)
    with open(os.path.join(settings, "notification.jupyterlab-settings"), "w") as f:
        json.dump({"fetchNews": "false"}, f)
    port = free_port()
    log_path = os.path.join(m.dir, "jupyter.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [os.path.join(venv, "bin", "jupyter"), "lab", "--no-browser", "--allow-root",
             "--ip=127.0.0.1", "--port=%d" % port, "--ServerApp.port_retries=0",
             "--ServerApp.root_dir=" + m.dir, "--IdentityProvider.token=",
             "--ServerApp.password=", "--LabApp.news_url=None",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--LabApp.workspaces_dir=" + os.path.join(home, "workspaces"),
             "--LabApp.user_settings_dir=" + os.path.join(home, "settings")],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=home)
    url = "http://127.0.0.1:%d" % port

    def up():
        assert proc.poll() is None, "jupyter lab exited:\n" + read_log(log_path)
        try:
            with urllib.request.urlopen(url + "/api/status", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False
    try:
        wait_until(up, timeout=120, message="JupyterLab to answer", interval=0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Browser:
    """tests/peers/lab_peer.py in the virtual environment: browser.METHOD(ARGS)
    calls Lab.METHOD there and returns its answer, or fails with its words."""

    def __init__(self, venv, url, profile, server_log):
        self.server_log = server_log
        self.proc = subprocess.Popen(
            [os.path.join(venv, "bin", "python"), os.path.join(PEERS, "lab_peer.py"), url,
             profile], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __getattr__(self, method):
        def call(*args):
            self.proc.stdin.write(json.dumps([method] + list(args)) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            assert line, "lab_peer.py ended (exit %s)" % self.proc.wait()
            answer = json.loads(line)
            assert "error" not in answer, "in JupyterLab, %s%s: %s\n%s" % (
                method, args, answer["error"], read_log(self.server_log)[-3000:])
            return answer["ok"]
        return call

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def browser(venv, lab, cluster_mount):
    _, m = cluster_mount
    b = Browser(venv, lab, os.path.join(m.dir, "home", "chromium"),
                os.path.join(m.dir, "jupyter.log"))
    try:
        yield b
    finally:
        b.close()


def test_the_file_browser_shows_jobs_and_their_folders(browser, cluster_mount):
    _, m = cluster_mount
    assert "mnt" in browser.home()
    browser.cd("mnt")
    assert sorted(browser.wait_items(["jobs"])) == sorted(os.listdir(m.mnt))
    browser.cd("jobs")
    assert sorted(browser.wait_items([JOB])) == sorted(os.listdir(m.path("jobs"))) \
        == ["tfjob-00000", "tfjob-00001", "tfjob-00002"]


def test_status_and_logs_open_in_the_editor(browser, cluster_mount):
    """logs failed with "File Load Error: Unhandled error": JupyterLab makes
    .ipynb_checkpoints/ beside a file it opens where access(W_OK) says yes (a
    job's folder, which rm -r may remove), and mkdir's EROFS was its 500."""
    _, m = cluster_mount
    browser.cd(JOB)
    browser.wait_items(["status", "logs"])
    browser.open("status")
    assert browser.editor_text("status") == m.read("jobs", JOB, "status").rstrip("\n") \
        == "SUCCEEDED"
    browser.open("logs")
    logs = m.read("jobs", JOB, "logs")
    assert "training finished" in logs
    assert browser.editor_text("logs") == logs.rstrip("\n")
    assert not os.path.exists(m.path("jobs", JOB, ".ipynb_checkpoints"))
    shot = os.environ.get("ARENAFS_JUPYTER_SCREENSHOT") or os.path.join(m.dir, "jupyterlab.png")
    assert browser.screenshot(os.path.abspath(shot))


def test_a_spec_uploaded_into_submit_runs(browser, cluster_mount, tmp_path):
    c, m = cluster_mount
    spec = tmp_path / "from-lab.yaml"
    spec.write_text(SPEC)
    browser.home()
    browser.cd("mnt", "submit")
    browser.upload(str(spec))
    # the upload's PUT wrote and closed the file: submitted, its outcome beside it
    browser.wait_items(["from-lab.yaml", "from-lab"])
    assert m.read("submit", "from-lab", "status") == "submitted\n"
    # JupyterLab's checkpoints folder is kept as written, as any dot name is; no
    # .~from-lab.yaml (its copy of a file it overwrites) is left behind
    assert [n for n in os.listdir(m.path("submit")) if n.startswith(".")] \
        in ([], [".ipynb_checkpoints"])
    wait_until(lambda: m.read("jobs", "from-lab", "status") == "SUCCEEDED\n", timeout=60,
               message="the uploaded job to run and succeed")
    browser.home()
    browser.cd("mnt", "jobs")
    browser.wait_items(["from-lab"])
    browser.cd("from-lab")
    browser.wait_items(["status"])
    browser.open("status")
    assert browser.editor_text("status") == "SUCCEEDED"
    assert c.kubectl_json("get", "tfjob", "from-lab")["metadata"]["name"] == "from-lab"


def test_deleting_a_job_folder_deletes_the_job(browser, cluster_mount):
    """With JupyterLab's default, delete_to_trash: its server's send2trash moves
    the folder into the mount's .Trash-UID/files/, which deletes the job and
    keeps its spec there."""
    c, m = cluster_mount
    spec = m.read("jobs", DELETED, "spec.yaml")
    browser.home()
    browser.cd("mnt", "jobs")
    browser.delete(DELETED)
    browser.wait_items(["from-lab"], [DELETED])
    assert browser.dialogs() == []
    assert not os.path.exists(m.path("jobs", DELETED))
    names = c.kubectl("get", "tfjobs", "-o", "name").stdout.split()
    assert "tfjob.kubeflow.org/" + DELETED not in names and len(names) == 3, names
    trash = m.path(".Trash-%d" % os.getuid())
    assert os.listdir(os.path.join(trash, "files")) == [DELETED]
    wait_until(lambda: os.path.exists(os.path.join(trash, "files", DELETED, "spec.yaml")),
               timeout=10, message="the deleted job's entry in the trash")
    with open(os.path.join(trash, "files", DELETED, "spec.yaml")) as f:
        assert f.read() == spec
    with open(os.path.join(trash, "info", DELETED + ".trashinfo")) as f:
        assert f.read().startswith("[Trash Info]\nPath=jobs/%s\nDeletionDate=" % DELETED)


def test_a_notebook_reads_the_jobs_into_pandas(browser, cluster_mount):
    _, m = cluster_mount
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": "jobs",
                           "metadata": {}, "outputs": [], "source": CELL}],
                "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)",
                                            "language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    with open(os.path.join(m.dir, "jobs.ipynb"), "w") as f:
        json.dump(notebook, f)
    browser.home()
    out = browser.run_first_cell("jobs.ipynb")
    jobs = sorted(os.listdir(m.path("jobs")))
    assert out == "%d rows: %s" % (len(jobs), " ".join(jobs))
    assert "from-lab" in jobs


def test_what_jupyterlab_tries_gets_an_errno_and_makes_nothing(cluster_mount):
    """Its checkpoints folder in a job's folder: EACCES (its 403, "no
    checkpoints"); elsewhere in the tree EROFS."""
    c, m = cluster_mount
    job = m.path("jobs", "tfjob-00000")
    before = sorted(os.listdir(job))
    with pytest.raises(OSError) as e:
        os.mkdir(os.path.join(job, ".ipynb_checkpoints"))
    assert e.value.errno == errno.EACCES
    with pytest.raises(OSError) as e:
        os.mkdir(m.path("cluster", ".ipynb_checkpoints"))
    assert e.value.errno == errno.EROFS
    assert sorted(os.listdir(job)) == before
    assert m.read("jobs", "tfjob-00000", "status") == "SUCCEEDED\n"
    assert c.kubectl_json("get", "tfjob", "tfjob-00000")["metadata"]["name"] == "tfjob-00000"


def contents_put(url, path, text):
    """What an upload or a save does: a PUT of the whole file to the contents
    API (with the page's XSRF cookie). (status, the server's message)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(url + "/lab", timeout=30).read()
    xsrf = next(c.value for c in jar if c.name == "_xsrf")
    req = urllib.request.Request(
        url + "/api/contents/" + path, method="PUT", headers={"X-XSRFToken": xsrf},
        data=json.dumps({"type": "file", "format": "text", "content": text}).encode())
    try:
        with opener.open(req, timeout=60) as r:
            return r.status, ""
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())["message"]


def test_a_save_over_a_submitted_spec_is_refused_and_submits_nothing(lab, cluster_mount):
    """Uploading again the spec of a job that exists: EEXIST at close, in the
    server's words; JupyterLab's copy of the old file (.~NAME) stays in submit/,
    a dot name, never submitted (docs/notebooks.md)."""
    c, m = cluster_mount
    assert contents_put(lab, "mnt/submit/again.yaml", SPEC) == (201, "")
    assert m.read("submit", "again", "status") == "submitted\n"
    before = sorted(os.listdir(m.path("jobs")))
    status, message = contents_put(lab, "mnt/submit/again.yaml", SPEC)
    assert status == 500 and "[Errno 17] File exists" in message, (status, message)
    assert sorted(os.listdir(m.path("jobs"))) == before
    assert ".~again.yaml" in os.listdir(m.path("submit"))
    assert not os.path.exists(m.path("submit", ".~again"))
    status, message = contents_put(lab, "mnt/jobs/tfjob-00000/status", "RUNNING\n")
    assert status == 500 and "[Errno 30] Read-only file system" in message, (status, message)
    assert m.read("jobs", "tfjob-00000", "status") == "SUCCEEDED\n"
