"""What kubesim writes for its clients: TLS material (made with the openssl
command line) and DIR/kubeconfig.

With --tls: a CA (EC P-256), a server certificate for IP 127.0.0.1 and DNS
localhost, and a client certificate (CN kubesim-admin, O system:masters)
signed by the CA, all under DIR/pki/. The kubeconfig carries the CA as
certificate-authority-data and the client certificate as
client-certificate-data / client-key-data.

Users and contexts (namespace default in each):
    context kubesim (current)  user admin        bearer token, may do anything
    context viewer             user viewer       bearer token, get/list/watch in default
    context reader             user reader       bearer token, get/list/watch everywhere
    context kubesim-cert       user kubesim-cert client certificate (--tls only), admin
"""

import base64
import os
import secrets
import subprocess

CERT_CN = "kubesim-admin"
CLUSTER = "kubesim"


def _openssl(args, cwd):
    r = subprocess.run(["openssl"] + args, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("openssl %s failed: %s" % (" ".join(args[:2]), r.stderr.strip()))


def make_pki(directory, reuse=False):
    """Creates DIR/pki/{ca,server,client}.{crt,key}; returns the paths dict.
    reuse: keep the ones a previous run made (a restart keeps its clients' trust)."""
    pki = os.path.join(directory, "pki")
    paths = {k: os.path.join(pki, k.replace("_", ".")) for k in
             ("ca_crt", "ca_key", "server_crt", "server_key", "client_crt", "client_key")}
    if reuse and all(os.path.exists(p) for p in paths.values()):
        return paths
    os.makedirs(pki, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "3650",
              "-subj", "/CN=kubesim-ca",
              "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,digitalSignature,keyCertSign,cRLSign"], pki)
    for name, subj, ext in (
            ("server", "/CN=kube-apiserver",
             "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
             "keyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n"),
            ("client", "/O=system:masters/CN=" + CERT_CN,
             "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
             "basicConstraints=CA:FALSE\n")):
        _openssl(["req"] + ec + ["-keyout", name + ".key", "-out", name + ".csr",
                                 "-subj", subj], pki)
        with open(os.path.join(pki, name + ".ext"), "w") as f:
            f.write(ext)
        _openssl(["x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                  "-CAcreateserial", "-out", name + ".crt", "-days", "3650",
                  "-extfile", name + ".ext"], pki)
    for f in os.listdir(pki):
        if f.endswith(".key"):
            os.chmod(os.path.join(pki, f), 0o600)
    return {k: os.path.join(pki, k.replace("_", ".")) for k in
            ("ca_crt", "ca_key", "server_crt", "server_key", "client_crt", "client_key")}


def _b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def new_tokens():
    return {"admin": "admin-" + secrets.token_hex(16), "viewer": "viewer-" + secrets.token_hex(16),
            "reader": "reader-" + secrets.token_hex(16)}


def write_kubeconfig(path, url, tokens, pki=None):
    """Writes the kubeconfig (YAML, mode 0600)."""
    cluster = ["- name: %s" % CLUSTER, "  cluster:", "    server: %s" % url]
    if pki:
        cluster.append("    certificate-authority-data: %s" % _b64file(pki["ca_crt"]))
    contexts = [("kubesim", "admin"), ("viewer", "viewer"), ("reader", "reader")]
    users = ["- name: admin", "  user:", "    token: %s" % tokens["admin"],
             "- name: viewer", "  user:", "    token: %s" % tokens["viewer"],
             "- name: reader", "  user:", "    token: %s" % tokens["reader"]]
    if pki:
        contexts.append(("kubesim-cert", "kubesim-cert"))
        users += ["- name: kubesim-cert", "  user:",
                  "    client-certificate-data: %s" % _b64file(pki["client_crt"]),
                  "    client-key-data: %s" % _b64file(pki["client_key"])]
    lines = ["apiVersion: v1", "kind: Config", "clusters:"] + cluster + ["contexts:"]
    for name, user in contexts:
        lines += ["- name: %s" % name, "  context:", "    cluster: %s" % CLUSTER,
                  "    user: %s" % user, "    namespace: default"]
    lines += ["current-context: kubesim", "preferences: {}", "users:"] + users
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def write_file(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
