"""The resource API: routing of /api/v1/... and /apis/G/V/... paths, and the
read verbs (get, list, watch) with the apiserver's semantics.

- list: resourceVersion unset (latest), "0" (any; limit ignored, as the
  watch cache does), "N" (not older than N; 504 when N is in the future
  after 3 s), resourceVersionMatch=Exact (the state at N, rebuilt from the
  store's history); limit/continue with an opaque token that pins the list's
  resourceVersion (410 Expired once compacted); label and field selectors;
  Table output for kubectl.
- watch: synthetic ADDED for all objects when resourceVersion is unset or
  "0", else only newer events (ERROR 410 Expired when compacted); selector
  filtering as the watch cache does it (an object leaving the selection is
  DELETED, entering it ADDED); BOOKMARKs with allowWatchBookmarks every
  bookmark_seconds and before the timeout; timeoutSeconds, otherwise 30 to
  60 minutes; sendInitialEvents (watch-list) with the initial-events-end
  bookmark.

Writes are in writes.py, deletion and garbage collection in gc.py.
"""

import base64
import bisect
import collections
import itertools
import json
import random
import re
import select
import ssl
import threading
import time

from . import selectors, tables
from .reqlog import note_end, note_rv
from .sim import kueue
from .store import ApiError
from .writes import Writes

NOT_FOUND_PATH = "the server could not find the requested resource"
# Lists read in pages whose snapshot is kept for their next pages (Api._paged).
PAGED_LISTS_KEPT = 16


def not_found_path():
    return ApiError(404, "NotFound", NOT_FOUND_PATH, {})


def not_found(res, name):
    details = {"name": name, "kind": res.plural}
    if res.group:
        details = {"name": name, "group": res.group, "kind": res.plural}
    return ApiError(404, "NotFound", '%s "%s" not found' % (res.qualified(), name), details)


def full_bytes(res, entry):
    """The object's JSON with kind and apiVersion (watch events and GETs
    always carry them)."""
    o = entry.obj
    if "kind" in o and "apiVersion" in o:
        return entry.json_bytes()
    return json.dumps({"kind": res.kind, "apiVersion": res.api_version, **o},
                      separators=(",", ":")).encode()


def full_obj(res, obj):
    if "kind" in obj and "apiVersion" in obj:
        return obj
    return {"kind": res.kind, "apiVersion": res.api_version, **obj}


def encode_continue(rv, key):
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": list(key)}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


B64URL = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def go_quote_char(c):
    """encoding/json's quoteChar: how its errors show one byte."""
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    if 0x20 <= ord(c) < 0x7f:
        return "'%s'" % c
    esc = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v"}
    if c in esc:
        return "'%s'" % esc[c]
    return "'\\x%02x'" % ord(c) if ord(c) < 0x20 else "'\\u%04x'" % ord(c)


