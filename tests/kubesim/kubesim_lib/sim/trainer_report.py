"""The training script's reports, for a TrainJob whose trainer env has
SIM_REPORT_SECONDS=N: while the TrainJob's Job is ready, every N seconds,
status.trainerStatus gets what a script calling the Kubeflow SDK's
update_trainjob_status would send through Trainer's status server (there is
no status server here): progressPercentage and estimatedRemainingSeconds from
the time since the TrainJob was made against its SIM_RUN_SECONDS (when set), a
falling loss and a rising eval_accuracy, lastUpdatedTime now. Each report
replaces the last whole, as the status server's server-side apply does.
Called by trainjob.py's reconcile (the one owner of TrainJob status here)."""

import math
import time

from . import util


def interval(spec):
    """N of SIM_REPORT_SECONDS in the trainer's env, or 0: the job reports nothing."""
    return util.env_float((spec or {}).get("trainer") or {}, "SIM_REPORT_SECONDS", 0.0)


def wait(status, every, speed, now=None):
    """Simulated seconds until the next report is due: 0 when it is (none yet,
    or the last is every simulated seconds old)."""
    now = time.time() if now is None else now
    last = util.parse_rfc3339((status.get("trainerStatus") or {}).get("lastUpdatedTime"))
    return 0.0 if last is None else max(0.0, every - (now - last) * speed)


def report(tj, speed, now=None):
    """The trainerStatus a script would send now (times in simulated seconds,
    as SIM_RUN_SECONDS)."""
    now = time.time() if now is None else now
    trainer = (tj.get("spec") or {}).get("trainer") or {}
    made = util.parse_rfc3339(util.meta(tj).get("creationTimestamp")) or now
    elapsed = max(0.0, now - made) * speed
    run = util.env_float(trainer, "SIM_RUN_SECONDS", 0.0)
    scale = run or 600.0
    ts = {"metrics": [
        {"name": "loss", "value": "%.4f" % (0.05 + 2.3 * math.exp(-4 * elapsed / scale))},
        {"name": "eval_accuracy", "value": "%.4f" % (0.98 - 0.88 * math.exp(-3 * elapsed / scale))}],
        "lastUpdatedTime": util.rfc3339(now)}
    if run:
        ts["progressPercentage"] = min(99, int(100 * elapsed / run))
        ts["estimatedRemainingSeconds"] = max(0, int(run - elapsed))
    return ts
