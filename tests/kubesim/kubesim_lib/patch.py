"""The three patch formats the apiserver accepts.

- JSON merge patch (RFC 7386): objects merge, null deletes, everything else
  (lists included) replaces.
- JSON patch (RFC 6902): add, remove, replace, move, copy, test with JSON
  pointers; a failing op is 422 as the apiserver answers it.
- Strategic merge patch, for built-in kinds: a merge patch where lists of
  objects with a known merge key (containers by name, conditions by type,
  ports by containerPort or port, ...) merge element-wise, plus the
  directives kubectl sends ($patch: delete/replace/merge, $setElementOrder,
  $retainKeys, $deleteFromPrimitiveList). Lists without a known key replace.
  Custom resources reject it with 415, as real CRDs do.

All functions return a new value and leave their inputs alone.
"""

import copy

from .store import ApiError

# Merge keys of the built-in types' lists (patchMergeKey in k8s.io/api).
MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "env": "name", "volumes": "name", "volumeMounts": "mountPath", "volumeDevices": "devicePath",
    "imagePullSecrets": "name", "conditions": "type", "ownerReferences": "uid",
    "containerStatuses": "name", "initContainerStatuses": "name", "tolerations": None,
    "hostAliases": "ip", "topologySpreadConstraints": "topologyKey", "readinessGates": None,
    "addresses": "type", "taints": "key", "resourceClaims": "name", "secrets": "name",
    "podIPs": "ip", "hostIPs": "ip",
}
PORT_KEYS = {"containers": "containerPort", "services": "port"}


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _unescape(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def _fail(msg):
    return ApiError(422, "Invalid", msg)


def _parse_pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise _fail("the server rejected our request due to an error in our request")
    return [_unescape(t) for t in path[1:].split("/")]


def _walk(doc, toks, path):
    cur = doc
    for t in toks:
        if isinstance(cur, dict):
            if t not in cur:
                raise _fail("doc is missing path: \"%s\": missing value" % path)
            cur = cur[t]
        elif isinstance(cur, list):
            try:
                cur = cur[int(t)]
            except (ValueError, IndexError):
                raise _fail("doc is missing path: \"%s\": missing value" % path)
        else:
            raise _fail("doc is missing path: \"%s\": missing value" % path)
    return cur


def _add(doc, toks, value, path, replace=False):
    if not toks:
        return value
    parent = _walk(doc, toks[:-1], path)
    last = toks[-1]
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise _fail("replace operation does not apply: doc is missing key: %s: missing "
                        "value" % path)
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            if replace:
                raise _fail("replace operation does not apply: doc is missing key: %s" % path)
            parent.append(value)
        else:
            try:
                i = int(last)
            except ValueError:
                raise _fail("doc is missing path: \"%s\": missing value" % path)
            if replace:
                if not 0 <= i < len(parent):
                    raise _fail("replace operation does not apply: doc is missing key: %s: "
                                "missing value" % path)
                parent[i] = value
            else:
                if not 0 <= i <= len(parent):
                    raise _fail("add operation does not apply: doc is missing path: \"%s\": "
                                "missing value" % path)
                parent.insert(i, value)
    else:
        raise _fail("doc is missing path: \"%s\": missing value" % path)
    return doc


def _remove(doc, toks, path):
    parent = _walk(doc, toks[:-1], path)
    last = toks[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list):
        try:
            return parent.pop(int(last))
        except (ValueError, IndexError):
            pass
    raise _fail("remove operation does not apply: doc is missing path: \"%s\": missing value"
                % path)


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise ApiError(400, "BadRequest", "json: cannot unmarshal object into Go value of type "
                       "jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict) or "op" not in op:
            raise _fail("the server rejected our request due to an error in our request")
        kind = op["op"]
        path = op.get("path", "")
        toks = _parse_pointer(path)
        if kind == "add":
            doc = _add(doc, toks, copy.deepcopy(op.get("value")), path)
        elif kind == "replace":
            doc = _add(doc, toks, copy.deepcopy(op.get("value")), path, replace=True)
        elif kind == "remove":
            _remove(doc, toks, path)
        elif kind in ("move", "copy"):
            frm = op.get("from", "")
            ftoks = _parse_pointer(frm)
            val = copy.deepcopy(_walk(doc, ftoks, frm))
            if kind == "move":
                _remove(doc, ftoks, frm)
            doc = _add(doc, toks, val, path)
        elif kind == "test":
            if _walk(doc, toks, path) != op.get("value"):
                raise _fail("testing value %s failed: test failed" % path)
        else:
            raise _fail("Unexpected kind: %s" % kind)
    return doc


def _merge_key(field, items, parent_key=None):
    key = MERGE_KEYS.get(field)
    if field == "ports":
        key = "containerPort" if any("containerPort" in (i or {}) for i in items) else "port"
    return key


def strategic_merge(target, patch, field=None):
    """Strategic merge of patch into target (dicts)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    out = dict(target) if isinstance(target, dict) else {}
    retain = patch.get("$retainKeys")
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys"):
            continue
        if k.startswith("$setElementOrder/") or k.startswith("$deleteFromPrimitiveList/"):
            continue
        if v is None:
            out.pop(k, None)
            continue
        cur = out.get(k)
        if isinstance(v, list):
            out[k] = _merge_list(k, cur if isinstance(cur, list) else [], v,
                                 patch.get("$deleteFromPrimitiveList/" + k),
                                 patch.get("$setElementOrder/" + k))
        elif isinstance(v, dict):
            merged = strategic_merge(cur, v, k)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
        else:
            out[k] = v
    for k, v in patch.items():
        if k.startswith("$deleteFromPrimitiveList/"):
            name = k.split("/", 1)[1]
            if isinstance(out.get(name), list):
                out[name] = [x for x in out[name] if x not in v]
    if isinstance(retain, list):
        out = {k: v for k, v in out.items() if k in retain}
    return out


def _merge_list(field, cur, patch, delete_prims=None, order=None):
    if any(isinstance(p, dict) and p.get("$patch") == "replace" for p in patch):
        return [copy.deepcopy(p) for p in patch
                if not (isinstance(p, dict) and p.get("$patch") == "replace")]
    key = _merge_key(field, patch + cur)
    if key is None or not all(isinstance(p, dict) for p in patch):
        if all(not isinstance(p, dict) for p in patch) and field in ("finalizers",):
            out = list(cur)
            for p in patch:
                if p not in out:
                    out.append(p)
            return out
        return copy.deepcopy(patch)
    out = [copy.deepcopy(c) for c in cur]
    for p in patch:
        kv = p.get(key)
        idx = next((i for i, c in enumerate(out) if isinstance(c, dict) and c.get(key) == kv),
                   None)
        if p.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
            continue
        if idx is None:
            out.append({k: copy.deepcopy(v) for k, v in p.items() if k != "$patch"})
        else:
            out[idx] = strategic_merge(out[idx], p, field)
    if order:
        pos = {(o.get(key) if isinstance(o, dict) else o): i for i, o in enumerate(order)}
        out.sort(key=lambda c: pos.get(c.get(key) if isinstance(c, dict) else c, len(pos)))
    return out
