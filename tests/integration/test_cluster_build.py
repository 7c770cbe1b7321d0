"""tests/cluster's build of upstream binaries (cluster.build): what a fresh
machine meets, checked with a stand-in `go` so that it takes no minutes.

- A request names each binary once however it is asked: `up` asks for the
  cluster's binaries plus a profile's, which name Trainer's and Kueue's again;
  the repeat built trainer-controller-manager twice and the second move found
  nothing ("No such file or directory: .../bin.tmp/trainer-controller-manager"),
  on every fresh machine where `up` built that module.
- Two modules interleaved are built in the order asked, a module named again
  after another is a group of its own.
- A build that fails or is killed half-way leaves in bin/ only whole binaries;
  the next build empties bin.tmp/ and builds what is missing, and no binary
  is taken as built unless go wrote it.
The real build from empty caches runs in tests/integration/test_cluster_cold.py.
"""

import os
import stat
import subprocess
import sys

import pytest

import realcluster

sys.path.insert(0, os.path.join(os.path.dirname(realcluster.__file__), "cluster"))
import cluster  # noqa: E402

# A stand-in for `go build ... -o OUT PKG`: writes OUT as a small program, or fails
# for the packages named in $FAKE_GO_FAIL, or writes nothing for $FAKE_GO_SILENT;
# appends each package built to $FAKE_GO_LOG.
FAKE_GO = """#!/bin/sh
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
pkg="$a"
echo "$pkg" >>"$FAKE_GO_LOG"
case " $FAKE_GO_FAIL " in *" $pkg "*) echo "compile error in $pkg" >&2; exit 1;; esac
case " $FAKE_GO_SILENT " in *" $pkg "*) exit 0;; esac
printf '#!/bin/sh\\necho %s\\n' "$pkg" >"$out"; chmod +x "$out"
"""


@pytest.fixture
def fake_build(tmp_path, monkeypatch):
    go = tmp_path / "go"
    go.write_text(FAKE_GO)
    go.chmod(go.stat().st_mode | stat.S_IEXEC)
    built = tmp_path / "built.log"
    built.write_text("")
    monkeypatch.setattr(cluster, "GO", str(go))
    monkeypatch.setattr(cluster, "module_facts",
                        lambda moddir: {"version": "v1.0.0", "time": "2026-01-01T00:00:00Z",
                                        "commit": None})
    monkeypatch.setattr(cluster.time, "sleep", lambda s: None)
    monkeypatch.setenv("ARENAFS_CLUSTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_GO_LOG", str(built))
    monkeypatch.setenv("FAKE_GO_FAIL", "")
    monkeypatch.setenv("FAKE_GO_SILENT", "")

    def packages_built():
        return [line for line in built.read_text().splitlines() if line]
    return packages_built


def pkg(name):
    return cluster.BINARIES[name][1]


def test_a_name_asked_twice_is_one_binary_of_its_group():
    groups = cluster._by_module(["etcd", "trainer-controller-manager", "kueue",
                                 "trainer-controller-manager", "kueue", "etcd"])
    assert groups == [("etcd", ["etcd"]), ("kubeflow", ["trainer-controller-manager", "kueue"])]


def test_up_s_request_names_each_binary_once():
    sys.path.insert(0, cluster.HERE)
    import kubeflow
    for profile in (None, "v2beta1"):
        asked = cluster.CLUSTER_BINARIES + kubeflow.binaries(profile)
        names = [n for _, group in cluster._by_module(asked) for n in group]
        assert len(names) == len(set(names)), names
        assert set(names) == set(asked), (names, asked)


def test_two_modules_interleaved_are_built_in_the_order_asked():
    groups = cluster._by_module(["kube-apiserver", "etcd", "kube-scheduler", "kueue",
                                 "arena", "kueuectl"])
    assert groups == [("k8s", ["kube-apiserver"]), ("etcd", ["etcd"]),
                      ("k8s", ["kube-scheduler"]), ("kubeflow", ["kueue"]),
                      ("arena", ["arena"]), ("kubeflow", ["kueuectl"])]


