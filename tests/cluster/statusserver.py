"""Kubeflow Trainer's status server on the test cluster: the HTTPS endpoint a
training script POSTs its progress, time left and metrics to (Kubeflow SDK's
update_trainjob_status), which the Trainer controller writes into the
TrainJob's status.trainerStatus (feature gate TrainJobStatus, alpha in v2.2.0).

Called by kubeflow.py, which starts the Trainer controller:
    config(port)              the controller configuration's part for it
    serving_pair(home)        its certificate (and the webhooks'), from up's CA
    objects(pki, ports)       namespace, ServiceAccount, Secret, Service
    service_account_files()   what the kubelet would mount into the controller's pod
    sandboxed(argv, home)     the controller's command in a mount namespace of its own
    wait_serving(...)         until it answers over TLS

What is as in a real install (Trainer's manifests/base): the names (Service
kubeflow-trainer-controller-manager in kubeflow-system, Secret
kubeflow-trainer-webhook-cert whose ca.crt the runtime copies into every
TrainJob's NAME-tls-config ConfigMap), one certificate for the webhook and the
status server naming the Service's DNS name, and what the runtime injects into
the trainer pods (KUBEFLOW_TRAINER_SERVER_URL https://SERVICE.NAMESPACE.svc:PORT/...,
the CA, a projected token whose audience names the TrainJob).
What differs, and why:
  - the port is picked per cluster (upstream: 10443), and the Service's port is
    the same number, since the URL the pods get names the server's own port;
  - the Service has no selector and no endpoints: the controller runs on this
    machine, at 127.0.0.1, and an EndpointSlice may not name a loopback address
    (kube-apiserver refuses it: "may not be in the loopback range"). Nothing
    resolves SERVICE.NAMESPACE.svc here either: a client connects to
    127.0.0.1 at the URL's port and sends that name as TLS SNI and Host;
  - v2.2.0 reads two fixed paths (pkg/util/cert, pkg/statusserver/auth.go): the
    serving pair from /tmp/k8s-webhook-server/serving-certs, where the
    training-operator keeps its own, and, to find the service-account issuer it
    verifies tokens against, the pod's token from
    /var/run/secrets/kubernetes.io/serviceaccount. The controller runs in a
    mount namespace of its own (unshare) where both paths hold this cluster's
    files: nothing is written to them on the machine;
  - it listens on every interface (its address is ":PORT" in v2.2.0's
    server.go, no option): the one component here not bound to 127.0.0.1.
Python standard library only.
"""

import os
import shutil
import socket
import ssl

import cluster
from cluster import ClusterError, b64file, kubectl, wait_for

NAMESPACE = "kubeflow-system"        # cert.GetOperatorNamespace's default
SERVICE = "kubeflow-trainer-controller-manager"   # certManagement.webhookServiceName
SECRET = "kubeflow-trainer-webhook-cert"          # certManagement.webhookSecretName
SERVICE_ACCOUNT = SERVICE            # the Deployment's serviceAccountName
DNS = "%s.%s.svc" % (SERVICE, NAMESPACE)
PORT_NAME = "status-server"          # the Service port's name upstream
SA_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
CERT_PATH = "/tmp/k8s-webhook-server"  # parent of v2.2.0's certDir


def config(port):
    """The Trainer Configuration's keys for the status server."""
    return {"featureGates": {"TrainJobStatus": True},
            "statusServer": {"port": port},
            "certManagement": {"enable": False, "webhookServiceName": SERVICE,
                               "webhookSecretName": SECRET}}


def serving_pair(home, ca_dir):
    """home/pki/{ca.crt, serving.crt, serving.key}: a pair for the Trainer
    controller's webhook (called at 127.0.0.1) and status server (reached by
    its Service's name), signed by the CA in ca_dir (kubeflow.shared_pki, the
    CA every webhook configuration of the cluster trusts). Returns home/pki."""
    pki = os.path.join(home, "pki")
    os.makedirs(pki, exist_ok=True)
    for f in ("ca.crt", "ca.key"):
        shutil.copyfile(os.path.join(ca_dir, f), os.path.join(pki, f))
    cluster.make_cert(pki, "serving", "/CN=" + DNS, [
        "IP:127.0.0.1", "DNS:localhost", "DNS:" + DNS, "DNS:%s.%s.svc.cluster.local"
        % (SERVICE, NAMESPACE), "DNS:%s.%s" % (SERVICE, NAMESPACE)], ca="ca")
    return pki


