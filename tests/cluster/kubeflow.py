"""Today's Kubeflow on the test cluster: Kubeflow Trainer v2 (TrainJob) and the
JobSet controller it runs its jobs with, Kueue (queues, admission, the
visibility API through kube-apiserver's aggregation layer) and, in the
`--mpi v2beta1` profile, the MPI operator (MPIJob v2beta1) instead of the
training-operator's MPIJob v1.

Called by cluster.up() in three steps, so that the controllers start while
the rest of the cluster does and up waits for all of them at once:
    crds(profile)             the CRD files to install with the others
    start(plane, ...)         certificates, configuration, webhooks, processes
    finish(plane, ...)        waits until each serves, then the
                              ClusterTrainingRuntimes, the queues, the APIService

Each webhook server listens on 127.0.0.1 and its Validating/Mutating
WebhookConfiguration (from the module, kustomized as upstream ships it) calls
it there by url, with a CA made here: there is no Service network. What
upstream would mount from Secrets is written to files; the two paths Kueue
v0.17 fixes (/visibility, /etc/kueue/metrics/certs) are shared by every
cluster of the machine, so their pair is made once and kept in the cache.
docs/real-cluster.md says what each component proves.
"""

import json
import os
import shutil
import urllib.error
import urllib.request

import cluster
import statusserver
from cluster import ClusterError, b64file, kubectl, log, wait_for

PROFILES = ("v1", "v2beta1")

TRAINER = "github.com/kubeflow/trainer/v2"
JOBSET = "sigs.k8s.io/jobset"
KUEUE = "sigs.k8s.io/kueue"
MPI = "github.com/kubeflow/mpi-operator"

KUEUE_NS = "kueue-system"
# The Service the APIService names: ExternalName localhost, which
# kube-apiserver resolves itself and dials at the visibility server's port.
VISIBILITY_SVC = "visibility-server"
VISIBILITY_VERSIONS = ("v1beta1", "v1beta2")
# Kueue v0.17 reads these fixed paths when its internal certificate
# management is off (pkg/visibility/server.go, cmd/kueue/main.go).
KUEUE_VISIBILITY_DIR = "/visibility"
KUEUE_METRICS_DIR = "/etc/kueue/metrics/certs"
# CRDs served through Kueue's conversion webhook (its crd/kustomization.yaml)
KUEUE_CONVERTED = ("localqueues", "clusterqueues", "cohorts", "workloads", "multikueueclusters")
# What Kueue manages: the kinds of the issue, and JobSet, which TrainJob is
# made of. Jobs without a queue label are left alone (manageJobsWithoutQueueName
# false), so the rest of the suite runs as before.
KUEUE_FRAMEWORKS = ["kubeflow.org/tfjob", "kubeflow.org/pytorchjob", "kubeflow.org/mpijob",
                    "trainer.kubeflow.org/trainjob", "jobset.x-k8s.io/jobset"]
# Kueue's webhooks kept: its own kinds' and those of the frameworks above
# (those of a framework it does not run would fail every call: failurePolicy Fail).
KUEUE_WEBHOOK_PATHS = ("kueue-x-k8s-io", "kubeflow-org-v1-tfjob", "kubeflow-org-v1-pytorchjob",
                       "kubeflow-org-v2beta1-mpijob", "trainer-kubeflow-org", "jobset-x-k8s-io")
# The MPI operator's health server listens on :8080, a constant of v0.6.0
# (cmd/mpi-operator/app/server.go): one such cluster per machine.
MPI_HEALTH_PORT = 8080
MPI_LOCK_NS = "mpi-operator"

PORTS = ("trainer_webhook", "trainer_probe", "trainer_status", "jobset_webhook", "jobset_probe",
         "kueue_webhook", "kueue_probe", "kueue_visibility")


def source(moddir, module):
    return cluster.module_source(moddir, module)


def sources():
    """Where the module cache holds Trainer's, JobSet's and Kueue's sources."""
    return (source("kubeflow", TRAINER), source("jobset", JOBSET), source("kubeflow", KUEUE))


