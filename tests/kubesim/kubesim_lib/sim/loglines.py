"""What simulated containers print.

Line i of a container instance is a pure function of (seed, namespace, pod,
container, instance, i): tests can predict a log, and the kubelet can write a
backlog starting anywhere. A training line looks like

    epoch 2 step 1240 loss=0.4312 accuracy=0.8731

with loss falling and accuracy rising along the run, plus noise. Lines are
padded to SIM_LOG_LINE_BYTES (newline included) with " pad=xxxx" when asked.
"""

import math

from . import util

STEPS_PER_LINE = 10
STEPS_PER_EPOCH = 1000


def _noise(h, i):
    # A cheap hash of (h, i) into [-0.5, 0.5): Knuth's multiplicative step.
    x = (h ^ (i * 0x9E3779B97F4A7C15)) & 0xFFFFFFFFFFFFFFFF
    x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    return (x & 0xFFFFFF) / float(0x1000000) - 0.5


def _pad(text, line_bytes):
    if line_bytes and len(text) + 1 < line_bytes:
        fill = line_bytes - 1 - len(text)
        if fill >= 5:
            text = text + " pad=" + "x" * (fill - 5)
        else:
            text = text + " " * fill
    return text


class Profile:
    """The log of one container instance."""

    def __init__(self, kind, seed, ns, pod, container, instance, line_bytes=0,
                 image="", run_seconds=None, rate=2.0):
        self.kind = kind  # train | tensorboard | sshd | init
        self.h = util.stable_int(seed, ns, pod, container, instance)
        self.line_bytes = line_bytes
        self.image = image
        self.run_seconds = run_seconds
        self.rate = rate
        self.pod = pod
        self.container = container

    def startup(self):
        """Lines printed at once when the container starts."""
        if self.kind == "tensorboard":
            ver = "2.15.1"
            return [_pad(x, self.line_bytes) for x in (
                "TensorFlow installation not found - running with reduced feature set.",
                "Serving TensorBoard on localhost; to expose to the network, use a proxy or pass --bind_all",
                "TensorBoard %s at http://0.0.0.0:6006/ (Press CTRL+C to quit)" % ver)]
        if self.kind == "sshd":
            return [_pad("Server listening on 0.0.0.0 port 22.", self.line_bytes),
                    _pad("Server listening on :: port 22.", self.line_bytes)]
        return []

    def periodic(self):
        """Whether line(i) is printed at rate lines per simulated second."""
        return self.kind in ("train", "init") and self.rate > 0

    def line(self, i):
        if self.kind == "init":
            return _pad("%s: step %d done" % (self.container, i + 1), self.line_bytes)
        step = (i + 1) * STEPS_PER_LINE
        epoch = step // STEPS_PER_EPOCH + 1
        total = (self.run_seconds or 600.0) * max(self.rate, 0.001)
        frac = min(1.0, (i + 1) / max(total, 1.0))
        loss = 2.3 * math.exp(-4.0 * frac) + 0.05 + 0.04 * _noise(self.h, i)
        acc = 0.1 + 0.88 * (1.0 - math.exp(-5.0 * frac)) + 0.02 * _noise(self.h ^ 1, i)
        acc = max(0.0, min(0.9999, acc))
        return _pad("epoch %d step %d loss=%.4f accuracy=%.4f" % (epoch, step, max(loss, 0.0001), acc),
                    self.line_bytes)

    def final(self, exit_code, lines):
        if self.kind == "init":
            return _pad("%s: done" % self.container, self.line_bytes)
        if self.kind != "train":
            return None
        if exit_code == 0:
            last = self.line(max(lines - 1, 0)).split(" pad=")[0]
            metrics = " ".join(last.split()[4:]) if lines else "no steps run"
            return _pad("training finished after %d steps: %s" % (lines * STEPS_PER_LINE, metrics),
                        self.line_bytes)
        return _pad("ERROR training failed at step %d: exit code %d" % (lines * STEPS_PER_LINE, exit_code),
                    self.line_bytes)


def expected_log(seed, ns, pod, container, instance, run_seconds, rate, exit_code,
                 line_bytes=0, kind="train", tail=None):
    """The whole log a container instance that ran to its end has written
    (used by tests and by populate for finished pods), or its last `tail` lines."""
    p = Profile(kind, seed, ns, pod, container, instance, line_bytes, run_seconds=run_seconds,
                rate=rate)
    out = p.startup()
    n = int(math.floor(run_seconds * rate + 1e-9)) if p.periodic() else 0
    first = 0 if tail is None else max(0, n - tail)
    if first:
        out = []
    out.extend(p.line(i) for i in range(first, n))
    f = p.final(exit_code, n)
    if f is not None:
        out.append(f)
    return out if tail is None else out[-tail:]


def training_lines(run_seconds, rate):
    """How many periodic lines a run of run_seconds prints before its final line."""
    return int(math.floor(run_seconds * rate + 1e-9))
