#!/usr/bin/env python3
"""The rules of docs/architecture.md that an include or a call can break, checked.

Reads every `#include` of the product's .c and .h files (k8s/, render/, fs/, mount/)
and every identifier they use (comments and strings left out), and prints one line
per broken rule, `FILE:LINE: rule: what`, then exits 1; with none, it prints how
much it read and exits 0. Run by tests/integration/test_layers.py (make test);
by hand: `python3 tests/tools/check_layers.py [ROOT]`.

The rules, as docs/architecture.md ("The house") and docs/k8s.md state them:
- rooms, bottom first: k8s/base < k8s/'s root < objects/, auth/ < http/ < api/,
  cache/, logs/ (docs/k8s.md) < render/ (root, and render/jobspec/ beside it) < fs/
  < mount/. A room includes only itself and the rooms MAY_USE gives it: no
  include runs up, and siblings see nothing of each other.
- render/'s root and render/jobspec/ include nothing of each other; render/ reaches
  k8s/ only through its types and pure functions (RENDER_K8S, SPEC_K8S: never
  k8s/http/ nor k8s/cache/cache.h).
- fs/'s sub-rooms code/, logs/ and submit/ see nothing of each other nor of
  tree/; tree/ sees them; fs/'s root sees all.
- k8s/ and render/ know nothing of FUSE; render/ does no I/O, takes no lock and
  reads no clock (its system headers and its calls are checked).
- fs/ knows no JSON paths: no jansson call that reads or builds an object
  (json_t handles passed through and json_decref are allowed).
- a function a product header declares is used outside the file that defines
  it (tests/ included): else it is static, or dead.
- no circle of calls between .c files (a calls b's function, b calls a's, or
  longer): break it, or list the files in ONE_UNIT and say in each of their
  headers why they are "one unit" (a circle is reported at its first file, at
  the line of that file's first call into another of the circle).

ALLOWED lists what breaks a rule today with the issue that moves it; an entry
that no longer breaks its rule is itself reported, so the list only shrinks.
"""

import os
import re
import sys

PRODUCT = ("k8s", "render", "fs", "mount")

# A room is the folder a file sits in; what each may include besides itself.
# "*" = any file of that room, else the named headers only.
K8S_LOW = ["k8s/base", "k8s"]
MAY_USE = {
    "k8s/base": [],
    "k8s": ["k8s/base"],
    "k8s/objects": K8S_LOW,
    "k8s/auth": K8S_LOW,
    "k8s/http": K8S_LOW + ["k8s/auth"],
    "k8s/api": K8S_LOW + ["k8s/auth", "k8s/http", "k8s/objects"],
    "k8s/cache": K8S_LOW + ["k8s/auth", "k8s/http", "k8s/objects"],
    "k8s/logs": K8S_LOW + ["k8s/auth", "k8s/http"],
    "render": ["k8s/base"],
    "render/jobspec": ["k8s/base"],
}
K8S_ALL = ["k8s/base", "k8s", "k8s/objects", "k8s/auth", "k8s/http", "k8s/api",
           "k8s/cache", "k8s/logs"]
BELOW_FS = K8S_ALL + ["render", "render/jobspec"]
MAY_USE.update({
    "fs/base": BELOW_FS,
    "fs/code": BELOW_FS + ["fs/base"],
    "fs/logs": BELOW_FS + ["fs/base"],
    "fs/submit": BELOW_FS + ["fs/base"],
    "fs/tree": BELOW_FS + ["fs/base", "fs/code", "fs/logs", "fs/submit"],
    "fs": BELOW_FS + ["fs/base", "fs/code", "fs/logs", "fs/submit", "fs/tree"],
    "mount": BELOW_FS + ["fs/base", "fs/code", "fs/logs", "fs/submit", "fs/tree", "fs"],
})
# Each room's floor, bottom first: an include of a higher floor runs up, of the same
# floor crosses to a sibling.
RANK = {"k8s/base": 0, "k8s": 1, "k8s/objects": 2, "k8s/auth": 2, "k8s/http": 3,
        "k8s/api": 4, "k8s/cache": 4, "k8s/logs": 4, "render": 5, "render/jobspec": 5,
        "fs/base": 6, "fs/code": 7, "fs/logs": 7, "fs/submit": 7, "fs/tree": 8, "fs": 9,
        "mount": 10}
# The k8s/ headers render/ may include: types and pure functions.
RENDER_K8S = {"k8s/error.h", "k8s/names.h", "k8s/objects/objects.h",
              "k8s/objects/kinds.h", "k8s/objects/gpumetrics.h", "k8s/auth/config.h",
              "k8s/cache/health.h"}
SPEC_K8S = {"k8s/error.h", "k8s/names.h", "k8s/objects/kinds.h"}