def crds(profile):
    """The CRD files of the profile's components: [(group, plural, path)]."""
    trainer, jobset, kueue = sources()
    out = [("trainer.kubeflow.org", p,
            os.path.join(trainer, "manifests", "base", "crds", "trainer.kubeflow.org_%s.yaml" % p))
           for p in ("trainjobs", "trainingruntimes", "clustertrainingruntimes")]
    out.append(("jobset.x-k8s.io", "jobsets", os.path.join(
        jobset, "config", "components", "crd", "bases", "jobset.x-k8s.io_jobsets.yaml")))
    bases = os.path.join(kueue, "config", "components", "crd", "bases")
    out += [("kueue.x-k8s.io", f[len("kueue.x-k8s.io_"):-len(".yaml")], os.path.join(bases, f))
            for f in sorted(os.listdir(bases)) if f.endswith(".yaml")]
    if profile == "v2beta1":
        out.append(("kubeflow.org", "mpijobs", os.path.join(
            source("mpi", MPI), "manifests", "base", "kubeflow.org_mpijobs.yaml")))
    return out


def binaries(profile):
    names = ["trainer-controller-manager", "jobset-controller", "kueue"]
    return names + (["mpi-operator"] if profile == "v2beta1" else [])


# ---------------------------------------------------------------- certificates

def shared_pki():
    """The serving pair of every webhook and of the visibility server, signed
    by a CA of its own; made once per machine (cache) because Kueue reads it
    from fixed paths every cluster shares. Returns the directory."""
    shared = os.path.join(cluster.cache_root(), "kubeflow-pki")
    names = ("ca.crt", "ca.key", "serving.crt", "serving.key")
    if not all(os.path.exists(os.path.join(shared, n)) for n in names):
        tmp = shared + ".tmp.%d" % os.getpid()
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        cluster.make_ca(tmp, "ca", "arenafs-kubeflow-webhook-ca")
        cluster.make_cert(tmp, "serving", "/CN=kubeflow-webhooks", [
            "IP:127.0.0.1", "DNS:localhost",
            "DNS:%s.%s.svc" % (VISIBILITY_SVC, KUEUE_NS)], ca="ca")
        try:
            os.rename(tmp, shared)
        except OSError:  # another up made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return shared


def install_pair(pki, directory, with_ca=False):
    """tls.crt/tls.key (and ca.crt) in directory, as a Secret's volume would
    hold them (cluster.install_files: left alone when they hold them already)."""
    pairs = [("serving.crt", "tls.crt"), ("serving.key", "tls.key")]
    if with_ca:
        pairs.append(("ca.crt", "ca.crt"))
    cluster.install_files(directory, [(os.path.join(pki, src), name) for src, name in pairs])


# ---------------------------------------------------------------- webhooks

def kustomized(plane, directory):
    """The objects `kubectl kustomize DIRECTORY` renders (upstream's patches
    applied), as JSON."""
    text = kubectl(plane, "kustomize", directory).stdout
    out = kubectl(plane, "create", "--dry-run=client", "-o", "json", "-f", "-", input=text).stdout
    # one JSON document per object, one after the other
    objs, at, dec = [], 0, json.JSONDecoder()
    while out[at:].strip():
        obj, end = dec.raw_decode(out, at + len(out[at:]) - len(out[at:].lstrip()))
        objs += obj["items"] if obj.get("kind") == "List" else [obj]
        at = end
    return objs


def webhook_configs(plane, directory, prefix, port, ca, keep=None):
    """The Validating/MutatingWebhookConfigurations of an upstream kustomize
    directory, named PREFIX-..., calling https://127.0.0.1:PORT/path, only the
    webhooks whose path contains one of keep (None: all)."""
    out = []
    for obj in kustomized(plane, directory):
        if obj["kind"] not in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            continue
        hooks = []
        for wh in obj["webhooks"]:
            path = wh["clientConfig"]["service"]["path"]
            if keep is not None and not any(k in path for k in keep):
                continue
            wh["clientConfig"] = {"url": "https://127.0.0.1:%d%s" % (port, path), "caBundle": ca}
            hooks.append(wh)
        kind = "validating" if obj["kind"].startswith("Validating") else "mutating"
        obj["metadata"] = {"name": "%s-%s" % (prefix, kind)}
        obj["webhooks"] = hooks
        out.append(obj)
    return out


# ---------------------------------------------------------------- start

def write(path, obj):
    """JSON is YAML: every controller here reads its configuration file as YAML."""
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    return path


