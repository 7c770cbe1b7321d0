"""Peers on the real cluster: the Kubeflow Training SDK (TrainingClient) and the
newest official kubernetes Python client create and watch jobs beside arenafs.
A job a peer creates appears in arenafs with the status the peer reports; a
job arenafs submits is seen succeeding by the peer's own wait. The peers run
in the virtual environments tests/peers/venv.sh makes (pinned, from PyPI)."""

import os
import subprocess

import pytest

from helpers import peers_venvs, wait_until

PEERS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "peers")


@pytest.fixture(scope="module")
def venvs():
    return peers_venvs()


def peer(venvs, which, c, *args, timeout=180):
    """One line from tests/peers/WHICH_peer.py run against cluster c's namespace."""
    py = os.path.join(venvs, which, "bin", "python")
    r = subprocess.run([py, os.path.join(PEERS, which + "_peer.py"), c.kubeconfig, c.namespace]
                       + list(args), capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, "%s peer %s failed:\n%s%s" % (which, args, r.stdout, r.stderr)
    return r.stdout.strip()


@pytest.fixture
def ns_mount(real_view, arenafs):
    return real_view, arenafs(real_view)


def test_sdk_job_appears_in_arenafs_with_the_sdks_status(venvs, ns_mount):
    c, m = ns_mount
    assert peer(venvs, "sdk", c, "create", "from-sdk") == "created"
    wait_until(lambda: os.path.exists(m.path("jobs", "from-sdk", "status")), timeout=30,
               message="the SDK's job in jobs/")
    assert peer(venvs, "sdk", c, "wait", "from-sdk", "TFJob") == "Succeeded"
    assert peer(venvs, "sdk", c, "status", "from-sdk", "TFJob") == "Succeeded"
    wait_until(lambda: m.read("jobs", "from-sdk", "status") == "SUCCEEDED\n", timeout=20,
               message="arenafs to say SUCCEEDED as the SDK does")
    assert m.read("jobs", "from-sdk", "type") == "tfjob\n"


def test_arenafs_job_is_seen_succeeding_by_the_sdk_and_the_client(venvs, ns_mount):
    c, m = ns_mount
    with open(m.path("submit", "from-arenafs.yaml"), "w") as f:
        f.write("type: tfjob\nimage: tensorflow/tensorflow:2.15.0\ncommand: python train.py\n"
                "env: {KWOK_RUN: 4s}\n")
    assert m.read("submit", "from-arenafs", "status") == "submitted\n"
    assert peer(venvs, "k8s", c, "watch", "from-arenafs") == "Succeeded"
    assert peer(venvs, "sdk", c, "wait", "from-arenafs", "TFJob") == "Succeeded"
    assert m.read("jobs", "from-arenafs", "status") == "SUCCEEDED\n"


def test_newest_client_creates_what_arenafs_shows(venvs, ns_mount):
    c, m = ns_mount
    assert peer(venvs, "k8s", c, "create", "from-client") == "created"
    wait_until(lambda: os.path.exists(m.path("jobs", "from-client", "status")), timeout=30,
               message="the client's job in jobs/")
    assert peer(venvs, "k8s", c, "watch", "from-client") == "Succeeded"
    wait_until(lambda: m.read("jobs", "from-client", "status") == "SUCCEEDED\n", timeout=20,
               message="arenafs to say SUCCEEDED")