def decode_continue(tok):
    """(list resourceVersion, start key) of a continue token; a bad one is 400
    with the text apiserver's DecodeContinue gives (prefixed as its storage
    layer prefixes it)."""
    def bad(why):
        return ApiError(400, "BadRequest", "invalid continue token: continue key is not valid" +
                        why)
    for i, ch in enumerate(tok):
        if ch not in B64URL:
            raise bad(": illegal base64 data at input byte %d" % i)
    if len(tok) % 4 == 1:
        raise bad(": illegal base64 data at input byte %d" % (len(tok) - 1))
    raw = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
    text = raw.decode("latin-1")
    first = text.lstrip(" \t\r\n")[:1]
    if not first:
        raise bad(": unexpected end of JSON input")
    if first not in '{["-0123456789tfn':
        raise bad(": invalid character %s looking for beginning of value" % go_quote_char(first))
    try:
        d = json.loads(raw)
    except ValueError:
        raise bad(": invalid JSON")
    if not isinstance(d, dict):
        raise bad(": json: cannot unmarshal %s into Go value of type storage.continueToken"
                  % {list: "array", str: "string", bool: "bool"}.get(type(d), "number"))
    if d.get("v") != "meta.k8s.io/v1":
        raise ApiError(400, "BadRequest", "invalid continue token: continue key is not valid: "
                       "server does not recognize this encoded version %s" % (d.get("v") or ""))
    if not d.get("rv"):
        raise ApiError(400, "BadRequest", "invalid continue token: continue key is not valid: "
                       "incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not d.get("start"):
        raise ApiError(400, "BadRequest", "invalid continue token: continue key is not valid: "
                       "encoded start key empty (version meta.k8s.io/v1)")
    try:
        return int(d["rv"]), tuple(d["start"])
    except (ValueError, TypeError):
        raise bad(": %s" % d["start"])


def client_gone(conn):
    """True when the peer closed its end (a streaming handler's check while idle)."""
    try:
        r, _, _ = select.select([conn], [], [], 0)
    except (OSError, ValueError):
        return True
    if not r:
        return False
    try:
        if isinstance(conn, ssl.SSLSocket):
            conn.settimeout(0.0)
            try:
                data = conn.recv(1)
            finally:
                conn.settimeout(None)
        else:
            import socket
            data = conn.recv(1, socket.MSG_PEEK)
    except (ssl.SSLWantReadError, BlockingIOError):
        return False
    except (OSError, ValueError):
        return True
    return data == b"" or isinstance(conn, ssl.SSLSocket)


class Route:
    __slots__ = ("res", "namespace", "name", "sub", "legacy_watch")

    def __init__(self, res, namespace, name, sub, legacy_watch):
        self.res = res
        self.namespace = namespace
        self.name = name
        self.sub = sub
        self.legacy_watch = legacy_watch


class Api:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.registry = sim.registry
        self.writes = Writes(sim)
        # (resource, namespace, list rv) -> (entries, their keys), newest last: a
        # list's snapshot made at its first page and kept for its next pages, as
        # kube-apiserver serves them from its watch cache (each page then costs
        # what its items cost; sorting and rebuilding the list for every page
        # made 50,000 pods in pages of 500 take 10 times one list's time)
        self._pages = collections.OrderedDict()
        self._pages_lock = threading.Lock()
        self.lists_built = collections.Counter()  # resource -> lists assembled (/_sim/stats)

    # ---- routing ----

    def route(self, path):
        parts = [p for p in path.split("/") if p]
        if len(parts) >= 3 and parts[0] == "api":
            group, version, rest = "", parts[1], parts[2:]
        elif len(parts) >= 4 and parts[0] == "apis":
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise not_found_path()
        legacy = False
        if rest and rest[0] == "watch":
            legacy, rest = True, rest[1:]
        ns = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            r = self.registry.lookup(group, version, rest[2])
            if r is not None and r.namespaced:
                ns, rest = rest[1], rest[2:]
            elif group:
                raise not_found_path()
        res = self.registry.lookup(group, version, rest[0]) if rest else None
        if res is None or len(rest) > 3:
            raise not_found_path()
        if res.namespaced and ns is None and len(rest) > 1:
            raise not_found_path()
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if sub is not None and sub not in res.subresources:
            raise not_found_path()
        return Route(res, ns, name, sub, legacy)

    def handle(self, req):
        rt = self.route(req.path)
        m = req.method
        watch = rt.legacy_watch or (m == "GET" and req.qbool("watch"))
        if m in ("GET", "HEAD"):
            verb = "watch" if watch else ("get" if rt.name else "list")
        elif m == "POST":
            verb = "create"
        elif m == "PUT":
            verb = "update"
        elif m == "PATCH":
            verb = "patch"
        elif m == "DELETE":
            verb = "delete" if rt.name else "deletecollection"
        else:
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on "
                           "the requested resource")
        res = rt.res
        req.stat_key = "%s %s" % (verb, res.key + ("/" + rt.sub if rt.sub else ""))
        self.sim.stats.count(req.stat_key)
        if verb in ("create",) and rt.name and not rt.sub:
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on "
                           "the requested resource")
        if verb in ("update", "patch") and not rt.name:
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on "
                           "the requested resource")
        pin = None
        if verb in ("list", "watch") and not rt.name:
            fs = selectors.parse_fields(req.q("fieldSelector"), res)
            pin = selectors.single_name(fs)
        self.sim.authorize(req, verb, res, rt.namespace, rt.name or pin, rt.sub)
        if res.group == kueue.VISIBILITY_GROUP:
            return self.pending_workloads(req, rt, verb)
        if verb == "get":
            if rt.sub == "log":
                return self.sim.podlogs.serve(req, rt)
            return self.get(req, rt)
        if verb == "list":
            return self.list(req, rt)
        if verb == "watch":
            return self.watch(req, rt)
        return self.writes.handle(req, rt, verb)

    # ---- Kueue's visibility API ----

    def pending_workloads(self, req, rt, verb):
        """GET .../localqueues/LQ/pendingworkloads (or clusterqueues/CQ/...): the line,
        as Kueue's visibility server answers through the aggregation layer."""
        if verb != "get" or rt.sub != "pendingworkloads":
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on "
                           "the requested resource")
        if rt.res.namespaced:
            doc = kueue.pending_summary(self.store, rt.res.version, ns=rt.namespace, lq=rt.name)
        else:
            doc = kueue.pending_summary(self.store, rt.res.version, cq_name=rt.name)
        if doc is None:
            # errors.NewNotFound(visibility.Resource("localqueue"), name)
            kind = "localqueue" if rt.res.namespaced else "clusterqueue"
            raise ApiError(404, "NotFound", '%s.%s "%s" not found' % (
                kind, kueue.VISIBILITY_GROUP, rt.name),
                {"name": rt.name, "group": kueue.VISIBILITY_GROUP, "kind": kind})
        offset, limit = int(req.q("offset") or 0), int(req.q("limit") or 1000)
        doc["items"] = doc["items"][offset:offset + limit]
        req.h.send_json(200, doc)

    # ---- get ----

    def get(self, req, rt):
        res = rt.res
        e = self.store.get(res.key, rt.namespace, rt.name)
        if e is None:
            raise not_found(res, rt.name)
        if rt.sub == "scale":
            return req.h.send_json(200, self.writes.scale_of(res, e.obj))
        if req.wants_table() and rt.sub is None:
            t = tables.table(res, [full_obj(res, e.obj)], e.rv,
                             include=req.q("includeObject", "Metadata"))
            return req.h.send_json(200, t)
        req.h.send_bytes(200, full_bytes(res, e))

    # ---- list ----

    def collect(self, req, rt):
        """(entries after selectors, list resourceVersion, continue token or
        None, remainingItemCount or None)."""
        res = rt.res
        ns = rt.namespace
        store = self.store
        rv_s = req.q("resourceVersion")
        match = req.q("resourceVersionMatch")
        limit = req.qint("limit")
        cont = req.q("continue")
        pred, pin = selectors.compile_filter(res, req.q("labelSelector"), req.q("fieldSelector"))
        if match and not rv_s:
            raise ApiError(400, "BadRequest", "resourceVersionMatch is forbidden unless "
                           "resourceVersion is provided")
        start = keys = None
        if cont:
            if rv_s:
                raise ApiError(400, "BadRequest", "specifying resource version is not allowed "
                               "when using continue")
            list_rv, start = decode_continue(cont)
            try:
                if list_rv < store.compacted:   # as kube-apiserver: gone with etcd's history
                    raise ApiError(410, "Expired", "compacted")
                entries, keys = self._paged((res.key, ns, list_rv), lambda: self._built(
                    res.key, store.list_at(res.key, ns, list_rv)))
            except ApiError:
                raise ApiError(410, "Expired", "The provided continue parameter is too old to "
                               "display a consistent list result. You can start a new list "
                               "without the continue parameter.")
        elif match == "Exact":
            n = self._rv_int(rv_s)
            if n == 0:
                raise ApiError(400, "BadRequest", 'resourceVersionMatch "Exact" is forbidden '
                               'for resourceVersion "0"')
            entries = self._built(res.key, store.list_at(res.key, ns, n))
            list_rv = n
        else:
            if match not in (None, "", "NotOlderThan"):
                raise ApiError(400, "BadRequest", 'resourceVersionMatch: Unsupported value: '
                               '"%s": supported values: "Exact", "NotOlderThan", ""' % match)
            if rv_s == "0":
                limit = None
            elif rv_s:
                self._wait_rv(self._rv_int(rv_s))
            if pin is not None:
                with store.lock:
                    e = store.get(res.key, ns if ns is not None else "", pin) if ns is not None \
                        else None
                    if ns is None:
                        entries = [x for x in store.list(res.key, None)[0]
                                   if x.obj["metadata"].get("name") == pin]
                    else:
                        entries = [e] if e is not None else []
                    list_rv = store.rv
            else:
                entries, list_rv = store.list(res.key, ns)
                self._built(res.key, entries)
        first = bisect.bisect_right(keys, tuple(start)) if start is not None else 0
        if not limit or limit <= 0:
            page = entries[first:]
            return ([e for e in page if pred(e.obj)] if pred else page), list_rv, None, None
        if start is None and pin is None and len(entries) > limit:
            self._paged((res.key, ns, list_rv), lambda: entries)  # for the next pages
        return self._page(entries, first, limit, pred, list_rv)

    @staticmethod
    def _page(entries, first, limit, pred, list_rv):
        """(page, list rv, continue token or None, remainingItemCount or None) of at
        most limit entries from entries[first:] that pred (None: all) takes; a
        token only when one more would be taken after them."""
        if pred is None:
            page = entries[first:first + limit]
            rest = len(entries) - first - len(page)
        else:
            page, i = [], first
            while i < len(entries) and len(page) < limit:
                if pred(entries[i].obj):
                    page.append(entries[i])
                i += 1
            rest = 1 if any(pred(e.obj) for e in itertools.islice(entries, i, None)) else 0
        if rest <= 0 or not page:
            return page, list_rv, None, None
        return (page, list_rv, encode_continue(list_rv, _key(page[-1])),
                rest if pred is None else None)

    def _built(self, resource, entries):
        with self._pages_lock:
            self.lists_built[resource] += 1
        return entries

    def _paged(self, key, make):
        """(entries, their keys) of the list key (resource, namespace, rv): made
        once by make() and kept while its pages are read."""
        with self._pages_lock:
            hit = self._pages.get(key)
            if hit is not None:
                self._pages.move_to_end(key)
                return hit
        entries = make()
        hit = (entries, [_key(e) for e in entries])
        with self._pages_lock:
            self._pages[key] = hit
            while len(self._pages) > PAGED_LISTS_KEPT:
                self._pages.popitem(last=False)
        return hit

    def _rv_int(self, s, watch=False):
        """A resourceVersion as kube-apiserver's storage reads it (strconv.ParseUint);
        one it cannot read is 400 for a list and, from the watch path, 500 without
        a reason (as kube-apiserver 1.32 to 1.37 answer)."""
        why = None
        if not re.fullmatch(r"[0-9]+", s):
            why = "invalid syntax"
        elif int(s) >= 1 << 64:
            why = "value out of range"
        if why is None:
            return int(s)
        field = 'resourceVersion: Invalid value: "%s": strconv.ParseUint: parsing "%s": %s' % (
            s, s, why)
        if watch:
            raise ApiError(500, None, field)
        raise ApiError(400, "BadRequest", "invalid resource version: " + field)

    def _wait_rv(self, n):
        deadline = time.monotonic() + 3
        while self.store.current_rv() < n:
            if time.monotonic() > deadline:
                raise ApiError(504, "Timeout", "Too large resource version: %d, current: %d"
                               % (n, self.store.current_rv()),
                               {"causes": [{"reason": "ResourceVersionTooLarge",
                                            "message": "Too large resource version"}],
                                "retryAfterSeconds": 1})
            time.sleep(0.05)

    def list(self, req, rt):
        res = rt.res
        entries, rv, token, remaining = self.collect(req, rt)
        note_rv(req.h, rv)
        if req.wants_table():
            t = tables.table(res, [full_obj(res, e.obj) for e in entries], rv, token,
                             include=req.q("includeObject", "Metadata"), remaining=remaining)
            return req.h.send_json(200, t)
        meta = '"resourceVersion":"%d"' % rv
        if token:
            meta += ',"continue":"%s"' % token
        if remaining is not None:
            meta += ',"remainingItemCount":%d' % remaining
        head = ('{"kind":"%s","apiVersion":"%s","metadata":{%s},"items":['
                % (res.list_kind, res.api_version, meta)).encode()
        parts = [head]
        if res.crd:
            for e in entries:
                parts.append(e.json_bytes())
                parts.append(b",")
        else:
            for e in entries:
                parts.extend(e.item_parts())
                parts.append(b",")
        if entries:
            parts.pop()
        parts.append(b"]}")
        req.h.send_bytes(200, b"".join(parts))

    # ---- watch ----

    def watch(self, req, rt):
        res = rt.res
        h = req.h
        store = self.store
        ns = rt.namespace
        pred, _ = selectors.compile_filter(res, req.q("labelSelector"), req.q("fieldSelector"))
        if rt.name:   # /watch/.../NAME (legacy): the object's events only
            name = rt.name
            base = pred
            pred = lambda o: o["metadata"].get("name") == name and (base is None or base(o))
        rv_s = req.q("resourceVersion")
        since = None if rv_s in (None, "", "0") else self._rv_int(rv_s, watch=True)
        timeout = req.qint("timeoutSeconds")
        bookmarks = req.qbool("allowWatchBookmarks")
        initial_end = req.qbool("sendInitialEvents")
        if timeout is None or timeout <= 0:
            timeout = 1800 * (1 + random.random())
        table = req.wants_table()
        include = req.q("includeObject", "Metadata")
        try:
            with store.lock:
                w = store.watch(res.key, ns, since if not initial_end else None)
                initial = store.list(res.key, ns)[0] if since is None or initial_end else []
                start_rv = store.rv
        except ApiError as e:
            if e.code == 504:     # a version the server never had: no stream at all
                h.send_error_status(e)
                note_end(h, "clean", error=e.code)
                return
            h.start_stream()
            h.chunk(json.dumps({"type": "ERROR", "object": e.status()},
                               separators=(",", ":")).encode() + b"\n")
            h.end_stream()
            note_end(h, "clean", error=e.code)
            return
        first = [True]

        def encode(type_, res_obj_bytes=None, obj=None):
            if table:
                o = obj if obj is not None else json.loads(res_obj_bytes)
                t = tables.table(res, [full_obj(res, o)], None, include=include,
                                 with_columns=first[0])
                first[0] = False
                t["metadata"] = {"resourceVersion": o["metadata"].get("resourceVersion", "")}
                body = json.dumps(t, separators=(",", ":")).encode()
            else:
                body = res_obj_bytes if res_obj_bytes is not None else json.dumps(
                    full_obj(res, obj), separators=(",", ":")).encode()
            return b'{"type":"' + type_.encode() + b'","object":' + body + b"}\n"

        def bookmark(rv, end=False):
            note_rv(h, rv, bookmark=True)
            meta = {"resourceVersion": str(rv)}
            if end:
                meta["annotations"] = {"k8s.io/initial-events-end": "true"}
            o = {"kind": res.kind, "apiVersion": res.api_version, "metadata": meta}
            return (b'{"type":"BOOKMARK","object":' +
                    json.dumps(o, separators=(",", ":")).encode() + b"}\n")

        try:
            h.start_stream()
            for e in initial:
                if pred is None or pred(e.obj):
                    h.chunk(encode("ADDED", None, e.obj) if table else
                            encode("ADDED", full_bytes(res, e)))
                    note_rv(h, e.rv)
            if initial_end and bookmarks:
                h.chunk(bookmark(start_rv, True))
            if self._send_fault_lines(h):
                return
            deadline = time.monotonic() + timeout
            interval = self.sim.bookmark_seconds
            next_bm = time.monotonic() + interval
            while True:
                now = time.monotonic()
                if now >= deadline:
                    if bookmarks:
                        with store.lock:
                            quiet = not w.events
                            rv = store.rv
                        if quiet:
                            h.chunk(bookmark(rv))
                    h.end_stream()
                    note_end(h, "clean")
                    return
                wait = deadline - now
                if bookmarks:
                    wait = min(wait, max(next_bm - now, 0))
                ev = w.get(min(wait, 1.0))
                if ev is None:
                    h.close_connection = True   # dropped: no clean end, as a cut connection
                    note_end(h, "cut")
                    return
                if ev is False:
                    if client_gone(h.connection):
                        h.close_connection = True
                        note_end(h, "client")
                        return
                    if bookmarks and time.monotonic() >= next_bm:
                        with store.lock:
                            quiet = not w.events
                            rv = store.rv
                        if quiet:
                            h.chunk(bookmark(rv))
                        next_bm = time.monotonic() + interval
                    continue
                out = self._convert(res, ev, pred)
                if out is None:
                    continue
                type_, ebytes, eobj = out
                if table:
                    h.chunk(encode(type_, None, eobj if eobj is not None else ev.entry.obj))
                else:
                    h.chunk(encode(type_, ebytes, eobj))
                note_rv(h, ev.rv)
        finally:
            store.unwatch(w)

    def _send_fault_lines(self, h):
        """The watch_send fault: a broken or hostile server's lines, sent as they
        are ("$RV": the current resourceVersion). True when the stream ended
        after them."""
        send = self.sim.faults.take_watch_send(h.command + " " + h.path)
        if send is None:
            return False
        lines, then = send
        rv = str(self.store.current_rv())
        for line in lines:
            h.chunk(line.replace("$RV", rv).encode() + b"\n")
        if then == "cut":
            h.close_connection = True   # no final chunk: a broken connection
            note_end(h, "cut")
            return True
        if then == "end":
            h.end_stream()
            note_end(h, "clean")
            return True
        return False

    def _convert(self, res, ev, pred):
        """(type, bytes or None, obj or None) to send for a store event, or None."""
        if pred is None:
            return ev.type, full_bytes(res, ev.entry), None
        cur = ev.type != "DELETED" and pred(ev.entry.obj)
        old = ev.prev is not None and pred(ev.prev.obj)
        if ev.type == "DELETED":
            old = pred(ev.prev.obj if ev.prev is not None else ev.entry.obj)
            return ("DELETED", full_bytes(res, ev.entry), None) if old else None
        if cur and old:
            return "MODIFIED", full_bytes(res, ev.entry), None
        if cur:
            return "ADDED", full_bytes(res, ev.entry), None
        if old:
            o = dict(ev.prev.obj)
            o["metadata"] = dict(o["metadata"], resourceVersion=str(ev.rv))
            return "DELETED", None, full_obj(res, o)
        return None


def _key(e):
    m = e.obj["metadata"]
    return (m.get("namespace", ""), m["name"])