# System headers a room may not include, and calls it may not make.
NO_SYSTEM = {
    "k8s": re.compile(r"^fuse"),
    "render": re.compile(r"^(fuse|pthread\.h|curl/|unistd\.h|fcntl\.h|sys/|dirent\.h|"
                         r"threads\.h|stdatomic\.h)"),
}
# (fprintf and fwrite are left out: render/jobspec/code.c writes to an open_memstream.)
RENDER_CALLS = re.compile(
    r"^(pthread_\w+|time|time_now|clock_gettime|gettimeofday|fopen|fdopen|open|openat|"
    r"read|write|pread|pwrite|close|fread|printf|puts|opendir|"
    r"stat|fstat|lstat|unlink|curl_\w+|say|vsay)$")
# jansson calls that name a member or build an object: a JSON path.
JSON_PATH = re.compile(r"^json_(?!t$|decref$|incref$)\w+$")

EXPORT_RULE = "declared in a header, used only in its own file"
# A prototype at a header's top level: the name before its parameter list.
PROTO = re.compile(r"^(?!\s*(?:static|typedef|#|return|struct\s+\w+\s*\{))[A-Za-z_][\w \t*]*?"
                   r"\b([a-z_]\w*)\s*\(([^;{}()]|\([^()]*\))*\)\s*"
                   r"(__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\))?\s*;", re.M)
WORD = re.compile(r"\b[A-Za-z_]\w*\b")

CIRCLE_RULE = "no circle of calls between files"
# A function defined at a .c file's top level: its name before the parameters, on a
# line with no ';' (the body follows).
DEFINE = re.compile(r"^(?!(?:static|typedef|extern|return)\b)[A-Za-z_][\w \t*]*?\b([a-z_]\w*)"
                    r"\s*\([^;]*$", re.M)
# Files that call each other both ways on purpose, each saying why in its header
# (the words "one unit"): what they are together.
ONE_UNIT = {
    frozenset({"k8s/cache/cache.c", "k8s/cache/reflector.c", "k8s/cache/queuepoll.c"}):
        "the cache and the two threads that feed it, over cache_impl.h",
    frozenset({"fs/submit/submit.c", "fs/submit/submit_defer.c"}):
        "submit/'s operations and the thread that makes a copied folder's job",
}

# What breaks a rule today, and the issue that moves it: (file, rule).
ALLOWED = {
    ("render/jobspec/spec.h", EXPORT_RULE): "a unit test asks it directly (test_jobspec_code.c: where the code is mounted)",
}


def room_of(path):
    """The room of a product file (a folder of PRODUCT, one or two deep)."""
    d = os.path.dirname(path)
    return d if d in MAY_USE else None


TOKEN = re.compile(r'/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?', re.S)


def blank(m):
    """A comment or literal as spaces (newlines kept); a literal keeps its quotes."""
    t = m.group(0)
    if t[0] in "\"'":
        return t[0] + " " * (len(t) - 2) + t[-1] if len(t) > 1 else t
    return re.sub(r"[^\n]", " ", t)


def strip_c(text):
    """The text with comments, string and character literals blanked, lines kept."""
    return TOKEN.sub(blank, text)


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
IDENT = re.compile(r"\b(json_\w+)\b")


