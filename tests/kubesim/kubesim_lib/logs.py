"""Container logs of kubesim's simulated kubelets.

Each container instance (namespace, pod, container, restart number) has an
append-only byte log with timestamps per line, so the API can answer follow,
previous, sinceTime, sinceSeconds, tailLines, limitBytes and timestamps like a
kubelet does. The kubelet simulation appends and finishes; the HTTP log
handler reads and waits.
"""

import threading
import time


class ContainerLog:
    def __init__(self):
        self.lines = []           # [(unix time float, bytes line incl. "\n")]
        self.finished = False     # the container instance has terminated

    def size(self):
        return sum(len(l) for _, l in self.lines)


class LogStore:
    def __init__(self):
        self.cond = threading.Condition()
        self.logs = {}            # (ns, pod, container, instance) -> ContainerLog

    def append(self, ns, pod, container, instance, line):
        """Appends one line (str or bytes; a newline is added when missing)."""
        if isinstance(line, str):
            line = line.encode()
        if not line.endswith(b"\n"):
            line += b"\n"
        with self.cond:
            log = self.logs.setdefault((ns, pod, container, instance), ContainerLog())
            log.lines.append((time.time(), line))
            self.cond.notify_all()

    def finish(self, ns, pod, container, instance):
        """The instance ended: follow streams of it drain and close."""
        with self.cond:
            log = self.logs.setdefault((ns, pod, container, instance), ContainerLog())
            log.finished = True
            self.cond.notify_all()

    def get(self, ns, pod, container, instance):
        with self.cond:
            return self.logs.get((ns, pod, container, instance))

    def lines_from(self, ns, pod, container, instance, index):
        """(lines[index:], finished) as a snapshot."""
        with self.cond:
            log = self.logs.get((ns, pod, container, instance))
            if log is None:
                return [], False
            return log.lines[index:], log.finished

    def wait(self, timeout):
        """Blocks until any log changes or timeout seconds pass."""
        with self.cond:
            self.cond.wait(timeout)

    def forget_pod(self, ns, pod):
        """Drops a deleted pod's logs (as the kubelet does)."""
        with self.cond:
            for k in [k for k in self.logs if k[0] == ns and k[1] == pod]:
                del self.logs[k]
            self.cond.notify_all()
