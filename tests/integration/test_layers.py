"""docs/architecture.md's rules that an include or a call can break, on the
product's sources (tests/tools/check_layers.py); no cluster. The checker is
shown to fail, naming the file and line, on a scratch tree copied from the
product with one bad include or call added per rule."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "tests", "tools", "check_layers.py")
sys.path.insert(0, os.path.dirname(TOOL))
import check_layers  # noqa: E402


def run(root):
    return subprocess.run([sys.executable, TOOL, root], capture_output=True, text=True,
                          timeout=120)


def test_the_product_keeps_the_rules():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every include and call keeps" in r.stdout


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A copy of the sources (the product's, and the tests' C, whose calls count as
    uses), which each case below breaks."""
    base = tmp_path_factory.mktemp("layers")

    def not_c(d, names):
        return [n for n in names if not os.path.isdir(os.path.join(d, n))
                and not n.endswith((".c", ".h"))]

    for top in check_layers.PRODUCT + ("tests",):
        shutil.copytree(os.path.join(ROOT, top), str(base / top), ignore=not_c)
    return base


# (file, line appended to it, the rule the checker must name)
BREAKS = [
    ("k8s/base/strbuf.c", '#include "k8s/error.h"', "include runs up"),
    ("k8s/objects/kinds.c", '#include "k8s/http/client.h"', "include runs up"),
    ("k8s/logs/loglines.c", '#include "k8s/cache/cache.h"', "sibling rooms see nothing"),
    ("k8s/logs/loglines.c", '#include "k8s/objects/objects.h"', "may not use"),
    ("k8s/http/status.c", '#include "render/render.h"', "include runs up"),
    ("k8s/names.c", "#include <fuse_lowlevel.h>", "k8s/ knows nothing of FUSE"),
    ("render/status.c", '#include "render/jobspec/spec.h"', "render/ and render/jobspec/"),
    ("render/jobspec/lists.c", '#include "render/table.h"', "render/ and render/jobspec/"),
    ("render/status.c", '#include "k8s/http/client.h"', "types and pure functions only"),
    ("render/pods.c", '#include "k8s/cache/cache.h"', "types and pure functions only"),
    ("render/jobspec/values.c", '#include "k8s/objects/objects.h"', "types and pure functions only"),
    ("render/status.c", '#include "fs/fs.h"', "include runs up"),
    ("render/nodes.c", "static void f(void) { time_now(); }", "reads no clock"),
    ("render/table.c", "#include <pthread.h>", "render/ does no I/O"),
    ("fs/code/codeindex.c", '#include "fs/logs/logfile.h"', "sibling rooms see nothing"),
    ("fs/logs/logkeep.c", '#include "fs/submit/notes.h"', "sibling rooms see nothing"),
    ("fs/submit/notes.c", '#include "fs/tree/model.h"', "include runs up"),
    ("fs/base/inode.c", '#include "fs/tree/content.h"', "include runs up"),
    ("fs/tree/view.c", '#include "fs/fs.h"', "include runs up"),
    ("fs/fs.c", '#include "mount/options.h"', "include runs up"),
    ("fs/tree/listing.c", 'static int f(json_t *j) { return json_object_get(j, "spec") != 0; }',
     "fs knows no JSON paths"),
]


def run_edited(scratch, edit):
    """The checker's run on the scratch copy with edit(path, text) -> new text
    applied to the files it names (edit.files), which are put back after."""
    before = {p: (scratch / p).read_text() for p in edit.files}
    try:
        for p, text in before.items():
            (scratch / p).write_text(edit(p, text))
        return run(str(scratch))
    finally:
        for p, text in before.items():
            (scratch / p).write_text(text)


def appending(lines):
    """An edit appending lines ({path: [line, ...]}) to their files."""
    def edit(path, text):
        return text + "".join(x + "\n" for x in lines[path])
    edit.files = list(lines)
    return edit


@pytest.fixture(scope="module")
def broken(scratch):
    """The checker's lines on the scratch copy with every line of BREAKS appended,
    and where each landed: {(file, line): rule}."""
    where, lines = {}, {}
    for path, line, rule in BREAKS:
        lines.setdefault(path, [])
        n = (scratch / path).read_text().count("\n") + 1 + len(lines[path])
        where[(path, n)] = rule
        lines[path].append(line)
    r = run_edited(scratch, appending(lines))
    assert r.returncode == 1, r.stdout
    return r.stdout.splitlines(), where