def resolve(root, src, name):
    """The product file a quoted include names: beside src first, then from ROOT (-I.)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if os.path.exists(os.path.join(root, beside)):
        return beside
    return os.path.normpath(name)


def include_rule(src_room, target):
    """The rule an include of target (a path from ROOT) breaks from src_room, or None."""
    t_room = os.path.dirname(target)
    if t_room == src_room or not t_room.split("/")[0] in PRODUCT:
        return None
    if t_room not in MAY_USE:
        return "include of an unknown room"
    if src_room in ("render", "render/jobspec"):
        if t_room in ("render", "render/jobspec"):
            return "render/ and render/jobspec/ see nothing of each other"
        if t_room.startswith("k8s") and t_room != "k8s/base":
            allowed = RENDER_K8S if src_room == "render" else SPEC_K8S
            if target not in allowed:
                return "render/ uses k8s/ types and pure functions only"
            return None
    if t_room in MAY_USE[src_room]:
        return None
    if RANK[t_room] > RANK[src_room]:
        return "include runs up"
    if RANK[t_room] == RANK[src_room]:
        return "sibling rooms see nothing of each other"
    return "a room below that this one may not use"


def check_file(root, path):
    """Yield (line, rule, what) for each broken rule in one product file."""
    room = room_of(path)
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        raw = f.read()
    if room is None:
        yield 1, "a product file sits in a room", "folder %s is no room of docs/architecture.md" % os.path.dirname(path)
        return
    top = room.split("/")[0]
    for no, line in enumerate(raw.splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        kind, name = m.groups()
        if kind == "<":
            bad = NO_SYSTEM.get(top)
            if bad and bad.match(name):
                rule = "k8s/ knows nothing of FUSE" if top == "k8s" else "render/ does no I/O, takes no lock"
                yield no, rule, "#include <%s>" % name
            continue
        rule = include_rule(room, resolve(root, path, name))
        if rule:
            yield no, rule, '#include "%s"' % name
    code = strip_c(raw)
    for no, line in enumerate(code.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        if top == "render":
            for m in CALL.finditer(line):
                if RENDER_CALLS.match(m.group(1)):
                    yield no, "render/ does no I/O, takes no lock, reads no clock", m.group(1) + "()"
        if top == "fs":
            for m in IDENT.finditer(line):
                if JSON_PATH.match(m.group(1)):
                    yield no, "fs knows no JSON paths", m.group(1)


def unused_exports(root):
    """Yield (header, line, name) for each function a product header declares that no
    .c file uses but the one defining it (the product's and the tests')."""
    users, texts = {}, {}
    for path in source_files(root, PRODUCT + ("tests",)):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            texts[path] = strip_c(f.read())
        if path.endswith(".c"):
            for w in set(WORD.findall(texts[path])):
                users.setdefault(w, set()).add(path)
    for h in (p for p in texts if p.endswith(".h") and p.split("/")[0] in PRODUCT):
        for m in PROTO.finditer(texts[h]):
            name, files = m.group(1), users.get(m.group(1), set())
            define = re.compile(r"^[^\s#].*\b%s\s*\([^;]*$" % name, re.M)
            if not [p for p in files if not define.search(texts[p])]:
                yield h, texts[h].count("\n", 0, m.start(1)) + 1, name


def call_circles(root, paths):
    """Yield (file, line, what) for each circle of calls between product .c files that
    ONE_UNIT does not list with "one unit" said in every file of it, and for each
    ONE_UNIT entry that is no circle any more."""
    raw, code = {}, {}
    for p in (p for p in paths if p.endswith(".c")):
        with open(os.path.join(root, p), encoding="utf-8", errors="replace") as f:
            raw[p] = f.read()
        code[p] = strip_c(raw[p])
    defined = {}
    for p, text in code.items():
        for m in DEFINE.finditer(text):
            defined.setdefault(m.group(1), p)
    calls = {p: {} for p in code}          # file -> {file it calls: first line}
    for p, text in code.items():
        for no, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in CALL.finditer(line):
                q = defined.get(m.group(1))
                if q and q != p:
                    calls[p].setdefault(q, (no, m.group(1)))
    circles = strongly_connected(calls)
    for circle in circles:
        unit = frozenset(circle)
        said_why = all("one unit" in raw[p][:raw[p].find("*/")].lower() for p in circle)
        if unit in ONE_UNIT and said_why:
            continue
        first = circle[0]
        no, name = min(v for q, v in calls[first].items() if q in unit)
        said = "" if unit not in ONE_UNIT else " (in ONE_UNIT: say \"one unit\" in each header)"
        yield first, no, "%s() of %s; circle: %s%s" % (name, next(
            q for q, v in calls[first].items() if v == (no, name)), " ".join(circle), said)
    for unit in ONE_UNIT:
        if frozenset(unit) not in map(frozenset, circles) and all(p in code for p in unit):
            yield sorted(unit)[0], 1, ("listed in ONE_UNIT but no circle any more: take %s "
                                      "out of it" % " ".join(sorted(unit)))


def strongly_connected(edges):
    """The circles of a graph {node: {node: ...}}: its strongly connected components
    of two nodes or more, each sorted (Tarjan's, without recursion)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def source_files(root, tops):
    for top in tops:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, name), root)


def check(root):
    """(problems, files read): problems as 'FILE:LINE: rule: what' lines."""
    problems, used, found = [], set(), []
    paths = list(source_files(root, PRODUCT))
    for path in paths:
        found += [(path, no, rule, what) for no, rule, what in check_file(root, path)]
    found += [(h, no, EXPORT_RULE, name + "()") for h, no, name in unused_exports(root)]
    found += [(p, no, CIRCLE_RULE, what) for p, no, what in call_circles(root, paths)]
    for path, no, rule, what in found:
        if (path, rule) in ALLOWED:
            used.add((path, rule))
        else:
            problems.append("%s:%d: %s: %s" % (path, no, rule, what))
    for (path, rule), why in sorted(ALLOWED.items()):
        if (path, rule) not in used and os.path.exists(os.path.join(root, path)):
            problems.append("%s:1: allowed (%s) but no longer broken: %s; take it out of "
                            "ALLOWED in tests/tools/check_layers.py" % (path, why, rule))
    return problems, len(paths)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems, nfiles = check(root)
    for p in problems:
        print(p)
    if problems:
        print("%d broken rule(s) of docs/architecture.md" % len(problems))
        return 1
    print("%d files: every include and call keeps docs/architecture.md's rules "
          "(%d allowed until their issue: %s)" % (nfiles, len(ALLOWED),
                                                 "; ".join("%s %s" % k for k in sorted(ALLOWED))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
