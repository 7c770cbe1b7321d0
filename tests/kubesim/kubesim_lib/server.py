"""kubesim's HTTP side: listener, connections, authentication, faults and
stats, and the dispatch of each request to discovery, the resource API,
pod logs or a service proxy (prometheus.py: kubesim's own Prometheus).

HTTP/1.1 with keep-alive; responses carry Content-Length, streams (watch,
log follow) are chunked and flushed per event or line. One thread per
connection (daemon threads). The listener is our own accept loop, not
socketserver's, so a `down_seconds` fault can close it (clients then get
"connection refused"), cut every open connection, and listen again on the
same port.

Authentication: a bearer token (admin, viewer, reader) or, over TLS, a client
certificate signed by kubesim's CA (its CN is the user). Over TLS a request
without credentials is 401 (anonymous auth is off); a wrong token is 401
always. Over plain HTTP (no --tls) a request without credentials is served
as admin, as the old insecure port was: kubectl sends no credentials over
http:// at all (clientcmd loads them for TLS transports only).

Authorization: the admin and certificate users may do everything; the viewer
may get/list/watch in namespace default and read discovery, the reader
get/list/watch anything. Anyone may ask what they may do
(SelfSubjectAccessReview, access.py).

Control endpoints under /_sim/ need no credentials and are not counted.
"""

import collections
import json
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from . import access
from .reqlog import RequestLog, note_status
from .store import ApiError

READ_VERBS = ("get", "list", "watch")


class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.fail_next = 0
        self.fail_code = 500
        self.fail_message = None        # the Status's message, or kubesim's own
        self.fail_match = None          # a compiled regex over "METHOD /path?query", or None
        self.compact_on = None          # the same, for the request that meets a compaction
        self.delay_ms = 0
        self.watch_send = None          # {"match": regex, "lines": [...], "then": ..., "times": N}
        self.delay_match = None         # the requests delay_ms holds up; None: every one

    def delay_for(self, request_line):
        """How long request_line waits before it is handled, in ms."""
        with self.lock:
            if self.delay_match is not None and not self.delay_match.search(request_line):
                return 0
            return self.delay_ms

    def take_failure(self, request_line):
        """(code, message or None) of an injected failure for this request, or None."""
        with self.lock:
            if self.fail_next > 0 and (self.fail_match is None
                                       or self.fail_match.search(request_line)):
                self.fail_next -= 1
                return self.fail_code, self.fail_message
        return None

    def take_watch_send(self, request_line):
        """(lines, then) for a watch that watch_send is waiting for, else None."""
        with self.lock:
            ws = self.watch_send
            if ws is None or not ws["match"].search(request_line):
                return None
            if ws["times"] > 0:
                ws["times"] -= 1
                if ws["times"] == 0:
                    self.watch_send = None
            return ws["lines"], ws["then"]

    def take_compaction(self, request_line):
        """True (once) when request_line is the one compact_on waits for."""
        with self.lock:
            if self.compact_on is not None and self.compact_on.search(request_line):
                self.compact_on = None
                return True
        return False


WATCH_SEND_THEN = ("cut", "end", "stream")


def parse_watch_send(spec):
    """The watch_send fault's body checked: (fault, None) or (None, why)."""
    if not isinstance(spec, dict) or not set(spec) <= {"match", "lines", "then", "times"}:
        return None, "{match, lines, then, times}"
    lines = spec.get("lines")
    if not isinstance(lines, list) or not all(isinstance(x, str) and "\n" not in x
                                              for x in lines):
        return None, "lines: a list of strings without newlines"
    then = spec.get("then", "cut")
    times = spec.get("times", 1)
    if then not in WATCH_SEND_THEN or not isinstance(times, int) or times < 0:
        return None, "then: cut, end or stream; times: a count, 0 for every watch"
    try:
        match = re.compile(spec.get("match") or "")
    except re.error as e:
        return None, "match: %s" % e
    return {"match": match, "lines": lines, "then": then, "times": times}, None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.total = 0
            self.requests = collections.Counter()
            self.bytes = 0

    def count(self, key):
        with self.lock:
            self.total += 1
            self.requests[key] += 1

    def sent(self, n):
        with self.lock:
            self.bytes += n


