"""What the apiserver does to an object between decoding and storing it:
name validation (the real messages), defaulting (pods, services with
clusterIP and NodePort allocation, deployments, jobs), generateName, the
training-operator's validating webhook for the kubeflow.org/v1 kinds, and the
TrainJob CRD's schema for status.trainerStatus (what its training script
reports through Trainer's status server).

Errors are ApiError with the reasons, messages and details.causes the
apiserver writes, so kubectl prints exactly what it prints for a cluster.
"""

import copy
import ipaddress
import random
import re
import threading

from .sim import util as simutil
from .sim import kueue
from .sim.batch import job_spec_defaults
from .store import ApiError

SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

MSG_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                 "characters, '-' or '.', and must start and end with an alphanumeric character "
                 "(e.g. 'example.com', regex used for validation is "
                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
MSG_LABEL1123 = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                 "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
                 "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
MSG_LABEL1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                 "start with an alphabetic character, and end with an alphanumeric character "
                 "(e.g. 'my-name',  or 'abc-123', regex used for validation is "
                 "'[a-z]([-a-z0-9]*[a-z0-9])?')")

NODE_PORT_MIN, NODE_PORT_MAX = 30000, 32767
# The low ports kept for Services that name their nodePort: min(max(16,
# size/32), 128) of the range (portallocator's calculateRangeOffset), 86 here.
NODE_PORT_STATIC_BAND = min(max(16, (NODE_PORT_MAX - NODE_PORT_MIN + 1) // 32), 128)
SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")


def go_quote(s):
    """%q of a Go string (enough for names and values)."""
    out = ['"']
    for ch in str(s):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def name_errors(name, rule):
    """The messages IsDNS1123Subdomain / IsDNS1123Label / IsDNS1035Label give."""
    errs = []
    if rule == "subdomain":
        if len(name) > 253:
            errs.append("must be no more than 253 characters")
        if not SUBDOMAIN.match(name):
            errs.append(MSG_SUBDOMAIN)
    else:
        if len(name) > 63:
            errs.append("must be no more than 63 characters")
        if not (LABEL1123 if rule == "label1123" else LABEL1035).match(name):
            errs.append(MSG_LABEL1123 if rule == "label1123" else MSG_LABEL1035)
    return errs


def invalid(res, name, causes):
    """422 Invalid as apierrors.NewInvalid builds it. causes: [(reason, field, message)]."""
    parts = ["%s: %s" % (f, m) for _, f, m in causes]
    msg = '%s "%s" is invalid: ' % (res.group_kind, name)
    msg += parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    details = {"name": name, "kind": res.kind,
               "causes": [{"reason": r, "message": m, "field": f} for r, f, m in causes]}
    if res.group:
        details = {"name": name, "group": res.group, "kind": res.kind, "causes": details["causes"]}
    return ApiError(422, "Invalid", msg, details)


def invalid_value(value, detail):
    return "Invalid value: %s: %s" % (go_quote(value) if isinstance(value, str) else value, detail)


class Admission:
    def __init__(self, store, registry, seed=0):
        self.store = store
        self.registry = registry
        self.rand = random.Random(seed ^ 0x5EED)
        self.lock = threading.Lock()
        self.next_ip = 10      # 10.96.0.1 is the kubernetes Service, .10 kube-dns

    # ---- metadata ----

    def generate_name(self, res, meta):
        prefix = meta.get("generateName") or ""
        if len(prefix) > 58:
            prefix = prefix[:58]
        with self.lock:
            suffix = "".join(self.rand.choice(simutil.SAFE_ALPHABET) for _ in range(5))
        return prefix + suffix

    def validate_meta(self, res, obj):
        meta = obj.get("metadata") or {}
        name = meta.get("name") or ""
        if not name:
            raise invalid(res, "", [("FieldValueRequired", "metadata.name",
                                     "Required value: name or generateName is required")])
        causes = [("FieldValueInvalid", "metadata.name", invalid_value(name, e))
                  for e in name_errors(name, "label1123" if res.names == "label1123" else
                                       ("label1035" if res.names == "label1035" and not res.crd
                                        else "subdomain"))]
        for k, v in (meta.get("labels") or {}).items():
            if not isinstance(v, str) or (v and not re.match(
                    r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$", v)) or len(str(v)) > 63:
                causes.append(("FieldValueInvalid", "metadata.labels",
                               invalid_value(v, "a valid label must be an empty string or consist "
                                             "of alphanumeric characters, '-', '_' or '.', and "
                                             "must start and end with an alphanumeric character "
                                             "(e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                                             "used for validation is "
                                             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")))
        if causes:
            raise invalid(res, name, causes)

    # ---- kind-specific validation and defaults on create ----

    def admit_create(self, res, obj):
        """Validates and defaults obj (in place) for a create. Raises ApiError."""
        self.validate_meta(res, obj)
        fn = getattr(self, "_create_" + res.plural, None)
        if fn is not None and not res.crd:
            fn(res, obj)
        if res.group == "kubeflow.org" and res.version == "v1":
            webhook_validate(res, obj)
            # the CRDs' structural defaults (training-operator v1.9): a runPolicy
            # that is there gets suspend: false, as kube-apiserver fills it in
            rp = (obj.get("spec") or {}).get("runPolicy")
            if isinstance(rp, dict):
                rp.setdefault("suspend", False)
        if self.registry.get(kueue.WORKLOADS) is not None:
            kueue.kueue_suspend(res, obj)     # Kueue's job webhook
        return obj

    def admit_update(self, res, old, obj):
        """Keeps what an update cannot change (immutable fields, allocated IPs);
        checks a TrainJob's trainerStatus as its CRD does."""
        if res.key == TRAINJOBS:
            ts = (obj.get("status") or {}).get("trainerStatus")
            causes = trainer_status_causes(ts) if isinstance(ts, dict) else []
            if causes:
                raise invalid(res, obj["metadata"]["name"], causes)
        if res.key == "services":
            spec = obj.setdefault("spec", {})
            ospec = old.get("spec") or {}
            for k in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
                if k in ospec and not spec.get(k):
                    spec[k] = copy.deepcopy(ospec[k])
            self._keep_node_ports(ospec, spec)
            self._node_ports(res, obj, old)
        if res.key == "pods":
            ospec = old.get("spec") or {}
            for k in ("nodeName",):
                if ospec.get(k) and not (obj.get("spec") or {}).get(k):
                    obj.setdefault("spec", {})[k] = ospec[k]
        return obj

    def _create_pods(self, res, obj):
        spec = obj.get("spec") or {}
        causes = []
        containers = spec.get("containers")
        if not containers:
            causes.append(("FieldValueRequired", "spec.containers", "Required value"))
        for i, c in enumerate(containers or []):
            if not c.get("name"):
                causes.append(("FieldValueRequired", "spec.containers[%d].name" % i,
                               "Required value"))
            if not c.get("image"):
                causes.append(("FieldValueRequired", "spec.containers[%d].image" % i,
                               "Required value"))
        if causes:
            raise invalid(res, obj["metadata"]["name"], causes)
        simutil.admit_priority_class(self.store, obj)
        obj["status"] = {}
        simutil.default_pod(obj)

    def _create_services(self, res, obj):
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        ports = spec.get("ports") or []
        if not ports and spec.get("clusterIP") != "None" and spec["type"] != "ExternalName":
            raise invalid(res, obj["metadata"]["name"],
                          [("FieldValueRequired", "spec.ports", "Required value")])
        for p in ports:
            p.setdefault("protocol", "TCP")
            p.setdefault("targetPort", p.get("port"))
        if spec["type"] != "ExternalName":
            if not spec.get("clusterIP"):
                spec["clusterIP"] = self._alloc_ip()
            spec["clusterIPs"] = [spec["clusterIP"]]
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")
            spec.setdefault("internalTrafficPolicy", "Cluster")
        if spec["type"] in ("NodePort", "LoadBalancer"):
            spec.setdefault("externalTrafficPolicy", "Cluster")
        self._node_ports(res, obj, None)
        obj["status"] = {"loadBalancer": {}}

    def _alloc_ip(self):
        with self.lock:
            self.next_ip += 1
            n = self.next_ip
        return str(SERVICE_CIDR.network_address + (n % (SERVICE_CIDR.num_addresses - 2)) + 1)

    def _node_ports(self, res, obj, old):
        spec = obj.get("spec") or {}
        if spec.get("type") not in ("NodePort", "LoadBalancer"):
            for p in spec.get("ports") or []:
                p.pop("nodePort", None)
            return
        mine = set()
        if old is not None:
            mine = {p.get("nodePort") for p in (old.get("spec") or {}).get("ports") or []}
        used = set()
        name = obj["metadata"]["name"]
        ns = obj["metadata"].get("namespace", "")
        entries, _ = self.store.list("services")
        for e in entries:
            m = e.obj.get("metadata") or {}
            if (m.get("namespace"), m.get("name")) == (ns, name):
                continue
            for p in (e.obj.get("spec") or {}).get("ports") or []:
                if p.get("nodePort"):
                    used.add(p["nodePort"])
        for i, p in enumerate(spec.get("ports") or []):
            np = p.get("nodePort")
            if np:
                if not NODE_PORT_MIN <= int(np) <= NODE_PORT_MAX:
                    raise invalid(res, name, [(
                        "FieldValueInvalid", "spec.ports[%d].nodePort" % i,
                        invalid_value(int(np), "provided port is not in the valid range. The "
                                      "range of valid ports is %d-%d"
                                      % (NODE_PORT_MIN, NODE_PORT_MAX)))])
                if np in used and np not in mine:
                    raise invalid(res, name, [("FieldValueInvalid", "spec.ports[%d].nodePort" % i,
                                               invalid_value(int(np), "provided port is already "
                                                             "allocated"))])
                used.add(np)
                continue
            with self.lock:
                cand = self._next_node_port(used)
            if cand is None:
                raise ApiError(500, "InternalError", "Internal error occurred: failed to "
                               "allocate a nodePort: range is full")
            p["nodePort"] = cand
            used.add(cand)

    def _keep_node_ports(self, ospec, spec):
        """An update that leaves a port's nodePort out keeps the one allocated
        to the port of that name, unless another port now has it (the
        apiserver's patchAllocatedValues): `kubectl replace -f` of the
        manifest that made the Service does not move its ports."""
        kinds = ("NodePort", "LoadBalancer")
        if ospec.get("type") not in kinds or spec.get("type", "ClusterIP") not in kinds:
            return
        old = {p.get("name", ""): p.get("nodePort") for p in ospec.get("ports") or []}
        used = {p.get("nodePort") for p in spec.get("ports") or []} & set(old.values())
        for p in spec.get("ports") or []:
            keep = old.get(p.get("name", ""))
            if not p.get("nodePort") and keep and keep not in used:
                p["nodePort"] = keep

    def _next_node_port(self, used):
        """A free port as the apiserver's allocator picks one: at random in
        the range above the static band, then in the band (KEP-3668, GA in
        1.29: ports asked for by number are less likely to be taken)."""
        size = NODE_PORT_MAX - NODE_PORT_MIN + 1
        for lo, n in ((NODE_PORT_STATIC_BAND, size - NODE_PORT_STATIC_BAND),
                      (0, NODE_PORT_STATIC_BAND)):
            start = self.rand.randrange(n)
            for i in range(n):
                port = NODE_PORT_MIN + lo + (start + i) % n
                if port not in used:
                    return port
        return None

    def _create_deployments(self, res, obj):
        spec = obj.setdefault("spec", {})
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
        st = spec.setdefault("strategy", {"type": "RollingUpdate"})
        if st.get("type", "RollingUpdate") == "RollingUpdate":
            st["type"] = "RollingUpdate"
            st.setdefault("rollingUpdate", {}).setdefault("maxSurge", "25%")
            st["rollingUpdate"].setdefault("maxUnavailable", "25%")
        self._require_selector(res, obj)
        self._default_template(spec)
        obj["status"] = {}

    def _create_replicasets(self, res, obj):
        spec = obj.setdefault("spec", {})
        spec.setdefault("replicas", 1)
        self._require_selector(res, obj)
        self._default_template(spec)
        obj["status"] = {"replicas": 0}

    def _require_selector(self, res, obj):
        spec = obj["spec"]
        sel = spec.get("selector")
        name = obj["metadata"]["name"]
        if not sel:
            raise invalid(res, name, [("FieldValueRequired", "spec.selector", "Required value")])
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        for k, v in (sel.get("matchLabels") or {}).items():
            if labels.get(k) != v:
                raise invalid(res, name, [(
                    "FieldValueInvalid", "spec.template.metadata.labels",
                    invalid_value(_go_map(labels), "`selector` does not match template `labels`"))])

    def _default_template(self, spec):
        """A template gets the pod defaults of the API's defaulting, not what the pod
        admission plugins add to pods (default tolerations, priority, service
        account): those come when its pods are made. What the user wrote stays."""
        tmpl = spec.setdefault("template", {})
        pod = {"spec": tmpl.setdefault("spec", {})}
        admitted = ("priority", "preemptionPolicy", "tolerations", "serviceAccount",
                    "serviceAccountName", "enableServiceLinks")
        given = {k: copy.deepcopy(pod["spec"][k]) for k in admitted if k in pod["spec"]}
        simutil.default_pod(pod)
        for k in admitted:
            if k in given:
                pod["spec"][k] = given[k]
            else:
                pod["spec"].pop(k, None)

    def _create_jobs(self, res, obj):
        spec = obj.setdefault("spec", {})
        uid = obj["metadata"].setdefault("uid", _uuid())
        name = obj["metadata"]["name"]
        tmpl = spec.setdefault("template", {})
        if not spec.get("manualSelector"):
            tl = tmpl.setdefault("metadata", {}).setdefault("labels", {})
            tl.update({"batch.kubernetes.io/controller-uid": uid,
                       "batch.kubernetes.io/job-name": name,
                       "controller-uid": uid, "job-name": name})
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
            spec["manualSelector"] = False
        rp = (tmpl.get("spec") or {}).get("restartPolicy")
        if rp not in ("Never", "OnFailure"):
            raise invalid(res, name, [(
                "FieldValueNotSupported", "spec.template.spec.restartPolicy",
                'Unsupported value: %s: supported values: "OnFailure", "Never"'
                % go_quote(rp or "Always"))])
        spec.update(job_spec_defaults(spec))
        if spec.get("completionMode") == "Indexed" and spec.get("completions") is None:
            spec["completions"] = spec["parallelism"]
        spec.setdefault("suspend", False)
        spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
        self._default_template(spec)
        obj["status"] = {}

    def _create_namespaces(self, res, obj):
        name = obj["metadata"]["name"]
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
        obj["spec"] = {"finalizers": ["kubernetes"]}
        obj["status"] = {"phase": "Active"}

    def _create_persistentvolumeclaims(self, res, obj):
        # StorageObjectInUseProtection: the pvc-protection controller (gc.py) removes it
        fins = obj["metadata"].setdefault("finalizers", [])
        if "kubernetes.io/pvc-protection" not in fins:
            fins.append("kubernetes.io/pvc-protection")
        spec = obj.setdefault("spec", {})
        spec.setdefault("volumeMode", "Filesystem")
        obj["status"] = {"phase": "Pending"}

    def _create_secrets(self, res, obj):
        obj.setdefault("type", "Opaque")


TRAINJOBS = "trainjobs.trainer.kubeflow.org"
TS = "status.trainerStatus"


def trainer_status_causes(ts):
    """What kube-apiserver says of a TrainJob's status.trainerStatus against
    Trainer v2.2.0's CRD (trainjob_types.go), in its order (fields by name): the
    bounds, the metrics' lengths, then the CEL rule lastUpdatedTime required,
    which is not checked after a length error (a cause <nil> says so)."""
    causes, too_long = [], False

    def bound(key, lo, hi):
        v = ts.get(key)
        if isinstance(v, int) and v < lo:
            causes.append(("FieldValueInvalid", "%s.%s" % (TS, key), invalid_value(
                v, "trainerStatus.%s in body should be greater than or equal to %d" % (key, lo))))
        elif isinstance(v, int) and hi is not None and v > hi:
            causes.append(("FieldValueInvalid", "%s.%s" % (TS, key), invalid_value(
                v, "trainerStatus.%s in body should be less than or equal to %d" % (key, hi))))

    bound("estimatedRemainingSeconds", 0, None)
    for i, m in enumerate(ts.get("metrics") or []):
        for key in ("name", "value"):
            v = (m or {}).get(key)
            field = "%s.metrics[%d].%s" % (TS, i, key)
            if isinstance(v, str) and not v:
                causes.append(("FieldValueInvalid", field, invalid_value(
                    v, "trainerStatus.metrics[%d].%s in body should be at least 1 chars long"
                    % (i, key))))
            elif isinstance(v, str) and len(v.encode()) > 64:
                too_long = True
                causes.append(("FieldValueTooLong", field,
                               "Too long: may not be more than 64 bytes"))
    bound("progressPercentage", 0, 100)
    if too_long:
        causes.append(("FieldValueInvalid", "<nil>",
                       "Invalid value: null: some validation rules were not checked because "
                       "the object was invalid; correct the existing errors to complete "
                       "validation"))
    elif not ts.get("lastUpdatedTime"):
        causes.append(("FieldValueInvalid", TS, "Invalid value: lastUpdatedTime is required "
                       "when trainerStatus is present"))
    return causes


def _go_map(d):
    return "map[string]string{%s}" % ", ".join('"%s":"%s"' % kv for kv in sorted(d.items()))


def _uuid():
    import uuid
    return str(uuid.uuid4())


# ---- the training-operator's validating webhooks (v1.9, pkg/webhooks) ----

# kind -> (replica specs field, framework container, valid replica types or
# None for any, replica types that must have exactly 1 replica). MPIJob v1
# has no webhook in v1.9.
FRAMEWORK = {
    "TFJob": ("tfReplicaSpecs", "tensorflow", None, ()),
    "PyTorchJob": ("pytorchReplicaSpecs", "pytorch", ("Master", "Worker"), ("Master",)),
    "XGBoostJob": ("xgbReplicaSpecs", "xgboost", ("Master", "Worker"), ("Master",)),
    "PaddleJob": ("paddleReplicaSpecs", "paddle", ("Master", "Worker"), ()),
    "JAXJob": ("jaxReplicaSpecs", "jax", ("Worker",), ()),
}


def webhook_validate(res, obj):
    """Denies what training-operator's webhook denies, as the apiserver reports
    a webhook denial with a plain error (controller-runtime's Denied: 403):
    `admission webhook "validator.tfjob.training-operator.kubeflow.org" denied
    the request: ...`. Replica types are checked in sorted order (Go's map
    order is random; sorted keeps the text stable)."""
    kind = res.kind
    if kind not in FRAMEWORK or res.version != "v1":
        return
    field_name, container, valid, singletons = FRAMEWORK[kind]
    name = obj["metadata"]["name"]
    errs = []
    n_errs = name_errors(name, "label1035")
    if n_errs:
        errs.append("metadata.name: %s" % invalid_value(name, "should match: " + ",".join(n_errs)))
    specs = (obj.get("spec") or {}).get(field_name)
    path = "spec.%s" % field_name
    if specs is None:
        errs.append("%s: Required value: must be required" % path)
    specs = specs or {}
    for rtype in sorted(specs):
        rs = specs[rtype] or {}
        if valid is not None and rtype not in valid:
            errs.append('%s[%s]: Unsupported value: "%s": supported values: %s'
                        % (path, rtype, rtype, ", ".join('"%s"' % v for v in valid)))
        tpl = (rs.get("template") or {}).get("spec") or {}
        cs = tpl.get("containers") or []
        if not cs:
            errs.append("%s[%s].template.spec.containers: Required value: must be specified"
                        % (path, rtype))
        for i, c in enumerate(cs):
            if not c.get("image"):
                errs.append("%s[%s].template.spec.containers[%d].image: Required value: must "
                            "be required" % (path, rtype, i))
        if not any(c.get("name") == container for c in cs):
            errs.append("%s[%s].template.spec.containers: Required value: must have at least "
                        "one container with name %s" % (path, rtype, container))
        if rtype in singletons and rs.get("replicas") != 1:
            errs.append("%s[%s].replicas: Forbidden: must be 1" % (path, rtype))
    if kind == "TFJob" and sum(1 for t in specs if t in ("Chief", "Master")) > 1:
        errs.append("%s: Forbidden: must not have more than 1 Chief or Master role" % path)
    if kind == "XGBoostJob" and "Master" not in specs:
        errs.append("%s[Master]: Required value: must be present" % path)
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        hook = "validator.%s.training-operator.kubeflow.org" % kind.lower()
        raise ApiError(403, "Forbidden",
                       'admission webhook "%s" denied the request: %s' % (hook, msg))
