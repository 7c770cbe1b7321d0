# arenafs — build, test, demo and install.
#
#   make            build ./arenafs (objects under build/)
#   make test       unit tests (C) and integration tests (pytest against kubesim and
#                   the real cluster of tests/cluster/), in TEST_JOBS (3) pytest-xdist
#                   workers: two run the real-cluster tests in turn, each on a cluster of
#                   its own (after building its binaries, when not cached), the others the
#                   kubesim tests meanwhile
#   make demo       run the daemon on the embedded test cluster (CLUSTER=real: the real one)
#   make screenshot docs/screenshot.png: a file manager on the demo's mount, under Xvfb
#                   (tests/screenshot.sh; installs its own packages; not part of make test)
#   make bench      arenafs vs kubectl on a 10,000-job kubesim (tests/bench/), and against
#                   the limit: tmpfs, curl, and build/ceiling (FUSE serving the tree from
#                   memory); CLUSTER=real: 1,000 jobs (5,000 pods) on the real cluster
#   make soak       the daemon's memory under SOAK_MINUTES (20, at most 120) of job churn
#                   on kubesim with Events expiring after 2 minutes; it fails unless RSS is
#                   flat after warm-up (tests/bench/soak.py; SOAK_ARGS for more options);
#                   CLUSTER=real: on the real cluster, started with --event-ttl=2m (2 jobs/s)
#   make asan       the same binary and unit tests with AddressSanitizer + UBSan
#   make fuzz       the libFuzzer targets of tests/fuzz/ (clang), FUZZ_SECONDS=300 each, then
#                   the hostile machine (tests/integration/test_hostile_machine.py) for
#                   HOSTILE_EXAMPLES (200) new random sequences of up to 40 steps on kubesim
#   make install    PREFIX=/usr/local DESTDIR= SBINDIR=/sbin (the mount helper)
#   make deb        the Debian package build-deb/arenafs_VERSION_ARCH.deb (tests/deb.sh,
#                   docs/packaging.md): make install's files, built with Debian's flags
#   make deps       install the Debian packages the build and the tests need
#   make cluster    build the real cluster's upstream binaries (tests/cluster/, cached
#                   in ~/.cache/arenafs/cluster; ARENAFS_CLUSTER=kubesim skips it)
#   make test-oldest  the real-cluster tests of what changes between Kubernetes releases
#                   (job lifecycle, Arena parity, conformance, logs) on the oldest release
#   K8S=1.32        with test, cluster, demo, bench, soak: the real cluster's Kubernetes
#                   release (a directory of tests/cluster/k8s/; default the newest)
#
# Sources are picked up by wildcard: a new .c file in a room needs no edit here.

PREFIX   ?= /usr/local
# mount(8) looks for mount.fuse.TYPE in /sbin only, whatever the prefix
SBINDIR  ?= /sbin
DESTDIR  ?=
BUILD    ?= build
BIN      ?= arenafs
PYTHON   ?= /usr/bin/python3
PKGS     := fuse3 libcurl jansson yaml-0.1

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# NDEBUG is never set here: the asserts (k8s/base/invariant.h) stay on in the release
# binary, which shares its objects with the unit tests; CFLAGS=-DNDEBUG drops them.
CFLAGS ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. $(PKG_CFLAGS) -MMD -MP
ifeq ($(SANITIZE),1)
override CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
override LDFLAGS += -fsanitize=address,undefined
endif
# libFuzzer (clang): the library instrumented for coverage, the targets linked with
# libFuzzer's main (tests/fuzz/, make fuzz).
ifeq ($(SANITIZE),fuzz)
override CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=fuzzer,address,undefined
endif
LDLIBS += $(PKG_LIBS) -lpthread