FAILURE_REASONS = {
    400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
    405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 422: "Invalid",
    429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout",
}


class User:
    def __init__(self, name, admin, reads_everywhere=False):
        self.name = name
        self.admin = admin
        self.reads_everywhere = reads_everywhere   # else reads namespace default only


def regex_field(body, field):
    """body[field] compiled, or None when it is absent or empty; ValueError says
    which field is no regex."""
    try:
        return re.compile(body[field]) if body.get(field) else None
    except re.error as e:
        raise ValueError("%s: %s" % (field, e)) from e


def parse_bool(v):
    """strconv.ParseBool, as the apiserver reads query booleans."""
    if v is None:
        return False
    if v in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if v in ("0", "f", "F", "false", "FALSE", "False", ""):
        return False
    raise ApiError(400, "BadRequest", 'strconv.ParseBool: parsing "%s": invalid syntax' % v)


class Request:
    """One API request as the handlers see it."""

    def __init__(self, handler, method, path, query):
        self.h = handler
        self.method = method
        self.path = path
        self.query = query           # name -> last value
        self.headers = handler.headers
        self.user = None
        self._body = None
        self.stat_key = None

    def q(self, name, default=None):
        return self.query.get(name, default)

    def qbool(self, name):
        return parse_bool(self.query.get(name))

    def qint(self, name, default=None):
        v = self.query.get(name)
        if v is None or v == "":
            return default
        try:
            return int(v)
        except ValueError:
            raise ApiError(400, "BadRequest", 'strconv.ParseInt: parsing "%s": invalid syntax' % v)

    def body(self):
        if self._body is None:
            self._body = self.h.read_body()
        return self._body

    def json_body(self):
        raw = self.body()
        if not raw.strip():
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype == "application/vnd.kubernetes.protobuf" or raw[:4] == b"k8s\x00":
            from .protobuf import decode_request
            return decode_request(raw)
        try:
            return json.loads(raw)
        except ValueError as e:
            raise ApiError(400, "BadRequest", "the object provided is unrecognized (must be of "
                           "type Unknown): couldn't get version/kind; json parse error: %s" % e)

    def wants_table(self):
        acc = self.headers.get("Accept", "")
        for part in acc.split(","):
            params = [p.strip() for p in part.split(";")]
            if "as=Table" in params:
                return True
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubesim"
    sys_version = ""

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        self.server.track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def _dispatch(self):
        self.counted = False
        self.log_entry = None
        try:
            self.server.sim.handle(self)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _dispatch

    # ---- request body ----

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = []
            while True:
                line = self.rfile.readline()
                n = int(line.split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                out.append(self.rfile.read(n))
                self.rfile.readline()
            return b"".join(out)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    # ---- responses ----

    def _out(self, data):
        # Counted before it is written: a client that has read a response and
        # then asks /_sim/stats must find it counted (after the write, the
        # count could come later than the client's question).
        if self.counted:
            self.server.sim.stats.sent(len(data))
        self.wfile.write(data)

    def _head(self, code, ctype, length=None, headers=None, chunked=False):
        note_status(self, code)
        lines = ["HTTP/1.1 %d %s" % (code, self.responses.get(code, ("",))[0]),
                 "Content-Type: " + ctype,
                 "Date: " + self.date_time_string(),
                 "Audit-Id: %032x" % id(self), "Cache-Control: no-cache, private"]
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        elif length is not None:
            lines.append("Content-Length: %d" % length)
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        self._out(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def send_bytes(self, code, body, ctype="application/json", headers=None):
        self._head(code, ctype, len(body), headers)
        if self.command != "HEAD":
            self._out(body)
        self.wfile.flush()

    def send_json(self, code, obj, headers=None):
        self.send_bytes(code, json.dumps(obj, separators=(",", ":")).encode(), headers=headers)

    def send_error_status(self, err, headers=None):
        self.send_json(err.code, err.status(), headers)

    def start_stream(self, ctype="application/json", headers=None):
        self._head(200, ctype, headers=headers, chunked=True)
        self.wfile.flush()

    def chunk(self, data):
        if data:
            self._out(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def end_stream(self):
        self._out(b"0\r\n\r\n")
        self.wfile.flush()


class Listener:
    """The accept loop, its connections, and being down for a while."""

    def __init__(self, sim, host, port, ssl_ctx):
        self.sim = sim
        self.host = host
        self.port = port
        self.ssl_ctx = ssl_ctx
        self.lock = threading.Lock()
        self.conns = set()
        self.sock = None
        self.stopping = False
        self.generation = 0

    def start(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((self.host, self.port))
        s.listen(256)
        self.port = s.getsockname()[1]
        with self.lock:
            self.sock = s
            self.generation += 1
        threading.Thread(target=self._accept, args=(s,), daemon=True,
                         name="kubesim-accept").start()
        return self.port

    def _accept(self, s):
        while True:
            try:
                conn, addr = s.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn, addr), daemon=True).start()

    def _serve(self, conn, addr):
        try:
            if self.ssl_ctx is not None:
                conn.settimeout(30)
                conn = self.ssl_ctx.wrap_socket(conn, server_side=True)
                conn.settimeout(None)
            Handler(conn, addr, self)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def track(self, conn, add):
        with self.lock:
            if add:
                self.conns.add(conn)
            else:
                self.conns.discard(conn)

    def stop_listening(self):
        """Closes the listening socket: connection attempts are refused from now on."""
        with self.lock:
            s, self.sock = self.sock, None
        if s is not None:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        """Stops listening and cuts every connection."""
        self.stop_listening()
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def down(self, seconds):
        self.close()
        self.sim.store.drop_watches()
        self.sim.end_streams()

        def back():
            time.sleep(seconds)
            if self.stopping:
                return
            for _ in range(100):
                try:
                    self.start()
                    return
                except OSError:
                    time.sleep(0.1)
            print("kubesim: could not listen again on port %d" % self.port, file=sys.stderr)
        threading.Thread(target=back, daemon=True).start()

    def stop(self):
        self.stopping = True
        self.close()


class Sim:
    """The server: what a request meets before the resource handlers."""

    def __init__(self, store, logs, registry, tokens, cert_users=(), bookmark_seconds=60.0):
        from .api import Api
        from .discovery import Discovery
        from .podlog import PodLogs
        from .prometheus import Prometheus
        self.store = store
        self.logs = logs
        self.registry = registry
        self.tokens = tokens            # token -> User
        self.cert_users = {u.name: u for u in cert_users}
        self.insecure_user = User("system:admin", True)
        self.faults = Faults()
        self.stats = Stats()
        self.reqlog = RequestLog()
        self.bookmark_seconds = bookmark_seconds
        self.streams_epoch = 0          # bumped to end every open log stream
        self.listener = None
        self.api = Api(self)
        self.discovery = Discovery(self)
        self.podlogs = PodLogs(self)
        self.prometheus = Prometheus(store)

    def serve(self, host, port, ssl_ctx=None):
        self.listener = Listener(self, host, port, ssl_ctx)
        return self.listener.start()

    def stop(self):
        if self.listener is not None:
            self.listener.stop()
        self.store.drop_watches()
        self.end_streams()

    def end_streams(self):
        self.streams_epoch += 1
        with self.logs.cond:
            self.logs.cond.notify_all()

    # ---- one request ----

    def handle(self, h):
        url = urllib.parse.urlsplit(h.path)
        path = urllib.parse.unquote(url.path)
        query = {}
        for k, v in urllib.parse.parse_qsl(url.query, keep_blank_values=True):
            query[k] = v
        if path.startswith("/_sim/"):
            return self.control(h, path, query)
        h.counted = True
        h.log_entry = self.reqlog.add(h.command + " " + h.path, h.headers.get("User-Agent", ""))
        req = Request(h, h.command, path, query)
        try:
            delay = self.faults.delay_for(h.command + " " + h.path)
            if delay:
                time.sleep(delay / 1000.0)
            if self.faults.take_compaction(h.command + " " + h.path):
                self.store.compact(advance=True)
            failure = self.faults.take_failure(h.command + " " + h.path)
            if failure is not None:
                code, message = failure
                self.stats.count("fault " + h.command)
                req.body()
                raise ApiError(code, FAILURE_REASONS.get(code, "InternalError"),
                               message or "kubesim: injected failure (HTTP %d)" % code)
            req.user = self.authenticate(h)
            if req.user is None:
                self.stats.count("unauthorized")
                req.body()
                raise ApiError(401, "Unauthorized", "Unauthorized")
            if path.rstrip("/") == access.PATH:
                access.review(self, req)
            elif self.prometheus.serve_proxy(self, req):
                pass
            elif not self.discovery.handle(req):
                self.api.handle(req)
        except ApiError as e:
            if req._body is None:
                req.body()      # drained: the connection stays usable for the next request
            headers = {"Retry-After": "1"} if e.code in (429, 503) else None
            h.send_error_status(e, headers)

    def authenticate(self, h):
        if isinstance(h.connection, ssl.SSLSocket):
            try:
                cert = h.connection.getpeercert()
            except (ValueError, OSError):
                cert = None
            if cert:
                for rdn in cert.get("subject", ()):
                    for k, v in rdn:
                        if k == "commonName" and v in self.cert_users:
                            return self.cert_users[v]
        auth = h.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            return self.tokens.get(auth[7:].strip())
        if auth:
            return None
        if not isinstance(h.connection, ssl.SSLSocket):
            # Plain HTTP is the old apiserver's insecure port: kubectl (clientcmd)
            # sends no credentials over it at all, so none means admin there.
            return self.insecure_user
        return None

    def allows(self, user, verb, namespace):
        """May user do verb in namespace (None: cluster-scoped)? What authorize
        enforces and a SelfSubjectAccessReview answers (access.py)."""
        return user.admin or (verb in READ_VERBS and (user.reads_everywhere or
                                                      namespace == "default"))

    def authorize(self, req, verb, res, namespace, name=None, sub=None):
        """Raises 403 Forbidden (the RBAC authorizer's message) unless allowed."""
        u = req.user
        if self.allows(u, verb, namespace):
            return
        resource = res.plural + ("/" + sub if sub else "")
        if namespace:
            where = 'in the namespace "%s"' % namespace
        else:
            where = "at the cluster scope"
        msg = 'User "%s" cannot %s resource "%s" in API group "%s" %s' % (
            u.name, verb, resource, res.group, where)
        qual = res.plural + ("." + res.group if res.group else "")
        details = {"kind": res.plural}
        if res.group:
            details["group"] = res.group
        if name:
            details = {"name": name, **details}
            raise ApiError(403, "Forbidden", '%s "%s" is forbidden: %s' % (qual, name, msg), details)
        raise ApiError(403, "Forbidden", "%s is forbidden: %s" % (qual, msg), details)

    # ---- /_sim/ ----

    def control(self, h, path, query):
        try:
            if path == "/_sim/requests" and h.command == "GET":
                try:
                    since = int(query.get("since") or 0)
                except ValueError:
                    return h.send_json(400, {"error": "since: not a number"})
                entries, last = self.reqlog.since(since)
                return h.send_json(200, {"requests": entries, "last": last})
            if path == "/_sim/stats" and h.command == "GET":
                with self.stats.lock:
                    body = {"total": self.stats.total, "requests": dict(self.stats.requests),
                            "watches": self.store.open_watches(), "bytes": self.stats.bytes,
                            "resourceVersion": self.store.current_rv(),
                            "lists_built": dict(self.api.lists_built)}
                return h.send_json(200, body)
            if path == "/_sim/gpus" and h.command == "POST":
                from .prometheus import control
                try:
                    body = json.loads(h.read_body() or b"{}")
                except ValueError:
                    return h.send_json(400, {"error": "body is not JSON"})
                return control(self.prometheus, h, body)
            if path == "/_sim/fault" and h.command == "POST":
                raw = h.read_body()
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return h.send_json(400, {"error": "body is not JSON"})
                return self.fault(h, body)
            h.send_json(404, {"error": "unknown control endpoint %s %s" % (h.command, path)})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def fault(self, h, body):
        known = {"fail_next", "code", "match", "message", "drop_watches", "delay_ms",
                 "delay_match", "compact", "compact_on", "down_seconds", "reset", "store",
                 "restore", "rotate_token", "watch_send"}
        unknown = sorted(set(body) - known)
        if unknown:
            return h.send_json(400, {"error": "unknown fault fields: %s" % ", ".join(unknown)})
        if body.get("reset"):
            with self.faults.lock:
                self.faults.reset()
            self.stats.reset()
            self.reqlog.reset()
        try:
            match, delay_match, compact_on = (regex_field(body, f) for f in
                                              ("match", "delay_match", "compact_on"))
        except ValueError as e:
            return h.send_json(400, {"error": str(e)})
        watch_send, err = parse_watch_send(body["watch_send"]) if "watch_send" in body \
            else (None, None)
        if err:
            return h.send_json(400, {"error": "watch_send: " + err})
        if "fail_next" in body:
            with self.faults.lock:
                self.faults.fail_next = int(body["fail_next"])
                self.faults.fail_code = int(body.get("code", 500))
                self.faults.fail_message = body.get("message")
                self.faults.fail_match = match
        if "delay_ms" in body:
            with self.faults.lock:
                self.faults.delay_ms = int(body["delay_ms"])
                self.faults.delay_match = delay_match
        if body.get("compact"):
            self.store.compact()
        if compact_on is not None:
            with self.faults.lock:
                self.faults.compact_on = compact_on
        if watch_send is not None:
            with self.faults.lock:
                self.faults.watch_send = watch_send
        if body.get("store"):
            # a lying server: the object goes in unvalidated, name and all
            put = body["store"]
            if not isinstance(put, dict) or set(put) != {"resource", "object"}:
                return h.send_json(400, {"error": "store: {resource, object}"})
            try:
                self.store.create(put["resource"], put["object"])
            except Exception as e:  # noqa: BLE001 - the control endpoint says what failed
                return h.send_json(400, {"error": "store: %s" % e})
        if body.get("rotate_token"):
            # the user's token is replaced: the old one is refused from now on
            user, new = body["rotate_token"].get("user"), body["rotate_token"].get("token")
            olds = [t for t, u in self.tokens.items() if u.name == user]
            if not olds or not new:
                return h.send_json(400, {"error": "rotate_token: {user, token} of a token user"})
            for t in olds:
                self.tokens[new] = self.tokens.pop(t)
        if "restore" in body:
            forget = body["restore"] if isinstance(body["restore"], list) else []
            self.store.restore(forget)
            self.end_streams()
        if body.get("drop_watches"):
            self.store.drop_watches()
            self.end_streams()
        down = body.get("down_seconds")
        if down:
            # Refuse before answering: a client told "ok" must already meet a closed port.
            self.listener.stop_listening()
        h.send_json(200, {"ok": True, "resourceVersion": self.store.current_rv()})
        if down:
            h.close_connection = True
            self.listener.down(float(down))
