"""Drivers of build/tools/k8scache and build/tools/logfollow for the cache and
log-stream tests (test_k8s_cache.py, test_k8s_logstream.py)."""
import json
import os
import queue
import signal
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.environ.get("ARENAFS_TOOLS", os.path.join(ROOT, "build", "tools"))
K8SCACHE = os.path.join(TOOLS, "k8scache")
LOGFOLLOW = os.path.join(TOOLS, "logfollow")
KUBESIM = os.environ.get("ARENAFS_KUBESIM", os.path.join(ROOT, "tests", "kubesim", "kubesim"))


def wait_for(what, fn, timeout=60.0, interval=0.1):
    """Polls fn() until it returns something true; fails with what and the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s; last: %r" % (timeout, what, last))


class CacheTool:
    """A running `k8scache ... changes=1 serve`: commands on stdin, JSON lines out."""

    def __init__(self, kubeconfig, context=None, extra=()):
        args = [K8SCACHE, "kubeconfig=" + kubeconfig, "changes=1"]
        if context:
            args.append("context=" + context)
        args += list(extra) + ["serve"]
        env = dict(os.environ, K8SCACHE_STOP_MS="1")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        self.changes = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = self._expect("ready", timeout=120)

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            if "change" in msg:
                with self.lock:
                    self.changes.append(msg["change"])
            else:
                self.lines.put(msg)
        self.lines.put(None)

    def _expect(self, key, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("k8scache gave no %s within %.0f s" % (key, timeout))
            try:
                msg = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise AssertionError("k8scache exited (%s): %s"
                                     % (self.proc.wait(), self.proc.stderr.read()))
            if key in msg:
                return msg[key]

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._expect(command)

    def dump(self):
        return self.ask("dump")

    def health(self):
        return self.ask("health")

    def changes_matching(self, **want):
        with self.lock:
            return [c for c in self.changes if all(c.get(k) == v for k, v in want.items())]

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        """Quits; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        return rc, self.proc.stderr.read()


def run_once(kubeconfig, *args, timeout=120):
    """`k8scache ... once`: (exit status, [messages], stderr)."""
    r = subprocess.run([K8SCACHE, "kubeconfig=" + kubeconfig] + list(args) + ["once"],
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, [json.loads(l) for l in r.stdout.splitlines() if l], r.stderr


def logfollow(kubeconfig, pod, container, *args, timeout=300):
    """Starts logfollow; returns the Popen (stdout bytes: the log)."""
    return subprocess.Popen([LOGFOLLOW, "kubeconfig=" + kubeconfig] + list(args) + [pod, container],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish_logfollow(proc, timeout=300):
    """(exit status, log bytes, {stat: value} from its last stderr line, stderr)."""
    out, err = proc.communicate(timeout=timeout)
    err = err.decode(errors="replace")
    stats = {}
    last = [l for l in err.splitlines() if l.startswith("bytes=")]
    if last:
        head, _, status = last[-1].partition(" status=")
        stats = dict(kv.split("=", 1) for kv in head.split())
        stats["status"] = status
    return proc.returncode, out, stats, err
