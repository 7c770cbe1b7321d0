"""GET pods/NAME/log: the apiserver's checks and the kubelet's answer.

In order, as upstream: the options are validated (422 PodLogOptions
invalid), the pod looked up (404), the container chosen (400 when several
and none given, or unknown), an unscheduled pod answers 204 with no body,
then the kubelet's validateContainerLogStatus picks the container instance
(previous → lastState.terminated; running; terminated; lastState; waiting →
400 `container "c" in pod "p" is waiting to start: REASON`) and streams it.

Instances: the simulated kubelet keeps one log per (pod, container,
restart number); a containerID names its instance (sim.util.container_id),
so the instance is found by matching the status's containerID.

follow streams flush each line, end when the instance terminates (after
draining) or when the client goes, and are cut (no clean end, as a dropped
connection) by the drop_watches and down_seconds faults. A follow's status
line and headers go out with its first byte, or with its end: the kubelet
writes its answer through a flushwriter and never calls WriteHeader first
(kubelet server.go getContainerLogs), and kube-apiserver waits for the
kubelet's headers before it sends its own, so a running container that has
printed nothing gets no answer at all, as from a server that does not answer.
"""

import datetime
import time

from . import api as api_mod
from .admission import go_quote
from .openapi import accept_clauses
from .sim.util import container_id, parse_rfc3339
from .store import ApiError


