"""kubesim's request log (GET /_sim/requests): the last API requests in the
order they arrived, with how each was answered, so that a test can check what
a client asked for — the resourceVersion a re-watch resumed from, the pages
of a list, a one-item probe told apart from a full relist — without reading
the client's insides. /_sim/stats only counts; this says which.

server.py adds an entry per counted API request (when it arrived, the request
line as sent, the User-Agent) and records the status of the answer; api.py adds what a
list or watch sent. /_sim/ requests are not logged. A fault reset clears the
entries; sequence numbers keep growing, so `since=N` stays meaningful.
"""

import collections
import threading
import time

MAX_ENTRIES = 10000


class RequestLog:
    def __init__(self):
        self.lock = threading.Lock()
        self.entries = collections.deque(maxlen=MAX_ENTRIES)
        self.seq = 0

    def add(self, request, agent):
        """A new entry (a dict the request's handler keeps and fills in)."""
        with self.lock:
            self.seq += 1
            e = {"n": self.seq, "t": round(time.time(), 3), "request": request, "agent": agent,
                 "status": None}
            self.entries.append(e)
        return e

    def since(self, n):
        """Copies of the entries numbered above n, oldest first, and the last number."""
        with self.lock:
            return [dict(e) for e in self.entries if e["n"] > n], self.seq

    def reset(self):
        with self.lock:
            self.entries.clear()


def note_status(h, code):
    """The status line of h's answer (the first one only: a stream's ERROR event
    travels in a 200)."""
    e = getattr(h, "log_entry", None)
    if e is not None and e["status"] is None:
        e["status"] = code


def note_rv(h, rv, bookmark=False):
    """A list's resourceVersion, or the resourceVersion of what a watch just sent."""
    e = getattr(h, "log_entry", None)
    if e is not None:
        e["rv"] = str(rv)
        if bookmark:
            e["bookmarks"] = e.get("bookmarks", 0) + 1


def note_end(h, how, error=None):
    """How a stream ended: "clean" (the final chunk), "cut" (dropped without it),
    "client" (the client went away); error: the code of an ERROR event it sent
    (a watch from a compacted resourceVersion: 410 inside a 200)."""
    e = getattr(h, "log_entry", None)
    if e is not None:
        e["end"] = how
        if error is not None:
            e["error"] = error
