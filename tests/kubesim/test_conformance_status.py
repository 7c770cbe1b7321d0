"""Status objects beyond test_conformance_errors.py: the details and causes
of a 422, the messages of kubectl's typed (protobuf) clients, namespace
mismatches, fieldValidation Warn, selector errors, and a wrong CA refused."""

import base64
import subprocess

import pytest
import yaml

from helpers import TFJOB_MANIFEST as TFJOB

SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                 "characters, '-' or '.', and must start and end with an alphanumeric character "
                 "(e.g. 'example.com', regex used for validation is "
                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--tls", "--nodes", "2", "--speed", "20")


def manifest(tmp_path, name, text):
    p = tmp_path / (name + ".yaml")
    p.write_text(text)
    return str(p)


def err(c, *args, context=None):
    r = c.kubectl(*args, context=context, check=False)
    assert r.returncode != 0, r.stdout
    return r.stderr


def test_invalid_status_details_reach_the_client(c):
    status, body = c.api("POST", "/api/v1/namespaces/default/configmaps",
                         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "X"}})
    assert status == 422
    assert body["reason"] == "Invalid" and body["code"] == 422
    assert body["details"]["name"] == "X" and body["details"]["kind"] == "ConfigMap"
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "metadata.name",
                                          "message": 'Invalid value: "X": ' + SUBDOMAIN_MSG}]
    status, body = c.api("POST", "/api/v1/namespaces/default/configmaps",
                         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    assert status == 422
    assert body["message"] == ('ConfigMap "" is invalid: metadata.name: Required value: name or '
                               'generateName is required')


def test_namespace_checks(c, tmp_path):
    f = manifest(tmp_path, "other-ns", (TFJOB % ("other-ns", "")).replace(
        "  name: other-ns\n", "  name: other-ns\n  namespace: team-a\n"))
    assert err(c, "create", "-f", f, "-n", "default") == (
        'error: the namespace from the provided object "team-a" does not match the namespace '
        '"default". You must pass \'--namespace=team-a\' to perform this operation.\n')
    status, body = c.api("POST", "/api/v1/namespaces/default/configmaps",
                         {"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": "x", "namespace": "team-a"}})
    assert (status, body["reason"]) == (400, "BadRequest")
    assert body["message"] == ("the namespace of the provided object does not match the "
                               "namespace sent on the request")


def test_strict_field_validation(c, tmp_path):
    text = (TFJOB % ("strict", "")).replace("      restartPolicy: Never\n",
                                          "      restartPolicy: Never\n      foo: bar\n")
    f = manifest(tmp_path, "strict", text)
    assert err(c, "create", "-f", f) == (
        'Error from server (BadRequest): error when creating "%s": TFJob in version "v1" cannot '
        'be handled as a TFJob: strict decoding error: unknown field '
        '"spec.tfReplicaSpecs.Worker.foo"\n' % f)
    r = c.kubectl("create", "-f", f, "--validate=warn")
    assert 'Warning: unknown field "spec.tfReplicaSpecs.Worker.foo"' in r.stderr, r.stderr
    assert "foo" not in c.kubectl("get", "tfjob", "strict", "-o", "yaml").stdout


def test_selector_errors(c):
    assert err(c, "get", "pods", "--field-selector", "spec.foo=x") == (
        'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label '
        'selector "", field selector "spec.foo=x": field label not supported: spec.foo\n')
    assert "field label not supported: status.phase" in \
        err(c, "get", "tfjobs", "--field-selector", "status.phase=Running")


def test_certificate_user_writes_and_a_wrong_ca_is_refused(c, tmp_path):
    ctx = c.cert_context()
    user = c.user(ctx)
    assert "token" not in user and user["client-key-data"]
    out = c.kubectl("get", "namespaces", "-o", "name", context=ctx).stdout
    assert "namespace/default" in out and "namespace/team-a" in out
    assert c.kubectl("create", "configmap", "by-cert", context=ctx).returncode == 0
    cfg = yaml.safe_load(yaml.safe_dump(c.config()))
    cluster = cfg["clusters"][0]["cluster"]
    ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
    assert "BEGIN CERTIFICATE" in ca
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "k", "-out", "ca.crt",
                    "-days", "1", "-subj", "/CN=other"], cwd=wrong, check=True, capture_output=True)
    cluster["certificate-authority-data"] = base64.b64encode(
        (wrong / "ca.crt").read_bytes()).decode()
    p = tmp_path / "wrong-ca"
    p.write_text(yaml.safe_dump(cfg))
    r = subprocess.run(["kubectl", "--kubeconfig", str(p), "--cache-dir", str(tmp_path / "cache"),
                        "get", "pods"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "certificate signed by unknown authority" in r.stderr, r.stderr


def test_typed_client_messages(c):
    # kubectl create configmap/service send protobuf through its typed clients
    c.kubectl("create", "configmap", "dup")
    assert err(c, "create", "configmap", "dup") == \
        'error: failed to create configmap: configmaps "dup" already exists\n'
    assert err(c, "create", "configmap", "Bad_Name") == (
        'error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: '
        'Invalid value: "Bad_Name": %s\n' % SUBDOMAIN_MSG)
    svc = err(c, "create", "service", "clusterip", "1svc", "--tcp=80:80")
    assert 'Service "1svc" is invalid: metadata.name: Invalid value: "1svc": a DNS-1035 label' \
        in svc, svc
    assert err(c, "create", "configmap", "x", "-n", "nope") == \
        'error: failed to create configmap: namespaces "nope" not found\n'
