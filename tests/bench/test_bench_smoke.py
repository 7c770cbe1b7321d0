"""The benchmark harness, run at a tiny size so it cannot rot unnoticed.

Checks what the benchmark's numbers rest on, not speed: every row ran on both
sides and read the same cluster, and reading the tree (except opening a log,
which starts a log request) made no API request at all — listing and reading
are served from the watch-fed cache, never one API call per `cat` — and a
submission costs a dry run and a create, a deletion one request. The table
against the limit (a tmpfs copy of the tree, curl) has every row, run on both
sides, and the tree's rows ran on the FUSE ceiling too (tests/bench/ceiling.c,
$ARENAFS_CEILING), which printed what tmpfs printed (bench.py checks that). Every
JSON and YAML form is timed beside its table and read back whole. Reading every
job's GPU figures with a Prometheus costs one query per refresh.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_bench_runs_and_reads_come_from_the_cache(tmp_path):
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, os.path.join(HERE, "bench.py"), "--jobs", "12",
                        "--log-read-jobs", "0",
                        "--nodes", "3", "--gpus", "4", "--repeat", "1", "--log-mb", "1",
                        "--json", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "bench.py failed:\n%s\n%s" % (r.stdout, r.stderr)
    result = json.loads(out.read_text())
    whats = [row["what"] for row in result["rows"]]
    assert len(whats) >= 6, whats
    for row in result["rows"]:
        assert row["arenafs_s"] > 0 and row["kubectl_s"] > 0, row
        assert row["kubectl_requests"] >= 1, row
        if row["what"].startswith("submit"):
            assert row["arenafs_requests"] == 2, row      # the dry run, then the create
        elif row["what"].startswith("delete"):
            assert row["arenafs_requests"] == 1, row
        else:
            assert row["arenafs_bytes"] > 0 and row["kubectl_bytes"] > 0, row
            if "log" not in row["what"]:
                assert row["arenafs_requests"] == 0, row
    assert any(w.startswith("submit") for w in whats) and any(
        w.startswith("delete") for w in whats), whats
    memory = result["memory"]
    assert memory["arenafs_rss_kib"] > 0, memory
    # the full read with every log, apart: every job of this small cluster, each
    # container's log read; and the reads while writers wait, all three measured
    assert memory["full_read_logs_jobs"] == 12 and memory["full_read_logs_files"] > 12, memory
    assert memory["full_read_logs_s"] > 0, memory
    assert all(memory[k] > 0 for k in ("health_unloaded_s", "health_suspend_opens_s",
                                       "health_cps_s")), memory
    assert "reads while writers wait: cat cluster/health" in r.stdout, r.stdout
    # GPU figures with a Prometheus: every job's gpus and progress and top-job read
    # cost one query per 5 s refresh, however many files
    assert memory["gpu_files"] == 2 * 12 + 1, memory
    assert 1 <= memory["gpu_queries"] <= 1 + int(memory["gpu_read_s"] / 5), memory
    assert "GPU figures with Prometheus: cat jobs/*/gpus" in r.stdout, r.stdout
    # against the limit: the tmpfs copy, curl for the log and the lists, both sides ran
    limits = {row["what"]: row for row in result["limits"]}
    assert {"find . -maxdepth 3", "cat jobs/*/status", "ls -l jobs/",
            "mount -> tree ready"} <= set(limits), sorted(limits)
    assert any(w.startswith("cat logs, finished") for w in limits), sorted(limits)
    for row in result["limits"]:
        assert row["arenafs_s"] > 0 and row["reference_s"] > 0, row
    # the tree's rows on the FUSE ceiling too, the others not
    tree_rows = {"find . -maxdepth 3", "grep -r RUNNING jobs/*/status", "cat jobs/*/status",
                 "ls -l jobs/"}
    assert tree_rows <= set(limits), sorted(limits)
    for row in result["limits"]:
        if row["what"] in tree_rows:
            assert row["ceiling_s"] > 0 and row["arenafs_over_ceiling"] > 0, row
        else:
            assert "ceiling_s" not in row, row
    assert result["memory"]["rss_after_full_read_kib"] > 0, result["memory"]
    # every form beside its table, read back whole (bench.py fails a form that does not
    # parse), both timed
    forms = {row["form"] for row in result["forms"]}
    assert {"cluster/list.json", "cluster/list.yaml", "cluster/top-job.json",
            "cluster/queues.json", "queues/list.yaml", "data/list.json",
            "jobs/J/info.json", "jobs/J/progress.json", "jobs/J/metrics.yaml"} <= forms, forms
    for row in result["forms"]:
        assert row["form_s"] > 0 and row["table_s"] > 0 and row["form_bytes"] > 0, row
    assert result["memory"]["rss_fresh_mount_kib"] > 0, result["memory"]