def objects(pki, status_port, webhook_port):
    """The objects a real install has for the controller (Trainer's
    manifests/base/manager and rbac), as far as they matter here."""
    meta = {"name": SERVICE, "namespace": NAMESPACE}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
         "metadata": {"name": SECRET, "namespace": NAMESPACE},
         "data": {"ca.crt": b64file(os.path.join(pki, "ca.crt")),
                  "tls.crt": b64file(os.path.join(pki, "serving.crt")),
                  "tls.key": b64file(os.path.join(pki, "serving.key"))}},
        {"apiVersion": "v1", "kind": "Service", "metadata": meta,
         "spec": {"ports": [{"name": PORT_NAME, "port": status_port, "protocol": "TCP"},
                            {"name": "webhook-server", "port": 443, "protocol": "TCP",
                             "targetPort": webhook_port}]}},
    ]


def service_account_files(plane, home):
    """home/serviceaccount/{token, ca.crt, namespace}: what the kubelet mounts
    into the controller's pod. v2.2.0 reads the token once, at start, only for
    its issuer (the API server, cluster.py's --service-account-issuer), whose
    OIDC discovery document and keys it then fetches. Returns the directory."""
    sa = os.path.join(home, "serviceaccount")
    os.makedirs(sa, exist_ok=True)
    token = kubectl(plane, "create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE).stdout.strip()
    for name, text in (("token", token), ("namespace", NAMESPACE)):
        with open(os.path.join(sa, name), "w") as f:
            f.write(text)
    shutil.copyfile(os.path.join(plane.pki, "ca.crt"), os.path.join(sa, "ca.crt"))
    return sa


# Run by sh inside the new mount namespace (private propagation: nothing it
# mounts is seen outside); then the controller replaces it (same pid).
SANDBOX = """set -e
mount -t tmpfs -o mode=755,size=1m arenafs-trainer /var/run
mkdir -p {sa}
mount --bind "$ARENAFS_SA_DIR" {sa}
mkdir -p {certs}
mount --bind "$ARENAFS_CERT_DIR" {certs}
exec "$@"
""".format(sa=SA_PATH, certs=CERT_PATH)


def sandboxed(argv, sa_dir, cert_dir, env):
    """(argv, env) that run argv with SA_PATH holding sa_dir and CERT_PATH
    holding cert_dir (its serving-certs/ the pair), in a mount namespace of its
    own. Needs the right to unshare (root, as up is for its other fixed paths)."""
    unshare = shutil.which("unshare")
    if not unshare:
        raise ClusterError("unshare (util-linux) is missing: Trainer's status server needs it")
    env = dict(env, ARENAFS_SA_DIR=sa_dir, ARENAFS_CERT_DIR=cert_dir)
    return [unshare, "--mount", "--propagation", "private", "sh", "-c", SANDBOX,
            "trainer-controller-manager"] + list(argv), env


def tls_context(ca_file):
    return ssl.create_default_context(cafile=ca_file)


def answers(port, ca_file):
    """The status server completes a TLS handshake as DNS and answers HTTP
    (its catch-all 404 to a GET /)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
            with tls_context(ca_file).wrap_socket(raw, server_hostname=DNS) as s:
                s.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                          % DNS.encode())
                return s.recv(64).startswith(b"HTTP/1.1 404")
    except (OSError, ssl.SSLError):
        return False


def wait_serving(plane, port, ca_file):
    """Until the status server answers: it starts only after its OIDC discovery
    of the API server's issuer succeeded."""
    wait_for("Trainer's status server on port %d" % port, lambda: answers(port, ca_file),
             plane, "trainer-controller-manager", 90)