def rfc3339nano(t):
    """Go's time.RFC3339Nano of unix time t (trailing zeros dropped)."""
    ns = int(round(t * 1e9))
    sec, frac = divmod(ns, 10 ** 9)
    base = datetime.datetime.fromtimestamp(sec, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S")
    if frac:
        base += "." + ("%09d" % frac).rstrip("0")
    return base + "Z"


def _invalid(name, field, value, msg):
    return ApiError(422, "Invalid", 'PodLogOptions "%s" is invalid: %s: Invalid value: %s: %s'
                    % (name, field, value, msg),
                    {"name": name, "kind": "PodLogOptions",
                     "causes": [{"reason": "FieldValueInvalid",
                                 "message": "Invalid value: %s: %s" % (value, msg),
                                 "field": field}]})


class PodLogs:
    def __init__(self, sim):
        self.sim = sim

    def options(self, req, name):
        o = {"container": req.q("container") or "", "follow": req.qbool("follow"),
             "previous": req.qbool("previous"), "timestamps": req.qbool("timestamps"),
             "tail": req.qint("tailLines"), "limit": req.qint("limitBytes"),
             "since_s": req.qint("sinceSeconds"), "since_t": None}
        st = req.q("sinceTime")
        if st:
            t = parse_rfc3339(st)
            if t is None:
                raise ApiError(400, "BadRequest", 'parsing time "%s" as "2006-01-02T15:04:05Z07:00":'
                               ' cannot parse "%s" as "2006"' % (st, st))
            o["since_t"] = t
        if o["tail"] is not None and o["tail"] < 0:
            raise _invalid(name, "tailLines", o["tail"], "must be greater than or equal to 0")
        if o["limit"] is not None and o["limit"] < 1:
            raise _invalid(name, "limitBytes", o["limit"], "must be greater than 0")
        if o["since_s"] is not None and o["since_t"] is not None:
            raise ApiError(422, "Invalid", 'PodLogOptions "%s" is invalid: : Forbidden: at most '
                           'one of `sinceTime` or `sinceSeconds` may be specified' % name,
                           {"name": name, "kind": "PodLogOptions",
                            "causes": [{"reason": "FieldValueForbidden",
                                        "message": "Forbidden: at most one of `sinceTime` or "
                                                   "`sinceSeconds` may be specified",
                                        "field": ""}]})
        if o["since_s"] is not None and o["since_s"] < 1:
            raise _invalid(name, "sinceSeconds", o["since_s"], "must be greater than 0")
        return o

    def pick_container(self, pod, container):
        spec = pod.get("spec") or {}
        name = pod["metadata"]["name"]
        mains = [c.get("name") for c in spec.get("containers") or []]
        every = ([c.get("name") for c in spec.get("initContainers") or []] + mains +
                 [c.get("name") for c in spec.get("ephemeralContainers") or []])
        if not container:
            if len(mains) == 1:
                return mains[0]
            if not mains:
                raise ApiError(400, "BadRequest", "a container name must be specified for pod %s"
                               % name)
            raise ApiError(400, "BadRequest", "a container name must be specified for pod %s, "
                           "choose one of: [%s]" % (name, " ".join(every)))
        if container not in every:
            raise ApiError(400, "BadRequest", "container %s is not valid for pod %s"
                           % (container, name))
        return container

    def instance(self, pod, container, previous):
        """The restart number whose log to serve (the kubelet's choice)."""
        st = pod.get("status") or {}
        name = pod["metadata"]["name"]
        cs = None
        for lst in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
            for s in st.get(lst) or []:
                if s.get("name") == container:
                    cs = s
                    break
            if cs is not None:
                break
        cq, pq = go_quote(container), go_quote(name)
        if cs is None:
            raise ApiError(400, "BadRequest", "container %s in pod %s is not available" % (cq, pq))
        state = cs.get("state") or {}
        last = (cs.get("lastState") or {}).get("terminated")
        running, term, wait = state.get("running"), state.get("terminated"), state.get("waiting")
        if previous:
            if not last or not last.get("containerID"):
                raise ApiError(400, "BadRequest", "previous terminated container %s in pod %s "
                               "not found" % (cq, pq))
            cid = last["containerID"]
        elif running is not None:
            cid = cs.get("containerID")
        elif term is not None:
            cid = term.get("containerID") or (last or {}).get("containerID")
            if not cid:
                raise ApiError(400, "BadRequest", "container %s in pod %s is terminated"
                               % (cq, pq))
        elif last is not None:
            cid = last.get("containerID")
            if not cid:
                raise ApiError(400, "BadRequest", "container %s in pod %s is terminated"
                               % (cq, pq))
        elif wait is not None:
            reason = wait.get("reason") or ""
            if reason == "ErrImagePull":
                reason = "image can't be pulled"
            elif reason == "ImagePullBackOff":
                reason = "trying and failing to pull image"
            raise ApiError(400, "BadRequest", "container %s in pod %s is waiting to start: %s"
                           % (cq, pq, reason))
        else:
            raise ApiError(400, "BadRequest", "container %s in pod %s is waiting to start - no "
                           "logs yet" % (cq, pq))
        restarts = int(cs.get("restartCount") or 0)
        uid = pod["metadata"].get("uid")
        for i in range(restarts + 1, -1, -1):
            if container_id(uid, container, i) == cid:
                return i
        return max(restarts - 1, 0) if previous or (running is None and term is None) \
            else restarts

    def serve(self, req, rt):
        name = rt.name
        self.negotiate(req.headers.get("Accept"))
        opts = self.options(req, name)
        e = self.sim.store.get("pods", rt.namespace, name)
        if e is None:
            raise api_mod.not_found(rt.res, name)
        pod = e.obj
        container = self.pick_container(pod, opts["container"])
        if not (pod.get("spec") or {}).get("nodeName"):
            return req.h.send_bytes(204, b"", "text/plain")
        inst = self.instance(pod, container, opts["previous"])
        self.stream(req, rt.namespace, name, container, inst, opts)

    @staticmethod
    def negotiate(accept):
        """kube-apiserver negotiates pods/log like any other answer: one of its
        serializers' media types or */* (not text/plain, not application/*),
        else 406 before it even looks for the pod. The body is the log either way."""
        ok = {("application", "json"), ("application", "yaml"),
              ("application", "vnd.kubernetes.protobuf"), ("*", "*")}
        if accept and not any(c in ok for c in accept_clauses(accept)):
            raise ApiError(406, "NotAcceptable", "only the following media types are accepted: "
                           "application/json, application/yaml, "
                           "application/vnd.kubernetes.protobuf")

    def _format(self, lines, opts):
        since = opts["since_t"]
        if opts["since_s"] is not None:
            since = time.time() - opts["since_s"]
        if since is not None:
            lines = [x for x in lines if x[0] >= since]
        if opts["tail"] is not None:
            lines = lines[len(lines) - opts["tail"]:] if opts["tail"] else []
        return lines

    def _bytes(self, t, line, opts):
        if opts["timestamps"]:
            return rfc3339nano(t).encode() + b" " + line
        return line

    def stream(self, req, ns, pod, container, inst, opts):
        logs = self.sim.logs
        h = req.h
        lines, finished = logs.lines_from(ns, pod, container, inst, 0)
        seen = len(lines)
        chosen = self._format(lines, opts)
        budget = opts["limit"]
        if not opts["follow"]:
            body = b"".join(self._bytes(t, l, opts) for t, l in chosen)
            if budget is not None:
                body = body[:budget]
            return h.send_bytes(200, body, "text/plain")
        epoch = self.sim.streams_epoch
        started = False

        def begin():
            nonlocal started
            if not started:
                h.start_stream("text/plain")
                started = True

        def end():
            begin()
            return h.end_stream()

        def send(batch):
            nonlocal budget
            for t, l in batch:
                data = self._bytes(t, l, opts)
                if budget is not None:
                    data = data[:budget]
                    budget -= len(data)
                if data:
                    begin()
                h.chunk(data)
                if budget is not None and budget <= 0:
                    return False
            return True

        if not send(chosen):
            return end()
        while True:
            if finished:
                return end()
            with logs.cond:
                log = logs.logs.get((ns, pod, container, inst))
                if log is None or (len(log.lines) == seen and not log.finished):
                    logs.cond.wait(1.0)
            if self.sim.streams_epoch != epoch:
                h.close_connection = True
                return
            new, finished = logs.lines_from(ns, pod, container, inst, seen)
            if not new and not finished:
                if logs.get(ns, pod, container, inst) is None and \
                        self.sim.store.get("pods", ns, pod) is None:
                    return end()
                if api_mod.client_gone(h.connection):
                    h.close_connection = True
                    return
                continue
            seen += len(new)
            if not send(new):
                return end()