# Layers, bottom first: k8s/base → k8s → render (the renderers, and render/jobspec/ the spec
# compiler, which include nothing of each other) → fs → mount (see docs/architecture.md).
# Each room's sub-rooms are one folder deep: ROOM/*.c and ROOM/*/*.c.
ROOMS    := k8s render fs
LIB_SRC  := $(wildcard $(ROOMS:%=%/*.c) $(ROOMS:%=%/*/*.c))
MAIN_SRC := $(wildcard mount/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)
# Small C programs the integration tests drive (one .c each → build/tools/NAME).
TOOL_SRC := $(wildcard tests/tools/*.c)
# The example specs make install ships with the docs.
EXAMPLES := $(shell find docs/examples -type f)

DOCDIR_H := $(BUILD)/gen/docdir.h
override CFLAGS += -I$(BUILD)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
# mount/ without its main(): the unit tests link it (tests/unit/test_mount_*.c)
MOUNT_OBJ := $(filter-out $(BUILD)/mount/main.o,$(MAIN_OBJ))
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(BUILD)/unit_tests
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
# The bench's FUSE ceiling (tests/bench/ceiling.c): libfuse alone, no arenafs object.
CEILING  := $(BUILD)/ceiling

.PHONY: FORCE all unit test test-build test-oldest test-unit test-integration bench soak demo screenshot asan test-asan install uninstall deb \
	clean deps deps-check format cluster fuzz fuzz-build fuzz-hostile

all: $(BIN)

$(BIN): $(MAIN_OBJ) $(BUILD)/libarenafs.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libarenafs.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c | $(DOCDIR_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Where make install puts the docs (PREFIX), for the messages that send a user to
# them (render/jobspec/spec_internal.h): a header rewritten only when PREFIX changes,
# so that what includes it is built again then, and only then.
$(DOCDIR_H): FORCE
	@mkdir -p $(dir $@)
	@printf '/* generated by the Makefile: where make install puts the docs */\n#define ARENAFS_DOC_DIR "%s"\n' \
	  '$(PREFIX)/share/doc/arenafs' >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

FORCE:

unit: $(UNIT_BIN) $(TOOL_BIN)

$(UNIT_BIN): $(UNIT_OBJ) $(MOUNT_OBJ) $(BUILD)/libarenafs.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tools/%: $(BUILD)/tests/tools/%.o $(BUILD)/libarenafs.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(CEILING): $(BUILD)/tests/bench/ceiling.o
	$(CC) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs fuse3 2>/dev/null)

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/libarenafs.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Each target runs FUZZ_SECONDS from its seeds (tests/fuzz/corpus/NAME, kept in the
# repository) plus what earlier runs found (build-fuzz/corpus/NAME). A crash stops
# the run and leaves its input in build-fuzz/crashes/: fix it, then add the input
# to the seeds so that it is tried on every run.
FUZZ_SECONDS ?= 300
fuzz-build:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang SANITIZE=fuzz \
	  $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/fuzz/%)

