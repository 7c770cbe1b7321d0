"""kubesim's state across a restart, as kube-apiserver keeps etcd's: the objects
with their resourceVersions, the resourceVersion counter, the container logs
and the users' tokens, written to DIR/state.json when kubesim stops and read
when it starts in the same --dir. The watch history is not kept: a watch from
before the restart gets 410 and lists again (docs/kubesim.md)."""

import json
import os

from .logs import ContainerLog
from .store import Entry


def save(path, store, logs, tokens):
    with store.lock:
        objects = {res: [e.obj for _, e in sorted(table.items())]
                   for res, table in store.objects.items()}
        rv = store.rv
    with logs.cond:
        saved_logs = [{"key": list(key), "finished": log.finished,
                       "lines": [[t, line.decode("latin-1")] for t, line in log.lines]}
                      for key, log in logs.logs.items()]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"rv": rv, "objects": objects, "logs": saved_logs, "tokens": tokens}, f)
    os.replace(tmp, path)


def load(path, store, logs):
    """Fills store and logs from path; returns the tokens."""
    with open(path) as f:
        state = json.load(f)
    with store.lock:
        for res, objs in state["objects"].items():
            table = store.objects.setdefault(res, {})
            for obj in objs:
                meta = obj["metadata"]
                table[(meta.get("namespace", ""), meta["name"])] = Entry(
                    obj, int(meta["resourceVersion"]))
        store.rv = state["rv"]
    with logs.cond:
        for item in state["logs"]:
            log = ContainerLog()
            log.finished = item["finished"]
            log.lines = [(t, line.encode("latin-1")) for t, line in item["lines"]]
            logs.logs[tuple(item["key"])] = log
    return state["tokens"]
