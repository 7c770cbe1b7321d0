"""The errors as kubectl 1.32 prints them: 404, 409 AlreadyExists and
Conflict, 422 name validation, the training-operator webhook's denial, strict
field validation, a missing namespace, 401 for a bad token, 403 for the
viewer; over TLS with the generated CA, and the client-certificate user."""

import json

import pytest

TFJOB = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "NAME"},
         "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "restartPolicy": "Never",
                                                "template": {"spec": {"containers": [{
                                                    "name": "tensorflow",
                                                    "image": "tensorflow/tensorflow:2.15.0",
                                                    "env": [{"name": "SIM_RUN_SECONDS",
                                                             "value": "600"}]}]}}}}}}


def tfjob(name, **spec_changes):
    job = json.loads(json.dumps(TFJOB))
    job["metadata"]["name"] = name
    job["spec"].update(spec_changes)
    return json.dumps(job)


@pytest.fixture(scope="module")
def c(kubesim_module):
    return kubesim_module("--tls", "--nodes", "2", "--gpus", "4", "--speed", "20")


def create(c, manifest, *args, context=None):
    return c.kubectl("create", "-f", "-", *args, input=manifest, context=context, check=False)


def test_not_found(c):
    assert c.kubectl("get", "tfjob", "nope", check=False).stderr == \
        'Error from server (NotFound): tfjobs.kubeflow.org "nope" not found\n'
    assert c.kubectl("get", "pod", "nope", check=False).stderr == \
        'Error from server (NotFound): pods "nope" not found\n'
    assert c.kubectl("get", "deployment", "nope", check=False).stderr == \
        'Error from server (NotFound): deployments.apps "nope" not found\n'
    assert c.kubectl("delete", "tfjob", "nope", check=False).stderr == \
        'Error from server (NotFound): tfjobs.kubeflow.org "nope" not found\n'


def test_already_exists(c):
    assert create(c, tfjob("twice")).returncode == 0
    out = create(c, tfjob("twice"))
    assert out.returncode == 1
    assert out.stderr == ('Error from server (AlreadyExists): error when creating "STDIN": '
                          'tfjobs.kubeflow.org "twice" already exists\n')


def test_invalid_name_is_422_with_the_apimachinery_text(c):
    out = create(c, tfjob("Bad_Name"))
    assert out.returncode == 1
    assert out.stderr == (
        'The TFJob "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
        "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n")
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web.v2"},
           "spec": {"ports": [{"port": 80}]}}
    out = create(c, json.dumps(svc))
    assert out.stderr == (
        'The Service "web.v2" is invalid: metadata.name: Invalid value: "web.v2": a DNS-1035 '
        "label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')\n")


def test_training_operator_webhook_denies_a_non_dns1035_job_name(c):
    # "9lives" is a valid subdomain (the apiserver's rule) but not a DNS-1035
    # label (the webhook's): the webhook denies it, as training-operator v1.9.
    out = create(c, tfjob("9lives"))
    assert out.returncode == 1
    assert out.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": admission webhook '
        '"validator.tfjob.training-operator.kubeflow.org" denied the request: metadata.name: '
        'Invalid value: "9lives": should match: a DNS-1035 label must consist of lower case '
        "alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')\n")


def test_webhook_requires_the_framework_container(c):
    job = json.loads(tfjob("nocontainer"))
    job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] = "main"
    out = create(c, json.dumps(job))
    assert out.returncode == 1
    assert out.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": admission webhook '
        '"validator.tfjob.training-operator.kubeflow.org" denied the request: '
        'spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must have at least '
        'one container with name tensorflow\n')


def test_strict_field_validation_names_the_unknown_field(c):
    job = json.loads(tfjob("typo"))
    job["spec"]["tfReplicaSpecs"]["Worker"]["replicaz"] = 3
    out = create(c, json.dumps(job))
    assert out.returncode == 1
    assert out.stderr == ('Error from server (BadRequest): error when creating "STDIN": TFJob in '
                          'version "v1" cannot be handled as a TFJob: strict decoding error: '
                          'unknown field "spec.tfReplicaSpecs.Worker.replicaz"\n')
    assert c.kubectl("get", "tfjob", "typo", check=False).returncode == 1


def test_creating_into_a_missing_namespace(c):
    out = create(c, tfjob("lost"), "-n", "nowhere")
    assert out.stderr == ('Error from server (NotFound): error when creating "STDIN": '
                          'namespaces "nowhere" not found\n')


def test_bad_token_is_401(c, tmp_path):
    cfg = c.config()
    broken = json.loads(json.dumps(cfg))
    for u in broken["users"]:
        if "token" in u["user"]:
            u["user"]["token"] = "not-a-token"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(broken))
    out = c.kubectl("--kubeconfig", str(path), "get", "pods", check=False)
    assert out.returncode == 1
    assert out.stderr.endswith("error: You must be logged in to the server (Unauthorized)\n"), \
        out.stderr


def test_viewer_reads_default_only(c):
    assert c.kubectl("get", "pods", context="viewer").returncode == 0
    out = c.kubectl("create", "-f", "-", input=tfjob("by-viewer"), context="viewer", check=False)
    assert out.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": tfjobs.kubeflow.org is '
        'forbidden: User "viewer" cannot create resource "tfjobs" in API group "kubeflow.org" '
        'in the namespace "default"\n')
    out = c.kubectl("get", "nodes", context="viewer", check=False)
    assert out.stderr == ('Error from server (Forbidden): nodes is forbidden: User "viewer" '
                          'cannot list resource "nodes" in API group "" at the cluster scope\n')
    out = c.kubectl("get", "pods", "-n", "kube-system", context="viewer", check=False)
    assert out.stderr == ('Error from server (Forbidden): pods is forbidden: User "viewer" '
                          'cannot list resource "pods" in API group "" in the namespace '
                          '"kube-system"\n')
    assert create(c, tfjob("owned")).returncode == 0
    out = c.kubectl("delete", "tfjob", "owned", context="viewer", check=False)
    assert out.stderr == (
        'Error from server (Forbidden): tfjobs.kubeflow.org "owned" is forbidden: User "viewer" '
        'cannot delete resource "tfjobs" in API group "kubeflow.org" in the namespace '
        '"default"\n')


def test_tls_with_the_clusters_ca_and_the_client_certificate_user(c):
    assert c.url.startswith("https://127.0.0.1:")
    cl = c.config()["clusters"][0]["cluster"]
    assert "certificate-authority-data" in cl and "insecure-skip-tls-verify" not in cl
    out = c.kubectl("get", "namespaces", "-o", "name", context=c.cert_context())
    assert "namespace/default" in out.stdout.split()
    # The certificate user may write (it is a cluster admin).
    assert create(c, tfjob("by-cert"), context=c.cert_context()).returncode == 0