fuzz: deps-check
	@command -v clang >/dev/null || $(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory fuzz-build
	@mkdir -p build-fuzz/crashes
	@for t in $(FUZZ_SRC:tests/fuzz/%.c=%); do \
	  mkdir -p build-fuzz/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  build-fuzz/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=build-fuzz/crashes/$$t- \
	    build-fuzz/corpus/$$t tests/fuzz/corpus/$$t 2>build-fuzz/$$t.log \
	    || { tail -n 60 build-fuzz/$$t.log; exit 1; }; \
	  grep -h "stat::number_of_executed_units\|stat::new_units_added" build-fuzz/$$t.log; \
	done
	@$(MAKE) --no-print-directory fuzz-hostile

# The hostile machine's long profile: make test runs its 14 fixed sequences of 10
# steps; this draws HOSTILE_EXAMPLES new ones of up to 40 (0: none). A failure
# prints the shrunk sequence and the @reproduce_failure line that replays it.
HOSTILE_EXAMPLES ?= 200
fuzz-hostile: deps-check
	@$(MAKE) --no-print-directory all
ifneq ($(HOSTILE_EXAMPLES),0)
	ARENAFS_BIN=$(abspath $(BIN)) HYPOTHESIS_PROFILE=long HYPOTHESIS_EXAMPLES=$(HOSTILE_EXAMPLES) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests/integration/test_hostile_machine.py
endif

# The test and demo targets first make sure the libraries are there, then build in a
# second make so that pkg-config is asked again after an install.
deps-check:
	@pkg-config --exists $(PKGS) && [ -x $(PYTHON) ] && \
	  $(PYTHON) -c 'import pytest, xdist, kubernetes, yaml, hypothesis' 2>/dev/null && \
	  command -v kubectl >/dev/null && command -v fusermount3 >/dev/null && \
	  command -v openssl >/dev/null && command -v rsync >/dev/null && \
	  command -v gio >/dev/null && command -v dpkg-shlibdeps >/dev/null && \
	  command -v lintian >/dev/null && command -v chromedriver >/dev/null || \
	  $(MAKE) --no-print-directory deps

deps:
	@sh .ci/deps.sh

test: deps-check
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory test-unit test-integration

# The real cluster's Kubernetes release: tests/cluster/k8s/<minor>, one Go module each
# (docs/real-cluster.md, "Kubernetes releases"); unset, tests/cluster picks the newest.
K8S ?=
ifneq ($(K8S),)
export ARENAFS_K8S := $(K8S)
endif
K8S_OLDEST := $(firstword $(shell ls tests/cluster/k8s | sort -V))
# What arenafs reads that differs between releases, on the oldest (CI runs it after make
# test, which runs everything on the newest): the cluster's version, jobs' lifecycle,
# Arena parity, the API against kubesim's reading of it, and logs.
OLDEST_TESTS := tests/integration/test_real_cluster.py tests/integration/test_real_lifecycle.py \
                tests/integration/test_arena_parity.py tests/kubesim/test_conformance_real.py \
                tests/integration/test_tree_logs.py tests/integration/test_tree_logs_kept.py \
                tests/integration/test_tree_logs_unavailable.py tests/integration/test_k8s_logstream.py
test-oldest: deps-check
	@$(MAKE) --no-print-directory all $(TOOL_BIN) $(CEILING)
	@ARENAFS_K8S=$(K8S_OLDEST) tests/cluster/build cluster arena
	ARENAFS_K8S=$(K8S_OLDEST) ARENAFS_CLUSTER=real ARENAFS_BIN=$(abspath $(BIN)) \
	  ARENAFS_TOOLS=$(abspath $(BUILD)/tools) ARENAFS_CEILING=$(abspath $(CEILING)) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(OLDEST_TESTS)

# The upstream binaries of the real test cluster (minutes the first time, then cached).
# arena and kueuectl: the peers the parity tests compare with.
CLUSTER_BINS := etcd kube-apiserver kube-controller-manager kube-scheduler kwok training-operator \
                trainer-controller-manager jobset-controller kueue mpi-operator arena kueuectl
cluster:
ifneq ($(ARENAFS_CLUSTER),kubesim)
	@tests/cluster/build $(CLUSTER_BINS)
endif

test-unit: $(UNIT_BIN)
	$(UNIT_BIN)

# Everything make test and test-oldest run, built at once (.ci/run runs the two side by side)
test-build: $(BIN) $(UNIT_BIN) $(TOOL_BIN) $(CEILING)

# The real-cluster tests are two xdist groups (one with TEST_JOBS=2), each on a cluster
# of its own, the kubesim tests one group per module (tests/conftest.py); TEST_JOBS=1
# runs them all in one process, the real ones last.
TEST_JOBS ?= 3
PYTEST_JOBS = $(if $(filter-out 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadgroup,)
test-integration: $(BIN) $(TOOL_BIN) $(CEILING)
	ARENAFS_BIN=$(abspath $(BIN)) ARENAFS_TOOLS=$(abspath $(BUILD)/tools) \
	  ARENAFS_CEILING=$(abspath $(CEILING)) $(PYTHON) -m pytest -q $(PYTEST_JOBS) tests/

# CLUSTER=real: on the real cluster of tests/cluster/, at a size it populates in minutes
BENCH_REAL := $(if $(filter real,$(CLUSTER)),--cluster real --jobs 1000 --nodes 100 \
                --arena $$(tests/cluster/bin arena),)
bench: deps-check
	@$(MAKE) --no-print-directory all $(CEILING) $(if $(filter real,$(CLUSTER)),cluster,)
	ARENAFS_BIN=$(abspath $(BIN)) ARENAFS_CEILING=$(abspath $(CEILING)) \
	  $(PYTHON) tests/bench/bench.py $(BENCH_REAL) $(BENCH_ARGS)

SOAK_MINUTES ?= 20
soak: deps-check
	@$(MAKE) --no-print-directory all $(if $(filter real,$(CLUSTER)),cluster,)
	ARENAFS_BIN=$(abspath $(BIN)) $(PYTHON) tests/bench/soak.py --minutes $(SOAK_MINUTES) \
	  $(if $(filter real,$(CLUSTER)),--cluster real --rate 2,) $(SOAK_ARGS)

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=arenafs-asan SANITIZE=1 all unit \
	  build-asan/ceiling

test-asan: deps-check asan
	build-asan/unit_tests
	ASAN_OPTIONS=detect_leaks=1 ARENAFS_BIN=$(abspath arenafs-asan) \
	  ARENAFS_TOOLS=$(abspath build-asan/tools) ARENAFS_CEILING=$(abspath build-asan/ceiling) \
	  $(PYTHON) -m pytest -q tests/

demo: deps-check
	@$(MAKE) --no-print-directory all $(if $(filter real,$(CLUSTER)),cluster,)
	@ARENAFS_DEMO_CLUSTER=$(or $(CLUSTER),kubesim) sh tests/demo.sh $(abspath $(BIN))

screenshot: deps-check
	@$(MAKE) --no-print-directory all
	@sh tests/screenshot.sh $(abspath $(BIN)) $(abspath docs/screenshot.png)

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SBINDIR) $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/lib/systemd/user
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/arenafs
	sed 's#@BINDIR@#$(PREFIX)/bin#g' mount/mount.arenafs > $(DESTDIR)$(SBINDIR)/mount.arenafs
	chmod 755 $(DESTDIR)$(SBINDIR)/mount.arenafs
	ln -sf mount.arenafs $(DESTDIR)$(SBINDIR)/mount.fuse.arenafs
	install -d $(DESTDIR)$(PREFIX)/share/doc/arenafs
	install -m 644 $(wildcard docs/*.md) $(DESTDIR)$(PREFIX)/share/doc/arenafs/
	# the example specs, one folder a job, to copy into submit/ (docs/examples/README.md)
	for f in $(EXAMPLES); do \
	  install -D -m 644 $$f $(DESTDIR)$(PREFIX)/share/doc/arenafs/$${f#docs/} || exit 1; \
	done
	# the man page and the systemd unit name the installed binary and docs, wherever
	# PREFIX puts them (systemd looks for user units in /usr/local/lib too)
	sed -e 's#/usr/bin/arenafs#$(PREFIX)/bin/arenafs#g' \
	    -e 's#/usr/lib/systemd/user/#$(PREFIX)/lib/systemd/user/#g' \
	    -e 's#docs/\([a-z-]*\)\.md#$(PREFIX)/share/doc/arenafs/\1.md#g' \
	    -e 's#docs/examples/#$(PREFIX)/share/doc/arenafs/examples/#g' \
	    docs/arenafs.1 > $(DESTDIR)$(PREFIX)/share/man/man1/arenafs.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/arenafs.1
	# the helpers' page is arenafs(1), whose DESCRIPTION covers mount(8)
	ln -sf ../man1/arenafs.1 $(DESTDIR)$(PREFIX)/share/man/man8/mount.arenafs.8
	ln -sf ../man1/arenafs.1 $(DESTDIR)$(PREFIX)/share/man/man8/mount.fuse.arenafs.8
	sed 's#/usr/bin/arenafs#$(PREFIX)/bin/arenafs#g' docs/arenafs.service \
	  > $(DESTDIR)$(PREFIX)/lib/systemd/user/arenafs.service
	chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/user/arenafs.service

# The package's binary is built apart, with the flags Debian builds its packages
# with (dpkg-buildflags: hardening, fortify, relro), which the plain build leaves to
# the user's CFLAGS; +all adds bindnow, which lintian asks for.
DEB_BUILD := build-deb
deb:
	@command -v dpkg-shlibdeps >/dev/null || $(MAKE) --no-print-directory deps
	@rm -f $(DEB_BUILD)/arenafs   # make does not see flags change: link anew (a second)
	@export DEB_BUILD_MAINT_OPTIONS=hardening=+all; $(MAKE) --no-print-directory BUILD=$(DEB_BUILD) BIN=$(DEB_BUILD)/arenafs PREFIX=/usr \
	  CFLAGS="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
	  LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" $(DEB_BUILD)/arenafs
	@sh tests/deb.sh $(DEB_BUILD)/arenafs $(DEB_BUILD)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/arenafs $(DESTDIR)$(SBINDIR)/mount.arenafs \
	  $(DESTDIR)$(SBINDIR)/mount.fuse.arenafs $(DESTDIR)$(PREFIX)/share/man/man1/arenafs.1 \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/arenafs.service \
	  $(DESTDIR)$(PREFIX)/share/man/man8/mount.arenafs.8 \
	  $(DESTDIR)$(PREFIX)/share/man/man8/mount.fuse.arenafs.8
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/arenafs

format:
	clang-format -i $(LIB_SRC) $(MAIN_SRC) $(UNIT_SRC) $(wildcard */*.h */*/*.h tests/unit/*.h)

clean:
	rm -rf build build-asan build-fuzz build-deb arenafs arenafs-asan

.SECONDARY:
-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(TOOL_SRC:%.c=$(BUILD)/%.d) \
  $(FUZZ_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/bench/ceiling.d
