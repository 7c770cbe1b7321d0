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
    """A copy of the product's sources, which each case below breaks once."""
    base = tmp_path_factory.mktemp("layers")
    for top in check_layers.PRODUCT:
        shutil.copytree(os.path.join(ROOT, top), str(base / top),
                        ignore=shutil.ignore_patterns("*.o", "*.d"))
    return base


# (file, line appended to it, the rule the checker must name)
BREAKS = [
    ("k8s/base/strbuf.c", '#include "k8s/error.h"', "include runs up"),
    ("k8s/objects/kinds.c", '#include "k8s/http/client.h"', "include runs up"),
    ("k8s/logs/loglines.c", '#include "k8s/cache/cache.h"', "sibling rooms see nothing"),
    ("k8s/logs/loglines.c", '#include "k8s/objects/objects.h"', "may not use"),
    ("k8s/http/status.c", '#include "render/render.h"', "include runs up"),
    ("k8s/names.c", "#include <fuse_lowlevel.h>", "k8s/ knows nothing of FUSE"),
    ("render/status.c", '#include "render/spec/spec.h"', "render/ and render/spec/"),
    ("render/spec/lists.c", '#include "render/table.h"', "render/ and render/spec/"),
    ("render/status.c", '#include "k8s/http/client.h"', "types and pure functions only"),
    ("render/pods.c", '#include "k8s/cache/cache.h"', "types and pure functions only"),
    ("render/spec/values.c", '#include "k8s/objects/objects.h"', "types and pure functions only"),
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


@pytest.mark.parametrize("path,line,rule", BREAKS, ids=[b[0] + ":" + b[2] for b in BREAKS])
def test_a_broken_rule_is_named_with_its_file_and_line(scratch, path, line, rule):
    target = scratch / path
    before = target.read_text()
    lines = before.count("\n") + 1
    target.write_text(before + line + "\n")
    try:
        r = run(str(scratch))
    finally:
        target.write_text(before)
    assert r.returncode == 1, r.stdout
    hits = [x for x in r.stdout.splitlines() if x.startswith("%s:%d: " % (path, lines))]
    assert len(hits) == 1 and rule in hits[0], r.stdout


def test_comments_and_strings_break_nothing(scratch):
    target = scratch / "fs/tree/listing.c"
    before = target.read_text()
    target.write_text(before + '/* json_object_get(x, "a") */\n'
                      'static const char *s = "json_pack time_now()";\n')
    try:
        r = run(str(scratch))
    finally:
        target.write_text(before)
    assert r.returncode == 0, r.stdout


def test_an_allowance_no_longer_needed_is_reported(scratch, monkeypatch):
    """ALLOWED only shrinks: an entry whose file keeps the rule is reported, so
    that once issue 34 moves the JSON out of fs/submit/ its entries go."""
    monkeypatch.setitem(check_layers.ALLOWED, ("fs/tree/listing.c", "fs knows no JSON paths"),
                        "issue 0")
    problems, _ = check_layers.check(str(scratch))
    assert ("fs/tree/listing.c:1: allowed (issue 0) but no longer broken: fs knows no JSON "
            "paths; take it out of ALLOWED in tests/tools/check_layers.py") in problems
