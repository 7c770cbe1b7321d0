"""The client side of Kubeflow Trainer's status server (statusserver.py is the
server's): what a training script does through the Kubeflow SDK's
update_trainjob_status, done here since kwok's pods run no code. Python
standard library only.

Callers: `report DIR NAME` (beside this file: the demo's training script), and
tests/integration/test_real_trainer_status.py and test_tree_progress.py.

    injected(pod)                         what the runtime gave the trainer container:
                                          (env, projected token source, its ConfigMap)
    token_args(ns, sa, audience, pod)     kubectl's arguments to mint the pod's token
    post(address, url, ca_pem, token, body)   (status, JSON reply) of one report
    report_body(progress, left, metrics)  a report as the SDK sends it, sent now
"""

import datetime
import http.client
import json
import socket
import ssl
import urllib.parse

MOUNT = "/var/run/secrets/kubeflow/trainer"


def injected(pod):
    """(env, projected token source, its ConfigMap source) of the trainer container."""
    container = pod["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    mount = next(m for m in container["volumeMounts"] if m["mountPath"] == MOUNT)
    volume = next(v for v in pod["spec"]["volumes"] if v["name"] == mount["name"])
    sources = volume["projected"]["sources"]
    token = next(s["serviceAccountToken"] for s in sources if "serviceAccountToken" in s)
    config_map = next(s["configMap"] for s in sources if "configMap" in s)
    return env, token, config_map


def token_args(namespace, sa, audience, pod=None):
    """kubectl's arguments for a service-account token from the TokenRequest API,
    as the kubelet projects it into the pod (bound to the pod when pod is given)."""
    args = ["create", "token", sa, "-n", namespace, "--audience", audience,
            "--duration", "3600s"]
    if pod:
        args += ["--bound-object-kind", "Pod", "--bound-object-name", pod["metadata"]["name"],
                 "--bound-object-uid", pod["metadata"]["uid"]]
    return args


def post(address, url, ca_pem, token, body):
    """(status, JSON reply) of a POST to url sent to address, TLS verified
    against ca_pem for url's host name (SNI and Host as the SDK sends them)."""
    u = urllib.parse.urlsplit(url)
    ctx = ssl.create_default_context(cadata=ca_pem)
    conn = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=30)
    conn.sock = ctx.wrap_socket(socket.create_connection(address, timeout=30),
                                server_hostname=u.hostname)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        conn.request("POST", u.path, body=json.dumps(body), headers=headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def report_body(progress, left, metrics):
    return {"trainerStatus": {"progressPercentage": progress,
                              "estimatedRemainingSeconds": left,
                              "metrics": [{"name": n, "value": v} for n, v in metrics],
                              "lastUpdatedTime": now()}}
