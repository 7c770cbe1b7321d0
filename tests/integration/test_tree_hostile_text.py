"""Text from elsewhere shown as the tree promises (issue 33, items 7 and 8):
a failed container's log holding NUL, escape sequences, bidirectional controls
and bytes that are not UTF-8 is quoted by `why` whole and sanitized; a policy
webhook's 422 message holding newlines, colours, an OSC title, BEL and
bidirectional controls makes `submit/NAME/error` and
`check/NAME/error` one line without control characters, and the daemon's log
line one line too (docs/tree.md, docs/reliability.md). kubesim alone: it writes
a log's bytes as they are (SIM_LAST_WORDS_HEX) and answers with the message a
test gives (its fail fault)."""

import errno
import re

from helpers import wait_until, write_as_cp
import jobspecs

FFFD = "\ufffd"
# one safe line: no C0 control, DEL or C1 control, no line or paragraph separator,
# no bidirectional control (the file is read as UTF-8)
UNSAFE = re.compile("[\x00-\x1f\x7f\x80-\x9f\u2028\u2029"
                    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# what a broken or hostile program prints last: NUL inside a line, bytes that are
# not UTF-8, Latin-1, an SGR colour, an OSC title ended by BEL; a line that an
# RLO ... PDF pair shows as "access denied" (Trojan Source), isolates around "ok"
LAST_WORDS = (b"before\0NUL\0after\n"
              b"\xff\xfe caf\xe9 \x1b[31mred\x1b[0m \x1b]0;pwned\x07end\n"
              + "access \u202edeined\u202c \u2066ok\u2069!\n".encode())
QUOTED = ["    before NUL after",
          "    %s%s caf%s  [31mred [0m  ]0;pwned end" % (FFFD, FFFD, FFFD),
          "    access  deined   ok !"]

# a policy webhook's message as Kyverno words it, and a hostile one's bytes
WEBHOOK = ('admission webhook "validate.kyverno.svc-fail" denied the request:\n\n'
           "resource TFJob/default/NAME was blocked due to the following policies\n\n"
           "require-team-label:\n  check-team: \x1b[31mlabel 'team' is required\x1b[0m"
           "\x1b]0;owned\x07\x07\u2028done\u2067 \u202eok\u202c.")
WEBHOOK_LINE = ('admission webhook "validate.kyverno.svc-fail" denied the request:  '
                "resource TFJob/default/NAME was blocked due to the following policies  "
                "require-team-label:   check-team:  [31mlabel 'team' is required [0m"
                " ]0;owned   done   ok .")

SPEC = ("type: tfjob\n"
        "image: tensorflow/tensorflow:2.15.0-gpu\n"
        "command: python train.py\n"
        "gpus: 1\n")


def test_why_quotes_a_failed_log_with_nul_and_bad_bytes_whole_and_safe(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "8")
    m = arenafs(c)
    manifest = jobspecs.tfjob("garbled", start=1, run=2, exit_code=3, lines=1)
    env = manifest["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"]
    env.append({"name": "SIM_LAST_WORDS_HEX", "value": LAST_WORDS.hex()})
    jobspecs.create(c, manifest)

    def why():
        try:
            with open(m.path("jobs", "garbled", "why"), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        return data if b"which ends:\n" in data else None
    data = wait_until(why, timeout=90, message="jobs/garbled/why to quote the log")
    text = data.decode()                # UTF-8 whole: strict decoding fails on a raw byte
    lines = text.rstrip("\n").split("\n")
    assert lines[-len(QUOTED):] == QUOTED, lines
    assert not any(UNSAFE.search(line) for line in lines), lines
    # the log itself is the container's, byte for byte
    with open(m.path("jobs", "garbled", "instances", "garbled-worker-0", "logs"), "rb") as f:
        assert f.read().endswith(LAST_WORDS)


def refusal_lines(m):
    with open(m.log_path, "rb") as f:
        raw = f.read()
    return raw, [l for l in raw.split(b"\n") if b" refused: " in l]


def test_a_webhooks_multiline_422_is_one_safe_line_in_error_and_the_log(kubesim, arenafs):
    c = kubesim("--nodes", "1", "--gpus", "8")
    m = arenafs(c)
    for area, name in (("submit", "blocked"), ("check", "dry")):
        message = WEBHOOK.replace("NAME", name)
        c.fault(fail_next=1, code=422, message=message,
                match=r"^POST /apis/kubeflow.org/v1/namespaces/default/tfjobs")
        assert write_as_cp(m.path(area, name + ".yaml"), SPEC) == errno.EINVAL
        with open(m.path(area, name, "error"), "rb") as f:
            error = f.read().decode()
        assert error.count("\n") == 1 and error.endswith("\n"), error
        assert not UNSAFE.search(error[:-1]), error
        assert WEBHOOK_LINE.replace("NAME", name) in error, error
    assert c.kubectl("get", "tfjobs", "-o", "name").stdout == ""
    # the daemon's log: one line per refusal, no ESC, no BEL
    raw, lines = wait_until(lambda: (lambda r: r if len(r[1]) == 2 else None)(refusal_lines(m)),
                            message="two refusals in the daemon's log")
    assert b"\x1b" not in raw and b"\x07" not in raw, raw
    for line in lines:
        assert not UNSAFE.search(line.decode()), line
        assert b"[31mlabel 'team' is required [0m ]0;owned" in line, line
