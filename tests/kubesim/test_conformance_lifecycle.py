"""kubesim as a process: DIR/ready holds its pid while it serves, and SIGTERM
or SIGINT (Ctrl-C) end it cleanly, exit status 0 and DIR/ready removed, even
with a kubectl watch and a raw watch stream open (both see their stream end,
cut or not).
The fixture fails the test if kubesim printed a traceback on the way out."""

import http.client
import os
import signal
import subprocess
import urllib.parse

import pytest

from helpers import wait_until


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_ends_kubesim_with_status_0_and_removes_ready(kubesim, sig):
    c = kubesim("--nodes", "1", "--speed", "20")
    ready = os.path.join(c.dir, "ready")
    with open(ready) as f:
        assert int(f.read()) == c.proc.pid
    u = urllib.parse.urlsplit(c.url)
    raw = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    raw.request("GET", "/api/v1/namespaces/default/pods?watch=true")
    stream = raw.getresponse()
    assert stream.status == 200
    kubectl = subprocess.Popen(
        ["kubectl", "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache_dir,
         "get", "nodes", "-w"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, HOME=c.dir))
    try:
        wait_until(lambda: c.stats()["watches"] == 2, 30, "both watches open")
        c.proc.send_signal(sig)
        assert c.proc.wait(timeout=30) == 0, c.log()
        assert not os.path.exists(ready), "DIR/ready outlived kubesim"
        try:
            stream.read()   # returns once the server has closed the stream
        except (http.client.IncompleteRead, ConnectionError):
            pass            # cut without the final chunk, as a dying server may
        out, _ = kubectl.communicate(timeout=30)
        assert "node-0" in out, out
    finally:
        raw.close()
        if kubectl.poll() is None:
            kubectl.kill()
            kubectl.wait()