def test_the_word_cluster_asks_for_the_cluster_s_binaries_and_nothing_for_all():
    assert cluster.asked_names(["cluster", "arena"]) == cluster.CLUSTER_BINARIES + ["arena"]
    assert "arena" not in cluster.CLUSTER_BINARIES
    assert cluster.asked_names([]) == cluster.ALL_BINARIES
    assert cluster.asked_names(["kueuectl", "etcd"]) == ["kueuectl", "etcd"]


def test_cluster_arena_builds_the_cluster_s_modules_then_arena_once(fake_build):
    """.ci/run's first request (`tests/cluster/build cluster arena`): the cluster's
    binaries module by module, then Arena; asked again, nothing more is built."""
    cluster.build(cluster.asked_names(["cluster", "arena"]))
    first = fake_build()
    assert first == [pkg(n) for n in cluster.CLUSTER_BINARIES + ["arena"]]
    cluster.build(cluster.asked_names(["cluster", "arena"]))
    assert fake_build() == first


def test_an_unknown_name_is_refused_naming_the_known_ones():
    with pytest.raises(cluster.ClusterError, match="unknown binary 'etc' \\(known: arena, etcd"):
        cluster._by_module(["etcd", "etc"])


def test_up_s_repeated_request_builds_each_binary_once(fake_build):
    cluster.build(["etcd", "trainer-controller-manager", "kueue", "trainer-controller-manager",
                   "kueue"])
    assert fake_build() == [pkg("etcd"), pkg("trainer-controller-manager"), pkg("kueue")]
    for n in ("etcd", "trainer-controller-manager", "kueue"):
        out = subprocess.run([cluster.binary_path(n)], capture_output=True, text=True)
        assert out.stdout.strip() == pkg(n)
    assert not os.path.exists(os.path.dirname(cluster.binary_path("kueue")) + ".tmp")


def test_a_failed_build_leaves_only_whole_binaries_and_the_next_builds_the_rest(
        fake_build, monkeypatch):
    monkeypatch.setenv("FAKE_GO_FAIL", pkg("kueue"))
    with pytest.raises(cluster.ClusterError, match="building kueue failed:\n.*compile error"):
        cluster.build(["trainer-controller-manager", "kueue", "kueuectl"])
    assert os.access(cluster.binary_path("trainer-controller-manager"), os.X_OK)
    assert not os.path.exists(cluster.binary_path("kueue"))
    assert not os.path.exists(cluster.binary_path("kueuectl"))

    monkeypatch.setenv("FAKE_GO_FAIL", "")
    before = len(fake_build())
    cluster.build(["trainer-controller-manager", "kueue", "kueuectl"])
    assert fake_build()[before:] == [pkg("kueue"), pkg("kueuectl")]


def test_a_killed_build_s_leftovers_are_cleared_and_never_taken_as_built(fake_build):
    # what a build killed half-way leaves: a partial program in bin.tmp/
    bindir = os.path.dirname(cluster.binary_path("kueue"))
    os.makedirs(bindir + ".tmp")
    with open(os.path.join(bindir + ".tmp", "kueue"), "w") as f:
        f.write("#!/bin/sh\n# half writ")
    cluster.build(["kueue"])
    assert fake_build() == [pkg("kueue")]
    out = subprocess.run([cluster.binary_path("kueue")], capture_output=True, text=True)
    assert out.stdout.strip() == pkg("kueue")
    assert not os.path.exists(bindir + ".tmp")


def test_go_exiting_0_without_a_program_is_a_failure_not_a_binary(fake_build, monkeypatch):
    monkeypatch.setenv("FAKE_GO_SILENT", pkg("etcd"))
    with pytest.raises(cluster.ClusterError, match="building etcd: go build exited 0 but wrote no"):
        cluster.build(["etcd"])
    assert not os.path.exists(cluster.binary_path("etcd"))
