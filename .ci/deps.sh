#!/bin/sh
# Installs the Debian packages arenafs needs to build and test, or, when not root,
# prints the apt-get line that would. The one list of packages; Makefile and .ci/run call this.
# dpkg-dev and lintian: make deb and its test (tests/integration/test_package.py).
# python3-hypothesis: the hostile machine (tests/integration/test_hostile_machine.py).
# chromium and chromium-driver: the headless browser test_jupyterlab.py drives (Selenium,
# from the virtual environment tests/peers/venv.sh makes, with JupyterLab).
# With arguments, those packages instead (tests/screenshot.sh's, which CI does not need).
set -e
PACKAGES="$*"
[ -n "$PACKAGES" ] || PACKAGES="build-essential pkg-config libfuse3-dev fuse3 libcurl4-openssl-dev libjansson-dev \
libyaml-dev python3 python3-pytest python3-pytest-xdist python3-hypothesis python3-kubernetes python3-yaml python3-venv openssl kubernetes-client \
procps psmisc rsync libglib2.0-bin clang valgrind dpkg-dev lintian chromium chromium-driver"
# libFuzzer's and the sanitizers' runtimes come in their own package, only
# recommended by clang (and apt-get below installs no recommends).
CLANG_MAJOR=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
PACKAGES="$PACKAGES libclang-rt-${CLANG_MAJOR:-14}-dev"

missing=""
for p in $PACKAGES; do
	# kubectl may come from elsewhere than Debian's kubernetes-client: the command is what counts.
	if [ "$p" = kubernetes-client ] && command -v kubectl >/dev/null 2>&1; then
		continue
	fi
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# The real test cluster (tests/cluster/) is built from Go modules; Go is not a
# Debian package here (Debian's is too old for kube-apiserver 1.37).
if [ $# -eq 0 ] && [ "${ARENAFS_CLUSTER:-both}" != kubesim ] && ! command -v go >/dev/null 2>&1 &&
	[ ! -x /usr/local/go/bin/go ]; then
	echo "arenafs: the real test cluster needs Go >= 1.26 on PATH (or ARENAFS_CLUSTER=kubesim)" >&2
	exit 1
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "arenafs: missing packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "arenafs: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends $missing || {
	apt-get update && apt-get install -y --no-install-recommends $missing
}
