"""Decoding of request bodies in application/vnd.kubernetes.protobuf.

kubectl's typed clients (create configmap/secret/namespace/deployment/job,
run, drain) send built-in objects as protobuf: the magic `k8s\\0`, then a
runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding,
contentType} whose raw is the object's message. They accept JSON answers
(Accept: application/vnd.kubernetes.protobuf,application/json), so kubesim
only decodes: to the same dict the JSON form would give.

Go's protobuf marshalling writes non-pointer fields even when empty; JSON
would omit them (omitempty). Empty strings, zeros, false and empty messages
are therefore dropped, except for the pointer fields where a zero means
something (replicas: 0, suspend: false, ...), listed in KEEP_ZERO.
"""

import base64
import datetime
import json
import struct

from .protobuf_schema import SCHEMA
from .store import ApiError

MAGIC = b"k8s\x00"

KEEP_ZERO = {"replicas", "parallelism", "completions", "backoffLimit",
             "terminationGracePeriodSeconds", "activeDeadlineSeconds", "ttlSecondsAfterFinished",
             "revisionHistoryLimit", "progressDeadlineSeconds", "gracePeriodSeconds", "suspend",
             "immutable", "automountServiceAccountToken", "orphanDependents", "runAsUser",
             "runAsGroup", "fsGroup", "privileged", "allowPrivilegeEscalation",
             "readOnlyRootFilesystem", "runAsNonRoot", "enableServiceLinks", "optional",
             "backoffLimitPerIndex", "maxFailedIndexes", "manualSelector", "publishNotReadyAddresses"}

KINDS = {
    ("v1", "DeleteOptions"): "apis.meta.v1.DeleteOptions",
    ("meta.k8s.io/v1", "DeleteOptions"): "apis.meta.v1.DeleteOptions",
    ("apps/v1", "Deployment"): "apps.v1.Deployment",
    ("apps/v1", "ReplicaSet"): "apps.v1.ReplicaSet",
    ("batch/v1", "Job"): "batch.v1.Job",
    ("policy/v1", "Eviction"): "policy.v1.Eviction",
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"):
        "authorization.v1.SelfSubjectAccessReview",
}


def _bad(msg):
    return ApiError(400, "BadRequest", "the object provided is unrecognized: " + msg)


def _varint(buf, i):
    shift = result = 0
    while True:
        if i >= len(buf):
            raise _bad("truncated protobuf varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def _fields(buf):
    """(field number, wire type, value) of a message: ints for varints,
    bytes for length-delimited and fixed fields."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            v = buf[i:i + n]
            i += n
        elif wt == 1:
            v = buf[i:i + 8]
            i += 8
        elif wt == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise _bad("unsupported protobuf wire type %d" % wt)
        yield num, wt, v


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _scalar(t, wt, v):
    if t == "string":
        return bytes(v).decode("utf-8", "replace")
    if t == "bytes":
        return base64.b64encode(bytes(v)).decode()
    if t == "bool":
        return bool(v)
    if t in ("int32", "int64"):
        return _signed(v)
    if t in ("uint32", "uint64"):
        return v
    if t == "double":
        return struct.unpack("<d", v)[0]
    if t == "float":
        return struct.unpack("<f", v)[0]
    raise _bad("unknown scalar type " + t)


def _special(t, buf):
    f = {num: v for num, _, v in _fields(buf)}
    if t == "time":
        secs = _signed(f.get(1, 0))
        return datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
    if t == "quantity":
        return bytes(f.get(1, b"")).decode()
    if t == "intstr":
        if f.get(1, 0) == 1:
            return bytes(f.get(3, b"")).decode()
        return _signed(f.get(2, 0))
    if t == "raw":
        raw = bytes(f.get(1, b""))
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise _bad("RawExtension is not JSON")
    if t == "duration":
        ns = _signed(f.get(1, 0))
        return "%gs" % (ns / 1e9)
    raise _bad("unknown special type " + t)


def _empty(v):
    return v in ("", 0, False, None) or v == {} or v == []


def _value(t, wt, v):
    if t in SCHEMA:
        return decode_message(bytes(v), t)
    if t in ("time", "quantity", "intstr", "raw", "duration"):
        return _special(t, bytes(v))
    return _scalar(t, wt, v)


def decode_message(buf, typ):
    schema = SCHEMA[typ]
    out = {}
    for num, wt, v in _fields(buf):
        f = schema.get(num)
        if f is None:
            continue
        name, t = f[0], f[1]
        repeated = len(f) > 2 and f[2]
        if isinstance(t, tuple):
            entry = {n: (w, x) for n, w, x in _fields(bytes(v))}
            key = bytes(entry.get(1, (2, b""))[1]).decode()
            vw, vv = entry.get(2, (2, b""))
            out.setdefault(name, {})[key] = _value(t[1], vw, vv) if 2 in entry else (
                "" if t[1] == "string" else _value(t[1], 2, b""))
            continue
        if repeated:
            if wt == 2 and t in ("int32", "int64", "bool"):
                out.setdefault(name, []).extend(_signed(x) if t != "bool" else bool(x)
                                                for x in _packed(bytes(v)))
            else:
                out.setdefault(name, []).append(_value(t, wt, v))
            continue
        val = _value(t, wt, v)
        if _empty(val) and name not in KEEP_ZERO:
            out.pop(name, None)
            continue
        out[name] = val
    return out


def _packed(buf):
    i = 0
    while i < len(buf):
        v, i = _varint(buf, i)
        yield v


def decode_request(raw):
    """The dict of a protobuf request body (with apiVersion and kind)."""
    if raw[:4] != MAGIC:
        raise _bad("not a Kubernetes protobuf message")
    type_meta = obj = None
    for num, _, v in _fields(raw[4:]):
        if num == 1:
            type_meta = {n: bytes(x).decode() for n, _, x in _fields(bytes(v))}
        elif num == 2:
            obj = bytes(v)
    if type_meta is None or obj is None:
        raise _bad("protobuf runtime.Unknown without typeMeta or raw")
    api_version, kind = type_meta.get(1, ""), type_meta.get(2, "")
    typ = KINDS.get((api_version, kind))
    if typ is None and api_version == "v1":
        typ = "core.v1." + kind
    if typ not in SCHEMA:
        raise ApiError(415, "UnsupportedMediaType", "kubesim cannot decode %s %s from protobuf; "
                       "send it as application/json" % (api_version, kind))
    body = decode_message(obj, typ)
    return {"apiVersion": api_version, "kind": kind, **body}