def start(plane, profile, kubeconfig, ports):
    """Starts the controllers (not waiting for them): writes their
    certificates and configuration files, installs their webhook
    configurations and namespaces. ports: {name in PORTS: port}."""
    pki = shared_pki()
    ca = b64file(os.path.join(pki, "ca.crt"))
    home = os.path.join(plane.dir, "kubeflow")
    shutil.rmtree(home, ignore_errors=True)
    certs = os.path.join(home, "certs")
    install_pair(pki, certs, with_ca=True)
    # Trainer v2.2.0 serves its webhook from controller-runtime's default
    # directory, $TMPDIR/k8s-webhook-server/serving-certs, and its status server
    # from /tmp/k8s-webhook-server/serving-certs, where the training-operator
    # keeps its own pair: its own TMPDIR, and its own /tmp/k8s-webhook-server
    # in its mount namespace (statusserver.sandboxed), keep them apart. Its
    # pair, unlike the other webhooks', names its Service (statusserver.py).
    trainer_tmp = os.path.join(home, "trainer-tmp")
    trainer_certs = os.path.join(trainer_tmp, "k8s-webhook-server")
    trainer_pki = statusserver.serving_pair(home, pki)
    install_pair(trainer_pki, os.path.join(trainer_certs, "serving-certs"))
    install_pair(pki, KUEUE_VISIBILITY_DIR)
    install_pair(pki, KUEUE_METRICS_DIR)

    trainer, jobset, kueue = sources()
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}
            for n in (KUEUE_NS, MPI_LOCK_NS) if n != MPI_LOCK_NS or profile == "v2beta1"]
    objs += statusserver.objects(trainer_pki, ports["trainer_status"], ports["trainer_webhook"])
    objs += webhook_configs(plane, os.path.join(trainer, "manifests", "base", "webhook"),
                            "trainer", ports["trainer_webhook"], ca)
    objs += webhook_configs(plane, os.path.join(jobset, "config", "components", "webhook"),
                            "jobset", ports["jobset_webhook"], ca)
    objs += webhook_configs(plane, os.path.join(kueue, "config", "components", "webhook"),
                            "kueue", ports["kueue_webhook"], ca, KUEUE_WEBHOOK_PATHS)
    kubectl(plane, "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                          "items": objs}))
    conversion = {"spec": {"conversion": {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:%d/convert" % ports["kueue_webhook"],
                         "caBundle": ca}}}}}
    for plural in KUEUE_CONVERTED:
        kubectl(plane, "patch", "crd", "%s.kueue.x-k8s.io" % plural, "--type=merge",
                "-p", json.dumps(conversion))

    env = dict(os.environ, KUBECONFIG=kubeconfig)
    flags = ["--kubeconfig=" + kubeconfig]
    local = "127.0.0.1:%d"
    write(os.path.join(home, "trainer.yaml"), {
        "apiVersion": "config.trainer.kubeflow.org/v1alpha1", "kind": "Configuration",
        "health": {"healthProbeBindAddress": local % ports["trainer_probe"],
                   "readinessEndpointName": "readyz", "livenessEndpointName": "healthz"},
        "metrics": {"bindAddress": "0"},
        "webhook": {"port": ports["trainer_webhook"], "host": "127.0.0.1"},
        "leaderElection": {"leaderElect": False},
        "clientConnection": {"qps": 200, "burst": 400},
        **statusserver.config(ports["trainer_status"])})
    argv, trainer_env = statusserver.sandboxed(
        [cluster.binary_path("trainer-controller-manager"),
         "--config=" + os.path.join(home, "trainer.yaml")] + flags,
        statusserver.service_account_files(plane, home), trainer_certs,
        dict(env, TMPDIR=trainer_tmp))
    plane.start("trainer-controller-manager", argv, env=trainer_env)

    write(os.path.join(home, "jobset.yaml"), {
        "apiVersion": "config.jobset.x-k8s.io/v1alpha1", "kind": "Configuration",
        "health": {"healthProbeBindAddress": local % ports["jobset_probe"]},
        "metrics": {"bindAddress": "0"},
        "webhook": {"port": ports["jobset_webhook"], "host": "127.0.0.1", "certDir": certs},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "clientConnection": {"qps": 200, "burst": 400}})
    plane.start("jobset-controller", [
        cluster.binary_path("jobset-controller"),
        "--config=" + os.path.join(home, "jobset.yaml")] + flags, env=env)

    write(os.path.join(home, "kueue.yaml"), {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "namespace": KUEUE_NS,
        "health": {"healthProbeBindAddress": local % ports["kueue_probe"]},
        "metrics": {"bindAddress": "0"},
        "webhook": {"port": ports["kueue_webhook"], "host": "127.0.0.1", "certDir": certs},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "manageJobsWithoutQueueName": False,
        "visibilityServer": {"bindAddress": "127.0.0.1"},
        "clientConnection": {"qps": 200, "burst": 400},
        "integrations": {"frameworks": KUEUE_FRAMEWORKS}})
    plane.start("kueue", [
        cluster.binary_path("kueue"), "--config=" + os.path.join(home, "kueue.yaml"),
        "--visibility-server-port=%d" % ports["kueue_visibility"]] + flags, env=env)

    if profile == "v2beta1":
        plane.start("mpi-operator", [
            cluster.binary_path("mpi-operator"), "--kubeConfig=" + kubeconfig,
            "--lock-namespace=" + MPI_LOCK_NS, "--threadiness=4",
            "--kube-api-qps=200", "--kube-api-burst=400"], env=env)


