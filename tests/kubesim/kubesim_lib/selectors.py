"""Label and field selectors as apimachinery parses and applies them.

Label selectors (labels.Parse): requirements joined by commas, all must hold;
`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k`
(does not exist), `k>N`, `k<N`. `!=` and `notin` match objects without k.

Field selectors (fields.ParseSelector): `k=v`, `k==v`, `k!=v` joined by
commas, with `\\`, `\\,` and `\\=` escapes in values. Which field labels a kind
supports is the Resource's business (resources.py); an unsupported one is
400 `field label not supported: X`.

Both compile to a predicate over the object dict; parse errors raise
ApiError 400 with the apiserver's wording.
"""

import re

from .store import ApiError

_KEY = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _bad(msg):
    return ApiError(400, "BadRequest", msg)


class _Lexer:
    """Tokens of a label selector: identifiers, operators, ( ) and commas."""

    OPS = ("==", "!=", "=", "!", "(", ")", ",", ">", "<")

    def __init__(self, text):
        self.toks = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            for op in self.OPS:
                if text.startswith(op, i):
                    self.toks.append(op)
                    i += len(op)
                    break
            else:
                j = i
                while j < len(text) and not text[j].isspace() and not any(
                        text.startswith(op, j) for op in self.OPS):
                    j += 1
                self.toks.append(text[i:j])
                i = j
        self.pos = 0

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def next(self):
        t = self.peek()
        self.pos += 1
        return t


def _check_key(key, text):
    if not key or len(key.split("/")[-1]) > 63 or not _KEY.match(key):
        raise _bad("unable to parse requirement: <nil>: Invalid value: %s: name part must "
                   "consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                   "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                   "'123-abc', regex used for validation is "
                   "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" % _quote(key))


def _check_value(v):
    if len(v) > 63 or not _VALUE.match(v):
        raise _bad("unable to parse requirement: <nil>: Invalid value: %s: a valid label must be "
                   "an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                   "must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                   "'my_value',  or '12345', regex used for validation is "
                   "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')" % _quote(v))


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_labels(text):
    """A predicate labels-dict -> bool for a label selector text ("" = everything)."""
    if text is None or not text.strip():
        return None
    lx = _Lexer(text)
    reqs = []
    while True:
        t = lx.next()
        if t is None:
            raise _bad("found '', expected: !, identifier, or 'end of string'")
        if t == "!":
            key = lx.next()
            if key is None or key in _Lexer.OPS:
                raise _bad("found '%s', expected: identifier" % (key or ""))
            _check_key(key, text)
            reqs.append(("!", key, None))
        elif t in _Lexer.OPS:
            raise _bad("found '%s', expected: !, identifier, or 'end of string'" % t)
        else:
            key = t
            _check_key(key, text)
            op = lx.peek()
            if op in (None, ","):
                reqs.append(("exists", key, None))
            elif op in ("=", "==", "!="):
                lx.next()
                v = lx.peek()
                if v is None or v in _Lexer.OPS:
                    v = ""
                else:
                    lx.next()
                _check_value(v)
                reqs.append(("!=" if op == "!=" else "=", key, v))
            elif op in (">", "<"):
                lx.next()
                v = lx.next()
                try:
                    n = int(v or "")
                except ValueError:
                    raise _bad("unable to parse requirement: for 'Gt', 'Lt' operators, the "
                               "value must be an integer")
                reqs.append((op, key, n))
            elif op in ("in", "notin"):
                lx.next()
                if lx.next() != "(":
                    raise _bad("found '%s', expected: '('" % (lx.toks[lx.pos - 1] or ""))
                vals = set()
                while True:
                    v = lx.next()
                    if v == ")":
                        break
                    if v == ",":
                        vals.add("")
                        continue
                    if v is None:
                        raise _bad("found '', expected: ',', ')' or identifier")
                    _check_value(v)
                    vals.add(v)
                    sep = lx.next()
                    if sep == ")":
                        break
                    if sep != ",":
                        raise _bad("found '%s', expected: ',' or ')'" % (sep or ""))
                if op == "in" and not vals:
                    raise _bad("unable to parse requirement: for 'in', 'notin' operators, "
                               "values set can't be empty")
                reqs.append((op, key, vals))
            else:
                raise _bad("found '%s', expected: in, notin, =, ==, !=, gt, lt" % op)
        sep = lx.next()
        if sep is None:
            break
        if sep != ",":
            raise _bad("found '%s', expected: ',' or 'end of string'" % sep)

    def match(labels):
        labels = labels or {}
        for op, k, v in reqs:
            have = k in labels
            cur = labels.get(k)
            if op == "exists":
                ok = have
            elif op == "!":
                ok = not have
            elif op == "=":
                ok = have and cur == v
            elif op == "!=":
                ok = not have or cur != v
            elif op == "in":
                ok = have and cur in v
            elif op == "notin":
                ok = not have or cur not in v
            else:
                try:
                    n = int(cur)
                except (TypeError, ValueError):
                    ok = False
                else:
                    ok = n > v if op == ">" else n < v
            if not ok:
                return False
        return True
    return match


def _split_unescaped(text, sep):
    parts, cur, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i:i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(v):
    out, i = [], 0
    while i < len(v):
        if v[i] == "\\" and i + 1 < len(v):
            if v[i + 1] not in "\\,=":
                raise _bad("invalid field selector: invalid escape sequence: \\%s" % v[i + 1])
            out.append(v[i + 1])
            i += 2
        else:
            out.append(v[i])
            i += 1
    return "".join(out)


def parse_fields(text, resource):
    """[(label, op, value)] of a field selector, checked against what the
    resource supports; None for an empty selector."""
    if text is None or not text.strip():
        return None
    reqs = []
    for part in _split_unescaped(text, ","):
        if not part:
            continue
        m = None
        for op in ("!=", "==", "="):
            idx = _find_unescaped(part, op)
            if idx >= 0:
                m = (part[:idx], "!=" if op == "!=" else "=", part[idx + len(op):])
                break
        if m is None:
            raise _bad("invalid selector: '%s'; can't understand '%s'" % (text, part))
        label, op, value = m[0].strip(), m[1], _unescape(m[2])
        if not resource.supports_field(label):
            raise _bad("field label not supported: %s" % label)
        reqs.append((label, op, value))
    return reqs or None


def _find_unescaped(s, op):
    i = 0
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s.startswith(op, i):
            return i
        i += 1
    return -1


def field_match(reqs, resource, obj):
    for label, op, value in reqs:
        have = resource.field_value(obj, label) or ""
        if (have == value) != (op == "="):
            return False
    return True


def single_name(reqs):
    """The name a `metadata.name=X` field selector pins, else None (a fast path)."""
    if not reqs:
        return None
    for label, op, value in reqs:
        if label == "metadata.name" and op == "=":
            return value
    return None


def compile_filter(resource, label_sel, field_sel):
    """(predicate obj -> bool, or None for no filtering; pinned name or None)."""
    lab = parse_labels(label_sel)
    fld = parse_fields(field_sel, resource)
    if lab is None and fld is None:
        return None, None

    def pred(obj):
        if lab is not None and not lab((obj.get("metadata") or {}).get("labels")):
            return False
        if fld is not None and not field_match(fld, resource, obj):
            return False
        return True
    return pred, single_name(fld)