@pytest.mark.parametrize("path,line,rule", BREAKS, ids=[b[0] + ":" + b[2] for b in BREAKS])
def test_a_broken_rule_is_named_with_its_file_and_line(broken, path, line, rule):
    out, where = broken
    at = [k for k, v in where.items() if k[0] == path and v == rule]
    for path_, no in at:
        hits = [x for x in out if x.startswith("%s:%d: " % (path_, no))]
        assert len(hits) == 1 and rule in hits[0], "\n".join(out)


def test_nothing_but_the_broken_rules_is_named(broken):
    out, where = broken
    assert len(out) == len(where) + 1, "\n".join(out)
    assert out[-1] == "%d broken rule(s) of docs/architecture.md" % len(where)


def test_an_export_used_only_in_its_own_file_is_named(scratch):
    header = (scratch / "k8s/names.h").read_text()

    def edit(path, text):
        if path.endswith(".h"):
            return text.replace("#endif", "int names_probe(int x);\n#endif")
        return text + ("int names_probe(int x)\n{\n\treturn x;\n}\n"
                       "static int twice(void) { return names_probe(2); }\n")
    edit.files = ["k8s/names.h", "k8s/names.c"]
    r = run_edited(scratch, edit)
    assert r.returncode == 1
    line = header[:header.rindex("#endif")].count("\n") + 1
    assert ("k8s/names.h:%d: declared in a header, used only in its own file: names_probe()"
            % line) in r.stdout.splitlines(), r.stdout


def test_comments_and_strings_break_nothing(scratch):
    r = run_edited(scratch, appending({"fs/tree/listing.c": [
        '/* json_object_get(x, "a") */', 'static const char *s = "json_pack time_now()";']}))
    assert r.returncode == 0, r.stdout


def test_an_allowance_no_longer_needed_is_reported(scratch, monkeypatch):
    """ALLOWED only shrinks: an entry whose file keeps the rule is reported, so
    that once issue 34 moves the JSON out of fs/submit/ its entries go."""
    monkeypatch.setitem(check_layers.ALLOWED, ("fs/tree/listing.c", "fs knows no JSON paths"),
                        "issue 0")
    problems, _ = check_layers.check(str(scratch))
    assert ("fs/tree/listing.c:1: allowed (issue 0) but no longer broken: fs knows no JSON "
            "paths; take it out of ALLOWED in tests/tools/check_layers.py") in problems


def test_a_circle_of_calls_is_named_at_its_first_file(scratch):
    """k8s/auth/creds.c calls k8s/base/base64.c; a call back closes a circle, named
    at its first file by name, at that file's first call into the other."""
    creds = (scratch / "k8s/auth/creds.c").read_text()
    r = run_edited(scratch, appending({"k8s/base/base64.c": [
        "static void back(void) { creds_free(0); }"]}))
    assert r.returncode == 1
    hits = [x for x in r.stdout.splitlines() if "no circle of calls" in x]
    assert len(hits) == 1, r.stdout
    assert hits[0].startswith("k8s/auth/creds.c:"), hits[0]
    circle = hits[0].split("circle: ")[1].split()
    assert circle[0] == "k8s/auth/creds.c" and "k8s/base/base64.c" in circle, hits[0]
    no = int(hits[0].split(":")[1])
    assert "k8s_base64_encode" in strip_line(creds, no) and "k8s_base64_encode()" in hits[0]


def strip_line(text, no):
    return text.splitlines()[no - 1]


def test_a_circle_is_one_unit_only_where_each_header_says_so(scratch):
    """k8s/cache/'s three files call each other on purpose (ONE_UNIT), which each
    header says; without the words in one of them the circle is named."""
    assert run(str(scratch)).returncode == 0
    edit = (lambda p, text: text.replace("One unit", "Together", 1))
    edit.files = ["k8s/cache/queuepoll.c"]
    r = run_edited(scratch, edit)
    assert r.returncode == 1
    assert any(x.startswith("k8s/cache/cache.c:") and "no circle of calls" in x and
               'say "one unit" in each header' in x for x in r.stdout.splitlines()), r.stdout


def test_a_unit_no_longer_a_circle_is_reported(scratch, monkeypatch):
    """ONE_UNIT only shrinks: files listed that no longer call each other both ways
    are named, so that the list says only what is true."""
    monkeypatch.setitem(check_layers.ONE_UNIT,
                        frozenset({"render/status.c", "render/nodes.c"}), "none")
    problems, _ = check_layers.check(str(scratch))
    assert any(p.startswith("render/nodes.c:1: no circle of calls between files: listed in "
                            "ONE_UNIT but no circle any more") for p in problems), problems