# ---------------------------------------------------------------- finish

def http_ok(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except (OSError, urllib.error.HTTPError):
        return False


def apply_until_accepted(plane, what, component, text, timeout=90):
    """kubectl apply, again while the webhook that admits it is not serving yet."""
    last = []

    def applied():
        r = kubectl(plane, "apply", "-f", "-", input=text, check=False)
        last[:] = [r.stdout + r.stderr]
        return r.returncode == 0
    try:
        wait_for(what, applied, plane, component, timeout)
    except ClusterError as e:
        raise ClusterError("%s\nlast kubectl apply said: %s" % (e, last[0] if last else ""))


def finish(plane, profile, ports):
    """Waits until every controller serves, then installs what they admit:
    Trainer's ClusterTrainingRuntimes, the queues, the visibility APIService
    (checked through kube-apiserver)."""
    for name, port in (("trainer-controller-manager", ports["trainer_probe"]),
                       ("jobset-controller", ports["jobset_probe"]),
                       ("kueue", ports["kueue_probe"])):
        wait_for(name + " ready", lambda p=port: http_ok("http://127.0.0.1:%d/readyz" % p),
                 plane, name, 120)
    statusserver.wait_serving(plane, ports["trainer_status"],
                              os.path.join(plane.dir, "kubeflow", "pki", "ca.crt"))
    if profile == "v2beta1":
        wait_for("mpi-operator healthy",
                 lambda: http_ok("http://127.0.0.1:%d/healthz" % MPI_HEALTH_PORT),
                 plane, "mpi-operator", 90)

    runtimes = os.path.join(source("kubeflow", TRAINER), "manifests", "base", "runtimes")
    text = kubectl(plane, "kustomize", runtimes).stdout
    apply_until_accepted(plane, "ClusterTrainingRuntimes admitted by Trainer's webhook",
                         "trainer-controller-manager", text)
    with open(os.path.join(cluster.HERE, "queues.yaml")) as f:
        apply_until_accepted(plane, "Kueue's queues admitted by its webhook", "kueue", f.read())

    pki = shared_pki()
    objs = [{"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": VISIBILITY_SVC, "namespace": KUEUE_NS},
             "spec": {"type": "ExternalName", "externalName": "localhost",
                      "ports": [{"name": "https", "port": ports["kueue_visibility"],
                                 "protocol": "TCP"}]}}]
    objs += [{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
              "metadata": {"name": "%s.visibility.kueue.x-k8s.io" % v},
              "spec": {"group": "visibility.kueue.x-k8s.io", "version": v,
                       "groupPriorityMinimum": 100, "versionPriority": 100 if v == "v1beta2" else 90,
                       "caBundle": b64file(os.path.join(pki, "ca.crt")),
                       "service": {"name": VISIBILITY_SVC, "namespace": KUEUE_NS,
                                   "port": ports["kueue_visibility"]}}}
             for v in VISIBILITY_VERSIONS]
    kubectl(plane, "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                          "items": objs}))
    path = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cluster-queue/pendingworkloads"
    wait_for("Kueue's visibility API through kube-apiserver (%s)" % path,
             lambda: kubectl(plane, "get", "--raw", path, check=False).returncode == 0,
             plane, "kueue", 90)


def check_profile(profile):
    if profile not in PROFILES:
        raise ClusterError("unknown MPI profile %r (known: %s)" % (profile, ", ".join(PROFILES)))
