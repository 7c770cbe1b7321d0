"""Job conditions as the Kubeflow operators keep them.

training-operator (pkg/util/status.go) and mpi-operator v2beta1
(mpi_job_controller_status.go) share the rules: a condition whose status and
reason are unchanged is left alone; otherwise the old one of that type is
removed and the new one appended last (so the newest is last); Running and
Restarting replace each other; when Succeeded or Failed is set, Running stays
but turns False. They differ in two details, kept here as flags: the
training-operator never changes conditions once Failed is True, and
mpi-operator also turns an older Failed False when the job succeeds.
"""

from . import util


def find(status, ctype):
    for c in status.get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def is_true(status, ctype):
    c = find(status, ctype)
    return c is not None and c.get("status") == "True"


def is_finished(status):
    return is_true(status, "Succeeded") or is_true(status, "Failed")


def set_condition(status, ctype, cstatus, reason, message, now=None, mpi=False):
    """Returns True when the conditions changed."""
    if not mpi and is_true(status, "Failed"):
        return False
    now = now or util.rfc3339()
    cur = find(status, ctype)
    if cur is not None and cur.get("status") == cstatus and cur.get("reason") == reason:
        return False
    new = {"type": ctype, "status": cstatus, "reason": reason, "message": message,
           "lastUpdateTime": now, "lastTransitionTime": now}
    if cur is not None and cur.get("status") == cstatus:
        new["lastTransitionTime"] = cur.get("lastTransitionTime", now)
    kept = []
    for c in status.get("conditions") or []:
        t = c.get("type")
        if ctype == "Restarting" and t == "Running":
            continue
        if ctype == "Running" and t == "Restarting":
            continue
        if t == ctype:
            continue
        if ctype in ("Failed", "Succeeded") and (t == "Running" or (mpi and t == "Failed")):
            c = dict(c, status="False")
        kept.append(c)
    kept.append(new)
    status["conditions"] = kept
    return True
